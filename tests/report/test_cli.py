"""``snapline report`` and ``snapline verify --report`` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Invoke, as_json, run_script
from tests.report.page import parse


def _record(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    assert cli("record", "-m", "edit README", "--session", "s1").exit_code == 0
    assert cli("milestone", "create", "--title", "docs").exit_code == 0
    (project / "src" / "app.py").write_text("print('bye')\n")
    assert cli("record", "--tool", "edit", "--session", "s2").exit_code == 0


def _verdict(path: Path) -> str:
    doc = parse(path.read_text(encoding="utf-8"))
    return str(doc.find("p", "verdict").attrs["data-verdict"])


def test_report_by_default_writes_the_clones_own_copy_which_is_no_drift(
    cli: Invoke, project: Path
) -> None:
    _record(cli, project)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    result = cli("report")

    page = project / ".snapline" / "report.html"
    assert result.exit_code == 0, result.output
    assert f"wrote the review page {page}" in result.stdout
    assert result.stderr == ""
    doc = parse(page.read_text(encoding="utf-8"))
    assert [s.attrs["id"] for s in doc.find_all("section", "range")] == ["m-1", "open"]
    # The next verify is still clean, and git never sees the page (.snapline/.gitignore).
    assert cli("verify").exit_code == 0
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".snapline/report.html"], cwd=project, check=False
    )
    assert ignored.returncode == 0
    assert cli("report").exit_code == 0  # written again over its own copy


def test_report_into_the_workspace_says_it_is_untracked(cli: Invoke, project: Path) -> None:
    _record(cli, project)
    result = cli("report", "-o", "page.html")

    assert result.exit_code == 0, result.output
    assert "is inside the workspace and not ignored" in result.stderr
    assert cli("verify").exit_code == 1


def test_report_outside_the_workspace_with_scope_and_json(
    cli: Invoke, project: Path, tmp_path: Path
) -> None:
    _record(cli, project)
    target = tmp_path / "pages" / "s2.html"
    result = cli("report", "-o", str(target), "--session", "s2", "--json")

    assert result.exit_code == 0, result.output
    assert as_json(result) == {"path": str(target), "bytes": target.stat().st_size}
    assert result.stderr == ""
    doc = parse(target.read_text(encoding="utf-8"))
    assert [a.attrs["id"] for a in doc.find_all("article", "snapshot")] == ["s-2"]
    assert cli("report", "-o", str(target), "--milestone", "1").exit_code == 0
    doc = parse(target.read_text(encoding="utf-8"))
    assert [a.attrs["id"] for a in doc.find_all("article", "snapshot")] == ["s-1"]
    assert cli("report", "-o", str(target), "--from", "2", "--to", "2").exit_code == 0


def test_report_errors_and_exit_codes(cli: Invoke, project: Path, tmp_path: Path) -> None:
    _record(cli, project)
    inside = cli("report", "-o", ".snapline/page.html")
    assert inside.exit_code == 2
    assert "inside the store" in inside.stderr
    assert not (project / ".snapline" / "page.html").exists()
    both = cli("report", "-o", str(tmp_path / "x.html"), "--milestone", "1", "--from", "1")
    assert both.exit_code == 2
    assert "either a milestone or a snapshot range" in both.stderr
    missing = cli("report", "-o", str(tmp_path / "x.html"), "--milestone", "7")
    assert missing.exit_code == 1
    backwards = cli("report", "-o", str(tmp_path / "x.html"), "--from", "2", "--to", "1")
    assert backwards.exit_code == 2
    assert not (tmp_path / "x.html").exists()
    assert cli("report", "--from", "-1").exit_code == 2


def test_verify_report_writes_the_page_and_keeps_its_exit_code(
    cli: Invoke, project: Path, tmp_path: Path
) -> None:
    _record(cli, project)
    page = tmp_path / "verify.html"
    clean = cli("verify", "--report", str(page), "--json")
    assert clean.exit_code == 0
    assert json.loads(clean.stdout) == {"ok": True, "problems": []}
    assert f"wrote the review page {page}" in clean.stderr
    assert _verdict(page) == "ok"

    (project / "README.md").write_text("# outside\n")
    drift = cli("verify", "--report", str(page), "--format", "github")
    assert drift.exit_code == 1
    assert "::error file=README.md::" in drift.stdout
    assert _verdict(page) == "drift"
    problems = parse(page.read_text(encoding="utf-8")).find("ul", "problems").text
    assert "README.md" in problems
    refused = cli("verify", "--report", ".snapline/verify.html")
    assert refused.exit_code == 2
    assert "inside the store" in refused.stderr


def test_help_does_not_import_the_report_or_pygments() -> None:
    code = (
        "import sys\n"
        "sys.argv = ['snapline', '--help']\n"
        "from snapline.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = [m for m in sys.modules if m.startswith(('pygments', 'snapline.report'))]\n"
        "sys.stderr.write(repr(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "report" in done.stdout  # the command is listed
    assert done.stderr == "[]"


def test_console_script_writes_a_page(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    done = run_script("report", "-o", str(target), cwd=project)

    assert done.returncode == 0, done.stderr
    assert _verdict(target) == "ok"
