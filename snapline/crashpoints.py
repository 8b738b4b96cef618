"""Named points where a write is half done, for the crash-safety tests.

Setting ``SNAPLINE_CRASH_AT=<step>`` (or ``<step>:<n>`` for the n-th time the step is
reached) makes the process SIGKILL itself there, as a power cut would stop it, so the
tests can check that the next open finds the store and the workspace whole. Unset (the
normal case) each point costs one comparison. The steps are listed in :data:`STEPS`
and in docs/guarantees.md.
"""

from __future__ import annotations

import os

__all__ = ["ENV", "STEPS", "crash_point"]

ENV = "SNAPLINE_CRASH_AT"

STEPS = (
    "baseline-built",  # init: store built under its staging name, not yet renamed
    "journal-committed",  # a workspace write is journaled, no file written yet
    "files-staged",  # every new content written and fsynced beside its file, none renamed
    "file-written",  # one workspace file written, snapshot not committed
    "files-written",  # every workspace file written, snapshot not committed
    "refs-line-named",  # a work tree's first write: its local state names its new line, no ref yet
    "refs-published",  # a write's commits are on their refs (git's), the index not committed
    "refs-index-built",  # an index built from the refs, full under its staging name, unsynced
    "snapshot-committed",  # snapshot and journal clean-up committed
    "record-prepared",  # a recording is computed, its transaction not committed
    "run-journaled",  # a shell command is journaled, not started
    "run-finished",  # the command has exited, its effects not recorded
    "milestone-prepared",  # a milestone is computed, its transaction not committed
    "milestone-committed",  # a milestone is committed, the command has not returned
    "file-restored",  # recovery or a failed write put one file back, journal not cleared
    "forget-planned",  # forget on git's refs: the rewritten commits written, no ref moved
    "forget-refs-moved",  # forget on git's refs: forget and line refs moved, index not rebuilt
    "forget-indexed",  # forget: the index rebuilt, its file not yet vacuumed and truncated
    "upgrade-lines-set",  # upgrade: side lines, milestones, checks, forgets on refs; main not
    "upgrade-refs-moved",  # upgrade: every ref set (the commit point), no index published
    "upgrade-index-published",  # upgrade: the refs index in place, .snapline/ in the tree
    "upgrade-unstaged",  # upgrade: .snapline/ out of git's index, still in the work tree
    "upgrade-tree-moved",  # upgrade: .snapline/ out of the work tree, removal not committed
    "upgrade-committed",  # upgrade: the removal committed, the moved copy not deleted
    "upgrade-joined",  # upgrade: milestones beside the main line joined, their file kept
)


_SEEN: dict[str, int] = {}


def crash_point(step: str) -> None:
    """SIGKILL this process if ``SNAPLINE_CRASH_AT`` names ``step`` (see module doc)."""
    # Read at each point, not once at import: a worker of the warm server imported this
    # module in the server, before it took the environment of the command it runs.
    value = os.environ.get(ENV)
    if not value:
        return
    target, _, count = value.partition(":")
    if target != step:
        return
    _SEEN[step] = _SEEN.get(step, 0) + 1
    if _SEEN[step] == (int(count) if count else 1):
        import signal  # here: its enums would cost every process that never crashes

        os.kill(os.getpid(), signal.SIGKILL)
