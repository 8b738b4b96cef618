"""Running a check: a command on the workspace's files, its exit code, its output for a host."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from snapline.snapshots.record.command import CommandError

__all__ = ["OUTPUT_LIMIT", "CheckOutput", "run_check"]

OUTPUT_LIMIT = 64 << 10
"""Characters of a captured output kept: its end, where test runners put their summary."""


class CheckOutput(str, Enum):
    """Where a check's output goes."""

    INHERIT = "inherit"
    """Straight through, as the check prints it (the command line)."""
    STDERR = "stderr"
    """Everything on stderr, so that stdout carries only snapline's JSON."""
    CAPTURE = "capture"
    """Kept, stdout and stderr together, and handed back (an MCP host, whose stdout is the
    protocol's channel)."""


def run_check(argv: Sequence[str], cwd: Path, output: CheckOutput) -> tuple[int, str | None]:
    """Run the check ``argv`` in ``cwd`` and wait for it.

    Its standard input is empty: a check reads nothing from whoever started it (a hook's
    event, an MCP channel). No shell is involved.

    Args:
        argv: The command and its arguments.
        cwd: Where it runs.
        output: Where its output goes.

    Returns:
        The exit code as a shell reports it (128 + N when signal N ended the check),
        and the output's last :data:`OUTPUT_LIMIT` characters when captured.

    Raises:
        CommandError: If the command cannot be started (exit code 127 or 126).
    """
    streams: dict[str, Any] = {}
    if output is CheckOutput.STDERR:
        sys.stderr.flush()
        streams = {"stdout": sys.stderr.fileno()}
    elif output is CheckOutput.CAPTURE:
        streams = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT}
    try:
        completed = subprocess.run(
            list(argv), cwd=cwd, stdin=subprocess.DEVNULL, check=False, **streams
        )
    except OSError as error:
        raise CommandError(argv, error) from None
    code = completed.returncode if completed.returncode >= 0 else 128 - completed.returncode
    if output is not CheckOutput.CAPTURE:
        return code, None
    text = completed.stdout.decode("utf-8", errors="replace")
    return code, text[-OUTPUT_LIMIT:]
