"""``status``, ``log``, ``show`` and ``diff`` through the real command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke, as_json


@pytest.fixture
def history(cli: Invoke, project: Path) -> Path:
    """Snapshots 1..3: two tools, two sessions, three files."""
    (project / "src" / "app.py").write_text("print('hello')\nprint('world')\n")
    assert cli("record", "--tool", "edit", "--session", "s1", "-m", "add world").exit_code == 0
    (project / "notes.txt").write_text("remember\n")
    assert cli("record", "--tool", "write", "--session", "s2", "-m", "notes").exit_code == 0
    (project / "README.md").write_text("# demo\n\nmore\n")
    assert cli("record", "--tool", "edit", "--session", "s1", "-m", "readme").exit_code == 0
    return project


def test_status_in_sync(cli: Invoke, history: Path) -> None:
    result = cli("status")
    assert result.exit_code == 0
    assert "snapshot   3" in result.stdout
    assert "1 open: snapshots 1..3" in result.stdout
    assert "matches the latest snapshot" in result.stdout


def test_status_reports_drift_but_exits_0(cli: Invoke, history: Path) -> None:
    (history / "notes.txt").unlink()
    (history / "extra.txt").write_text("x\n")
    result = cli("status")
    assert result.exit_code == 0  # like `git status`; `verify` is the one that fails
    assert "2 paths changed outside snapline" in result.stdout
    assert "deleted    notes.txt" in result.stdout
    assert "untracked  extra.txt" in result.stdout
    assert "snapline resync" in result.stdout


def test_status_json(cli: Invoke, history: Path) -> None:
    (history / "README.md").write_text("changed\n")
    data = as_json(cli("status", "--json"))
    assert data["root"] == str(history)
    assert data["latest"]["number"] == 3
    assert data["milestone"] == {
        "milestone": 1, "start": 1, "end": 3, "count": 3, "version": 1,
    }  # fmt: skip
    assert data["in_sync"] is False
    assert [(p["kind"], p["path"]) for p in data["drift"]] == [("modified", "README.md")]


def test_log_newest_first(cli: Invoke, history: Path) -> None:
    result = cli("log")
    assert result.exit_code == 0
    numbers = [int(line.split()[0]) for line in result.stdout.splitlines()]
    assert numbers == [3, 2, 1, 0]
    assert "add world" in result.stdout
    assert "@s1" in result.stdout


def test_log_filters(cli: Invoke, history: Path) -> None:
    def numbers(*args: str) -> list[int]:
        return [s["number"] for s in as_json(cli("log", "--json", *args))]

    assert numbers("--tool", "edit") == [3, 1]
    assert numbers("--session", "s2") == [2]
    assert numbers("--file", "notes.txt") == [2]
    assert numbers("--limit", "2") == [3, 2]
    assert numbers("--tool", "nobody") == []


def test_log_file_is_relative_to_the_current_directory(cli: Invoke, history: Path) -> None:
    import os

    os.chdir(history / "src")
    assert [s["number"] for s in as_json(cli("log", "--json", "--file", "app.py"))] == [1, 0]


def test_log_json_shape(cli: Invoke, history: Path) -> None:
    entries = as_json(cli("log", "--json", "--limit", "1"))
    assert len(entries) == 1
    entry = entries[0]
    for key in ("number", "tool", "description", "time", "files", "session", "id"):
        assert key in entry
    assert entry["files"][0]["path"] == "README.md"
    assert entry["files"][0]["forward"] is None  # the log does not load diffs


def test_show_prints_metadata_and_diff(cli: Invoke, history: Path) -> None:
    result = cli("show", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("snapshot 1\n")
    assert "tool:      edit" in out
    assert "session:   s1" in out
    assert "    add world" in out
    assert "  M src/app.py" in out
    assert "+print('world')" in out


def test_show_baseline_lists_files(cli: Invoke, history: Path) -> None:
    result = cli("show", "0")
    assert result.exit_code == 0, result.output
    assert "  A README.md" in result.stdout
    assert "  A src/app.py" in result.stdout


def test_show_json_has_the_deltas(cli: Invoke, history: Path) -> None:
    data = as_json(cli("show", "1", "--json"))
    assert data["number"] == 1
    assert data["files"][0]["forward"] is not None or data["files"][0]["content_ref"]


def test_show_missing_snapshot_exits_1(cli: Invoke, history: Path) -> None:
    result = cli("show", "42")
    assert result.exit_code == 1
    assert (
        result.stderr == "snapline: error: there is no snapshot 42; the history runs from 0 to 3\n"
    )


def test_diff_is_plain_and_applies_with_git(cli: Invoke, history: Path, tmp_path: Path) -> None:
    result = cli("diff", "0", "3")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("diff --git ")
    assert result.stderr == ""
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "src").mkdir()
    (copy / "src" / "app.py").write_text("print('hello')\n")
    (copy / "README.md").write_text("# demo\n")
    subprocess.run(["git", "apply"], input=text, text=True, cwd=copy, check=True)
    for name in ("src/app.py", "notes.txt", "README.md"):
        assert (copy / name).read_bytes() == (history / name).read_bytes()


def test_diff_limited_to_paths(cli: Invoke, history: Path) -> None:
    text = cli("diff", "0", "3", "notes.txt").stdout
    assert "notes.txt" in text
    assert "README.md" not in text and "app.py" not in text


def test_diff_json(cli: Invoke, history: Path) -> None:
    data = as_json(cli("diff", "1", "2", "--json"))
    assert data["from"] == 1 and data["to"] == 2
    assert "+remember" in data["diff"]


def test_a_reversed_range_is_the_reverse_diff(cli: Invoke, history: Path, tmp_path: Path) -> None:
    # As `git diff B A`: applied to the state at 3, it gives back the state at 1.
    result = cli("diff", "3", "1")
    assert result.exit_code == 0, result.output
    assert "-remember" in result.stdout and "+remember" not in result.stdout
    copy = tmp_path / "copy"
    (copy / "src").mkdir(parents=True)
    for name in ("src/app.py", "notes.txt", "README.md"):
        (copy / name).write_bytes((history / name).read_bytes())
    subprocess.run(["git", "apply"], input=result.stdout, text=True, cwd=copy, check=True)
    assert not (copy / "notes.txt").exists()
    assert (copy / "README.md").read_text() == "# demo\n"
    assert (copy / "src" / "app.py").read_text() == "print('hello')\nprint('world')\n"
    data = as_json(cli("diff", "3", "1", "--json"))
    assert (data["from"], data["to"], data["diff"]) == (3, 1, result.stdout)


def test_diff_without_snapshots_compares_the_disk_with_the_latest(
    cli: Invoke, history: Path
) -> None:
    assert cli("diff").stdout == ""  # in sync: nothing to show, as git diff
    (history / "notes.txt").write_text("remember\nand more\n")
    (history / "README.md").unlink()
    (history / "new.txt").write_text("fresh\n")
    result = cli("diff")
    assert result.exit_code == 0, result.output
    assert "+and more" in result.stdout
    assert "deleted file mode 100644" in result.stdout and "-more" in result.stdout
    assert "new file mode 100644" in result.stdout and "+fresh" in result.stdout
    # From an older snapshot to the disk: notes.txt did not exist at 1.
    older = cli("diff", "1", "notes.txt").stdout
    assert "new file mode" in older and "+remember\n+and more\n" in older
    # A word after -- is a path even when it looks like a snapshot.
    (history / "2").write_text("two\n")
    assert "+two" in cli("diff", "--", "2").stdout
    data = as_json(cli("diff", "--json"))
    assert (data["from"], data["to"]) == (3, "disk")
    stat = cli("diff", "--stat").stdout
    assert stat.splitlines()[-1] == " 4 files changed, 3 insertions(+), 3 deletions(-)"
