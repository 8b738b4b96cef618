"""The ledger's check records (``checks/*.check``), read straight from disk (written no more).

The local index holds none of them. They are few (one per ``snapline guard``), small,
never part of a snapshot's chain, and a new one must not make every clone rebuild its
index, so readers list the folder and parse each file when asked (``log``, ``show``,
the review page, ``guard --rollback``), and ``verify`` reads each one back.
"""

from __future__ import annotations

from snapline.store.ledger.check_format import (
    CheckRecord,
    parse_check,
    parse_check_name,
)
from snapline.store.ledger.files import CHECKS, Ledger, read_as_store

__all__ = ["MAX_CHECK_BYTES", "CheckLog"]

MAX_CHECK_BYTES = 1 << 20
"""No check record is larger (a command line of a mebibyte is not a check)."""


class CheckLog:
    """The check records of one ledger.

    Args:
        ledger: The ledger.
    """

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def all(self) -> list[tuple[str, CheckRecord]]:
        """Every check record with its file name, by name (the time it was written).

        Raises:
            StoreCorruptError: If a record is damaged; it is named.
        """
        return [(name, self.read(name)) for name in self._ledger.names(CHECKS)]

    def read(self, name: str) -> CheckRecord:
        """Parse one check record.

        Raises:
            StoreCorruptError: If it cannot be read or is not a valid check record.
        """
        location = self._ledger.file(CHECKS, name)
        with read_as_store(location, "check record"):
            parse_check_name(name)
            return parse_check(self._ledger.read(CHECKS, name, MAX_CHECK_BYTES))
