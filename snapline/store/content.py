"""The ``blobs`` table: packed full contents, addressed by their hash."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from snapline.store.table import Table

__all__ = ["BlobTable"]

_BATCH = 500
"""Hashes per ``IN (...)`` query: well under SQLite's bound on parameters."""
# A content kept by reference (snapline.content.git_reference): length() reads no
# content, and only a reference is this short and starts with ``g``.
_REFERENCE = "length(data) <= 65 AND substr(data, 1, 1) = X'67'"


class BlobTable(Table):
    """Content-addressed blobs: each content is kept once, however often it recurs."""

    def put(self, hash_: str, size: int, packed: bytes) -> bool:
        """Store packed content under its hash unless present; call inside ``write()``.

        Args:
            hash_: The hash of the unpacked content.
            size: The unpacked size, in bytes.
            packed: The packed (compressed) content.

        Returns:
            Whether it was new.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        cursor = self._c.db.execute(
            "INSERT OR IGNORE INTO blobs(hash, size, data) VALUES (?, ?, ?)",
            (hash_, size, packed),
        )
        return cursor.rowcount == 1

    def put_many(self, blobs: Sequence[tuple[str, int, bytes]]) -> None:
        """Store many ``(hash, size, packed)`` blobs at once, skipping those present.

        Args:
            blobs: The blobs, as :meth:`put` takes them.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        self._c.db.executemany(
            "INSERT OR IGNORE INTO blobs(hash, size, data) VALUES (?, ?, ?)", blobs
        )

    def has(self, hash_: str) -> bool:
        """Whether a blob with this hash is stored (a subclass may widen it: see :meth:`kept`).

        Args:
            hash_: The content hash.
        """
        return bool(self._c.query("SELECT 1 FROM blobs WHERE hash = ?", (hash_,)))

    def kept(self, hash_: str) -> bool:
        """Whether this table keeps the content: what a new change may name without storing it.

        Unlike :meth:`has`, which a subclass may widen to content read for this process
        only (another line's versions), this is the table alone.

        Args:
            hash_: The content hash.
        """
        return bool(self._c.query("SELECT 1 FROM blobs WHERE hash = ?", (hash_,)))

    def present(self, hashes: Iterable[str]) -> set[str]:
        """Which of ``hashes`` are stored, asked in a few queries rather than one each.

        Args:
            hashes: Content hashes.

        Returns:
            Those with a blob.
        """
        wanted = list(dict.fromkeys(hashes))
        found: set[str] = set()
        for start in range(0, len(wanted), _BATCH):
            batch = wanted[start : start + _BATCH]
            marks = ",".join("?" * len(batch))
            rows = self._c.query(f"SELECT hash FROM blobs WHERE hash IN ({marks})", batch)
            found.update(row[0] for row in rows)
        return found

    def referenced_by(self, hashes: Iterable[str]) -> dict[str, str]:
        """Of ``hashes``, those kept by reference, with the blob id each names."""
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, str] = {}
        for start in range(0, len(wanted), _BATCH):
            batch = wanted[start : start + _BATCH]
            marks = ",".join("?" * len(batch))
            rows = self._c.query(
                f"SELECT hash, data FROM blobs WHERE hash IN ({marks}) AND {_REFERENCE}", batch
            )
            found.update(
                (hash_, bytes(data)[1:].decode("ascii", "replace")) for hash_, data in rows
            )
        return found

    def get(self, hash_: str) -> bytes | None:
        """The packed content stored under ``hash_``, or ``None``.

        Args:
            hash_: The content hash.
        """
        rows = self._c.query("SELECT data FROM blobs WHERE hash = ?", (hash_,))
        return bytes(rows[0][0]) if rows else None

    def hashes(self) -> list[str]:
        """The hash of every stored blob."""
        return [row[0] for row in self._c.query("SELECT hash FROM blobs")]

    def iter(self) -> Iterator[tuple[str, int, bytes]]:
        """Every stored blob as ``(hash, size, packed)``, streamed.

        Yields:
            The blobs.
        """
        for hash_, size, data in self._c.stream("SELECT hash, size, data FROM blobs"):
            yield hash_, size, bytes(data)

    def references(self) -> Iterator[tuple[str, int, bytes]]:
        """Every blob kept by reference (in git's object database), streamed, as stored.

        The store that keeps them resolves them (``store/refs/otherlines.py``); in a
        store of its own content there are none.

        Yields:
            ``(hash, size, packed)``.
        """
        query = f"SELECT hash, size, data FROM blobs WHERE {_REFERENCE}"
        for hash_, size, data in self._c.stream(query):
            yield hash_, size, bytes(data)

    def referenced(self) -> set[str]:
        """The hash of every blob that a recorded change refers to or results in.

        A blob holding the result of a change stored as a delta is a whole copy of a
        recorded version (``snapline forget`` keeps the version after a forgotten one
        that way): rebuilding starts from it, so it is not garbage.
        """
        rows = self._c.query(
            "SELECT content FROM changes WHERE content IS NOT NULL "
            "UNION SELECT result_hash FROM changes WHERE result_hash IN (SELECT hash FROM blobs)"
        )
        return {row[0] for row in rows}

    def delete(self, hashes: Iterable[str]) -> int:
        """Delete blobs (those nothing refers to); call inside ``write()``.

        Args:
            hashes: The hashes to delete; absent ones are ignored.

        Returns:
            The packed bytes freed.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        freed = 0
        for hash_ in hashes:
            rows = self._c.db.execute(
                "SELECT length(data) FROM blobs WHERE hash = ?", (hash_,)
            ).fetchall()
            if rows:
                freed += int(rows[0][0])
                self._c.db.execute("DELETE FROM blobs WHERE hash = ?", (hash_,))
        return freed
