"""``verify`` (the CI check) and ``gc`` through the real command line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.cli.conftest import Invoke, as_json, damage_line_ref, run_script


def _forge(project: Path) -> None:
    with sqlite3.connect(project / ".snapline" / "index.db") as db:
        db.execute("UPDATE snapshots SET description = 'forged' WHERE number = 1")


def _edit(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    assert cli("record", "-m", "edit").exit_code == 0


def test_verify_clean_exits_0(cli: Invoke, project: Path) -> None:
    _edit(cli, project)
    result = cli("verify")
    assert result.exit_code == 0
    assert result.stdout.startswith("ok: snapshots 0..1 verified")
    # The first verify kept a checkpoint: the second checked what came after it.
    assert as_json(cli("verify", "--json")) == {"ok": True, "problems": [], "since": 1}
    assert as_json(cli("verify", "--full", "--json")) == {"ok": True, "problems": []}
    github = cli("verify", "--format", "github")
    assert github.exit_code == 0
    assert "::error" not in github.stdout


def test_verify_deep(cli: Invoke, project: Path) -> None:
    _edit(cli, project)
    assert cli("verify", "--deep").exit_code == 0


def test_verify_outside_edit_exits_1(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# outside\n")
    (project / "src" / "app.py").unlink()
    result = cli("verify")
    assert result.exit_code == 1
    assert "verification failed: 2 problems" in result.stdout
    assert "README.md is modified" in result.stdout
    assert "Traceback" not in result.output


def test_verify_json_shape(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# outside\n")
    result = cli("verify", "--json")
    assert result.exit_code == 1
    data = as_json(result)
    assert data["ok"] is False
    (problem,) = data["problems"]
    assert problem["kind"] == "modified"
    assert problem["path"] == "README.md"
    assert problem["expected"].startswith("sha256:")
    assert problem["actual"].startswith("sha256:")
    assert problem["severity"] == "error"
    assert "message" in problem


def test_verify_github_annotations(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# outside\n")
    result = cli("verify", "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines == [line for line in lines if line.startswith("::error")]
    assert lines[0].startswith("::error file=README.md::modified: README.md is modified")
    assert "verification failed" in result.stderr


def test_verify_forged_history_exits_3(cli: Invoke, project: Path) -> None:
    _edit(cli, project)
    _forge(project)
    result = cli("verify")
    assert result.exit_code == 3
    assert "the store is corrupt" in result.stdout
    assert "chain-mismatch" in result.stdout
    github = cli("verify", "--format", "github")
    assert github.exit_code == 3
    assert "::error::chain-mismatch: snapshot 1" in github.stdout
    data = as_json(cli("verify", "--json"))
    assert data["ok"] is False
    assert data["problems"][0]["kind"] == "chain-mismatch"
    assert data["problems"][0]["number"] == 1
    assert data["problems"][0]["severity"] == "corrupt"


def test_verify_unreadable_store_still_annotates(cli: Invoke, project: Path) -> None:
    damage_line_ref(project)
    github = cli("verify", "--format", "github")
    assert github.exit_code == 3
    assert github.stdout.startswith("::error::store: snapline's ref refs/snapline/lines/")
    data = as_json(cli("verify", "--json"))
    assert data["ok"] is False
    assert data["problems"][0]["kind"] == "store"
    assert data["problems"][0]["severity"] == "corrupt"
    text = cli("verify")
    assert text.exit_code == 3
    assert text.stderr.startswith("snapline: error: snapline's ref refs/snapline/lines/")
    assert len(text.stderr.splitlines()) == 1 and "Traceback" not in text.output


def test_verify_outside_a_workspace_exits_2(cli: Invoke, root: Path) -> None:
    import os

    os.chdir(root)
    result = cli("verify", "--format", "github")
    assert result.exit_code == 2
    assert result.stdout.startswith("::error::store: ")


def test_verify_exit_codes_through_the_console_script(project: Path) -> None:
    assert run_script("verify", cwd=project).returncode == 0
    (project / "README.md").write_text("# outside\n")
    result = run_script("verify", "--format", "github", cwd=project)
    assert result.returncode == 1
    assert result.stdout.startswith("::error file=README.md::")


def test_gc_reports_bytes_freed(cli: Invoke, project: Path) -> None:
    # Content no snapshot refers to, as an interrupted write can leave behind.
    with sqlite3.connect(project / ".snapline" / "index.db") as db:
        db.execute(
            "INSERT INTO blobs (hash, size, data) VALUES (?, ?, ?)",
            ("sha256:" + "0" * 64, 300, b"z" * 300),
        )
    result = cli("gc")
    assert result.exit_code == 0
    assert result.stdout == "removed 1 unreferenced blob, freed 300 bytes\n"
    assert as_json(cli("gc", "--json")) == {"blobs_removed": 0, "bytes_freed": 0}
    assert cli("verify").exit_code == 0


def test_verify_finds_a_snapshot_that_starts_from_a_mode_the_history_did_not_have(
    cli: Invoke, project: Path
) -> None:
    # Issue 40.19: the continuity check compares modes as well as hashes. Snapshot 1
    # makes README.md executable (same content); snapshot 2, rewritten by hand, claims
    # to start from the file as it was before, as if the change of mode never happened.
    (project / "README.md").chmod(0o755)
    assert cli("resync", "-m", "executable").exit_code == 0
    _edit(cli, project)
    with sqlite3.connect(project / ".snapline" / "index.db") as db:
        (before,) = db.execute(
            "SELECT base_mode FROM changes WHERE snapshot = 1 AND path = 'README.md'"
        ).fetchone()
        (after,) = db.execute(
            "SELECT base_mode FROM changes WHERE snapshot = 2 AND path = 'README.md'"
        ).fetchone()
        assert before != after  # sanity: snapshot 2 starts from the executable file
        db.execute(
            "UPDATE changes SET base_mode = ? WHERE snapshot = 2 AND path = 'README.md'",
            (before,),
        )
    result = cli("verify", "--json")
    assert result.exit_code == 3  # the rewrite also breaks the chain
    found = [p for p in as_json(result)["problems"] if p["kind"] == "continuity"]
    (version,) = {p["actual"] for p in found}
    assert [(p["path"], p["number"], p["message"]) for p in found] == [
        (
            "README.md",
            2,
            f"README.md in snapshot 2 starts from {version} with mode {before:06o}, but the "
            f"history had {version} with mode {after:06o} there",
        )
    ]
