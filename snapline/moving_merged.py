"""``snapline upgrade`` after git merged a branch that still carried an in-tree ledger.

A branch made before the upgrade keeps ``.snapline/`` in its commits. Merged into a
branch whose history moved onto the refs, git brings back the ledger files that branch
added since the two parted (new snapshots, objects), but not the ones the moved side
deleted (``FORMAT`` among them), or stops on a modify/delete conflict. The files in the
work tree are then no whole ledger, and are not read (:mod:`snapline.moving_notes`);
the whole one is in the merged commit. So the upgrade reads the ledger of each merged
commit that carries one (``MERGE_HEAD`` while the merge waits for its commit, else the
further parents of ``HEAD``), checked out in a temporary clone that shares the
repository's objects, and moves its snapshots onto the refs as for a checkout (those on
the refs already, by id, are reused; the others go onto a line of their own). Then
``.snapline/`` leaves the index and the work tree: in one commit of its own after a
merge commit, or, while the merge waits, staged for the merge's own commit (resolving
any conflict on those files). Milestones a merged ledger closed beside its main line, on
snapshots of the refs' main line, are joined there last, as ``snapline merge`` joins
them (:mod:`snapline.moving_join`), unless a merge there joined them already.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.moving import Upgraded
from snapline.moving_git import merge_in_progress, run_git, staged_paths, unstage_store
from snapline.moving_join import join_kept
from snapline.paths import STORE_DIR

__all__ = ["NoWholeLedgerError", "merged_ledgers", "move_merged"]


class NoWholeLedgerError(SnaplineError):
    """``.snapline/ledger/`` holds files without ``FORMAT`` and no merged commit a whole ledger.

    Attributes:
        path: The workspace root.
    """

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        super().__init__(
            f"{path}/.snapline/ledger/ holds ledger files without their FORMAT file, and no "
            "merged commit (MERGE_HEAD, or HEAD's other parents) carries a whole ledger to "
            "move: remove them with `git rm -r .snapline` if their history is not wanted"
        )


def merged_ledgers(root: Path) -> list[str]:
    """The merged commits whose tree carries a whole in-tree ledger."""
    found = []
    if merge_in_progress(root):
        candidates = [_rev(root, "MERGE_HEAD")]
    else:
        listed = _git(root, "rev-list", "--parents", "-n", "1", "HEAD").decode().split()
        candidates = listed[2:]
    for commit in candidates:
        if _git(root, "ls-tree", "--name-only", commit, "--", f"{STORE_DIR}/ledger/FORMAT"):
            found.append(commit)
    return found


def move_merged(root: Path, state: Path, *, dry_run: bool, timeout: float) -> Upgraded:
    """Move the ledgers of the merged commits onto the refs and take ``.snapline/`` away.

    Raises:
        NoWholeLedgerError: If no merged commit carries a whole ledger.
        StagedChangesError: If no merge is waiting and other changes are staged.
    """
    from snapline.moving import StagedChangesError, moved, set_aside

    waiting = merge_in_progress(root)
    if not waiting:
        others = [p for p in staged_paths(root) if not p.startswith(STORE_DIR + "/")]
        if others:
            raise StagedChangesError(others)
    commits = merged_ledgers(root)
    if not commits:
        raise NoWholeLedgerError(root)
    done = Upgraded(dry_run=dry_run, found="merged")
    for commit in commits:
        with tempfile.TemporaryDirectory(prefix="snapline-merged-") as scratch:
            _extract(root, commit, Path(scratch))
            more = moved(root, Path(scratch), state, "ledger", dry_run=dry_run, timeout=timeout)
            done = _add(done, more)
    if dry_run:
        return done
    unstage_store(root)
    set_aside(root / STORE_DIR, state)
    if waiting:
        join_kept(root, state, timeout)
        return done
    from snapline.moving_git import commit_removal
    from snapline.moving_plan import message

    removal = commit_removal(root, message(done))
    join_kept(root, state, timeout)
    return Upgraded(**{**done.__dict__, "commit": removal})


def _add(done: Upgraded, more: Upgraded) -> Upgraded:
    return Upgraded(
        dry_run=done.dry_run,
        found=done.found,
        written=done.written + more.written,
        present=done.present + more.present,
        lines={**done.lines, **more.lines},
        main_line=done.main_line or more.main_line,
        milestones=done.milestones + more.milestones,
        placeholders=done.placeholders + more.placeholders,
        forgotten=done.forgotten + more.forgotten,
        index=more.index,
        index_made=done.index_made or more.index_made,
        joined=list(dict.fromkeys(done.joined + more.joined)),
    )


def _extract(root: Path, commit: str, target: Path) -> None:
    """A checkout of ``commit`` in ``target``: a clone that borrows ``root``'s objects.

    Its ledger is then read as in a checkout of that commit, git saying which of its
    parents is the first. When both branches it merged closed a milestone of the same
    number, that decides which is the main line's and which was closed beside it; a
    bare copy of the tree, with no git to ask, took the wrong one for the main line's.
    No hook runs (``core.hooksPath``): the clone is snapline's, not the user's.
    """
    _git(root, "clone", "-q", "--shared", "--no-checkout", "--", str(root), str(target))
    _git(target, "-c", "core.hooksPath=/dev/null", "checkout", "-q", "--detach", commit)


def _rev(root: Path, name: str) -> str:
    return _git(root, "rev-parse", "--verify", name).decode().strip()


def _git(root: Path, *args: str) -> bytes:
    return run_git(root, *args)
