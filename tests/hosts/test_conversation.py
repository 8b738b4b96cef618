"""Checkpoints bound to the conversation: prompts numbered by the hook, ``before-prompt:N@S``.

Claude Code's documented events are fed to the real hook process (``UserPromptSubmit``,
``PostToolUse``); the references are then used through the real command line and the
MCP tools. The oracle for "before prompt N" is the workspace as it stood on disk at the
moment prompt N was submitted, captured by the test itself.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from snapline import Workspace
from tests.conftest import tree
from tests.hosts.conftest import event, hook, hook_write, snapline
from tests.hosts.test_mcp_server import Client, serve

SESSION = "5f1c2a7e-0b1d-4c55-9d3e-1a2b3c4d5e6f"


def _prompt(root: Path, text: str, *args: str, session: str = SESSION) -> None:
    submitted = event("UserPromptSubmit", root, prompt=text, session_id=session)
    done = hook(submitted, *args, cwd=root)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def _write(root: Path, path: str, text: str, session: str = SESSION) -> None:
    hook_write(root, path, text, session)


def _stamps(root: Path) -> list[tuple[int, dict[str, Any] | None]]:
    with Workspace.open(root) as ws:
        return [(s.number, s.metadata.get("prompt")) for s in ws.snapshots() if s.number]


def test_prompts_are_numbered_and_every_snapshot_carries_its_prompt(project: Path) -> None:
    _prompt(project, "Add a greeting")
    _write(project, "src/greet.py", "print('hi')\n")
    _write(project, "README.md", "# greeting\n")
    _prompt(project, "Now the tests\nwith pytest")
    _write(project, "tests/test_greet.py", "def test(): pass\n")

    stamps = _stamps(project)
    assert [(n, s["n"], s["at"], s["session"]) for n, s in stamps if s] == [
        (1, 1, 0, SESSION),
        (2, 1, 0, SESSION),
        (3, 2, 2, SESSION),
    ]
    second = stamps[2][1]
    assert second is not None
    assert second["text"] == "Now the tests\nwith pytest"
    digest = hashlib.sha256(b"Now the tests\nwith pytest").hexdigest()
    assert second["digest"] == f"sha256:{digest}"


def test_before_prompt_n_in_rollback_diff_and_show(project: Path) -> None:
    before_first = tree(project)
    _prompt(project, "Add a greeting")
    _write(project, "src/greet.py", "print('hi')\n")
    before_second = tree(project)
    _prompt(project, "Rename it")
    _write(project, "src/greet.py", "print('hello')\n")
    _write(project, "src/app.py", "import greet\n")

    shown = snapline(project, "show", f"before-prompt:2@{SESSION}", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["number"] == 1
    diff = snapline(project, "diff", f"before-prompt:1@{SESSION}", "before-prompt:2@5f1c")
    assert diff.returncode == 0, diff.stderr
    assert "+print('hi')" in diff.stdout and "app.py" not in diff.stdout

    back = snapline(project, "rollback", "--to", "before-prompt:2@5f1c")
    assert back.returncode == 0, back.stderr
    assert tree(project) == before_second
    # The line that resumes that conversation, its session named in full.
    assert back.stdout.splitlines()[-1] == f"resume that conversation: claude --resume {SESSION}"
    plain = snapline(project, "rollback", "--to", "latest~1", "--dry-run")
    assert "resume" not in plain.stdout
    # Without a session: the latest conversation's.
    assert snapline(project, "rollback", "--to", "before-prompt:1").returncode == 0
    assert tree(project) == before_first


def test_a_prompt_that_recorded_nothing_resolves_to_the_next_that_did(project: Path) -> None:
    _prompt(project, "What does this do?")  # answered without an edit
    _prompt(project, "Then add a greeting")
    _write(project, "src/greet.py", "print('hi')\n")

    with Workspace.open(project) as ws:
        assert ws.resolve(f"before-prompt:1@{SESSION}") == 0
        assert ws.resolve(f"before-prompt:2@{SESSION}") == 0


def test_unknown_or_ambiguous_prompts_are_refused_in_one_line(project: Path) -> None:
    _prompt(project, "one", session="sess-a")
    _write(project, "a.txt", "a\n", session="sess-a")
    _prompt(project, "two", session="sess-b")
    _write(project, "b.txt", "b\n", session="sess-b")

    for ref, expected in [
        ("before-prompt:1@sess", "2 sessions match"),
        ("before-prompt:1@nobody", "no session has one"),
        ("before-prompt:7@sess-a", "the session's last recorded prompt is 1"),
    ]:
        done = snapline(project, "show", ref)
        assert done.returncode == 1, (ref, done.stderr)
        assert expected in done.stderr and done.stderr.count("\n") == 1
    malformed = snapline(project, "show", "before-prompt:x")
    assert malformed.returncode == 2
    assert "before-prompt:N@SESSION" in malformed.stderr


def test_only_the_digest_when_configured(project: Path) -> None:
    _prompt(project, "my API key is hunter2, deploy", "--prompt-digest")
    _write(project, "deploy.sh", "echo deploy\n")

    (stamp,) = [s for _, s in _stamps(project) if s]
    assert stamp is not None and "text" not in stamp
    digest = hashlib.sha256(b"my API key is hunter2, deploy").hexdigest()
    assert stamp["digest"] == f"sha256:{digest}"
    ledger = b"".join(p.read_bytes() for p in (project / ".snapline").rglob("*") if p.is_file())
    assert b"hunter2" not in ledger


def test_numbering_continues_from_the_history_when_the_local_file_is_gone(project: Path) -> None:
    _prompt(project, "first")
    _write(project, "a.txt", "a\n")
    (project / ".snapline" / "claude-code-prompts.json").unlink()  # a fresh clone has none
    _prompt(project, "second")
    _write(project, "b.txt", "b\n")

    assert [s["n"] for _, s in _stamps(project) if s] == [1, 2]


def test_the_mcp_tools_take_the_reference(project: Path) -> None:
    _prompt(project, "Add a greeting")
    _write(project, "src/greet.py", "print('hi')\n")

    async def script(client: Client) -> None:
        shown = await client.call("show", snapshot=f"before-prompt:1@{SESSION}")
        assert shown["snapshot"]["number"] == 0
        dry = await client.call("rollback", to=f"before-prompt:1@{SESSION}")
        assert dry["dry_run"] is True and dry["deleted"] == ["src/greet.py"]

    serve(project, script)


def test_log_lists_snapshots_under_the_prompt_they_answered(project: Path) -> None:
    _prompt(project, "Add a greeting\nplease")
    _write(project, "a.txt", "a\n")
    _write(project, "b.txt", "b\n")
    with Workspace.open(project) as ws:
        ws.write_file("c.txt", "by hand\n")  # no prompt: not under one
    _prompt(project, "Now the tests")
    _write(project, "t.txt", "t\n")

    done = snapline(project, "log")

    assert done.returncode == 0, done.stderr
    lines = [line.split()[:3] for line in done.stdout.splitlines()]
    assert [line[:2] if line[0] in ("prompt", "no") else line[:1] for line in lines] == [
        ["prompt", "2"],
        ["4"],
        ["no", "prompt"],  # recorded by hand in between
        ["3"],
        ["prompt", "1"],
        ["2"],
        ["1"],
        ["no", "prompt"],
        ["0"],
    ]
    assert "'Add a greeting'" in done.stdout
    assert f"before it: snapshot 3, before-prompt:2@{SESSION[:8]}" in done.stdout


def test_a_milestone_closes_the_work_up_to_before_a_prompt(project: Path) -> None:
    _prompt(project, "Build the parser")
    _write(project, "parser.py", "parse = 1\n")
    _write(project, "test_parser.py", "assert 1\n")
    _prompt(project, "Now the printer")
    _write(project, "printer.py", "show = 1\n")

    done = snapline(project, "milestone", "create", "--title", "parser", "--to", "before-prompt:2")

    assert done.returncode == 0, done.stderr
    with Workspace.open(project) as ws:
        (milestone,) = ws.milestones.list()
    assert (milestone.first, milestone.last) == (1, 2)


def test_the_review_page_groups_snapshots_by_prompt(project: Path, tmp_path: Path) -> None:
    _prompt(project, "Make <b>greeting</b> bold")
    _write(project, "a.txt", "a\n")
    _write(project, "b.txt", "b\n")
    _prompt(project, "Then the tests")
    _write(project, "t.txt", "t\n")
    page = tmp_path / "page.html"

    done = snapline(project, "report", "-o", str(page))

    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    first, second = html.index('<p class="prompt"'), html.rindex('<p class="prompt"')
    assert html.count('<p class="prompt"') == 2
    assert first < html.index('id="s-1"') < html.index('id="s-2"') < second
    assert second < html.index('id="s-3"')
    assert "Make &lt;b&gt;greeting&lt;/b&gt; bold" in html and "<b>greeting" not in html
    assert f"<code>before-prompt:2@{SESSION}</code>" in html
