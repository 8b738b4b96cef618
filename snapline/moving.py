"""``snapline upgrade``: an in-tree history moved onto git's refs, ``.snapline/`` out of the tree.

In a git work tree whose checkout carries an in-tree store (a ledger, format 1 or 2, or
a snapline 0.1 ``store.db``, which :mod:`snapline.upgrade` brings to the ledger first),
one run, under the store's writer lock and the refs store's:

1. Every snapshot of every line the ledger holds, and its milestones, go onto the refs
   (:func:`snapline.store.refs.moving.move_history`): a snapshot already there, by id,
   is reused, never written twice. **The refs are the commit point**: the main line's
   ref is set last, each ref once.
2. The refs store's index is made from the ledger's (a copy, with the baseline content
   the ledger leaves in the work tree) and published under the git directory, unless
   the work tree has one already (its history was on the refs before: then only the
   ledger's other snapshots were added, on lines of their own).
3. ``.snapline/`` leaves git's index, then the work tree (one rename into the git
   directory: the switch from the old store to the new one), then one commit on the
   current branch holds the removal, and nothing else: the command refuses to start
   while the index holds other staged changes.

A kill anywhere leaves the old store working (before step 3's rename the work tree
still holds it, whole) or the new one (after it; a removal left staged is committed by
the next ``snapline upgrade``), and running the command again finishes the job: refs
written before are found and kept, commits are the same bytes. ``--dry-run`` computes
the same plan and writes nothing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapline.atomic import sync_directory
from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.moving_git import commit_removal, head_tracks_store, staged_paths, unstage_store
from snapline.moving_join import beside_main, described, join_kept, keep, unjoined_on
from snapline.paths import STORE_DIR
from snapline.snapshots.record.writer_lock import LOCK_NAME
from snapline.state_dir import GIT_STATE, git_dir, private_repo
from snapline.store import DB_NAME
from snapline.store.holding import holding
from snapline.store.ledger.files import FORMAT_NAME, LEDGER_DIR

__all__ = [
    "MOVED_NAME",
    "StagedChangesError",
    "Upgraded",
    "move_store",
    "moved",
    "set_aside",
    "upgrade_to_refs",
    "work_tree_top",
]

MOVED_NAME = "moved-in-tree"
"""Where ``.snapline/`` goes in the local state directory before it is deleted."""


class StagedChangesError(SnaplineError):
    """git's index holds staged changes, which the removal commit must not sweep in.

    Attributes:
        paths: The staged paths.
    """

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
        super().__init__(
            f"git's index holds staged changes ({paths[0]}{more}); snapline upgrade makes "
            "one commit that holds only the removal of .snapline/: commit or unstage them "
            "first (`git restore --staged PATH`), then run it again; nothing was changed"
        )


@dataclass(frozen=True)
class Upgraded:
    """What ``snapline upgrade`` did, or with ``dry_run`` would do.

    Attributes:
        dry_run: Nothing was written.
        found: What the work tree held: ``ledger``, ``0.1``, or ``none``.
        written: How many snapshots were (would be) put on the refs.
        present: How many were on the refs already.
        lines: Each line written: its ref and how many snapshots went onto it.
        main_line: The ref of the history's main line.
        milestones: The numbers of the milestones written.
        placeholders: ``(snapshot, path)`` of versions the store kept no content of.
        forgotten: ``(snapshot, path)`` of versions it forgot, written as tombstones.
        index: Where the local index is (``None`` when nothing moved).
        index_made: Whether it was made from the ledger's (else it was there).
        commit: The commit that removed ``.snapline/``, ``None`` when none was made.
        joined: The milestones closed beside the main line's, joined (:mod:`.moving_join`).
    """

    dry_run: bool
    found: str
    written: int = 0
    present: int = 0
    lines: dict[str, int] = field(default_factory=dict)
    main_line: str = ""
    milestones: list[int] = field(default_factory=list)
    placeholders: list[tuple[int, str]] = field(default_factory=list)
    forgotten: list[tuple[int, str]] = field(default_factory=list)
    index: str | None = None
    index_made: bool = False
    commit: str | None = None
    joined: list[str] = field(default_factory=list)


def work_tree_top(start: Path) -> Path:
    """The top of the git work tree holding ``start``, else (outside git) its workspace root.

    Raises:
        NotInitializedError: If neither is found from ``start`` upwards.
    """
    start = start.resolve()
    for candidate in (start, *start.parents):
        if git_dir(candidate) is not None:
            return candidate
    from snapline.opening import find_root

    return find_root(start)  # its in-tree store goes to a private repository


def upgrade_to_refs(root: Path, *, dry_run: bool, timeout: float) -> Upgraded:
    """Move the in-tree history of the work tree at ``root`` onto git's refs (module doc).

    Args:
        root: The absolute top of a git work tree.
        dry_run: Compute what would be done, change nothing.
        timeout: Seconds to wait for another process holding a lock.

    Returns:
        What was done (or would be).

    Outside git (or with a private repository already), the in-tree store moves onto a
    private repository instead (:func:`snapline.moving_private.upgrade_private`).

    Raises:
        StagedChangesError: If git's index holds staged changes outside ``.snapline/``.
        GitCommandError: If a git command failed (the refs hold the history by then).
        StoreCorruptError: If the in-tree store or a line on the refs is damaged.
        StoreBusyError: If another process held a lock past ``timeout``.
    """
    found_git = git_dir(root)
    if found_git is None or private_repo(root) is not None:
        from snapline.moving_private import upgrade_private

        return upgrade_private(root, dry_run=dry_run, timeout=timeout)
    store_dir = root / STORE_DIR
    state = found_git / GIT_STATE
    kind = _found(store_dir)
    if kind == "none":
        if os.path.lexists(store_dir / LEDGER_DIR):
            from snapline.moving_merged import move_merged

            return move_merged(root, state, dry_run=dry_run, timeout=timeout)
        return _finish(root, state, dry_run, timeout)
    others = [p for p in staged_paths(root) if not p.startswith(STORE_DIR + "/")]
    if others:
        raise StagedChangesError(others)
    if dry_run:
        from snapline.moving_plan import plan

        return plan(root, state, kind, timeout)
    from snapline.opening import open_store

    # Opened first (a 0.1 store is converted, the index caught up, under the writer
    # lock), then the lock held: no writer adds to the ledger while it moves.
    opened = open_store(root, timeout)
    try:
        state.mkdir(exist_ok=True)
        with (
            holding(store_dir / LOCK_NAME, store_dir / LOCK_NAME, timeout),
            holding(state / LOCK_NAME, state / LOCK_NAME, timeout),
        ):
            done = move_store(root, opened.store, state, kind, timeout, dry_run=False)
            unstage_store(root)
            crash_point("upgrade-unstaged")
            set_aside(store_dir, state)
            crash_point("upgrade-tree-moved")
    finally:
        opened.close()
    from snapline.moving_plan import message

    commit = commit_removal(root, message(done))
    crash_point("upgrade-committed")
    join_kept(root, state, timeout)
    shutil.rmtree(state / MOVED_NAME, ignore_errors=True)
    return Upgraded(**{**done.__dict__, "commit": commit})


def _found(store_dir: Path) -> str:
    if (store_dir / DB_NAME).is_file():
        return "0.1"
    if (store_dir / LEDGER_DIR / FORMAT_NAME).is_file():
        return "ledger"
    return "none"


def moved(
    root: Path, source: Path, state: Path, kind: str, *, dry_run: bool, timeout: float
) -> Upgraded:
    """Steps 1 and 2 for the in-tree store of ``source`` (``root``, or a copy elsewhere).

    Under the refs store's lock (the caller holds the in-tree store's when it is
    ``root``'s); with ``dry_run`` only the plan, nothing written.
    """
    from snapline.opening import open_store

    opened = open_store(source, timeout)
    try:
        if dry_run:
            return move_store(root, opened.store, state, kind, timeout, dry_run=True)
        state.mkdir(exist_ok=True)
        with holding(state / LOCK_NAME, state / LOCK_NAME, timeout):
            return move_store(root, opened.store, state, kind, timeout, dry_run=False)
    finally:
        opened.close()


def move_store(
    root: Path,
    store: object,
    state: Path,
    kind: str,
    timeout: float,
    *,
    dry_run: bool,
    repo: object = None,
) -> Upgraded:
    """Steps 1 and 2 under the locks: the refs (of ``repo``, else ``root``'s), then the index."""
    from snapline.store.ledger.moving_out import (
        copy_index,
        ledger_forgotten,
        ledger_milestones,
        ledger_other_milestones,
        ledger_snapshots,
    )
    from snapline.store.ledger.store import LedgerStore
    from snapline.store.refs.git import GitRepository, open_repository
    from snapline.store.refs.layout import line_ref, milestones_ref
    from snapline.store.refs.marks import MarkTable
    from snapline.store.refs.moving import move_history
    from snapline.store.refs.opening import INDEX_NAME, STAGING_NAME, publish_index

    assert isinstance(store, LedgerStore), "an in-tree store is a ledger once opened"
    if store.stale() and not dry_run:
        store.refresh()
    snapshots = ledger_snapshots(store)
    private, own_line = repo is not None, not (state / INDEX_NAME).is_file()
    repo = repo if isinstance(repo, GitRepository) else open_repository(root)
    # Its milestones closed beside the main line are joined after the move (all when its
    # main line is this work tree's, else `unjoined_on`), decided before it, so that a
    # dry run says what the run does (not outside git: no branch closed them there).
    line = snapshots[0].row.id if snapshots else ""
    unset = repo.ref(line_ref(line)) is None  # the move sets it to the ledger's tip
    ours = own_line and not private and (unset or _main_is(repo, line, snapshots))
    beside = [] if private else beside_main(store)
    carried = beside if ours else unjoined_on(repo, line, beside)
    staging = state / STAGING_NAME
    index = None if dry_run else copy_index(store, staging, timeout)
    made = False
    try:
        outcome = move_history(
            repo,
            snapshots,
            ledger_milestones(store),
            store.index.blobs if index is None else index.blobs,
            dry_run=dry_run,
            side_milestones=ledger_other_milestones(store),
            before_main=lambda: _before_main(repo, snapshots[0].row.id, store),
            forgotten=ledger_forgotten(store),
        )
        if index is not None:
            keep(state, carried)
            _keep_settings(repo, outcome.main_line, snapshots, store.config())
            crash_point("upgrade-refs-moved")
            # The ledger's index is this work tree's only if the main line on the refs
            # is the ledger's (a clone that fetched another history builds its own).
            made = not (state / INDEX_NAME).is_file() and _main_is(
                repo, outcome.main_line, snapshots
            )
            if made:
                marks = MarkTable(index.connection)
                with index.write():
                    for ref in (line_ref(outcome.main_line), milestones_ref(outcome.main_line)):
                        target = repo.ref(ref)
                        if target is not None:
                            marks.put(ref, target)
    finally:
        if index is not None:
            index.close()
    if not dry_run:
        from snapline.store.refs.store import WRITER_MARK

        # This work tree wrote the history it moved: it stays held to its latest
        # snapshot, not to whatever explains its commit (snapshots/check/explained.py).
        (state / WRITER_MARK).touch()
        if made:
            from snapline.store.dbfile import remove_stale_logs

            remove_stale_logs(state / INDEX_NAME)
            publish_index(state)
        else:
            os.unlink(staging)
        crash_point("upgrade-index-published")
    return Upgraded(
        dry_run=dry_run,
        found=kind,
        written=len(outcome.written),
        present=outcome.present,
        lines={line_ref(line): count for line, count in outcome.lines.items()},
        main_line=line_ref(outcome.main_line),
        milestones=outcome.milestones,
        placeholders=outcome.placeholders,
        forgotten=outcome.forgotten,
        index=None if dry_run else str(state / INDEX_NAME),
        index_made=made,
        joined=[described(m) for m in carried],
    )


def _keep_settings(
    repo: object, line: str, snapshots: Sequence[object], config: dict[str, Any]
) -> None:
    """The ledger's ``config.json`` onto the refs, with its main line (once, if it is ours)."""
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.layout import commit_time
    from snapline.store.refs.moving import MovedSnapshot
    from snapline.store.refs.settings import settings_ref, write_settings

    assert isinstance(repo, GitRepository) and isinstance(snapshots[0], MovedSnapshot)
    if _main_is(repo, line, snapshots) and repo.ref(settings_ref(line)) is None:
        write_settings(repo, line, config, commit_time(snapshots[0].row))


def _main_is(repo: object, line: str, snapshots: Sequence[object]) -> bool:
    """Whether the main line's ref ends at the ledger's latest main-line snapshot."""
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.layout import line_ref
    from snapline.store.refs.moving import MovedSnapshot
    from snapline.store.refs.reading import read_snapshot

    assert isinstance(repo, GitRepository)
    tip = repo.ref(line_ref(line))
    main = [s for s in snapshots if isinstance(s, MovedSnapshot) and s.main]
    return (
        tip is not None and bool(main) and read_snapshot(repo, tip).record.row.id == main[-1].row.id
    )


def _before_main(repo: object, line: str, store: object) -> None:
    """The last step before the main line's ref moves: guard outcomes and forgets."""
    from snapline.store.ledger.files import CHECKS, FORGOTTEN
    from snapline.store.ledger.moving_out import ledger_records
    from snapline.store.ledger.store import LedgerStore
    from snapline.store.refs.checks import add_checks
    from snapline.store.refs.forgets import add_forgets
    from snapline.store.refs.git import GitRepository

    assert isinstance(repo, GitRepository) and isinstance(store, LedgerStore)
    add_checks(repo, line, ledger_records(store, CHECKS), dry_run=False)
    add_forgets(repo, ledger_records(store, FORGOTTEN), dry_run=False)
    crash_point("upgrade-lines-set")


def set_aside(store_dir: Path, state: Path) -> None:
    """Take ``.snapline/`` out of the work tree in one rename (the switch of stores)."""
    target = state / MOVED_NAME
    shutil.rmtree(target, ignore_errors=True)
    os.rename(store_dir, target)
    # Both folders' entries changed. The one directory sync: a filesystem that cannot
    # sync a directory at all (EINVAL: some network and FUSE ones) is no upgrade error.
    sync_directory(store_dir.parent)
    sync_directory(state)


def _finish(root: Path, state: Path, dry_run: bool, timeout: float) -> Upgraded:
    """No in-tree store: a removal a killed upgrade left staged committed, then its joins."""
    if dry_run:
        return Upgraded(dry_run=True, found="none")
    commit = None
    if head_tracks_store(root) and (state / "index.db").is_file():
        others = [p for p in staged_paths(root) if not p.startswith(STORE_DIR + "/")]
        if others:
            raise StagedChangesError(others)
        unstage_store(root)
        from snapline.moving_plan import message

        commit = commit_removal(root, message(Upgraded(dry_run=False, found="none")))
    joined = join_kept(root, state, timeout) if (state / "index.db").is_file() else []
    # A copy a kill left after the removal's commit (or before it) goes now.
    shutil.rmtree(state / MOVED_NAME, ignore_errors=True)
    return Upgraded(dry_run=False, found="none", commit=commit, joined=joined)
