"""A snapshot's new objects written as git's loose objects, synced together.

libgit2, told to fsync (:func:`snapline.store.refs.git._library`), syncs each object
it writes on its own: the file, then its folder, before the next object is even
compressed. A one-file snapshot writes eight objects (the file's blob, the record, a
tree per folder on its path, the root tree, the commit): sixteen syncs one after the
other, each a flush of the disk's cache (ext4 flushes on every fsync, even of a file
with nothing left to write), most of a record's time on a busy disk (row R8).

:class:`ObjectBatch` makes the same syncs, every object's file and every folder that
names one, but at once: each object is written to a temporary file, the files are
synced together (one thread each: the kernel merges syncs that wait at the same time
into one journal commit and one flush), each is given its name, then the folders are
synced together. Nothing is left out, so the durability is git's and libgit2's
strictest (POSIX's: a file's sync, then its folder's): when :meth:`ObjectBatch.write`
returns every object is on the disk under its name, and only then may a ref name it.

The objects are git's own format (``TYPE SP SIZE NUL`` and the bytes, deflated at
git's level for loose objects, 1, as libgit2 does), written in the folder of their
name under a ``tmp_obj_`` name that ``git gc`` prunes if a kill leaves one. An object
git already has is not written again: a loose one has its time refreshed (as git and
libgit2 "freshen" it, so that a ``gc`` does not prune it before the ref names it), a
packed blob is left to libgit2, which freshens its pack (a packed tree or commit,
rare, is written again as a loose object, which git allows).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import threading
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.git_errors import named_refusal

__all__ = ["ObjectBatch", "commit_bytes"]

_LOOSE_LEVEL = 1
"""git's ``core.looseCompression`` default (and libgit2's): speed over size until a pack."""
_IDENTITY = b"snapline <snapline@localhost>"
_T = TypeVar("_T")


def commit_bytes(tree: str, parents: list[str], message: str, time: int) -> bytes:
    """A commit's bytes as libgit2 writes them for :meth:`GitRepository.write_commit`.

    Author and committer ``snapline <snapline@localhost>`` at ``time`` (UTC), the
    message as it is: the same snapshot makes the same commit id either way.
    """
    signature = b"%s %d +0000\n" % (_IDENTITY, time)
    head = b"tree %s\n" % tree.encode("ascii")
    head += b"".join(b"parent %s\n" % parent.encode("ascii") for parent in parents)
    return head + b"author " + signature + b"committer " + signature + b"\n" + message.encode()


class ObjectBatch:
    """Objects to write into a repository together (see the module's docstring).

    Args:
        repo: The repository whose object folder (shared by its work trees) gets them.
    """

    def __init__(self, repo: GitRepository) -> None:
        self._repo = repo
        self._objects = repo.common_dir / "objects"
        # id: the object's whole bytes (header included), and its size (without it)
        self._new: dict[str, tuple[bytes, int]] = {}

    def add(self, kind: bytes, data: bytes) -> str:
        """Queue an object of ``kind`` (``blob``, ``tree``, ``commit``); its id.

        An object the repository already holds is freshened here, not queued.
        """
        whole = b"%s %d\x00%s" % (kind, len(data), data)
        # SHA-1 is git's object name here, not a security choice (objects.py).
        id_ = hashlib.sha1(whole, usedforsecurity=False).hexdigest()
        if id_ in self._new or self._freshened(id_):
            return id_
        if kind == b"blob" and self._repo.has_object(id_):
            return self._repo.write_blob(data)  # packed: libgit2 freshens its pack
        self._new[id_] = (whole, len(data))
        return id_

    def check_commits(self, ids: list[str]) -> None:
        """Refuse ids that are not commits the repository holds (a new commit's parents).

        libgit2 checks them so when it writes a commit (strict object creation).

        Raises:
            MissingObjectError: For the first id that is absent or not a commit.
        """
        for id_ in ids:
            try:
                kind, _ = self._repo.read_raw(id_)
            except (KeyError, ValueError):
                kind = 0
            except Exception as error:  # libgit2's: bytes that do not hash to their id
                raise MissingObjectError(id_, "commit", str(error)) from None
            if kind != 1:  # GIT_OBJECT_COMMIT
                raise MissingObjectError(id_, "commit")

    def _freshened(self, id_: str) -> bool:
        try:
            os.utime(self._objects / id_[:2] / id_[2:])
        except OSError:
            return False  # not loose (or not ours to touch): written, or asked of libgit2
        return True

    def write(self) -> None:
        """Write every queued object; each is durable under its name when this returns.

        Raises:
            GitWriteRefusedError: If the operating system refuses a write (a full disk,
                a file-size limit, a folder this user cannot write); nothing is left
                but objects no ref names, which ``git gc`` prunes, as after git's own.
        """
        fds: list[int] = []
        named: list[tuple[Path, Path]] = []  # temporary name, name
        folders: set[Path] = set()
        try:
            for id_, (whole, size) in self._new.items():
                with self._refused(size):
                    fd, temporary, name = self._start(id_, whole, folders)
                fds.append(fd)
                named.append((temporary, name))
            with self._refused(sum(size for _, size in self._new.values())):
                _at_once(os.fsync, fds)
                while fds:
                    os.close(fds.pop())
                for temporary, name in named:
                    _place(temporary, name)
                named = []
                _at_once(_sync_folder, folders)  # objects/ too where a folder is new
        finally:
            for fd in fds:
                os.close(fd)
            for temporary, _ in named:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
        self._new.clear()

    def _start(self, id_: str, whole: bytes, folders: set[Path]) -> tuple[int, Path, Path]:
        """Write one object's compressed bytes to a temporary file beside its name."""
        data = memoryview(zlib.compress(whole, _LOOSE_LEVEL))
        folder = self._objects / id_[:2]
        if not folder.is_dir():
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder)
            folders.add(self._objects)  # the new folder's name is in objects/
        folders.add(folder)
        temporary = folder / f"tmp_obj_snapline_{os.urandom(6).hex()}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
        try:
            while data:
                data = data[os.write(fd, data) :]
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return fd, temporary, folder / id_[2:]

    def _refused(self, size: int) -> contextlib.AbstractContextManager[None]:
        return named_refusal((OSError,), lambda: [self._objects], size)


def _place(temporary: Path, name: Path) -> None:
    """Give an object its name, as git does: a link (an existing one wins), else a rename."""
    try:
        os.link(temporary, name)
    except FileExistsError:
        pass  # the same id is the same bytes: another writer's copy stays
    except OSError:
        os.replace(temporary, name)  # a file system without hard links
        return
    os.unlink(temporary)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _at_once(sync: Callable[[_T], None], items: Iterable[_T]) -> None:
    """``sync`` each of ``items``, all at the same time; the first error, once all ended.

    A process that already loaded ``concurrent.futures`` (a library host, the warm
    server's worker) uses its pool (:func:`snapline.overlap.in_parallel`); a cold
    command, which loads neither it nor ``logging`` (tests/cli/test_hot_paths.py),
    starts a thread per item, which costs less than the import.
    """
    todo = list(items)
    if "concurrent.futures" in sys.modules:
        from snapline.overlap import in_parallel

        in_parallel(sync, todo)
        return
    errors: list[BaseException] = []

    def run(item: _T) -> None:
        try:
            sync(item)
        except BaseException as error:  # raised below, in the caller's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(item,)) for item in todo[1:]]
    for thread in threads:
        thread.start()
    for item in todo[:1]:
        run(item)
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
