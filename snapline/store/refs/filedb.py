"""git's object database read and written as files, without libgit2 (issue 39).

Loading libgit2's binding costs a cold command several times what the command does
(rows R9, R10). What a record asks of git's objects is small: read the tip's commit
and the trees on the changed paths, write a blob, trees and a commit. Here that is
done as git does it: a loose object is ``objects/xx/<38 hex>``, zlib of ``TYPE SP SIZE
NUL`` and the bytes, written under a temporary name, fsynced, linked into place and
its directory fsynced (what libgit2 does for snapline with ``enable_fsync_gitdir``), a
record's objects in one batch whose disk waits run together (:mod:`.loose`); packed
objects are read through :mod:`.packs`. Every object read is hashed against its id, as
libgit2 does (strict hash verification).

:func:`lean_database` is the one place that decides whether a repository is one this
reads (the files backend, SHA-1 objects, no alternates, no promisor, this user's);
for any other, :mod:`snapline.store.refs.git` uses the library.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from snapline.store.refs.loose import Ahead, Staged, discard, settle, staged
from snapline.store.refs.packs import Pack, Unreadable, packs_in
from snapline.store.refs.plainconfig import global_configs, plain

__all__ = ["FileDatabase", "Source", "Unreadable", "hex_id", "lean_database"]

_KINDS = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
_NAMES = {kind: name for name, kind in _KINDS.items()}
_PIECE = 1 << 20  # what a large object is compressed by
_BATCH = 64  # objects a batch holds open before it settles them
_AHEAD = 1 << 16  # bytes from which an object in a batch is written on a thread (.loose.Ahead)
_RECENT = 256  # trees and commits this process wrote, kept to read back in a batch
_RACY = 2_000_000_000  # ns: a folder's time this close to its listing may hide a later write


def lean_database(common_dir: Path, git_dir: Path) -> FileDatabase | None:
    """A :class:`FileDatabase` of ``common_dir``, or ``None`` where only the library can tell.

    Asked once per repository opened (:mod:`snapline.store.refs.git`), with this work
    tree's own git directory ``git_dir``.
    """
    # git's owner check (safe.directory lifts it) is the library's: the work tree, its
    # git directory and the common one must be this user's.
    owned = [common_dir, git_dir, *([git_dir.parent] if git_dir.name == ".git" else [])]
    try:
        config = (common_dir / "config").read_text("utf-8", "replace").lower()
        if any(path.stat().st_uid != os.geteuid() for path in owned):
            return None
    except OSError:
        return None
    if (common_dir / "reftable").exists():
        return None  # another ref backend: the library's
    if (common_dir / "objects" / "info" / "alternates").exists():
        return None
    if not plain(config) or not all(plain(text) for text in global_configs()):
        return None
    return FileDatabase(common_dir)


class Source(Protocol):
    """What an object is streamed from: a binary file, or a reader wrapping one."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` more bytes; ``b""`` at the end."""
        ...


