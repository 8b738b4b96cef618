"""Writers stay in their lane (DESIGN rule 10, issue 27 item 1).

Nothing snapline writes for a user, an agent or a tool lands inside ``.git/`` or
``.snapline/``, at any depth, and every writer refuses the same way: one error class
(:class:`ProtectedPathError`, exit 2), one message shape (what, which path, what to do).
Every writer is driven here through its real interface: the library, the MCP tools through
the SDK's own client against ``snapline mcp``, the Claude Code hook fed its event JSON,
and the commands that write a file the user names. The bytes under every ``.git`` and
``.snapline`` directory, read back after each refusal, show that nothing was written.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from snapline import ProtectedPathError, Workspace
from snapline.milestones import Milestones
from tests.hosts.conftest import env, event, hook
from tests.hosts.test_mcp_server import Client, serve

# Where an agent (or a crafted prompt) would plant something. ``.GIT`` is git's own
# directory on a case-folding filesystem, so it is refused on every system, as git's
# own verify_path refuses it in a tree.
TARGETS = [
    ".git/hooks/pre-commit",
    ".git/config",
    ".snapline/planted",
    ".snapline/ledger/FORMAT",
    "sub/.git/hooks/pre-commit",
    "sub/.git/config",
    ".GIT/hooks/pre-commit",
    "src/.snapline/planted",
]

REFUSAL = re.compile(
    r"refusing to (write|run a command in) .+: it is inside [^,]*(\.git/|\.snapline/?), "
    r"[^;]*; name a path outside \.git/ and \.snapline/"
)

Writer = Callable[[Workspace, Path, str], object]


def _track(ws: Workspace, root: Path, target: str) -> None:
    with ws.track(target, tool="agent"):
        (root / target).write_text("planted\n")  # never reached: track refuses first


# Every library call that writes at a path its caller names.
LIBRARY: dict[str, Writer] = {
    "write_file": lambda ws, root, t: ws.write_file(t, "planted\n"),
    "write_file (absolute)": lambda ws, root, t: ws.write_file(root / t, b"planted\n"),
    "edit_file": lambda ws, root, t: ws.edit_file(t, "ref", "planted"),
    "delete_file": lambda ws, root, t: ws.delete_file(t),
    "move_file (to)": lambda ws, root, t: ws.move_file("a.txt", t),
    "move_file (from)": lambda ws, root, t: ws.move_file(t, "moved.txt"),
    "track": _track,
    "run (cwd)": lambda ws, root, t: ws.run(
        [sys.executable, "-c", "open('planted', 'w').write('x')"], cwd=str(Path(t).parent)
    ),
    "milestones.export": lambda ws, root, t: ws.milestones.export(1, root / t),
    "report": lambda ws, root, t: ws.report(root / t),
}

# The public methods that take a path to write (path, src, dst, cwd) or wrap a write
# (track); a new one must join LIBRARY above. The others read what they are named.
_WRITING_PARAMETERS = {"path", "src", "dst", "cwd"}
_READERS = {"content_at", "forget", "blame"}  # a version read; versions dropped; lines blamed


@pytest.fixture
def lane(root: Path) -> Iterator[Path]:
    """A git repository with a nested one (``sub/``), a workspace over both, a milestone."""
    for repo in (root, root / "sub"):
        repo.mkdir(exist_ok=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (root / "a.txt").write_text("a\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "sub" / "b.txt").write_text("b\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "a2\n")
        ws.milestones.create("first")
    yield root


def _protected(root: Path) -> dict[str, bytes | None]:
    """Every file and directory under any ``.git`` or ``.snapline`` (any case), with bytes.

    The local index (``index.db`` and its logs) is left out: opening a workspace may
    refresh its stat cache. The ledger, the history itself, is compared byte for byte.
    """
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        parts = [part.casefold() for part in path.relative_to(root).parts]
        if not {".git", ".snapline"} & set(parts):
            continue
        if path.name.startswith("index.db"):
            continue
        found[path.relative_to(root).as_posix()] = None if path.is_dir() else path.read_bytes()
    return found


def _history(root: Path) -> list[str]:
    with Workspace.open(root) as ws:
        return [snapshot.id for snapshot in ws.snapshots()]


def test_every_public_writer_is_driven_here() -> None:
    named = set()
    for owner in (Workspace, Milestones):
        for name, method in inspect.getmembers(owner, inspect.isfunction):
            parameters = set(inspect.signature(method).parameters)
            if not name.startswith("_") and parameters & _WRITING_PARAMETERS:
                named.add(name if owner is Workspace else f"milestones.{name}")
    driven = {key.split(" ")[0] for key in LIBRARY} - {"track"}
    assert named - _READERS == driven


@pytest.mark.parametrize("writer", LIBRARY, ids=str)
def test_every_library_writer_refuses_the_same_way(lane: Path, writer: str) -> None:
    before, history = _protected(lane), _history(lane)
    with Workspace.open(lane) as ws:
        for target in TARGETS:
            with pytest.raises(ProtectedPathError) as caught:
                LIBRARY[writer](ws, lane, target)
            assert caught.value.exit_code == 2
            assert REFUSAL.search(str(caught.value)), str(caught.value)
            assert caught.value.directory in (".git", ".snapline")
            assert _protected(lane) == before, target
    assert _history(lane) == history
    assert not (lane / ".GIT").exists()
    assert not (lane / "src" / ".snapline").exists()


def test_paths_that_only_look_alike_are_written(lane: Path) -> None:
    with Workspace.open(lane) as ws:
        for path in (".gitignore", ".github/workflows/ci.yml", "git/config", "x.snapline"):
            ws.write_file(path, "fine\n")
            assert (lane / path).read_text() == "fine\n"


def test_every_mcp_writer_refuses_the_same_way(lane: Path) -> None:
    before, history = _protected(lane), _history(lane)
    calls: dict[str, Callable[[str], dict[str, Any]]] = {
        "write_file": lambda t: {"path": t, "content": "planted\n"},
        "edit_file": lambda t: {"path": t, "old_text": "ref", "new_text": "planted"},
        "delete_file": lambda t: {"path": t},
        "move_file": lambda t: {"source": "a.txt", "destination": t},
    }

    async def script(client: Client) -> None:
        for tool, arguments in calls.items():
            for target in TARGETS:
                message = await client.error(tool, **arguments(target))
                assert REFUSAL.search(message), (tool, message)
        moved_from = await client.error("move_file", source=".git/config", destination="x")
        assert REFUSAL.search(moved_from), moved_from

    serve(lane, script)
    assert _protected(lane) == before
    assert _history(lane) == history


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit", "NotebookEdit"])
def test_the_hook_refuses_the_agent_s_own_file_tools(lane: Path, tool: str) -> None:
    before, history = _protected(lane), _history(lane)
    for target in TARGETS:
        key = "notebook_path" if tool == "NotebookEdit" else "file_path"
        tool_input = {key: str(lane / target), "content": "planted\n"}
        refused = hook(event("PreToolUse", lane, tool, tool_input=tool_input), cwd=lane)
        # Refused as Claude Code documents it: exit 0, permissionDecision "deny" on stdout.
        assert (refused.returncode, refused.stderr) == (0, ""), refused
        decision = json.loads(refused.stdout)["hookSpecificOutput"]
        assert decision["permissionDecision"] == "deny"
        assert REFUSAL.search(decision["permissionDecisionReason"]), decision
        # Had the tool run anyway, its PostToolUse records nothing there.
        after = hook(event("PostToolUse", lane, tool, tool_input=tool_input), cwd=lane)
        assert (after.returncode, after.stdout, after.stderr) == (0, "", "")
    assert _protected(lane) == before
    assert _history(lane) == history


@pytest.mark.parametrize(
    "command", [["milestone", "export", "1", "-o"], ["report", "-o"], ["verify", "--report"]]
)
def test_every_command_that_writes_a_named_file_refuses(lane: Path, command: list[str]) -> None:
    before, history = _protected(lane), _history(lane)
    for target in TARGETS:
        done = subprocess.run(
            [sys.executable, "-m", "snapline", *command, target],
            cwd=lane,
            env=env(),
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2, (target, done.stderr)
        assert REFUSAL.search(done.stderr), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert _protected(lane) == before, target
    assert _history(lane) == history
