"""The table of commands: every command and group of ``snapline``, as ``--help`` lists them.

One row per name: the module that defines it, the name of its function (or of a group's
``typer.Typer``) in that module, and its one-line summary. ``snapline --help`` and shell
completion read the summaries here, so they import no command; running a command imports
its one module (``cli/app.py``, a lazy click group). Adding a command is one function in
a module of ``cli/`` and one row here; ``tests/cli/test_commands.py`` holds the rows equal
to the functions (same name, same summary as their docstring's first sentence).

The hot commands (run on every edit or event: ``record``, ``verify``, ``hook``) also have
a :class:`Spec` in :data:`SPECS`, what the lean parser (``cli/lean.py``) needs to read
their plain forms without typer; ``tests/cli/test_lean.py`` holds each spec equal to its
typer command, option by option.

This module imports nothing (not even ``typing``: every process reads it on its way in,
``cli/warm/client.py`` too), so that any reader of the command line can use it: the
Claude Code hook reads the words of a Bash call that runs ``snapline`` by
:func:`command_of` (tests/test_layers.py puts this module below ``hosts/``).
"""

from __future__ import annotations

__all__ = [
    "COMMANDS",
    "ROOT",
    "ROOT_HELP",
    "SPECS",
    "Command",
    "Option",
    "Spec",
    "command_of",
    "named",
    "options_of",
    "root_option",
]


class Command:
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

    __slots__ = ("attribute", "interspersed", "module", "name", "summary")

    def __init__(
        self, name: str, module: str, attribute: str, summary: str, interspersed: bool = True
    ) -> None:
        self.name, self.module, self.attribute = name, module, attribute
        self.summary, self.interspersed = summary, interspersed

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.module!r}, {self.attribute!r})"


# fmt: off
COMMANDS: tuple[Command, ...] = (
    Command("init", "recording", "init", "Create the store; the workspace as it is becomes snapshot 0."),
    Command("record", "recording", "record", "Record what changed on disk as one snapshot."),
    Command("run", "recording", "run", "Run a command and record its side effects.", interspersed=False),
    Command("resync", "recording", "resync", "Record changes made outside snapline."),
    Command("merge", "recording", "merge", "Join the lines of history that a git merge of two recording branches left."),
    Command("status", "history", "status", "Show the latest snapshot, open milestone and drift."),
    Command("log", "history", "log", "List snapshots, newest first."),
    Command("show", "history", "show", "Show one snapshot with its diff."),
    Command("diff", "diffs", "diff", "Show changes, as git diff: from a snapshot to the disk, or between two snapshots."),
    Command("blame", "blame", "blame", "Show who wrote each line of a file: the snapshot, its tool, session and prompt."),
    Command("rollback", "restore", "rollback", "Restore the state after snapshot N."),
    Command("revert", "restore", "revert", "Undo the changes of one snapshot."),
    Command("undo", "restore", "undo", "Roll back what the latest change did, as a new snapshot."),
    Command("redo", "restore", "redo", "Roll back the last undo, as a new snapshot."),
    Command("verify", "verify", "verify", "Check the history and the workspace (for CI)."),
    Command("gc", "verify", "gc", "Remove stored content no snapshot refers to."),
    Command("upgrade", "upgrade", "upgrade", "Move the history kept in .snapline/ onto git's refs and remove .snapline/ in one commit."),
    Command("report", "report", "report", "Write the review page: milestones, snapshots and diffs in one HTML file."),
    Command("watch", "watch", "watch", "Watch the workspace and record each burst of changes as one snapshot (tool `watch`)."),
    Command("mcp", "mcp", "mcp", "Serve this workspace to an MCP client (Claude, editors, agents) over stdio."),
    Command("forget", "forget", "forget", "Remove the stored content of a file recorded by mistake (a secret) from the history."),
    Command("branch", "branching", "branch", "Make a git branch whose files are the workspace's after snapshot N."),
    Command("push", "travel", "push", "Push the history's refs to a remote, fast-forward only."),
    Command("fetch", "travel", "fetch", "Fetch the history's refs from a remote, fast-forward only."),
    Command("guard", "guard", "guard", "Run a check (the tests) on the latest snapshot and record whether it passed.", interspersed=False),
    Command("milestone", "milestones", "group", "Named, continuous ranges of snapshots ('phase 1 done')."),
    Command("hook", "integrate", "hook_group", "Run as an agent host's hook (one event as JSON on stdin)."),
    Command("integrate", "integrate", "integrate_group", "Install snapline's hooks into an agent host's project settings."),
    Command("server", "server", "server_group", "Start, stop or ask the warm command server (commands answered without start-up)."),
)
# fmt: on
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


