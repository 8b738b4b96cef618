"""Opening the two halves of a ledger store: the ledger's own files and the local index."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from snapline.atomic import sync_directory
from snapline.store.dbfile import remove_stale_logs
from snapline.store.errors import StoreCorruptError, StoreVersionError
from snapline.store.holding import holding
from snapline.store.ledger.files import (
    ATTRIBUTES_NAME,
    CONFIG_NAME,
    FORMAT_NAME,
    FORMAT_TEXT,
    GITATTRIBUTES,
    INDEX_NAME,
    LEDGER_FORMAT,
    Ledger,
    LedgerFileError,
)
from snapline.store.ledger.files import (
    SNAPSHOTS as SNAPSHOTS_KIND,
)
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
        raise StoreVersionError(location, int(version), LEDGER_FORMAT)


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
    problem = None
    if location.is_file():
        try:
            index = SqliteStore.open(location, busy_timeout=timeout)
        except (StoreCorruptError, StoreVersionError) as error:
            problem = getattr(error, "detail", None) or str(error)
        else:
            foreign = _foreign(index, store_dir, ledger)
            if foreign is None:
                return index
            index.close()
            with holding(store_dir / lock_name, location, timeout):
                _set_aside(store_dir, location, _FOREIGN, foreign)
            return open_index(store_dir, ledger, timeout, lock_name)
    elif os.path.lexists(location):
        problem = "it is not a regular file"
    elif not os.access(store_dir, os.W_OK):
        # No index, and this user cannot make one (a read-only store, a fresh clone on
        # a read-only mount): one in memory, filled from the ledger, never saved.
        return _in_memory(store_dir, ledger, timeout)
    with holding(store_dir / lock_name, location, timeout):
        if problem is not None and os.path.lexists(location):
            _set_aside(store_dir, location, _DAMAGED, problem)
        # Checked again under the lock: another process may have created the index
        # meanwhile, and the log beside it is now its own.
        if not location.is_file():
            staging = store_dir / (INDEX_NAME + INIT_SUFFIX)
            for leftover in store_dir.glob(INDEX_NAME + INIT_SUFFIX + "*"):
                leftover.unlink()
            created = SqliteStore.create(staging, ledger_config(ledger))
            with created.connection.write():
                created.connection.db.execute(
                    "INSERT INTO meta(key, value) VALUES (?, ?)",
                    (_WORKSPACE_KEY, _make_token(store_dir)),
                )
            created.close()
            # The log of a deleted index (a copy made while it was open, then the index
            # alone deleted) would be applied to the new one: gone, for good, first.
            if remove_stale_logs(location):
                sync_directory(store_dir)
            os.replace(staging, location)
    return SqliteStore.open(location, busy_timeout=timeout)


def _in_memory(store_dir: Path, ledger: Ledger, timeout: float) -> SqliteStore:
    import uuid

    created = SqliteStore.create(Path(":memory:"), ledger_config(ledger), timeout)
    # The workspace's token where there is one; none can be made here, and an index
    # that lives as long as this process needs none that lasts.
    token = _read_token(store_dir) or uuid.uuid4().hex
    with created.connection.write():
        created.connection.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?)", (_WORKSPACE_KEY, token)
        )
    return created


_DAMAGED = ".damaged"
_FOREIGN = ".foreign"
_WORKSPACE_KEY = "workspace"
_TOKEN_NAME = "workspace"


def _set_aside(store_dir: Path, location: Path, suffix: str, why: str | None) -> None:
    """Move the index and its logs aside under ``suffix``; say why, unless ``why`` is empty."""
    for part in sorted(store_dir.glob(INDEX_NAME + "*")):
        if part.name.endswith((_DAMAGED, _FOREIGN)) or INIT_SUFFIX in part.name:
            continue
        target = part.with_name(part.name + suffix)
        count = 1
        while os.path.lexists(target):  # an earlier one kept for a look: keep it too
            count += 1
            target = part.with_name(f"{part.name}{suffix}-{count}")
        os.replace(part, target)
    sync_directory(store_dir)
    if why:
        import logging  # here: only an index set aside has something to say

        logging.getLogger("snapline").warning(
            "the local index %s could not be used (%s); it was set aside as %s and is "
            "rebuilt from the ledger",
            location,
            why,
            location.name + suffix,
        )


def _foreign(index: SqliteStore, store_dir: Path, ledger: Ledger) -> str | None:
    """Why the index belongs to another workspace or ledger, or ``None`` when it is ours.

    Each workspace has a token, ``.snapline/workspace`` (local, random), and its index
    notes the same token in ``meta``. A copy or a move of the whole workspace carries
    both; an ``index.db`` copied from another clone brings its own token, which is not
    this workspace's. Such an index is a cache of somewhere else (its journal names
    writes into another workspace's files), so it is set aside and rebuilt, never
    recovered; only a journal left pending there is worth a warning (``""`` otherwise:
    set aside without a word). An index whose baseline is not in this ledger holds
    another history.
    """
    baseline = index.snapshots.get(0)
    # One lstat: the baseline's file is in every ledger that holds this history.
    if baseline is not None and not os.path.lexists(
        ledger.file(SNAPSHOTS_KIND, f"00000000-{baseline.id}.snap")
    ):
        return "it holds the history of another ledger (its baseline is not in this one)"
    connection = index.connection
    rows = connection.query("SELECT value FROM meta WHERE key = ?", (_WORKSPACE_KEY,))
    noted = str(rows[0][0]) if rows else None
    token = _read_token(store_dir)
    if noted is not None and noted == token:
        return None
    if noted is not None:
        pending = index.journal.entries()
        if pending:
            return (
                f"it was copied from another workspace, and its {len(pending)} unfinished "
                "write(s) belong there: they are not applied here"
            )
        return ""
    # An index written before tokens: it becomes this workspace's.
    token = token or _make_token(store_dir)
    with connection.write():
        connection.db.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_WORKSPACE_KEY, token)
        )
    return None


def _read_token(store_dir: Path) -> str | None:
    try:
        text = (store_dir / _TOKEN_NAME).read_text("ascii").strip()
    except (OSError, UnicodeError):
        return None
    return text or None


def _make_token(store_dir: Path) -> str:
    """This workspace's token, created when missing (two processes agree on one)."""
    token = _read_token(store_dir)
    if token is not None:
        return token
    import uuid  # here: only a new workspace's first open makes its token

    staging = store_dir / f"{_TOKEN_NAME}{INIT_SUFFIX}-{uuid.uuid4().hex}"
    staging.write_text(uuid.uuid4().hex + "\n", "ascii")
    try:
        # link: the first process to name the token wins, and the others read its.
        os.link(staging, store_dir / _TOKEN_NAME)
        sync_directory(store_dir)
    except FileExistsError:
        pass
    finally:
        staging.unlink()
    return _read_token(store_dir) or ""


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


def start_ledger(ledger: Ledger, config: dict[str, Any]) -> None:
    """Write the files a new ledger begins with: its format, configuration and attributes.

    ``.gitattributes`` keeps git from converting line ends (``core.autocrlf``), which
    would make every file fail its canonical form in a clone, and marks objects binary.
    """
    ledger.write_new("", FORMAT_NAME, FORMAT_TEXT.encode())
    ledger.write_new("", CONFIG_NAME, config_text(config))
    ledger.write_new("", ATTRIBUTES_NAME, GITATTRIBUTES.encode())
