"""docs/cli.md against the command line itself: every command, option and argument.

The oracle is the application's own parameters (what ``--help`` prints), so a command or
option added without its documentation fails here, and so does a documented one removed.
"""

from __future__ import annotations

import re
from pathlib import Path

import typer

from snapline.cli import click_api as click
from snapline.cli.app import app

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
_HEADING = re.compile(r"^### `snapline ([^`]*)`", re.MULTILINE)


def _sections() -> dict[str, str]:
    # "milestone create" -> its heading and body, up to the next heading.
    text = DOCS.read_text(encoding="utf-8")
    found: dict[str, str] = {}
    starts = list(_HEADING.finditer(text))
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        body = text[match.start() : end].split("\n## ", 1)[0]
        words = [w for w in match.group(1).split() if re.fullmatch(r"[a-z][a-z-]*", w)]
        command = (
            " ".join(words[:2])
            if words[:1] in (["milestone"], ["hook"], ["integrate"], ["server"])
            else words[0]
        )
        found[command] = body
    return found


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        assert command is not None
        if isinstance(command, click.Group):
            found |= _commands(command, (*prefix, name))
        else:
            found[" ".join((*prefix, name))] = command
    return found


def _root() -> click.Group:
    root = typer.main.get_command(app)
    assert isinstance(root, click.Group)
    return root


def test_every_command_has_its_section_and_no_section_names_a_command_that_is_gone() -> None:
    commands = _commands(_root())
    sections = _sections()
    assert sorted(commands) == sorted(sections)


def test_every_option_and_argument_of_a_command_is_in_its_section() -> None:
    sections = _sections()
    missing = []
    for name, command in _commands(_root()).items():
        section = sections.get(name, "")
        heading = section.splitlines()[0] if section else ""
        for param in command.params:
            if isinstance(param, click.Argument):
                if param.metavar and param.metavar.strip("[].") not in heading:
                    missing.append(f"{name}: argument {param.metavar}")
                continue
            for opt in (*param.opts, *param.secondary_opts):
                if opt in ("-h", "--help"):
                    continue
                if not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", section):
                    missing.append(f"{name}: {opt}")
    assert missing == []


def test_every_global_option_is_in_the_global_options_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("## Global options", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    documented = {opt for row in rows for opt in re.findall(r"`(-{1,2}[a-z][a-z-]*)", row)}
    options = {"-h", "--help"} | {
        opt for param in _root().params for opt in (*param.opts, *param.secondary_opts)
    }
    assert options == documented


def _mcp_tools_listed_by_the_server(root: Path) -> set[str]:
    """What the real ``snapline mcp`` serves, asked with the MCP SDK's own client."""
    from tests.hosts.test_mcp_server import Client, serve

    found: set[str] = set()

    async def ask(client: Client) -> None:
        listed = await client.session.list_tools()
        found.update(tool.name for tool in listed.tools)

    serve(root, ask)
    assert found, "the server listed no tools"
    return found


def test_the_mcp_tools_in_the_docs_are_the_ones_the_server_lists(root: Path) -> None:
    from snapline import Workspace

    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    served = _mcp_tools_listed_by_the_server(root)

    section = _sections()["mcp"]
    listed = section.split("Tools:", 1)[1].split("Needs the", 1)[0]
    in_cli_md = set(re.findall(r"`([a-z_]+)`", listed))
    integrations = DOCS.with_name("integrations.md").read_text(encoding="utf-8")
    table = integrations.split("### Tools", 1)[1].split("\n\n", 3)[2]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    in_integrations = {name for row in rows for name in re.findall(r"`([a-z_]+)`", row)}
    assert in_cli_md == served
    assert in_integrations == served


def test_the_hook_s_exit_code_in_the_docs_is_the_one_it_exits_with(root: Path) -> None:
    import json
    import subprocess
    import sys

    from snapline import Workspace

    text = DOCS.read_text(encoding="utf-8")
    codes = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    said = re.findall(r"`snapline hook\s+claude-code` always exits (\d+)", codes)
    assert said == ["0"], "docs/cli.md's exit codes must say what the hook exits with"
    assert "the hook's exit 2" not in codes
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    (root / "a.txt").write_text("changed by a person\n")  # so PreToolUse decides: deny, ask
    base = {"session_id": "s", "cwd": str(root), "transcript_path": str(root / "t.jsonl")}
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(root / "a.txt")}}
    bash = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    cases: list[tuple[list[str], str]] = [
        ([], json.dumps({**base, "hook_event_name": "PreToolUse", **edit})),  # deny
        ([], json.dumps({**base, "hook_event_name": "PreToolUse", **bash})),  # ask
        ([], json.dumps({**base, "hook_event_name": "Stop", "stop_hook_active": False})),
        ([], "not json"),
        (["--no-such-option"], "{}"),
        (["--milestone-per-prompt"], "[" * 50_000),
    ]
    for host in ("claude-code", "no-such-host"):
        for args, stdin in cases:
            done = subprocess.run(
                [sys.executable, "-m", "snapline", "hook", host, *args],
                input=stdin,
                cwd=root,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == int(said[0]), (host, args, stdin[:40], done.stderr)
