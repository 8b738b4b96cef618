"""The history's refs in the local repository: list them, compare two commits, move them.

Everything here runs the git binary (:mod:`snapline.travel.gitrun`), as push and fetch
do, so that what travel reads and writes is what git itself sees (packed refs, linked
work trees, a shallow clone).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from snapline.store.refs.layout import REFS
from snapline.travel.gitrun import GitFailedError, git, git_line

__all__ = ["contains", "delete_refs", "history_refs", "update_refs"]


def history_refs(root: Path, prefix: str = REFS) -> dict[str, str]:
    """Every ref under ``prefix`` (default ``refs/snapline/``) and the commit it points at.

    Raises:
        GitFailedError: If git cannot list the refs.
    """
    ran = git(root, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
    if ran.code != 0:
        raise GitFailedError("git for-each-ref", git_line(ran))
    found = {}
    for line in ran.out.splitlines():
        oid, _, name = line.partition(" ")
        found[name] = oid
    return found


def contains(root: Path, commit: str, other: str) -> bool:
    """Whether ``commit``'s history holds ``other`` (``other`` is an ancestor, or the same).

    Raises:
        GitFailedError: If git cannot tell (an object missing, a damaged repository).
    """
    ran = git(root, "merge-base", "--is-ancestor", other, commit)
    if ran.code in (0, 1):
        return ran.code == 0
    raise GitFailedError("git merge-base", git_line(ran))


def update_refs(root: Path, updates: Iterable[tuple[str, str, str | None]], reason: str) -> bool:
    """Move refs in one transaction, each only if it still is where it was read.

    Args:
        root: A directory in the work tree.
        updates: ``(ref, new commit, old commit)``; old ``None``: the ref must not exist.
        reason: The reflog message.

    Returns:
        True when every ref moved; False when none did, because one was no longer where
        it was read (another process moved or created it meanwhile).
    """
    lines = [
        f"create {ref} {new}" if old is None else f"update {ref} {new} {old}"
        for ref, new, old in updates
    ]
    if not lines:
        return True
    ran = git(root, "update-ref", "-m", reason, "--stdin", data="\n".join(lines) + "\n")
    return ran.code == 0


def delete_refs(root: Path, refs: Iterable[str]) -> None:
    """Delete ``refs`` (travel's own staging refs), whatever they point at."""
    lines = [f"delete {ref}" for ref in refs]
    if lines:
        git(root, "update-ref", "--stdin", data="\n".join(lines) + "\n")
