"""The files in snapline's scope as a git tree, computed without writing to the repository.

What is in scope, as for a state: a file is in scope when snapline's ignore rules
(:mod:`snapline.scanning.ignore`: the built-in ones, every ``.gitignore`` and
``.snaplineignore``, ``info/exclude``, the global excludes) do not leave it out, or when
a record on some line names it (a file snapline tracks stays tracked once ignored, as a
file git tracks does). A file git tracks and snapline ignores is out of scope: it is no
part of the comparison. Sockets, devices and unreadable directories are out too, as for
a scan.

:func:`disk_tree` reads and hashes the files on disk into git's ids (blob and trees) in
memory, except those git's index vouches for as ``git status`` does (their stat is the
entry's, and not racily clean: :func:`~snapline.store.refs.gitindex.unchanged`);
nothing is written into the object database, and the trees are handed to
:func:`~snapline.store.refs.explain.explain` as an overlay. :func:`scoped_tree` restricts
a commit's tree the same way, writing nothing either (new trees are in the overlay).
:func:`explain_workspace` is the read-only entry that ``verify`` calls.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from snapline.scanning.ignore import IgnoreRules, Matchers
from snapline.scanning.tracked import index_tracked
from snapline.scanning.walk import scan
from snapline.state_dir import git_dir
from snapline.store.refs.catalog import Catalog
from snapline.store.refs.explain import Explanation, explain
from snapline.store.refs.git import GitRepository, open_repository
from snapline.store.refs.gitindex import GitIndex, read_git_index, unchanged
from snapline.store.refs.layout import git_mode
from snapline.store.refs.objects import blob_id, tree_bytes, tree_id
from snapline.store.refs.trees import TreeReader
from snapline.store.refs.values import TREE_MODE, Entry

__all__ = ["ScopedTree", "disk_tree", "explain_workspace", "scoped_tree", "work_tree_index"]

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True, slots=True)
class ScopedTree:
    """A tree of the files in scope: its id and the trees that are only in memory.

    Attributes:
        tree: The tree's id (git's: ``git write-tree`` of those files gives it).
        overlay: The bytes of its trees that are not in the repository, by id.
        left_out: Paths that were in scope and could not be read (vanished, unreadable).
    """

    tree: str
    overlay: dict[str, bytes] = field(default_factory=dict)
    left_out: tuple[str, ...] = ()


def disk_tree(
    root: Path, tracked: Collection[str] = (), git_index: GitIndex | None = None
) -> ScopedTree:
    """The files in scope under ``root`` as a git tree, in memory.

    Args:
        root: The workspace root.
        tracked: Paths snapline tracks: in scope even where the ignore rules leave
            them out.
        git_index: The work tree's git index (``root`` its top): a file whose ``lstat``
            is its entry's, not racily clean (:func:`~.gitindex.unchanged`), is the
            entry's blob, unread, as ``git status`` takes it.

    Returns:
        The tree; a file that vanished or cannot be read while it is hashed is left
        out, and named in ``left_out``.
    """
    rows = ((path, 0o100644, None) for path in tracked)
    found = scan(root, IgnoreRules(root), tracked=index_tracked(rows))
    files: dict[str, Entry] = {}
    left_out = []
    for path, info in found.files.items():
        written = None if git_index is None else unchanged(git_index, path, info)
        if written is not None:
            files[path] = Entry(written.blob, written.mode)
            continue
        data = _read(root / path, stat.S_ISLNK(info.st_mode))
        if data is None:
            left_out.append(path)
            continue
        files[path] = Entry(blob_id(data), git_mode(info.st_mode))
    tree, overlay = _build(files)
    return ScopedTree(tree, overlay, tuple(sorted(left_out)))


def scoped_tree(
    repository: GitRepository, tree: str, root: Path, tracked: Collection[str] = ()
) -> ScopedTree:
    """A commit's tree restricted to the scope of the workspace at ``root``.

    The ignore rules are the workspace's on disk (in CI, the checkout of that commit).

    Args:
        repository: The repository holding ``tree``.
        tree: The tree's id.
        root: The workspace root, whose ignore rules apply.
        tracked: Paths in scope whatever the rules say (see :func:`disk_tree`).

    Raises:
        MissingObjectError: If a tree is absent.
    """
    rules = IgnoreRules(root)
    reader = TreeReader(repository)
    keep = set(tracked)
    holding = {p.rpartition("/")[0] for p in keep}
    holding |= {d[:i] for d in holding for i, c in enumerate(d) if c == "/"}
    files: dict[str, Entry] = {}
    dropped = False
    stack: list[tuple[str, str, Matchers]] = [("", tree, ())]
    while stack:
        reldir, current, parent = stack.pop()
        names = reader.names(current)
        matchers = rules.enter(parent, reldir, names)
        for name, entry in names.items():
            path = f"{reldir}/{name}" if reldir else name
            is_dir = entry.mode == TREE_MODE
            if rules.ignored(matchers, path, is_dir, name):
                if is_dir and path in holding:
                    stack.append((path, entry.id, matchers))  # a tracked file inside
                elif path in keep:
                    files[path] = entry
                else:
                    dropped = True
                continue
            if is_dir:
                stack.append((path, entry.id, matchers))
            else:
                files[path] = entry
    if not dropped:
        return ScopedTree(tree)
    made, overlay = _build(files)
    return ScopedTree(made, overlay)


def explain_workspace(
    root: Path,
    repository: GitRepository | None = None,
    *,
    catalog: Catalog | None = None,
) -> tuple[Explanation, ScopedTree]:
    """Explain the files on disk under ``root`` by the history on the repository's lines.

    Read-only: the disk's tree is computed in memory. Only a merge tried writes what
    git's merge makes (unreferenced, as ``git merge-tree`` does).

    Args:
        root: The workspace root.
        repository: Its repository (opened from ``root`` when not given).
        catalog: The lines read before, kept between calls.

    Returns:
        The explanation and the tree it explains.

    Raises:
        NotAGitRepositoryError: If no repository holds ``root``.
        DamagedLineError: If a line is damaged or crafted.
    """
    repository = repository or open_repository(root)
    catalog = catalog or Catalog(repository)
    catalog.refresh()
    scoped = disk_tree(root, catalog.paths(), _git_index(root, repository))
    return explain(repository, scoped.tree, overlay=scoped.overlay, catalog=catalog), scoped


def _git_index(root: Path, repository: GitRepository) -> GitIndex | None:
    """The index of the work tree whose top is ``root``: git's paths are from its top.

    The files git's checkout wrote are taken from it unread (a CI checkout of a merge
    commit read and hashed every file). ``None`` for a root below a work tree's top
    and a private repository's workspace (no index of its own).
    """
    own = git_dir(root)
    if own is None or own.resolve() != repository.git_dir:
        return None
    return work_tree_index(repository)


def work_tree_index(repository: GitRepository) -> GitIndex | None:
    """The git index of the repository's work tree (its ``git_dir``'s), or ``None``."""
    head = repository.head_tree()  # an object id's size: SHA-1's, or SHA-256's
    return read_git_index(repository.git_dir, 20 if head is None else len(head) // 2)


def _read(path: Path, link: bool) -> bytes | None:
    try:
        if link:
            return os.fsencode(os.readlink(path))
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _build(files: dict[str, Entry]) -> tuple[str, dict[str, bytes]]:
    """The tree of ``files`` (path to entry) and every tree in it, by id."""
    children: dict[str, dict[bytes, Entry]] = {"": {}}
    for path, entry in files.items():
        parent, _, name = path.rpartition("/")
        children.setdefault(parent, {})[_encode(name)] = entry
        while parent:
            parent = parent.rpartition("/")[0]
            if parent in children:
                break
            children[parent] = {}
    overlay: dict[str, bytes] = {}
    root = ""
    # Deepest first: a directory's tree is made before its parent's names it.
    for directory in sorted(children, key=lambda d: -(d.count("/") + 1) if d else 0):
        data = tree_bytes(children[directory])
        made = tree_id(data)
        overlay[made] = data
        if directory:
            parent, _, name = directory.rpartition("/")
            children[parent][_encode(name)] = Entry(made, TREE_MODE)
        else:
            root = made
    return root, overlay


def _encode(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")
