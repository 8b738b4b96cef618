"""The one runner of the git binary: its environment, its bound, its output, its absence.

Every ``git`` process snapline starts goes through :func:`run_git` (the one streaming
reader, ``store/ledger/baseline.py``'s bounded ``cat-file``, takes only its environment
from :func:`git_environment`). What this module decides once for all of them:

- the environment: this process's (or the caller's), and with ``own_repository`` the
  variables git itself clears before it runs git in another repository (its
  ``local_repo_env``: ``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_INDEX_FILE``...), so that git
  finds the repository from the directory it runs in, as an inherited ``GIT_DIR`` (a hook,
  ``git --git-dir``) would not; with ``plain`` also no configuration but git's own
  defaults (no system, global or ``-c`` settings) and the C locale, for output that is
  parsed. No pager is ever started: git's output is a pipe, never a terminal.
- standard input: the given bytes, else none (``/dev/null``): git never reads the user's.
- output: bytes; :attr:`GitRun.text` is standard output as file names are decoded
  (``os.fsdecode``), :attr:`GitRun.lines` standard error for people (undecodable bytes
  replaced).
- git that did not run to its end (not installed, not startable, stopped at ``timeout``)
  raises :class:`GitNotRunError`, one line; a status other than 0 is returned, not
  raised: what a failure means (and its message and exit code) is each caller's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import Enum
from functools import cache
from pathlib import Path
from typing import NamedTuple

from snapline.errors import SnaplineError

__all__ = [
    "NO_GIT",
    "GitNotRunError",
    "GitRun",
    "NotRun",
    "git_environment",
    "git_installed",
    "run_git",
]

NO_GIT = "no git on PATH"
"""The reason given when git is not installed (or not on ``PATH``)."""

# git's local_repo_env (environment.c) but its configuration variables: what points git
# at a repository other than the one found from its working directory.
_REPOSITORY_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_GRAFT_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_INTERNAL_SUPER_PREFIX",
)
# The user's settings given on the command line (`git -c`) or in the environment.
_CONFIG_VARIABLES = ("GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")
_PLAIN = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}


class NotRun(Enum):
    """Why git did not run to its end."""

    MISSING = "missing"
    """git is not installed (not on ``PATH``)."""
    UNSTARTABLE = "unstartable"
    """The OS refused to start it (its folder gone, no permission...)."""
    STOPPED = "stopped"
    """It ran past its time bound and was killed."""


class GitNotRunError(SnaplineError):
    """git did not run to its end: not installed, not startable, or stopped at its bound.

    Callers that have their own error for git's failure translate this one into it.

    Attributes:
        command: What was run, for a message (``git ls-files``).
        reason: Why, in a few words (:data:`NO_GIT`, the OS's reason, the time bound).
        why: Which of the cases it is.
    """

    command: str
    reason: str
    why: NotRun

    def _message(self) -> str:
        return f"`{self.command}` could not run: {self.reason}"


class GitRun(NamedTuple):
    """What one git process did.

    Attributes:
        code: Its exit status.
        out: Its standard output.
        err: Its standard error.
    """

    code: int
    out: bytes
    err: bytes

    @property
    def text(self) -> str:
        """Standard output as text, decoded as file names are (nothing lost)."""
        return os.fsdecode(self.out)

    @property
    def lines(self) -> list[str]:
        """The non-blank lines of standard error, stripped (for a message)."""
        said = self.err.decode("utf-8", "replace").splitlines()
        return [line.strip() for line in said if line.strip()]


def git_environment(
    env: Mapping[str, str] | None = None, *, own_repository: bool = True, plain: bool = False
) -> dict[str, str]:
    """The environment a git process gets.

    Args:
        env: The environment to start from (default: this process's).
        own_repository: Drop the variables that point git at another repository than
            the one it finds from its working directory.
        plain: Also drop the user's settings and set git's defaults and the C locale.

    Returns:
        A new environment.
    """
    base = dict(os.environ if env is None else env)
    dropped = (_REPOSITORY_VARIABLES if own_repository or plain else ()) + (
        _CONFIG_VARIABLES if plain else ()
    )
    out = {
        key: value
        for key, value in base.items()
        if key not in dropped
        and not (plain and key.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")))
    }
    if plain:
        out.update(_PLAIN)
    return out


def run_git(
    cwd: Path | str,
    *args: str,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    name: str | None = None,
) -> GitRun:
    """Run ``git ARGS`` in ``cwd``; what it did, whatever its status.

    Args:
        cwd: The directory git runs in.
        *args: git's arguments.
        input: Its standard input (else none).
        env: Its whole environment (default: :func:`git_environment` of this process's).
        timeout: Seconds after which git is stopped (``None``: no bound).
        name: What to call it in an error (default ``git <subcommand>``).

    Returns:
        Its status, standard output and standard error.

    Raises:
        GitNotRunError: If git is not installed, cannot be started, or ran past ``timeout``.
    """
    import subprocess  # here: a process that never runs git never loads subprocess

    name = name or "git " + next((a for a in args if not a.startswith("-") and "=" not in a), "")
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            env=git_environment() if env is None else dict(env),
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as error:
        if error.filename is not None and os.fsdecode(error.filename) == os.fsdecode(cwd):
            raise GitNotRunError(name, f"no folder {cwd}", NotRun.UNSTARTABLE) from None
        raise GitNotRunError(name, NO_GIT, NotRun.MISSING) from None
    except subprocess.TimeoutExpired:
        reason = f"it ran past {timeout:g} s and was stopped"
        raise GitNotRunError(name, reason, NotRun.STOPPED) from None
    except OSError as error:
        raise GitNotRunError(name, error.strerror or str(error), NotRun.UNSTARTABLE) from None
    return GitRun(done.returncode, done.stdout, done.stderr)


@cache
def git_installed() -> bool:
    """Whether git is on this process's ``PATH`` (asked once per process)."""
    import shutil  # here: shutil loads the compression modules, which a hook never needs

    return shutil.which("git") is not None
