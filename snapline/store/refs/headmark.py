"""git's ``HEAD`` as this work tree's snapshots took it in: whether git moved it since.

A file on disk that is ``HEAD``'s file was put there by git only if git moved ``HEAD``
since the line last took in ``HEAD``'s files (a merge, a fast-forward, a squash's
commit, a pull): while ``HEAD`` stays there, an edit that makes a file ``HEAD``'s again
is the editor's own (found by the git machine: an agent that wrote a file back as its
commit holds it was refused as "another line's recorded work that git merged").

The index's marks keep that commit (:data:`HEAD_AT`), set in the transaction that
publishes a snapshot from this work tree when the snapshot's state took in every file
git changed since the mark: at each path where the state differs from ``HEAD``'s tree,
``HEAD``'s file is the one at the mark (with no mark, the one in the state the
snapshots follow; after a baseline, none), or the line's own just before those
snapshots (a commit of its recorded work, edited again since). A snapshot that records
one file beside a merge git made and nobody joined yet leaves the mark where it was, so
the merged files stay git's until ``snapline merge`` (or a record of them) takes them
in. A commit of recorded work moves the mark at the next snapshot; an index built
afresh has no mark, and until its first snapshot ``HEAD`` counts as moved, as it did
before the mark existed.

Cost: ``HEAD`` is read from git's files (its ``HEAD`` file, the branch's loose file or
``packed-refs``), without the git library, which a cold ``record`` never loads; a
repository where only the library can tell (another ref backend, a symbolic branch)
keeps no mark. Only when ``HEAD`` is not at the mark: the new state compared with
``HEAD``'s tree (the subtrees whose ids differ), and one lookup per differing path.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.store import RefsStore
    from snapline.store.refs.values import Entry

__all__ = ["HEAD_AT", "NO_COMMIT", "head_commit", "head_moved", "mark_head"]

HEAD_AT = "head-at"
"""The key of the mark: ``HEAD``'s commit when this work tree last recorded."""
NO_COMMIT = "-"
"""The mark of a ``HEAD`` with no commit yet (a branch not born)."""

_ID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_LIMIT = 4096


def head_commit(repo: GitRepository) -> str | None:
    """``HEAD``'s commit from git's files: its id, :data:`NO_COMMIT`, or ``None`` (unknown).

    ``None`` when only the git library could tell: a ref backend other than files
    (reftable), a branch outside ``refs/heads/``, a file that cannot be read or parsed.
    """
    # Paths as strings: pathlib's joins cost more than the reads (every record asks).
    try:
        with open(os.fspath(repo.git_dir) + "/HEAD", "rb") as head:
            text = head.read(_LIMIT).decode("ascii", "replace").strip()
    except OSError:
        return None
    if _ID.fullmatch(text):
        return text  # detached
    name = text.removeprefix("ref:").strip()
    if not text.startswith("ref:") or not name.startswith("refs/heads/") or ".." in name:
        return None
    common = os.fspath(repo.common_dir)
    try:
        with open(common + "/" + name, "rb") as loose:
            found = loose.read(_LIMIT).decode("ascii", "replace").strip()
        return found if _ID.fullmatch(found) else None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    if os.path.exists(common + "/reftable"):
        return None  # its HEAD file names a branch no file holds
    return _packed(common, name)


def _packed(common: str, name: str) -> str | None:
    try:
        with open(common + "/packed-refs", "rb") as packed:
            lines = packed.read().decode("utf-8", "surrogateescape").splitlines()
    except FileNotFoundError:
        return NO_COMMIT  # neither loose nor packed: a branch not born yet
    except OSError:
        return None
    for line in lines:
        id_, _, ref = line.partition(" ")
        if ref == name:
            return id_ if _ID.fullmatch(id_) else None
    return NO_COMMIT


def mark_head(store: RefsStore, first: str, last: str, *, baseline: bool) -> None:
    """Keep ``HEAD``'s commit now as the mark, if the published snapshots took in its files.

    The mark moves to ``HEAD`` only when every path where the new state differs from
    ``HEAD``'s tree is one git did not change since the mark (or, with none, since the
    state the snapshots follow): a file git wrote (a merge, a pull) and no snapshot
    recorded keeps the old mark, so it stays git's until ``snapline merge`` or a record of
    it. Call inside the index transaction that publishes them (``RefsStore._publish``).

    Args:
        store: The refs store publishing.
        first: The commit of the first snapshot published.
        last: The commit of the last one.
        baseline: Whether ``first`` is a baseline (it follows no state).
    """
    from snapline.store.refs.git import MissingObjectError
    from snapline.store.refs.trees import TreeReader

    repo = store.repo
    head, mark = head_commit(repo), store.marks.get(HEAD_AT)
    if head is None:
        store.marks.drop(HEAD_AT)
        return
    if head == mark:
        return
    try:
        before: str | None = None  # the state the snapshots follow (a baseline: none)
        if not baseline:
            parents = repo.read_commit(first).parents
            before = _state(repo, parents[0]) if parents else None
        since = before if mark is None else _tree(repo, mark)
        after, now = _state(repo, last), _tree(repo, head)
        reader = TreeReader(repo)

        def held(tree: str | None, path: str, entry: Entry | None) -> bool:
            return (None if tree is None else reader.entry(tree, path)) == entry

        # Each path where the new state is not HEAD's: HEAD's file is the mark's (git
        # left it), or the line's own just before (a commit of its recorded work). No
        # commit yet (outside git, the private repository's): git wrote no file, and
        # the state is not walked whole to say so.
        taken = (
            since is None
            if now is None
            else all(
                held(since, c.path, c.new) or held(before, c.path, c.new)
                for c in reader.diff(after, now)
            )
        )
    except MissingObjectError:
        taken = False  # a commit git collected: HEAD counts as moved
    if taken:
        store.marks.put(HEAD_AT, head)


def _tree(repo: GitRepository, commit: str) -> str | None:
    """The tree of ``commit`` (``None`` for :data:`NO_COMMIT`: no file)."""
    return None if commit == NO_COMMIT else repo.read_commit(commit).tree


def _state(repo: GitRepository, commit: str) -> str | None:
    """The result state's tree of the snapshot ``commit``."""
    from snapline.store.refs.layout import STATE

    entry = repo.entry(repo.read_commit(commit).tree, STATE)
    return None if entry is None else entry.id


def head_moved(store: RefsStore) -> bool:
    """Whether git's ``HEAD`` may have moved since this work tree's latest snapshot.

    ``True`` unless the mark names the commit ``HEAD`` is now: with no mark (an index
    built afresh, a snapshot another work tree recorded, a snapline before the mark) or
    no answer from git's files, git may have written any file ``HEAD`` holds.
    """
    mark = store.marks.get(HEAD_AT)
    return mark is None or mark != head_commit(store.repo)
