"""The user's commit a baseline is taken at: its commit's parent, when the remote has it.

git's push sends what the pushed refs reach minus what the remote's refs reach, but it
leaves out the files of the remote's commits only through the commits at the edge of
what it sends (a parent of a sent commit that the remote holds). A line's baseline
with no parent brings the whole tree at ``init`` along in its first push, though the
remote holds those files through the user's branch (bench row R6: 20.4 MiB of 21.4).
With the checked-out commit as its parent, the push leaves them out.

Only a commit that a remote-tracking ref reaches (``refs/remotes/``: a remote had it
when last fetched) is taken: a local commit never published is never carried to a
remote by the history's push, and the first push of a new repository sends the user's
commits once, with the branch. A shallow clone's ``snapline fetch`` does not fetch the
user's commits below a baseline (:mod:`snapline.travel.fetching`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["published_head"]


def published_head(git_dir: Path) -> str | None:
    """The checked-out commit of ``git_dir``'s work tree if a remote-tracking ref reaches it.

    Args:
        git_dir: The work tree's git directory (a linked work tree's own).

    Returns:
        The commit's id; ``None`` when there is no commit yet, none under
        ``refs/remotes/`` reaches it, or git cannot say (no git binary).
    """
    head = _git(git_dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if not head:
        return None
    held = _git(
        git_dir,
        "for-each-ref",
        "--count=1",
        f"--contains={head}",
        "--format=%(refname)",
        "refs/remotes/",
    )
    return head if held else None


def _git(git_dir: Path, *args: str) -> str:
    """What ``git ARGS`` printed (stripped); empty when it failed or could not start."""
    import subprocess  # here: only a baseline asks, and a record loads no subprocess

    try:
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", *args],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
