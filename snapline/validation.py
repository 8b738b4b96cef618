"""Validating a history: the snapshot sequence and the milestones, in one view.

:func:`validate` checks the whole history. :func:`check_history` is ``verify``'s: after a
whole check that found nothing wrong it keeps a checkpoint (see
:mod:`snapline.store.ledger.checkpoint`), and the next check covers what is new since
then, unless something the checkpoint covers changed, or ``full`` is asked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from snapline.milestones import validate_milestones
from snapline.milestones.ledger import check_milestone_files
from snapline.milestones.lines import Place, pending_message, pending_milestones
from snapline.snapshots.check.ledger import check_ledger
from snapline.snapshots.check.records import check_record_problems
from snapline.snapshots.check.sequence import validate_history
from snapline.snapshots.found import make_problem
from snapline.snapshots.read.lines import DivergedHistoryError, unmerged_lines
from snapline.snapshots.read.orphans import orphan_message
from snapline.store import (
    Checkpoint,
    FileStamp,
    LedgerEntry,
    SnapshotRow,
    Store,
    StoreAccessError,
    StoreBusyError,
    StoreReader,
)
from snapline.store.ledger.objects import parse_path as parse_object_path

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["HistoryCheck", "check_history", "history_states", "validate"]


@dataclass(frozen=True)
class HistoryCheck:
    """What :func:`check_history` found, and how much of the history it read.

    Attributes:
        problems: The problems found; empty when the history is sound.
        since: The checkpoint's snapshot when only what came after it was checked;
            ``None`` when the whole history was.
    """

    problems: list[Problem]
    since: int | None


def validate(store: StoreReader, *, deep: bool = False) -> list[Problem]:
    """Every problem of the history: gaps, links, chains, milestones, ledger files, lines.

    Args:
        store: The open store.
        deep: Also rebuild every recorded version and check every stored blob.

    Returns:
        The problems found, snapshots first; empty when the history is sound.
    """
    with store.read():
        return _check(store, store.ledger_entries(), deep=deep)


def check_history(store: Store, *, full: bool = False, deep: bool = False) -> HistoryCheck:
    """``verify``'s check of the history: what is new since its checkpoint, or all of it.

    The checkpoint holds when every ledger file it stamped is still there with the same
    stamp and its head snapshot is still the index's; then only the files and
    snapshots added since are checked. Otherwise (and with ``full`` or ``deep``) the
    whole history is. A check that finds nothing wrong moves the checkpoint to the
    head it reached.

    Args:
        store: The open store.
        full: Check the whole history whatever the checkpoint says, and hash the
            content kept by reference (git's blobs, on git's refs) against its records.
        deep: Also rebuild every recorded version (implies ``full``).

    Returns:
        The problems, and where the check started.
    """
    with store.read():
        stamps = store.ledger_stamps()
        checkpoint = None if full or deep else store.checkpoint()
        after = _still_holds(store, checkpoint, stamps)
        if after is None or checkpoint is None:
            entries = store.ledger_entries(stamps.keys())
            problems = _check(store, entries, deep=deep, full=full)
            since = None
        else:
            new = [name for name in stamps if name not in checkpoint.stamps]
            hashes = (_object_hash(name) for name in checkpoint.stamps)
            present = [hash_ for hash_ in hashes if hash_ is not None]
            problems = _check(store, store.ledger_entries(new), after=after, present=present)
            since = after.number
        latest = store.snapshots.latest_number()
        head = None if latest is None else store.snapshots.get(latest)
    # A store without ledger files to stamp (git's refs) keeps its checkpoint too; one
    # without a checkpoint of its own (Ledgerless) keeps nothing.
    if not problems and head is not None and not _same(checkpoint, head, stamps):
        _keep(store, Checkpoint(head.number, head.id, head.chain_hash, stamps))
    with contextlib.suppress(StoreAccessError, StoreBusyError):
        store.keep_listing()  # the next command need not list the ledger (listed.py)
    return HistoryCheck(problems, since)


def _check(
    store: StoreReader,
    entries: Iterable[LedgerEntry],
    *,
    deep: bool = False,
    full: bool = False,
    after: SnapshotRow | None = None,
    present: Collection[str] = (),
) -> list[Problem]:
    verified: dict[int, tuple[str, str]] = {}
    problems = validate_history(store, deep=deep, full=full, after=after, verified=verified)
    problems += validate_milestones(store)
    # Read back only now: the history's replay of the known state is gone, and the
    # parsed files are not held beside it (the peak of a first verify, issue 30).
    read_back = list(entries)
    problems += check_ledger(store, read_back, present, verified)
    problems += check_milestone_files(store, read_back)
    # On git's refs the guard's records are in no index: read on every check, as log does.
    problems += check_record_problems(store)
    problems += [make_problem(kind=k, message=m, number=n) for k, m, n in _states(store)]
    return problems


def history_states(store: StoreReader) -> list[str]:
    """The named states of the history (lines, milestones, orphans), one line each."""
    return [message for _, message, _ in _states(store)]


def _states(store: StoreReader) -> list[tuple[str, str, int | None]]:
    # Not damage: what a git merge or switch leaves, each with the command settling it.
    states: list[tuple[str, str, int | None]] = []
    lines = unmerged_lines(store)
    head = store.snapshots.get(store.snapshots.latest_number() or 0)
    if lines and head is not None:
        states.append(("lines", str(DivergedHistoryError(lines, head)), lines[0].fork))
    orphans = orphan_message(store)
    if orphans is not None:
        states.append(("orphans", orphans, None))
    # A milestone of an unjoined line is settled with its line; one closed on another
    # branch beside the main line's needs a merge of its own.
    beside = [m for m in pending_milestones(store) if m.place is Place.MAIN]
    if beside:
        states.append(("milestones", pending_message(beside, store), beside[0].row.number))
    return states


def _still_holds(
    store: StoreReader, checkpoint: Checkpoint | None, stamps: dict[str, FileStamp]
) -> SnapshotRow | None:
    # The checkpoint's head, when nothing it covers has changed since it was kept.
    if checkpoint is None:
        return None
    if not checkpoint.stamps.items() <= stamps.items():
        return None  # a file checked then was changed, replaced or removed since
    head = store.snapshots.get(checkpoint.number)
    if head is None or (head.id, head.chain_hash) != (checkpoint.id, checkpoint.chain_hash):
        return None
    return head


def _same(checkpoint: Checkpoint | None, head: SnapshotRow, stamps: dict[str, FileStamp]) -> bool:
    # Nothing new since a checkpoint that held: keeping it again would change nothing.
    return (
        checkpoint is not None and checkpoint.number == head.number and checkpoint.stamps == stamps
    )


def _keep(store: Store, checkpoint: Checkpoint) -> None:
    # Only an optimisation for the next verify: one that cannot be kept (a read-only
    # checkout, a writer holding the index) costs that verify nothing but a full check.
    with contextlib.suppress(StoreAccessError, StoreBusyError):
        store.save_checkpoint(checkpoint)


def _object_hash(name: str) -> str | None:
    # A stamped object file's content hash, whichever its form (raw or keyed).
    parsed = parse_object_path(name)
    return None if parsed is None else parsed[0]
