"""Reading a ledger back for ``verify``: every record parsed (forgets, checks), objects hashed."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from snapline.hashing import hash_bytes
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.checks import CheckLog
from snapline.store.ledger.files import (
    CHECKS,
    FORGOTTEN,
    MILESTONES,
    OBJECTS,
    SNAPSHOTS,
    Ledger,
    LedgerFileError,
)
from snapline.store.ledger.forgotten import read_forget
from snapline.store.ledger.sync import read_milestone, read_snapshot
from snapline.store.rows import LedgerEntry

__all__ = ["read_back"]

_MAX_OBJECT_BYTES = 1 << 30
_HEX64 = re.compile(r"[0-9a-f]{64}")


def read_back(ledger: Ledger, only: Collection[str] | None = None) -> Iterator[LedgerEntry]:
    """Each snapshot, milestone and object file, or what is wrong with it.

    Args:
        ledger: The ledger.
        only: Only these files (paths under the ledger: ``snapshots/<name>``,
            ``objects/ab/<rest>``); every file when ``None``.
    """

    def names(kind: str) -> list[str]:
        if only is None:
            return ledger.names(kind)
        # Only what is named: a check of what is new since a checkpoint does not list
        # the folders again (the stamps it was given came from a listing).
        prefix = f"{kind}/"
        return sorted(
            n[len(prefix) :] for n in only if n.startswith(prefix) and "/" not in n[len(prefix) :]
        )

    for name in names(SNAPSHOTS):
        location = ledger.file(SNAPSHOTS, name)
        try:
            record = read_snapshot(ledger, name)
        except StoreCorruptError as error:
            yield LedgerEntry(location, problem=error.detail)
            continue
        yield LedgerEntry(location, snapshot=record.row, changes=tuple(record.changes))
    for name in names(MILESTONES):
        try:
            milestone = read_milestone(ledger, name)
        except StoreCorruptError as error:
            yield LedgerEntry(ledger.file(MILESTONES, name), problem=error.detail)
            continue
        yield LedgerEntry(
            ledger.file(MILESTONES, name), milestone=milestone.row, last_id=milestone.last_id
        )
    for name in names(FORGOTTEN):
        try:
            read_forget(ledger, name)
        except StoreCorruptError as error:
            yield LedgerEntry(ledger.file(FORGOTTEN, name), problem=error.detail)
    checks = CheckLog(ledger)
    for name in names(CHECKS):
        try:
            checks.read(name)
        except StoreCorruptError as error:
            yield LedgerEntry(ledger.file(CHECKS, name), problem=error.detail)
    hashes = ledger.object_hashes() if only is None else _object_hashes(only)
    for hash_ in sorted(hashes):
        yield _object_entry(ledger, hash_)


def _object_hashes(names: Collection[str]) -> list[str]:
    prefix = f"{OBJECTS}/"
    found = []
    for name in names:
        fan, _, rest = name[len(prefix) :].partition("/")
        if name.startswith(prefix) and _HEX64.fullmatch(fan + rest):
            found.append(f"sha256:{fan}{rest}")
    return found


def _object_entry(ledger: Ledger, hash_: str) -> LedgerEntry:
    location = ledger.object_path(hash_)
    try:
        content = ledger.read_object(hash_, _MAX_OBJECT_BYTES)
    except (OSError, LedgerFileError) as error:
        return LedgerEntry(location, problem=f"not a readable object ({error})")
    if hash_bytes(content) != hash_:
        return LedgerEntry(location, problem="its content does not match its name (edited)")
    return LedgerEntry(location, object_hash=hash_)
