"""An agent's edit the hook could not record is recorded by the hook at the next tool call.

When ``PostToolUse`` of a file tool cannot record (here: the store's lock held past the
hook's wait), the change is the agent's own, on disk and not in the history. The hook
notes it and records it, as that tool's, at the next ``PreToolUse`` or ``PostToolUse``,
unless its content changed in between (someone else's doing: refused as any outside
change). Real hook processes, fed Claude Code's event JSON, on a git work tree (the
history on its refs) and outside git (a private repository); the oracle for "as the
agent's" is the same edit recorded by an unhindered hook in a twin workspace.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import filelock
import pytest

from snapline import Workspace
from snapline.state_dir import state_dir
from tests.history_refs.gitrepo import new_repo
from tests.hosts.conftest import env, event, hook, snapline

_FILES = {"src/app.py": "print('hello')\n", "README.md": "# demo\n"}
_NOTES = "claude-code-unrecorded.json"


def _workspace(kind: str, root: Path) -> Path:
    if kind == "refs":
        new_repo(root, _FILES)
    else:
        for name, text in _FILES.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
    Workspace.init(root).close()
    return root


@pytest.fixture(params=["refs", "private"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def place(kind: str, tmp_path: Path) -> Path:
    """A workspace on git's refs (a git work tree) or outside git."""
    return _workspace(kind, tmp_path / "ws")


def _edit(name: str, root: Path, rel: str, use: str, **fields: Any) -> dict[str, Any]:
    tool_input = {"file_path": str(root / rel), "old_string": "hello", "new_string": "bye"}
    fields.setdefault("transcript_path", "/home/me/.claude/transcript.jsonl")
    return event(name, root, "Edit", tool_input=tool_input, tool_use_id=use, **fields)


def _bash(name: str, root: Path, command: str, use: str) -> dict[str, Any]:
    return event(name, root, "Bash", tool_input={"command": command}, tool_use_id=use)


