"""The index's marks: the commit each ref was at when the index last held all it holds.

A mark is written in the same index transaction as the rows it stands for (a publish
or a catch-up), so it always names the commit of the index's latest snapshot (or
milestone) on that ref. A writer compares the ref with its mark, not the tip's record
with the index (a baseline's record is the size of the whole tree); a catch-up reads
only what follows the mark (``read_line(after=...)``). Kept in the index's ``meta``
table, as the ledger store keeps its own keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from snapline.store.ledger.fields import is_id
from snapline.store.refs.layout import FORGETS
from snapline.store.table import Table

if TYPE_CHECKING:
    from snapline.store.refs.git import GitRepository

__all__ = ["BEHIND", "FOLLOWED", "PIN", "MarkTable", "forget_tips"]

PIN = "checkout"
"""The key of a work tree's pin: the snapshot its checkout is (:mod:`.pinning`)."""
FOLLOWED = "followed"
"""The key of the line a work tree without its own follows (:mod:`.pinning`)."""
BEHIND = "behind"
"""The key of the snapshot a clone's checkout is, and HEAD's tree then (:mod:`.pinning`)."""

_PREFIX = "refs-mark "


class MarkTable(Table):
    """The marks of the refs this index mirrors, by ref name."""

    def get(self, ref: str) -> str | None:
        """The commit ``ref`` was at when the index last held it, or ``None``."""
        rows = self._c.query("SELECT value FROM meta WHERE key = ?", (_PREFIX + ref,))
        return str(rows[0][0]) if rows else None

    def differ(self, tips: Mapping[str, str | None]) -> bool:
        """Whether any ref of ``tips`` (its name, its commit) is not at its mark."""
        return any(self.get(ref) != tip for ref, tip in tips.items())

    def put(self, ref: str, commit: str) -> None:
        """Set the mark of ``ref``; call inside ``write()``, with the rows it stands for."""
        self._c.require_transaction()
        # A mark already at ``commit`` is left alone: every record's catch-up puts the
        # marks again, and a row rewritten with its own value still dirties a page, so
        # the commit appended it to the log and synced it (one fsync per record for
        # nothing, measured in row R8).
        self._c.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
            "SET value = excluded.value WHERE value IS NOT excluded.value",
            (_PREFIX + ref, commit),
        )

    def drop(self, ref: str) -> None:
        """Remove the mark of ``ref``; call inside ``write()``."""
        self._c.require_transaction()
        self._c.db.execute("DELETE FROM meta WHERE key = ?", (_PREFIX + ref,))


def forget_tips(repo: GitRepository) -> dict[str, str]:
    """Every forget's ref and its commit (one listing; none: an empty dict).

    A ref under ``refs/snapline/forgets/`` not named by an id is no forget snapline
    wrote (:func:`~snapline.store.refs.forgetting.read_forgets` leaves it out), so it
    never makes an index stale.
    """
    found = repo.refs(FORGETS)
    return {ref: commit for ref, commit in found.items() if is_id(ref.removeprefix(FORGETS))}
