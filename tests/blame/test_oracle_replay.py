"""``snapline blame`` against ``git blame`` over the real histories of tests/fixtures/.

Each bundle's first-parent commits are replayed into a workspace, one snapshot per
commit (tool ``replay``, the session alternating between two agents and every fifth
commit recorded by ``resync``, a person). At every K-th snapshot every text file on
disk is blamed through the workspace; at the end the twin repository
(tests/blame/twin.py) is built from the history and ``git blame --line-porcelain`` of
each file at that snapshot's commit must name, line by line, the same snapshot and
the same author. ``make test`` replays part of each bundle at wide intervals;
``SNAPLINE_REPLAY=deep`` (``make test-deep``) every commit, every 5th snapshot.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.blame import BinaryFileError
from tests.blame.twin import Twin, snapline_lines
from tests.replay.git_history import GitHistory
from tests.scanning.git_reference import GIT

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEEP = os.environ.get("SNAPLINE_REPLAY", "short") == "deep"
# bundle -> (commits replayed, blame every K-th snapshot) in the short run.
SHORT = {"bats-core": (125, 25), "diff-so-fancy": (200, 50)}


@pytest.mark.parametrize("name", sorted(SHORT))
def test_blame_agrees_with_git_on_a_real_history(name: str, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    history = GitHistory.from_bundle(FIXTURES / f"{name}.bundle", tmp_path / "git", root)
    (branch,) = history.heads()
    limit, every = (None, 5) if DEEP else SHORT[name]
    commits = history.first_parent(branch, limit)
    history.check_out(commits[0])
    seen: dict[int, dict[str, list[tuple[int | None, str]]]] = {}
    with Workspace.init(root) as ws:
        for index, commit in enumerate(commits[1:], 1):
            history.check_out(commit)
            if index % 5 == 0:
                snapshot = ws.resync(description=f"commit {commit}")
            else:
                session = "agent-a" if index % 2 else "agent-b"
                snapshot = ws.record(tool="replay", session=session)
            if snapshot is not None and snapshot.number % every == 0:
                seen[snapshot.number] = _blame_all(ws)
        twin = Twin.build(ws, tmp_path / "twin.git")
    assert len(seen) >= 3
    compared, wrong = 0, []
    for number, files in seen.items():
        for path, lines in files.items():
            expected = twin.blame(path, number)
            compared += len(lines)
            if lines != expected:
                wrong.append(f"{path} at {number}: {_first_difference(lines, expected)}")
    assert wrong == []
    assert compared > 1000


def _blame_all(ws: Workspace) -> dict[str, list[tuple[int | None, str]]]:
    """Every tracked text file on disk, blamed."""
    found = {}
    for path in ws.tracked():
        try:
            found[path] = snapline_lines(ws, path)
        except BinaryFileError:
            continue
    return found


def _first_difference(ours: list[tuple[int | None, str]], git: list[tuple[int | None, str]]) -> str:
    for line, (mine, theirs) in enumerate(zip(ours, git, strict=False), 1):
        if mine != theirs:
            return f"line {line}: snapline {mine}, git {theirs}"
    return f"snapline {len(ours)} lines, git {len(git)}"
