"""The committed ledger held to the history: every file as it was written.

The index answers every query, so a ledger file edited after it was written (by hand,
by a bad merge, by an attacker) must be caught by reading it back: each snapshot file
must parse, match its chain hash (which covers its predecessor's), and on the main line
say exactly what the index holds; each object must hash to its name; every object a
snapshot needs must be there unless it was forgotten on purpose. Problems name the file.
"""

from __future__ import annotations

import itertools
import operator
import os
import zlib
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.content import MAX_DELTA_BYTES, tombstone_digest, unpack
from snapline.snapshots.check.chain import GENESIS, chain_hash
from snapline.snapshots.found import make_problem
from snapline.store import ChangeRow, LedgerEntry, SnapshotRow, StoreReader

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["check_ledger"]

_RESTORE = "restore it from git in the workspace's root (`git checkout -- {}`) or from a copy"


def check_ledger(
    store: StoreReader,
    read_back: Sequence[LedgerEntry],
    present: Collection[str] = (),
    verified: Mapping[int, tuple[str, str]] | None = None,
) -> list[Problem]:
    """Every ledger file that does not hold what the history says; empty when all do.

    Args:
        store: The open store.
        read_back: Its ledger read back (:meth:`StoreReader.ledger_entries`; none for a
            store without a ledger), or only the files new since a verify checkpoint.
        present: Content hashes of objects checked earlier (not in ``read_back``).
        verified: The index's snapshots whose chain hash the check of the history
            recomputed and found right, as ``{number: (previous chain, chain)}``
            (:func:`~snapline.snapshots.check.sequence.validate_history`): a file that
            says exactly what such a snapshot holds needs no chain hash of its own.
    """
    verified = verified or {}
    root = store.path.parent.parent
    entries = read_back
    problems = [_corrupt(e, root, e.problem) for e in entries if e.problem is not None]
    objects = {e.object_hash for e in entries if e.object_hash is not None} | set(present)
    snapshots = [e for e in entries if e.snapshot is not None]
    indexed, chains = _indexed(store, [e.snapshot for e in snapshots if e.snapshot])
    forgotten = store.forgotten_hashes()
    orphans = {id_ for _, id_ in store.orphan_snapshots()}
    for entry in snapshots:
        row = entry.snapshot
        assert row is not None
        previous = GENESIS if row.parent_id is None else chains.get(row.parent_id)
        if previous is None and row.id in orphans:
            continue  # its parent is on another branch: checked when that one is out
        ours = indexed.get(row.number)
        mine = ours is not None and ours.id == row.id
        # The chain hash is computed once per snapshot: a file holding exactly the rows
        # of an index snapshot whose chain the history check recomputed from the same
        # previous chain hashes to the same value (chain_hash is a function of them).
        same = (
            mine
            and previous is not None
            and verified.get(row.number) == (previous, row.chain_hash)
            and ours == row
            and _same_changes(store, row.number, entry.changes)
        )
        if not same and (
            previous is None or chain_hash(previous, row, entry.changes) != row.chain_hash
        ):
            problems.append(
                _corrupt(
                    entry, root, "does not match its chain hash: it was edited after it was written"
                )
            )
            continue
        if _holds_forgotten(entry, forgotten):
            continue  # named by _unfinished_forgets, with advice that keeps it forgotten
        if mine and not same:
            assert ours is not None
            recorded = store.changes.of(row.number, deltas=True)
            if _plain(ours, recorded) != _plain(row, entry.changes):
                problems.append(
                    _corrupt(
                        entry,
                        root,
                        f"says something else about snapshot {row.number} than the local "
                        "index: either the file was edited (restore it from git) or the index "
                        "is damaged (delete .snapline/index.db: it is rebuilt from the ledger)",
                        restore=False,
                    )
                )
        for change in entry.changes:
            needed = change.content
            if row.number and needed and needed not in objects and needed not in forgotten:
                problems.append(
                    make_problem(
                        kind="ledger",
                        severity="corrupt",
                        number=row.number,
                        path=str(_where(entry, root)),
                        message=(
                            f"{_where(entry, root)}: the object holding {change.path} ({needed}) "
                            "is missing from the ledger; restore .snapline/ledger/objects "
                            "from git or from a copy"
                        ),
                    )
                )
    problems += _milestones(store, entries, root)
    problems += _unfinished_forgets(entries, forgotten, root)
    return problems


_BULK = 256
"""Snapshot files read back beyond which the index's headers are all read at once."""


def _indexed(
    store: StoreReader, files: Sequence[SnapshotRow]
) -> tuple[dict[int, SnapshotRow], dict[str, str]]:
    """The index's headers at the files' numbers, and the chain hash of every id they need.

    Chain hashes come from the files read back first, then from the index's main line
    (the last header with that id). A whole check reads every header anyway; a check of
    what is new since a verify checkpoint asks only for the numbers and parents it
    reads, so it does not grow with the history before the checkpoint.
    """
    if len(files) >= _BULK:
        rows = store.snapshots.select()
        wanted = {row.number for row in files}
        indexed = {row.number: row for row in rows if row.number in wanted}
    else:
        indexed = {}
        for row in files:
            found = store.snapshots.get(row.number)
            if found is not None:
                indexed[row.number] = found
        parents = {row.parent_id for row in files if row.parent_id is not None}
        rows = store.snapshots.with_ids(parents)
    chains = {row.id: row.chain_hash for row in rows}
    chains.update({row.id: row.chain_hash for row in files})
    return indexed, chains


