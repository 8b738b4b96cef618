"""What a milestone changed: its diff, files and stats span the whole range."""

from __future__ import annotations

import pytest

from snapline import ChangeKind, Workspace
from snapline.milestones import MilestoneNotFoundError, MilestoneStats


@pytest.fixture
def two(ws: Workspace) -> Workspace:
    """Milestone 1 edits README.md; milestone 2 adds, edits, moves and deletes."""
    ws.write_file("README.md", "# demo\n\nmore\n")  # 1
    ws.milestones.create("docs")
    ws.write_file("lib/a.py", "a = 1\n")  # 2
    ws.write_file("lib/a.py", "a = 2\nb = 3\n")  # 3
    ws.write_file("tmp.txt", "scratch\n")  # 4: added then deleted inside the range
    ws.delete_file("tmp.txt")  # 5
    ws.move_file("src/app.py", "src/main.py")  # 6
    ws.write_file("src/main.py", "print('hello')\nprint('bye')\n")  # 7
    ws.delete_file("README.md")  # 8
    ws.milestones.create("code")
    ws.write_file("open.txt", "not in a milestone\n")  # 9: the open range
    return ws


def test_files_are_the_net_changes_of_the_whole_range(two: Workspace) -> None:
    files = two.milestones.files(2)
    assert [(f.path, f.status, f.old_path) for f in files] == [
        ("README.md", ChangeKind.DELETED, None),
        ("lib/a.py", ChangeKind.ADDED, None),
        ("src/main.py", ChangeKind.RENAMED, "src/app.py"),
    ]
    assert files[1].snapshots == (2, 3)
    assert [f.path for f in two.milestones.files(1)] == ["README.md"]


def test_diff_runs_from_before_the_first_snapshot_to_the_last(two: Workspace) -> None:
    text = two.milestones.diff(2)
    assert "diff --git a/lib/a.py b/lib/a.py\nnew file mode 100644\n" in text
    assert "+a = 2\n+b = 3\n" in text
    assert "a = 1" not in text  # an intermediate version, not the range's net change
    assert "tmp.txt" not in text and "open.txt" not in text
    assert "rename from src/app.py\nrename to src/main.py\n" in text
    assert "deleted file mode 100644" in text
    one = two.milestones.diff(1)
    assert one.startswith("diff --git a/README.md b/README.md\n")
    assert "+more\n" in one


def test_stats_count_snapshots_files_and_lines(two: Workspace) -> None:
    assert two.milestones.stats(1) == MilestoneStats(
        milestone=1, snapshots=1, files=1, lines_added=2, lines_removed=0
    )
    stats = two.milestones.stats(2)
    # lib/a.py +2; src/main.py +1; README.md (3 lines, as milestone 1 left it) -3
    assert (stats.snapshots, stats.files, stats.lines_added, stats.lines_removed) == (
        7,
        3,
        3,
        3,
    )
    assert list(stats.model_dump(mode="json")) == [
        "milestone",
        "snapshots",
        "files",
        "lines_added",
        "lines_removed",
        "version",
    ]


@pytest.mark.parametrize("method", ["diff", "files", "stats", "export"])
def test_a_missing_milestone_is_refused(two: Workspace, method: str) -> None:
    with pytest.raises(MilestoneNotFoundError) as caught:
        getattr(two.milestones, method)(3)
    assert caught.value.number == 3
