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
import tempfile
from functools import cache

from snapline.blame.lines import Hunks
from snapline.git_binary import GitNotRunError, git_environment, git_installed, run_git

__all__ = ["git_hunks", "git_hunks_many", "line_diff"]

_FILE = re.compile(rb"^diff --git \S*/(\d+) ")
_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_SETTINGS = (
    "-c", "diff.algorithm=myers", "-c", "diff.indentHeuristic=true",
    "-c", "core.autocrlf=false", "-c", "core.quotePath=false",
)  # fmt: skip
_DIFF = ("diff", "--no-index", "--no-ext-diff", "--no-textconv", "--no-color", "--text", "-U0")


def _diff(folder: str, *options: str) -> bytes:
    """What ``git diff --no-index`` of ``a`` and ``b`` in ``folder`` printed.

    Run plain (:func:`~snapline.git_binary.git_environment`): no setting of the user's
    (``GIT_CONFIG_PARAMETERS``, an inherited ``GIT_DIR``'s config) changes the hunks.

    Raises:
        OSError: If git cannot be run or fails.
    """
    try:
        done = run_git(
            folder, *_SETTINGS, *_DIFF, *options, "--", "a", "b", env=git_environment(plain=True)
        )
    except GitNotRunError as error:
        raise OSError(str(error)) from None
    if done.code not in (0, 1):
        raise OSError(f"git diff failed: {' '.join(done.lines)}")
    return done.out


@cache
def _scratch() -> str | None:
    """Where many small files written once and read once go: memory, where there is a tmpfs.

    Thousands of versions written to a disk that other processes keep busy cost seconds
    (the review page's benchmark: 1.5 s of its 2.4 s); in ``/dev/shm`` tens of
    milliseconds. ``None``: the system's temporary directory.
    """
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def line_diff() -> Hunks:
    """Git's own line diff when git is installed, else libgit2's (the same algorithm)."""
    if git_installed():
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
    with tempfile.TemporaryDirectory(prefix="snapline-blame-") as folder:
        with open(os.path.join(folder, "a"), "wb") as handle:
            handle.write(old)
        with open(os.path.join(folder, "b"), "wb") as handle:
            handle.write(new)
        out = _diff(folder)
    return [
        (int(a), int(b) if b else 1, int(c), int(d) if d else 1)
        for a, b, c, d in _HEADER.findall(out)
    ]


def git_hunks_many(pairs: list[tuple[bytes, bytes]]) -> list[list[tuple[int, int, int, int]]]:
    """:func:`git_hunks` of many pairs of texts from one git process.

    The pairs are written as two directories, ``a/N`` and ``b/N``, and diffed as git
    diffs two trees without a repository (``diff --no-index``, renames off): each
    file pair gets the same xdiff run with the same settings as a pair on its own.

    Returns:
        The hunks of each pair, in order.

    Raises:
        OSError: If git cannot be run or fails.
    """
    found: list[list[tuple[int, int, int, int]]] = [[] for _ in pairs]
    todo = [at for at, (old, new) in enumerate(pairs) if old != new]
    if not todo:
        return found
    with tempfile.TemporaryDirectory(prefix="snapline-blame-", dir=_scratch()) as folder:
        for side in ("a", "b"):
            os.mkdir(os.path.join(folder, side))
        for at in todo:
            old, new = pairs[at]
            with open(os.path.join(folder, "a", str(at)), "wb") as handle:
                handle.write(old)
            with open(os.path.join(folder, "b", str(at)), "wb") as handle:
                handle.write(new)
        out = _diff(folder, "--no-renames")
    current: list[tuple[int, int, int, int]] | None = None
    # With -U0 every line of a change starts with +, - or \: only git's own headers
    # start with "diff --git " or "@@ ".
    for line in out.split(b"\n"):
        if line.startswith(b"diff --git "):
            named = _FILE.match(line)
            current = None if named is None else found[int(named[1])]
        elif line.startswith(b"@@ ") and current is not None:
            for a, b, c, d in _HEADER.findall(line):
                current.append((int(a), int(b) if b else 1, int(c), int(d) if d else 1))
    return found
