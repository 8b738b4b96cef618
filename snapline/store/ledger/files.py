"""The ledger's files on disk: where each kind lives, written once, read within bounds.

``.snapline/ledger/`` is committed with the project. Every file in it is created once,
under a name no other branch can choose (a snapshot's number and unique id, a
milestone's number and content digest, an object's content hash), and never rewritten;
forgetting content (``snapline forget``) is the one exception. A file appears under its
name only whole: it is written to a temporary name in the same directory, flushed to
disk, then linked to its name, which fails rather than replace a file that exists.

Everything beside ``ledger/`` in ``.snapline/`` is local to one clone and listed in the
``.gitignore`` that ``init`` writes there: the index (rebuilt from the ledger whenever it
is missing or behind), the lock, and files parked by an interrupted write.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from snapline import atomic
from snapline.state_dir import FORMAT_NAME, LEDGER_DIR
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger import objects
from snapline.store.ledger.lines import LedgerFormatError, decode_lines
from snapline.store.ledger.objects import ObjectForm

if TYPE_CHECKING:
    from snapline.store.ledger.format import SnapshotRecord
    from snapline.store.rows import FileStamp

__all__ = [
    "ATTRIBUTES_NAME",
    "CONFIG_NAME",
    "FORMAT_NAME",
    "FORMAT_TEXT",
    "GITATTRIBUTES",
    "GITIGNORE",
    "INDEX_NAME",
    "LEDGER_DIR",
    "LEDGER_FORMAT",
    "Ledger",
    "LedgerFileError",
    "read_as_store",
]

INDEX_NAME = "index.db"
"""The local index inside ``.snapline/``."""

LEDGER_FORMAT = 2
"""The layout version ``ledger/FORMAT`` declares; a reader refuses a newer one.

