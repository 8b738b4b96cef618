"""The one module that speaks to the git library (pygit2, libgit2 in a wheel).

Everything the refs store asks of git goes through :class:`GitRepository` (objects, refs
moved with compare-and-swap, tree diffs, merges). Ids cross it as hex strings and paths as
``str`` (surrogate escapes for names not UTF-8): no other module sees pygit2's types. Trees
are serialized by :mod:`.objects`, commits by :mod:`.commit_text`. Objects and snapline's
refs are git's own files (:mod:`.filedb`, :mod:`.packs`, :mod:`.reflock`) wherever those
cover the repository, chosen once here: loading libgit2 costs a cold command more than all
it does (rows R9, R10, issue 39); merges and any other repository use it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager, nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from snapline import state_dir
from snapline.store.refs.commit_text import commit_bytes, parse_commit
from snapline.store.refs.filedb import FileDatabase, Unreadable, hex_id, lean_database
from snapline.store.refs.git_errors import (
    MissingObjectError,
    NotAGitRepositoryError,
    RefConflictError,
    named_refusal,
    ownership_refusal,
    ref_damage,
)
from snapline.store.refs.git_trees import TreeMethods
from snapline.store.refs.reffiles import UNKNOWN, read_ref
from snapline.store.refs.reflock import list_refs, move_refs
from snapline.store.refs.values import Commit, Entry, Merged, conflicted_at

if TYPE_CHECKING:
    # Imported where used: loading libgit2 costs tens of milliseconds, and a command
    # that finds the refs where the index left them needs none of it (reffiles.py).
    import pygit2

    from snapline.store.refs.streamed import HashedReader

__all__ = [
    "BULK_READS",
    "GitRepository",
    "MissingObjectError",
    "NotAGitRepositoryError",
    "RefConflictError",
    "open_repository",
]

_IDENTITY = ("snapline", "snapline@localhost")
_T = TypeVar("_T")
_LOCK_ATTEMPTS = 5
# Objects read from packs by git's files before libgit2 reads the rest: a record reads a
# few (its tip's trees on the changed paths), an index built from a line thousands.
BULK_READS = 64


def open_repository(path: Path, library: bool = False) -> GitRepository:
    """Open the git repository that holds ``path`` (a work tree, a linked one, or bare).

    A linked work tree opens its main work tree's objects and refs; a workspace with a
    private repository (``.snapline/repo``) that one, without the library until used.

    Args:
        path: A path inside the repository.
        library: Every object and ref through libgit2, none through git's files
            (:mod:`.filedb`): the tests hold both ways to one contract.

    Raises:
        NotAGitRepositoryError: If no repository holds ``path``.
    """
    top = state_dir.private_repo(path) or state_dir.git_dir(path)
    if top is not None:
        return GitRepository(None, top, lean=not library)
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


class GitRepository(TreeMethods):
    """A git repository's objects and refs, as the refs store uses them."""

    def __init__(
        self, repository: pygit2.Repository | None, git_dir: Path | None = None, lean: bool = True
    ) -> None:
        """Wrap an open repository, or (``None``) the one at ``git_dir``, opened when used.

        ``lean``: read and write git's files without the library where it can (one
        whose repository was opened by the library always uses the library).
        """
        self._opened = repository
        self._git_dir = git_dir
        self._own: Path | None = None
        self._common: Path | None = None
        # Chosen once, here: git's files read and written without the library (a cold
        # record loads no libgit2, rows R9 and R10), where filedb reads this repository.
        self._files: FileDatabase | None = None
        if repository is None and git_dir is not None and lean:
            self._files = lean_database(self.common_dir, self.git_dir)
        # Each line read whole (reading.read_line), by tip: the index build and a CI clone's
        # explanation of its checkout read it once (a commit's id fixes all it reaches).
        self.lines_read: dict[str, tuple[str, tuple[Any, ...]]] = {}

    def _reading(self) -> FileDatabase | None:
        """The files objects are read from here, or ``None``: libgit2 reads them.

        A cold record reads a few objects: the files, no library loaded. A process that read
        many from packs (a fresh clone's index built from a line) hands libgit2 the rest.
        """
        files = self._files
        return files if files is not None and files.packed < BULK_READS else None

    @property
    def _repo(self) -> pygit2.Repository:
        if self._opened is None:
            git_dir = Path(str(self._git_dir))  # set when not opened
            self._opened = _open(git_dir, git_dir.parent.name == ".snapline")
        return self._opened

    @property
    def common_dir(self) -> Path:
        """The directory holding the objects and refs every work tree shares."""
        if self._common is None:  # resolved once: every ref read asks (record's included)
            # A linked work tree's is named in its `commondir` file (.git/worktrees/NAME: ../..).
            try:
                named = (self.git_dir / "commondir").read_text().strip()
            except OSError:
                named = "."
            self._common = (self.git_dir / named).resolve()
        return self._common

    @property
    def git_dir(self) -> Path:
        """This work tree's own git directory (``.git``, or ``.git/worktrees/NAME``)."""
        if self._own is None:
            unopened = self._opened is None and self._git_dir is not None
            self._own = Path(str(self._git_dir) if unopened else self._repo.path).resolve()
        return self._own

    def write_blob(self, data: bytes) -> str:
        """Store ``data`` as a blob (once: an existing blob is not written again); its id."""
        return self._write(data, 3)  # GIT_OBJECT_BLOB

    def batch(self) -> AbstractContextManager[None]:
        """A block whose objects are made durable together, before a ref moves (.loose)."""
        return nullcontext() if self._files is None else self._files.batch(self._refused)

    def write_blob_stream(self, source: HashedReader) -> str:
        """Store what ``source`` reads as a blob, in pieces, exact bytes, no filter; its id.

        Raises:
            ValueError: If ``source`` ends before its ``size`` (the file shrank).
        """
        with self._refused(source.size):
            if self._files is not None:
                return self._files.write_stream(3, source, source.size)
            # From a stream libgit2 applies no filter (no path to take attributes from),
            # unlike create_blob_fromdisk inside a work tree.
            found = str(self._repo.create_blob_fromiobase(source))
        if not source.complete:
            raise ValueError(f"the stream ended at {source.count} of {source.size} bytes")
        return found

    def read_blob(self, id_: str) -> bytes:
        """The content of blob ``id_``.

        Raises:
            MissingObjectError: If there is no such blob.
        """
        return self._typed(id_, 3, "blob")

    def read_raw(self, id_: str) -> tuple[int, bytes]:
        """Object ``id_`` as git hashes it: its type (1 commit, 2 tree, 3 blob, 4 tag), bytes."""
        files = self._reading()
        if files is not None:
            # Else libgit2 reads it, or names its damage or its absence: what the files
            # do not find is never called missing on their word alone.
            with suppress(Unreadable, KeyError):
                return files.read(id_)
        kind, data = self._repo.odb.read(id_)
        return int(kind), bytes(data)

    def has_object(self, id_: str) -> bool:
        """Whether the object database holds ``id_`` (its index is asked; nothing is read)."""
        return bool(self.has_objects((id_,)))

    def has_objects(self, ids: Collection[str]) -> set[str]:
        """Which of ``ids`` the object database holds: git's files list their packs once."""
        files = self._reading()
        if files is not None:
            with suppress(Unreadable):
                return files.exists_many(ids)
        odb = self._repo.odb  # an id that is no id (libgit2 would raise) is not held
        return {id_ for id_ in ids if hex_id(id_) and odb.exists(id_)}

    def _child(self, tree: str, name: bytes) -> Entry | None:
        if self._reading() is not None:
            return self._entries(tree).get(name)
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

    def _tree_data(self, tree: str) -> bytes:
        return self._typed(tree, 2, "tree")

    def _typed(self, id_: str, kind: int, name: str) -> bytes:
        """Object ``id_``'s bytes, if it is of type ``kind`` (``MissingObjectError``: else)."""
        files, found = self._reading(), None
        if files is not None:
            # A pack the files do not read, damage or absence: libgit2 tells.
            with suppress(Unreadable, KeyError):
                found = files.read(id_)
        if found is None:
            try:  # one read: a lookup, then read_raw, inflated the object twice
                found = self._repo.odb.read(id_)
            except (KeyError, ValueError):  # absent, or no id
                found = (0, b"")
            except _git_error() as error:  # libgit2 checks the bytes against the id
                raise MissingObjectError(id_, name, str(error)) from None
        if found[0] != kind:
            raise MissingObjectError(id_, name)
        return bytes(found[1])

    def _write(self, data: bytes, kind: int = 2) -> str:  # 2 tree, 3 blob, 1 commit
        with self._refused(len(data)):
            if self._files is not None:
                return self._files.write(kind, data)
            return str(self._repo.write(kind, data))

    def write_commit(self, tree: str, parents: list[str], message: str, time: int) -> str:
        """Write a commit (author and committer snapline, at ``time``); its id.

        The same tree, parents, message and time make the same id: a snapshot written
        twice is one commit.
        """
        return self._write(commit_bytes(tree, parents, message, time, _IDENTITY), 1)

    def read_commit(self, id_: str) -> Commit:
        """The commit ``id_``.

        Raises:
            MissingObjectError: If there is no such commit.
        """
        try:
            return parse_commit(id_, self._typed(id_, 1, "commit"))
        except ValueError as error:
            raise MissingObjectError(id_, "commit", str(error)) from None

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
        errors = (OSError,) if self._opened is None else (_git_error(), OSError)
        return named_refusal(errors, where, size)

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
        if self._files is not None and self._opened is None:
            listed = list_refs(self.common_dir, prefix)
            if listed is not None:
                return listed
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
        if self._files is not None:
            with self._refused(64, "objects", *(move[0] for move in moves)):
                if move_refs(self.common_dir, moves, self._files.settle):  # its objects too
                    return
                self._files.settle()  # a batch's objects: durable before the library moves
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

        libgit2's, written unreferenced; in conflict, each resolved as ``ours`` has it
        (deleted where it is), named where git's merge names it (:func:`.values.conflicted_at`).

        Raises:
            MissingObjectError: If a tree is absent.
        """
        import pygit2

        old, mine, other = (self._object(t, pygit2.Tree, "tree") for t in (base, ours, theirs))
        index = self._repo.merge_trees(old, mine, other)
        named = [tuple(e.path if e else None for e in c) for c in index.conflicts or ()]
        paths = conflicted_at(named)
        if paths:
            index = self._repo.merge_trees(old, mine, other, favor=pygit2.enums.MergeFavor.OURS)
            # Favouring ours leaves what is changed on one side and deleted on the other.
            for sides in list(index.conflicts or ()):
                del index.conflicts[next(e.path for e in sides if e is not None)]
                if sides[1] is not None:
                    index.add(pygit2.IndexEntry(sides[1].path, sides[1].id, sides[1].mode))
        return Merged(str(index.write_tree(self._repo)), tuple(paths))
