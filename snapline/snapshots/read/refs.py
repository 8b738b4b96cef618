"""Snapshot references: a number, ``latest``, ``latest~N``, ``before-prompt:N@S``, ``id:PREFIX``.

``latest~N`` is N snapshots before the latest; ``before-prompt:N@SESSION`` the state an
agent conversation stood on before its prompt N (:mod:`snapline.snapshots.read.prompts`);
``id:PREFIX`` the snapshot whose id starts with PREFIX, on any line
(:mod:`snapline.snapshots.read.ids`). Every place that takes a snapshot number (the
library and the CLI) resolves it here, so the syntax and its errors are the same
everywhere: a malformed reference is a usage error (:class:`SnapshotRefError`), a
well-formed one outside the history is
:class:`~snapline.snapshots.read.history.SnapshotNotFoundError`. Places that read the
history take a snapshot of another line too (:func:`locate`); those that only make
sense on the main line refuse one (:class:`SideSnapshotError`).
"""

from __future__ import annotations

import re

from snapline.errors import SnaplineError
from snapline.snapshots.read.history import SnapshotNotFoundError
from snapline.snapshots.read.ids import find_by_id, is_id_ref
from snapline.snapshots.read.snapshots import latest_number
from snapline.store import SideRow, StoreReader

__all__ = [
    "LATEST",
    "SideSnapshotError",
    "SnapshotRef",
    "SnapshotRefError",
    "locate",
    "number_of",
    "offset",
    "resolve",
]

LATEST = "latest"
"""The name of the latest snapshot."""

SnapshotRef = int | str
"""A snapshot as callers name it: ``12``, ``"12"``, ``"latest"``, ``"latest~2"`` or
``"before-prompt:3@SESSION"`` or ``"id:3f2a9c0b"``."""

_REF = re.compile(r"(?:(?P<number>\d+)|latest(?:~(?P<back>\d+))?)")


class SnapshotRefError(SnaplineError):
    """A snapshot reference that is not a number, ``latest``, ``latest~N`` or another spelling.

    Attributes:
        ref: The reference as given.
    """

    exit_code = 2
    ref: object

    def _message(self) -> str:
        return (
            f"{self.ref!r} is not a snapshot: give a number (12), 'latest', 'latest~N' "
            "(N snapshots before the latest), 'before-prompt:N@SESSION', or 'id:PREFIX' "
            "(at least 4 hex digits of a snapshot's id)"
        )


class SideSnapshotError(SnaplineError):
    """A snapshot of another line where only the main line's are taken.

    Attributes:
        ref: The reference as given.
        side: The snapshot it names.
    """

    exit_code = 1
    ref: object
    side: SideRow

    def _message(self) -> str:
        side = self.side
        where = (
            f"joined by snapshot {side.merged_into}"
            if side.merged_into is not None
            else "not joined yet: run `snapline merge`"
        )
        return (
            f"{self.ref!r} is snapshot {side.number} of another line ({where}), and this "
            "takes a snapshot of the main line; `show`, `diff`, `rollback`, `revert` and "
            "`branch` take it"
        )


def offset(ref: SnapshotRef, latest: int) -> int:
    """The number ``ref`` names, without checking that the history holds it.

    Args:
        ref: A number, ``"latest"`` or ``"latest~N"`` (surrounding spaces allowed).
        latest: The number of the latest snapshot.

    Returns:
        The snapshot number; negative or past ``latest`` when the reference points
        outside the history.

    Raises:
        SnapshotRefError: If ``ref`` is malformed (``True`` is never a number).
    """
    if isinstance(ref, bool):
        raise SnapshotRefError(ref)
    if isinstance(ref, int):
        return ref
    if not isinstance(ref, str):
        raise SnapshotRefError(ref)
    match = _REF.fullmatch(ref.strip())
    if match is None:
        raise SnapshotRefError(ref)
    if match["number"] is not None:
        return int(match["number"])
    return latest - int(match["back"] or 0)


def resolve(ref: SnapshotRef, latest: int) -> int:
    """The number of an existing snapshot that ``ref`` names.

    Args:
        ref: A number, ``"latest"`` or ``"latest~N"``.
        latest: The number of the latest snapshot.

    Returns:
        A number from 0 (the baseline) to ``latest``.

    Raises:
        SnapshotRefError: If ``ref`` is malformed.
        SnapshotNotFoundError: If it names a snapshot before 0 or after ``latest``.
    """
    number = offset(ref, latest)
    if not 0 <= number <= latest:
        raise SnapshotNotFoundError(number, latest)
    return number


def number_of(store: StoreReader, ref: SnapshotRef) -> int:
    """Resolve ``ref`` against the latest snapshot of ``store``.

    Args:
        store: The store to read the latest number from.
        ref: A number, ``"latest"``, ``"latest~N"``, ``"before-prompt:N[@SESSION]"`` or
            ``"id:PREFIX"`` of a main-line snapshot.

    Returns:
        A number from 0 to the latest.

    Raises:
        SnapshotRefError: If ``ref`` is malformed.
        SnapshotNotFoundError: If it names a snapshot outside the history.
        PromptNotFoundError: If a prompt reference names no recorded prompt.
        SnapshotIdError: If an id reference names no snapshot, or several.
        SideSnapshotError: If it names a snapshot of another line.
    """
    found = locate(store, ref)
    if isinstance(found, SideRow):
        raise SideSnapshotError(ref, found)
    return found


def locate(store: StoreReader, ref: SnapshotRef) -> int | SideRow:
    """Resolve ``ref`` on any line: a main-line number, or a snapshot of another line.

    Args:
        store: The store to read the history from.
        ref: As :func:`number_of` takes it; ``"id:PREFIX"`` may name a snapshot of
            another line (a branch merged in git).

    Returns:
        The number of a main-line snapshot, or the row of another line's.

    Raises:
        SnapshotRefError: If ``ref`` is malformed.
        SnapshotNotFoundError: If it names a snapshot outside the history.
        PromptNotFoundError: If a prompt reference names no recorded prompt.
        SnapshotIdError: If an id reference names no snapshot, or several.
    """
    if is_id_ref(ref):
        assert isinstance(ref, str)
        return find_by_id(store, ref)
    latest = latest_number(store)
    if isinstance(ref, str) and ref.strip().startswith("before-prompt:"):
        from snapline.snapshots.read.prompts import before_prompt

        return before_prompt(store, ref, latest)
    return resolve(ref, latest)
