"""Questions about the history: the state after any snapshot, net changes, unified diffs.

Everything here reads the store only. The state after snapshot ``n`` is computed from
the known state and the changes recorded after ``n``, so its cost follows what changed
since, not the length of the history.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from snapline.errors import SnaplineError
from snapline.paths import check_recorded
from snapline.snapshots.kinds import ChangeKind
from snapline.snapshots.read.reconstruct import (
    ContentUnavailableError,
    ForgottenVersionError,
    Reconstructor,
)
from snapline.store import ChangeRow, StoreReader

if TYPE_CHECKING:
    # Imported where used: a recording process needs neither (issue 16).
    from snapline.snapshots.read.unidiff import Side
    from snapline.snapshots.results import ModifiedFile

__all__ = [
    "SnapshotNotFoundError",
    "SnapshotRangeError",
    "Version",
    "check_number",
    "diff_pairs",
    "diff_side",
    "in_scope",
    "modified_files",
    "state_at",
    "touched_since",
    "unified_diff",
    "version_at",
    "versions_at",
]


class SnapshotNotFoundError(SnaplineError):
    """A snapshot number that does not exist."""

    exit_code = 1
    number: int
    latest: int

    def _message(self) -> str:
        return f"there is no snapshot {self.number}; the history runs from 0 to {self.latest}"


class SnapshotRangeError(SnaplineError):
    """A range of snapshots whose start comes after its end."""

    exit_code = 2
    first: int
    last: int

    def _message(self) -> str:
        return f"the range {self.first}..{self.last} runs backwards; give the older snapshot first"


class Version(NamedTuple):
    """A file's content hash and git-style mode at some point of the history."""

    hash: str
    mode: int


def check_number(store: StoreReader, number: int) -> int:
    """Return the latest snapshot number, after checking that ``number`` exists.

    Raises:
        SnapshotNotFoundError: If ``number`` is negative or after the latest snapshot.
    """
    latest = store.snapshots.latest_number() or 0
    if not 0 <= number <= latest:
        raise SnapshotNotFoundError(number, latest)
    return latest


def in_scope(path: str, scopes: list[str] | None) -> bool:
    """Whether ``path`` is one of ``scopes`` or inside one of them (``None``: everything)."""
    if scopes is None:
        return True
    return any(path == scope or path.startswith(scope + "/") for scope in scopes)


def version_at(store: StoreReader, path: str, number: int) -> Version | None:
    """The version of ``path`` after snapshot ``number`` (``None``: it did not exist)."""
    row = store.changes.version_at(path, number)
    if row is None or row.path != path or row.result_hash is None or row.result_mode is None:
        return None
    return Version(row.result_hash, row.result_mode)


def state_at(store: StoreReader, number: int) -> dict[str, Version]:
    """Every tracked path after snapshot ``number`` with its version.

    Paths untouched since ``number`` keep their known state; the others are looked up in
    the history, which also finds a file that a later move overwrote.
    """
    touched = touched_since(store, number)
    state = {
        path: Version(row.hash, row.mode)
        for path, row in store.state.get().items()
        if path not in touched
    }
    state.update(versions_at(store, touched, number))
    return state


def touched_since(store: StoreReader, number: int) -> set[str]:
    """Every path a snapshot after ``number`` changed (as its path or its old path).

    Any other tracked path has the same version after ``number`` as it has now.
    """
    # Each path once, from SQLite: a row per change since was most of this (a rollback
    # across a thousand snapshots, row R5), and each rollback since added its own.
    return store.changes.touched(number + 1, store.snapshots.latest_number() or 0)


def versions_at(store: StoreReader, paths: Iterable[str], number: int) -> dict[str, Version]:
    """The version after snapshot ``number`` of each of ``paths`` that existed then."""
    versions = {}
    for path in paths:
        version = version_at(store, path, number)
        if version is not None:
            versions[path] = version
    return versions


def modified_files(
    store: StoreReader, from_n: int = 0, to_n: int | None = None
) -> list[ModifiedFile]:
    """Each path whose content or mode differs between snapshots ``from_n`` and ``to_n``.

    A file added and deleted again inside the range is not listed; a file moved (and
    perhaps edited) is listed once, as ``renamed`` with its ``old_path``, when its old
    path no longer exists at ``to_n``.

    Args:
        store: The open store.
        from_n: The start of the range (statuses are relative to it).
        to_n: The end of the range (``None``: the latest snapshot).

    Returns:
        The changed files, sorted by path.

    Raises:
        SnapshotNotFoundError: If either number does not exist.
        SnapshotRangeError: If ``from_n`` comes after ``to_n``.
    """
    with store.read():
        return [net.public() for net in _net_changes(store, from_n, to_n)]


def unified_diff(
    store: StoreReader,
    reconstructor: Reconstructor,
    from_n: int,
    to_n: int | None,
    paths: list[str] | None,
) -> str:
    """A git-style unified diff from snapshot ``from_n`` to ``to_n`` (``None``: latest).

    ``git apply`` accepts it on a tree holding the state after ``from_n``. Binary files
    (and files tracked by hash only) are named, not dumped. A reversed range
    (``from_n`` after ``to_n``) gives the reverse diff, as ``git diff B A`` does.

    Args:
        store: The open store.
        reconstructor: Rebuilds both sides of each file.
        from_n: One end: the state the diff starts from.
        to_n: The other end (``None``: the latest).
        paths: Limit the diff to these files or directories (``None``: everything).

    Returns:
        The diff text; ``""`` when nothing changed.

    Raises:
        SnapshotNotFoundError: If either number does not exist.
        StoreCorruptError: If a version cannot be rebuilt from the store.
    """
    from snapline.snapshots.read.unidiff import render_file_diff

    pairs = diff_pairs(store, reconstructor, from_n, to_n, paths)
    return "".join(render_file_diff(old, new) for old, new in pairs)