class FileDatabase:
    """The loose objects and packs of one repository (``<common dir>/objects``)."""

    def __init__(self, common_dir: Path) -> None:
        """The database of the repository whose common directory is ``common_dir``."""
        self.common_dir = common_dir
        self.objects = common_dir / "objects"
        # Paths as text on the write path: a baseline writes thousands of objects, and
        # pathlib's objects cost more than the system calls.
        self._folder = os.fspath(self.objects)
        self._packs: list[Pack] | None = None
        self.packed = 0  # objects read from packs so far (git.py hands bulk reads on)
        self._pack_folder = f"{self._folder}/pack"
        self._listed_at = -1  # the pack folder's time when listed
        self._listed_when = 0  # when it was listed
        self._batch: dict[str, Staged] | None = None  # written, named when settled
        self._ahead: Ahead | None = None  # one of the batch's, still being written
        self._recent: dict[str, tuple[int, bytes]] = {}

    def read(self, id_: str) -> tuple[int, bytes]:
        """Object ``id_``: its type (1 commit, 2 tree, 3 blob, 4 tag) and bytes.

        Raises:
            KeyError: If no loose object or pack holds it.
            Unreadable: If its bytes do not hash to ``id_``, or are not git's.
        """
        if self._batch is not None and (recent := self._recent.get(id_)) is not None:
            # A record reads back the trees on its path and the commit it wrote last
            # time (row R8): hashed as they were written, from these same bytes.
            return recent
        if not hex_id(id_):
            raise KeyError(id_)
        kind, data = self._raw(bytes.fromhex(id_))
        if _id(kind, data) != id_:
            raise Unreadable(f"object {id_} hashes to {_id(kind, data)}")
        return kind, data

    def _raw(self, binary: bytes) -> tuple[int, bytes]:
        id_ = binary.hex()
        if self._ahead is not None and self._ahead.id == id_:
            self._adopt()
        waiting = None if self._batch is None else self._batch.get(id_)
        file_name = self._loose(id_) if waiting is None else waiting.temporary
        try:
            with open(file_name, "rb") as file:
                header, data = _inflated(file.read())
        except FileNotFoundError:
            return self._packed(binary)
        except zlib.error as error:
            raise Unreadable(f"object {id_}: {error}") from None
        name, _, size = header.partition(b" ")
        if name not in _KINDS or size != b"%d" % len(data):
            raise Unreadable(f"object {id_}: a header of {header[:32]!r}")
        return _KINDS[name], data

    def _packed(self, binary: bytes) -> tuple[int, bytes]:
        for fresh in (False, True):  # a pack written since the list was read: look again
            for pack in self._listed(fresh):
                offset = pack.offset(binary)
                if offset is not None:
                    self.packed += 1
                    return pack.read(offset, self._raw)
        raise KeyError(binary.hex())

    def _listed(self, fresh: bool) -> list[Pack]:
        """The packs, listed once per process; ``fresh``: an object was not in them.

        As git's ``reprepare_packed_git``: after a miss the folder is listed again, so
        a pack another process wrote since (a ``git gc``, a fetch) is found. That
        listing is skipped only while the folder's time is the one it had when listed
        and safely older than that listing (as git's index trusts a file's stat only
        when not racily clean): a pack written in the same clock tick is not missed.
        """
        if self._packs is not None and fresh:
            fresh = self._stamp() != self._listed_at or self._listed_at > self._listed_when - _RACY
        if self._packs is None or fresh:
            self._listed_when = time.time_ns()
            self._listed_at = self._stamp()
            self._packs = packs_in(self.objects, self._packs or ())
        return self._packs

    def _stamp(self) -> int:
        try:
            return os.stat(self._pack_folder).st_mtime_ns
        except OSError:
            return -1

    def exists(self, id_: str) -> bool:
        """Whether a loose object or a pack holds ``id_`` (nothing is inflated)."""
        return bool(self.exists_many((id_,)))

    def exists_many(self, ids: Iterable[str]) -> set[str]:
        """Which of ``ids`` a pack or a loose object holds (nothing is inflated).

        Looked up as git does (``has_object``): in the packs as listed, then loose,
        and only for those found in neither, in the packs listed again (one listing
        for all of them): an object another process packed meanwhile is found.

        Raises:
            Unreadable: If a pack's index is not one this reads (the library's).
        """
        found: set[str] = set()
        missed: list[tuple[str, bytes]] = []
        packs = self._listed(False)
        for id_ in ids:
            if not hex_id(id_):
                continue
            binary = bytes.fromhex(id_)
            if self._batched(id_) or _in_packs(packs, binary) or os.path.exists(self._loose(id_)):
                found.add(id_)
            else:
                missed.append((id_, binary))
        if missed:
            packs = self._listed(True)
            found.update(id_ for id_, binary in missed if _in_packs(packs, binary))
        return found

    def write(self, kind: int, data: bytes) -> str:
        """Store ``data`` as an object of type ``kind`` (once); its id.

        An object already there is not written again: its file's time is renewed, as
        git does, so that a ``git gc`` running meanwhile does not prune what a commit
        about to be written names.
        """
        id_ = _id(kind, data)
        if kind != 3 and len(data) < _AHEAD:
            if len(self._recent) >= _RECENT:
                del self._recent[next(iter(self._recent))]
            self._recent[id_] = (kind, bytes(data))
        if self._known(id_):
            return id_
        if self._batch is not None and len(data) >= _AHEAD and isinstance(data, bytes):
            # Compressed and synced on a thread while the batch goes on (row R8); one at
            # a time, so a baseline of large files holds at most two of them in memory.
            self._adopt()
            self._ahead = Ahead(id_, self._folder, b"%s %d\0" % (_NAMES[kind], len(data)), data)
            return id_
        whole = memoryview(data)
        pieces = (whole[start : start + _PIECE] for start in range(0, len(whole), _PIECE))
        return self._stored(kind, len(data), pieces, id_)

    def write_stream(self, kind: int, source: Source, size: int) -> str:
        """Store the next ``size`` bytes of ``source`` as an object of type ``kind``; its id.

        Read, hashed and compressed in pieces: a file of any size is never in memory
        whole. The id is known only once all is read, so the object is compressed
        before it is known whether git holds it already (then only its time is renewed).

        Raises:
            ValueError: If ``source`` ends before ``size`` bytes; nothing is stored.
        """
        header = b"%s %d\0" % (_NAMES[kind], size)
        digest = hashlib.sha1(header, usedforsecurity=False)

        def pieces() -> Iterator[bytes]:
            left = size
            while left:
                piece = source.read(min(left, _PIECE))
                if not piece:
                    raise ValueError(f"the stream ended {left} bytes short of its {size}")
                digest.update(piece)
                left -= len(piece)
                yield piece

        return self._stored(kind, size, pieces(), digest.hexdigest)

    def _stored(
        self,
        kind: int,
        size: int,
        pieces: Iterable[bytes | memoryview],
        known: str | Callable[[], str],
    ) -> str:
        """Compress ``pieces`` under a temporary name, then name it (:mod:`.loose`).

        ``known`` is the object's id, or what tells it once ``pieces`` are read (then an
        object already there is renewed instead). In a :meth:`batch` the object is
        named when the batch is settled, else now.
        """
        temporary, fd = staged(self._folder, b"%s %d\0" % (_NAMES[kind], size), pieces)
        item = Staged(known if isinstance(known, str) else "", temporary, fd)
        try:
            if not isinstance(known, str):
                item = item._replace(id=known())
            held = not isinstance(known, str) and self._known(item.id)  # renewed
        except BaseException:
            discard([item])
            raise
        if held:
            discard([item])
        elif self._batch is None:
            settle(self._folder, [item])  # which closes and removes it, whatever happens
        else:
            self._batch[item.id] = item
        if self._batch is not None and len(self._batch) >= _BATCH:
            self.settle()  # a baseline's thousands of objects: a few descriptors open
        return item.id

    @contextlib.contextmanager
    def batch(self, refused: Callable[[int], AbstractContextManager[None]]) -> Iterator[None]:
        """A block whose objects are named together at its end (or before a ref moves).

        Every object written inside is fsynced and named in one :func:`.loose.settle`
        (their disk waits at once) when the block ends, or earlier at :meth:`settle`;
        until then it is read from its temporary file. An error removes what is not
        named yet. Nests: the outermost block settles, inside ``refused(0)`` (what
        names the system's refusal of a write).
        """
        if self._batch is not None:
            yield
            return
        self._batch = {}
        try:
            yield
            with refused(0):
                self.settle()
        finally:
            with contextlib.suppress(OSError):  # it removed what it wrote
                self._adopt()
            batch, self._batch = self._batch, None
            discard(batch.values())

    def settle(self, also: Sequence[int] = ()) -> None:
        """Make the objects of the current :meth:`batch` durable under their names.

        ``also``: open files synced with them (the locks of refs that will name them).
        """
        self._adopt()
        batch = list(self._batch.values()) if self._batch else []
        if self._batch:
            self._batch.clear()
        if batch or also:
            settle(self._folder, batch, also)

    def _adopt(self) -> None:
        """The object being written on a thread, into the batch once written (or its error)."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and self._batch is not None:
            self._batch[ahead.id] = ahead.staged()
        elif ahead is not None:
            discard([ahead.staged()])

    def _batched(self, id_: str) -> bool:
        """Whether ``id_`` is one of the batch's objects (named when it settles)."""
        return (self._batch is not None and id_ in self._batch) or (
            self._ahead is not None and self._ahead.id == id_
        )

    def _known(self, id_: str) -> bool:
        """Whether ``id_`` is stored already (or in the batch): an object not to write again."""
        if self._batched(id_):
            return True
        return self._renewed(self._loose(id_), id_)

    def _loose(self, id_: str) -> str:
        return f"{self._folder}/{id_[:2]}/{id_[2:]}"

    def _renewed(self, final: str, id_: str) -> bool:
        try:
            os.utime(final)
            return True
        except FileNotFoundError:
            pass
        except OSError:
            return os.path.exists(final)  # read-only: git too leaves it (it is there)
        binary = bytes.fromhex(id_)
        for pack in self._listed(False):
            with contextlib.suppress(Unreadable):  # then written loose: always safe
                if pack.offset(binary) is None:
                    continue
                try:
                    os.utime(pack.idx.with_suffix(".pack"))
                except OSError:
                    return False  # a pack that cannot be renewed: write the object loose
                return True
        return False


def _in_packs(packs: list[Pack], binary: bytes) -> bool:
    return any(pack.position(binary) is not None for pack in packs)


def hex_id(id_: str) -> bool:
    """Whether ``id_`` is an object id (40 lowercase hex digits)."""
    return len(id_) == 40 and not id_.strip("0123456789abcdef")


def _id(kind: int, data: bytes) -> str:
    digest = hashlib.sha1(b"%s %d\0" % (_NAMES[kind], len(data)), usedforsecurity=False)
    digest.update(data)  # not header + data: a copy of the whole object
    return digest.hexdigest()


def _inflated(compressed: bytes) -> tuple[bytes, bytes]:
    """A loose object's header (``TYPE SP SIZE``) and bytes, inflated once, never copied.

    Raises:
        zlib.error: If it is not zlib's, or has no header.
    """
    start = zlib.decompressobj().decompress(compressed, 64)
    end = start.find(b"\0")
    if end < 0:
        raise zlib.error("no object header")
    inflater = zlib.decompressobj()
    header = inflater.decompress(compressed, end + 1)[:-1]
    data = inflater.decompress(inflater.unconsumed_tail)
    return header, data + inflater.flush()  # b"": the same object
