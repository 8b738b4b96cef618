"""What ``snapline hook claude-code`` prints is what Claude Code reads and shows.

Claude Code reads a hook's stdout as JSON at exit 0 and shows its stderr to nobody
then, so a warning must travel as the common field ``systemMessage`` (shown to the
person), and after the tool also as ``hookSpecificOutput.additionalContext`` (given to
the model), the two fields its hooks reference documents for that. Each event is fed as
Claude Code writes it, to a real process.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import filelock

from snapline import Workspace
from tests.hosts.conftest import env, event, hook, snapline

# What Claude Code documents each event's JSON may hold: the common fields, then its own.
_COMMON = {"continue", "stopReason", "suppressOutput", "systemMessage"}
_SPECIFIC = {
    "PreToolUse": {
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
    },
    "PostToolUse": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
}


def _edit(name: str, root: Path, path: str, **fields: Any) -> dict[str, Any]:
    tool_input = {"file_path": path, "old_string": "hello", "new_string": "bye"}
    return event(name, root, "Edit", tool_input=tool_input, **fields)


def _said(done: subprocess.CompletedProcess[str], name: str | None) -> dict[str, Any]:
    """The hook's one JSON object, checked against what the event accepts (exit 0)."""
    assert done.returncode == 0, done
    assert "Traceback" not in done.stderr
    assert done.stdout.count("\n") == 1, done.stdout
    said = json.loads(done.stdout)
    assert set(said) <= _COMMON | {"hookSpecificOutput"}, said
    if "hookSpecificOutput" in said:
        assert name is not None
        specific = said["hookSpecificOutput"]
        assert specific["hookEventName"] == name
        assert set(specific) <= _SPECIFIC[name], specific
    return said


def _warned(done: subprocess.CompletedProcess[str], name: str | None) -> dict[str, Any]:
    """A warning: ``systemMessage`` is the one line that stderr has for logs."""
    said = _said(done, name)
    line = said["systemMessage"]
    assert line.startswith("snapline: warning: ")
    assert "\n" not in line
    assert done.stderr == line + "\n"
    return said


