"""Drift that is another line's recorded work, merged by git: for ``snapline merge``.

With the history on git's refs each writer records on a line of its own. After a
person's ``git merge`` (or squash merge) of a branch whose agent recorded on its line,
the merged files differ from this work tree's latest snapshot: drift, whose usual advice
(``snapline resync``) would file the agent's recorded work as a person's outside change.
On the in-tree ledger the same moment says "run ``snapline merge``"
(``DivergedHistoryError``). This asks the refs the question ``snapline merge`` asks to
choose its lines (:func:`~snapline.store.refs.joining.join_of`): when the files are
explained by lines this history has not joined, each drifted path the explanation covers
becomes an ``unmerged`` problem that says to run ``snapline merge``; a path it does not
cover (a person's own edit beside the merge), or whose file git did not put there (not
``HEAD``'s after git moved ``HEAD``, not staged: an edit that happens to be another
line's version, or ``HEAD``'s own while ``HEAD`` stayed where the line last recorded,
:mod:`~snapline.store.refs.headmark`), keeps its drift and its advice.

Cost: nothing on the clean path (no drift: nothing is asked). With drift in a work tree
that wrote to the refs, one :func:`~snapline.store.refs.disk.explain_workspace`: a read
and hash of the files in scope, a git tree built of them, and a lookup against every
line's states (plus ``git merge-tree`` tries when no single state matches), the same as
``snapline merge`` pays.

``record`` runs on every edit and always has drift (what it records), so it asks
:func:`suspected` first, which costs about nothing: with no line but this work tree's
own, one listing of the lines' refs and nothing hashed; else git writes every file
content it merges into its object database (a merge, a squash, a fast-forward; another
line's states are there once fetched), while an agent's fresh edit is a blob no object
database holds yet. Only a path whose new content is already a blob there (or, for a
deletion, that the checked-out commit no longer holds, or any while git's merge waits
for its commit: ``SQUASH_MSG``, ``MERGE_HEAD``), in a repository whose refs name a line
besides this work tree's own, is asked the whole question.
"""

from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem
    from snapline.store.protocol import StoreReader
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.store import RefsStore

__all__ = ["UNMERGED", "mark_merged", "merge_advice", "suspected", "unmerged_paths"]

UNMERGED = "unmerged"
"""The kind of a drifted path that another line recorded and git merged into the files."""

_DRIFT_KINDS = frozenset({"modified", "deleted", "untracked"})
# Per repository: the files git keeps while its merge waits for its commit.
_MARKS: weakref.WeakKeyDictionary[GitRepository, tuple[str, str]] = weakref.WeakKeyDictionary()
_MAX_NAMED = 3


def mark_merged(root: Path, store: StoreReader, problems: list[Problem]) -> list[Problem]:
    """``problems`` (a sync check's), with drift that another line explains marked ``unmerged``.

    Args:
        root: The workspace root.
        store: The open store; only a history on git's refs written from here is asked.
        problems: What the sync check found.

    Returns:
        ``problems`` unchanged when there is no drift, the history is not on refs, this
        work tree never wrote to it, or no line to join explains the files. Otherwise
        the same problems, each drifted path the explanation covers replaced by one
        ``unmerged`` problem (severity ``error``: not in sync until merged).

    Raises:
        DamagedLineError: If a line is damaged or crafted (exit 3).
    """
    drifted = [p.path for p in problems if p.kind in _DRIFT_KINDS and p.path]
    merged = unmerged_paths(root, store, drifted)
    if not merged:
        return problems
    return [
        _unmerged(problem) if problem.kind in _DRIFT_KINDS and problem.path in merged else problem
        for problem in problems
    ]


def unmerged_paths(root: Path, store: StoreReader, drifted: Collection[str]) -> frozenset[str]:
    """Of the ``drifted`` paths, those that another line recorded and git merged in.

    Every refusal over drift asks it (``StateMismatchError``, a restore's conflicts), so
    that its advice for those paths is ``snapline merge``, never ``resync``.

    Args:
        root: The workspace root.
        store: The open store; only a history on git's refs written from here is asked.
        drifted: Paths that differ from the known state.

    Returns:
        The paths the explanation of the files by lines not joined yet covers and
        git put there (``HEAD``'s file after ``HEAD`` moved, or the staged one);
        empty when nothing drifted, the history is not on refs, this work tree never
        wrote to it, or no such line explains the files.

    Raises:
        DamagedLineError: If a line is damaged or crafted (exit 3).
    """
    if not drifted:
        return frozenset()
    from snapline.store.refs.store import RefsStore

    if not isinstance(store, RefsStore) or not store.wrote_here():
        return frozenset()  # a reading checkout: snapshots/check/explained.py's case
    from snapline.store.refs.joining import git_wrote, join_of

    with store.read():
        explanation, found, scoped = join_of(store, root)
        if not found:
            return frozenset()
        # A nearest merge's own paths, and its conflicts, are what nobody recorded.
        uncovered = set(explanation.paths) | set(explanation.conflicts)
        covered = [path for path in drifted if path not in uncovered]
        # Only what git merged: an edit that happens to be another line's version is
        # the editor's (found by the git machine: a record refused as merged work).
        return frozenset(git_wrote(store, scoped, covered))


