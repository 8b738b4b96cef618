"""Running the git binary for travel: git's failures said as travel says them (exit 5).

Push and fetch go through the user's own git, so that the network, credentials, proxies,
``insteadOf`` rewrites and every other setting of the user's config are git's business,
exactly as for ``git push``. The process itself is :mod:`snapline.git_binary`'s; what git
says when it fails is kept for the one line the command line prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.git_binary import GitNotRunError, NotRun, git_environment, run_git

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

    The environment is kept whole (:func:`~snapline.git_binary.git_environment` with
    ``own_repository=False``): run inside git's own pre-push hook, the ``GIT_DIR`` git
    exported names the repository being pushed.

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
    try:
        ran = run_git(
            cwd,
            *args,
            input=None if data is None else data.encode(),
            env=git_environment(env, own_repository=False),
            timeout=timeout,
            name=name,
        )
    except GitNotRunError as error:
        raise GitFailedError(error.command, error.reason, _ADVICE.get(error.why, "")) from None
    return Ran(ran.code, ran.text, ran.err.decode("utf-8", "replace"))


_ADVICE = {NotRun.MISSING: "install git or put it on PATH", NotRun.STOPPED: "nothing was moved"}


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