# The in-tree ledger is only read (no snapline writes a ledger file): the index's rebuild
# drops the forgotten content from the index, not from this file. `snapline upgrade`
# moves the history onto git's refs without it and takes .snapline/ out of the tree.
_UNFINISHED = (
    "{} still holds content that a forget removed: the forget is not finished here. Run "
    "`snapline upgrade`, which moves this history onto git's refs without it (never "
    "restore this file from a backup, which would bring the content back)"
)


def _unfinished_forgets(
    entries: Sequence[LedgerEntry], forgotten: set[str], root: Path
) -> list[Problem]:
    # A forget record's versions must be in no ledger file: not as an object, not as a
    # delta that produces one or goes back to one.
    problems = []
    for entry in entries:
        if forgotten and _holds_forgotten(entry, forgotten):
            problems.append(
                make_problem(
                    kind="forget-incomplete",
                    path=str(_where(entry, root)),
                    number=entry.snapshot.number if entry.snapshot else None,
                    message=_UNFINISHED.format(_where(entry, root)),
                )
            )
    return problems


def _holds_forgotten(entry: LedgerEntry, forgotten: set[str]) -> bool:
    if entry.object_hash is not None and entry.object_hash in forgotten:
        return True
    return any(
        (c.result_hash in forgotten and _live(c.forward))
        or (c.base_hash in forgotten and _live(c.reverse))
        for c in entry.changes
    )


def _live(packed: bytes | None) -> bool:
    return packed is not None and tombstone_digest(packed) is None


def _milestones(store: StoreReader, entries: Sequence[LedgerEntry], root: Path) -> list[Problem]:
    problems = []
    for entry in entries:
        if entry.milestone is None:
            continue
        ours = store.milestones.get(entry.milestone.number)
        last = store.snapshots.get(entry.milestone.last)
        mine = ours is not None and last is not None and last.id == entry.last_id
        # Another chain hash is another milestone with the same number: one closed on
        # another branch (milestones/lines.py), its seal checked by check_milestone_files.
        # The same chain hash with other fields is an edit of this one.
        same = ours is not None and ours.chain_hash == entry.milestone.chain_hash
        if ours is not None and mine and same and ours != entry.milestone:
            problems.append(
                _corrupt(
                    entry,
                    root,
                    f"says something else about milestone {ours.number} than the local index: "
                    "either the file was edited (restore it from git) or the index is damaged "
                    "(delete .snapline/index.db: it is rebuilt from the ledger)",
                    restore=False,
                )
            )
    return problems


def _same_changes(store: StoreReader, number: int, changes: Sequence[ChangeRow]) -> bool:
    """Whether the index holds exactly ``changes`` for snapshot ``number``, byte for byte.

    Streamed side by side, so a baseline's hundred thousand rows are never held twice;
    ``False`` also when only the packing of a delta differs (then :func:`_plain` decides).
    """
    stream = store.changes.stream_of(number)
    try:
        return all(a == b for a, b in itertools.zip_longest(stream, changes))
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()


_FIELDS = operator.attrgetter(
    *(name for name in ChangeRow._fields if name not in ("forward", "reverse"))
)


def _plain(row: SnapshotRow, changes: Sequence[ChangeRow]) -> tuple[object, ...]:
    # Deltas compared by their text: the same text may be packed differently.
    return (
        row,
        tuple(
            (_FIELDS(c), _text(c.forward), _text(c.reverse))
            for c in sorted(changes, key=lambda c: str(c.path))
        ),
    )


def _text(packed: bytes | None) -> object:
    if packed is None:
        return None
    try:
        digest = tombstone_digest(packed)
        if digest is not None:
            return digest.encode()
        return unpack(packed, limit=MAX_DELTA_BYTES)
    except (TypeError, ValueError, zlib.error):
        return _UNREADABLE  # a damaged index value: it differs from any file


_UNREADABLE = object()


def _where(entry: LedgerEntry, root: Path) -> Path:
    # Relative to the root, for messages; only for files with a problem (a path per
    # file read back was a tenth of `verify --full` on 10,000 snapshots).
    return Path(os.path.relpath(entry.location, root))


def _corrupt(entry: LedgerEntry, root: Path, what: str | None, *, restore: bool = True) -> Problem:
    number = entry.snapshot.number if entry.snapshot is not None else None
    location = _where(entry, root)
    advice = "; " + _RESTORE.format(location) if restore else ""
    return make_problem(
        kind="ledger",
        severity="corrupt",
        number=number,
        path=str(location),
        message=f"{location}: {what}{advice}",
    )
