"""The store implementations the contract suite runs over, and what it needs from each.

The suite (every ``test_*.py`` here) speaks to a store only through the
:class:`~snapline.store.Store` protocol. What the protocol cannot say - how to create and
open a store, how another process holds it, how a newer format is written - a
:class:`Backend` says. To put a new implementation behind the seam, write its backend
and add it to :data:`BACKENDS`; it must pass the whole suite unchanged.
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from snapline.paths import STORE_DIR
from snapline.store import DB_NAME, SqliteStore, Store
from snapline.store.refs.git import open_repository
from snapline.store.refs.private import make_private_repo
from snapline.store.refs.store import RefsStore

__all__ = ["BACKENDS", "Backend", "SqliteBackend"]


class Backend(Protocol):
    """How the contract suite creates, opens and interferes with one implementation."""

    name: str

    def location(self, directory: Path) -> Path:
        """Where a store of this kind lives inside ``directory``."""
        ...

    def create(self, path: Path, config: dict[str, Any], busy_timeout: float) -> Store:
        """Create a new, empty store at ``path``."""
        ...

    def open(self, path: Path, busy_timeout: float) -> Store:
        """Open the existing store at ``path``."""
        ...

    def hold(self, path: Path) -> contextlib.AbstractContextManager[None]:
        """A block during which another process holds the store for writing."""
        ...

    def declare_version(self, path: Path, version: int) -> None:
        """Make the closed store at ``path`` claim format ``version``, as a newer one would."""
        ...


class SqliteBackend:
    """:class:`~snapline.store.SqliteStore` over one ``store.db`` file."""

    name = "sqlite"

    def location(self, directory: Path) -> Path:
        """``directory/store.db``."""
        return directory / DB_NAME

    def create(self, path: Path, config: dict[str, Any], busy_timeout: float) -> Store:
        """:meth:`SqliteStore.create`."""
        return SqliteStore.create(path, config, busy_timeout)

    def open(self, path: Path, busy_timeout: float) -> Store:
        """:meth:`SqliteStore.open`."""
        return SqliteStore.open(path, busy_timeout)

    @contextlib.contextmanager
    def hold(self, path: Path) -> Iterator[None]:
        """Another connection inside ``BEGIN IMMEDIATE``, as a writing process is."""
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            yield
            other.execute("ROLLBACK")
        finally:
            other.close()

    def declare_version(self, path: Path, version: int) -> None:
        """Rewrite the ``format_version`` row of ``meta``."""
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'format_version'", (str(version),))


class RefsBackend(SqliteBackend):
    """:class:`~snapline.store.refs.store.RefsStore`: a git repository, its index under ``.git``."""

    name = "refs"

    def location(self, directory: Path) -> Path:
        """``directory/.git/snapline/index.db``, ``directory`` made a git work tree.

        The index lives in git's directory, never in the work tree.
        """
        subprocess.run(["git", "init", "-q", str(directory)], check=True)
        (directory / ".git" / "snapline").mkdir()
        return directory / ".git" / "snapline" / "index.db"

    def create(self, path: Path, config: dict[str, Any], busy_timeout: float) -> Store:
        """A new index at ``path``, in the git repository that holds it."""
        index = SqliteStore.create(path, config, busy_timeout)
        return RefsStore(open_repository(path.parents[2]), index)

    def open(self, path: Path, busy_timeout: float) -> Store:
        """The index at ``path`` and the repository holding it."""
        return RefsStore(open_repository(path.parents[2]), SqliteStore.open(path, busy_timeout))


class PrivateBackend(SqliteBackend):
    """:class:`RefsStore` outside git: a private bare repository, ``.snapline/repo``.

    What ``init`` makes in a directory that is not the top of a git work tree; no git
    binary makes or reads it.
    """

    name = "private"

    def location(self, directory: Path) -> Path:
        """``directory/.snapline/index.db``, beside the private repository made here."""
        (directory / STORE_DIR).mkdir()
        make_private_repo(directory / STORE_DIR)
        return directory / STORE_DIR / "index.db"

    def create(self, path: Path, config: dict[str, Any], busy_timeout: float) -> Store:
        """A new index at ``path``, over the private repository beside it."""
        index = SqliteStore.create(path, config, busy_timeout)
        return RefsStore(open_repository(path.parents[1]), index)

    def open(self, path: Path, busy_timeout: float) -> Store:
        """The index at ``path`` and the private repository beside it."""
        return RefsStore(open_repository(path.parents[1]), SqliteStore.open(path, busy_timeout))


class LibgitBackend(RefsBackend):
    """:class:`RefsBackend` with every object and ref through libgit2 (pygit2).

    A command reads and writes git's files itself where it can (``store/refs/filedb.py``,
    issue 39); the contract holds both ways.
    """

    name = "refs-libgit2"

    def create(self, path: Path, config: dict[str, Any], busy_timeout: float) -> Store:
        """A new index at ``path``, in the git repository that holds it, through libgit2."""
        index = SqliteStore.create(path, config, busy_timeout)
        return RefsStore(open_repository(path.parents[2], library=True), index)

    def open(self, path: Path, busy_timeout: float) -> Store:
        """The index at ``path`` and the repository holding it, through libgit2."""
        repo = open_repository(path.parents[2], library=True)
        return RefsStore(repo, SqliteStore.open(path, busy_timeout))


BACKENDS: list[Backend] = [SqliteBackend(), RefsBackend(), LibgitBackend(), PrivateBackend()]
