"""Checking the store against itself: sequence, links, chain, continuity and content.

Problems come in two severities. ``error`` (exit code 1) is a history that does not hold
together: a gap, a broken link, a continuity break, a known state that does not follow.
``corrupt`` (exit code 3) is a store that was damaged or edited: chain-hash mismatches,
missing or bit-flipped content, malformed records, unsafe paths.

``validate`` walks the whole history once. It reports every problem it finds rather than
stopping at the first, so ``snapline verify`` can say exactly what and where.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from snapline.hashing import is_hash
from snapline.paths import UnsafePathError, check_relpath
from snapline.snapshots.check.chain import GENESIS, chain_hash
from snapline.snapshots.check.groups import Groups, shape_problems, stored_content, streamed_pass
from snapline.snapshots.check.stored import blob_problems, deep_check
from snapline.snapshots.found import Severity, make_problem
from snapline.snapshots.kinds import SNAPSHOT_VERSION, ChangeKind, Storage
from snapline.store import ChangeRow, SnapshotRow, StoreReader

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["validate_history"]

_KINDS = {kind.value for kind in ChangeKind}
_STORAGES = {storage.value for storage in Storage}
_BREAKS = frozenset({"gap", "broken-link"})


def validate_history(
    store: StoreReader,
    *,
    deep: bool = False,
    full: bool = False,
    after: SnapshotRow | None = None,
    verified: dict[int, tuple[str, str]] | None = None,
) -> list[Problem]:
    """Every continuity and integrity problem in the snapshot history.

    Args:
        store: The open store.
        deep: Also rebuild every recorded file version and verify every stored blob
            against its hash (reads all content; slower).
        full: Also hash every content the index keeps by reference (a history on
            git's refs: git's blobs) against its recorded hash.
        after: Check only the snapshots after this one, taking it and everything
            before it as sound (a verify checkpoint); the known state is held to the
            history for the paths those snapshots changed. ``deep`` and SQLite's own
            check of the file belong to the whole check only.
        verified: Filled with ``{number: (previous chain, chain)}`` for every snapshot
            whose chain hash was recomputed and found right (for
            :func:`~snapline.snapshots.check.ledger.check_ledger`).

    Returns:
        The problems found, in history order; empty when the store is sound.
    """
    problems: list[Problem] = []
    if after is None:
        damage = store.integrity_problems()
        if damage:
            problems.append(make_problem(kind="sqlite", message=_damaged_index(store, damage),
                                         severity="corrupt"))  # fmt: skip
        rows = store.snapshots.select()
        # Streamed, one snapshot's changes at a time: the whole history's rows are
        # never held at once (a baseline alone is a hundred thousand).
        changes: Iterable[ChangeRow] = store.changes.iter(deltas=True)
        replay: dict[str, tuple[str, int]] = {}
    else:
        rows = store.snapshots.select(first=after.number + 1)
        last = rows[-1].number if rows else after.number
        changes = store.changes.in_range(after.number + 1, last, deltas=True)
        touched = {p for c in changes for p in (c.path, c.old_path) if p}
        replay = _known_before(store, after.number, touched)
    groups = Groups(changes)
    # The paths a damaged snapshot changed: what it left there is unknown, so neither
    # the next change of one nor the known state is held to the history until then.
    unknown: set[str] = set()
    # Content forgotten on purpose (`snapline forget`) is gone, not missing.
    forgotten = store.forgotten_hashes()
    held_by_workspace = store.baseline_in_workspace()
    previous: SnapshotRow | None = after
    # A later snapshot must not reuse an id from before the checkpoint either.
    ids = (
        set()
        if after is None
        else {
            r.id
            for r in store.snapshots.with_ids([row.id for row in rows])
            if r.number <= after.number
        }
    )
    for row in rows:
        # The baseline of a whole check is read twice, streamed, rather than held: its
        # shape and chain in path order (stream_of), then its changes as they come.
        streamed = after is None and previous is None and row.number == 0
        if streamed:
            batch, (damaged, streamed_chain) = [], streamed_pass(store, row, GENESIS)
        else:
            batch = groups.take(row.number)
            damaged = shape_problems(row, batch)
        if damaged:
            # Values of the wrong type cannot be compared or hashed: report the damage
            # and check the rest of the history against this row's place in it.
            problems.extend(damaged)
            for chunk in groups.chunks(row.number) if streamed else [batch]:
                _unknown_from(chunk, replay, unknown)
            previous = row
            continue
        if row.id in ids:
            problems.append(
                _problem(row, "duplicate-id", f"snapshot {row.number} reuses the id {row.id}",
                         actual=row.id)
            )  # fmt: skip
        ids.add(row.id)
        expected_number = 0 if previous is None else previous.number + 1
        if row.number != expected_number:
            problems.append(
                _problem(
                    row,
                    "gap",
                    f"snapshot {row.number} follows {expected_number - 1}: "
                    f"snapshots {expected_number}..{row.number - 1} are missing",
                )
            )
        if row.version > SNAPSHOT_VERSION:
            problems.append(
                _problem(
                    row,
                    "unknown-version",
                    f"snapshot {row.number} has format version {row.version}; upgrade snapline",
                )
            )
        expected_parent = previous.id if previous else None
        # A damaged snapshot's id or chain hash, of the wrong type, is no value to hold
        # the next one to: its damage is reported already.
        linked = expected_parent is None or isinstance(expected_parent, str)
        if linked and row.parent_id != expected_parent:
            problems.append(
                _problem(
                    row,
                    "broken-link",
                    f"snapshot {row.number} names {row.parent_id} as its parent, "
                    f"not {expected_parent}",
                    expected=expected_parent,
                    actual=row.parent_id,
                )
            )
        previous_chain = previous.chain_hash if previous else GENESIS
        if streamed or isinstance(previous_chain, str):
            expected_chain = streamed_chain if streamed else chain_hash(previous_chain, row, batch)
            if row.chain_hash == expected_chain and verified is not None:
                verified[row.number] = (previous_chain, expected_chain)
            if row.chain_hash != expected_chain:
                problems.append(
                    _problem(
                        row,
                        "chain-mismatch",
                        f"snapshot {row.number} does not match its chain hash: "
                        "it was edited after it was recorded",
                        expected=expected_chain,
                        actual=row.chain_hash,
                    )
                )
        for field in (row.metadata, row.skipped):
            try:
                json.loads(field)
            except ValueError:
                problems.append(
                    _problem(row, "bad-record", f"snapshot {row.number} has unreadable JSON")
                )
        held = held_by_workspace and row.number == 0
        for chunk in groups.chunks(row.number) if streamed else [batch]:
            blobs = stored_content(store, chunk, held) | forgotten
            for change in chunk:
                problems.extend(_check_change(change, replay, unknown, blobs, held_by_workspace))
        previous = row
        # Not kept for the next snapshot, nor for the known state's check below: a
        # baseline's rows beside the state's would double the peak of a first verify.
        batch = []
    for number in groups.rest():
        # A crafted row's snapshot may be text: named in the message, never a crash.
        numeric = isinstance(number, int) and not isinstance(number, bool)
        problems.append(
            make_problem(
                kind="orphan-change",
                number=number if numeric else None,
                severity="corrupt",
                message=f"file changes recorded for snapshot {number!r}, which does not exist",
            )
        )
    problems.extend(_check_state(store, replay, unknown, None if after is None else touched))
    if deep and after is None:
        problems.extend(deep_check(store))
    elif full and after is None:
        problems.extend(blob_problems(store.blobs.references()))
    return problems


def _damaged_index(store: StoreReader, damage: list[str]) -> str:
    """One line: the index, what SQLite's own check found in it, and how to build it again.

    The index is a cache (of the refs, or an old branch's ledger): set aside, it is built
    again by the next command (store/refs/opening.py), as one SQLite cannot open is.
    """
    from snapline.store.index_damage import rebuild_advice

    found = "; ".join(
        line
        for detail in damage
        for line in detail.splitlines()
        if line and not line.startswith("*** in database")
    )
    return (
        f"the local index {store.path} is damaged (SQLite's own check: {found}); it is a "
        f"cache of the history: {rebuild_advice(store.path)}"
    )


def _problem(row: SnapshotRow, kind: str, message: str, **extra: str | None) -> Problem:
    # A gap or a broken link is a history that does not hold together (exit 1); the
    # rest of a snapshot's problems mean the store was damaged or edited (exit 3).
    severity: Severity = "error" if kind in _BREAKS else "corrupt"
    return make_problem(kind=kind, number=row.number, severity=severity, message=message, **extra)


def _unknown_from(
    changes: Iterable[ChangeRow], replay: dict[str, tuple[str, int]], unknown: set[str]
) -> None:
    # What damaged changes left at their paths is unknown from here on.
    for change in changes:
        for path in (change.path, change.old_path):
            if isinstance(path, str):
                unknown.add(path)
                replay.pop(path, None)


def _check_change(
    change: ChangeRow,
    replay: dict[str, tuple[str, int]],
    unknown: set[str],
    blobs: set[str],
    held_by_workspace: bool,
) -> list[Problem]:
    problems = []

    def corrupt(kind: str, message: str, **extra: str | None) -> Problem:
        # A break in per-file continuity is a validation failure (exit 1); damaged
        # records, paths and content mean the store itself is corrupt (exit 3).
        severity: Severity = "error" if kind == "continuity" else "corrupt"
        return make_problem(kind=kind, severity=severity, path=change.path, number=change.snapshot,
                            message=message, **extra)  # fmt: skip

    try:
        check_relpath(change.path)
        if change.old_path is not None:
            check_relpath(change.old_path)
    except UnsafePathError as error:
        _unknown_from([change], replay, unknown)
        return [corrupt("unsafe-path", str(error))]
    if change.kind not in _KINDS or change.storage not in _STORAGES:
        _unknown_from([change], replay, unknown)
        return [
            corrupt(
                "bad-record",
                message=f"{change.path} in snapshot {change.snapshot} has kind "
                f"{change.kind!r} and storage {change.storage!r}",
            )
        ]
    for value in (change.base_hash, change.result_hash):
        if value is not None and not is_hash(value):
            problems.append(
                corrupt(
                    "bad-record",
                    message=f"{change.path} has a malformed hash {value!r}",
                )
            )
    source = change.old_path if change.kind == ChangeKind.RENAMED else change.path
    known = replay.get(source) if source else None
    base = (change.base_hash, change.base_mode) if change.base_hash else None
    # After a damaged snapshot changed the path, any start is as good as another.
    held_to = not unknown or unknown.isdisjoint((source, change.path))
    unknown.difference_update((source, change.path))
    if held_to and known != base:
        had = known[0] if known else None
        starts, history = change.base_hash or "nothing", had or "nothing"
        if known is not None and base is not None and had == change.base_hash:
            # The same version with another mode: the modes are what differs.
            starts, history = (f"{had} with mode {mode:06o}" for mode in (base[1], known[1]))
        problems.append(
            corrupt(
                "continuity",
                expected=had,
                actual=change.base_hash,
                message=f"{change.path} in snapshot {change.snapshot} starts from {starts}, "
                f"but the history had {history} there",
            )
        )
    if held_to and change.kind in (ChangeKind.ADDED, ChangeKind.RENAMED) and change.path in replay:
        problems.append(
            corrupt(
                "continuity",
                message=f"{change.path} in snapshot {change.snapshot} is recorded as "
                f"{change.kind} over a tracked file, whose version is lost from the history",
                expected=None,
                actual=replay[change.path][0],
            )
        )
    if change.kind == ChangeKind.RENAMED and change.old_path is not None:
        replay.pop(change.old_path, None)
    if change.result_hash is None:
        replay.pop(change.path, None)
    elif is_hash(change.result_hash):
        replay[change.path] = (change.result_hash, change.result_mode or 0)
    else:
        _unknown_from([change], replay, unknown)
    # The ledger leaves the baseline's content in the workspace (docs/format.md).
    held = change.snapshot == 0 and held_by_workspace
    stored = change.content is not None and change.content in blobs
    if change.storage == Storage.FULL and not held and not stored:
        problems.append(
            corrupt(
                "missing-content",
                expected=change.content,
                message=f"the content of {change.path} in snapshot {change.snapshot} "
                f"({change.content}) is missing from the store",
            )
        )
    if change.storage == Storage.DELTA and (change.forward is None or change.reverse is None):
        problems.append(
            corrupt(
                "missing-content",
                message=f"the delta of {change.path} in snapshot {change.snapshot} is missing",
            )
        )
    return problems


def _known_before(
    store: StoreReader, number: int, paths: Iterable[str]
) -> dict[str, tuple[str, int]]:
    # What the history held at snapshot `number` for every path the later changes start
    # from or write to: the replay a whole walk would have reached there.
    known = {}
    for path in paths:
        change = store.changes.version_at(path, number)
        if change is not None and change.path == path and change.result_hash is not None:
            known[path] = (change.result_hash, change.result_mode or 0)
    return known


def _check_state(
    store: StoreReader,
    replay: dict[str, tuple[str, int]],
    unknown: set[str],
    only: set[str] | None,
) -> list[Problem]:
    problems = []
    for path, expected, actual in sorted(_state_differences(store, replay, only)):
        if actual != expected and path not in unknown:
            problems.append(
                make_problem(
                    kind="state-mismatch",
                    path=path,
                    severity="error",
                    expected=expected[0] if expected else None,
                    actual=actual[0] if actual else None,
                    message=f"the known state of {path} does not follow from the history",
                )
            )
    return problems


def _state_differences(
    store: StoreReader, replay: dict[str, tuple[str, int]], only: set[str] | None
) -> Iterator[tuple[str, tuple[str, int] | None, tuple[str, int] | None]]:
    # (path, from the history, in the state) for each path that differs. The whole
    # check streams the state and uses up the replay: the two are never held side by
    # side with a third copy of the tree's paths.
    if only is not None:
        state = store.state.get(only)
        for path in state.keys() | only:
            row = state.get(path)
            yield path, replay.get(path), (row.hash, row.mode) if row else None
        return
    for row in store.state.iter():
        expected = replay.pop(row.path, None)
        if expected != (row.hash, row.mode):
            yield row.path, expected, (row.hash, row.mode)
    for path, expected in replay.items():
        yield path, expected, None
