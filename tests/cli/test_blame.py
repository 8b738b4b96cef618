"""``snapline blame``: its forms, errors and exit codes (its agreement with git: tests/blame/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke, as_json


def _history(root: Path) -> None:
    """README.md: baseline line, an agent's line (prompt 3, milestone 1), a person's line."""
    with Workspace.open(root) as ws:
        stamp = {"prompt": {"session": "s1", "n": 3, "at": 0}}
        ws.write_file("README.md", "# demo\nby agent\r\n", session="s1", metadata=stamp)
        ws.milestones.create("first")
    with open(root / "README.md", "ab") as handle:
        handle.write(b"by hand\n")
    with Workspace.open(root) as ws:
        ws.resync(description="by hand", session="alice")
    with open(root / "README.md", "ab") as handle:
        handle.write(b"not yet")  # no final newline, not recorded


def test_each_line_names_the_snapshot_its_kind_session_prompt_and_milestone(
    project: Path, cli: Invoke
) -> None:
    _history(project)
    found = as_json(cli("blame", "README.md", "--json"))
    rows = [
        (r["line"], r["text"], r["snapshot"], r["kind"], r["session"], r["prompt"], r["milestone"])
        for r in found["lines"]
    ]
    assert rows == [
        (1, "# demo", 0, "baseline", None, None, None),
        (2, "by agent", 1, "agent", "s1", 3, 1),
        (3, "by hand", 2, "person", "alice", None, None),
        (4, "not yet", None, "unrecorded", None, None, None),
    ]
    assert found["latest"] == 2 and len(found["lines"][1]["id"]) == 32
    text = cli("blame", "README.md")
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[1].split()[2:] == ["agent", "s1", "p3", "M1", "2)", "by", "agent"]
    assert lines[2].split()[2:] == ["person", "person", "3)", "by", "hand"]
    assert lines[3].split() == ["-", "--------", "unrecorded", "unrecorded", "4)", "not", "yet"]


def test_a_line_range_and_the_porcelain_form(project: Path, cli: Invoke) -> None:
    _history(project)
    done = cli("blame", "README.md", "-L", "2,3", "--porcelain")
    assert done.exit_code == 0
    blocks = done.stdout.split("\n\t")
    assert blocks[0].splitlines()[0].endswith(" 1 2")
    assert "kind agent" in blocks[0] and "prompt 3" in blocks[0] and "milestone 1" in blocks[0]
    assert blocks[1].splitlines()[0] == "by agent"
    assert "kind person" in blocks[1] and "session alice" in blocks[1]
    assert blocks[2] == "by hand\n"
    clamped = as_json(cli("blame", "README.md", "-L", "3,99", "--json"))
    assert [r["line"] for r in clamped["lines"]] == [3, 4]


def test_what_cannot_be_blamed_is_one_line_and_its_exit_code(project: Path, cli: Invoke) -> None:
    (project / "data.bin").write_bytes(b"\x00\x01binary")
    with Workspace.open(project) as ws:
        ws.record(["data.bin"])
    (project / "src" / "app.py").unlink()
    cases = {
        ("data.bin",): (1, "it is binary"),
        ("src/app.py",): (1, "deleted on disk"),
        ("missing.txt",): (2, "neither on disk nor tracked"),
        ("README.md", "-L", "5"): (1, "has only 1 lines"),
        ("README.md", "-L", "3,1"): (2, "not a line range"),
        ("README.md", "src"): (2, "one FILE"),
        ("src",): (2, "it is not a file"),
        ("--summary", "-L", "1,2"): (2, "not --summary"),
    }
    for args, (code, words) in cases.items():
        done = cli("blame", *args)
        assert done.exit_code == code, (args, done.output)
        assert words in done.output, (args, done.output)
        assert "Traceback" not in done.output


def test_a_file_tracked_by_hash_only_is_refused(
    root: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "big.txt").write_text("x\n" * 100)
    Workspace.init(root, large_file_limit=50).close()
    monkeypatch.chdir(root)
    done = cli("blame", "big.txt")
    assert done.exit_code == 1
    assert "hash only" in done.output


def test_the_summary_counts_lines_by_kind_session_and_person(project: Path, cli: Invoke) -> None:
    _history(project)
    found = as_json(cli("blame", "--summary", "--json"))
    assert found["total"] == {
        "lines": 5,
        "agent": 1,
        "person": 1,
        "baseline": 2,
        "unrecorded": 1,
        "sessions": {"s1": 1},
        "people": {"alice": 1},
    }
    assert [f["path"] for f in found["files"]] == ["README.md", "src/app.py"]
    only = as_json(cli("blame", "--summary", "src", "--json"))
    assert [f["path"] for f in only["files"]] == ["src/app.py"]
    text = cli("blame", "--summary").stdout.splitlines()
    assert text[-3].split() == ["total", "5", "1", "1", "2", "1"]
    assert text[-2:] == ["agent sessions: s1 1 line", "people: alice 1 line"]
