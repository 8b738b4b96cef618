"""``snapline upgrade`` outside git: the in-tree ledger moved onto a private repository.

A workspace outside git (or below a work tree's top) whose ``.snapline/`` holds an
in-tree store (a ledger, format 1 or 2, or a snapshot 0.1 ``store.db``, brought to the
ledger first) gets the layout ``init`` makes there now: the same refs in a bare
repository, ``.snapline/repo`` (:mod:`snapline.store.refs.private`). Under the store's
writer lock:

1. The history goes onto the refs of a new repository made in ``.snapline/moving/``,
   and its index is made from the ledger's there (:func:`snapline.moving.move_store`,
   as in git).
2. The ledger's index is set aside and the writer mark put in ``.snapline/``; then the
   repository is renamed to ``.snapline/repo``: **the commit point** (from then on
   :func:`snapline.state_dir.private_repo` finds it, and the ledger is not read).
3. The new index takes its place, the ``.gitignore`` becomes the private one, and the
   ledger and the staging folder are removed.

A kill before the rename leaves the ledger working (its index is rebuilt); after it,
the private repository (an index missing is built from its refs), and running the
command again removes what is left. Nothing is committed: there is no repository.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from snapline.atomic import sync_directory, write_file
from snapline.crashpoints import crash_point
from snapline.moving import Upgraded, move_store
from snapline.paths import STORE_DIR
from snapline.snapshots.record.writer_lock import LOCK_NAME
from snapline.state_dir import PRIVATE_REPO, private_repo
from snapline.store import DB_NAME
from snapline.store.holding import holding
from snapline.store.ledger.files import FORMAT_NAME, LEDGER_DIR

__all__ = ["WORK_NAME", "upgrade_private"]

WORK_NAME = "moving"
"""The staging folder in ``.snapline/`` while the ledger moves."""
_INDEX = "index.db"


def upgrade_private(root: Path, *, dry_run: bool, timeout: float) -> Upgraded:
    """Move the in-tree store of the workspace at ``root`` onto a private repository.

    Args:
        root: The absolute workspace root (not the top of a git work tree, or one
            whose history is in a private repository already).
        dry_run: Compute what would be moved (on a repository made and removed in
            ``.snapline/moving/``), change nothing else.
        timeout: Seconds to wait for another process holding the lock.

    Returns:
        What was done (``found`` is ``none`` when there was no in-tree store).

    Raises:
        StoreCorruptError: If the in-tree store is damaged.
        StoreBusyError: If another process held the lock past ``timeout``.
    """
    from snapline.opening import open_store
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.private import make_private_repo

    store_dir = root / STORE_DIR
    work = store_dir / WORK_NAME
    if private_repo(root) is not None:
        if not dry_run:
            _clear(store_dir)  # what a move killed after its commit point left
        return Upgraded(dry_run=dry_run, found="none")
    if (store_dir / DB_NAME).is_file():
        kind = "0.1"
    elif (store_dir / LEDGER_DIR / FORMAT_NAME).is_file():
        kind = "ledger"
    else:
        return Upgraded(dry_run=dry_run, found="none")
    if dry_run:
        return _plan(root, kind, timeout)
    opened = open_store(root, timeout)  # a 0.1 store is converted to the ledger first
    try:
        with holding(store_dir / LOCK_NAME, store_dir / LOCK_NAME, timeout):
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            repo = GitRepository(None, make_private_repo(work))
            done = move_store(root, opened.store, work, kind, timeout, dry_run=False, repo=repo)
            opened.close()
            _switch(store_dir, work)
    finally:
        opened.close()
    _clear(store_dir)
    return Upgraded(**{**done.__dict__, "index": str(store_dir / _INDEX)})


def _plan(root: Path, kind: str, timeout: float) -> Upgraded:
    """What a run would move, on a repository in a temporary directory, removed after.

    A 0.1 store is converted to the ledger in a copy there (the conversion renames
    files); a ledger is read where it is.
    """
    import tempfile

    from snapline.opening import open_store
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.private import make_private_repo

    with tempfile.TemporaryDirectory(prefix="snapline-upgrade-") as scratch:
        where = root
        if kind == "0.1":
            where = Path(scratch) / "copy"
            (where / STORE_DIR).mkdir(parents=True)
            for name in (DB_NAME, DB_NAME + "-wal"):
                if os.path.lexists(root / STORE_DIR / name):
                    shutil.copy2(root / STORE_DIR / name, where / STORE_DIR / name)
        opened = open_store(where, timeout)
        try:
            repo = GitRepository(None, make_private_repo(Path(scratch)))
            return move_store(
                root, opened.store, Path(scratch), kind, timeout, dry_run=True, repo=repo
            )
        finally:
            opened.close()


def _switch(store_dir: Path, work: Path) -> None:
    """Step 2 and the new index: the ledger's index aside, the repository in place."""
    from snapline.store.dbfile import remove_stale_logs
    from snapline.store.refs.store import WRITER_MARK

    for suffix in ("", "-wal", "-shm"):
        if os.path.lexists(store_dir / (_INDEX + suffix)):
            os.replace(store_dir / (_INDEX + suffix), work / ("ledger-" + _INDEX + suffix))
    (store_dir / WRITER_MARK).touch()
    sync_directory(store_dir)
    crash_point("upgrade-private-index-aside")
    os.rename(work / PRIVATE_REPO, store_dir / PRIVATE_REPO)
    sync_directory(store_dir)
    crash_point("upgrade-private-moved")
    remove_stale_logs(store_dir / _INDEX)
    os.replace(work / _INDEX, store_dir / _INDEX)
    sync_directory(store_dir)


def _clear(store_dir: Path) -> None:
    """Step 3's end: the ledger and the staging folder gone, the private ``.gitignore``."""
    from snapline.store.refs.private import GITIGNORE

    write_file(store_dir / ".gitignore", GITIGNORE.encode(), 0o100644)
    for leftover in (LEDGER_DIR, WORK_NAME):
        path = store_dir / leftover
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.unlink(path)
