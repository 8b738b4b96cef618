"""Refusing over drift: a file on disk differs from its known state.

Every writer that must start from the known state (``run``, ``guard``, ``track``, the
library's edits) refuses through :func:`ensure_in_sync`, whose error names the way out
for each path: ``snapline resync`` for an outside change, ``snapline merge`` for another
line's recorded work that git merged in (``snapshots/check/merged.py``). ``record``,
which adopts drift rather than refusing it, refuses only the latter, through
:func:`refuse_merged`.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.errors import SnaplineError

if TYPE_CHECKING:
    from snapline.snapshots.check.unfetched import Pulled
    from snapline.snapshots.record.detect import Detection, Drift
    from snapline.store import Store

__all__ = ["StateMismatchError", "ensure_in_sync", "refuse_merged"]


class StateMismatchError(SnaplineError):
    """A file on disk differs from its known state: it was changed outside snapline.

    On git's refs a drifted file may instead be another line's recorded work that git
    merged in (``unmerged``): its way out is ``snapline merge``, never ``resync``, and
    the message says so for those paths. One that commits git fetched brought before
    their history (``snapshots/check/unfetched.py``) says ``snapline fetch`` first.

    Attributes:
        path: The first file that differs (the first outside change, when there is one).
        expected: Its known hash (``None``: not tracked).
        actual: Its hash on disk (``None``: missing).
        paths: Every file that differs.
        unmerged: Those of ``paths`` that another line recorded and git merged in.
    """

    def __init__(
        self, drifts: list[Drift], unmerged: Collection[str] = (), came: Pulled | None = None
    ) -> None:
        outside = [d for d in drifts if d.path not in unmerged]
        first = (outside or drifts)[0]
        self.path = first.path
        self.expected = first.known.hash if first.known else None
        self.actual = first.disk.hash if first.disk else None
        self.paths = [d.path for d in drifts]
        self.unmerged = [d.path for d in drifts if d.path in unmerged]
        said = []
        if outside:
            more = f" (and {len(outside) - 1} more)" if len(outside) > 1 else ""
            fetch = ""
            if came is not None and self.path in came.paths:
                fetch = (
                    f"it came with commits git fetched {came.whence}: bring their "
                    f"snapshots with {came.fetch} first; if it still differs, "
                )
            said.append(
                f"{self.path} was changed outside snapline{more}: known state "
                f"{self.expected or 'untracked'}, disk {self.actual or 'missing'}; "
                f"{fetch}run `snapline resync` to record the outside change"
            )
        if self.unmerged:
            from snapline.snapshots.check.merged import merge_advice

            said.append(merge_advice(self.unmerged))
        super().__init__("; ".join(said) + ", then try again")


def ensure_in_sync(detection: Detection, root: Path, store: Store) -> None:
    """Raise :class:`StateMismatchError` when the detection found any drift.

    Args:
        detection: What was found.
        root: The workspace root.
        store: The open store, asked (only on drift) which paths another line recorded.

    Raises:
        StateMismatchError: If anything drifted; its ``unmerged`` names the paths git
            merged from another line (``snapshots/check/merged.py``), and its message
            names ``snapline fetch`` for paths that pulled commits brought
            (``snapshots/check/unfetched.py``).
        DamagedLineError: If, asked so, a line turns out damaged or crafted.
    """
    if detection.drifts:
        from snapline.snapshots.check.merged import unmerged_paths
        from snapline.snapshots.check.unfetched import pulled

        merged = unmerged_paths(root, store, [drift.path for drift in detection.drifts])
        outside = [drift.path for drift in detection.drifts if drift.path not in merged]
        raise StateMismatchError(detection.drifts, merged, pulled(root, store, outside))


def refuse_merged(drifts: list[Drift], root: Path, store: Store) -> None:
    """Raise :class:`StateMismatchError` when a drift to record is another line's merged work.

    ``record`` files what drifted into this writer's snapshot: another line's recorded
    work that git merged in would become this writer's edit, and ``snapline merge`` would
    find nothing to join. Only the paths :func:`~snapline.snapshots.check.merged.suspected`
    names (about nothing to find out in the common case) are asked the whole question.

    Args:
        drifts: What is about to be recorded.
        root: The workspace root.
        store: The open store.

    Raises:
        StateMismatchError: Naming only the paths another line recorded and git merged
            in (its ``unmerged``), with ``snapline merge`` as the way out.
        DamagedLineError: If, asked so, a line turns out damaged or crafted.
    """
    if not drifts:
        return
    from snapline.snapshots.check.merged import suspected, unmerged_paths

    written = {d.path: d.disk.content for d in drifts if d.disk is not None}
    deleted = [d.path for d in drifts if d.disk is None]
    suspects = suspected(store, written, deleted)
    if not suspects:
        return
    merged = unmerged_paths(root, store, suspects)
    if merged:
        raise StateMismatchError([d for d in drifts if d.path in merged], merged)
