"""The page reads a history only through what :class:`PageReader` names."""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from snapline import Workspace
from snapline.blame.summary import BlameSummary
from snapline.guard import CheckOutcome
from snapline.milestones import Milestone
from snapline.milestones.lines import OtherLine
from snapline.report import MilestoneReader, PageReader, Scope, build_page
from snapline.snapshots import Report, SideSnapshot, Snapshot
from snapline.snapshots.read.refs import SnapshotRef

_FOOTER_TIME = re.compile(r"at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\. Every")


class _Milestones:
    """Only the milestone reads MilestoneReader names, from a workspace's milestones."""

    def __init__(self, ws: Workspace) -> None:
        self._ws = ws

    def list(self) -> builtins.list[Milestone]:
        return self._ws.milestones.list()

    def get(self, number: int) -> Milestone:
        return self._ws.milestones.get(number)

    def lines(self) -> builtins.list[OtherLine]:
        return self._ws.milestones.lines()


class _Only:
    """A history with nothing but the reads PageReader names: not a Workspace."""

    def __init__(self, ws: Workspace) -> None:
        self._ws = ws

    @property
    def root(self) -> Path:
        return self._ws.root

    @property
    def latest(self) -> int:
        return self._ws.latest

    @property
    def milestones(self) -> MilestoneReader:
        return _Milestones(self._ws)

    def snapshots(
        self, *, since: int | None = None, until: int | None = None, session: str | None = None
    ) -> Iterator[Snapshot]:
        return self._ws.snapshots(since=since, until=until, session=session)

    def snapshot(self, number: SnapshotRef) -> Snapshot:
        return self._ws.snapshot(number)

    def diff(self, from_n: SnapshotRef, to_n: SnapshotRef | None = None) -> str:
        return self._ws.diff(from_n, to_n)

    def side_snapshots(self) -> builtins.list[SideSnapshot]:
        return self._ws.side_snapshots()

    def check_outcomes(self) -> dict[int, CheckOutcome]:
        return self._ws.check_outcomes()

    def verify(self) -> Report:
        return self._ws.verify()

    def blame_summary(self, paths: Iterable[str] | None = None) -> BlameSummary:
        return self._ws.blame_summary(paths)


def test_a_reader_that_is_not_a_workspace_draws_the_same_page(history: Workspace) -> None:
    reader: PageReader = _Only(history)
    pages = []
    for scope in (Scope(), Scope(milestone=1), Scope(start=2, end=4), Scope(session="agent-1")):
        ours = build_page(reader, scope)
        pages.append(ours)
        theirs = history.report(
            milestone=scope.milestone, start=scope.start, end=scope.end, session=scope.session
        )
        assert _FOOTER_TIME.sub("", ours) == _FOOTER_TIME.sub("", theirs)
        assert _FOOTER_TIME.search(ours)
    assert 'id="s-6"' in pages[0] and 'id="s-6"' not in pages[1]
