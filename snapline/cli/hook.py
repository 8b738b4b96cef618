"""``snapline hook claude-code``: the lean path a per-event hook process takes.

Claude Code starts one process per hook event, so this path must start fast: the
console script sends ``snapline hook ...`` here before it builds the typer application
(and rich), and this module imports only the standard library and the hook handler.
The typer command of the same name (``cli/integrate.py``) calls :func:`run` too, for
``--help`` and the global options.
"""

from __future__ import annotations

import sys

from snapline.cli import lean

__all__ = ["HOSTS", "fast_path", "run"]

HOSTS = ("claude-code",)
"""The agent hosts ``snapline hook`` knows."""


def fast_path(args: list[str]) -> int | None:
    """Run ``snapline hook ARGS`` without the typer application, when the arguments allow.

    Args:
        args: The arguments after ``hook``.

    Returns:
        The exit code, or ``None`` for help (and no arguments), which the full command
        line shows. An unknown host or option is a warning with exit 0, not the usage
        error's exit 2: a hook command that exits 2 would block every tool call.
    """
    if not args or lean.wants_help(args):
        return None
    parsed = lean.read(f"hook {args[0]}", args[1:]) if args[0] in HOSTS else None
    if parsed is None:
        from snapline.hosts.claude_output import say, warn

        known = lean.spec(f"hook {HOSTS[0]}")
        flags = [name for option in known.options for name in option.names] if known else []
        return say(
            warn(
                f"unknown hook arguments {' '.join(args)!r} (hosts: "
                f"{', '.join(HOSTS)}; options: {', '.join(flags)}); nothing done"
            )
        )
    return run(
        milestone_per_prompt=True if "milestone_per_prompt" in parsed.flags else None,
        prompt_digest=True if "prompt_digest" in parsed.flags else None,
    )


def run(
    *,
    milestone_per_prompt: bool | None = None,
    timeout: float | None = None,
    prompt_digest: bool | None = None,
) -> int:
    """Read one Claude Code hook event from stdin, handle it, and say what Claude Code reads.

    Args:
        milestone_per_prompt: Close a milestone per prompt; ``None`` leaves it to the
            ``SNAPLINE_MILESTONE_PER_PROMPT`` environment variable.
        timeout: Seconds to wait for a busy store (default: the hook's short timeout).
        prompt_digest: Keep only each prompt's digest; ``None`` leaves it to
            ``SNAPLINE_PROMPTS``.

    Returns:
        The exit code, always 0: a decision (``deny``, ``ask``) or a warning is one JSON
        object on stdout (:mod:`snapline.hosts.claude_output`), a warning one line on
        stderr too.
    """
    from snapline.hosts.claude_code import BUSY_TIMEOUT, handle_input
    from snapline.hosts.claude_output import say, warn

    try:
        text = sys.stdin.read()
    except (OSError, UnicodeDecodeError) as error:
        return say(warn(f"cannot read the hook input: {error}"))
    try:
        outcome = handle_input(
            text,
            timeout=BUSY_TIMEOUT if timeout is None else timeout,
            milestone_per_prompt=milestone_per_prompt,
            prompt_digest=prompt_digest,
        )
    except Exception as error:  # never a traceback into the agent's session
        outcome = warn(f"internal error {type(error).__name__}; ignored")
    return say(outcome)
