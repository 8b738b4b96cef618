"""``undo`` and ``redo`` through the real command line."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Invoke, as_json


def test_undo_and_redo(cli: Invoke, project: Path) -> None:
    (project / "n.txt").write_text("1\n")
    assert cli("record", "-m", "one").exit_code == 0
    (project / "n.txt").write_text("2\n")
    assert cli("record", "-m", "two").exit_code == 0

    undone = as_json(cli("undo", "--json"))
    assert undone["snapshot"]["metadata"]["undo_of"] == 2
    assert cli("undo").exit_code == 0
    assert not (project / "n.txt").exists()
    assert cli("redo").exit_code == 0
    assert (project / "n.txt").read_text() == "1\n"
    assert cli("redo", "-m", "again").exit_code == 0
    assert (project / "n.txt").read_text() == "2\n"

    nothing = cli("redo")
    assert nothing.exit_code == 1
    assert "nothing to redo" in nothing.output


def test_undo_refuses_drift_then_force(cli: Invoke, project: Path) -> None:
    (project / "n.txt").write_text("1\n")
    assert cli("record").exit_code == 0
    (project / "n.txt").write_text("outside\n")

    assert cli("undo").exit_code == 1
    assert (project / "n.txt").read_text() == "outside\n"
    assert cli("undo", "--force").exit_code == 0
    assert not (project / "n.txt").exists()
