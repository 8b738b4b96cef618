"""Loose objects put in place as git puts them, a batch of them with their disk waits together.

Each object is compressed under a temporary name in ``objects/``, fsynced, linked to its
name ``objects/xx/<38 hex>`` and its folder fsynced: only then may a ref name it. One
at a time, a record's eight objects (the file's blob, its record, the trees on its
path, the commit) wait for the disk sixteen times in a row, most of a record's time
(row R8). :func:`settle` does the same fsyncs for a whole batch, but each round at once
on threads (an fsync releases the GIL, and the filesystem commits the waits of one
round together, as git's ``core.fsyncMethod=batch`` lets it): every object file
synced, then every object linked, then every folder that gained one synced (a folder
two objects share, once). Nothing is named before its bytes are durable, and nothing
names an object before it is: :mod:`.filedb` settles a batch before any ref moves.
A large object of a batch (:class:`Ahead`) is compressed, written and fsynced on a
thread as soon as it is handed over; the batch takes it in, synced, when it settles.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import zlib
from _queue import SimpleQueue
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

from snapline.atomic import sync_directory

__all__ = ["Ahead", "Staged", "discard", "settle", "staged", "together"]

_T = TypeVar("_T")
_THREADS = 16  # at most this many waits at once (a baseline's batch is larger)
_PIECE = 1 << 20  # what a large object is compressed by


class Staged(NamedTuple):
    """An object written under its temporary name, not yet synced or named.

    Attributes:
        id: Its id.
        temporary: Its temporary file.
        fd: The open file, closed by :func:`settle` or :func:`discard`.
        synced: Whether it was fsynced already (:class:`Ahead`).
    """

    id: str
    temporary: str
    fd: int
    synced: bool = False


class Ahead:
    """An object compressed, written and fsynced on a thread while its writer goes on.

    A record's largest object is the edited file's blob (row R8: zlib of 432 KB, about
    6 ms, and the longest fsync): zlib and the fsync release the GIL, so they run beside
    what the record does next (its record, its trees, its commit, the ref's lock) rather
    than before it. :meth:`staged` hands it back as :func:`staged` would have, synced.
    """

    def __init__(self, id_: str, folder: str, header: bytes, data: bytes) -> None:
        """Start writing ``header`` and ``data`` into a temporary file in ``folder``."""
        self.id = id_
        self._done: SimpleQueue[BaseException | None] | None = SimpleQueue()
        self._error: BaseException | None = None
        self._staged = Staged(id_, "", -1, True)
        pool = _pool(os.getpid())
        pool.grow(1)
        pool.jobs.put((self._write, (folder, header, data), self._done))

    def _write(self, job: tuple[str, bytes, bytes]) -> None:
        folder, header, data = job
        whole = memoryview(data)
        pieces = (whole[start : start + _PIECE] for start in range(0, len(whole), _PIECE))
        temporary, fd = staged(folder, header, pieces)
        item = Staged(self.id, temporary, fd, True)
        try:
            os.fsync(fd)
        except BaseException:
            discard([item])
            raise
        self._staged = item

    def staged(self) -> Staged:
        """The object written and synced under its temporary name, once the thread is done.

        Raises:
            OSError: What writing it raised (nothing is left behind).
        """
        if self._done is not None:
            self._error, self._done = self._done.get(), None
        if self._error is not None:
            raise self._error
        return self._staged


def staged(folder: str, header: bytes, pieces: Iterable[bytes | memoryview]) -> tuple[str, int]:
    """Compress ``header`` and ``pieces`` into a new temporary file in ``folder``.

    Returns:
        The temporary file and its open descriptor (neither synced nor named yet).

    Raises:
        OSError: If the system refused; nothing is left behind.
        ValueError: What ``pieces`` raises (a stream that ended short); the same.
    """
    temporary = f"{folder}/tmp_obj_{os.urandom(6).hex()}"  # as git names them: gc prunes
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    try:
        # Level 1, as git's core.looseCompression and libgit2 write loose objects;
        # in pieces, so a file of hundreds of MiB is never copied whole.
        compressor = zlib.compressobj(1)
        _write_all(fd, compressor.compress(header))
        for piece in pieces:
            _write_all(fd, compressor.compress(piece))
        _write_all(fd, compressor.flush())
    except BaseException:
        discard([Staged("", temporary, fd)])
        raise
    return temporary, fd


def settle(folder: str, batch: Sequence[Staged], also: Sequence[int] = ()) -> None:
    """Make every object of ``batch`` durable under its name in ``folder`` (``objects``).

    Every temporary file is fsynced (with the files ``also`` names, left open: the
    locks of the refs about to name the objects), then linked to its name (a link never
    replaces an object another writer put there first: git's way) and removed, then
    every folder that gained a name is fsynced, the objects folder too where one was made.

    Raises:
        OSError: If the system refused a write, a sync or a link. Every temporary file
            is removed; objects already named stay (unreferenced: ``git gc`` prunes).
    """
    try:
        for item in batch:
            if item.synced:  # synced on its thread (Ahead)
                os.close(item.fd)
        unsynced = [(item.fd, True) for item in batch if not item.synced]
        together(_synced, [*unsynced, *((fd, False) for fd in also)])
        folders: set[str] = set()
        for item in batch:
            named = f"{folder}/{item.id[:2]}"
            if named not in folders:
                try:
                    os.mkdir(named)
                    folders.add(folder)  # it gained a folder
                except FileExistsError:
                    pass
                folders.add(named)
            with contextlib.suppress(FileExistsError):
                os.link(item.temporary, f"{named}/{item.id[2:]}")
    finally:
        for item in batch:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(item.temporary)
    # A directory fsync a filesystem refuses (EINVAL) is tolerated there, as for every
    # directory snapline syncs; the objects' own fsyncs above are not.
    together(sync_directory, sorted(folders))


def discard(batch: Iterable[Staged]) -> None:
    """Close and remove the temporary files of ``batch`` (a write that failed)."""
    for item in batch:
        if not item.temporary:
            continue  # an Ahead that failed: it left nothing
        with contextlib.suppress(OSError):
            os.close(item.fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(item.temporary)


def together(call: Callable[[_T], object], items: Sequence[_T]) -> None:
    """``call(item)`` for every item, the calls run at once on threads; all run to the end.

    Plain threads kept for the process (a record's few waits cost less than starting
    threads for them), not ``overlap.in_parallel``'s pool: a cold record loads neither
    ``concurrent.futures`` nor the ``logging`` it imports (``tests/cli/test_hot_paths.py``).

    Raises:
        BaseException: The first error a call raised, once every call has ended.
    """
    if len(items) < 2:
        for item in items:
            call(item)
        return
    pool = _pool(os.getpid())
    done: SimpleQueue[BaseException | None] = SimpleQueue()
    pool.grow(min(len(items) - 1, _THREADS))
    for item in items[1:]:
        pool.jobs.put((call, item, done))
    errors = [_ran(call, items[0])]
    errors += [done.get() for _ in items[1:]]
    for error in errors:
        if error is not None:
            raise error


class _Pool:
    """Threads that run the calls :func:`together` hands them, for the process's life."""

    def __init__(self) -> None:
        self.jobs: SimpleQueue[tuple[Callable[[Any], object], Any, SimpleQueue[Any]]]
        self.jobs = SimpleQueue()
        self._threads = 0

    def grow(self, size: int) -> None:
        while self._threads < size:
            # A daemon: blocked on its queue, it never holds up the process's exit.
            threading.Thread(target=self._serve, name="snapline-sync", daemon=True).start()
            self._threads += 1

    def _serve(self) -> None:
        while True:
            call, item, done = self.jobs.get()
            done.put(_ran(call, item))


@functools.cache
def _pool(pid: int) -> _Pool:
    # One per process id: a forked child has none of its parent's threads.
    return _Pool()


def _ran(call: Callable[[_T], object], item: _T) -> BaseException | None:
    try:
        call(item)
    except BaseException as error:  # raised in the caller's thread
        return error
    return None


def _synced(file: tuple[int, bool]) -> None:
    fd, close = file
    try:
        os.fsync(fd)
    finally:
        if close:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
