"""What rollback, revert and the history queries return: immutable, JSON-stable records.

Like the snapshot models, their JSON shapes (``model_dump(mode="json")``) only ever gain
fields; paths are workspace-relative POSIX strings, sorted.
"""

from __future__ import annotations

from snapline.snapshots.kinds import ChangeKind
from snapline.snapshots.snapshot import Snapshot
from snapline.values import FrozenModel

__all__ = ["FORCEABLE", "Conflict", "ModifiedFile", "Move", "RevertResult", "RollbackResult"]

FORCEABLE = frozenset({"modified", "deleted", "untracked"})
"""Conflict kinds a forced rollback settles, by recording the outside change first."""


class Conflict(FrozenModel):
    """One path a rollback or revert cannot change without losing someone's work.

    ``kind`` is one of ``modified``, ``deleted``, ``untracked`` (changed outside snapline),
    ``unreadable``, ``in-the-way`` (an untracked file or directory occupies the path),
    ``unavailable`` (tracked by hash only), ``unsafe-path``, ``changed-since`` and
    ``hunks-failed`` (revert only). ``expected``/``actual`` are content hashes when known.
    """

    path: str
    kind: str
    message: str
    expected: str | None = None
    actual: str | None = None


class Move(FrozenModel):
    """A file moved from ``source`` to ``target``."""

    source: str
    target: str


class RollbackResult(FrozenModel):
    """What a rollback changed (or, with ``dry_run``, would change).

    Attributes:
        target: The snapshot rolled back to.
        restored: Files rewritten to their content (or mode) after ``target``.
        deleted: Files added since ``target``, removed.
        recreated: Files deleted since ``target``, written again.
        conflicts: Paths changed outside snapline (listed by a dry run; a real run
            raises instead, unless forced).
        external: With ``force``, the snapshot that first recorded the outside changes.
        snapshot: The rollback's own snapshot; ``None`` when nothing needed to change
            or on a dry run.
        target_id: The id of ``target`` when it is a snapshot of another line (a
            branch merged in git, named ``id:PREFIX``): ``target`` is then that line's
            number. ``None`` on the main line.
    """

    target: int
    dry_run: bool
    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    external: Snapshot | None = None
    snapshot: Snapshot | None = None
    target_id: str | None = None

    @property
    def changed(self) -> tuple[str, ...]:
        """Every path the rollback writes or removes, sorted."""
        return tuple(sorted((*self.restored, *self.deleted, *self.recreated)))

    def blocking(self, *, force: bool = False) -> tuple[Conflict, ...]:
        """The conflicts that stop the real run, so a dry run can say whether it goes through.

        Args:
            force: Whether the real run is forced: then only the conflicts that
                recording the outside changes does not settle (``in-the-way``...) stop it.
        """
        return tuple(c for c in self.conflicts if not (force and c.kind in FORCEABLE))


class RevertResult(FrozenModel):
    """What a revert changed (or, with ``dry_run``, would change).

    Attributes:
        reverted: The snapshot whose changes were undone.
        restored: Files whose change was undone in place (exactly, or by patching
            today's content).
        deleted: Files the snapshot added, removed.
        recreated: Files the snapshot deleted, written again.
        moved: Renames undone (``source`` is where the file was, ``target`` its old path).
        conflicts: Files whose change cannot be undone; a real run raises instead.
        snapshot: The revert's own snapshot; ``None`` when nothing needed to change or
            on a dry run.
        reverted_id: The id of ``reverted`` when it is a snapshot of another line (a
            branch merged in git, named ``id:PREFIX``): ``reverted`` is then that
            line's number. ``None`` on the main line.
    """

    reverted: int
    dry_run: bool
    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()
    moved: tuple[Move, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    snapshot: Snapshot | None = None
    reverted_id: str | None = None

    def blocking(self, *, force: bool = False) -> tuple[Conflict, ...]:
        """The conflicts that stop the real run: all of them (a revert is never forced).

        Args:
            force: Ignored: taken so a revert's result answers as a rollback's does.
        """
        return self.conflicts


class ModifiedFile(FrozenModel):
    """One path's net change over a range of snapshots.

    ``status`` is relative to the start of the range: ``added``, ``modified`` (content
    or mode), ``deleted``, or ``renamed`` (the file at ``old_path`` was moved here,
    possibly edited too). ``snapshots`` lists every snapshot in the range that touched
    the file, under this path or, for a rename, under its old one.
    """

    path: str
    status: ChangeKind
    old_path: str | None = None
    snapshots: tuple[int, ...] = ()