class Option:
    """One option of a command, as the lean parser reads it.

    Attributes:
        names: Its spellings (``-m``, ``--message``).
        key: The click parameter's name (``message``): what a parse names it by.
        value: True when it takes a value (the next word), False for a flag.
        choices: The values the lean parser reads; any other is left to typer, which
            says what it takes. Empty: any value.
        lean: False when the lean parser leaves the whole command line to typer as soon
            as this option is typed (``--report``, which only the typer command handles).
        shown: How ``--help`` names it, with its value's metavar (``--root PATH``); set
            for the root's options, which ``snapline --help`` lists without typer.
        help: Its help, as the typer option is declared with it (the root's options).
        hint: What typer adds after the help in ``--help`` (``[default: 30.0]``).
    """

    __slots__ = ("choices", "help", "hint", "key", "lean", "names", "shown", "value")

    def __init__(
        self,
        names: tuple[str, ...],
        key: str,
        *,
        value: bool,
        choices: tuple[str, ...] = (),
        lean: bool = True,
        shown: str = "",
        help: str = "",
        hint: str = "",
    ) -> None:
        self.names, self.key, self.value = names, key, value
        self.choices, self.lean = choices, lean
        self.shown, self.help, self.hint = shown, help, hint

    def __repr__(self) -> str:
        return f"Option({self.names!r}, {self.key!r}, value={self.value})"


def root_option(name: str) -> Option:
    """The root's option spelled ``name`` (``--root``), for typer's declaration of it."""
    return next(option for option in ROOT.options if name in option.names)


def options_of(command: Spec) -> dict[str, Option]:
    """A command's options by each of their spellings (``-m`` and ``--message``)."""
    return {name: option for option in command.options for name in option.names}


def command_of(args: list[str]) -> tuple[str | None, list[str]]:
    """The command the words name, after the root options, and the words after it.

    Every process reads its own command line with it (``cli/warm/client.py``), and the
    Claude Code hook reads the words of a Bash call that runs ``snapline``.

    Args:
        args: The words after ``snapline``.

    Returns:
        The command's name (None when no word names one: only root options, or one
        whose value this parser does not read) and the words after it.
    """
    options = options_of(ROOT)
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        option = options.get(word)
        if option is not None:
            if not option.lean:
                return None, []
            if option.value:
                index += 1
        elif not word.startswith("-"):
            return word, args[index:]
    return None, []


class Spec:
    """What the lean parser needs of one command: its options and its positional arity.

    Attributes:
        options: Every option of the typer command (``--help`` aside).
        arguments: How many positional arguments: -1 for any number (click's ``nargs``).
        lean: ``module.function`` under ``snapline.cli`` that runs the command without
            typer (it takes the words after the command's name), or ``""`` for none.
    """

    __slots__ = ("arguments", "lean", "options")

    def __init__(self, options: tuple[Option, ...], arguments: int = 0, lean: str = "") -> None:
        self.options, self.arguments, self.lean = options, arguments, lean


_JSON = Option(("--json",), "as_json", value=False)

ROOT_HELP = """Snapshot manager for coding agents: every change numbered, verifiable, reversible.

The store is found like git finds .git: from the current directory upwards.
Exit codes: 0 ok, 1 validation or sync failure, 2 usage error, 3 corrupt or
unreadable store, 4 store busy, 70 internal error (a bug). See docs/cli.md."""
"""The root's help: ``snapline --help`` before its options (``cli/root_help.py``)."""

# fmt: off
ROOT = Spec(
    (
        Option(("--root",), "root", value=True, shown="--root PATH",
               help="Workspace root (default: found from the current directory upwards)."),
        Option(("--timeout",), "timeout", value=True, shown="--timeout SECONDS",
               help="Seconds to wait for another snapline process holding the store.",
               hint="[default: 30.0; x>=0.0]"),
        Option(("--debug",), "debug", value=False, shown="--debug",
               help="Show the traceback of an error (also: SNAPLINE_DEBUG=1)."),
        Option(("--version",), "version", value=False, shown="--version",
               help="Show the version and exit."),
        Option(("--install-completion",), "install_completion", value=True, lean=False,
               shown="--install-completion [SHELL]",
               help="Install completion for SHELL (bash, zsh, fish, powershell, pwsh; "
               "default: the shell running snapline)."),
        Option(("--show-completion",), "show_completion", value=True, lean=False,
               shown="--show-completion [SHELL]",
               help="Show the completion script for SHELL (default: the shell running "
               "snapline), to install it by hand."),
    ),
    arguments=-1,
)
# fmt: on
"""The root options (``snapline [OPTIONS] COMMAND``), which come before the command."""

SPECS: dict[str, Spec] = {
    "record": Spec(
        (
            Option(("--tool",), "tool", value=True),
            Option(("-m", "--message"), "message", value=True),
            Option(("--session",), "session", value=True),
            _JSON,
        ),
        arguments=-1,
        lean="fast.fast_record",
    ),
    "verify": Spec(
        (
            _JSON,
            Option(("--format",), "output_format", value=True, choices=("text", "github")),
            Option(("--full",), "full", value=False),
            Option(("--deep",), "deep", value=False),
            Option(("--report",), "report_path", value=True, lean=False),
        ),
        lean="checking.fast_verify",
    ),
    "hook": Spec((), arguments=-1, lean="hook.fast_path"),
    "hook claude-code": Spec(
        (
            Option(("--milestone-per-prompt",), "milestone_per_prompt", value=False),
            Option(("--prompt-digest",), "prompt_digest", value=False),
        ),
    ),
}
"""The hot commands' specs, by the words that name them (``hook claude-code``)."""
