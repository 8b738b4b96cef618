"""Publishing a forget: each line it rewrote force-pushed under a lease, never blindly.

A forget rewrites snapline's lines, so pushing them is not a fast-forward, and a plain
``git push`` (or a pre-push hook) refuses or skips them. ``snapline forget --publish
REMOTE`` pushes, in one atomic ``git push``, every forget ref the remote lacks and
every line a recorded forget rewrote, each with ``--force-with-lease=REF:EXPECT``
where EXPECT is what the remote's ref holds now, and only when that is a commit of the
line before the rewrite (the ``old`` of a recorded rewrite, or an ancestor of one: the
remote had not yet received the latest snapshots). A remote ref that holds anything
else (snapshots recorded elsewhere, another rewrite) is refused with the way out, and
nothing is pushed; a ref that moves on the remote between the check and the push fails
git's own lease, and again nothing is pushed (``--atomic``).
"""

from __future__ import annotations

from pathlib import Path

from snapline.errors import SnaplineError
from snapline.git_binary import GitNotRunError, GitRun, git_environment, run_git
from snapline.store.refs.forgetting import read_forgets
from snapline.store.refs.git import GitRepository
from snapline.store.refs.layout import REFS

__all__ = ["PublishRefusedError", "publish_forgets"]


class PublishRefusedError(SnaplineError):
    """The remote cannot take the rewrite without losing something: nothing was pushed.

    Attributes:
        remote: The remote.
        detail: What is wrong and the way out.
    """

    remote: str
    detail: str

    def _message(self) -> str:
        return f"nothing was pushed to {self.remote}: {self.detail}"


def publish_forgets(repo: GitRepository, root: Path, remote: str) -> list[str]:
    """Push the forgets and the lines they rewrote to ``remote``; the refs pushed.

    Args:
        repo: The repository holding the refs.
        root: The work tree, where ``git`` runs.
        remote: A remote's name or URL.

    Returns:
        The refs updated on the remote (empty: it had them all already).

    Raises:
        PublishRefusedError: If there is no forget, the remote cannot be read, a
            remote ref is not a commit of its line before the rewrite, or git refuses.
    """
    forgets = read_forgets(repo)
    if not forgets:
        raise PublishRefusedError(remote, "no forget is recorded here (`snapline forget PATH`)")
    theirs = _remote_refs(root, remote)
    before: dict[str, set[str]] = {}
    for forget in forgets:
        for rewrite in forget.rewrites:
            before.setdefault(rewrite.ref, set()).add(rewrite.old)
    leases: list[str] = []
    refspecs: list[str] = []
    for ref, olds in sorted(before.items()):
        mine, found = repo.ref(ref), theirs.get(ref)
        if mine is None or found == mine:
            continue
        if found is not None and not any(_is_ancestor(root, remote, found, old) for old in olds):
            raise PublishRefusedError(
                remote,
                f"its {ref} is at {found[:12]}, not on the line this forget rewrote: fetch "
                f"(git fetch {remote} '+{REFS}*:{REFS}*' is also a rewrite: check first) "
                "and record or forget there",
            )
        leases.append(f"--force-with-lease={ref}:{found or ''}")
        refspecs.append(f"{mine}:{ref}")
    for forget in forgets:
        found = theirs.get(forget.ref)
        if found == forget.commit:
            continue
        if found is not None:
            raise PublishRefusedError(remote, f"its {forget.ref} is another commit {found[:12]}")
        leases.append(f"--force-with-lease={forget.ref}:")
        refspecs.append(f"{forget.commit}:{forget.ref}")
    if refspecs:
        done = _git(root, remote, "push", "--atomic", "--quiet", *leases, remote, *refspecs)
        if done.code != 0:
            raise PublishRefusedError(remote, _last_line(done))
    return [spec.split(":", 1)[1] for spec in refspecs]


def _remote_refs(root: Path, remote: str) -> dict[str, str]:
    done = _git(root, remote, "ls-remote", "--refs", remote, REFS + "*")
    if done.code != 0:
        raise PublishRefusedError(remote, _last_line(done))
    found = {}
    for line in done.text.splitlines():
        commit, _, ref = line.partition("\t")
        found[ref] = commit
    return found


def _is_ancestor(root: Path, remote: str, commit: str, of: str) -> bool:
    # Exit 1: not an ancestor; 128: the commit is not here (then it is none of ours).
    return _git(root, remote, "merge-base", "--is-ancestor", commit, of).code == 0


def _git(root: Path, remote: str, *args: str) -> GitRun:
    # The user's own environment, as for `snapline push` (travel/gitrun.py).
    try:
        return run_git(root, *args, env=git_environment(own_repository=False))
    except GitNotRunError as error:
        raise PublishRefusedError(
            remote, f"`{error.command}` could not run: {error.reason}"
        ) from None


def _last_line(done: GitRun) -> str:
    return done.lines[-1] if done.lines else "git failed without a message"
