"""Which remote the history travels to and from when the command line names none.

``snapline push`` goes where ``git push`` of the current branch goes
(``branch.<name>.pushRemote``, then ``remote.pushDefault``, then the branch's upstream
remote ``branch.<name>.remote``), and ``snapline fetch`` comes from where ``git fetch``
of it comes (its upstream remote); both fall back to ``origin``. A fork's clone that
pushes to the fork and pulls from upstream pushes its history to the fork and fetches
the others' from upstream, with no option.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.state_dir import in_git
from snapline.travel.gitrun import git

__all__ = ["Direction", "NoRemoteError", "NotAGitRepositoryError", "default_remote", "work_tree"]

_FALLBACK = "origin"


class Direction(Enum):
    """Which way the history travels."""

    push = "push"
    fetch = "fetch"


class NoRemoteError(SnaplineError):
    """No remote was named and the repository has none to default to.

    Attributes:
        direction: ``push`` or ``fetch``.
        tried: The remote the default led to (``origin`` when nothing else is set).
    """

    exit_code = 2

    def __init__(self, direction: Direction, tried: str) -> None:
        self.direction = direction
        self.tried = tried
        super().__init__(
            f"no remote to {direction.value}: this repository has no remote {tried!r}; "
            f"name one (`snapline {direction.value} REMOTE`) or add one "
            "(`git remote add origin URL`)"
        )


class NotAGitRepositoryError(SnaplineError):
    """The directory is not in a git work tree: there are no refs to move.

    Attributes:
        path: The directory.
    """

    exit_code = 2

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(
            f"{path} is not in a git repository: the history travels on git's refs, "
            "so push and fetch work in a git work tree (run them there, or pass --root)"
        )


def work_tree(cwd: Path) -> Path:
    """The top of the git work tree holding ``cwd``.

    Raises:
        NotAGitRepositoryError: If ``cwd`` is not inside one.
    """
    if not in_git(cwd):
        raise NotAGitRepositoryError(cwd)  # said without git: none may be installed
    ran = git(cwd, "rev-parse", "--show-toplevel")
    if ran.code != 0 or not ran.out.strip():
        raise NotAGitRepositoryError(cwd)
    return Path(ran.out.strip())


def default_remote(root: Path, direction: Direction) -> str:
    """The remote to use when the command line names none.

    Args:
        root: A directory in the work tree.
        direction: Push or fetch (they may differ: a fork pushes to one remote and
            fetches from another).

    Returns:
        The remote's name.

    Raises:
        NoRemoteError: If that remote (``origin`` when nothing is set) does not exist.
    """
    branch = git(root, "symbolic-ref", "-q", "--short", "HEAD").out.strip()
    keys = [f"branch.{branch}.remote"] if branch else []
    if direction is Direction.push:
        keys = ([f"branch.{branch}.pushRemote"] if branch else []) + ["remote.pushDefault"] + keys
    chosen = _FALLBACK
    for key in keys:
        value = git(root, "config", "--get", key).out.strip()
        # "." is the repository itself (a branch tracking a local branch): not a remote.
        if value and value != ".":
            chosen = value
            break
    known = git(root, "remote").out.split()
    if chosen not in known:
        raise NoRemoteError(direction, chosen)
    return chosen
