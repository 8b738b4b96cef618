"""The index's own tables beside the history it mirrors: ledger names, other lines, orphans."""

from __future__ import annotations

import json
from collections.abc import Iterable

from snapline.store.connection import Connection
from snapline.store.rows import SideRow
from snapline.store.table import Table

__all__ = [
    "ForgetCleanup",
    "LedgerNameTable",
    "OrphanTable",
    "SideSnapshotTable",
    "clear_history",
]

_ORPHANS_KEY = "orphans"
_CLEANUP_KEY = "forget_cleanup"


class LedgerNameTable(Table):
    """The names of the ledger files the index holds, to notice files it does not."""

    def all(self) -> set[str]:
        """Every name."""
        return {str(row[0]) for row in self._c.query("SELECT name FROM ledger_files")}

    def add(self, names: Iterable[str]) -> None:
        """Add names; call inside ``write()``.

        The stamp of the listings that matched the names before is dropped with them
        (``listed.py``): it vouched for a listing without these.
        """
        self._c.require_transaction()
        from snapline.store.ledger.listed import ListedTable

        self._c.db.executemany(
            "INSERT OR IGNORE INTO ledger_files(name) VALUES (?)", [(n,) for n in names]
        )
        ListedTable(self._c).clear()


class SideSnapshotTable(Table):
    """Snapshots of other lines, by id."""

    def all(self) -> list[SideRow]:
        """Every side snapshot, by number then id."""
        rows = self._c.query("SELECT * FROM side_snapshots ORDER BY number, id")
        return [SideRow(*row) for row in rows]

    def add(self, rows: Iterable[SideRow]) -> None:
        """Insert side snapshots; call inside ``write()``."""
        self._c.require_transaction()
        self._c.db.executemany(
            "INSERT OR REPLACE INTO side_snapshots VALUES (?,?,?,?,?,?,?,?)",
            [
                (r.id, r.number, r.parent_id, r.time, r.tool, r.description, r.session,
                 r.merged_into)
                for r in rows
            ],
        )  # fmt: skip


class OrphanTable(Table):
    """Snapshot files whose parent is not in this checkout (left by a branch switch).

    Kept in ``meta`` as a JSON list of ``[number, id]``: a rebuild sets it, and the
    index holds their names in ``ledger_files`` so that they do not make every command
    rebuild again.
    """

    def all(self) -> list[tuple[int, str]]:
        """``(number, id)`` of every orphaned snapshot file, by number then id."""
        rows = self._c.query("SELECT value FROM meta WHERE key = ?", (_ORPHANS_KEY,))
        if not rows:
            return []
        try:
            found = json.loads(str(rows[0][0]))
            return sorted((int(number), str(id_)) for number, id_ in found)
        except (ValueError, TypeError):
            return []  # local and rebuilt with the index: never worth stopping for

    def set(self, orphans: Iterable[tuple[int, str]]) -> None:
        """Replace the list; call inside ``write()``."""
        self._c.require_transaction()
        self._c.db.execute("DELETE FROM meta WHERE key = ?", (_ORPHANS_KEY,))
        found = sorted(orphans)
        if found:
            self._c.db.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?)", (_ORPHANS_KEY, json.dumps(found))
            )


class ForgetCleanup(Table):
    """Whether a rebuild took in a forget whose index pages are still to be cleaned.

    Set in the rebuild's transaction, cleared once the index is vacuumed and its log
    truncated (``forgetting.secure_index``): a process killed in between leaves the
    flag for the next command (``meta``: ``forget_cleanup``).
    """

    def pending(self) -> bool:
        """Whether the cleanup is still to run."""
        return bool(self._c.query("SELECT 1 FROM meta WHERE key = ?", (_CLEANUP_KEY,)))

    def set(self, pending: bool) -> None:
        """Note or clear it; call inside ``write()``."""
        self._c.require_transaction()
        if pending:
            self._c.db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (_CLEANUP_KEY,)
            )
        else:
            self._c.db.execute("DELETE FROM meta WHERE key = ?", (_CLEANUP_KEY,))


def clear_history(connection: Connection) -> None:
    """Empty everything the index mirrors from the ledger, before rebuilding it.

    Blobs (checked by hash whenever used), the stat cache (trusted only for the hash
    the known state names) and the journal (work still to settle) stay.
    """
    # Lazy: they read the ledger's files, which every record asks ForgetCleanup
    # past on the refs (RefsStore.stale) and no record reads (issue 39).
    from snapline.store.ledger.checkpoint import CheckpointTable
    from snapline.store.ledger.listed import ListedTable

    connection.require_transaction()
    for table in (
        "changes",
        "snapshots",
        "state",
        "milestones",
        "side_snapshots",
        "ledger_files",
        "forgotten",
    ):
        connection.db.execute(f"DELETE FROM {table}")
    OrphanTable(connection).set(())
    ListedTable(connection).clear()
    # A rebuilt index holds a history from elsewhere: the next verify checks all of it.
    CheckpointTable(connection).clear()
