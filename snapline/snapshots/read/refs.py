"""Snapshot references: a number, ``latest``, ``latest~N``, ``before-prompt:N@SESSION``.

``latest~N`` is N snapshots before the latest; ``before-prompt:N@SESSION`` the state an
agent conversation stood on before its prompt N (:mod:`snapline.snapshots.read.prompts`).
Every place that takes a snapshot number (the library and the CLI) resolves it here,
so the syntax and its errors are the same everywhere: a malformed reference is a
usage error (:class:`SnapshotRefError`), a well-formed one outside the history is
:class:`~snapline.snapshots.read.history.SnapshotNotFoundError`.
"""

from __future__ import annotations

import re

from snapline.errors import SnaplineError
from snapline.snapshots.read.history import SnapshotNotFoundError
from snapline.snapshots.read.snapshots import latest_number
from snapline.store import StoreReader

__all__ = ["LATEST", "SnapshotRef", "SnapshotRefError", "number_of", "offset", "resolve"]

LATEST = "latest"
"""The name of the latest snapshot."""

SnapshotRef = int | str
"""A snapshot as callers name it: ``12``, ``"12"``, ``"latest"``, ``"latest~2"`` or
``"before-prompt:3@SESSION"``."""

_REF = re.compile(r"(?:(?P<number>\d+)|latest(?:~(?P<back>\d+))?)")


class SnapshotRefError(SnaplineError):
    """A snapshot reference that is not a number, ``latest`` or ``latest~N``.

    Attributes:
        ref: The reference as given.
    """

    exit_code = 2

    def __init__(self, ref: object) -> None:
        """Describe a malformed reference.

        Args:
            ref: The reference as given.
        """
        self.ref = ref
        super().__init__(
            f"{ref!r} is not a snapshot: give a number (12), 'latest', 'latest~N' "
            "(N snapshots before the latest), or 'before-prompt:N@SESSION'"
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
        ref: A number, ``"latest"``, ``"latest~N"`` or ``"before-prompt:N[@SESSION]"``.

    Returns:
        A number from 0 to the latest.

    Raises:
        SnapshotRefError: If ``ref`` is malformed.
        SnapshotNotFoundError: If it names a snapshot outside the history.
        PromptNotFoundError: If a prompt reference names no recorded prompt.
    """
    latest = latest_number(store)
    if isinstance(ref, str) and ref.strip().startswith("before-prompt:"):
        from snapline.snapshots.read.prompts import before_prompt

        return before_prompt(store, ref, latest)
    return resolve(ref, latest)
