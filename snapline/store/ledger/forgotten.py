"""Reading the ledger's forget records into the index (``forgotten/*.forget``)."""

from __future__ import annotations

from snapline.store.ledger.files import FORGOTTEN, Ledger, read_as_store
from snapline.store.ledger.forget_format import ForgetRecord, parse_forget, parse_forget_name
from snapline.store.ledger.store import LedgerStore
from snapline.store.rows import ForgottenRow

__all__ = ["MAX_FORGET_BYTES", "import_forgets", "read_forget"]

MAX_FORGET_BYTES = 64 << 20
"""No forget record is larger (one line per version forgotten)."""


def import_forgets(store: LedgerStore, names: list[str]) -> list[str]:
    """Take in forget records, inside the rebuild's transaction.

    The index keeps its blobs across a rebuild, so a forget pulled from another clone
    removes the forgotten content here too.

    Args:
        store: The open store.
        names: The forget records' file names.

    Returns:
        The hashes of the versions kept whole, whose objects the caller imports.

    Raises:
        StoreCorruptError: If a record is damaged; it is named.
    """
    forgotten: set[str] = set()
    kept: set[str] = set()
    for name in names:
        record = read_forget(store.ledger, name)
        store.forgotten.add(
            ForgottenRow(v.path, v.hash, v.number, record.time, record.reason)
            for v in record.forgot
        )
        forgotten.update(v.hash for v in record.forgot)
        kept.update(v.hash for v in record.kept)
    store.index.blobs.delete(sorted(forgotten))
    return sorted(kept - forgotten)


def read_forget(ledger: Ledger, name: str) -> ForgetRecord:
    """Parse one forget record.

    Raises:
        StoreCorruptError: If it cannot be read or is not a valid forget record.
    """
    location = ledger.file(FORGOTTEN, name)
    with read_as_store(location, "forget record"):
        parse_forget_name(name)
        return parse_forget(ledger.read(FORGOTTEN, name, MAX_FORGET_BYTES))
