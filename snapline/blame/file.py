"""``blame`` of one file as it is on disk: the recorded lines, then what the disk changed.

The lines of the latest recorded version get their snapshots from the walk
(:mod:`snapline.blame.walk`); the file on disk is then compared with that version, as
``git blame`` compares the work tree with ``HEAD``: a line the disk added or changed
is ``unrecorded``. A file on disk that no snapshot tracks is unrecorded throughout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.blame.lines import Hunks, carried, is_binary, split_lines
from snapline.blame.model import UNRECORDED, BlameLine, FileBlame
from snapline.blame.origins import Origins
from snapline.blame.walk import line_snapshots
from snapline.errors import SnaplineError
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.store import StoreReader
from snapline.unknown_path import UnknownPathError

if TYPE_CHECKING:
    from snapline.blame.elsewhere import Elsewhere

__all__ = ["BinaryFileError", "NotAFileError", "NotBlamableError", "blame_file", "line_owners"]


class NotBlamableError(SnaplineError):
    """The file cannot be blamed: binary, or tracked but deleted on disk (exit 1).

    Attributes:
        path: The file.
    """

    exit_code = 1

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        super().__init__(f"cannot blame {path}: {detail}")


class BinaryFileError(NotBlamableError):
    """The file holds binary data (a NUL in its first 8000 bytes, as git decides)."""

    def __init__(self, path: str) -> None:
        super().__init__(
            path, "it is binary (a NUL byte in its first 8000 bytes); blame reads text files"
        )


class NotAFileError(NotBlamableError):
    """The path names a directory (or another kind of file): blame reads one file (exit 2)."""

    exit_code = 2

    def __init__(self, path: str) -> None:
        super().__init__(path, "it is not a file; name a file (blame --summary takes directories)")


def blame_file(
    store: StoreReader,
    reconstructor: Reconstructor,
    path: str,
    disk: bytes | None,
    hunks: Hunks | None = None,
    origins: Origins | None = None,
    elsewhere: Elsewhere | None = None,
) -> FileBlame:
    """Who wrote each line of ``path`` as it is on disk (read inside one ``store.read()``).

    Args:
        store: The history.
        reconstructor: Rebuilds each recorded version.
        path: The file, relative to the root.
        disk: Its bytes on disk, ``None`` when it is not there.
        hunks: The line diff; git's own by default (tests hand in a wrong one).
        origins: Who each snapshot was, shared by the files of one answer.
        elsewhere: In a checkout that only reads a history on git's refs, the other
            lines, which blame a file (or lines of it) the followed line did not record
            (:mod:`snapline.blame.elsewhere`).

    Returns:
        Every line on disk with its origin.

    Raises:
        UnknownPathError: If the file is neither on disk nor tracked (exit 2).
        NotBlamableError: If it is tracked and deleted on disk.
        BinaryFileError: If it is binary.
        ContentUnavailableError: If a version was tracked by hash only or forgotten.
    """
    lines, owners, latest = line_owners(store, reconstructor, path, disk, hunks)
    found = None
    if elsewhere is not None and disk is not None and None in owners:
        found = elsewhere.owners(path, disk)
    if found is None:
        origins = origins or Origins(store)
        found = [UNRECORDED if owner is None else origins.of(owner) for owner in owners]
    return FileBlame(
        path,
        tuple(
            BlameLine(i + 1, text, origin)
            for i, (text, origin) in enumerate(zip(lines, found, strict=True))
        ),
        latest,
    )


def line_owners(
    store: StoreReader,
    reconstructor: Reconstructor,
    path: str,
    disk: bytes | None,
    hunks: Hunks | None = None,
) -> tuple[list[bytes], list[int | None], int | None]:
    """The lines of ``path`` on disk and the snapshot that wrote each (``None``: unrecorded).

    What :func:`blame_file` answers, without an object per line (a summary of a whole
    workspace counts millions of them).

    Returns:
        The lines, the snapshot of each, and the latest snapshot's number.

    Raises:
        As :func:`blame_file`.
    """
    if hunks is None:
        from snapline.blame.gitdiff import line_diff

        hunks = line_diff()
    known = store.state.get([path]).get(path)
    latest = store.snapshots.latest_number()
    if known is None:
        if disk is None:
            raise UnknownPathError(path, "blame")
        if is_binary(disk):
            raise BinaryFileError(path)
        lines = split_lines(disk)
        return lines, [None] * len(lines), latest
    if disk is None:
        raise NotBlamableError(
            path,
            f"it was deleted on disk after snapshot {known.snapshot} and the deletion is not "
            "recorded; `snapline diff` shows it, `snapline record` records it",
        )
    if is_binary(disk):
        raise BinaryFileError(path)
    assert latest is not None  # a tracked path has a snapshot
    recorded, owners = line_snapshots(store, reconstructor, path, latest, hunks)
    lines = split_lines(disk)
    if disk == recorded:
        return lines, list[int | None](owners), latest
    mapping = carried(recorded, disk, hunks, len(lines))
    return lines, [None if at is None else owners[at] for at in mapping], latest
