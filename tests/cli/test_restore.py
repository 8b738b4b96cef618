"""``rollback`` and ``revert`` through the real command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Invoke, as_json


@pytest.fixture
def history(cli: Invoke, project: Path) -> Path:
    """1: edit app.py; 2: add notes.txt and delete README.md."""
    (project / "src" / "app.py").write_text("print('hello')\nprint('world')\n")
    assert cli("record", "-m", "world").exit_code == 0
    (project / "notes.txt").write_text("remember\n")
    (project / "README.md").unlink()
    assert cli("record", "-m", "notes, no readme").exit_code == 0
    return project


def test_rollback_restores_and_records(cli: Invoke, history: Path) -> None:
    result = cli("rollback", "--to", "0")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("rolled back to snapshot 0 as snapshot 3: 3 paths changed")
    assert "M src/app.py" in result.stdout
    assert "D notes.txt" in result.stdout
    assert "A README.md" in result.stdout
    assert (history / "README.md").read_text() == "# demo\n"
    assert not (history / "notes.txt").exists()
    assert (history / "src" / "app.py").read_text() == "print('hello')\n"
    assert cli("verify").exit_code == 0
    # The rollback is a snapshot: it can be rolled back in turn.
    assert cli("rollback", "--to", "2").exit_code == 0
    assert (history / "notes.txt").read_text() == "remember\n"


def test_rollback_only_some_paths(cli: Invoke, history: Path) -> None:
    data = as_json(cli("rollback", "--to", "0", "README.md", "-m", "readme back", "--json"))
    assert data["recreated"] == ["README.md"]
    assert data["snapshot"]["description"] == "readme back"
    assert data["snapshot"]["tool"] == "rollback"
    assert data["restored"] == [] and data["deleted"] == []
    assert data["snapshot"]["number"] == 3
    assert (history / "notes.txt").exists()


def test_rollback_dry_run_writes_nothing(cli: Invoke, history: Path) -> None:
    result = cli("rollback", "--to", "0", "--dry-run")
    assert result.exit_code == 0
    assert result.stdout.startswith("dry run: roll back to snapshot 0 would change 3 paths")
    assert (history / "notes.txt").exists()
    data = as_json(cli("rollback", "--to", "0", "--dry-run", "--json"))
    assert data["dry_run"] is True
    assert data["target"] == 0
    assert data["snapshot"] is None
    assert sorted(data["restored"] + data["deleted"] + data["recreated"]) == [
        "README.md", "notes.txt", "src/app.py",
    ]  # fmt: skip
    assert as_json(cli("log", "--json", "--limit", "1"))[0]["number"] == 2


def test_rollback_refuses_over_outside_changes(cli: Invoke, history: Path) -> None:
    (history / "notes.txt").write_text("precious\n")
    dry = cli("rollback", "--to", "0", "--dry-run")
    assert dry.exit_code == 1
    assert "1 conflict" in dry.stdout
    assert "the real run would be refused" in dry.stderr
    dry_json = cli("rollback", "--to", "0", "--dry-run", "--json")
    assert dry_json.exit_code == 1
    assert as_json(dry_json)["conflicts"][0]["path"] == "notes.txt"
    real = cli("rollback", "--to", "0")
    assert real.exit_code == 1
    assert real.stderr.startswith("snapline: error: ")
    assert len(real.stderr.splitlines()) == 1
    assert (history / "notes.txt").read_text() == "precious\n"


def test_rollback_force_keeps_the_outside_change_in_history(cli: Invoke, history: Path) -> None:
    (history / "notes.txt").write_text("precious\n")
    data = as_json(cli("rollback", "--to", "0", "--force", "--json"))
    assert data["external"]["number"] == 3
    assert data["snapshot"]["number"] == 4
    assert not (history / "notes.txt").exists()
    assert cli("rollback", "--to", "3", "notes.txt").exit_code == 0
    assert (history / "notes.txt").read_text() == "precious\n"


def test_rollback_to_a_missing_snapshot_exits_1(cli: Invoke, history: Path) -> None:
    result = cli("rollback", "--to", "9")
    assert result.exit_code == 1
    assert "there is no snapshot 9" in result.stderr


def test_revert_undoes_one_snapshot(cli: Invoke, history: Path) -> None:
    dry = cli("revert", "1", "--dry-run")
    assert dry.exit_code == 0
    assert "would change 1 path" in dry.stdout
    result = cli("revert", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("reverted snapshot 1 as snapshot 3")
    assert (history / "src" / "app.py").read_text() == "print('hello')\n"
    assert (history / "notes.txt").exists()  # snapshot 2 is kept


def test_revert_json(cli: Invoke, history: Path) -> None:
    data = as_json(cli("revert", "2", "--json"))
    assert data["reverted"] == 2
    assert data["snapshot"]["description"] == "revert snapshot 2"
    assert data["deleted"] == ["notes.txt"]
    assert data["recreated"] == ["README.md"]
    assert data["snapshot"]["number"] == 3


def test_revert_conflict_exits_1(cli: Invoke, history: Path) -> None:
    (history / "src" / "app.py").write_text("rewritten outside\n")
    result = cli("revert", "1")
    assert result.exit_code == 1
    assert result.stderr.startswith("snapline: error: ")
    assert cli("revert", "1", "--dry-run").exit_code == 1


def test_revert_the_baseline_is_refused(cli: Invoke, history: Path) -> None:
    assert cli("revert", "0").exit_code == 2  # N >= 1 is checked by the parser
