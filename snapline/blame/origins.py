"""Who a snapshot was: its kind, tool, session, prompt and milestone, read once per snapshot."""

from __future__ import annotations

from snapline.blame.model import LineKind, Origin
from snapline.snapshots.info_fields import EXTERNAL_TOOL
from snapline.snapshots.read.prompts import prompt_of
from snapline.store import StoreReader

__all__ = ["Origins"]


class Origins:
    """The :class:`Origin` of each snapshot number asked for, cached for one read.

    Args:
        store: The history (read inside one ``store.read()`` view).
    """

    def __init__(self, store: StoreReader) -> None:
        self._store = store
        self._known: dict[int, Origin] = {}

    def of(self, number: int) -> Origin:
        """The origin of main-line snapshot ``number``.

        Raises:
            LookupError: If the history has no such snapshot (the store changed under it).
        """
        found = self._known.get(number)
        if found is None:
            found = self._known[number] = self._read(number)
        return found

    def _read(self, number: int) -> Origin:
        row = self._store.snapshots.get(number)
        if row is None:
            raise LookupError(f"snapshot {number} is not in the history")
        if number == 0:
            kind = LineKind.BASELINE
        elif row.tool == EXTERNAL_TOOL:
            kind = LineKind.PERSON
        else:
            kind = LineKind.AGENT
        stamp = prompt_of(row)
        milestone = self._store.milestones.containing(number)
        return Origin(
            kind,
            number=number,
            id=row.id,
            tool=row.tool,
            session=row.session,
            prompt=None if stamp is None else int(stamp["n"]),
            milestone=None if milestone is None else milestone.number,
            time=row.time,
        )
