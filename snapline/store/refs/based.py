"""The user's commit a baseline is taken at: its commit's parent, when the remote has it.

git's push sends what the pushed refs reach minus what the remote's refs reach, but it
leaves out the files of the remote's commits only through the commits at the edge of
what it sends (a parent of a sent commit that the remote holds). A line's baseline
with no parent brings the whole tree at ``init`` along in its first push, though the
remote holds those files through the user's branch (bench row R6: 20.4 MiB of 21.4).
With the checked-out commit as its parent, the push leaves them out.

That parent keeps the user's commit, and everything below it, reachable from
``refs/snapline/``. When the user rewrites it out of their branches (a secret
committed, removed with a force-push), ``snapline forget`` drops the parent of every
baseline whose commit no branch, tag or remote-tracking ref reaches any more
(:func:`still_published`, :mod:`.forgetting`), and ``forget --publish`` publishes that
rewrite, so a fresh clone fetching the history does not get the commit back.

Only a commit that a remote-tracking ref reaches (``refs/remotes/``: a remote had it
when last fetched) is taken: a local commit never published is never carried to a
remote by the history's push, and the first push of a new repository sends the user's
commits once, with the branch. A shallow clone's ``snapline fetch`` does not fetch the
user's commits below a baseline (:mod:`snapline.travel.fetching`).
"""

from __future__ import annotations

from pathlib import Path

from snapline.git_binary import GitNotRunError, GitRun, run_git

__all__ = ["published_head", "still_published"]


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


def still_published(git_dir: Path, commit: str) -> bool:
    """Whether a branch, a tag or a remote-tracking ref of ``git_dir`` reaches ``commit``.

    Args:
        git_dir: The work tree's git directory.
        commit: A baseline's parent.

    Returns:
        ``False`` only when git says that no ref under ``refs/heads/``, ``refs/tags/`` or
        ``refs/remotes/`` contains it; ``True`` when one does, or git cannot say (the
        commit absent, as in a shallow clone, or no git binary): then it is kept.
    """
    contains = ["for-each-ref", "--count=1", f"--contains={commit}", "--format=%(refname)"]
    done = _run(git_dir, *contains, "refs/heads/", "refs/tags/", "refs/remotes/")
    return done is None or done.code != 0 or bool(done.text.strip())


def _git(git_dir: Path, *args: str) -> str:
    """What ``git ARGS`` printed (stripped); empty when it failed or could not start."""
    done = _run(git_dir, *args)
    return done.text.strip() if done is not None and done.code == 0 else ""


def _run(git_dir: Path, *args: str) -> GitRun | None:
    # None: git could not run (the callers' answer without git).
    try:
        return run_git(git_dir, f"--git-dir={git_dir}", *args)
    except GitNotRunError:
        return None
