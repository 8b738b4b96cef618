"""``snapline hook claude-code`` and ``snapline integrate claude-code``: Claude Code's way in."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from snapline.cli.context import DEFAULT_TIMEOUT, JsonOption, command_group, state
from snapline.cli.output import echo, echo_json

__all__ = ["hook_group", "integrate_group"]


hook_group = command_group("hook")
integrate_group = command_group("integrate")

MilestoneOption = Annotated[
    bool,
    typer.Option(
        "--milestone-per-prompt",
        help="Close a milestone per user prompt, titled from the prompt (off by default).",
    ),
]


DigestOption = Annotated[
    bool,
    typer.Option(
        "--prompt-digest",
        help="Keep only each prompt's SHA-256 digest in the history, not its text.",
    ),
]


@hook_group.command("claude-code")
def hook_claude_code(
    ctx: typer.Context,
    milestone_per_prompt: MilestoneOption = False,
    prompt_digest: DigestOption = False,
) -> None:
    """Handle one Claude Code hook event (JSON on stdin).

    PreToolUse of Edit, Write, MultiEdit or NotebookEdit answers "deny" (JSON on stdout)
    when the file was changed outside snapline or is inside .git/ or .snapline/; of Bash,
    "ask" when anything was. PostToolUse records what the tool changed as one snapshot
    (tool, session, the exact command and the event's ids). UserPromptSubmit closes a
    milestone per prompt when --milestone-per-prompt or SNAPLINE_MILESTONE_PER_PROMPT=1
    is set. Always exit 0; no store, a busy store or bad input: a warning on stderr.
    """
    from snapline.cli.hook import run

    options = state(ctx)
    timeout = None if options.timeout == DEFAULT_TIMEOUT else options.timeout
    raise typer.Exit(
        run(
            milestone_per_prompt=milestone_per_prompt or None,
            timeout=timeout,
            prompt_digest=prompt_digest or None,
        )
    )


@integrate_group.command("claude-code")
def integrate_claude_code(
    ctx: typer.Context,
    uninstall: Annotated[
        bool, typer.Option("--uninstall", help="Remove snapline's hooks (and nothing else).")
    ] = False,
    milestone_per_prompt: MilestoneOption = False,
    prompt_digest: DigestOption = False,
    command: Annotated[
        str | None,
        typer.Option(
            "--command",
            metavar="CMD",
            help="The hook command to write (default: this snapline by its absolute path, "
            "followed by 'hook claude-code').",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Write snapline's hooks into the project's .claude/settings.json, and record it.

    Merges with what is there: other settings and hooks are kept, and running it again
    changes nothing. The project is the workspace (found like every command finds it).
    The hooks run this snapline by its absolute path; the settings change is recorded
    as a snapshot (tool integrate), so it is never drift; --uninstall gives the file
    back byte for byte when nothing else in it changed.
    """
    import sys

    from snapline.cli.lean import program
    from snapline.hosts.integrate import integrate_claude_code as integrate
    from snapline.hosts.integrate import running_command
    from snapline.opening import find_root

    options = state(ctx)
    root = options.root if options.root is not None else find_root(Path.cwd().absolute())
    done = integrate(
        root,
        uninstall=uninstall,
        milestone_per_prompt=milestone_per_prompt,
        prompt_digest=prompt_digest,
        command=command or running_command(program()),
    )
    warnings = list(done.warnings)
    started = stopped = None
    if uninstall:
        from snapline.cli.warm.control import stop_started_by

        # What integrate started, its undoing stops (a server started otherwise stays).
        stopped = stop_started_by(str(root))
    else:
        # The hooks run once per agent event: a warm server answers them without a
        # start-up each (never in CI, nor with SNAPLINE_SERVER=0; docs/cli.md).
        from snapline.cli.warm.control import autostart_for

        started, trouble = autostart_for(str(root))
        if trouble is not None:
            warnings.append(trouble)
    for warning in warnings:
        sys.stderr.write(f"snapline: warning: {warning}\n")
    if as_json:
        echo_json(
            {
                "path": str(done.path),
                "changed": done.changed,
                "events": list(done.events),
                "command": done.command,
                "snapshots": list(done.snapshots),
                "warnings": warnings,
                "server_started": started,
                "server_stopped": stopped,
            }
        )
        return
    if uninstall:
        verb = "removed snapline's hooks from " if done.changed else "no snapline hooks in "
    else:
        verb = "installed snapline's hooks in " if done.changed else "already installed in "
    echo((verb, "green"), str(done.path))
    if started is not None:
        echo(
            f"started the warm server (pid {started}) so the hooks answer without a start-up; "
            "`snapline server stop` stops it (and so does `--uninstall`)"
        )
    if stopped is not None:
        echo(f"stopped the warm server integrate started (pid {stopped})")
