"""``snapline integrate claude-code``: merged into existing settings, idempotent, removable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from snapline.hosts.integrate import SettingsError, integrate_claude_code
from tests.hosts.conftest import env

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
    return subprocess.run(
        [sys.executable, "-m", "snapline", "integrate", "claude-code", "--json", *args],
        cwd=root,
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _settings(root: Path) -> Any:
    return json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))


def _commands(settings: Any, event: str) -> list[str]:
    return [h["command"] for group in settings["hooks"].get(event, []) for h in group["hooks"]]


def test_install_keeps_what_is_there_is_idempotent_and_uninstalls_cleanly(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(THEIRS, indent=4))

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
        assert ours["hooks"] == [
            {"type": "command", "command": "snapline hook claude-code", "timeout": 10}
        ]
    assert installed["hooks"]["Stop"] == THEIRS["hooks"]["Stop"]
    assert "UserPromptSubmit" not in installed["hooks"]

    second = _integrate(project)
    assert json.loads(second.stdout)["changed"] is False
    assert _settings(project) == installed

    removed = _integrate(project, "--uninstall")
    assert json.loads(removed.stdout) == {
        "path": str(project / ".claude" / "settings.json"),
        "changed": True,
        "events": [],
    }
    assert _settings(project) == THEIRS


def test_a_missing_settings_file_is_created(project: Path) -> None:
    done = integrate_claude_code(project, milestone_per_prompt=True)

    assert done.changed
    assert done.events == ("PreToolUse", "PostToolUse", "UserPromptSubmit")
    settings = _settings(project)
    assert _commands(settings, "UserPromptSubmit") == [
        "snapline hook claude-code --milestone-per-prompt"
    ]
    assert "matcher" not in settings["hooks"]["UserPromptSubmit"][0]

    # Turning milestones per prompt off again removes that hook, and uninstalling
    # leaves an empty settings object rather than snapline's leftovers.
    integrate_claude_code(project)
    assert "UserPromptSubmit" not in _settings(project)["hooks"]
    integrate_claude_code(project, uninstall=True)
    assert _settings(project) == {}


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
