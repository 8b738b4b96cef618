"""Errors on the command line: JSON on stdout with --json, CLI words, unknown paths (issue 14, 21).

Every command given ``--json`` prints an error as one object on stdout, as well as the
line on stderr, so tools never parse an empty stdout. Messages name the command's
options, never the library's arguments. Recording a path that is neither on disk nor
tracked is an error, not "nothing changed".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke, run_script
from tests.cli_runner import Result


def _json_error(result: Result, code: int) -> dict[str, object]:
    stdout, stderr = result.stdout, result.stderr
    assert result.exit_code == code, (stdout, stderr)
    data = json.loads(stdout)
    assert set(data) >= {"error", "kind", "exit_code"}, data
    assert data["exit_code"] == code
    assert isinstance(data["error"], str) and "\n" not in data["error"]
    return dict(data)


@pytest.fixture
def history(project: Path) -> Path:
    with Workspace.open(project) as ws:
        ws.write_file("a.txt", "one\n")
        ws.write_file("a.txt", "two\n")
        ws.milestones.create("phase 1", to=1)
    return project


ERRORS = [
    (["show", "99"], 1, "SnapshotNotFoundError"),
    (["diff", "0", "99"], 1, "SnapshotNotFoundError"),
    (["rollback", "--to", "99"], 1, "SnapshotNotFoundError"),
    (["revert", "99"], 1, "SnapshotNotFoundError"),
    (["record", "nothere.txt"], 2, "UnknownPathError"),
    (["resync", "-m", "x", "nothere.txt"], 2, "UnknownPathError"),
    (["record", "../outside.txt"], 2, "UnsafePathError"),
    (["rollback", "--to", "1", "nothere.txt"], 2, "UnknownPathError"),
    (["rollback", "--to", "1", "nothere.txt", "--dry-run"], 2, "UnknownPathError"),
    (["milestone", "create", "--from", "5"], 1, "MilestoneContinuityError"),
    (["milestone", "create", "--to", "99"], 1, "MilestoneRangeError"),
    (["milestone", "show", "9"], 1, "MilestoneNotFoundError"),
    (["milestone", "diff", "9"], 1, "MilestoneNotFoundError"),
    (["milestone", "rollback", "9"], 1, "MilestoneNotFoundError"),
    (["init"], 2, "AlreadyInitializedError"),
    (["report", "--from", "99"], 1, "SnapshotNotFoundError"),
    (["log", "--file", "../x"], 2, "UnsafePathError"),
]


@pytest.mark.parametrize(("args", "code", "kind"), ERRORS, ids=lambda v: str(v))
def test_json_errors_on_stdout_and_the_line_on_stderr(
    history: Path, cli: Invoke, args: list[str], code: int, kind: str
) -> None:
    result = cli(*args, "--json")
    data = _json_error(result, code)
    assert data["kind"] == kind
    assert result.stderr == f"snapline: error: {data['error']}\n"
    # Without --json, stdout stays empty: the line is on stderr only.
    plain = cli(*args)
    assert plain.exit_code == code and plain.stdout == ""


def test_json_errors_outside_a_workspace(
    tmp_path: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["status"], ["log"], ["verify"], ["gc"], ["milestone", "list"], ["show", "0"]):
        data = _json_error(cli(*args, "--json"), 2)
        assert data["kind"] == "NotInitializedError", args
    # verify keeps its report shape and adds the error's fields.
    data = json.loads(cli("verify", "--json").stdout)
    assert data["ok"] is False and data["problems"][0]["kind"] == "store"


def test_usage_errors_are_json_too(history: Path, cli: Invoke) -> None:
    for args in (
        ["log", "-n", "abc", "--json"],
        ["log", "--json", "-n", "x"],
        ["log", "-n", "0", "--json"],
        ["milestone", "show", "x", "--json"],
        ["nosuchcommand", "--json"],
        ["status", "--json", "--no-such-option"],
    ):
        data = _json_error(cli(*args), 2)
        assert data["kind"] == "UsageError", args
    # A snapshot reference the library cannot read is a usage error of its own.
    assert _json_error(cli("show", "abc", "--json"), 2)["kind"] == "SnapshotRefError"
    # After `--`, --json belongs to the command `run` starts, not to snapline.
    result = cli("show", "abc", "--", "--json")
    assert result.exit_code == 2 and result.stdout == ""


def test_json_error_through_the_real_script(history: Path) -> None:
    result = run_script("show", "99", "--json", cwd=history)
    assert result.returncode == 1
    assert json.loads(result.stdout)["kind"] == "SnapshotNotFoundError"
    assert result.stderr.startswith("snapline: error: there is no snapshot 99")


def test_messages_name_options_not_arguments(history: Path, cli: Invoke) -> None:
    cases = [
        (["milestone", "create", "--from", "5"], "pass --from 2 or leave --from out", "start="),
        (["milestone", "create", "--to", "99"], "pass --to 2 or --to latest", "to="),
        (["milestone", "create", "--to", "1"], "pass a --to from 2 to 2", "`to`"),
    ]
    for args, wanted, unwanted in cases:
        result = cli(*args)
        assert result.exit_code == 1, result.output
        assert wanted in result.stderr, result.stderr
        assert unwanted not in result.stderr.replace("--from", "").replace("--to", "")
    # The library keeps its own words.
    from snapline import MilestoneContinuityError

    with Workspace.open(history) as ws, pytest.raises(MilestoneContinuityError) as caught:
        ws.milestones.create("x", start=5)
    assert "pass start=2" in str(caught.value)


def test_init_on_home_names_the_option(
    tmp_path: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    result = cli("init", str(tmp_path))
    assert result.exit_code == 2
    assert "pass --force" in result.stderr and "force=True" not in result.stderr


def test_recording_a_path_neither_on_disk_nor_tracked_is_an_error(
    history: Path, cli: Invoke
) -> None:
    for path in ("nothere.txt", "src/nothere.py", "nodir/", "a.txt/x", "src/app.py.bak"):
        result = cli("record", path)
        assert result.exit_code == 2, (path, result.output)
        assert "is neither on disk nor tracked" in result.stderr
        assert "nothing changed" not in result.stdout
    # What is on disk, or tracked and now gone, is recorded as before.
    (history / "new.txt").write_text("new\n")
    assert cli("record", "new.txt").exit_code == 0
    (history / "README.md").unlink()
    result = cli("record", "README.md")
    assert result.exit_code == 0 and "D README.md" in result.stdout
    # A directory gone from disk whose files are still tracked.
    (history / "src" / "app.py").unlink()
    (history / "src").rmdir()
    result = cli("record", "src")
    assert result.exit_code == 0 and "D src/app.py" in result.stdout
    # Once the deletion is recorded, neither is known any more.
    for path in ("README.md", "src"):
        assert cli("record", path).exit_code == 2


def test_the_library_refuses_unknown_paths(history: Path) -> None:
    from snapline import UnknownPathError

    with Workspace.open(history) as ws:
        latest = ws.latest
        for path in ("nothere.txt", history / "nothere", ["a.txt", "typo.txt"]):
            with pytest.raises(UnknownPathError) as caught:
                ws.record(path)
            assert caught.value.path.endswith(("nothere.txt", "nothere", "typo.txt"))
            with pytest.raises(UnknownPathError):
                ws.resync(paths=path)
        assert ws.latest == latest


def test_a_rollback_of_a_path_the_history_never_had_is_refused(history: Path, cli: Invoke) -> None:
    # `rollback --to 1 src/ap.py` (a typo) said "nothing to change" and exited 0 on
    # 615ec5a; `record src/ap.py` refuses the same path (issue 25).
    assert (history / "src" / "app.py").exists()  # in the baseline
    before = cli("log", "--json").stdout
    for args in (["src/ap.py"], ["src/ap.py", "--dry-run"], ["a.txt", "src/ap.py"], ["sr"]):
        result = cli("rollback", "--to", "1", *args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stdout == ""
        assert result.stderr == (
            f"snapline: error: {args[-1] if args[-1] != '--dry-run' else args[0]} was never "
            "in the history, so there is nothing to roll back there; check the path "
            "(`snapline log --file PATH` lists the snapshots that changed a path)\n"
        )
    assert cli("log", "--json").stdout == before  # nothing recorded
    # A directory of tracked files and a file deleted since are known.
    (history / "a.txt").unlink()
    assert cli("record").exit_code == 0
    for path in ("src", "a.txt"):
        assert cli("rollback", "--to", "1", path, "--dry-run").exit_code == 0, path
    # A file on disk is known too, as `record` knows it: here an outside change that
    # the rollback names as a conflict (exit 1), not a typo.
    (history / "untracked.txt").write_text("u\n")
    result = cli("rollback", "--to", "1", "untracked.txt", "--dry-run")
    assert result.exit_code == 1 and "untracked.txt is untracked on disk" in result.stdout


def test_the_library_refuses_a_rollback_of_unknown_paths(history: Path) -> None:
    from snapline import UnknownPathError

    with Workspace.open(history) as ws:
        latest = ws.latest
        for dry_run in (True, False):
            with pytest.raises(UnknownPathError) as caught:
                ws.rollback(1, ["a.txt", "typo.txt"], dry_run=dry_run)
            assert (caught.value.path, caught.value.doing) == ("typo.txt", "roll back")
        assert ws.latest == latest
