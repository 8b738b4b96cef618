"""The line diff ``git blame`` uses, from git itself when it is installed.

libgit2's xdiff (:func:`snapline.store.refs.gitlines.line_hunks`) and git's own part ways
on some large changes (a 720-line Perl script rewritten in one commit of the
diff-so-fancy history: libgit2's diff changes 323 lines, git's 337, and the lines each
blames differ), so where git is on the ``PATH`` its ``diff --no-index`` answers, with
the settings of a plain ``git blame`` (Myers, the indent heuristic, no configuration of
the user's changing it); without git, libgit2's answer stands in. The two versions are
written to a private temporary directory, never into the workspace.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from functools import cache

from snapline.blame.lines import Hunks

__all__ = ["git_hunks", "line_diff"]

_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_SETTINGS = (
    "-c", "diff.algorithm=myers", "-c", "diff.indentHeuristic=true",
    "-c", "core.autocrlf=false", "-c", "core.quotePath=false",
)  # fmt: skip
_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}


@cache
def _git() -> str | None:
    return shutil.which("git")


def line_diff() -> Hunks:
    """Git's own line diff when git is installed, else libgit2's (the same algorithm)."""
    if _git() is not None:
        return git_hunks
    from snapline.store.refs.gitlines import line_hunks

    return line_hunks


def git_hunks(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    """The hunks of ``git diff --no-index -U0`` of two texts, as ``@@`` numbers them.

    Raises:
        OSError: If git cannot be run or fails.
    """
    if old == new:
        return []
    git = _git()
    if git is None:
        raise FileNotFoundError("git is not on the PATH")
    with tempfile.TemporaryDirectory(prefix="snapline-blame-") as folder:
        with open(os.path.join(folder, "a"), "wb") as handle:
            handle.write(old)
        with open(os.path.join(folder, "b"), "wb") as handle:
            handle.write(new)
        done = subprocess.run(
            [git, *_SETTINGS, "diff", "--no-index", "--no-ext-diff", "--no-textconv",
             "--no-color", "--text", "-U0", "--", "a", "b"],
            cwd=folder, capture_output=True, env={**os.environ, **_ENV}, check=False,
        )  # fmt: skip
    if done.returncode not in (0, 1):
        raise OSError(f"git diff failed: {done.stderr.decode(errors='replace').strip()}")
    return [
        (int(a), int(b) if b else 1, int(c), int(d) if d else 1)
        for a, b, c, d in _HEADER.findall(done.stdout)
    ]
