"""Snapshot references (``latest``, ``latest~N``) through the real command line."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Invoke, as_json


def test_cli_takes_refs(cli: Invoke, project: Path) -> None:
    for n in range(1, 4):
        (project / "n.txt").write_text(f"{n}\n")
        assert cli("record", "-m", f"n={n}").exit_code == 0

    assert as_json(cli("show", "latest~1", "--json"))["number"] == 2
    assert as_json(cli("diff", "latest~2", "latest", "--json"))["from"] == 1
    assert cli("revert", "latest").exit_code == 0
    assert (project / "n.txt").read_text() == "2\n"
    result = cli("rollback", "--to", "latest~3", "--json")
    assert result.exit_code == 0, result.output
    assert (project / "n.txt").read_text() == "1\n"
    created = as_json(cli("milestone", "create", "--title", "t", "--to", "latest~1", "--json"))
    assert created["last"] == 4
    page = project.parent / "page.html"
    assert cli("report", "-o", str(page), "--from", "latest~1", "--to", "latest").exit_code == 0
    assert "n=3" not in page.read_text(encoding="utf-8")


def test_cli_bad_ref_exits_2_and_missing_exits_1(cli: Invoke, project: Path) -> None:
    bad = cli("show", "tip")
    assert bad.exit_code == 2
    assert "latest~N" in bad.output
    assert cli("show", str(2**70)).exit_code == 1
    assert cli("rollback", "--to", "latest~4").exit_code == 1
