"""``id:PREFIX``: any snapshot, on any line, by the first hex digits of its id.

Numbers name the main line's snapshots. After a git merge of two branches that both
recorded, the other branch's snapshots keep their files and their ids but share numbers
with the main line (docs/format.md, "Lines and merges"); an id names one of them
wherever a snapshot is taken, as a short commit id does in git. ``PREFIX`` is at least
:data:`MIN_PREFIX` hex digits of the id (any case) and must match one snapshot only.
"""

from __future__ import annotations

import re

from snapline.errors import SnaplineError
from snapline.store import SideRow, StoreReader

__all__ = ["ID_PREFIX", "MIN_PREFIX", "SnapshotIdError", "find_by_id", "id_ref", "is_id_ref"]

ID_PREFIX = "id:"
"""How an id reference starts."""

MIN_PREFIX = 4
"""The fewest hex digits an id reference takes (as git's shortest commit id)."""

_ID_REF = re.compile(rf"id:(?P<prefix>[0-9a-fA-F]{{{MIN_PREFIX},32}})")

_MAX_NAMED = 5


class SnapshotIdError(SnaplineError):
    """An id reference that names no snapshot of this checkout, or several.

    Attributes:
        ref: The reference as given.
        candidates: ``(number, id, where)`` of each snapshot whose id starts with the
            prefix, ``where`` being ``main``, ``line`` (another line) or ``orphaned``;
            empty when none does.
    """

    exit_code = 1

    def __init__(self, ref: str, candidates: list[tuple[int, str, str]]) -> None:
        self.ref = ref
        self.candidates = tuple(candidates)
        usable = [c for c in candidates if c[2] != "orphaned"]
        if len(usable) > 1:
            named = ", ".join(_describe(*c) for c in usable[:_MAX_NAMED])
            more = f" and {len(usable) - _MAX_NAMED} more" if len(usable) > _MAX_NAMED else ""
            detail = f"is ambiguous: {named}{more}; give more digits of the id"
        elif candidates:
            number, id_, _ = candidates[0]
            detail = (
                f"is snapshot {number} ({id_}), an orphaned snapshot file whose parent is not "
                "in this checkout: check out the branch it was recorded on"
            )
        else:
            detail = (
                "names no snapshot: `snapline log` lists the ids (a joined line's "
                "snapshots under the merge that joined it)"
            )
        super().__init__(f"{ref.strip()!r} {detail}")


def is_id_ref(ref: object) -> bool:
    """Whether ``ref`` is written as an id reference (well-formed or not)."""
    return isinstance(ref, str) and ref.strip().lower().startswith(ID_PREFIX)


def id_ref(id_: str, digits: int = 12) -> str:
    """The reference that names snapshot ``id_``: ``id:`` and its first ``digits`` digits."""
    return ID_PREFIX + id_[:digits]


def find_by_id(store: StoreReader, ref: str) -> int | SideRow:
    """The snapshot an ``id:PREFIX`` reference names.

    Args:
        store: The open store.
        ref: The reference.

    Returns:
        Its number when it is on the main line, else its row on another line.

    Raises:
        SnapshotRefError: If ``ref`` is malformed (not hex, or too short).
        SnapshotIdError: If no snapshot's id starts with the prefix, or several do.
    """
    from snapline.snapshots.read.refs import SnapshotRefError

    match = _ID_REF.fullmatch(ref.strip())
    if match is None:
        raise SnapshotRefError(ref)
    prefix = match["prefix"].lower()
    with store.read():
        main = store.snapshots.with_id_prefix(prefix, _MAX_NAMED + 1)
        side = [row for row in store.side_snapshots() if row.id.startswith(prefix)]
        if not main and not side:
            # On git's refs: another writer's line, read only when asked (every line).
            side = store.snapshots_elsewhere(prefix)
        found: list[tuple[int, str, str]] = [(row.number, row.id, "main") for row in main]
        found += [(row.number, row.id, "line") for row in side]
        if len(found) == 1:
            return main[0].number if main else side[0]
        if not found:
            orphans = [(n, i, "orphaned") for n, i in store.orphan_snapshots()]
            found = [c for c in orphans if c[1].startswith(prefix)]
    raise SnapshotIdError(ref, found)


def _describe(number: int, id_: str, where: str) -> str:
    line = "main line" if where == "main" else "another line"
    return f"snapshot {number} ({id_ref(id_)}, {line})"
