"""``snapline hook claude-code``: events fed on stdin as Claude Code does, a real process each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import filelock

from snapline import Workspace
from snapline.hosts.claude_code import HookOutcome, Verdict, handle_event, handle_input
from tests.hosts.conftest import env, event, hook


def _edit(name: str, root: Path, path: str, **fields: object) -> dict[str, object]:
    tool_input = {"file_path": path, "old_string": "hello", "new_string": "bye"}
    return event(name, root, "Edit", tool_input=tool_input, **fields)


def _latest(root: Path) -> int:
    with Workspace.open(root) as ws:
        return ws.latest


def _decision(done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """The ``permissionDecision`` and its reason the hook printed (exit 0, stdout JSON)."""
    assert (done.returncode, done.stderr) == (0, ""), done
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    return output["permissionDecision"], output["permissionDecisionReason"]


def test_an_edit_is_checked_before_and_recorded_after(project: Path) -> None:
    target = str(project / "src" / "app.py")
    before = hook(_edit("PreToolUse", project, target), cwd=project)
    assert (before.returncode, before.stderr) == (0, "")

    (project / "src" / "app.py").write_text("print('bye')\n")
    (project / "README.md").write_text("# changed by someone else\n")
    response = {"filePath": target, "success": True}
    after = hook(_edit("PostToolUse", project, target, tool_response=response), cwd=project)

    assert (after.returncode, after.stderr) == (0, "")
    with Workspace.open(project) as ws:
        snapshot = ws.snapshot(ws.latest)
    assert snapshot.number == 1
    assert (snapshot.tool, snapshot.session, snapshot.description) == (
        "Edit",
        "sess-1",
        "Edit src/app.py",
    )
    # Just the tool's file: the other change is left for resync to show.
    assert [f.path for f in snapshot.files] == ["src/app.py"]


def test_an_edit_of_a_file_changed_outside_is_refused(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('edited by a person')\n")

    done = hook(_edit("PreToolUse", project, "src/app.py"), cwd=project)

    decision, reason = _decision(done)
    assert decision == "deny"
    assert "src/app.py (modified)" in reason
    assert "snapline resync" in reason
    assert _latest(project) == 0


def test_relative_paths_are_relative_to_the_event_cwd(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('edited by a person')\n")
    pre = _edit("PreToolUse", project, "app.py", cwd=str(project / "src"))

    assert handle_event(pre).verdict is Verdict.DENY


def test_a_new_file_is_allowed_and_recorded_as_added(project: Path) -> None:
    path = str(project / "docs" / "new.md")
    write = {"file_path": path, "content": "# new\n"}
    before = hook(event("PreToolUse", project, "Write", tool_input=write), cwd=project)
    assert before.returncode == 0

    (project / "docs").mkdir()
    (project / "docs" / "new.md").write_text("# new\n")
    done = hook(event("PostToolUse", project, "Write", tool_input=write), cwd=project)

    assert done.returncode == 0, done.stderr
    with Workspace.open(project) as ws:
        snapshot = ws.snapshot(1)
    assert [(f.path, f.kind.value) for f in snapshot.files] == [("docs/new.md", "added")]
    assert snapshot.tool == "Write"


def test_notebook_edits_use_the_notebook_path(project: Path) -> None:
    (project / "nb.ipynb").write_text("{}\n")  # created outside: untracked
    notebook = {"notebook_path": str(project / "nb.ipynb"), "new_source": "x = 1"}

    outcome = handle_event(event("PreToolUse", project, "NotebookEdit", tool_input=notebook))

    assert outcome.verdict is Verdict.DENY
    assert "nb.ipynb (untracked)" in outcome.message


def test_bash_is_recorded_whole_with_its_exact_command(project: Path) -> None:
    command = {"command": "python make.py && rm README.md", "description": "build"}
    allowed = hook(event("PreToolUse", project, "Bash", tool_input=command), cwd=project)
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")

    (project / "out.txt").write_text("built\n")
    (project / "README.md").unlink()
    response = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False}
    post = event("PostToolUse", project, "Bash", tool_input=command, tool_response=response)
    done = hook(post, cwd=project)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with Workspace.open(project) as ws:
        snapshot = ws.snapshot(1)
    assert snapshot.tool == "Bash"
    assert snapshot.description == "python make.py && rm README.md"
    assert sorted(f.path for f in snapshot.files) == ["README.md", "out.txt"]
    assert snapshot.metadata == {
        "via": "claude-code",
        "session_id": "sess-1",
        "tool_use_id": "toolu_01",
        "transcript_path": str(project / "transcript.jsonl"),
        "command": "python make.py && rm README.md",
        "command_description": "build",
    }


def test_a_long_or_multi_line_command_is_cut_in_the_description_only() -> None:
    from snapline.hosts.claude_bash import describe_command

    assert describe_command("sed -i 's/^a$/a  # b/' f") == "sed -i 's/^a$/a  # b/' f"
    assert describe_command("a  b\n  c") == "a  b…"
    assert describe_command("x" * 300) == "x" * 199 + "…"


def test_no_store_means_nothing_to_do(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")

    done = hook(_edit("PostToolUse", tmp_path, str(tmp_path / "a.txt")), cwd=tmp_path)

    assert (done.returncode, done.stderr) == (0, "")
    assert not (tmp_path / ".snapline").exists()


def test_malformed_input_is_a_warning_never_a_block(project: Path) -> None:
    for text in ("{not json", "[1, 2]", ""):
        done = hook(text, cwd=project)
        assert done.returncode == 0
        assert done.stderr.startswith("snapline: warning: ")
    missing_path = event("PreToolUse", project, "Edit", tool_input={})
    assert handle_event(missing_path).verdict is Verdict.WARN


def test_files_outside_the_workspace_are_let_through(project: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "elsewhere.txt")
    assert handle_event(_edit("PreToolUse", project, path)) == HookOutcome()
    assert handle_event(_edit("PostToolUse", project, path)) == HookOutcome()
    assert _latest(project) == 0


def test_an_edit_inside_the_store_is_refused_and_never_recorded(project: Path) -> None:
    # The writers' rule (tests/test_writers_lane.py drives every writer).
    path = str(project / ".snapline" / "x")
    refused = handle_event(_edit("PreToolUse", project, path))
    assert refused.verdict is Verdict.DENY
    assert "refusing to write" in refused.message
    assert handle_event(_edit("PostToolUse", project, path)) == HookOutcome()
    assert _latest(project) == 0


def test_other_events_and_tools_do_nothing(project: Path) -> None:
    (project / "README.md").write_text("drifted\n")
    read = event("PreToolUse", project, "Read", tool_input={"file_path": "README.md"})
    for quiet in (read, event("Stop", project), event("UserPromptSubmit", project, prompt="hi")):
        assert handle_event(quiet, milestone_per_prompt=False) == HookOutcome()


def test_a_busy_store_is_a_warning_after_a_short_wait(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    with filelock.FileLock(str(project / ".snapline" / "lock")):
        done = hook(_edit("PostToolUse", project, "src/app.py"), cwd=project)

    assert done.returncode == 0
    assert "busy" in done.stderr
    assert _latest(project) == 0


def test_a_milestone_per_prompt_when_asked(project: Path) -> None:
    first = event("UserPromptSubmit", project, prompt="Add a greeting\nwith details")
    assert hook(first, cwd=project, SNAPLINE_MILESTONE_PER_PROMPT="1").returncode == 0
    (project / "src" / "app.py").write_text("print('bye')\n")
    assert handle_event(_edit("PostToolUse", project, "src/app.py")).snapshot == 1

    second = event("UserPromptSubmit", project, prompt="Now the tests")
    done = hook(second, "--milestone-per-prompt", cwd=project)

    assert (done.returncode, done.stderr) == (0, "")
    with Workspace.open(project) as ws:
        milestones = ws.milestones.list()
    assert [(m.number, m.title, m.first, m.last) for m in milestones] == [
        (1, "Add a greeting", 1, 1)
    ]
    # Nothing new since: the next prompt closes no empty milestone.
    assert handle_event(second, milestone_per_prompt=True) == HookOutcome()


def test_milestones_per_prompt_are_off_by_default(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    handle_event(_edit("PostToolUse", project, "src/app.py"))

    prompt = event("UserPromptSubmit", project, prompt="next")
    assert hook(prompt, cwd=project).returncode == 0
    with Workspace.open(project) as ws:
        assert ws.milestones.list() == []


def test_handle_input_parses_what_claude_code_writes(project: Path) -> None:
    (project / "README.md").write_text("drifted\n")
    text = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(project)})
    text = text[:-1] + ', "tool_input": {"file_path": "README.md"}}'

    outcome = handle_input(text)

    assert (outcome.verdict, outcome.exit_code) == (Verdict.DENY, 0)


def test_the_hook_path_loads_neither_typer_nor_rich(project: Path) -> None:
    code = (
        "import sys\n"
        "sys.argv = ['snapline', 'hook', 'claude-code']\n"
        "from snapline.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as done:\n"
        "    code = done.code\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'rich', 'click'})\n"
        "sys.stderr.write(repr((code, loaded)))\n"
    )
    post = _edit("PostToolUse", project, "src/app.py")
    (project / "src" / "app.py").write_text("print('bye')\n")

    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(post),
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert done.stderr == "(0, [])"
    assert _latest(project) == 1


def test_a_misconfigured_hook_command_warns_but_never_blocks(project: Path) -> None:
    done = hook(_edit("PreToolUse", project, "src/app.py"), "--bogus", cwd=project)

    assert done.returncode == 0
    assert done.stderr.startswith("snapline: warning: unknown hook arguments")


def test_ignored_files_are_neither_guarded_nor_recorded(project: Path) -> None:
    (project / ".gitignore").write_text("*.log\n")
    with Workspace.open(project) as ws:
        ws.record(".gitignore")
    (project / "debug.log").write_text("written by a person\n")
    write = {"file_path": "debug.log", "content": "x\n"}

    done = hook(event("PreToolUse", project, "Write", tool_input=write), cwd=project)
    after = hook(event("PostToolUse", project, "Write", tool_input=write), cwd=project)

    assert (done.returncode, done.stderr) == (0, "")
    assert (after.returncode, after.stderr) == (0, "")
    assert _latest(project) == 1


# -- issue 27 item 3: the hook keeps what Claude Code sends, and never blocks blindly ------


def _bash(name: str, root: Path, command: str, tool_use_id: str = "toolu_01") -> dict[str, object]:
    tool_input = {"command": command, "description": "run it"}
    fields: dict[str, object] = {"tool_input": tool_input, "tool_use_id": tool_use_id}
    if name == "PostToolUse":
        fields["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    return event(name, root, "Bash", **fields)


def test_the_exact_command_and_the_event_ids_are_kept(project: Path) -> None:
    (project / "f.py").write_text("import os\n")
    with Workspace.open(project) as ws:
        ws.record("f.py")
    command = "sed -i 's/^import os$/import os  # sed/' f.py"
    assert hook(_bash("PreToolUse", project, command), cwd=project).stdout == ""
    subprocess.run(
        ["sed", "-i", "s/^import os$/import os  # sed/", "f.py"], cwd=project, check=True
    )

    done = hook(_bash("PostToolUse", project, command, "toolu_sed"), cwd=project)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with Workspace.open(project) as ws:
        snapshot = ws.snapshot("latest")
    assert snapshot.description == command
    assert snapshot.metadata["command"] == command
    assert snapshot.metadata["tool_use_id"] == "toolu_sed"
    assert snapshot.metadata["session_id"] == snapshot.session == "sess-1"
    assert snapshot.metadata["transcript_path"] == str(project / "transcript.jsonl")
    assert [f.path for f in snapshot.files] == ["f.py"]


def test_a_file_tool_snapshot_keeps_the_event_ids(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    edit = _edit("PostToolUse", project, "src/app.py", tool_use_id="toolu_edit")

    assert hook(edit, cwd=project).returncode == 0

    with Workspace.open(project) as ws:
        metadata = ws.snapshot(1).metadata
    assert metadata == {
        "via": "claude-code",
        "session_id": "sess-1",
        "tool_use_id": "toolu_edit",
        "transcript_path": str(project / "transcript.jsonl"),
    }


def test_deeply_nested_json_is_a_warning_not_a_traceback(project: Path) -> None:
    for text in ("[" * 200_000, '{"a":' * 200_000, "[" * 200_000 + "]" * 200_000):
        done = hook(text, cwd=project)
        assert done.returncode == 0
        assert json.loads(done.stdout) == {"systemMessage": done.stderr.rstrip("\n")}
        assert done.stderr.startswith("snapline: warning: ")
        assert done.stderr.count("\n") == 1
        assert "Traceback" not in done.stderr
    assert _latest(project) == 0


def test_bash_over_an_outside_change_asks_the_person(project: Path) -> None:
    (project / "README.md").write_text("# saved by a person's editor\n")

    asked = hook(_bash("PreToolUse", project, "pytest -q"), cwd=project)

    decision, reason = _decision(asked)
    assert decision == "ask"
    assert "README.md (modified)" in reason
    assert "snapline resync" in reason
    # The drifted file itself stays refused to the agent's file tools...
    edit = hook(_edit("PreToolUse", project, "README.md"), cwd=project)
    assert _decision(edit)[0] == "deny"
    # ... while another file, and every read-only tool, goes on.
    other = hook(_edit("PreToolUse", project, str(project / "src" / "app.py")), cwd=project)
    assert (other.returncode, other.stdout, other.stderr) == (0, "", "")
    assert _latest(project) == 0


def test_read_only_tools_are_never_refused(project: Path) -> None:
    (project / "README.md").write_text("drifted\n")
    (project / "stray.txt").write_text("new\n")
    inputs: dict[str, dict[str, object]] = {
        "Read": {"file_path": str(project / "README.md")},
        "Grep": {"pattern": "x", "path": str(project)},
        "Glob": {"pattern": "**/*.md"},
        "LS": {"path": str(project)},
        "NotebookRead": {"notebook_path": str(project / "nb.ipynb")},
        "WebFetch": {"url": "https://example.com", "prompt": "summarise"},
        "WebSearch": {"query": "snapline"},
        "TodoWrite": {"todos": []},
        "Task": {"description": "look", "prompt": "look around"},
    }
    for tool, tool_input in inputs.items():
        for name in ("PreToolUse", "PostToolUse"):
            done = hook(event(name, project, tool, tool_input=tool_input), cwd=project)
            assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), tool
    assert _latest(project) == 0


def test_an_allowed_command_is_recorded_apart_from_the_outside_change(project: Path) -> None:
    (project / "README.md").write_text("# a person's edit\n")
    (project / "notes.txt").write_text("a person's new file\n")
    (project / "src" / "app.py").write_text("print('person')\n")
    assert _decision(hook(_bash("PreToolUse", project, "make", "toolu_make"), cwd=project))[0] == (
        "ask"
    )
    # The person allowed it; the command builds, and also rewrites src/app.py.
    (project / "build.txt").write_text("built\n")
    (project / "src" / "app.py").write_text("print('made')\n")

    done = hook(_bash("PostToolUse", project, "make", "toolu_make"), cwd=project)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with Workspace.open(project) as ws:
        outside, command = ws.snapshot(1), ws.snapshot(2)
        assert ws.check_sync().ok
    assert outside.tool == "external"
    assert sorted(f.path for f in outside.files) == ["README.md", "notes.txt"]
    assert outside.metadata["tool_use_id"] == "toolu_make"
    assert command.tool == "Bash"
    assert sorted(f.path for f in command.files) == ["build.txt", "src/app.py"]
    assert command.metadata["outside_changes"] == ["src/app.py"]
    assert not json.loads((project / ".snapline" / "claude-code-pending.json").read_text())


def test_a_pending_outside_edit_never_has_the_model_record_it(project: Path) -> None:
    """Every event, fed to the real hook while a person's edit waits: nothing blocks the
    model by exit 2, and what reaches the model leaves keeping the change to the person."""
    (project / "src" / "app.py").write_text("print('edited by a person')\n")
    bash_input = {"command": "snapline resync -m mine", "description": "record it"}
    events = [
        event("Stop", project, stop_hook_active=False),
        event("Stop", project, stop_hook_active=True),
        event("UserPromptSubmit", project, prompt="go on"),
        _edit("PreToolUse", project, str(project / "src" / "app.py")),
        event("PreToolUse", project, "Bash", tool_input=bash_input),
    ]
    for sent in events:
        done = hook(sent, cwd=project)
        assert done.returncode == 0, (sent["hook_event_name"], done)
        if sent["hook_event_name"] in ("Stop", "UserPromptSubmit"):
            assert (done.stdout, done.stderr) == ("", ""), done
            continue
        decision, reason = _decision(done)
        if decision == "deny":  # the reason goes to the model
            assert "src/app.py (modified)" in reason
            assert "do not record or undo it yourself" in reason
            assert "ask the user to keep it (`snapline resync`)" in reason
        else:  # "ask": the reason goes to the person, who decides
            assert decision == "ask"
    assert _latest(project) == 0
