"""Reading a ledger back for ``verify``: every record parsed (forgets, checks), objects hashed."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from snapline.hashing import hash_bytes
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.checks import CheckLog
from snapline.store.ledger.files import (
    CHECKS,
    FORGOTTEN,
    MILESTONES,
    SNAPSHOTS,
    Ledger,
    LedgerFileError,
)
from snapline.store.ledger.forgotten import read_forget
from snapline.store.ledger.objects import ObjectForm, parse_path
from snapline.store.ledger.sync import read_milestone, read_snapshot
from snapline.store.rows import LedgerEntry

__all__ = ["read_back"]

_MAX_OBJECT_BYTES = 1 << 30


def read_back(ledger: Ledger, only: Collection[str] | None = None) -> Iterator[LedgerEntry]:
    """Each snapshot, milestone and object file, or what is wrong with it.

    Args:
        ledger: The ledger.
        only: Only these files (paths under the ledger: ``snapshots/<name>``,
            ``objects/ab/<rest>``, either form); every file when ``None``.
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
    files = ledger.object_files() if only is None else _object_files(only)
    for hash_, form in sorted(files, key=lambda found: (found[0], found[1].value)):
        yield _object_entry(ledger, hash_, form)


def _object_files(names: Collection[str]) -> list[tuple[str, ObjectForm]]:
    return [found for found in map(parse_path, names) if found is not None]


def _object_entry(ledger: Ledger, hash_: str, form: ObjectForm) -> LedgerEntry:
    # Each file on its own: a ledger may hold both forms of one content (two
    # branches, one written before ledger 2), and either may be damaged.
    location = ledger.object_path(hash_, form)
    try:
        content = ledger.read_object_file(hash_, form, _MAX_OBJECT_BYTES)
    except (OSError, LedgerFileError) as error:
        return LedgerEntry(location, problem=f"not a readable object ({error})")
    if hash_bytes(content) != hash_:
        return LedgerEntry(location, problem="its content does not match its name (edited)")
    return LedgerEntry(location, object_hash=hash_)
