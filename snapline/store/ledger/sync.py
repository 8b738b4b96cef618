"""Bringing the local index up to the ledger: after a pull, a merge, a clone, a crash.

The index records the names of the ledger files it holds. When the ledger has exactly
those, nothing happens (one directory listing per kind). When it only has new snapshots
that continue the main line (another clone's work pulled in, or a commit whose index
transaction was lost), they are added. Anything else — files gone (a branch switched),
two lines (a merge of branches), no index at all (a fresh clone) — rebuilds the index
from the ledger in one transaction.

A rebuild parses every ledger file, sets orphans aside (``orphans.py``), checks the
links between snapshots and picks the main line: the only line, or, when the history
has several heads, the line of the branch git merged into (``gitview.py``), else the
line holding the index's latest snapshot (this clone's own), else the longest (ties by
id). The other lines go into ``side_snapshots``; a merge snapshot on the main line
marks the lines it joined. Content comes from the ledger's objects, and the baseline's
from the workspace, where it still is.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from snapline.crashpoints import crash_point
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.agreement import in_step
from snapline.store.ledger.files import (
    FORGOTTEN,
    MILESTONES,
    SNAPSHOTS,
    Ledger,
    read_as_store,
)
from snapline.store.ledger.format import (
    SnapshotRecord,
    parse_snapshot_lines,
    parse_snapshot_name,
    snapshot_name,
)
from snapline.store.ledger.gitview import (
    first_parent_for_milestones,
    main_preference,
    milestones_collide,
)
from snapline.store.ledger.milestone_import import import_milestones, read_milestone
from snapline.store.ledger.orphans import find_orphans
from snapline.store.ledger.store import LedgerStore
from snapline.store.ledger.tables import clear_history
from snapline.store.rows import FileStamp, SideRow

__all__ = [
    "MAX_RECORD_BYTES",
    "Lines",
    "catch_up",
    "needs_catch_up",
    "read_milestone",
    "read_snapshot",
]

MAX_RECORD_BYTES = 1 << 30
"""No snapshot file is larger (a 100k-file baseline is about 15 MB)."""

Progress = Callable[[int, int], None]


def needs_catch_up(store: LedgerStore) -> bool:
    """Whether the ledger and the index differ, or a forget has left the index to clean."""
    return not in_step(store) or store.forget_cleanup.pending()


def catch_up(store: LedgerStore, root: Path, progress: Progress | None = None) -> bool:
    """Bring the index up to the ledger; call holding the writer lock.

    Args:
        store: The open store.
        root: The workspace root (the baseline's content is read from it).
        progress: Called as ``progress(done, total)`` while a rebuild imports snapshots.

    Returns:
        Whether anything changed.

    Raises:
        StoreCorruptError: If a ledger file is damaged, crafted, or missing from the
            middle of the history; the message names the file.
    """
    if in_step(store):
        if not store.forget_cleanup.pending():
            return False
        _secure(store)  # a process was killed before cleaning after a forget
        return True
    on_disk = _on_disk(store.ledger)
    known = store.names.all()
    store.ledger.parsed.clear()
    # An empty index (a fresh clone, a deleted index) is filled in bulk: its pages go
    # straight into the file rather than through the WAL (Connection.bulk_write).
    writing = store.index.write() if known else store.index.connection.bulk_write()
    with writing:
        if known <= on_disk and _extend(store, root, sorted(on_disk - known)):
            return True
        _rebuild(store, root, on_disk, progress)
    if store.forget_cleanup.pending():
        crash_point("forget-indexed")
        _secure(store)
    return True


def _secure(store: LedgerStore) -> None:
    from snapline.store.ledger.forgetting import secure_index  # it reads through this module

    secure_index(store)


def read_snapshot(ledger: Ledger, name: str, *, keep: bool = False) -> SnapshotRecord:
    """Parse one snapshot file, checking that its name matches what it holds.

    A file parsed earlier in this process and unchanged since (same ``lstat`` stamp)
    is not parsed again: a fresh clone's first ``verify`` reads every file that its
    catch-up has just read. See :attr:`Ledger.parsed`.

    Args:
        ledger: The ledger.
        name: The file's name.
        keep: Keep the parsed record for the next reader of the same file.

    Raises:
        StoreCorruptError: If it cannot be read or is not a valid snapshot file.
    """
    location = ledger.file(SNAPSHOTS, name)
    stamp = _stamp(location)
    kept = ledger.parsed.get(name)
    if kept is not None and stamp is not None and kept[0] == stamp:
        return kept[1]
    record = _parse_snapshot_file(ledger, name, location)
    if keep and stamp is not None:
        ledger.parsed[name] = (stamp, record)
    return record


def _stamp(location: Path) -> FileStamp | None:
    try:
        st = os.lstat(location)
    except OSError:
        return None  # the read says what is wrong
    return FileStamp(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _parse_snapshot_file(ledger: Ledger, name: str, location: Path) -> SnapshotRecord:
    with read_as_store(location, "snapshot file"):
        number, id_ = parse_snapshot_name(name)
        with contextlib.closing(ledger.lines_at(location, MAX_RECORD_BYTES)) as lines:
            record = parse_snapshot_lines(lines)
    if (record.row.number, record.row.id) != (number, id_):
        raise StoreCorruptError(
            location,
            f"holds snapshot {record.row.number} ({record.row.id}), not what its name says",
        )
    return record


# -- lines -------------------------------------------------------------------------


class Lines(NamedTuple):
    """The snapshots of a ledger split into the main line and the others.

    Attributes:
        main: The main line, snapshot 0 first.
        side: Every other snapshot.
        merged_into: For each side snapshot id, the number of the main-line merge
            snapshot that joined it (absent: not joined yet).
    """

    main: list[SnapshotRecord]
    side: list[SnapshotRecord]
    merged_into: dict[str, int]


def split_lines(records: Sequence[SnapshotRecord], ledger: Ledger, preferred: str | None) -> Lines:
    """Check the links between snapshots and split them into lines.

    Args:
        records: Every snapshot in the ledger.
        ledger: The ledger (to name files in messages).
        preferred: The id of a snapshot whose line should be the main one.

    Raises:
        StoreCorruptError: If ids repeat, a parent or joined head is missing, numbers
            do not follow their parents, or there is no single snapshot 0.
    """
    by_id: dict[str, SnapshotRecord] = {}
    for record in records:
        row = record.row
        if row.id in by_id:
            raise StoreCorruptError(_file(ledger, row.number, row.id), "its id is used twice")
        by_id[row.id] = record
    roots = [r for r in records if r.row.number == 0]
    if len(roots) != 1:
        raise StoreCorruptError(
            ledger.path / SNAPSHOTS, f"{len(roots)} baselines (snapshot 0), not one"
        )
    children: set[str] = set()
    for record in records:
        row = record.row
        if row.number == 0:
            continue
        parent = by_id.get(row.parent_id or "")
        if parent is None:
            raise StoreCorruptError(
                _file(ledger, row.number, row.id),
                f"its parent {row.parent_id} is not in the ledger: snapshot {row.number - 1} "
                "is missing (restore it from git)",
            )
        if parent.row.number != row.number - 1:
            raise StoreCorruptError(
                _file(ledger, row.number, row.id),
                f"its parent is snapshot {parent.row.number}, not {row.number - 1}",
            )
        children.add(parent.row.id)
        for joined in json.loads(row.merges):
            if joined not in by_id:
                raise StoreCorruptError(
                    _file(ledger, row.number, row.id),
                    f"it joins {joined}, which is not in the ledger",
                )
            children.add(joined)
    heads = [r for r in records if r.row.id not in children]
    main_ids = _pick_main(heads, by_id, preferred)
    main = sorted((by_id[i] for i in main_ids), key=lambda r: r.row.number)
    merged_into: dict[str, int] = {}
    for record in main:
        for joined in json.loads(record.row.merges):
            current = by_id.get(joined)
            while current is not None and current.row.id not in main_ids:
                merged_into.setdefault(current.row.id, record.row.number)
                current = by_id.get(current.row.parent_id or "")
    side = [r for r in records if r.row.id not in main_ids]
    return Lines(main=main, side=side, merged_into=merged_into)


def _pick_main(
    heads: list[SnapshotRecord], by_id: dict[str, SnapshotRecord], preferred: str | None
) -> set[str]:
    def ancestry(head: SnapshotRecord) -> set[str]:
        ids = set()
        current: SnapshotRecord | None = head
        while current is not None:
            ids.add(current.row.id)
            current = by_id.get(current.row.parent_id or "")
        return ancestry_cache.setdefault(head.row.id, ids)

    ancestry_cache: dict[str, set[str]] = {}
    if preferred is not None:
        for head in sorted(heads, key=lambda r: (-r.row.number, r.row.id)):
            if preferred in ancestry(head):
                return ancestry(head)
    best = min(heads, key=lambda r: (-r.row.number, r.row.id))
    return ancestry(best)


# -- catching up -------------------------------------------------------------------


def _on_disk(ledger: Ledger) -> set[str]:
    # A forget pulled from elsewhere rewrote snapshot files: its new record makes the
    # listings differ, and the index is rebuilt.
    return (
        set(ledger.names(SNAPSHOTS)) | set(ledger.names(MILESTONES)) | set(ledger.names(FORGOTTEN))
    )


def _extend(store: LedgerStore, root: Path, added: list[str]) -> bool:
    """Import new files that continue the main line; ``False`` when they do not."""
    # Imported here: most processes find nothing new, and never need them (issue 16).
    from snapline.store.ledger.importing import import_snapshots

    snapshot_names = [n for n in added if n.endswith(".snap")]
    milestone_names = [n for n in added if n.endswith(".mile")]
    if len(snapshot_names) + len(milestone_names) != len(added):
        return False  # a forget: snapshot files were rewritten
    if store.unmerged_heads():
        return False
    records = [read_snapshot(store.ledger, n, keep=True) for n in snapshot_names]
    records.sort(key=lambda r: r.row.number)
    latest = store.index.snapshots.latest_number()
    head = store.index.snapshots.get(latest) if latest is not None else None
    for record in records:
        expected_parent = head.id if head is not None else None
        expected_number = head.number + 1 if head is not None else 0
        if (record.row.parent_id, record.row.number) != (expected_parent, expected_number):
            return False
        if json.loads(record.row.merges):
            return False
        head = record.row
    forgotten = store.forgotten.hashes()
    if forgotten and any(
        {c.base_hash, c.result_hash} & forgotten for r in records for c in r.changes
    ):
        return False  # a forget reaches them: the rebuild applies it (forgetting.py)
    import_snapshots(store, root, records)
    milestones = [(n, read_milestone(store.ledger, n)) for n in milestone_names]
    import_milestones(store, milestones, first_parent_for_milestones(root, milestone_names))
    store.names.add(added)
    return True


def _rebuild(store: LedgerStore, root: Path, on_disk: set[str], progress: Progress | None) -> None:
    from snapline.store.ledger.forget_format import FORGET_SUFFIX
    from snapline.store.ledger.forgetting import finish_forgets
    from snapline.store.ledger.forgotten import import_forgets
    from snapline.store.ledger.importing import import_content, import_objects, import_snapshots

    latest = store.index.snapshots.latest_number()
    before = store.index.snapshots.get(latest) if latest is not None else None
    records = []
    names = sorted(n for n in on_disk if n.endswith(".snap"))
    for name in names:
        records.append(read_snapshot(store.ledger, name, keep=True))
    forgets = sorted(n for n in on_disk if n.endswith(FORGET_SUFFIX))
    records, cleanup = finish_forgets(store, records, forgets)
    orphans = find_orphans(records, root)
    if orphans:
        records = [r for r in records if r.row.id not in orphans]
    mile_names = sorted(n for n in on_disk if n.endswith(".mile"))
    preferred, first_parent = main_preference(
        records,
        root,
        before.id if before else None,
        milestones_collide=milestones_collide(mile_names),
    )
    lines = split_lines(records, store.ledger, preferred)
    clear_history(store.index.connection)
    store.orphans.set((r.row.number, r.row.id) for r in orphans.values())
    import_snapshots(store, root, lines.main, progress)
    store.side.add(
        SideRow(
            id=r.row.id, number=r.row.number, parent_id=r.row.parent_id, time=r.row.time,
            tool=r.row.tool, description=r.row.description, session=r.row.session,
            merged_into=lines.merged_into.get(r.row.id),
        )
        for r in lines.side
    )  # fmt: skip
    import_content(store, root, lines.side)
    milestones = [(n, read_milestone(store.ledger, n)) for n in mile_names]
    import_milestones(store, milestones, first_parent)
    import_objects(store, import_forgets(store, forgets))
    store.names.add(on_disk)
    store.forget_cleanup.set(cleanup)


def _file(ledger: Ledger, number: int, id_: str) -> Path:
    return ledger.file(SNAPSHOTS, snapshot_name(number, id_))
