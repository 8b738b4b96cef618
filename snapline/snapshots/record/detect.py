"""Comparing the disk with the known state: what changed, and what was left out.

This is where continuity is checked: a file whose disk content differs from its known
state was changed outside snapline, and an agent tool must not record on top of it.
The stat cache spares rehashing files whose fingerprint is unchanged and safely old.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from snapline.paths import UnsafePathError, check_recorded, check_relpath, disk_path
from snapline.scanning import DiskFile, FileChangingError, IgnoreRules, Skipped, read_disk_file
from snapline.scanning import scan as walk
from snapline.scanning.fingerprint import RACY_WINDOW_NS, git_mode
from snapline.scanning.reasons import SkipReason
from snapline.scanning.tracked import Expected, TrackedTree, expected_stat, index_tracked
from snapline.scanning.walk import unreachable
from snapline.snapshots.record.mismatch import StateMismatchError, ensure_in_sync
from snapline.snapshots.record.tracked_cache import TrackedCache
from snapline.store import Fingerprint, StateRow, StatRow

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem
    from snapline.store import Store

__all__ = [
    "Detection",
    "Drift",
    "StateMismatchError",
    "detect",
    "ensure_in_sync",
    "sync_problems",
]

# Skipped for a reason no recording can settle: notes, never problems.
_NOT_DRIFT = frozenset({SkipReason.NOT_A_FILE.value, SkipReason.UNREACHABLE.value})


class Drift(NamedTuple):
    """One path whose disk state differs from its known state."""

    path: str
    known: StateRow | None
    disk: DiskFile | None

    @property
    def kind(self) -> str:
        """``added``, ``deleted`` or ``modified``, relative to the known state."""
        if self.known is None:
            return "added"
        return "deleted" if self.disk is None else "modified"


class Detection:
    """The drifts found, what was not captured, and stat-cache rows to refresh.

    A plain class that a detection fills in (not a dataclass: a cold record does not
    load ``dataclasses``, issue 39).
    """

    __slots__ = ("cache_deletes", "cache_updates", "drifts", "skipped")

    def __init__(
        self,
        drifts: list[Drift] | None = None,
        skipped: list[Skipped] | None = None,
        cache_updates: list[StatRow] | None = None,
        cache_deletes: list[str] | None = None,
    ) -> None:
        self.drifts = [] if drifts is None else drifts
        self.skipped = [] if skipped is None else skipped
        self.cache_updates = [] if cache_updates is None else cache_updates
        self.cache_deletes = [] if cache_deletes is None else cache_deletes

    def outliving(self, written: Collection[str]) -> Detection:
        """This detection without the stat-cache rows that writing ``written`` makes stale."""
        if not written:
            return self
        updates = [row for row in self.cache_updates if row.path not in written]
        return Detection(self.drifts, self.skipped, updates, self.cache_deletes)


def detect(
    root: Path,
    store: Store,
    rules: IgnoreRules,
    paths: list[str] | None,
    *,
    large_limit: int,
    want_content: bool,
    cache: TrackedCache | None = None,
) -> Detection:
    """Find every difference between the disk and the known state.

    Args:
        root: The workspace root.
        store: The open store (read inside the caller's transaction).
        rules: The ignore rules.
        paths: Relative paths (files or directories) to limit the check to; ``None``
            checks the whole workspace.
        large_limit: Files above this size are hashed but their content is not kept.
        want_content: Whether drifted files' content is needed (to record them).
        cache: Where a long-lived caller keeps the tracked tree between checks.

    Returns:
        A :class:`Detection`, drifts in path order.
    """
    result = Detection()
    # Only files the stat cache cannot vouch for are collected here: new, changed,
    # racy, or looked up directly; the walk passes over the rest.
    found: dict[str, os.stat_result] = {}
    unaccounted: list[str] = []
    if paths is None:
        tree = (
            cache.tree(store, RACY_WINDOW_NS)
            if cache is not None
            else index_tracked(store.stat_cache.fingerprints(RACY_WINDOW_NS))
        )
        _walk_into(root, rules, "", tree, found, unaccounted, result)
    else:
        # One query for the paths; a path tracked as a file has nothing tracked under it,
        # so only the others (directories, untracked) are looked under, one by one
        # (row R5: two queries for each of the 100 paths the last rollback wrote).
        states = store.state.get(paths)
        for relpath in paths:
            if relpath not in states:
                states.update(store.state.under(relpath))
        tree = index_tracked(_fingerprints(store, states))
        for relpath in paths:
            _collect_path(root, rules, tree, relpath, found, unaccounted, result)
    # A tracked file stays tracked when an ignore rule later covers it, as in git: look
    # for it directly rather than calling it deleted.
    gone: list[str] = []
    for relpath in dict.fromkeys(unaccounted):
        if relpath in found:
            continue
        # A walk never finds an unsafe path, so a known state naming one always gets
        # here: refuse the store rather than record its "deletion" (reliability, #7).
        check_recorded(relpath)
        info = _lstat(root, relpath)
        if info is not None and git_mode(info) is not None:
            if _expected(tree, relpath) != expected_stat(info):
                found[relpath] = info
        else:
            gone.append(relpath)
    known = _known_rows(store, [*found, *gone])
    now = time.time_ns()
    changed: list[tuple[str, DiskFile | None]] = []
    for relpath, info in found.items():
        entry = known.get(relpath)
        try:
            disk = read_disk_file(
                root / relpath, relpath, info, large_limit=large_limit, want_content=want_content
            )
        except PermissionError:
            result.skipped.append(Skipped(relpath, SkipReason.UNREADABLE.value))
            continue
        except FileNotFoundError:
            if entry is not None:
                changed.append((relpath, None))
            continue
        except FileChangingError:
            result.skipped.append(Skipped(relpath, SkipReason.CHANGING.value))
            continue
        st = disk.stat
        result.cache_updates.append(
            StatRow(relpath, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns,
                    disk.mode, disk.hash, now)
        )  # fmt: skip
        if entry is None or entry.hash != disk.hash or entry.mode != disk.mode:
            changed.append((relpath, disk))
    for relpath in gone:
        changed.append((relpath, None))
        result.cache_deletes.append(relpath)
    result.drifts = sorted(
        (Drift(path, known.get(path), disk) for path, disk in changed),
        key=lambda drift: drift.path,
    )
    result.skipped.sort(key=lambda skipped: skipped.path)
    if cache is not None:
        cache.note(row.path for row in result.cache_updates)
        cache.note(result.cache_deletes)
    return result


def sync_problems(detection: Detection) -> list[Problem]:
    """Render a detection as sync problems (``modified``, ``deleted``, ``untracked``…).

    A FIFO, socket or device, or a path too long for the OS, is not drift (git skips
    them too, with a warning): it can never be recorded, so counting it would fail
    ``verify`` for good. It stays a note.
    """
    if not detection.drifts and not detection.skipped:
        return []  # the common answer, without importing the models
    from snapline.snapshots.snapshot import Problem

    problems = []
    for drift in detection.drifts:
        kind = {"added": "untracked", "deleted": "deleted", "modified": "modified"}[drift.kind]
        problems.append(
            Problem(
                kind=kind,
                path=drift.path,
                expected=drift.known.hash if drift.known else None,
                actual=drift.disk.hash if drift.disk else None,
                message=f"{drift.path} is {kind} on disk compared with the history; "
                f"{_way_out(drift.path)}",
            )
        )
    for skipped in detection.skipped:
        if skipped.reason in _NOT_DRIFT:
            continue
        problems.append(
            Problem(
                kind="unreadable",
                path=skipped.path,
                message=f"{skipped.path} could not be checked: {skipped.reason}",
            )
        )
    return problems


def _collect_path(
    root: Path,
    rules: IgnoreRules,
    tree: TrackedTree,
    relpath: str,
    found: dict[str, os.stat_result],
    unaccounted: list[str],
    result: Detection,
) -> None:
    check_relpath(relpath)  # a path unsafe in itself is refused, never taken as absent
    try:
        location = disk_path(root, relpath)
        info = _lstat_path(location)
    except UnsafePathError:
        # A file or a symlink stands where a parent directory was (a directory replaced
        # by a file, as the history may record): nothing is at the path, and a symlink
        # is never looked through.
        location, info = root, None
    except OSError as error:
        # A named path deeper than PATH_MAX: a note, as the walk gives one.
        if not unreachable(error):
            raise
        result.skipped.append(Skipped(relpath, SkipReason.UNREACHABLE.value))
        return
    if info is not None and os.path.isdir(location) and not os.path.islink(location):
        if _expected(tree, relpath) is not _UNTRACKED:
            unaccounted.append(relpath)  # a tracked file that is now a directory: gone
        if rules.is_ignored(relpath, is_dir=True):
            result.skipped.append(Skipped(relpath + "/", SkipReason.IGNORED.value))
            unaccounted.extend(_tracked_under(tree, relpath))
            return
        _walk_into(root, rules, relpath, tree, found, unaccounted, result)
        return
    tracked = _expected(tree, relpath) is not _UNTRACKED
    # Whatever was tracked inside a directory that is now a file (or gone) is gone too.
    unaccounted.extend(_tracked_under(tree, relpath))
    if info is None:
        if tracked:
            unaccounted.append(relpath)
        return
    if not tracked and rules.is_ignored(relpath):
        result.skipped.append(Skipped(relpath, SkipReason.IGNORED.value))
        return
    if git_mode(info) is None:
        result.skipped.append(Skipped(relpath, SkipReason.NOT_A_FILE.value))
        if tracked:
            unaccounted.append(relpath)
        return
    if _expected(tree, relpath) != expected_stat(info):
        found[relpath] = info


def _walk_into(
    root: Path,
    rules: IgnoreRules,
    under: str,
    tree: TrackedTree,
    found: dict[str, os.stat_result],
    unaccounted: list[str],
    result: Detection,
) -> None:
    walked = walk(root, rules, under=under, tracked=tree)
    found.update(walked.files)
    result.skipped.extend(walked.skipped)
    unaccounted.extend(walked.missing)
    # Tracked files in directories the walk did not list (ignored, or gone).
    for reldir in tree.keys() - walked.listed:
        if not under or reldir == under or reldir.startswith(under + "/"):
            unaccounted.extend(f"{reldir}/{name}" if reldir else name for name in tree[reldir])


_UNTRACKED = (-2, -2, -2, -2, -2)


def _expected(tree: TrackedTree, relpath: str) -> Expected | None:
    """The expected stat of a tracked path (``None``: untrusted, ``_UNTRACKED``: not tracked)."""
    reldir, _, name = relpath.rpartition("/")
    return tree.get(reldir, {}).get(name, _UNTRACKED)


def _tracked_under(tree: TrackedTree, directory: str) -> list[str]:
    prefix = directory + "/"
    return [
        f"{reldir}/{name}"
        for reldir, names in tree.items()
        if reldir == directory or reldir.startswith(prefix)
        for name in names
    ]


def _known_rows(store: Store, paths: list[str]) -> dict[str, StateRow]:
    """The known state of ``paths``: usually a few, all of them in a fresh workspace."""
    if len(paths) > _WHOLE_STATE_ABOVE:
        wanted = set(paths)
        return {path: row for path, row in store.state.get().items() if path in wanted}
    return store.state.get(paths)


_WHOLE_STATE_ABOVE = 5_000
"""Above this many paths one scan of the state table beats many ``IN (…)`` queries."""


def _lstat(root: Path, relpath: str) -> os.stat_result | None:
    try:
        return _lstat_path(disk_path(root, relpath))
    except UnsafePathError:
        return None


def _lstat_path(location: Path) -> os.stat_result | None:
    try:
        return os.lstat(location)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _fingerprints(
    store: Store, states: dict[str, StateRow]
) -> list[tuple[str, int, Fingerprint | None]]:
    """``Store.fingerprints`` for a few paths: the same trust rule, applied here."""
    cache = store.stat_cache.get(states.keys())
    result: list[tuple[str, int, Fingerprint | None]] = []
    for path, state in states.items():
        entry = cache.get(path)
        trusted = (
            entry is not None
            and (entry.hash, entry.mode) == (state.hash, state.mode)
            and max(entry.mtime_ns, entry.ctime_ns) < entry.checked_ns - RACY_WINDOW_NS
        )
        key = (entry.size, entry.mtime_ns, entry.ino, entry.ctime_ns) if entry and trusted else None
        result.append((path, state.mode, key))
    return result


def _way_out(path: str) -> str:
    # Two commands that work as written, run at the root: resync needs its -m, and a
    # rollback over an outside change (an untracked file included) is refused unless
    # forced, which records the change first so that dropping it loses nothing.
    import shlex

    shown = shlex.quote(path)
    if path.startswith("-"):
        shown = f"-- {shown}"
    return (
        f"keep it with `snapline resync -m TEXT {shown}`, or drop it with "
        f"`snapline rollback --force --to latest {shown}` (which records it first)"
    )
