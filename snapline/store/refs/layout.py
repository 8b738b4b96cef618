"""Where the history lives in a git repository: the refs, and the tree of a snapshot.

Every ref is under ``refs/snapline/`` (never ``refs/heads`` or ``refs/tags``, so no
branch listing, checkout or tag push sees them), one ref per line of history, named by
the line's first snapshot id: two agents recording in two clones or work trees write
two refs and never contend for one.

========================================  ============================================
``refs/snapline/lines/<id>``              a line of snapshots: one commit per snapshot
``refs/snapline/milestones/<line id>``    the line's milestones (one commit each)
``refs/snapline/checks/<line id>``        the line's guard outcomes (one commit each)
``refs/snapline/prompts/<line id>``       the prompts of the line's sessions
``refs/snapline/forgets/<forget id>``     one ``snapline forget`` (its tombstones)
``refs/snapline/settings/<line id>``      the content settings (one commit, at ``init``)
========================================  ============================================

A snapshot commit's tree holds two names: ``record``, the snapshot's record in the
ledger's snapshot format (:mod:`snapline.store.ledger.format`: diffs, base and result
SHA-256 per file, chain hash, tool, session, prompt metadata, format version), and
``state``, the workspace's files in scope after the snapshot, as a git tree whose blobs
are git's own (a file already in the user's commits is the same blob, stored once).
The commit's first parent is the snapshot before it (on this line, or the snapshot a new
line forks from); a merge snapshot's further parents are the heads it joins.
Lines, milestones, checks, forgets (:mod:`snapline.store.refs.forgetting`) and settings
(:mod:`snapline.store.refs.settings`) are written; prompts are named here for what comes
(a session's prompts are in each snapshot's record meanwhile). A
milestone commit's tree holds ``record`` alone (the ledger's milestone format);
its parent is the line's milestone before it. A check commit's tree holds one blob named
as the ledger names a check record (:mod:`snapline.store.refs.checks`).
"""

from __future__ import annotations

import stat

from snapline.store.ledger.fields import is_id
from snapline.store.rows import MilestoneRow, SnapshotRow

__all__ = [
    "CHECKS",
    "FILE_MODES",
    "FORGETS",
    "LINES",
    "MILESTONES",
    "PROMPTS",
    "RECORD",
    "REFS",
    "STATE",
    "checks_ref",
    "commit_message",
    "commit_time",
    "git_mode",
    "line_of_ref",
    "line_ref",
    "milestone_message",
    "milestones_ref",
    "summary_line",
]

REFS = "refs/snapline/"
"""Every ref snapline writes starts with this; push and fetch it as ``refs/snapline/*``."""
LINES = REFS + "lines/"
MILESTONES = REFS + "milestones/"
CHECKS = REFS + "checks/"
PROMPTS = REFS + "prompts/"
FORGETS = REFS + "forgets/"

RECORD = "record"
"""The name of the snapshot's record in its commit's tree (``git show REF:record``)."""
STATE = "state"
"""The name of the result state's tree in a snapshot commit's tree."""

FILE_MODES = frozenset({0o100644, 0o100755, 0o120000})
"""The modes a file in a state tree may have: git's file, executable file, symlink."""
_SUMMARY = 100


def line_ref(line: str) -> str:
    """The ref of the line whose first snapshot has id ``line``.

    Raises:
        ValueError: If ``line`` is not a snapshot id.
    """
    if not is_id(line):
        raise ValueError(f"not a snapshot id: {line!r:.80}")
    return LINES + line


def milestones_ref(line: str) -> str:
    """The ref of the milestones of the line whose first snapshot has id ``line``.

    Raises:
        ValueError: If ``line`` is not a snapshot id.
    """
    return MILESTONES + line_ref(line).removeprefix(LINES)


def checks_ref(line: str) -> str:
    """The ref of the guard outcomes of the line whose first snapshot has id ``line``.

    Raises:
        ValueError: If ``line`` is not a snapshot id.
    """
    return CHECKS + line_ref(line).removeprefix(LINES)


def line_of_ref(name: str) -> str | None:
    """The line a ref names (the id of its first snapshot), or ``None`` if not a line's."""
    line = name.removeprefix(LINES)
    return line if name.startswith(LINES) and is_id(line) else None


def git_mode(mode: int) -> int:
    """The mode git gives a file recorded with POSIX mode ``mode``.

    git keeps three: a symlink, an executable file (any execute bit, as git reads the
    owner's), a plain file. The record keeps the exact mode.
    """
    if stat.S_ISLNK(mode):
        return 0o120000
    return 0o100755 if mode & stat.S_IXUSR else 0o100644


def commit_message(row: SnapshotRow) -> str:
    """The commit message of a snapshot, as ``git log`` shows it.

    ``snapline 12: edit: fix the parser`` (the description's first line, cut at 100
    characters), then the snapshot's id as a trailer. The record holds the whole.
    """
    first = row.description.splitlines()[0] if row.description.strip() else ""
    summary = f"snapline {row.number}: {row.tool}" + (f": {first}" if first else "")
    return f"{summary_line(summary)}\n\nSnapline-Id: {row.id}\n"


def milestone_message(row: MilestoneRow) -> str:
    """A milestone's commit message: ``snapline milestone 3: TITLE`` (cut at 100)."""
    first = row.title.splitlines()[0] if row.title.strip() else ""
    summary = f"snapline milestone {row.number}" + (f": {first}" if first else "")
    return summary_line(summary) + "\n"


def summary_line(summary: str) -> str:
    """A commit message's first line: ``summary``, cut to 100 characters with ``...``."""
    return summary if len(summary) <= _SUMMARY else summary[: _SUMMARY - 3] + "..."


def commit_time(row: SnapshotRow | MilestoneRow) -> int:
    """The snapshot's (or milestone's) time in whole seconds since the epoch, the commit's.

    Raises:
        ValueError: If the row's time is not ISO 8601.
    """
    from datetime import datetime

    return int(datetime.fromisoformat(row.time.replace("Z", "+00:00")).timestamp())
