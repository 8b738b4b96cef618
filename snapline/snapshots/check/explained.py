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

A clone whose checkout was an older snapshot of its line when its index was built (a
commit made before the agent's later snapshots) reads the whole line, and is held to that
snapshot (:func:`held_to_checkout`, for ``status`` and ``verify``) while ``HEAD`` stays
there: only what differs from it is drift.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.scanning.fingerprint import git_mode
from snapline.snapshots.found import make_problem
from snapline.snapshots.snapshot import Explained, ExplainingSnapshot, Problem
from snapline.store.protocol import StoreReader
from snapline.store.rows import StateRow

if TYPE_CHECKING:
    from snapline.snapshots.check.unfetched import Pulled

__all__ = ["DRIFT_KINDS", "explain_checkout", "held_to_checkout"]

DRIFT_KINDS = frozenset({"modified", "deleted", "untracked"})
"""The sync problems an explanation can settle: a file that differs from the latest state."""


def explain_checkout(
    root: Path, store: StoreReader, problems: list[Problem], came: Pulled | None = None
) -> tuple[list[Problem], Explained | None]:
    """``problems`` (a sync check's), settled by the refs' lines when the checkout is a commit.

    Args:
        root: The workspace root.
        store: The open store; only a history on git's refs is asked.
        problems: What the sync check found.
        came: The drifted paths that commits git fetched brought before their history
            (``unfetched.py``): an unexplained path among them says to fetch it first.

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
            message=_unexplained(path, came, path in explanation.conflicts),
        )
        for path in explanation.paths
    ], None


def _unexplained(path: str, came: Pulled | None, conflict: bool) -> str:
    said = (
        f"{path} in the checked-out commit is no file that a snapshot recorded, nor "
        "git's clean merge of recorded states; "
    )
    if conflict:
        # A conflict of git's merge of recorded lines, resolved by hand: the merge joins
        # the lines and records the resolution; a resync would file their work as an edit.
        return said + (
            "it is a conflict of git's merge of recorded lines, resolved by hand: on a "
            "checkout of this commit, record the resolution with `snapline merge`, then "
            "`snapline push`"
        )
    if came is not None and path in came.paths:
        # Its snapshots may be on the remote still: a resync would file them as an edit.
        return said + (
            f"git fetched it {came.whence} after the history was last fetched: bring the "
            f"history with {came.fetch} first; if it still differs, record it where it "
            "was changed (`snapline resync`), then `snapline push`"
        )
    return said + "record it where it was changed (`snapline resync`), then `snapline push`"


def held_to_checkout(
    root: Path, store: StoreReader, problems: list[Problem], scope: list[str] | None = None
) -> tuple[list[Problem], Explained | None]:
    """``problems`` (a sync check's against the latest snapshot), held to the checkout's.

    Asked only with drift. In a clone that only reads, whose checkout is a snapshot
    behind its line's latest (``store/refs/pinning.py``'s ``checkout_at``), the files are
    compared with that snapshot instead, from the index alone: a drifted path keeps the
    hash the check found on disk, and a path the later snapshots changed that did not
    drift is the latest state's.

    Args:
        root: The workspace root (a file's mode is read where its hash is the same).
        store: The open store.
        problems: What the sync check found.
        scope: The paths it checked (files or folders), ``None`` for the workspace.

    Returns:
        ``problems`` and ``None`` when this does not apply. Otherwise the problems that
        are not drift, then each path that differs from the checkout's snapshot, and
        that snapshot (as an explanation) when none does.
    """
    from snapline.store.refs.store import RefsStore

    if not isinstance(store, RefsStore) or store.wrote_here():
        return problems, None
    from snapline.store.refs.pinning import checkout_at

    with store.read():
        at = checkout_at(store)
        if at is None:
            return problems, None
        latest = store.snapshots.latest_number()
        assert latest is not None, "a checkout behind the latest snapshot has one"
        drift = {p.path: p for p in problems if p.kind in DRIFT_KINDS and p.path}
        later: set[str] = set()
        for _, path, old in store.changes.paths(at + 1, latest):
            later.update((path,) if old is None else (path, old))
        if scope is not None:
            later = {p for p in later if any(p == s or p.startswith(s + "/") for s in scope)}
        paths = sorted(drift.keys() | later)
        state = store.state.get(paths)
        found = []
        for path in paths:
            disk = _on_disk(root, path, drift.get(path), state.get(path))
            version = store.changes.version_at(path, at)
            then = None
            if version is not None and version.path == path and version.result_hash:
                then = (version.result_hash, version.result_mode or 0)
            kind = _differs(disk, then)
            if kind is not None:
                found.append((path, kind, then, disk))
        row = store.snapshots.get(at)
    others = [problem for problem in problems if problem.kind not in DRIFT_KINDS]
    if not found:
        line = store.followed_line() or ""
        place = ExplainingSnapshot(line=line, number=at, id=row.id if row else "")
        return others, Explained(merge=False, snapshots=(place,))
    return others + [
        make_problem(
            kind=kind,
            path=path,
            expected=then[0] if then else None,
            actual=disk[0] if disk else None,
            message=f"{path} is {kind} on disk compared with snapshot {at}, whose state "
            "this checkout is (its line goes on past it)",
        )
        for path, kind, then, disk in found
    ], None


def _on_disk(
    root: Path, path: str, drift: Problem | None, state: StateRow | None
) -> tuple[str, int] | None:
    """A path's (hash, mode) on disk, from its drift, else the latest state's."""
    if drift is None:
        if state is None:
            return None
        return state.hash, state.mode
    if drift.actual is None:
        return None
    try:
        mode = git_mode(os.lstat(root / path)) or 0
    except OSError:
        return None
    return drift.actual, mode


def _differs(disk: tuple[str, int] | None, then: tuple[str, int] | None) -> str | None:
    if disk == then:
        return None
    if then is None:
        return "untracked"
    return "deleted" if disk is None else "modified"