def _busy(root: Path, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    with filelock.FileLock(str(root / ".snapline" / "lock")):
        return snapline(root, "--timeout", "0.1", "hook", "claude-code", stdin=json.dumps(payload))


def _latest(root: Path) -> int:
    with Workspace.open(root) as ws:
        return ws.latest


def test_an_edit_not_recorded_tells_the_person_and_the_model(project: Path) -> None:
    target = str(project / "src" / "app.py")
    (project / "src" / "app.py").write_text("print('bye')\n")

    said = _warned(_busy(project, _edit("PostToolUse", project, target)), "PostToolUse")

    assert "busy" in said["systemMessage"]
    assert "not recorded" in said["systemMessage"]
    context = said["hookSpecificOutput"]["additionalContext"]
    assert f"did not record your Edit of {target}" in context
    assert _latest(project) == 0
    # The way out it gives the model works: its edit is recorded as its own, and the
    # next edit of that file is no longer refused as made outside snapline.
    advice = re.findall(r"`(snapline record [^`]*)`", context)
    assert len(advice) == 1, context
    recorded = snapline(project, *shlex.split(advice[0])[1:])
    assert recorded.returncode == 0, recorded.stderr
    with Workspace.open(project) as ws:
        snapshot = ws.snapshot(ws.latest)
    assert (snapshot.number, snapshot.tool, snapshot.session) == (1, "Edit", "sess-1")
    assert [f.path for f in snapshot.files] == ["src/app.py"]
    again = hook(_edit("PreToolUse", project, target), cwd=project)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")


def test_a_command_not_recorded_tells_the_model_which_tool(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    post = event(
        "PostToolUse",
        project,
        "Bash",
        tool_input={"command": "sed -i s/hello/bye/ src/app.py"},
        tool_response={"stdout": "", "stderr": "", "interrupted": False},
    )

    said = _warned(_busy(project, post), "PostToolUse")

    context = said["hookSpecificOutput"]["additionalContext"]
    assert "did not record what your Bash call changed" in context
    assert "snapline record PATH... --tool Bash --session sess-1" in context
    assert _latest(project) == 0


def test_bad_input_is_a_message_for_the_person(project: Path) -> None:
    for text in ("{not json", "[1, 2]", "", "[" * 200_000):
        said = _warned(hook(text, cwd=project), None)
        assert list(said) == ["systemMessage"], text
    missing = event("PostToolUse", project, "Edit", tool_input={})
    said = _warned(hook(missing, cwd=project), "PostToolUse")
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "did not record what your Edit call changed" in context
    assert _latest(project) == 0


def test_a_misconfigured_hook_command_is_a_message_for_the_person(project: Path) -> None:
    done = hook(_edit("PreToolUse", project, "src/app.py"), "--bogus", cwd=project)

    said = _warned(done, None)
    assert list(said) == ["systemMessage"]
    assert "unknown hook arguments" in said["systemMessage"]


def _patched(root: Path, patch: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """The hook's own process, with one function of snapline's made to fail as a bug would."""
    code = (
        "import sys\n"
        f"{patch}\n"
        "sys.argv = ['snapline', 'hook', 'claude-code']\n"
        "from snapline.cli import main\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload),
        cwd=root,
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _failing(module: str, function: str, error: str) -> str:
    """Code that makes ``module.function`` raise ``error``, for :func:`_patched`."""
    return (
        f"import {module} as patched\n"
        "def failing(*args, **kwargs):\n"
        f"    raise {error}\n"
        f"patched.{function} = failing"
    )


def test_an_internal_error_after_the_tool_tells_the_person_and_the_model(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    broken = _failing("snapline.workspace.rows", "record_rows", "KeyError('x')")

    done = _patched(project, broken, _edit("PostToolUse", project, "src/app.py"))

    said = _warned(done, "PostToolUse")
    assert "internal error KeyError" in said["systemMessage"]
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "did not record your Edit of src/app.py" in context


def test_an_internal_error_reading_the_event_tells_the_person(project: Path) -> None:
    broken = _failing("snapline.hosts.claude_code", "handle_input", "KeyError('x')")

    done = _patched(project, broken, _edit("PostToolUse", project, "src/app.py"))

    said = _warned(done, None)
    assert list(said) == ["systemMessage"]
    assert "internal error KeyError" in said["systemMessage"]


def test_a_failure_before_the_tool_only_tells_the_person(project: Path) -> None:
    # Nothing was to be recorded yet: the tool runs unchecked, the model is told nothing.
    broken = _failing("snapline.workspace.rows", "sync_state", "PermissionError('denied')")

    done = _patched(project, broken, _edit("PreToolUse", project, "src/app.py"))

    said = _warned(done, "PreToolUse")
    assert list(said) == ["systemMessage"]
    assert "denied; not checked; the tool was not blocked" in said["systemMessage"]


def test_a_prompt_not_numbered_only_tells_the_person(project: Path) -> None:
    broken = _failing("snapline.hosts.claude_prompt", "_number", "PermissionError('denied')")

    done = _patched(project, broken, event("UserPromptSubmit", project, prompt="hi"))

    said = _warned(done, "UserPromptSubmit")
    assert list(said) == ["systemMessage"]
    assert "denied; this prompt was not numbered" in said["systemMessage"]


def test_a_denied_edit_is_one_decision_and_no_warning(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('edited by a person')\n")

    done = hook(_edit("PreToolUse", project, "src/app.py"), cwd=project)

    said = _said(done, "PreToolUse")
    assert done.stderr == ""
    assert list(said) == ["hookSpecificOutput"]
    decision = said["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "src/app.py (modified)" in decision["permissionDecisionReason"]