def _busy(root: Path, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """The hook run while another process holds the store's lock past its wait."""
    with filelock.FileLock(str(state_dir(root) / "lock")):
        return snapline(root, "--timeout", "0.1", "hook", "claude-code", stdin=json.dumps(payload))


def _quiet(done: subprocess.CompletedProcess[str]) -> None:
    """Allowed, nothing to say: what a hook prints when all is well."""
    assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done


def _decision(done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    assert done.returncode == 0 and "Traceback" not in done.stderr, done
    said = json.loads(done.stdout)["hookSpecificOutput"]
    return said["permissionDecision"], said["permissionDecisionReason"]


def _context(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0 and "Traceback" not in done.stderr, done
    said = json.loads(done.stdout)
    assert "busy" in said["systemMessage"]
    return str(said["hookSpecificOutput"]["additionalContext"])


def _history(root: Path) -> list[dict[str, Any]]:
    done = snapline(root, "log", "--json")
    assert done.returncode == 0, done.stderr
    return sorted(json.loads(done.stdout), key=lambda s: s["number"])


def _as_recorded(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What says who made a snapshot and what it holds (not its ids, time or place)."""
    files = [
        {k: f[k] for k in ("path", "kind", "base_hash", "result_hash")} for f in snapshot["files"]
    ]
    kept = ("number", "tool", "description", "session", "metadata")
    return {**{k: snapshot[k] for k in kept}, "files": files}


def test_an_edit_not_recorded_is_recorded_as_the_agents_at_its_next_tool_call(
    kind: str, place: Path, tmp_path: Path
) -> None:
    twin = _workspace(kind, tmp_path / "twin")
    for root in (place, twin):
        (root / "src" / "app.py").write_text("print('bye')\n")
    _quiet(hook(_edit("PostToolUse", twin, "src/app.py", "toolu_01"), cwd=twin))

    context = _context(_busy(place, _edit("PostToolUse", place, "src/app.py", "toolu_01")))

    assert "It is your own change" in context and "at your next tool call" in context
    assert "snapline record " in context and "not yours" not in context
    assert [s["number"] for s in _history(place)] == [0]
    # The next tool call, of any file: the edit is recorded first, as the Edit's.
    _quiet(hook(_edit("PreToolUse", place, "README.md", "toolu_02"), cwd=place))
    recorded, unhindered = _history(place), _history(twin)
    assert [_as_recorded(s) for s in recorded] == [_as_recorded(s) for s in unhindered]
    assert (recorded[1]["tool"], recorded[1]["session"]) == ("Edit", "sess-1")
    assert recorded[1]["metadata"]["tool_use_id"] == "toolu_01"
    shown = snapline(place, "show", "1")
    assert shown.returncode == 0 and "Edit" in shown.stdout and "sess-1" in shown.stdout
    assert snapline(place, "verify").returncode == 0
    assert not (state_dir(place) / _NOTES).exists()
    # The file's own next edit is no longer refused as made outside snapline.
    _quiet(hook(_edit("PreToolUse", place, "src/app.py", "toolu_03"), cwd=place))
    if kind == "refs":
        status = subprocess.run(
            ["git", "status", "--porcelain", "--ignored"],
            cwd=place,
            capture_output=True,
            text=True,
            check=True,
        )
        assert status.stdout == " M src/app.py\n"  # the note is in git's directory


def test_an_edit_changed_by_someone_else_since_is_not_recorded_as_the_agents(
    place: Path,
) -> None:
    (place / "src" / "app.py").write_text("print('bye')\n")
    _context(_busy(place, _edit("PostToolUse", place, "src/app.py", "toolu_01")))
    assert (state_dir(place) / _NOTES).is_file()

    (place / "src" / "app.py").write_text("print('a person was here')\n")
    decision, reason = _decision(
        hook(_edit("PreToolUse", place, "src/app.py", "toolu_02"), cwd=place)
    )

    assert decision == "deny"
    assert "src/app.py (modified)" in reason and "not yours" in reason
    assert "snapline record" not in reason
    assert [s["number"] for s in _history(place)] == [0]
    assert not (state_dir(place) / _NOTES).exists()
    again = _decision(hook(_edit("PreToolUse", place, "src/app.py", "toolu_03"), cwd=place))
    assert again[0] == "deny" and "src/app.py (modified)" in again[1]
    assert snapline(place, "verify").returncode == 1


def test_an_edit_still_pending_is_refused_as_the_agents_own_then_recorded(place: Path) -> None:
    (place / "src" / "app.py").write_text("print('bye')\n")
    _context(_busy(place, _edit("PostToolUse", place, "src/app.py", "toolu_01")))

    decision, reason = _decision(_busy(place, _edit("PreToolUse", place, "src/app.py", "toolu_02")))

    assert decision == "deny"
    assert "your own Edit of src/app.py" in reason and "busy" in reason
    assert "not yours" not in reason and "outside" not in reason
    command = f"`snapline record {place / 'src' / 'app.py'} --tool Edit --session sess-1`"
    assert command in reason
    assert [s["number"] for s in _history(place)] == [0]
    # Free again: the next tool's PostToolUse records the pending edit first, then its own.
    (place / "README.md").write_text("# demo, edited\n")
    _quiet(hook(_edit("PostToolUse", place, "README.md", "toolu_03"), cwd=place))
    made = [(s["tool"], [f["path"] for f in s["files"]]) for s in _history(place)[1:]]
    assert made == [("Edit", ["src/app.py"]), ("Edit", ["README.md"])]
    assert snapline(place, "verify").returncode == 0


def test_a_command_after_a_pending_edit_is_not_asked_about_it(place: Path) -> None:
    (place / "src" / "app.py").write_text("print('bye')\n")
    _context(_busy(place, _edit("PostToolUse", place, "src/app.py", "toolu_01")))

    # The agent's own edit, still waiting on a busy store, is no outside change to ask about.
    _quiet(_busy(place, _bash("PreToolUse", place, "make docs", "toolu_02")))
    (place / "README.md").write_text("# made\n")
    _quiet(hook(_bash("PostToolUse", place, "make docs", "toolu_02"), cwd=place))

    made = [(s["tool"], [f["path"] for f in s["files"]]) for s in _history(place)[1:]]
    assert made == [("Edit", ["src/app.py"]), ("Bash", ["README.md"])]
    assert snapline(place, "verify").returncode == 0


def test_the_refusal_does_not_contradict_what_a_command_was_told(place: Path) -> None:
    # A Bash call's changes are known by no path: the hook tells the model to record
    # them itself, and the refusal of its next edit does not tell it the opposite.
    (place / "README.md").write_text("# made\n")
    context = _context(_busy(place, _bash("PostToolUse", place, "make docs", "toolu_01")))
    assert "record them as yours now" in context

    decision, reason = _decision(
        hook(_edit("PreToolUse", place, "README.md", "toolu_02"), cwd=place)
    )

    assert decision == "deny" and "README.md (modified)" in reason
    assert "Unless snapline told you it could not record what one of your Bash calls" in reason
    # Doing so asks the person, saying what the command does, not that it is external.
    command = "snapline record README.md --tool Bash --session sess-1"
    asked, said = _decision(hook(_bash("PreToolUse", place, command, "toolu_03"), cwd=place))
    assert asked == "ask" and "README.md (modified)" in said
    assert "records files as the agent's own" in said and "tool external" not in said


def test_a_record_command_is_known_after_root_options_with_values(place: Path) -> None:
    # The hook reads a Bash call's words as snapline reads its own: `--root DIR` is an
    # option and its value, not the command.
    (place / "README.md").write_text("# made\n")
    context = _context(_busy(place, _bash("PostToolUse", place, "make docs", "toolu_01")))
    assert "record them as yours now" in context
    commands = {
        f"snapline --root {place} record README.md --tool Bash": True,
        "snapline --timeout 5 --debug record README.md": True,
        "snapline --root record status": False,  # a root folder named `record`
    }
    for n, (command, records) in enumerate(commands.items(), start=2):
        asked, said = _decision(hook(_bash("PreToolUse", place, command, f"toolu_0{n}"), cwd=place))
        assert asked == "ask" and "README.md (modified)" in said, command
        assert ("records files as the agent's own" in said) is records, command
        assert ("tool external" in said) is not records, command


def test_another_sessions_pending_edit_is_its_own_and_recorded_as_its(place: Path) -> None:
    (place / "src" / "app.py").write_text("print('bye')\n")
    _context(_busy(place, _edit("PostToolUse", place, "src/app.py", "toolu_01")))
    other = {"session_id": "sess-2"}

    still = _busy(place, _edit("PreToolUse", place, "src/app.py", "toolu_02", **other))
    decision, reason = _decision(still)

    assert decision == "deny" and "another Claude Code session (sess-1)" in reason
    assert "not yours" not in reason
    # Whichever session's hook runs next records it, as the session that made it.
    _quiet(hook(_edit("PreToolUse", place, "README.md", "toolu_03", **other), cwd=place))
    made = [(s["tool"], s["session"], s["metadata"]["tool_use_id"]) for s in _history(place)[1:]]
    assert made == [("Edit", "sess-1", "toolu_01")]


def test_a_note_that_still_cannot_be_recorded_is_told_to_the_model(place: Path) -> None:
    (place / "src" / "app.py").write_text("print('bye')\n")
    _context(_busy(place, _edit("PostToolUse", place, "src/app.py", "toolu_01")))
    # The next PostToolUse records its own file, but the noted one fails again (a disk
    # error, as a bug or a full disk would make it): the model is told to record it.
    fails_for_the_note = (
        "import snapline.workspace.rows as rows\n"
        "real = rows.record_rows\n"
        "def record_rows(ws, paths, info):\n"
        "    if list(paths) == ['src/app.py']:\n"
        "        raise OSError(28, 'No space left on device')\n"
        "    return real(ws, paths, info)\n"
        "rows.record_rows = record_rows\n"
    )
    (place / "README.md").write_text("# demo, edited\n")
    code = (
        f"{fails_for_the_note}"
        "import sys\n"
        "sys.argv = ['snapline', 'hook', 'claude-code']\n"
        "from snapline.cli import main\n"
        "main()\n"
    )
    post = _edit("PostToolUse", place, "README.md", "toolu_02")
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(post),
        cwd=place,
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert (done.returncode, done.stderr) == (0, ""), done
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "still could not record your earlier Edit of src/app.py" in context
    assert "No space left on device" in context
    command = f"`snapline record {place / 'src' / 'app.py'} --tool Edit --session sess-1`"
    assert command in context
    made = [(s["tool"], [f["path"] for f in s["files"]]) for s in _history(place)[1:]]
    assert made == [("Edit", ["README.md"])]
