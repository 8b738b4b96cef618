"""``snapline integrate claude-code``: merged into existing settings, idempotent, removable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.hosts.integrate import SettingsError, integrate_claude_code
from tests.hosts.conftest import env, hook, snapline
from tests.hosts.conftest import event as hook_event

# The snapline that runs `integrate` here, by absolute path: the console script beside
# this interpreter (`python -m snapline` has no script of its own).
SCRIPT = str(Path(sys.executable).with_name("snapline"))
OURS = f"{SCRIPT} hook claude-code"
SETTINGS = ".claude/settings.json"

THEIRS: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "1"},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}],
            }
        ],
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "ruff format"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def _integrate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return snapline(root, "integrate", "claude-code", "--json", *args)


def _settings(root: Path) -> Any:
    return json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))


def _commands(settings: Any, event: str) -> list[str]:
    return [h["command"] for group in settings["hooks"].get(event, []) for h in group["hooks"]]


def test_install_keeps_what_is_there_is_idempotent_and_uninstalls_cleanly(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(THEIRS, indent=4))
    original = (project / ".claude" / "settings.json").read_bytes()

    first = _integrate(project)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["changed"] is True
    installed = _settings(project)
    assert {k: v for k, v in installed.items() if k != "hooks"} == {
        k: v for k, v in THEIRS.items() if k != "hooks"
    }
    for event in ("PreToolUse", "PostToolUse"):
        assert _commands(installed, event)[:1] == _commands(THEIRS, event)
        ours = installed["hooks"][event][-1]
        assert ours["matcher"] == "Edit|Write|MultiEdit|NotebookEdit|Bash"
        assert ours["hooks"] == [{"type": "command", "command": OURS, "timeout": 10}]
    assert installed["hooks"]["Stop"] == THEIRS["hooks"]["Stop"]
    # Every prompt is numbered, for before-prompt:N@SESSION (no flags by default).
    assert _commands(installed, "UserPromptSubmit") == [OURS]

    second = _integrate(project)
    assert json.loads(second.stdout)["changed"] is False
    assert _settings(project) == installed

    removed = _integrate(project, "--uninstall")
    reported = json.loads(removed.stdout)
    assert (reported["path"], reported["changed"], reported["events"]) == (
        str(project / ".claude" / "settings.json"),
        True,
        [],
    )
    # Byte for byte: the indent of 4 and the key order are the person's, not json.dumps'.
    assert (project / ".claude" / "settings.json").read_bytes() == original


def test_a_missing_settings_file_is_created(project: Path) -> None:
    done = integrate_claude_code(project, milestone_per_prompt=True)

    assert done.changed
    assert done.events == ("PreToolUse", "PostToolUse", "UserPromptSubmit")
    settings = _settings(project)
    assert _commands(settings, "UserPromptSubmit") == [f"{OURS} --milestone-per-prompt"]
    assert "matcher" not in settings["hooks"]["UserPromptSubmit"][0]

    # Turning milestones per prompt off again drops the flag, and uninstalling
    # leaves nothing where there was nothing: no file, no .claude/ directory.
    integrate_claude_code(project, prompt_digest=True)
    assert _commands(_settings(project), "UserPromptSubmit") == [f"{OURS} --prompt-digest"]
    integrate_claude_code(project, uninstall=True)
    assert not (project / ".claude").exists()


def test_a_group_shared_with_another_hook_keeps_the_other(project: Path) -> None:
    shared = {
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Edit",
                    "hooks": [
                        {"type": "command", "command": "/opt/bin/snapline hook claude-code"},
                        {"type": "command", "command": "ruff format"},
                    ],
                }
            ]
        }
    }
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(shared))

    integrate_claude_code(project, uninstall=True)

    assert _settings(project)["hooks"]["PostToolUse"] == [
        {"matcher": "Edit", "hooks": [{"type": "command", "command": "ruff format"}]}
    ]


def test_a_custom_command_is_written_and_recognised(project: Path) -> None:
    integrate_claude_code(project, command="/venv/bin/snapline hook claude-code")
    assert not integrate_claude_code(project, command="/venv/bin/snapline hook claude-code").changed

    assert _commands(_settings(project), "PreToolUse") == ["/venv/bin/snapline hook claude-code"]


@pytest.mark.parametrize("text", ["{oops", "[]", '{"hooks": []}', '{"hooks": {"PreToolUse": {}}}'])
def test_settings_that_are_not_settings_are_refused_untouched(project: Path, text: str) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(text)

    with pytest.raises(SettingsError) as caught:
        integrate_claude_code(project)

    assert caught.value.path == str(project / ".claude" / "settings.json")
    assert (project / ".claude" / "settings.json").read_text() == text


def test_the_command_says_what_is_wrong_in_one_line(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{oops")

    done = _integrate(project)

    assert done.returncode == 1
    assert done.stderr.startswith("snapline: error: cannot update ")


def test_integrate_needs_a_workspace(tmp_path: Path) -> None:
    done = _integrate(tmp_path)

    assert done.returncode != 0
    assert not (tmp_path / ".claude").exists()


# -- issue 27 item 4: integrate works the first time ------------------------------------


def _run_script(root: Path, *args: str, path: str) -> subprocess.CompletedProcess[str]:
    """The console script by its full path, with ``PATH`` as given (as a person's shell)."""
    return subprocess.run(
        [SCRIPT, *args],
        cwd=root,
        env=env(PATH=path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_hooks_run_this_snapline_and_work_without_it_on_path(project: Path) -> None:
    bare_path = "/usr/bin:/bin"  # no virtualenv: `snapline` is not found there
    assert shutil.which("snapline", path=bare_path) is None

    done = _run_script(project, "integrate", "claude-code", "--json", path=bare_path)

    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("snapline: warning: `snapline` is not on PATH")
    assert done.stderr.count("\n") == 1
    assert json.loads(done.stdout)["command"] == OURS
    command = _commands(_settings(project), "PostToolUse")[0]
    assert command == OURS
    # The command Claude Code will run, through a shell with that same PATH, records.
    (project / "src" / "app.py").write_text("print('edited by the agent')\n")
    post = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_use_id": "toolu_1",
        "tool_input": {"file_path": str(project / "src" / "app.py")},
    }
    hooked = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(post),
        cwd=project,
        env=env(PATH=bare_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (hooked.returncode, hooked.stderr) == (0, "")
    with Workspace.open(project) as ws:
        assert ws.snapshot("latest").files[0].path == "src/app.py"


def test_no_warning_when_this_snapline_is_the_one_on_path(project: Path) -> None:
    here = f"{Path(SCRIPT).parent}{os.pathsep}/usr/bin:/bin"
    done = _run_script(project, "integrate", "claude-code", path=here)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_settings_change_is_recorded_never_drift(project: Path) -> None:
    done = _integrate(project)
    assert done.returncode == 0, done.stderr
    snapshots = json.loads(done.stdout)["snapshots"]

    with Workspace.open(project) as ws:
        assert ws.check_sync().ok
        recorded = ws.snapshot(snapshots[-1])
    assert snapshots == [1]
    assert (recorded.tool, [f.path for f in recorded.files]) == ("integrate", [SETTINGS])
    # The hooks' own first Bash call finds nothing to ask about.
    pre = hook_event("PreToolUse", project, "Bash", tool_input={"command": "ls"})
    asked = hook(pre, cwd=project)
    assert (asked.returncode, asked.stdout, asked.stderr) == (0, "", "")

    removed = _integrate(project, "--uninstall")
    assert json.loads(removed.stdout)["snapshots"] == [2]
    with Workspace.open(project) as ws:
        assert ws.check_sync().ok
        assert ws.snapshot(2).files[0].kind.value == "deleted"


def test_a_person_s_unrecorded_settings_are_recorded_first_as_their_own(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"model": "opus"}\n')

    done = integrate_claude_code(project)

    assert len(done.snapshots) == 2
    with Workspace.open(project) as ws:
        outside, ours = ws.snapshot(done.snapshots[0]), ws.snapshot(done.snapshots[1])
        assert ws.content_at(SETTINGS, outside.number) == b'{"model": "opus"}\n'
        assert ws.check_sync().ok
    assert (outside.tool, ours.tool) == ("external", "integrate")


@pytest.mark.parametrize(
    "original",
    [
        b'{\n\t"model": "opus",\n\t"env": {"A": "\xc3\xa9"}\n}',  # tabs, no final newline
        b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}\r\n',
        b"{}",
        b"",
    ],
)
def test_uninstall_gives_the_file_back_byte_for_byte(project: Path, original: bytes) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_bytes(original)
    with Workspace.open(project) as ws:
        ws.record(SETTINGS)

    integrate_claude_code(project, milestone_per_prompt=True)
    assert integrate_claude_code(project, milestone_per_prompt=True).changed is False
    assert (project / ".claude" / "settings.json").read_bytes() != original
    integrate_claude_code(project, uninstall=True)

    assert (project / ".claude" / "settings.json").read_bytes() == original
    with Workspace.open(project) as ws:
        assert ws.check_sync().ok
    assert not (project / ".snapline" / "claude-code-settings.before.json").exists()


def test_uninstall_after_other_edits_removes_only_ours(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"model": "opus"}')
    integrate_claude_code(project)
    settings = _settings(project)
    settings["env"] = {"B": "2"}
    with Workspace.open(project) as ws:
        ws.write_file(SETTINGS, json.dumps(settings))

    integrate_claude_code(project, uninstall=True)

    assert _settings(project) == {"model": "opus", "env": {"B": "2"}}
