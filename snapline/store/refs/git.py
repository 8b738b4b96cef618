"""The one module that speaks to the git library (pygit2, libgit2 in a wheel).

Everything the refs store asks of git goes through :class:`GitRepository` (objects, refs
moved with compare-and-swap, tree diffs, merges). Ids cross it as hex strings and paths
as ``str`` (surrogate escapes for names not UTF-8), so no other module sees pygit2's
types. Trees are serialized by :mod:`snapline.store.refs.objects`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from snapline import state_dir
from snapline.store.refs.git_errors import (
    MissingObjectError,
    NotAGitRepositoryError,
    RefConflictError,
    named_refusal,
    ownership_refusal,
    ref_damage,
)
from snapline.store.refs.objects import parse_tree, tree_bytes
from snapline.store.refs.reffiles import UNKNOWN, read_ref
from snapline.store.refs.tree_edit import update_tree
from snapline.store.refs.treediff import Memo, tree_changes
from snapline.store.refs.values import TREE_MODE, Commit, Entry, Merged, TreeChange

if TYPE_CHECKING:
    # Imported where used: loading libgit2 costs tens of milliseconds, and a command
    # that finds the refs where the index left them needs none of it (reffiles.py).
    import pygit2

__all__ = [
    "GitRepository",
    "MissingObjectError",
    "NotAGitRepositoryError",
    "RefConflictError",
    "open_repository",
]

_IDENTITY = ("snapline", "snapline@localhost")
_T = TypeVar("_T")
_LOCK_ATTEMPTS = 5


def open_repository(path: Path) -> GitRepository:
    """Open the git repository that holds ``path`` (a work tree, a linked one, or bare).

    A linked work tree opens its main work tree's objects and refs; a workspace with a
    private repository (``.snapline/repo``) that one, without the library until used.

    Raises:
        NotAGitRepositoryError: If no repository holds ``path``.
    """
    top = state_dir.private_repo(path) or state_dir.git_dir(path)
    if top is not None:
        return GitRepository(None, top)
    found = _library().discover_repository(str(path))
    if found is None:
        raise NotAGitRepositoryError(path)
    return GitRepository(_open(Path(found)))


def init_bare(path: Path) -> None:
    """Make an empty bare repository at ``path`` (a private repository's staging name)."""
    _library().init_repository(str(path), bare=True)


def _library(private: bool = False) -> Any:
    """pygit2 (tens of ms to load), set to fsync what it writes; ``private``: owner unchecked."""
    import pygit2  # by default libgit2 syncs neither: a power cut could lose what the index counts

    pygit2.settings.enable_fsync_gitdir(True)
    pygit2.settings.owner_validation = not private  # .snapline/repo: the workspace's own
    return pygit2


def _open(git_dir: Path, private: bool = False) -> Any:
    """The repository at ``git_dir``; git's refusal of another user's, named (exit 1)."""
    library = _library(private)
    with ownership_refusal(library.GitError, git_dir):
        return library.Repository(str(git_dir))


def _git_error() -> Any:
    import pygit2  # loaded by then: this only looks it up

    return pygit2.GitError


def _encode(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


def _decode(name: bytes) -> str:
    return name.decode("utf-8", "surrogateescape")


class GitRepository:
    """A git repository's objects and refs, as the refs store uses them."""

    def __init__(self, repository: pygit2.Repository | None, git_dir: Path | None = None) -> None:
        """Wrap an open repository, or (``None``) the one at ``git_dir``, opened when used."""
        self._opened = repository
        self._git_dir = git_dir
        self._odb: pygit2.Odb | None = None
        # Each line read whole (reading.read_line), by tip: the index build and a CI clone's
        # explanation of its checkout read it once (a commit's id fixes all it reaches).
        self.lines_read: dict[str, tuple[str, tuple[Any, ...]]] = {}

    @property
    def _repo(self) -> pygit2.Repository:
        if self._opened is None:
            git_dir = Path(str(self._git_dir))  # set when not opened
            self._opened = _open(git_dir, git_dir.parent.name == ".snapline")
        return self._opened

    @property
    def common_dir(self) -> Path:
        """The directory holding the objects and refs every work tree shares."""
        # A linked work tree's is named in its `commondir` file (.git/worktrees/NAME: ../..).
        try:
            named = (self.git_dir / "commondir").read_text().strip()
        except OSError:
            return self.git_dir
        return (self.git_dir / named).resolve()

    @property
    def git_dir(self) -> Path:
        """This work tree's own git directory (``.git``, or ``.git/worktrees/NAME``)."""
        if self._opened is None and self._git_dir is not None:
            return self._git_dir.resolve()
        return Path(self._repo.path).resolve()

    def write_blob(self, data: bytes) -> str:
        """Store ``data`` as a blob (once: an existing blob is not written again); its id."""
        return self._write(data, 3)  # GIT_OBJECT_BLOB

    def read_blob(self, id_: str) -> bytes:
        """The content of blob ``id_``.

        Raises:
            MissingObjectError: If there is no such blob.
        """
        import pygit2

        return bytes(self._object(id_, pygit2.Blob, "blob").data)

    def read_raw(self, id_: str) -> tuple[int, bytes]:
        """Object ``id_`` as git hashes it: its type (1 commit, 2 tree, 3 blob, 4 tag), bytes."""
        kind, data = self._repo.odb.read(id_)  # KeyError: absent
        return int(kind), bytes(data)

    def has_object(self, id_: str) -> bool:
        """Whether the object database holds ``id_`` (its index is asked; nothing is read)."""
        if self._odb is None:
            self._odb = self._repo.odb
        try:
            return bool(self._odb.exists(id_))
        except ValueError:
            return False

    def entry(self, tree: str, path: str) -> Entry | None:
        """What tree ``tree`` holds at ``path`` (``a/b/c``), or ``None`` if nothing.

        Raises:
            MissingObjectError: If ``tree`` or a tree on the way is absent.
        """
        current: Entry = Entry(tree, TREE_MODE)
        for name in path.split("/"):
            if current.mode != TREE_MODE:
                return None
            found = self._child(current.id, _encode(name))
            if found is None:
                return None
            current = found
        return current

    def _child(self, tree: str, name: bytes) -> Entry | None:
        try:
            text = name.decode("utf-8")
        except UnicodeDecodeError:
            # pygit2 looks up names given as text only; this one is not UTF-8.
            return self._entries(tree).get(name)
        import pygit2

        try:
            item = self._object(tree, pygit2.Tree, "tree")[text]
        except KeyError:
            return None
        return Entry(str(item.id), int(item.filemode))

    def names(self, tree: str) -> dict[str, Entry]:
        """The entries directly in ``tree``, by name (``MissingObjectError``: no such tree)."""
        return {_decode(name): entry for name, entry in self._entries(tree).items()}

    def read_path(self, tree: str, path: str) -> bytes | None:
        """The blob at ``path`` in ``tree``, or ``None`` if there is none (or a tree).

        Raises:
            MissingObjectError: If an object on the way is absent.
        """
        found = self.entry(tree, path)
        return None if found is None or found.mode == TREE_MODE else self.read_blob(found.id)

    def tree(self, entries: Mapping[str, Entry]) -> str:
        """Write a tree of the given names (no ``/`` in them) and entries; its id."""
        return self._write(tree_bytes({_encode(name): entry for name, entry in entries.items()}))

    def update_tree(self, base: str | None, edits: Mapping[str, Entry | None]) -> str:
        """A tree like ``base`` with ``edits`` applied, rebuilding only the changed path.

        Args:
            base: The tree to start from, ``None`` for the empty tree.
            edits: Path (``a/b/c``) to its new entry, or ``None`` to remove it. A
                directory left empty is removed, as git does.

        Returns:
            The new tree's id (:data:`EMPTY_TREE` when nothing is left).

        Raises:
            MissingObjectError: If ``base`` or a tree on a changed path is absent.
            ValueError: If the edits make a path both a file and a directory.
        """
        split = {tuple(_encode(path).split(b"/")): entry for path, entry in edits.items()}
        return update_tree(self._tree_data, self._write, base, split) or self._write(b"")

    def _tree_data(self, tree: str) -> bytes:
        import pygit2

        return bytes(self._object(tree, pygit2.Tree, "tree").read_raw())

    def _write(self, data: bytes, kind: int = 2) -> str:  # GIT_OBJECT_TREE, or _BLOB (3)
        with self._refused(len(data)):
            return str(self._repo.write(kind, data))

    def _entries(self, tree: str) -> dict[bytes, Entry]:
        # The tree's bytes parsed here: pygit2 makes an object of every entry it lists,
        # which took most of a one-file snapshot's time (rows R1, R2).
        return parse_tree(self._tree_data(tree))

    def changes(self, old: str | None, new: str, memo: Memo | None = None) -> list[TreeChange]:
        """The files that differ between two trees, in path order (:mod:`.treediff`).

        Args:
            old: The tree before, ``None`` for none (every file is added; nothing is written).
            new: The tree after.
            memo: Trees read by earlier calls of one pass (:data:`.treediff.Memo`).

        Raises:
            MissingObjectError: If a tree is absent (or its bytes are not a tree's).
        """
        return tree_changes(self._tree_data, old, new, memo)

    def walk(self, tree: str) -> Iterator[tuple[str, Entry]]:
        """Every file of ``tree`` with its entry, depth first, in git's order.

        Raises:
            MissingObjectError: If a tree is absent.
        """
        for name, entry in sorted(self._entries(tree).items()):
            path = _decode(name)
            if entry.mode == TREE_MODE:
                yield from ((f"{path}/{inner}", found) for inner, found in self.walk(entry.id))
            else:
                yield path, entry

    def write_commit(self, tree: str, parents: list[str], message: str, time: int) -> str:
        """Write a commit (author and committer snapline, at ``time``); its id.

        The same tree, parents, message and time make the same id: a snapshot written
        twice is one commit.
        """
        import pygit2

        signature = pygit2.Signature(*_IDENTITY, time, 0)
        oids = [pygit2.Oid(hex=parent) for parent in parents]
        tree_id = pygit2.Oid(hex=tree)
        with self._refused(len(message) + 400):
            return str(self._repo.create_commit(None, signature, signature, message, tree_id, oids))

    def read_commit(self, id_: str) -> Commit:
        """The commit ``id_``.

        Raises:
            MissingObjectError: If there is no such commit.
        """
        import pygit2

        found = self._object(id_, pygit2.Commit, "commit")
        parents = tuple(str(parent) for parent in found.parent_ids)
        return Commit(id_, str(found.tree_id), parents, found.message)

    def _object(self, id_: str, kind: type[_T], name: str) -> _T:
        try:
            found = self._repo.get(id_)
        except ValueError:
            found = None
        except _git_error() as error:
            # libgit2 checks each object's bytes against its id as it reads them.
            raise MissingObjectError(id_, name, str(error)) from None
        if not isinstance(found, kind):
            raise MissingObjectError(id_, name)
        return found

    def _refused(self, size: int, *paths: str) -> AbstractContextManager[None]:
        """A write into ``paths`` (``objects``) the OS refused, named with its reason (exit 1)."""
        where = lambda: [self.common_dir / path for path in paths or ["objects"]]  # noqa: E731
        return named_refusal((_git_error(), OSError), where, size)

    def head_tree(self) -> str | None:
        """The tree of this work tree's checked-out commit (``None``: no commit yet)."""
        repo = self._repo
        return None if repo.head_is_unborn else str(repo.revparse_single("HEAD^{tree}").id)

    def ref(self, name: str) -> str | None:
        """The commit id ref ``name`` points at, or ``None`` when there is no such ref."""
        if self._opened is None:
            read = read_ref(self.common_dir, name)
            if read != UNKNOWN:
                return read
        with ref_damage(_git_error(), name):
            found = self._repo.references.get(name)
        return None if found is None else str(found.target)

    def refs(self, prefix: str) -> dict[str, str]:
        """Every ref whose name starts with ``prefix``, with its target."""
        refs = self._repo.references
        with ref_damage(_git_error(), prefix):
            return {name: str(refs[name].target) for name in refs if name.startswith(prefix)}

    def set_ref(self, name: str, new: str, expected: str | None, message: str) -> None:
        """Move ref ``name`` to ``new`` if still at ``expected``: :meth:`set_refs` of one."""
        self.set_refs([(name, new, expected)], message)

    def set_refs(self, moves: Sequence[tuple[str, str, str | None]], message: str) -> None:
        """Move each ref ``(name, new, expected)`` to ``new`` if all are at ``expected``.

        One libgit2 transaction takes git's lock file of every ref (``NAME.lock``, made
        exclusively: ``git update-ref`` is excluded too), compares each under its lock,
        then moves them all; a process killed before it commits leaves every ref as it was.

        Raises:
            RefConflictError: If a ref points elsewhere, or another writer holds its
                lock; then no ref moved.
        """
        import pygit2

        for attempt in range(_LOCK_ATTEMPTS):
            refused = self._refused(64, *(move[0] for move in moves))
            with refused, self._repo.transaction() as transaction:
                try:
                    for name, _, expected in moves:
                        locked = name
                        transaction.lock_ref(name)
                        actual = self.ref(name)
                        if actual != expected:
                            raise RefConflictError(name, expected, actual)
                except pygit2.GitError:
                    # libgit2 tells a held lock only in its message: a lock file still
                    # there, or a ref moved, is another writer's; else try again.
                    expected = dict((m[0], m[2]) for m in moves)[locked]
                    if (self.common_dir / f"{locked}.lock").exists():
                        raise RefConflictError(locked, expected, None) from None
                    actual = self.ref(locked)
                    if actual != expected:
                        raise RefConflictError(locked, expected, actual) from None
                    if attempt + 1 == _LOCK_ATTEMPTS:
                        raise
                    continue
                for name, new, _ in moves:
                    transaction.set_target(name, pygit2.Oid(hex=new), message=message)
                return

    def merge(self, base: str, ours: str, theirs: str) -> Merged:
        """The three-way merge (git's) of trees ``ours`` and ``theirs`` from ``base``.

        libgit2's, renames found, written as ``git merge-tree --write-tree`` writes it
        (unreferenced); in conflict, each resolved as ``ours`` has it (deleted where it is).

        Raises:
            MissingObjectError: If a tree is absent.
        """
        import pygit2

        old, mine, other = (self._object(t, pygit2.Tree, "tree") for t in (base, ours, theirs))
        index = self._repo.merge_trees(old, mine, other)
        paths = sorted({e.path for sides in index.conflicts or () for e in sides if e})
        if paths:
            index = self._repo.merge_trees(old, mine, other, favor=pygit2.enums.MergeFavor.OURS)
            # Favouring ours leaves what is changed on one side and deleted on the other.
            for sides in list(index.conflicts or ()):
                del index.conflicts[next(e.path for e in sides if e is not None)]
                if sides[1] is not None:
                    index.add(pygit2.IndexEntry(sides[1].path, sides[1].id, sides[1].mode))
        return Merged(str(index.write_tree(self._repo)), tuple(paths))
