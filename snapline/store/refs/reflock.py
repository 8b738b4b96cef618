"""snapline's refs listed and moved as git's files backend does, without libgit2 (issue 39).

A ref is moved with git's lock-file protocol (``refs/files-backend.c``): its lock
``NAME.lock`` is made exclusively (so ``git update-ref`` and libgit2 are excluded too),
the ref is compared under the lock, the new id written into the lock, fsynced, and the
lock renamed onto the ref, its directory fsynced. Several refs: every lock first, then
every compare, then the renames, so a process killed before the first rename leaves
every ref as it was (and its stale locks, which git's own writers refuse as well). A
rename or a directory fsync that fails puts the refs already moved back before the error
goes up, as the workspace's journal puts its files back: a failed move moved nothing.
Only refs under ``refs/snapline/`` are handled here, and none with a reflog: the rest
is the library's (:data:`UNKNOWN` says so).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from snapline.atomic import sync_directory
from snapline.store.refs.git_errors import RefConflictError
from snapline.store.refs.reffiles import UNKNOWN, read_ref

__all__ = ["UNKNOWN", "list_refs", "move_refs"]

_OWN = "refs/snapline/"


def _ours(common_dir: Path, name: str) -> bool:
    return (
        name.startswith(_OWN)
        and ".." not in name
        and not name.endswith((".lock", "/"))
        and not (common_dir / "logs" / name).exists()
    )


def list_refs(common_dir: Path, prefix: str) -> dict[str, str] | None:
    """Every ref under ``prefix`` (in ``refs/snapline/``) with its id; ``None``: ask the library.

    A loose ref hides a packed one of the same name, as git reads them.
    """
    if not prefix.startswith(_OWN) or (common_dir / "reftable").exists():
        return None
    found: dict[str, str] = {}
    try:
        with open(common_dir / "packed-refs", "rb") as packed:
            lines = packed.read().decode("utf-8", "surrogateescape").splitlines()
    except FileNotFoundError:
        lines = []
    except OSError:
        return None
    for line in lines:
        id_, _, name = line.partition(" ")
        if not line.startswith(("#", "^")) and name.startswith(prefix):
            found[name] = id_
    top = prefix.rsplit("/", 1)[0]
    for folder, _, files in os.walk(common_dir / top):
        for file in files:
            name = Path(folder, file).relative_to(common_dir).as_posix()
            if name.startswith(prefix) and not file.endswith(".lock"):
                read = read_ref(common_dir, name)
                if read == UNKNOWN:
                    return None
                if read is not None:
                    found[name] = read
    if any(read_ref(common_dir, name) == UNKNOWN for name in found):
        return None  # a packed id that is not one: the library names the damage
    return dict(sorted(found.items()))


def _each_synced(fds: Sequence[int]) -> None:
    for fd in fds:
        os.fsync(fd)


def move_refs(
    common_dir: Path,
    moves: Sequence[tuple[str, str, str | None]],
    synced: Callable[[Sequence[int]], None] = _each_synced,
) -> bool:
    """Move each ref ``(name, new, expected)`` to ``new`` if all are at ``expected``.

    ``synced`` makes the lock files' bytes durable (their descriptors), with whatever
    else must be before a ref moves: the objects the new ids name (``loose.settle``,
    their fsyncs at once with the locks').

    Returns:
        ``False`` (no ref moved, every lock taken removed) when a ref is not one this
        moves or reads: the library's.

    Raises:
        RefConflictError: If a ref points elsewhere, or another writer holds its lock;
            then no ref moved.
        OSError: If the system refused a lock, a write, a rename or a directory's fsync;
            the refs already moved are then put back.
    """
    if (common_dir / "reftable").exists() or not all(_ours(common_dir, m[0]) for m in moves):
        return False
    locks: list[tuple[Path, Path, str]] = []
    try:
        fds: list[int] = []
        try:
            for name, new, expected in moves:
                ref = common_dir / name
                lock = ref.with_name(ref.name + ".lock")
                lock.parent.mkdir(parents=True, exist_ok=True)
                try:
                    fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                except FileExistsError:
                    raise RefConflictError(name, expected, None) from None
                locks.append((lock, ref, new))
                fds.append(fd)
                os.write(fd, new.encode("ascii") + b"\n")
            synced(fds)
        finally:
            for fd in fds:
                os.close(fd)
        for name, _, expected in moves:
            actual = read_ref(common_dir, name)
            if actual == UNKNOWN:
                return False  # not a ref this reads: the library names its damage
            if actual != expected:
                raise RefConflictError(name, expected, actual)
        before = {common_dir / name: expected for name, _, expected in moves}
        moved: list[Path] = []
        try:
            while locks:
                lock, ref, _ = locks[0]
                os.replace(lock, ref)
                locks.pop(0)
                moved.append(ref)
                sync_directory(ref.parent)
        except OSError:
            # A move that failed, its directory's fsync too, moves nothing: the caller
            # undoes its work on this error, and a ref left moved would name work undone.
            for ref in reversed(moved):
                _put_back(ref, before[ref])
            raise
    finally:
        for lock, _, _ in locks:
            lock.unlink(missing_ok=True)
    return True


def _put_back(ref: Path, expected: str | None) -> None:
    """Point ``ref`` at ``expected`` again (remove it if ``None``), as far as the disk lets.

    Best effort after a failure already being raised: its own failure changes nothing
    more (the caller's error is the one to report).

    Args:
        ref: The ref's file.
        expected: The id it held before the move, or ``None`` if it did not exist.
    """
    with contextlib.suppress(OSError):
        if expected is None:
            ref.unlink(missing_ok=True)
        else:
            lock = ref.with_name(ref.name + ".lock")
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            try:
                try:
                    os.write(fd, expected.encode("ascii") + b"\n")
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(lock, ref)
            finally:
                lock.unlink(missing_ok=True)
        sync_directory(ref.parent)
