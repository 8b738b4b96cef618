"""A catch-up's milestones: the main line's indexed, others left in their files.

See docs/format.md, "Milestones across lines".
"""

from __future__ import annotations

from snapline.store.errors import StoreCorruptError
from snapline.store.joined import joined_by_merges
from snapline.store.ledger.files import MILESTONES, Ledger, read_as_store
from snapline.store.ledger.format import (
    MilestoneRecord,
    milestone_name,
    parse_milestone,
)
from snapline.store.ledger.store import LedgerStore
from snapline.store.rows import LedgerEntry

__all__ = [
    "MAX_MILESTONE_BYTES",
    "import_milestones",
    "joined_milestones",
    "other_milestone_entries",
    "read_milestone",
]

MAX_MILESTONE_BYTES = 1 << 30
"""No milestone file is larger (sync.MAX_RECORD_BYTES)."""


def import_milestones(
    store: LedgerStore,
    milestones: list[tuple[str, MilestoneRecord]],
    preferred: frozenset[str] = frozenset(),
) -> None:
    """Add the milestones of the main line in number order.

    A milestone belongs to the line holding its ``last-id``; only the main line's are
    indexed. Two branches that each closed a milestone on snapshots they share leave two
    files with the same number on the main line: not damage, a milestone closed on two
    branches. The index takes one — the one that continues the milestone before it
    (``first`` one past its ``last``), then the earlier, then the smaller file name;
    never one a merge snapshot joined, and first one in ``preferred`` (the files of the
    branch git merged into) — and
    the other stays in its file, listed as a milestone of another branch until
    ``snapline merge`` joins it. So does one that only the branch git merged in holds
    and that does not continue the main line's milestones (its number is free there,
    its range is not) (docs/format.md, "Milestones across lines").
    """
    candidates: dict[int, list[tuple[str, MilestoneRecord]]] = {}
    for name, record in milestones:
        last = store.index.snapshots.get(record.row.last)
        if last is None or last.id != record.last_id:
            continue  # a milestone of another line: checked by verify, not indexed
        candidates.setdefault(record.row.number, []).append((name, record))
    joined: set[str] | None = None
    for number in sorted(candidates):
        if store.index.milestones.get(number) is not None:
            continue  # a pull brought another branch's milestone with a number taken here
        choices = candidates[number]
        if len(choices) > 1:
            # A milestone a merge snapshot joined was numbered anew by that merge: it is
            # never the main line's, in any clone.
            joined = joined_milestones(store) if joined is None else joined
            choices = [pair for pair in choices if pair[0] not in joined] or choices
        previous = store.index.milestones.get(number - 1)
        start = 1 if number == 1 else (previous.last + 1 if previous is not None else None)
        name, record = min(
            choices,
            key=lambda pair: (
                pair[0] not in preferred,
                pair[1].row.first != start,
                pair[1].row.time,
                pair[0],
            ),
        )
        if preferred and name not in preferred and record.row.first != start:
            # Only the branch git merged in closed it, on a range the main line's
            # milestones already cover: another branch's, as one closed beside the main
            # line's, never an overlap of the main line (that is damage).
            continue
        store.index.milestones.insert(record.row)


def joined_milestones(store: LedgerStore) -> set[str]:
    """The milestone files the main line's merge snapshots name as joined."""
    return set(joined_by_merges(store.index.snapshots.select()))


def other_milestone_entries(store: LedgerStore) -> list[LedgerEntry]:
    """Milestone files the index does not hold: another line's, another branch's.

    Milestones are few, so their files are read on each call (a listing and a parse).
    A file anchored on the main line whose number the index holds with a milestone in no
    file is left out: the index was damaged (``verify`` names it).
    """
    records = [
        (name, read_milestone(store.ledger, name)) for name in store.ledger.names(MILESTONES)
    ]
    chains = {record.row.chain_hash for _, record in records}
    indexed = {row.number: row.chain_hash for row in store.index.milestones.all()}
    found = []
    for name, record in records:
        row = record.row
        if indexed.get(row.number) == row.chain_hash:
            continue
        anchor = store.index.snapshots.get(row.last)
        on_main = anchor is not None and anchor.id == record.last_id
        if on_main and row.number in indexed and indexed[row.number] not in chains:
            # The index's milestone of that number is in no file: the index was
            # damaged (verify names it), not a milestone closed on another branch.
            continue
        entry = LedgerEntry(
            store.ledger.file(MILESTONES, name), milestone=row, last_id=record.last_id
        )
        found.append(((row.number, row.time, name), entry))
    return [entry for _, entry in sorted(found, key=lambda pair: pair[0])]


def read_milestone(ledger: Ledger, name: str) -> MilestoneRecord:
    """Parse one milestone file.

    Raises:
        StoreCorruptError: If it cannot be read or is not a valid milestone file.
    """
    location = ledger.file(MILESTONES, name)
    with read_as_store(location, "milestone file"):
        data = ledger.read(MILESTONES, name, MAX_MILESTONE_BYTES)
        record = parse_milestone(data)
        if milestone_name(record.row.number, data) != name:
            raise StoreCorruptError(
                location,
                "its name does not match what it holds (the digest in a milestone's "
                "name is of its bytes)",
            )
        return record
