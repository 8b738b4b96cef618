"""``snapline hook claude-code``: the lean path a per-event hook process takes.

Claude Code starts one process per hook event, so this path must start fast: the
console script sends ``snapline hook ...`` here before it builds the typer application
(and rich), and this module imports only the standard library and the hook handler.
The typer command of the same name (``cli/integrate.py``) calls :func:`run` too, for
``--help`` and the global options.
"""

from __future__ import annotations

import sys

__all__ = ["HOSTS", "fast_path", "run"]

HOSTS = ("claude-code",)
"""The agent hosts ``snapline hook`` knows."""

_MILESTONE_FLAG = "--milestone-per-prompt"


def fast_path(args: list[str]) -> int | None:
    """Run ``snapline hook ARGS`` without the typer application, when the arguments allow.

    Args:
        args: The arguments after ``hook``.

    Returns:
        The exit code, or ``None`` when the arguments need the full command line
        (help, an unknown host or option), which then parses and reports them.
    """
    if not args or args[0] not in HOSTS:
        return None
    options = args[1:]
    if any(option != _MILESTONE_FLAG for option in options):
        return None
    return run(milestone_per_prompt=True if options else None)


def run(*, milestone_per_prompt: bool | None = None, timeout: float | None = None) -> int:
    """Read one Claude Code hook event from stdin, handle it, and say why on stderr.

    Args:
        milestone_per_prompt: Close a milestone per prompt; ``None`` leaves it to the
            ``SNAPLINE_MILESTONE_PER_PROMPT`` environment variable.
        timeout: Seconds to wait for a busy store (default: the hook's short timeout).

    Returns:
        The exit code: 2 refuses the tool, 0 lets it run.
    """
    from snapline.hosts.claude_code import BUSY_TIMEOUT, handle_input

    try:
        text = sys.stdin.read()
    except (OSError, UnicodeDecodeError) as error:
        sys.stderr.write(f"snapline: warning: cannot read the hook input: {error}\n")
        return 0
    outcome = handle_input(
        text,
        timeout=BUSY_TIMEOUT if timeout is None else timeout,
        milestone_per_prompt=milestone_per_prompt,
    )
    if outcome.message:
        sys.stderr.write(" ".join(outcome.message.split()) + "\n")
    return outcome.exit_code
