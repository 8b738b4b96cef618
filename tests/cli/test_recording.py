"""``init``, ``record``, ``run`` and ``resync`` through the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke, as_json, run_script


def test_init_prints_a_one_line_summary(cli: Invoke, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    (root / "b.bin").write_bytes(b"\x00" * 100)
    (root / ".gitignore").write_text("*.log\n")
    (root / "debug.log").write_text("noise\n")
    os.chdir(root)
    result = cli("init")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert "3 files" in lines[0]  # a.txt, b.bin, .gitignore
    assert "112 bytes" in lines[0]
    assert "1 ignored" in lines[0]
    with Workspace.open(root) as ws:
        assert sorted(ws.tracked()) == [".gitignore", "a.txt", "b.bin"]


def test_init_json_and_large_file_limit(cli: Invoke, root: Path) -> None:
    (root / "small.txt").write_text("x\n")
    (root / "big.bin").write_bytes(b"y" * 5000)
    result = cli("init", str(root), "--large-file-limit", "1000", "--json")
    assert result.exit_code == 0, result.output
    summary = as_json(result)
    assert summary["root"] == str(root)
    assert summary["snapshot"] == 0
    assert summary["files"] == 2
    assert summary["hash_only"] == 1
    assert summary["ignored"] == 0
    assert {"path": "big.bin", "reason": summary["skipped"][0]["reason"]} in summary["skipped"]


def test_init_reports_the_baseline_without_loading_it(
    cli: Invoke, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 30: loading snapshot 0 as a model built one per file, most of init's peak
    # memory at 100,000 files; the summary is counted from the rows instead.
    from snapline.snapshots.read import snapshots

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("init loaded the whole baseline")

    monkeypatch.setattr(snapshots, "load_snapshot", refuse)
    (root / "a.txt").write_text("hello\n")
    (root / "big.bin").write_bytes(b"y" * 5000)
    (root / ".gitignore").write_text("*.log\n")
    (root / "debug.log").write_text("noise\n")

    result = cli("init", str(root), "--large-file-limit", "1000", "--json")

    assert result.exit_code == 0, result.output
    summary = as_json(result)
    assert (summary["files"], summary["bytes"]) == (3, 6 + 5000 + 6)
    assert (summary["ignored"], summary["hash_only"], summary["unreadable"]) == (1, 1, 0)
    assert {"path": "debug.log", "reason": "ignored"} in summary["skipped"]


def test_init_uses_the_root_option(cli: Invoke, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    assert cli("--root", str(root), "init").exit_code == 0
    assert (root / ".snapline" / "repo" / "HEAD").is_file()


def test_init_twice_is_a_usage_error(cli: Invoke, project: Path) -> None:
    result = cli("init")
    assert result.exit_code == 2
    assert result.stderr.startswith("snapline: error: ")
    assert "already has a snapline store" in result.stderr


def test_init_missing_directory_is_a_usage_error(cli: Invoke, tmp_path: Path) -> None:
    result = cli("init", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert result.stderr.startswith("snapline: error: ")
    assert len(result.stderr.splitlines()) == 1


def test_init_refuses_the_home_directory_without_force(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("n\n")
    monkeypatch.setenv("HOME", str(home))
    result = cli("init", str(home))
    assert result.exit_code == 2
    assert "--force" in result.stderr
    assert cli("init", str(home), "--force").exit_code == 0


def test_init_progress_callback_runs_without_a_terminal(cli: Invoke, root: Path) -> None:
    for i in range(600):
        (root / f"f{i}.txt").write_text(f"{i}\n")
    result = cli("init", str(root))
    assert result.exit_code == 0
    assert "600 files" in result.stdout
    assert "\x1b[" not in result.output  # no bar when stderr is not a terminal


def test_record_prints_the_new_number(cli: Invoke, project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    (project / "notes.txt").write_text("new\n")
    result = cli("record", "--tool", "edit", "-m", "say bye")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "recorded snapshot 1: 2 files"
    assert "  A notes.txt" in result.stdout
    assert "  M src/app.py" in result.stdout
    snapshot = as_json(cli("show", "1", "--json"))
    assert (snapshot["tool"], snapshot["description"]) == ("edit", "say bye")


def test_record_nothing_changed_exits_0(cli: Invoke, project: Path) -> None:
    result = cli("record", "-m", "nothing")
    assert result.exit_code == 0
    assert result.stdout == "nothing changed\n"
    assert as_json(cli("record", "--json")) is None


def test_record_json_is_the_snapshot(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    data = as_json(cli("record", "--json", "--session", "agent-7", "-m", "readme"))
    assert data["number"] == 1
    assert data["session"] == "agent-7"
    assert data["description"] == "readme"
    assert [f["path"] for f in data["files"]] == ["README.md"]
    assert data["files"][0]["kind"] == "modified"
    for key in ("id", "parent_id", "time", "tool", "chain_hash", "version", "skipped"):
        assert key in data


def test_record_only_the_given_paths_relative_to_cwd(cli: Invoke, project: Path) -> None:
    (project / "src" / "app.py").write_text("print('x')\n")
    (project / "README.md").write_text("# changed\n")
    os.chdir(project / "src")
    data = as_json(cli("record", "app.py", "--json"))
    assert [f["path"] for f in data["files"]] == ["src/app.py"]
    # "." inside a subdirectory is that directory; at the root it is everything.
    os.chdir(project)
    data = as_json(cli("record", ".", "--json"))
    assert [f["path"] for f in data["files"]] == ["README.md"]


def test_record_path_outside_the_workspace_is_refused(
    cli: Invoke, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x\n")
    result = cli("record", str(outside))
    assert result.exit_code == 2
    assert "outside the workspace" in result.stderr


def test_record_says_what_it_skipped(cli: Invoke, project: Path) -> None:
    (project / ".gitignore").write_text("*.tmp\n")
    (project / "scratch.tmp").write_text("x\n")
    result = cli("record", "scratch.tmp")
    assert result.exit_code == 0
    assert result.stdout == "nothing changed\n"
    assert result.stderr == "note: scratch.tmp: ignored\n"
    result = cli("record", "-m", "gitignore")
    assert result.exit_code == 0
    assert "A .gitignore" in result.stdout


def test_run_records_side_effects_and_keeps_the_exit_code(cli: Invoke, project: Path) -> None:
    code = "open('made.txt', 'w').write('made\\n'); raise SystemExit(3)"
    result = cli("run", "--tool", "agent", "--", sys.executable, "-c", code)
    assert result.exit_code == 3
    assert "recorded snapshot 1" in result.stderr
    snapshot = as_json(cli("show", "1", "--json"))
    assert snapshot["tool"] == "agent"
    assert snapshot["metadata"]["exit_code"] == 3
    assert [f["path"] for f in snapshot["files"]] == ["made.txt"]


def test_run_without_double_dash_passes_options_to_the_command(cli: Invoke, project: Path) -> None:
    result = cli("run", sys.executable, "-c", "print('hi')")
    assert result.exit_code == 0, result.output
    assert "changed nothing" in result.stderr


def test_run_json(cli: Invoke, project: Path) -> None:
    code = "open('a.txt', 'w').write('a\\n')"
    data = as_json(cli("run", "--json", "-m", "make a", "--", sys.executable, "-c", code))
    assert data["exit_code"] == 0
    assert data["snapshot"]["number"] == 1
    assert data["snapshot"]["description"] == "make a"


def test_run_refuses_when_drifted(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# outside\n")
    marker = project / "ran.txt"
    code = f"open({str(marker)!r}, 'w').write('x')"
    result = cli("run", "--", sys.executable, "-c", code)
    assert result.exit_code == 1
    assert not marker.exists()
    assert result.stderr.startswith("snapline: error: README.md was changed outside snapline")
    assert "snapline resync" in result.stderr


@pytest.mark.parametrize("kind", ["missing", "not-executable", "a-directory"])
def test_run_that_cannot_start_exits_as_a_shell_would(project: Path, kind: str) -> None:
    # The oracle is the shell: `sh -c 'exec CMD'` fails to start CMD with 127 or 126.
    # `snapline run` is put where a shell would be, so it must say the same.
    command = {
        "missing": "definitely-not-a-command-xyz",
        "not-executable": "./plain.txt",
        "a-directory": "./src",
    }[kind]
    (project / "plain.txt").write_text("not a program\n")
    assert run_script("record", "plain.txt", cwd=project).returncode == 0
    shell = subprocess.run(["sh", "-c", f"exec {command}"], cwd=project, capture_output=True)
    assert shell.returncode in (126, 127)
    result = run_script("run", "--", command, cwd=project)
    assert result.returncode == shell.returncode
    assert result.stderr.startswith("snapline: error: cannot run")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_run_exit_code_through_the_console_script(project: Path) -> None:
    result = run_script(
        "run", "--", sys.executable, "-c", "import sys; print('out'); sys.exit(7)", cwd=project
    )
    assert result.returncode == 7
    assert result.stdout == "out\n"


def test_resync_records_the_outside_change(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# outside\n")
    assert cli("verify").exit_code == 1
    result = cli("resync", "-m", "edited in an IDE")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("recorded snapshot 1")
    assert cli("verify").exit_code == 0
    assert as_json(cli("resync", "-m", "again", "--json")) is None
    assert cli("resync", "-m", "again").stdout == "nothing changed\n"


def test_init_shows_a_progress_bar_on_a_terminal(root: Path) -> None:
    import pty
    import subprocess

    for i in range(600):
        (root / f"f{i}.txt").write_text(f"{i}\n")
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    script = Path(sys.executable).with_name("snapline")
    with subprocess.Popen(
        [str(script), "init"], cwd=root, stdout=subprocess.PIPE, stderr=slave, env=env
    ) as process:
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        stdout = process.stdout.read() if process.stdout else b""
    os.close(master)
    assert process.returncode == 0
    assert b"capturing the baseline" in b"".join(chunks)
    assert stdout.decode().startswith("initialised ")  # the summary itself is not on the tty


def _drift(root: Path) -> dict[str, str]:
    with Workspace.open(root) as ws:
        return {p.path: p.kind for p in ws.check_sync().problems if p.path is not None}


@pytest.mark.parametrize("route", ["fast", "typer", "library", "warm"])
def test_record_of_a_path_takes_in_no_other_path(
    route: str, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two files changed, `record a.txt`: the snapshot holds a.txt only (under the
    # agent's name), and b.txt, a person's edit, stays drift for `resync` to record as
    # theirs. `record` has no "before" to refuse against: it records what is on disk
    # under the paths it is given, so a path it was not given must stay out, by every
    # way in: the lean command line, the typer one, the library and the warm server.
    for name in ("a.txt", "b.txt", "ab.txt"):
        (root / name).write_text(f"{name}\n")
    (root / "a").mkdir()
    (root / "a" / "in.txt").write_text("in\n")
    (root / "c.txt").write_text("".join(f"line {n}\n" for n in range(40)))
    Workspace.init(root).close()
    for name in ("a.txt", "b.txt", "ab.txt", "a/in.txt"):
        with (root / name).open("a") as handle:
            handle.write("changed\n")
    # A move into a given folder: its old path was not given, so it is not taken in
    # as a rename either.
    (root / "c.txt").rename(root / "a" / "moved.txt")
    given = ["a.txt", "a"]
    args = ["record", "--tool", "edit", *given]
    served_before = served_after = 0
    if route == "library":
        with Workspace.open(root) as ws:
            made = ws.record(given, tool="edit", description="agent")
            assert made is not None
    elif route == "warm":
        from tests.cli.warm.conftest import start_server, wait_gone

        runtime = tmp_path / "rt"
        runtime.mkdir(mode=0o700)
        monkeypatch.setenv("SNAPLINE_RUNTIME_DIR", str(runtime))
        monkeypatch.delenv("SNAPLINE_SERVER", raising=False)
        server = start_server(runtime)
        try:
            served_before = server.served()
            done = run_script(*args, "-m", "agent", cwd=root)
            served_after = server.served()
        finally:
            run_script("server", "stop", cwd=runtime)
            wait_gone(server.pid)
        assert done.returncode == 0, done.stderr
    else:
        # `--message=agent` is not the plain form the lean path reads: typer parses it.
        message = ["-m", "agent"] if route == "fast" else ["--message=agent"]
        done = run_script(*args, *message, cwd=root)
        assert done.returncode == 0, done.stderr
    if route == "warm":
        assert served_after == served_before + 1  # the command was the server's
    with Workspace.open(root) as ws:
        latest = ws.snapshot(ws.latest)
    assert (latest.number, latest.tool, latest.description) == (1, "edit", "agent")
    assert sorted(change.path for change in latest.files) == ["a.txt", "a/in.txt", "a/moved.txt"]
    assert all(change.old_path is None for change in latest.files)
    assert _drift(root) == {"ab.txt": "modified", "b.txt": "modified", "c.txt": "deleted"}
