"""A ``PATH`` on which no ``git`` can be found, for the commands of a workspace outside git.

Issue 37.7: outside git the history is on the refs of a private repository made and read
with the git library (libgit2), so no command may need the git binary there. The
directory holds links to the few programs the tests run (``sh``, ``true``, ``false``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["no_git_path"]

_PROGRAMS = ("sh", "true", "false", "cat")


def no_git_path(directory: Path) -> str:
    """Make ``directory/bin`` with links to a few programs, and no git; that ``PATH``.

    Returns:
        The ``PATH`` value (that one directory); ``git`` is on it for no lookup.
    """
    folder = directory / "bin"
    folder.mkdir()
    for name in _PROGRAMS:
        found = shutil.which(name, path="/usr/bin:/bin")
        assert found is not None, f"{name} is needed by the tests"
        (folder / name).symlink_to(found)
    path = str(folder)
    assert shutil.which("git", path=path) is None
    return path
