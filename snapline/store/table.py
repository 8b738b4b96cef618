"""What every table of the store is: an object bound to the connection its store shares."""

from __future__ import annotations

from snapline.store.connection import Connection

__all__ = ["Table"]


class Table:
    """A table of the store (or of the index beside a history): its queries, one object.

    Each table reads and writes through the one connection of its store, so that all of
    them see the same transaction.
    """

    def __init__(self, connection: Connection) -> None:
        """Bind the table to the store's connection.

        Args:
            connection: The connection every table of the store shares.
        """
        self._c = connection