def diff_pairs(
    store: StoreReader,
    reconstructor: Reconstructor,
    from_n: int,
    to_n: int | None,
    paths: list[str] | None,
) -> list[tuple[Side | None, Side | None]]:
    """Each file's two sides from snapshot ``from_n`` to ``to_n`` (either order), by path.

    What :func:`unified_diff` renders and a diffstat counts; arguments and errors as
    there.
    """
    with store.read():
        last = check_number(store, from_n) if to_n is None else to_n
        reverse = from_n > last
        low, high = (last, from_n) if reverse else (from_n, last)
        pairs = []
        for net in _net_changes(store, low, high):
            if not (in_scope(net.path, paths) or (net.old_path and in_scope(net.old_path, paths))):
                continue
            old = diff_side(reconstructor, net.old_path or net.path, net.before, low)
            new = diff_side(reconstructor, net.path, net.after, net.last)
            pairs.append((new, old) if reverse else (old, new))
    return pairs


class _Net(NamedTuple):
    path: str
    status: ChangeKind
    old_path: str | None
    snapshots: tuple[int, ...]
    before: Version | None
    after: Version | None
    last: int

    def public(self) -> ModifiedFile:
        from snapline.snapshots.results import ModifiedFile

        return ModifiedFile(
            path=self.path, status=self.status, old_path=self.old_path, snapshots=self.snapshots
        )


def _net_changes(store: StoreReader, from_n: int, to_n: int | None) -> list[_Net]:
    latest = check_number(store, from_n)
    last = latest if to_n is None else to_n
    check_number(store, last)
    if from_n > last:
        raise SnapshotRangeError(from_n, last)
    changes = store.changes.in_range(from_n + 1, last)
    touched, origin = _follow(changes)
    nets: dict[str, _Net] = {}
    for path in sorted(touched):
        # A diff or an exported patch naming a path outside the root could be applied
        # by someone else's tool; refuse to render one.
        check_recorded(path)
        before = version_at(store, path, from_n)
        after = version_at(store, path, last)
        if before == after:
            continue
        if before is None:
            status = ChangeKind.ADDED
        elif after is None:
            status = ChangeKind.DELETED
        else:
            status = ChangeKind.MODIFIED
        nets[path] = _Net(path, status, None, tuple(sorted(touched[path])), before, after, last)
    for path, net in list(nets.items()):
        source = origin.get(path)
        gone = nets.get(source) if source is not None else None
        if (
            net.status is ChangeKind.ADDED
            and gone is not None
            and gone.status is ChangeKind.DELETED
        ):
            assert source is not None
            del nets[source]
            nets[path] = _Net(
                path,
                ChangeKind.RENAMED,
                source,
                net.snapshots,
                gone.before,
                net.after,
                last,
            )
    return sorted(nets.values(), key=lambda n: n.path)


def _follow(
    changes: list[ChangeRow],
) -> tuple[dict[str, set[int]], dict[str, str | None]]:
    """The snapshots touching each path or its file, and where each file was at the start.

    ``touched[p]`` holds the snapshots that touched path ``p`` and those that touched the
    file now at ``p`` under an earlier path (before a rename). ``origin[p]`` is the path
    the file now at ``p`` had at the start of the range, through any chain of renames,
    or ``None`` when it was created inside the range. Paths not in ``origin`` were never
    moved, so they are their own origin.
    """
    by_path: dict[str, set[int]] = {}
    by_file: dict[str, set[int]] = {}
    origin: dict[str, str | None] = {}
    for change in changes:
        number = change.snapshot
        by_path.setdefault(change.path, set()).add(number)
        if change.kind == ChangeKind.RENAMED and change.old_path is not None:
            by_path.setdefault(change.old_path, set()).add(number)
            by_file[change.path] = by_file.pop(change.old_path, set()) | {number}
            origin[change.path] = origin.get(change.old_path, change.old_path)
            origin[change.old_path] = None
        elif change.kind == ChangeKind.DELETED:
            by_file.pop(change.path, None)
            origin[change.path] = None
        elif change.kind == ChangeKind.ADDED:
            by_file[change.path] = {number}
            origin[change.path] = None
        else:
            by_file.setdefault(change.path, set()).add(number)
    touched = {path: numbers | by_file.get(path, set()) for path, numbers in by_path.items()}
    return touched, origin


def diff_side(
    reconstructor: Reconstructor, path: str, version: Version | None, number: int
) -> Side | None:
    """One side of a file's diff: ``path`` at ``version`` after snapshot ``number``.

    ``None`` when the file did not exist; its content ``None`` when it cannot be
    rebuilt (tracked by hash only, or forgotten: then it says so).
    """
    from snapline.snapshots.read.unidiff import Side

    if version is None:
        return None
    try:
        content: bytes | None = reconstructor.content_at(path, number)
    except ForgottenVersionError:
        return Side(path=path, mode=version.mode, content=None, forgotten=True)
    except ContentUnavailableError:
        content = None
    return Side(path=path, mode=version.mode, content=content)