2: objects are written keyed (``objects.py``); a ledger 1 holds raw objects only, and
is read as it is (0.2 declared it 2 when it wrote its first keyed object; nothing writes
one now).
"""

FORMAT_TEXT = f"snapline ledger {LEDGER_FORMAT}\n"
CONFIG_NAME = "config.json"
ATTRIBUTES_NAME = ".gitattributes"

GITATTRIBUTES = """\
# Written by snapline: ledger files are compared byte for byte, never converted;
# objects (keyed bytes, see docs/format.md) are binary, never shown as text.
* -text
objects/** -diff
"""

GITIGNORE = """\
# Written by snapline. Commit ledger/ (the history); the rest is local to this clone
# and rebuilt from the ledger when missing. See docs/format.md.
/*
!/.gitignore
!/ledger/
# Every ledger file, even one a project-wide rule would ignore (`*.snap`), but never
# the temporary file of a write that was interrupted.
!/ledger/**
/ledger/**/.*.snapline-tmp-*
"""

SNAPSHOTS = "snapshots"
MILESTONES = "milestones"
OBJECTS = "objects"
FORGOTTEN = "forgotten"
CHECKS = "checks"
KINDS = (SNAPSHOTS, MILESTONES, FORGOTTEN, CHECKS)


class LedgerFileError(Exception):
    """A ledger file that cannot be used as it is; the store layer reports it as damage.

    Attributes:
        path: The file.
        what: What is wrong with it.
    """

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.what = what
        super().__init__(f"{path}: {what}")


@contextlib.contextmanager
def read_as_store(location: Path, kind: str) -> Iterator[None]:
    """Read the ledger file ``location``, a ``kind`` (``check record``), in this block.

    Raises:
        StoreCorruptError: If the block raised ``LedgerFormatError`` (not a valid
            ``kind``), ``LedgerFileError`` or ``OSError`` (cannot be read).
    """
    try:
        yield
    except LedgerFormatError as error:
        raise StoreCorruptError(location, f"not a valid {kind}: {error}") from None
    except LedgerFileError as error:
        raise StoreCorruptError(location, error.what) from None
    except OSError as error:
        raise StoreCorruptError(location, f"cannot be read ({error.strerror})") from None


class Ledger:
    """The ledger directory of one workspace.

    Args:
        path: ``<root>/.snapline/ledger``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._folders: dict[str, Path] = {}
        self.parsed: dict[str, tuple[FileStamp, SnapshotRecord]] = {}
        """Snapshot files parsed by the last catch-up, by name: ``(stamp, record)``.

        Kept so that a ``verify`` right after it (a fresh clone's first) reads each
        file once; a record is used only while the file's stamp is unchanged, and the
        whole cache is dropped by the next write, the next catch-up and ``verify``.
        """

    # -- names ---------------------------------------------------------------------

    def names(self, kind: str) -> list[str]:
        """The names of the files of one kind (``snapshots``, ``milestones``...), sorted.

        Temporary files of a write in progress (or of one that died) are not listed.
        """
        return sorted(name for name in self.entries(kind) if not atomic.is_temp_name(name))

    def entries(self, kind: str) -> list[str]:
        """Every name in the folder of one kind, temporary files included, unsorted."""
        try:
            return os.listdir(self.path / kind)
        except FileNotFoundError:
            return []

    def file(self, kind: str, name: str) -> Path:
        """Where the file ``name`` of ``kind`` lives."""
        # One join, not two: `verify --full` names every file of a long history.
        folder = self._folders.get(kind)
        if folder is None:
            folder = self._folders[kind] = self.path / kind
        return folder / name

    # -- reading and writing records -------------------------------------------------

    def read(self, kind: str, name: str, limit: int) -> bytes:
        """The bytes of one file, refusing one larger than ``limit``.

        Raises:
            LedgerFileError: If it is larger, or not a regular file.
            FileNotFoundError: If it is gone.
        """
        return _read_bounded(self.file(kind, name), limit)

    def lines_at(self, location: Path, limit: int) -> Generator[str, None, None]:
        """The lines of a file located with :meth:`file`, decoded as they are read.

        Raises:
            LedgerFileError: If it is larger than ``limit`` or not a regular file.
            LedgerFormatError: If a line is not UTF-8 or the last lacks its LF.
            FileNotFoundError: If it is gone.
        """
        with _open_regular(location) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise LedgerFileError(location, f"{size} bytes, more than the {limit} allowed")
            yield from decode_lines(handle, limit)

    def write_new(self, kind: str, name: str, data: bytes | Iterable[bytes]) -> None:
        """Create the file ``name`` holding ``data``, durably, only if it does not exist.

        A file already there with exactly these bytes is left as it is (a write that
        died after its link, repeated).

        Args:
            kind: The folder (``snapshots``, ``milestones``...).
            name: The file's name.
            data: The bytes, or their pieces in order, written as they come (a
                baseline's file is never held whole).

        Raises:
            LedgerFileError: If a different file has that name.
            OSError: If the disk refuses.
        """
        _create(self.path / kind, name, data)

    # -- objects ---------------------------------------------------------------------

    def object_path(self, hash_: str, form: ObjectForm = ObjectForm.KEYED) -> Path:
        """Where the object with content hash ``sha256:<hex>`` lives in ``form``.

        Writers use the keyed form; a ledger written before it holds raw objects,
        read as they are (``objects.py``).
        """
        fan, name = objects.object_name(hash_.partition(":")[2], form)
        return self.path / OBJECTS / fan / name

    def has_object(self, hash_: str) -> bool:
        """Whether the object is there, in either form."""
        return any(os.path.lexists(self.object_path(hash_, form)) for form in ObjectForm)

    def write_object(self, hash_: str, content: bytes) -> None:
        """Create the object for ``hash_``, keyed (``objects.py``), in bounded extra memory.

        Only the conversion of a 0.1 store writes one, into a ledger it started as
        layout 2 (``converting.py``).

        Raises:
            OSError: If the disk refuses.
        """
        location = self.object_path(hash_)
        location.parent.mkdir(parents=True, exist_ok=True)
        _create(location.parent, location.name, objects.encode(hash_, content))

    def read_object(self, hash_: str, limit: int) -> bytes:
        """The content of an object in either form, refusing a file over ``limit`` bytes.

        The keyed form is read when both are there. The caller checks the content's hash.

        Raises:
            FileNotFoundError: If there is none.
            LedgerFileError: If it is larger, not a regular file, or not in its form.
        """
        try:
            return self.read_object_file(hash_, ObjectForm.KEYED, limit)
        except FileNotFoundError:
            return self.read_object_file(hash_, ObjectForm.RAW, limit)

    def read_object_file(self, hash_: str, form: ObjectForm, limit: int) -> bytes:
        """The content of the object file of ``hash_`` in ``form`` (``limit`` as above).

        Raises:
            FileNotFoundError: If there is none.
            LedgerFileError: If it is larger, not a regular file, or not in its form.
        """
        location = self.object_path(hash_, form)
        data = _read_bounded(location, limit)
        if form is ObjectForm.RAW:
            return data
        try:
            return objects.decode(hash_, data)
        except objects.ObjectFormError as error:
            raise LedgerFileError(location, str(error)) from None

    def object_files(self) -> Iterator[tuple[str, ObjectForm]]:
        """The content hash and form of every object file, in no particular order."""
        top = self.path / OBJECTS
        try:
            fans = os.listdir(top)
        except FileNotFoundError:
            return
        for fan in fans:
            with contextlib.suppress(NotADirectoryError, FileNotFoundError):
                for rest in os.listdir(top / fan):
                    found = objects.parse_name(fan, rest)
                    if found is not None:
                        yield found

    def object_hashes(self) -> set[str]:
        """The content hash of every object, whichever its form."""
        return {hash_ for hash_, _ in self.object_files()}


