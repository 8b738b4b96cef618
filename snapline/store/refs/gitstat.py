"""A fresh index's stat cache, taken from what git's checkout recorded.

An index built from the refs (a fresh clone after ``snapline fetch``) has an empty stat
cache, so its first check would read and hash every file in scope. git's own index
(:mod:`.gitindex`) already says, per file, which blob the checkout wrote and the
``lstat`` the file had then. Where that blob is the very one the snapshot's ``state``
holds at the same path, with the same mode, and the record's size is the entry's, the
file's bytes are the snapshot's version (one object, one id, in one object database);
so its stat-cache entry is that ``lstat`` with the known state's SHA-256.

What the stat cache then does with such an entry is what it does with its own: a file
is trusted only while its whole ``lstat`` (size, mtime, inode, ctime, and the mode's
type and x bit against the known mode) still equals the entry, and only when its mtime
and ctime are strictly older than the moment git wrote its index (git's racy rule, on
the filesystem's own clock: ``checked_ns`` is the index file's mtime plus the window
the cache subtracts). Anything else is read and hashed: a file git does not track or
ignores, one staged or changed since, one whose entry git marks assume-valid,
skip-worktree or intent-to-add, one on another device than the index, an index this
reader does not vouch for. What it trusts: that git wrote each entry's stat after
writing that blob's bytes (as ``git status`` trusts), that the tree git keeps of its
index (the cache-tree, when valid) is its entries' (as ``git commit`` trusts: it spares
listing the state when that tree is the state's), and that the state's blobs are
its record's versions, which ``verify --full`` checks (every blob hashed against its
recorded SHA-256).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from snapline.scanning.fingerprint import RACY_WINDOW_NS
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.gitindex import GitIndex, IndexEntry, read_git_index
from snapline.store.refs.layout import STATE, line_ref
from snapline.store.refs.marks import PIN
from snapline.store.rows import StatRow

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["seed_stat_cache"]


def seed_stat_cache(store: RefsStore) -> int:
    """Fill the stat cache from git's index for the files git wrote as the state holds them.

    Call inside the index's write transaction, after the known state is built.

    Args:
        store: The store, its index just built from the refs.

    Returns:
        How many entries were put.
    """
    line = store.followed_line()
    commit = store.marks.get(PIN) or (None if line is None else store.marks.get(line_ref(line)))
    if commit is None:
        return 0
    repo = store.repo
    state = repo.entry(repo.read_commit(commit).tree, STATE)
    if state is None:
        return 0
    known = store.index.state.get()
    if not known:
        return 0
    index = read_git_index(repo.git_dir, len(state.id) // 2)
    if index is None:
        return 0
    checked = index.mtime_ns + RACY_WINDOW_NS
    dev = index.dev & 0xFFFFFFFF
    rows = []
    for path, found in _as_in_state(repo, state.id, index):
        row = known.get(path)
        if row is None or row.mode != found.mode or row.size != found.size or found.dev != dev:
            continue
        rows.append(
            StatRow(path, found.size, found.mtime_ns, found.ino, found.ctime_ns, row.mode,
                    row.hash, checked)
        )  # fmt: skip
    store.index.stat_cache.put(rows)
    return len(rows)


def _as_in_state(
    repo: GitRepository, state: str, index: GitIndex
) -> Iterator[tuple[str, IndexEntry]]:
    """The entries of ``index`` whose blob and mode are the state's at their path.

    When git keeps the tree of its index (the cache-tree's root, valid), only the
    subtrees where that tree and the state differ are read: none in a fresh clone of
    the state's commit. Otherwise the state is listed whole.
    """
    if index.tree is not None:
        try:
            differ = {change.path for change in repo.changes(state, index.tree)}
        except MissingObjectError:
            pass  # a tree git did not write into the objects: listed below instead
        else:
            return ((p, e) for p, e in index.entries.items() if p not in differ)
    return (
        (path, found)
        for path, entry in repo.walk(state)
        if (found := index.entries.get(path)) is not None
        and (found.blob, found.mode) == (entry.id, entry.mode)
    )
