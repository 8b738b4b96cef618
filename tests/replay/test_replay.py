"""Real histories replayed: every restore of snapline against git's own trees.

``SNAPLINE_REPLAY=short`` (the default, what ``make test`` runs) records every commit of
each bundle in tests/fixtures/ but restores at few check points (about a minute in
all); ``SNAPLINE_REPLAY=deep`` (``make test-deep``) restores at every 5th snapshot, and
replays the first-parent history of this checkout's own git repository too, when there
is one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.replay.git_history import GitHistory
from tests.replay.replayer import Replay

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CHECKOUT = Path(__file__).resolve().parents[2]
DEEP = os.environ.get("SNAPLINE_REPLAY", "short") == "deep"

# bundle -> (commits replayed, check every K-th snapshot) in the short run; the deep
# run replays every commit and checks every 5th snapshot.
SHORT = {"bats-core": (125, 10), "diff-so-fancy": (460, 40)}
DEEP_EVERY = 5


def _histories() -> list[str]:
    """The bundles; in the deep run also this checkout's own history, when it has one."""
    names = sorted(SHORT)
    if DEEP and (CHECKOUT / ".git").exists():
        names.append("checkout")
    return names


@pytest.mark.parametrize("name", _histories())
def test_a_real_history_replays_exactly(name: str, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    if name == "checkout":
        history = GitHistory.borrowing(CHECKOUT, tmp_path / "git", root)
        assert history is not None, f"{CHECKOUT} has a .git that git cannot read"
    else:
        history = GitHistory.from_bundle(FIXTURES / f"{name}.bundle", tmp_path / "git", root)
    (branch,) = history.heads()
    limit, every = (None, DEEP_EVERY) if DEEP or name == "checkout" else SHORT[name]
    commits = history.first_parent(branch, limit)
    tally = Replay(history, every).run(commits)
    assert tally.commits == len(commits)
    assert tally.snapshots + tally.unchanged == len(commits) - 1
    # Each check point restored and verified; the first has no earlier one to go to.
    points = tally.snapshots // every
    assert tally.reverts == tally.verifies == points > 0
    assert tally.rollbacks == tally.undos >= points // 2
    assert tally.rebuilt > 0
