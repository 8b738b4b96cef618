"""The verify checkpoint: what a full check found sound, so the next check starts there.

A full ``verify`` reads every ledger file back and walks the whole history. When it
finds nothing wrong, it keeps (in the local index, never in the ledger) the main line's
head it reached and an ``lstat`` stamp of every ledger file it read. The next ``verify``
stamps the ledger again: files whose stamp is unchanged are the files already checked;
new files and the snapshots after the head are checked now. A changed or missing file,
or a head that is not in the index any more, sends the check back to the whole history.

The checkpoint is emptied with the rest of the index whenever the index is rebuilt (a
branch switched, a merge, a fresh clone), so a history that arrived from elsewhere is
always checked in full. See docs/ci.md.
"""

from __future__ import annotations

import os

from snapline import atomic
from snapline.store.ledger.files import KINDS, OBJECTS, Ledger
from snapline.store.rows import Checkpoint, FileStamp
from snapline.store.table import Table

__all__ = ["CheckpointTable", "stamp_ledger"]

_TABLE = """
CREATE TABLE IF NOT EXISTS verified (
    name     TEXT PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    ino      INTEGER NOT NULL
) WITHOUT ROWID
"""
_HEAD_KEY = "verified_head"


def stamp_ledger(ledger: Ledger) -> dict[str, FileStamp]:
    """An ``lstat`` stamp of every file of the ledger's history, by path under the ledger.

    Records (snapshots, milestones, forget records) and objects; not the ledger's
    ``FORMAT`` and ``config.json``, which every command reads and checks anyway.
    """
    stamps: dict[str, FileStamp] = {}
    for kind in KINDS:
        _stamp_directory(ledger.path / kind, kind, stamps)
    try:
        fans = list(os.scandir(ledger.path / OBJECTS))
    except (FileNotFoundError, NotADirectoryError):
        fans = []
    for fan in fans:
        if fan.is_dir(follow_symlinks=False):
            _stamp_directory(fan.path, f"{OBJECTS}/{fan.name}", stamps)
    return stamps


def _stamp_directory(
    directory: str | os.PathLike[str], prefix: str, into: dict[str, FileStamp]
) -> None:
    try:
        entries = os.scandir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return
    with entries:
        for entry in entries:
            if atomic.is_temp_name(entry.name):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed while listed: it is missing, as if never seen
            into[f"{prefix}/{entry.name}"] = FileStamp(
                st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino
            )


class CheckpointTable(Table):
    """The checkpoint in the index: a head in ``meta`` and the stamps in ``verified``.

    An index written before checkpoints existed has no ``verified`` table: it reads as
    no checkpoint, and the table is made when the first one is kept.
    """

    def get(self) -> Checkpoint | None:
        """The checkpoint, or ``None`` when there is none (or it cannot be read)."""
        head = self._c.query("SELECT value FROM meta WHERE key = ?", (_HEAD_KEY,))
        if not head or not self._has_table():
            return None
        fields = str(head[0][0]).split(" ")
        if len(fields) != 3 or not fields[0].isdigit():
            return None  # not ours: no checkpoint, so the next check is the full one
        number, id_, chain_hash = fields
        rows = self._c.query("SELECT name, size, mtime_ns, ctime_ns, ino FROM verified")
        # As SQLite gives them: a value of another type (an index edited by hand)
        # compares unequal to the ledger's stamp, and the check is the whole one.
        make = FileStamp._make
        stamps = {str(row[0]): make(row[1:]) for row in rows}
        return Checkpoint(int(number), id_, chain_hash, stamps)

    def put(self, checkpoint: Checkpoint) -> None:
        """Replace the checkpoint; call inside ``write()``."""
        self._c.require_transaction()
        db = self._c.db
        db.execute(_TABLE)
        db.execute("DELETE FROM verified")
        db.executemany(
            "INSERT INTO verified VALUES (?, ?, ?, ?, ?)",
            [
                (name, s.size, s.mtime_ns, s.ctime_ns, s.ino)
                for name, s in checkpoint.stamps.items()
            ],
        )
        head = f"{checkpoint.number} {checkpoint.id} {checkpoint.chain_hash}"
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_HEAD_KEY, head))

    def clear(self) -> None:
        """Drop the checkpoint (the index is being rebuilt); call inside ``write()``."""
        self._c.require_transaction()
        self._c.db.execute("DELETE FROM meta WHERE key = ?", (_HEAD_KEY,))
        if self._has_table():
            self._c.db.execute("DELETE FROM verified")

    def _has_table(self) -> bool:
        return bool(self._c.query("SELECT 1 FROM sqlite_master WHERE name = 'verified'"))
