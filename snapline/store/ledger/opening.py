"""Opening the two halves of a ledger store: the ledger's own files and the local index."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from snapline.atomic import sync_directory
from snapline.store.dbfile import remove_stale_logs
from snapline.store.errors import StoreBusyError, StoreCorruptError, StoreVersionError
from snapline.store.ledger.files import (
    CONFIG_NAME,
    FORMAT_NAME,
    FORMAT_TEXT,
    INDEX_NAME,
    LEDGER_FORMAT,
    Ledger,
    LedgerFileError,
)
from snapline.store.lockfile import FileLock, LockTimeout
from snapline.store.sqlite import SqliteStore

__all__ = [
    "INIT_SUFFIX",
    "check_format",
    "config_text",
    "ledger_config",
    "open_index",
    "start_ledger",
]


INIT_SUFFIX = ".init"
"""What a file or directory is called while it is being built (index, ledger, store)."""


def check_format(ledger: Ledger) -> None:
    """Refuse a ledger whose ``FORMAT`` line is missing, damaged or newer than this version.

    Raises:
        StoreCorruptError: If the line is not ``snapline ledger N``.
        StoreVersionError: If N is newer than :data:`LEDGER_FORMAT`.
    """
    location = ledger.file("", FORMAT_NAME)
    try:
        text = ledger.read("", FORMAT_NAME, 64).decode("ascii")
        name, _, version = text.strip().rpartition(" ")
        if name != "snapline ledger" or not version.isdigit():
            raise ValueError(text)
    except (OSError, ValueError, LedgerFileError):
        raise StoreCorruptError(location, "not a snapline ledger format line") from None
    if int(version) > LEDGER_FORMAT:
        raise StoreVersionError(location, int(version))


def open_index(store_dir: Path, ledger: Ledger, timeout: float, lock_name: str) -> SqliteStore:
    """Open the local index, creating an empty one (filled from the ledger) when missing.

    The index is a cache of the ledger: one that SQLite finds damaged, or that a newer
    snapline wrote, is set aside (``index.db.damaged``, for a look) and built anew,
    with a warning. The history itself is the ledger, which is checked on its own.
    A missing index is created under the writer lock, and the ``-wal``, ``-shm`` and
    ``-journal`` a deleted one left behind are removed before the new file takes its
    name (:func:`~snapline.store.dbfile.remove_stale_logs`); those of an index that
    exists are never touched.
    """
    location = store_dir / INDEX_NAME
    if location.is_file():
        try:
            return SqliteStore.open(location, busy_timeout=timeout)
        except (StoreCorruptError, StoreVersionError) as error:
            problem = getattr(error, "detail", None) or str(error)
    else:
        problem = None
    with _holding(store_dir / lock_name, location, timeout):
        if problem is not None and location.is_file():
            import logging  # here: only a damaged index has something to say

            for part in store_dir.glob(INDEX_NAME + "*"):
                if not part.name.endswith(_DAMAGED):
                    os.replace(part, part.with_name(part.name + _DAMAGED))
            logging.getLogger("snapline").warning(
                "the local index %s could not be used (%s); it was set aside as %s and is "
                "rebuilt from the ledger",
                location,
                problem,
                location.name + _DAMAGED,
            )
        # Checked again under the lock: another process may have created the index
        # meanwhile, and the log beside it is now its own.
        if not location.is_file():
            staging = store_dir / (INDEX_NAME + INIT_SUFFIX)
            for leftover in store_dir.glob(INDEX_NAME + INIT_SUFFIX + "*"):
                leftover.unlink()
            SqliteStore.create(staging, ledger_config(ledger)).close()
            # The log of a deleted index (a copy made while it was open, then the index
            # alone deleted) would be applied to the new one: gone, for good, first.
            if remove_stale_logs(location):
                sync_directory(store_dir)
            os.replace(staging, location)
    return SqliteStore.open(location, busy_timeout=timeout)


_DAMAGED = ".damaged"


@contextlib.contextmanager
def _holding(lock_path: Path, location: Path, timeout: float) -> Iterator[None]:
    lock = FileLock(str(lock_path), timeout=timeout)
    try:
        lock.acquire()
    except LockTimeout:
        raise StoreBusyError(location, timeout) from None
    try:
        yield
    finally:
        lock.release()


def ledger_config(ledger: Ledger) -> dict[str, Any]:
    """The workspace configuration the ledger's ``config.json`` holds.

    Raises:
        StoreCorruptError: If it is missing or not a JSON object.
    """
    location = ledger.file("", CONFIG_NAME)
    try:
        value = json.loads(ledger.read("", CONFIG_NAME, 1 << 20))
    except (OSError, ValueError, LedgerFileError):
        raise StoreCorruptError(location, "not a readable JSON configuration") from None
    if not isinstance(value, dict):
        raise StoreCorruptError(location, "the configuration is not a JSON object")
    return value


def config_text(config: dict[str, Any]) -> bytes:
    """How ``config.json`` is written: sorted keys, two-space indent, final newline."""
    return (json.dumps(config, indent=2, sort_keys=True) + "\n").encode()


GITATTRIBUTES = """\
# Written by snapline: ledger files are compared byte for byte, never converted.
* -text
"""


def start_ledger(ledger: Ledger, config: dict[str, Any]) -> None:
    """Write the files a new ledger begins with: its format, configuration and attributes.

    ``.gitattributes`` keeps git from converting line ends (``core.autocrlf``), which
    would make every file fail its canonical form in a clone.
    """
    ledger.write_new("", FORMAT_NAME, FORMAT_TEXT.encode())
    ledger.write_new("", CONFIG_NAME, config_text(config))
    ledger.write_new("", ".gitattributes", GITATTRIBUTES.encode())
