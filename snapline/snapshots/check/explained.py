"""A checkout of a commit held to the history on git's refs, however the commit was merged.

``verify`` holds a workspace to its latest snapshot. In CI the checkout is a commit C that
git made: a squash merge, a rebase merge or a merge commit of agents' pull requests,
whose files are no single line's latest state. When the files on disk differ from the
latest snapshot and the history is on git's refs, this asks the lines
(:func:`~snapline.store.refs.disk.explain_workspace`): C's files are explained when they
are some snapshot's state, or git's own clean merge of such states; otherwise each path
that no snapshot explains is named.

Only a checkout that reads the history is explained this way: one whose work tree never
wrote to it (``RefsStore.wrote_here``: CI's clone, a reviewer's), and whose files in
scope are exactly ``HEAD``'s (git sees no change to them). A work tree that records is
held to its latest snapshot, as always: a file put back by hand, even to a state some
snapshot recorded, is a change nobody recorded.
"""

from __future__ import annotations

from pathlib import Path

from snapline.snapshots.found import make_problem
from snapline.snapshots.snapshot import Explained, ExplainingSnapshot, Problem
from snapline.store.protocol import StoreReader

__all__ = ["DRIFT_KINDS", "explain_checkout"]

DRIFT_KINDS = frozenset({"modified", "deleted", "untracked"})
"""The sync problems an explanation can settle: a file that differs from the latest state."""


def explain_checkout(
    root: Path, store: StoreReader, problems: list[Problem]
) -> tuple[list[Problem], Explained | None]:
    """``problems`` (a sync check's), settled by the refs' lines when the checkout is a commit.

    Args:
        root: The workspace root.
        store: The open store; only a history on git's refs is asked.
        problems: What the sync check found.

    Returns:
        ``problems`` unchanged when there is no drift, the history is not on refs, this
        work tree wrote to it, or it has changes git has not committed. Otherwise the
        other problems, and when the checkout's files are not explained, one
        ``unexplained`` problem per path that no snapshot explains. Second, what
        explained the files when they were (``None`` otherwise), for ``verify`` to say.

    Raises:
        DamagedLineError: If a line is damaged or crafted (exit 3).
    """
    if not any(problem.kind in DRIFT_KINDS for problem in problems):
        return problems, None
    from snapline.store.refs.store import RefsStore

    if not isinstance(store, RefsStore) or store.wrote_here():
        return problems, None
    from snapline.store.refs.catalog import Catalog
    from snapline.store.refs.disk import explain_workspace, scoped_tree
    from snapline.store.refs.explain import Verdict

    repository = store.repo
    head = repository.head_tree()
    if head is None:
        return problems, None
    catalog = Catalog(repository)
    explanation, disk = explain_workspace(root, repository, catalog=catalog)
    if disk.left_out or scoped_tree(repository, head, root, catalog.paths()).tree != disk.tree:
        return problems, None  # not a clean checkout of HEAD: held to the latest snapshot
    others = [problem for problem in problems if problem.kind not in DRIFT_KINDS]
    if explanation.explained:
        places = tuple(
            ExplainingSnapshot(line=place.line, number=place.number, id=place.id)
            for place in explanation.snapshots
        )
        merge = explanation.verdict is Verdict.MERGED
        return others, Explained(merge=merge, snapshots=places) if places else None
    if not explanation.paths:
        return problems, None  # nothing to explain it with (no line): the drift stands
    return others + [
        make_problem(
            kind="unexplained",
            path=path,
            message=f"{path} in the checked-out commit is no file that a snapshot "
            "recorded, nor git's clean merge of recorded states; record it where it was "
            "changed (`snapline resync`), then `snapline push`",
        )
        for path in explanation.paths
    ], None
