"""Running the real ``snapline`` command line as an agent host would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace

CHECKOUT = Path(__file__).resolve().parents[2]


def env(**extra: str) -> dict[str, str]:
    """The environment for a child: this checkout's snapline, no milestone setting."""
    result = {k: v for k, v in os.environ.items() if k != "SNAPLINE_MILESTONE_PER_PROMPT"}
    result["PYTHONPATH"] = str(CHECKOUT)
    result.update(extra)
    return result


def snapline(
    root: Path, *args: str, stdin: str | None = None, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m snapline ARGS`` in ``root``, as a host runs the command line."""
    return subprocess.run(
        [sys.executable, "-m", "snapline", *args],
        input=stdin,
        cwd=root,
        env=env(**extra_env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def hook(
    event: dict[str, Any] | str, *args: str, cwd: Path, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    """Feed one event to ``python -m snapline hook claude-code`` on stdin, as Claude Code does."""
    text = event if isinstance(event, str) else json.dumps(event)
    return snapline(cwd, "hook", "claude-code", *args, stdin=text, **extra_env)


def event(name: str, root: Path, tool: str | None = None, **fields: Any) -> dict[str, Any]:
    """A hook event of the documented shape (common fields, then the event's own)."""
    data: dict[str, Any] = {
        "session_id": "sess-1",
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
    }
    if tool is not None:
        data["tool_name"] = tool
        data["tool_use_id"] = "toolu_01"
    data.update(fields)
    return data


def hook_write(root: Path, path: str, text: str, session: str, kind: str = "create") -> None:
    """Write ``path`` as Claude Code's Write tool does, then feed the hook its ``PostToolUse``.

    Args:
        root: The workspace.
        path: The file, relative to ``root``; its folders are made.
        text: The new content.
        session: The conversation's ``session_id``.
        kind: The tool response's ``type``: ``create`` or ``update``.
    """
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)
    tool_input = {"file_path": str(root / path), "content": text}
    post = event("PostToolUse", root, "Write", tool_input=tool_input, session_id=session)
    post["tool_response"] = {"type": kind, "filePath": str(root / path), "content": text}
    done = hook(post, cwd=root)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.fixture
def project(root: Path) -> Path:
    """An initialised workspace with ``src/app.py`` and ``README.md`` in its baseline."""
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "README.md").write_text("# demo\n")
    Workspace.init(root).close()
    return root
