"""Running the git binary for travel: the one place that starts a ``git`` process here.

Push and fetch go through the user's own git, so that the network, credentials, proxies,
``insteadOf`` rewrites and every other setting of the user's config are git's business,
exactly as for ``git push``. What git says when it fails is kept for the one line the
command line prints.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from snapline.errors import SnaplineError

__all__ = ["EXIT_GIT", "GitFailedError", "Ran", "git", "git_line"]

EXIT_GIT = 5
"""The exit code of a push or fetch that git itself could not do (docs/cli.md): the remote
could not be reached or read, credentials were refused, git is missing. Apart from 1 (a
ref refused), so that a script can retry this one and not that one."""


class GitFailedError(SnaplineError):
    """git could not do what travel asked (the remote unreachable, access refused...).

    Nothing local was changed by the failed step.

    Attributes:
        command: What was run (``git push``, ``git fetch``).
        reason: git's own line on stderr (``fatal: ...``), or how it ended.
    """

    exit_code = EXIT_GIT

    def __init__(self, command: str, reason: str, advice: str = "") -> None:
        self.command = command
        self.reason = reason
        tail = f"; {advice}" if advice else ""
        super().__init__(f"`{command}` failed: {reason}{tail}")


@dataclass(frozen=True)
class Ran:
    """What one git process did.

    Attributes:
        code: Its exit status.
        out: Its standard output (text).
        err: Its standard error (text).
    """

    code: int
    out: str
    err: str


def git(
    cwd: Path,
    *args: str,
    data: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    name: str | None = None,
) -> Ran:
    """Run ``git ARGS`` in ``cwd`` and return what it did, whatever its status.

    Args:
        cwd: The directory git runs in (it finds the repository from there).
        *args: git's arguments.
        data: Text for its standard input (else none: git never waits on the user's).
        env: The environment (default: this process's).
        timeout: Seconds after which git is stopped (``None``: no bound).
        name: What to call the command in an error (default ``git <subcommand>``).

    Returns:
        Its status, standard output and standard error.

    Raises:
        GitFailedError: If git cannot be started, or ran past ``timeout``.
    """
    name = name or "git " + next((a for a in args if not a.startswith("-") and "=" not in a), "")
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=data if data is not None else "",
            capture_output=True,
            text=True,
            errors="replace",
            env=None if env is None else dict(env),
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as error:
        raise GitFailedError(name, "no git on PATH", "install git or put it on PATH") from error
    except subprocess.TimeoutExpired as error:
        raise GitFailedError(
            name, f"it ran past {timeout:g} s and was stopped", "nothing was moved"
        ) from error
    return Ran(done.returncode, done.stdout, done.stderr)


def git_line(ran: Ran) -> str:
    """Why git failed: its first ``fatal:`` (else ``error:``) line, else its last line.

    Args:
        ran: A git process that failed.

    Returns:
        One line, without git's ``fatal: `` prefix.
    """
    lines = [line.strip() for line in ran.err.splitlines() if line.strip()]
    for prefix in ("fatal: ", "error: "):
        said = [line.removeprefix(prefix) for line in lines if line.startswith(prefix)]
        if said:
            return said[0]
    return lines[-1] if lines else f"git exited with status {ran.code}"
