"""The table of commands: every command and group of ``snapline``, as ``--help`` lists them.

One row per name: the module that defines it, the name of its function (or of a group's
``typer.Typer``) in that module, and its one-line summary. ``snapline --help`` and shell
completion read the summaries here, so they import no command; running a command imports
its one module (``cli/app.py``, a lazy click group). Adding a command is one function in
a module of ``cli/`` and one row here; ``tests/cli/test_commands.py`` holds the rows equal
to the functions (same name, same summary as their docstring's first sentence).

This module imports nothing, so that any reader of the command line can use it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["COMMANDS", "Command", "named"]


class Command(NamedTuple):
    """One command or group of the command line.

    Attributes:
        name: What the user types: ``snapline NAME``.
        module: The module that defines it, under ``snapline.cli``.
        attribute: The name in ``module`` of the command's function, or of the group's
            ``typer.Typer``.
        summary: The first sentence of its help, as ``--help`` lists it.
        interspersed: False when the words after the first argument all belong to the
            argument (``run -- CMD``, ``guard -- CMD``): no option is read among them.
    """

    name: str
    module: str
    attribute: str
    summary: str
    interspersed: bool = True


COMMANDS: tuple[Command, ...] = (
    Command(
        "init", "recording", "init", "Create the store; the workspace as it is becomes snapshot 0."
    ),
    Command("record", "recording", "record", "Record what changed on disk as one snapshot."),
    Command(
        "run",
        "recording",
        "run",
        "Run a command and record its side effects.",
        interspersed=False,
    ),
    Command("resync", "recording", "resync", "Record changes made outside snapline."),
    Command(
        "merge",
        "recording",
        "merge",
        "Join the lines of history that a git merge of two recording branches left.",
    ),
    Command("status", "history", "status", "Show the latest snapshot, open milestone and drift."),
    Command("log", "history", "log", "List snapshots, newest first."),
    Command("show", "history", "show", "Show one snapshot with its diff."),
    Command(
        "diff",
        "diffs",
        "diff",
        "Show changes, as git diff: from a snapshot to the disk, or between two snapshots.",
    ),
    Command("rollback", "restore", "rollback", "Restore the state after snapshot N."),
    Command("revert", "restore", "revert", "Undo the changes of one snapshot."),
    Command("undo", "restore", "undo", "Roll back what the latest change did, as a new snapshot."),
    Command("redo", "restore", "redo", "Roll back the last undo, as a new snapshot."),
    Command("verify", "verify", "verify", "Check the history and the workspace (for CI)."),
    Command("gc", "verify", "gc", "Remove stored content no snapshot refers to."),
    Command(
        "upgrade",
        "upgrade",
        "upgrade",
        "Move the history kept in .snapline/ onto git's refs and remove .snapline/ in one commit.",
    ),
    Command(
        "report",
        "report",
        "report",
        "Write the review page: milestones, snapshots and diffs in one HTML file.",
    ),
    Command(
        "watch",
        "watch",
        "watch",
        "Watch the workspace and record each burst of changes as one snapshot (tool `watch`).",
    ),
    Command(
        "mcp",
        "mcp",
        "mcp",
        "Serve this workspace to an MCP client (Claude, editors, agents) over stdio.",
    ),
    Command(
        "forget",
        "forget",
        "forget",
        "Remove the stored content of a file recorded by mistake (a secret) from the history.",
    ),
    Command(
        "branch",
        "branching",
        "branch",
        "Make a git branch whose files are the workspace's after snapshot N.",
    ),
    Command(
        "guard",
        "guard",
        "guard",
        "Run a check (the tests) on the latest snapshot and record whether it passed.",
        interspersed=False,
    ),
    Command(
        "milestone",
        "milestones",
        "group",
        "Named, continuous ranges of snapshots ('phase 1 done').",
    ),
    Command(
        "hook",
        "integrate",
        "hook_group",
        "Run as an agent host's hook (one event as JSON on stdin).",
    ),
    Command(
        "integrate",
        "integrate",
        "integrate_group",
        "Install snapline's hooks into an agent host's project settings.",
    ),
    Command(
        "server",
        "server",
        "server_group",
        "Start, stop or ask the warm command server (commands answered without start-up).",
    ),
)
"""Every command and group, in the order ``snapline --help`` lists them."""

_BY_NAME = {command.name: command for command in COMMANDS}


def named(name: str) -> Command | None:
    """The row of the command ``snapline NAME`` runs.

    Args:
        name: The word typed after ``snapline`` and its root options.

    Returns:
        Its row, or None when no command has that name.
    """
    return _BY_NAME.get(name)
