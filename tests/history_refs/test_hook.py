"""The Claude Code hook on a history on git's refs keeps its notes under ``.git/snapline/``.

The prompt numbering (``claude-code-prompts.json``), the prompt a milestone closes
under and a Bash command's pending drift are local notes: in a git work tree they go
to the local state, never into the work tree, and ``git status`` stays clean.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.history_refs.gitrepo import claude_hook, new_repo


def _event(root: Path, name: str, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "session_id": "sess-1",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
    }
    data.update(fields)
    return data


def _hook(root: Path, event: dict[str, Any], *args: str) -> None:
    claude_hook(root, event, *args)


def test_the_hooks_notes_go_to_the_local_state(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"app.py": "print('hi')\n"})
    repo.ok("init")
    _hook(
        repo.path,
        _event(repo.path, "UserPromptSubmit", prompt="Add a greeting"),
        "--milestone-per-prompt",
    )
    (repo.path / "app.py").write_text("print('bye')\n")  # changed outside: Bash must ask
    bash = {"tool_name": "Bash", "tool_use_id": "toolu_01", "tool_input": {"command": "ls"}}
    _hook(repo.path, _event(repo.path, "PreToolUse", **bash))
    state = repo.path / ".git" / "snapline"
    assert "Add a greeting" in (state / "claude-code-prompts.json").read_text()
    assert "app.py" in (state / "claude-code-pending.json").read_text()
    assert not (repo.path / ".snapline").exists()
    assert repo.git("status", "--porcelain", "--ignored") == " M app.py\n"