def suspected(
    store: StoreReader, written: Mapping[str, bytes | None], deleted: Collection[str]
) -> list[str]:
    """Of the paths a writer is about to record, those worth asking :func:`unmerged_paths`.

    The cheap first check of ``record``, which runs on every edit: a path is suspected
    when its new content is a blob the repository already holds (git wrote it as it
    merged, or a line's state brought it), when its content was not read (a file tracked
    by hash only), or, deleted, when the checked-out commit no longer holds it (a
    merge's deletion, committed) or git's merge waits for its commit (a squash or a
    ``--no-commit`` merge: HEAD still holds it); and only when the refs name a line
    besides this work tree's own.

    Args:
        store: The open store; only a history on git's refs written from here is asked.
        written: Each added or modified path, with its new content (``None``: not read).
        deleted: The deleted paths.

    Returns:
        The suspected paths, sorted; empty in the common case (no history on refs, a
        work tree that never wrote, no other line: one listing of the lines' refs, no
        content hashed; or fresh content: one hash of each new content and one lookup
        of its id in the object database's index).

    Raises:
        DamagedRefError: If a ref under the lines cannot be parsed (exit 3).
    """
    # A store of another kind never loads the refs modules: nothing to import to know.
    refs = sys.modules.get("snapline.store.refs.store")
    if refs is None or not isinstance(store, refs.RefsStore) or not store.wrote_here():
        return []
    from snapline.store.refs.git_errors import DamagedRefError

    # Whether a line besides this work tree's own exists is asked first: with one line
    # (the common case) no content is hashed, however large, and no tree is read. A
    # damaged ref is named only where a path is suspected, as it always was.
    try:
        others: bool | None = _other_lines(store)
    except DamagedRefError:
        others = None
    if others is False:
        return []
    repo = store.repo
    found = []
    if written:
        from snapline.store.refs.objects import blob_id

        found = [
            path
            for path, content in written.items()
            if content is None or repo.has_object(blob_id(content))
        ]
    if deleted:
        head = repo.head_tree()
        waiting = _merge_waiting(repo)
        found += [path for path in deleted if head is None or waiting or _gone(repo, head, path)]
    if not found or (others is None and not _other_lines(store)):
        return []
    return sorted(found)


def _other_lines(store: RefsStore) -> bool:
    """Whether the refs name a line besides this work tree's own (one listing of them).

    Raises:
        DamagedRefError: If a ref under the lines cannot be parsed (exit 3).
    """
    from snapline.store.refs.layout import LINES, line_ref
    from snapline.store.refs.reffiles import only_ref

    own = store.followed_line()
    mine = None if own is None else line_ref(own)
    if only_ref(store.repo.common_dir, LINES, mine):
        return False  # git's files say so unread (a listing reads every ref)
    return any(ref != mine for ref in store.repo.refs(LINES))


def _merge_waiting(repo: GitRepository) -> bool:
    """Whether git's merge waits for its commit: HEAD does not show its deletions yet.

    ``git merge --squash`` leaves ``SQUASH_MSG``, ``--no-commit`` (or a conflict)
    ``MERGE_HEAD``, in the work tree's own git directory, until the commit or an abort:
    two ``lstat`` calls; their paths are made once per repository (resolving the git
    directory costs more than the rest of this check).
    """
    marks = _MARKS.get(repo)
    if marks is None:
        git_dir = repo.git_dir
        marks = _MARKS[repo] = (str(git_dir / "MERGE_HEAD"), str(git_dir / "SQUASH_MSG"))
    return os.path.lexists(marks[0]) or os.path.lexists(marks[1])


def _gone(repo: GitRepository, head: str, path: str) -> bool:
    """Whether the checked-out commit's tree ``head`` holds nothing at ``path``."""
    from snapline.store.refs.git import MissingObjectError

    try:
        return repo.entry(head, path) is None
    except MissingObjectError:
        return True  # a tree git did not fetch (a treeless clone): asked, to be sure


def merge_advice(paths: Sequence[str], *, merge: str = "`snapline merge`") -> str:
    """The way out for ``paths`` that git merged from another line: a merge, never a resync.

    The one wording of every surface (status, verify, the refusals of the writers, the
    hooks, the MCP tools): filed by ``resync``, that line's recorded work would become a
    person's outside change and lose its agent.

    Args:
        paths: The unmerged paths (at least one).
        merge: How the surface names the merge (the MCP server: its ``merge`` tool).

    Returns:
        ``a.py and b.py are another line's recorded work ...; join that line with ...``.
    """
    shown = ", ".join(paths[:_MAX_NAMED])
    if len(paths) > _MAX_NAMED:
        shown += f" and {len(paths) - _MAX_NAMED} more"
    verb = "is" if len(paths) == 1 else "are"
    return (
        f"{shown} {verb} another line's recorded work that git merged into the files; "
        f"join that line with {merge} (it is no outside change: do not resync it)"
    )


def _unmerged(drift: Problem) -> Problem:
    from snapline.snapshots.found import make_problem

    path = drift.path or ""
    # The drift's digests stay: the Bash hook compares them after the command.
    return make_problem(
        kind=UNMERGED,
        path=path,
        expected=drift.expected,
        actual=drift.actual,
        message=merge_advice([path]),
    )
