"""What the pre-push hook runs: push the history when the push carries a branch.

git gives the hook the remote and, on stdin, one line per ref it is about to push:
``<local ref> <local oid> <remote ref> <remote oid>``. The history goes along when a
branch is pushed (a remote ref under ``refs/heads/`` and not a deletion), and not when
the push already names ``refs/snapline/`` itself, or pushes only tags or deletions.

``git push --dry-run`` runs the hook too, and does not tell it: the hook's parent (git)
is asked for its command line, and a dry run pushes the history dry too.

The nested push has no time limit, as the user's own ``git push`` has none: a limit
dropped the history of a large repository on a loaded machine while the branch went.
When the history does not go (a ref refused, git failing), the hook stops the user's
push with one line, unless ``git config snapline.prePush warn`` says to let it go on
without the history (:func:`history_required`).
"""

from __future__ import annotations

import os
from pathlib import Path

from snapline.store.refs.layout import REFS
from snapline.travel.gitrun import GitFailedError, git
from snapline.travel.outcome import Travel
from snapline.travel.pushing import push

__all__ = ["PRE_PUSH_CONFIG", "STOPPED", "carries_a_branch", "history_required", "pre_push"]

PRE_PUSH_CONFIG = "snapline.prePush"
"""git's setting for a history that does not go: ``refuse`` (the default) or ``warn``."""

STOPPED = (
    "so your push stopped (`git push --no-verify` pushes without the history once, "
    f"`git config {PRE_PUSH_CONFIG} warn` always)"
)
"""The end of the one line that says why the hook stopped the user's push."""


def carries_a_branch(lines: str) -> bool:
    """Whether git's pre-push lines push a branch, and not the history's refs already."""
    branch = False
    for line in lines.splitlines():
        words = line.split()
        if len(words) != 4:
            continue
        local_oid, remote_ref = words[1], words[2]
        if remote_ref.startswith(REFS):
            return False
        if remote_ref.startswith("refs/heads/") and local_oid.strip("0"):
            branch = True
    return branch


def pre_push(root: Path, remote: str, lines: str) -> Travel | None:
    """Push the history to ``remote`` if git's ``lines`` push a branch.

    Args:
        root: A directory in the work tree (the hook runs at its top).
        remote: The remote git pushes to (its name, or the URL).
        lines: git's pre-push lines (the hook's stdin).

    Returns:
        What the push did; ``None`` when nothing had to go.

    Raises:
        GitFailedError: If git could not push at all.
    """
    if not carries_a_branch(lines):
        return None
    return push(root, remote, dry_run=_git_dry_run())


def history_required(root: Path) -> bool:
    """Whether a history that did not go stops the user's push (``snapline.prePush``).

    Args:
        root: A directory in the work tree.

    Returns:
        ``False`` only when git's config says ``warn``; any other value (or none, or
        git failing to say) keeps the history required, so it is never dropped unsaid.
    """
    try:
        said = git(root, "config", "--get", PRE_PUSH_CONFIG)
    except GitFailedError:
        return True
    return said.out.strip() != "warn"


def _git_dry_run() -> bool:
    """Whether the ``git push`` that runs this hook is a ``--dry-run`` (``-n``)."""
    # This process's parent is the hook's shell; the shell's parent is git.
    try:
        shell_stat = Path(f"/proc/{os.getppid()}/stat").read_text(encoding="ascii")
        git_pid = int(shell_stat.rpartition(")")[2].split()[1])
        argv = Path(f"/proc/{git_pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError, IndexError):
        return False  # no /proc (not Linux): a dry run is not detected
    words = [word.decode(errors="replace") for word in argv if word]
    if "push" not in words:
        return False
    for word in words[words.index("push") + 1 :]:
        if word == "--":
            break
        if word == "--dry-run":
            return True
        if word.startswith("-") and not word.startswith("--") and "n" in word[1:]:
            return True
    return False
