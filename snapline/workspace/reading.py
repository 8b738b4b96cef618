"""Reading: the workspace methods that query, diff and check the history.

The models are imported where a method builds them: every workspace process imports
this module, and a recording one (``snapline record``, the hooks) loads no pydantic.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from snapline.snapshots.record.build import Limits
from snapline.workspace.base import PathArg, WorkspaceBase
from snapline.workspace.rows import sync_problems, verify_problems

if TYPE_CHECKING:
    from snapline.milestones import Milestones
    from snapline.report.reader import PageReader
    from snapline.snapshots.read.points import Point
    from snapline.snapshots.read.refs import SnapshotRef
    from snapline.snapshots.results import ModifiedFile
    from snapline.snapshots.snapshot import Report, SideSnapshot, Snapshot

__all__ = ["Reading"]


class Reading(WorkspaceBase):
    """Reading methods of :class:`~snapline.workspace.Workspace`."""

    @property
    def latest(self) -> int:
        """The number of the latest snapshot (0: only the baseline)."""
        from snapline.snapshots.read.snapshots import latest_number

        return latest_number(self._store)

    def resolve(self, ref: SnapshotRef) -> int:
        """The number of the main-line snapshot ``ref`` names (``12``, ``"latest~N"``, a prompt).

        ``ref`` is a number, ``"latest"``, ``"latest~N"``, ``"before-prompt:N@SESSION"``
        or ``"id:PREFIX"`` (see :meth:`side_snapshot` for a snapshot of another line).

        Raises:
            SnapshotRefError: If ``ref`` is not a number or reference.
            SnapshotNotFoundError: If it names a snapshot outside the history.
            PromptNotFoundError: If a prompt reference names no recorded prompt.
            SnapshotIdError: If an id reference names no snapshot, or several.
            SideSnapshotError: If it names a snapshot of another line.
        """
        from snapline.snapshots.read.refs import number_of

        return number_of(self._store, ref)

    def side_snapshot(self, ref: SnapshotRef) -> SideSnapshot | None:
        """The snapshot of another line that ``ref`` names; ``None`` for a main-line one.

        After a git merge of two branches that both recorded, the other branch's
        snapshots share numbers with the main line; ``"id:PREFIX"`` (at least four hex
        digits of its id) names one of them wherever a snapshot is taken for reading or
        restoring: :meth:`snapshot`, :meth:`diff`, :meth:`modified_files`,
        :meth:`content_at`, :meth:`rollback`.

        Raises:
            SnapshotRefError: If ``ref`` is not a number or reference.
            SnapshotNotFoundError: If it names a snapshot outside the history.
            SnapshotIdError: If an id reference names no snapshot, or several.
        """
        from snapline.snapshots.read.lines import side_snapshot
        from snapline.snapshots.read.refs import locate

        with self._store.read():
            found = locate(self._store, ref)
            if isinstance(found, int):
                return None
            return side_snapshot(self._store, found.id)

    def _point(self, ref: SnapshotRef | None) -> Point:
        """The snapshot ``ref`` names on any line (``None``: the latest).

        Only an id (``is_id_ref``) names a snapshot of another line: every other reference
        keeps the main line's path, which loads none of this.
        """
        from snapline.snapshots.read.points import point_at

        return point_at(self._store, self._reconstructor, "latest" if ref is None else ref)

    def conversation(self, ref: SnapshotRef) -> str | None:
        """The agent session a ``"before-prompt:N@SESSION"`` reference names, in full.

        Returns:
            The session id (a prefix in ``ref`` expanded); ``None`` for any other reference.

        Raises:
            PromptNotFoundError: If the prompt reference names no recorded prompt.
        """
        from snapline.snapshots.read.prompts import is_prompt_ref, prompt_session

        if not is_prompt_ref(ref):
            return None
        assert isinstance(ref, str)
        return prompt_session(self._store, ref, self.latest)

    @property
    def limits(self) -> Limits:
        """This store's content settings."""
        return self._recorder.limits

    @property
    def milestones(self) -> Milestones:
        """The workspace's milestones: named, continuous ranges of snapshots.

        ``ws.milestones.create("parser done")`` closes everything recorded since the last
        milestone; see :class:`~snapline.milestones.Milestones`.
        """
        if self._milestones is None:
            from snapline.milestones import Milestones

            self._milestones = Milestones(self._store, self._recorder, self._reconstructor)
        return self._milestones

    def snapshots(
        self,
        *,
        file: PathArg | None = None,
        tool: str | None = None,
        session: str | None = None,
        since: datetime | int | None = None,
        until: datetime | int | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> Iterator[Snapshot]:
        """Iterate snapshots in number order, without loading their diffs.

        Args:
            file: Only snapshots that touched this path.
            tool: Only snapshots recorded by this tool.
            session: Only snapshots of this session.
            since: A snapshot number or a time; only snapshots from it on.
            until: A snapshot number or a time; only snapshots up to it.
            limit: At most this many.
            newest_first: Newest first instead.
        """
        from snapline.snapshots.read import snapshots as reading

        yield from reading.select_snapshots(
            self._store,
            first=since if isinstance(since, int) else None,
            last=until if isinstance(until, int) else None,
            tool=tool,
            session=session,
            path=None if file is None else self._relpath(file),
            since=_stored_time(since) if isinstance(since, datetime) else None,
            until=_stored_time(until) if isinstance(until, datetime) else None,
            descending=newest_first,
            limit=limit,
        )

    def snapshot(self, number: SnapshotRef) -> Snapshot:
        """One snapshot with its diffs.

        Args:
            number: A number, ``"latest"``, ``"latest~N"``, or ``"id:PREFIX"`` (on any
                line: its ``number`` is then its line's, see :meth:`side_snapshot`).

        Raises:
            SnapshotNotFoundError: If there is no such snapshot.
            SnapshotRefError: If ``number`` is not a number or reference.
            SnapshotIdError: If an id reference names no snapshot, or several.
        """
        from snapline.snapshots.read import snapshots as reading
        from snapline.snapshots.read.ids import is_id_ref
        from snapline.snapshots.read.refs import number_of

        if not is_id_ref(number):
            return reading.load_snapshot(self._store, number_of(self._store, number))
        point = self._point(number)
        return reading.load_snapshot(point.store, point.number)

    def content_at(self, path: PathArg, number: SnapshotRef | None = None) -> bytes:
        """The bytes of ``path`` after snapshot ``number`` (default: the latest).

        Rebuilt from the store alone and checked against the recorded hash.

        Raises:
            NotInSnapshotError: If the file did not exist then.
            ContentUnavailableError: If that version was tracked by hash only.
            SnapshotNotFoundError: If there is no snapshot ``number``.
            SnapshotRefError: If ``number`` is not a number or reference.
        """
        from snapline.snapshots.read import snapshots as reading
        from snapline.snapshots.read.ids import is_id_ref
        from snapline.snapshots.read.refs import number_of

        rel = self._relpath(path)
        if not is_id_ref(number):
            at = None if number is None else number_of(self._store, number)
            return reading.content_at(self._store, self._reconstructor, rel, at)
        point = self._point(number)
        return reading.content_at(point.store, point.reconstructor, rel, point.number)

    def modified_files(
        self, from_n: SnapshotRef = 0, to_n: SnapshotRef | None = None
    ) -> list[ModifiedFile]:
        """Each path changed between snapshots ``from_n`` and ``to_n`` (default: latest).

        Statuses are relative to ``from_n``: ``added``, ``modified``, ``deleted``, or
        ``renamed`` (with ``old_path``); each lists the snapshots that touched the file.
        A file added and deleted again inside the range is not listed. Either end may
        be a snapshot of another line (``"id:PREFIX"``); between two lines each path is
        ``added``, ``modified`` or ``deleted``, with no snapshots listed.

        Raises:
            SnapshotNotFoundError: If either number does not exist.
            SnapshotRangeError: If ``from_n`` comes after ``to_n`` on one line.
            SnapshotRefError: If either is not a number or reference.
            SnapshotIdError: If an id reference names no snapshot, or several.
        """
        from snapline.snapshots.read.history import modified_files
        from snapline.snapshots.read.ids import is_id_ref

        if not (is_id_ref(from_n) or is_id_ref(to_n)):
            first, last = self._range(from_n, to_n)
            return modified_files(self._store, first, last)
        from snapline.snapshots.read.points import changed_between

        return changed_between(self._point(from_n), self._point(to_n))

    def _range(self, from_n: SnapshotRef, to_n: SnapshotRef | None) -> tuple[int, int | None]:
        """Both ends of a range resolved against one reading of the latest number."""
        from snapline.snapshots.read.refs import number_of

        with self._store.read():
            first = number_of(self._store, from_n)
            return first, None if to_n is None else number_of(self._store, to_n)

    def tracked(self) -> dict[str, str]:
        """The known state: every tracked path with its content hash, sorted by path."""
        from snapline.snapshots.read.snapshots import known_hashes

        return known_hashes(self._store)

    def side_snapshots(self) -> list[SideSnapshot]:
        """Snapshots recorded on other lines (branches merged in git), each with its line.

        ``joined_by`` names the merge snapshot that joined a line; a line not joined
        yet makes writing commands refuse until :meth:`merge` records one.
        """
        from snapline.snapshots.read.lines import side_snapshots

        with self._store.read():
            return side_snapshots(self._store)

    def history_states(self) -> list[str]:
        """The named states a git operation can leave the history in, one line each.

        Lines not joined, milestones closed on another branch, orphaned snapshot files
        (see docs/format.md): each line says what it is and the command that settles
        it. Empty when there is none. Reading works in every one of them.
        """
        from snapline.validation import history_states

        with self._store.read():
            return [self.advise(state) for state in history_states(self._store)]

    def advise(self, advice: str) -> str:
        """``advice`` as this workspace gives it: ``snapline upgrade`` first where writes refuse.

        An old branch's checkout (the in-tree ledger) and a work tree where a git merge
        brought such a ledger back refuse every write: advice naming one (resync,
        rollback, merge, milestone create...) names ``snapline upgrade`` first.

        Args:
            advice: A message or line of advice worded for a history that is written.

        Returns:
            The advice to print (``advice`` itself when this workspace writes).
        """
        if self._recorder.refusal is None:
            return advice
        from snapline.snapshots.check.upgrade_first import upgrade_first

        return upgrade_first(advice, self._recorder.refusal)

    def validate(self, *, deep: bool = False) -> Report:
        """Check the history for gaps, broken links, chain mismatches and missing content.

        Args:
            deep: Also rebuild every recorded version and check every stored blob.
        """
        from snapline.snapshots.snapshot import Report
        from snapline.validation import validate

        return Report(problems=tuple(validate(self._store, deep=deep)))

    def verify(self, *, full: bool = False, deep: bool = False) -> Report:
        """Everything CI holds a workspace to: the history, and :meth:`check_sync`.

        The history is checked whole the first time (and in every fresh clone); when
        that finds nothing wrong, a checkpoint is kept in the local index and the next
        verify checks what was added since, plus every ledger file whose ``lstat``
        stamp changed (any change sends it back to the whole history). See docs/ci.md.

        Args:
            full: Check the whole history, whatever the checkpoint says (as
                :meth:`validate` does).
            deep: Also rebuild every recorded version and check every stored blob
                (implies ``full``).

        Returns:
            The problems of both; ``since`` says where the history check started.
        """
        from snapline.snapshots.snapshot import Report

        problems, since, explained = verify_problems(self, full=full, deep=deep)
        return Report(problems=tuple(problems), since=since, explained=explained)

    def report(
        # The page reads only what PageReader names; the whole Workspace is one, and
        # mypy holds it to that at every call (a protocol as a mixin's self-type).
        self: PageReader,
        path: PathArg | None = None,
        *,
        milestone: int | None = None,
        start: int | None = None,
        end: int | None = None,
        session: str | None = None,
        verification: Report | None = None,
        local: bool = False,
    ) -> str:
        """The review page: one self-contained HTML file of the history, by milestone.

        It leads with the verification result and the totals, then shows each milestone
        (and the open range after the last one) with its snapshots and their diffs. See
        docs/report.md.

        Args:
            path: When given, also write the page there (atomically).
            milestone: Only this milestone.
            start: Only snapshots from this number on.
            end: Only snapshots up to this number.
            session: Only snapshots of this session.
            verification: A :meth:`verify` result already at hand (default: run it).
            local: Write the page to ``.snapline/report.html`` instead of ``path``
                (:data:`~snapline.report.LOCAL_REPORT`): this clone's own copy, which
                ``.snapline/.gitignore`` keeps out of git and no check counts as drift.

        Returns:
            The HTML text.

        Raises:
            ReportOutputError: If ``path`` is inside ``.snapline/``.
            ValueError: If both ``path`` and ``local`` are given.
            ReportScopeError: If ``milestone`` is given with ``start`` or ``end``.
            MilestoneNotFoundError: If there is no such milestone.
            SnapshotNotFoundError: If ``start`` or ``end`` does not exist.
            SnapshotRangeError: If ``start`` comes after ``end``.
        """
        from snapline import atomic
        from snapline.report import Scope, build_page, local_path, output_path

        if local and path is not None:
            raise ValueError("pass either path or local=True, not both")
        # The one file snapline writes into its own directory for a person to open; the
        # refusal below guards the store from paths a user names.
        target = None if path is None else output_path(self.root, path)
        if local:
            target = local_path(self.root)
        scope = Scope(milestone=milestone, start=start, end=end, session=session)
        page = build_page(self, scope, verification=verification)
        if target is not None:
            atomic.write_file(target, page.encode("utf-8"), 0o100644)
        return page

    def check_sync(self, paths: Iterable[PathArg] | PathArg | None = None) -> Report:
        """Report files whose disk content differs from the known state.

        Problems have kind ``modified``, ``deleted``, ``untracked`` (new and not
        ignored) or ``unreadable``, each with its ``path``.
        """
        from snapline.snapshots.snapshot import Report

        # The problems are models already; a report of them needs no validating again.
        return Report.model_construct(problems=tuple(sync_problems(self, paths)))


def _stored_time(moment: datetime) -> str:
    # Snapshot times are stored as UTC ISO strings with microseconds and compared as
    # text, so a bound must be written the same way (a naive datetime is local time).
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")