def _create(directory: Path, name: str, data: bytes | Iterable[bytes]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    temp = directory / atomic.temp_name(name)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines([data] if isinstance(data, bytes) else data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temp, target)
        except FileExistsError:
            if _same_bytes(target, temp):
                return
            raise LedgerFileError(target, "another file already has this name") from None
        except OSError:
            # No hard links here (some network and FUSE filesystems): the name is
            # unique by construction, so a rename is as safe, checked first.
            if os.path.lexists(target):
                if _same_bytes(target, temp):
                    return
                raise LedgerFileError(target, "another file already has this name") from None
            os.replace(temp, target)
        try:
            atomic.sync_directory(directory)
        except BaseException:
            # The name may not be durable, and the caller is told the write failed:
            # take it back, so no later reader finds a record nobody was promised.
            with contextlib.suppress(OSError):
                os.unlink(target)
            raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


_BLOCK = 1 << 20


def _same_bytes(path: Path, written: Path) -> bool:
    """Whether ``path`` is a regular file holding exactly the bytes of the file ``written``."""
    try:
        with _open_regular(path) as theirs, open(written, "rb") as ours:
            if os.fstat(theirs.fileno()).st_size != os.fstat(ours.fileno()).st_size:
                return False
            while block := ours.read(_BLOCK):
                if theirs.read(len(block)) != block:
                    return False
            return not theirs.read(1)
    except (OSError, LedgerFileError):
        return False


def _open_regular(path: Path) -> BinaryIO:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise LedgerFileError(path, "not a regular file")
    return handle


def _read_bounded(path: Path, limit: int) -> bytes:
    with _open_regular(path) as handle:
        info = os.fstat(handle.fileno())
        if info.st_size > limit:
            raise LedgerFileError(path, f"{info.st_size} bytes, more than the {limit} allowed")
        # Asked for its size and one byte more, not for the limit: read(n) allocates n
        # bytes first, and a gibibyte per small file was most of `verify --full`'s time
        # (issue 30). A file that grew since fstat is read on, up to the limit.
        data = handle.read(info.st_size + 1)
        if len(data) > info.st_size:
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:
        raise LedgerFileError(path, f"more than the {limit} bytes allowed")
    return data
