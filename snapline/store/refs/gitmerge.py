"""Git's own merge of three trees, asked where libgit2's merge of them conflicts.

:mod:`snapline.store.refs.combine` explains a tree as git's merge of recorded states, so
the merge it tries must be the one ``git merge`` makes. libgit2's merge is git's where no
side moved a file, and it runs in the process; where a side moved one, it parts from
git's ``ort`` in both directions that matter here: it names conflicts git resolves, and
it leaves a path as one side had it where git merged the other side's change into it.
Found by the git machine (tests/history_refs/test_merge_moved_onto.py): both sides move
``f.txt`` to ``g.txt`` and one writes a new ``f.txt``; git follows the move and puts the
new ``f.txt`` at ``g.txt``, cleanly, where libgit2 names ``f.txt`` and ``g.txt`` and keeps
the old ``g.txt``. Then the merge git made was no nearer than a merge of fewer snapshots,
and ``snapline merge`` joined too little; a later merge back named the other line's work
``modified``.

So a merge libgit2 finds in conflict is asked again of git itself: ``git merge-tree
--write-tree`` (git 2.38; its ``--merge-base`` only came in 2.40, so the three trees are
made commits, the base the two sides' parent, written unreferenced as the merged trees
are). A clean merge stays libgit2's: no process per merge on the usual path (a CI check
of a commit that merged parallel pull requests). Without a git that can do it (none on
``PATH``, older than 2.38), libgit2's answer stands.
"""

from __future__ import annotations

import os

from snapline.git_binary import GitNotRunError, run_git
from snapline.store.refs.git import GitRepository
from snapline.store.refs.values import Merged

__all__ = ["git_merge", "merge"]

# Fixed, so that the same trees make the same commits: written once, whatever the calls.
_TIME = 0


def merge(repository: GitRepository, base: str, ours: str, theirs: str) -> Merged:
    """The three-way merge of trees ``ours`` and ``theirs`` from ``base``, as git makes it.

    libgit2's when it is clean, else git's own (:func:`git_merge`) where git can run.

    Raises:
        MissingObjectError: If a tree is absent.
    """
    made = repository.merge(base, ours, theirs)
    if not made.conflicts:
        return made
    return git_merge(repository, base, ours, theirs) or made


def git_merge(repository: GitRepository, base: str, ours: str, theirs: str) -> Merged | None:
    """``git merge-tree``'s merge of trees ``ours`` and ``theirs`` from ``base``.

    Args:
        repository: The repository holding the trees.
        base: The merge base's tree.
        ours: The first side's tree (git's "ours": a conflict's markers name it first).
        theirs: The second side's tree.

    Returns:
        The merged tree (a conflicted file with git's markers in it, a file changed on
        one side and deleted on the other as changed) and the paths git names in
        conflict, in path order; ``None`` when git could not merge them (not installed,
        too old, or a failure of its own).
    """
    parent = repository.write_commit(base, [], "snapline: merge base", _TIME)
    sides = [
        repository.write_commit(tree, [parent], "snapline: merged", _TIME)
        for tree in (ours, theirs)
    ]
    git_dir = repository.common_dir
    try:
        done = run_git(
            git_dir,
            f"--git-dir={git_dir}",
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            "-z",
            *sides,
        )
    except GitNotRunError:
        return None
    if done.code not in (0, 1):  # 1: conflicts; else an error (an old git: its usage)
        return None
    tree, *named = done.out.split(b"\0")
    return Merged(tree.decode("ascii"), tuple(sorted({os.fsdecode(p) for p in named if p})))
