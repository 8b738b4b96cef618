"""``snapline milestone ...`` through the real command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke, as_json


@pytest.fixture
def history(cli: Invoke, project: Path) -> Path:
    """Snapshots 1..3."""
    for i in range(1, 4):
        (project / f"step{i}.txt").write_text(f"step {i}\n")
        assert cli("record", "-m", f"step {i}").exit_code == 0
    return project


def test_create_closes_everything_since_the_last_milestone(cli: Invoke, history: Path) -> None:
    result = cli("milestone", "create", "--title", "phase 1", "--to", "latest")
    assert result.exit_code == 0, result.output
    assert result.stdout == "created milestone 1: phase 1 (snapshots 1..3, 3 snapshots)\n"
    (history / "step4.txt").write_text("4\n")
    cli("record", "-m", "step 4")
    data = as_json(cli("milestone", "create", "-m", "phase 2\n\nmore words", "--json"))
    assert data["number"] == 2
    assert data["title"] == "phase 2"  # the first line of -m when no --title
    assert data["description"] == "phase 2\n\nmore words"
    assert (data["start"], data["end"]) == (4, 4)
    assert (data["first"], data["last"]) == (4, 4)


def test_create_with_range_and_tags(cli: Invoke, history: Path) -> None:
    data = as_json(
        cli("milestone", "create", "--title", "a", "--from", "1", "--to", "2", "--tag", "x",
            "--tag", "y", "--json")
    )  # fmt: skip
    assert (data["start"], data["end"], data["tags"]) == (1, 2, ["x", "y"])
    data = as_json(cli("milestone", "create", "--json"))
    assert data["title"] == "milestone 2"
    assert (data["start"], data["end"]) == (3, 3)


def test_create_refused_ranges_exit_1(cli: Invoke, history: Path) -> None:
    gap = cli("milestone", "create", "--title", "t", "--from", "2")
    assert gap.exit_code == 1
    assert gap.stderr.startswith("snapline: error: the first milestone must start at snapshot 1")
    past = cli("milestone", "create", "--title", "t", "--to", "9")
    assert past.exit_code == 1
    assert "history ends at 3" in past.stderr
    assert cli("milestone", "create", "--title", "t").exit_code == 0
    empty = cli("milestone", "create", "--title", "again")
    assert empty.exit_code == 1
    assert "would be empty" in empty.stderr


def test_create_bad_to_is_a_usage_error(cli: Invoke, history: Path) -> None:
    result = cli("milestone", "create", "--title", "t", "--to", "soon")
    assert result.exit_code == 2
    assert result.stderr.startswith("snapline: error: ")


def test_list(cli: Invoke, history: Path) -> None:
    assert as_json(cli("milestone", "list", "--json")) == []
    empty = cli("milestone", "list")
    assert empty.exit_code == 0
    assert "no milestones yet" in empty.stderr
    cli("milestone", "create", "--title", "one", "--to", "2")
    cli("milestone", "create", "--title", "two", "--tag", "release")
    result = cli("milestone", "list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "snapshots 1..2" in lines[0] and "one" in lines[0]
    assert "snapshots 3..3" in lines[1] and "[release]" in lines[1]
    entries = as_json(cli("milestone", "list", "--json"))
    assert [(m["number"], m["title"], m["start"], m["end"]) for m in entries] == [
        (1, "one", 1, 2),
        (2, "two", 3, 3),
    ]


def test_show(cli: Invoke, history: Path) -> None:
    cli("milestone", "create", "--title", "phase 1", "-m", "why it matters")
    result = cli("milestone", "show", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("milestone 1: phase 1\n")
    assert "1..3 (3 snapshots)" in result.stdout
    assert "3 files, +3 -0" in result.stdout
    assert "    why it matters" in result.stdout
    assert "A step2.txt  (snapshots 2)" in result.stdout
    data = as_json(cli("milestone", "show", "1", "--json"))
    assert data["number"] == 1 and data["start"] == 1 and data["end"] == 3
    assert data["stats"]["files"] == 3
    assert data["stats"]["lines_added"] == 3
    assert [f["path"] for f in data["files"]] == ["step1.txt", "step2.txt", "step3.txt"]
    assert data["files"][0]["status"] == "added"


def test_missing_milestone_exits_1(cli: Invoke, history: Path) -> None:
    for args in (("show", "4"), ("diff", "4"), ("rollback", "4"), ("export", "4")):
        result = cli("milestone", *args)
        assert result.exit_code == 1, args
        assert result.stderr.startswith("snapline: error: there is no milestone 4")


def test_diff(cli: Invoke, history: Path) -> None:
    cli("milestone", "create", "--title", "phase 1", "--to", "2")
    result = cli("milestone", "diff", "1")
    assert result.exit_code == 0
    assert "+step 1" in result.stdout and "+step 2" in result.stdout
    assert "step3" not in result.stdout
    assert as_json(cli("milestone", "diff", "1", "--json"))["diff"] == result.stdout


def test_rollback(cli: Invoke, history: Path) -> None:
    cli("milestone", "create", "--title", "phase 1", "--to", "1")
    cli("milestone", "create", "--title", "phase 2")
    dry = cli("milestone", "rollback", "2", "--dry-run")
    assert dry.exit_code == 0
    assert (history / "step3.txt").exists()
    result = cli("milestone", "rollback", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("rolled back to snapshot 1 as snapshot 4")
    assert not (history / "step2.txt").exists()
    assert (history / "step1.txt").exists()
    data = as_json(cli("milestone", "rollback", "1", "--json"))
    assert data["target"] == 0
    assert data["deleted"] == ["step1.txt"]


def test_rollback_refuses_outside_changes_unless_forced(cli: Invoke, history: Path) -> None:
    cli("milestone", "create", "--title", "phase 1")
    (history / "step2.txt").write_text("edited outside\n")
    assert cli("milestone", "rollback", "1").exit_code == 1
    assert cli("milestone", "rollback", "1", "--dry-run").exit_code == 1
    assert cli("milestone", "rollback", "1", "--force").exit_code == 0
    assert not (history / "step2.txt").exists()


def test_export_applies_with_git(cli: Invoke, history: Path, tmp_path: Path) -> None:
    cli("milestone", "create", "--title", "phase 1", "-m", "diff --git a/x b/x")
    result = cli("milestone", "export", "1")
    assert result.exit_code == 0
    assert result.stdout.startswith("Milestone 1: phase 1\n")
    target = tmp_path / "patch.diff"
    written = cli("milestone", "export", "1", "-o", str(target))
    assert written.exit_code == 0
    assert written.stdout == ""
    assert target.read_text() == result.stdout
    copy = tmp_path / "copy"
    copy.mkdir()
    subprocess.run(["git", "apply", str(target)], cwd=copy, check=True)
    assert sorted(p.name for p in copy.iterdir()) == ["step1.txt", "step2.txt", "step3.txt"]
