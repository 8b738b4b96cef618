"""Upgrading a 0.1 store (one SQLite file) to the ledger and its local index.

Snapline 0.1 kept the whole history in ``.snapline/store.db`` (format 1). Since 0.2 the
history is the committed ledger (``.snapline/ledger/``) beside a local index
(``.snapline/index.db``). The upgrade happens on the first open by a newer snapline,
whatever the command, and says so on stderr; nothing needs to be run by hand.

The procedure, under the writer lock:

1. The 0.1 store is copied through a read-only connection (it is never written) to the
   staging index ``index.db.init``, and the copy is checked with the 0.1 rules: the
   sequence, links and version-1 chain hashes, the known state, the milestones. A
   history that does not verify is refused (:class:`OldStoreDamagedError`), and so is
   one with a write a crashed 0.1 process left unfinished
   (:class:`UnsettledOldStoreError`: snapline 0.1.0 settles it on its next open; this
   version cannot replay a 0.1 journal entry).
2. The copy's schema becomes format 2, and every snapshot is inserted again as version 2
   with a new chain hash (:mod:`snapline.snapshots.check.chain`), and the staging ledger
   ``ledger.init/`` is written from it (:mod:`snapline.store.ledger.converting`): its
   files are those the 0.2 code published for the same rows.
   Numbers, ids, links, times, tools, descriptions, sessions, metadata and every file
   change stay; milestones are sealed again over the new chain. Content, the known
   state and the stat cache stay in the index.
3. ``ledger/UPGRADED`` records the 0.1 history's last snapshot and milestone with their
   version-1 chain hashes (and the new ones), so the upgrade can be checked against the
   old store.
4. The index, then the ledger, are renamed into place; the ledger's ``FORMAT`` file is
   the commit point. Only then is ``store.db`` renamed to ``store-0.1.0.db``, a backup
   that ``.snapline/.gitignore`` keeps out of git.

A crash before the ledger's rename leaves the 0.1 store as it was, and the next open
upgrades again from the start; a crash after it leaves the new layout, and the next open
only sets the old store aside.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from snapline import atomic
from snapline.errors import SnaplineError
from snapline.milestones.continuity import validate_milestones
from snapline.milestones.seal import milestone_chain_hash
from snapline.paths import STORE_DIR
from snapline.snapshots.check.chain import GENESIS, chain_hash
from snapline.snapshots.check.sequence import validate_history
from snapline.snapshots.kinds import SNAPSHOT_VERSION
from snapline.snapshots.record.recorder import LOCK_NAME
from snapline.snapshots.snapshot import Problem
from snapline.state_dir import git_dir
from snapline.store import DB_NAME, SqliteStore, StoreCorruptError
from snapline.store.holding import holding
from snapline.store.ledger.converting import write_ledger
from snapline.store.ledger.files import (
    FORMAT_NAME,
    GITIGNORE,
    INDEX_NAME,
    LEDGER_DIR,
    Ledger,
)
from snapline.store.ledger.opening import INIT_SUFFIX, start_ledger
from snapline.store.migrate import copy_store, delete_milestones, delete_snapshot, upgrade_schema

__all__ = [
    "BACKUP_NAME",
    "UPGRADED_NAME",
    "OldStoreDamagedError",
    "UnsettledOldStoreError",
    "upgrade_store",
]

BACKUP_NAME = "store-0.1.0.db"
"""What ``.snapline/store.db`` is renamed to once the ledger is in place."""

UPGRADED_NAME = "UPGRADED"
"""The ledger file recording what the 0.1 history ended with."""

_OLD_FORMAT = 1
# The staging suffix of opening.py: an init or an index creation removes what an
# interrupted upgrade left under these names, and an upgrade removes theirs.

log = logging.getLogger("snapline")

_NEXT_IN_GIT = (
    "`snapline upgrade` moves the history onto git's refs and removes .snapline/ in one "
    "commit (the layout `snapline init` makes here); or commit .snapline/ledger/ and "
    ".snapline/.gitignore with the project (and `git rm --cached .snapline/store.db` if "
    "git tracked the old store)"
)
# Not the top of a git work tree: no repository to commit to. Such a workspace's history
# belongs in a private repository (what `init` makes there), where `snapline upgrade`
# moves the ledger.
_NEXT_OUTSIDE_GIT = (
    "this workspace is not the top of a git work tree, so there is nothing to commit: "
    "`snapline upgrade` moves the history into its private repository, .snapline/repo "
    "(the layout `snapline init` makes here)"
)


class OldStoreDamagedError(StoreCorruptError):
    """The 0.1 store does not verify by the 0.1 rules, so it is not upgraded.

    Every problem refuses, also those 0.1 reports with exit code 1 (a gap, a known
    state that does not follow): the new chain hashes would seal them into the ledger.

    Attributes:
        path: The 0.1 store.
        detail: The first problem, and how many more there are.
        problems: What its check found.
    """

    def __init__(self, path: Path, problems: list[Problem]) -> None:
        """Describe the refusal.

        Args:
            path: The 0.1 store.
            problems: What its check found (at least one).
        """
        self.problems = problems
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        self.path = str(path)
        self.detail = f"its history does not verify: {problems[0].message}{more}"
        SnaplineError.__init__(
            self,
            f"cannot upgrade the snapline 0.1 store at {path}: {self.detail}; it was left as "
            "it was. Check it with snapline 0.1.0 (`snapline verify`), or restore .snapline/ "
            "from a backup",
        )


class UnsettledOldStoreError(SnaplineError):
    """A 0.1 process died in the middle of a write, which only snapline 0.1 can settle.

    The store is not damaged: snapline 0.1.0 finishes or undoes that write on its next
    open (its journal), which this version cannot replay.

    Attributes:
        path: The 0.1 store.
    """

    exit_code = 1

    def __init__(self, path: Path) -> None:
        """Describe the refusal.

        Args:
            path: The 0.1 store.
        """
        self.path = str(path)
        super().__init__(
            f"cannot upgrade the snapline 0.1 store at {path}: a 0.1 process died in the "
            "middle of a write; run any command once with snapline 0.1.0 (`snapline status`) "
            "to settle it, then this one again",
        )


@dataclass(frozen=True)
class _Ends:
    """Where the 0.1 history ended, and what it ends with once upgraded."""

    number: int
    id: str
    old_chain: str
    new_chain: str
    milestone: int | None
    old_milestone_chain: str | None
    new_milestone_chain: str | None


def upgrade_store(root: Path, timeout: float) -> None:
    """Convert ``<root>/.snapline/store.db`` (0.1) into the ledger and its local index.

    Called when a workspace is opened (the first open by this version upgrades) and
    ``ledger/FORMAT`` is missing, or when a 0.1 store is still beside a ledger (an
    upgrade that stopped after its commit point: only the renaming is left). A notice on
    stderr (the ``snapline`` logger) says what happened and where the old store is kept.

    Args:
        root: The absolute workspace root.
        timeout: Seconds to wait for another process holding the writer lock.

    Raises:
        OldStoreDamagedError: If the 0.1 history does not verify; nothing was changed.
        UnsettledOldStoreError: If a 0.1 write was left half done; nothing was changed.
        StoreCorruptError: If the 0.1 store is not a readable format 1 store.
        StoreBusyError: If another process held the lock past ``timeout``.
    """
    store_dir = root / STORE_DIR
    with holding(store_dir / LOCK_NAME, store_dir / DB_NAME, timeout):
        # Checked again under the lock: another process may have upgraded meanwhile.
        if not (store_dir / DB_NAME).is_file():
            return
        if not (store_dir / LEDGER_DIR / FORMAT_NAME).is_file():
            ends = _convert(store_dir, timeout)
            log.warning(
                "upgraded the snapline 0.1 store in %s to the ledger layout (snapshots 0..%d); "
                "the 0.1 store is kept as %s and its chain hashes are in %s; %s",
                store_dir,
                ends.number,
                store_dir / BACKUP_NAME,
                store_dir / LEDGER_DIR / UPGRADED_NAME,
                _NEXT_IN_GIT if git_dir(root) is not None else _NEXT_OUTSIDE_GIT,
            )
        _set_aside(store_dir)


def _convert(store_dir: Path, timeout: float) -> _Ends:
    """Build the new layout under staging names and rename it into place."""
    staging_index = store_dir / (INDEX_NAME + INIT_SUFFIX)
    staging_ledger = store_dir / (LEDGER_DIR + INIT_SUFFIX)
    _remove_staging(store_dir)
    try:
        ends = _build(store_dir / DB_NAME, staging_index, Ledger(staging_ledger), timeout)
        gitignore = store_dir / ".gitignore"
        if not gitignore.exists():
            atomic.write_file(gitignore, GITIGNORE.encode(), 0o100644)
        # The index first: without a ledger beside it, the next upgrade replaces it. A
        # log or shared-memory file of an index left by an earlier attempt would be
        # applied to this one.
        for suffix in ("-wal", "-shm"):
            _remove(store_dir / (INDEX_NAME + suffix))
        # Closing checkpoints the copy and deletes its log; should one remain, it is
        # part of the copy and goes with it.
        if os.path.lexists(f"{staging_index}-wal"):
            os.replace(f"{staging_index}-wal", store_dir / (INDEX_NAME + "-wal"))
        os.replace(staging_index, store_dir / INDEX_NAME)
        os.rename(staging_ledger, store_dir / LEDGER_DIR)
        atomic.sync_directory(store_dir)
    except BaseException:
        # Under the lock: the staging files are this upgrade's own, and the 0.1 store
        # was only read, so it stays the history.
        _remove_staging(store_dir)
        raise
    return ends


def _build(source: Path, staging_index: Path, ledger: Ledger, timeout: float) -> _Ends:
    """Copy, check, convert and publish the 0.1 history into the staging names."""
    version = copy_store(source, staging_index, timeout)
    if version != _OLD_FORMAT:
        raise StoreCorruptError(
            source, f"format version {version}, not the {_OLD_FORMAT} of a snapline 0.1 store"
        )
    index = SqliteStore.open(staging_index, busy_timeout=timeout)
    try:
        # The new tables only add to the copy: its rows are checked as 0.1 wrote them.
        upgrade_schema(index)
        with index.read():
            problems = validate_history(index) + validate_milestones(index)
            unsettled = bool(index.journal.entries())
        if problems:
            raise OldStoreDamagedError(source, problems)
        if unsettled:
            raise UnsettledOldStoreError(source)
        start_ledger(ledger, index.config())
        with index.write():
            ends = _rechain(index)
        write_ledger(index, ledger)
        ledger.write_new("", UPGRADED_NAME, _upgraded_text(ends).encode())
    finally:
        index.close()
    return ends


def _rechain(index: SqliteStore) -> _Ends:
    """Insert every snapshot and milestone again as the current version; in ``write()``.

    Each snapshot is taken out and inserted again; the ledger's files are written from
    the index afterwards (:func:`~snapline.store.ledger.converting.write_ledger`).
    """
    latest = index.snapshots.latest_number()
    if latest is None:
        raise StoreCorruptError(index.path, "the 0.1 store holds no snapshot, not even 0")
    chains: dict[int, str] = {}
    previous = GENESIS
    last_old = last_new = None
    for number in range(latest + 1):
        old = index.snapshots.get(number)
        assert old is not None, "validate_history found no gap"
        changes = index.changes.of(number, deltas=True)
        delete_snapshot(index, number)
        row = old._replace(version=SNAPSHOT_VERSION, merges="[]")
        row = row._replace(chain_hash=chain_hash(previous, row, changes))
        index.snapshots.insert(row, changes)
        previous = chains[number] = row.chain_hash
        last_old, last_new = old, row
    assert last_old is not None and last_new is not None
    milestones = index.milestones.all()
    delete_milestones(index)
    previous = GENESIS
    for milestone in milestones:
        sealed = milestone._replace(
            chain_hash=milestone_chain_hash(previous, milestone, chains[milestone.last])
        )
        index.milestones.insert(sealed)
        previous = sealed.chain_hash
    return _Ends(
        number=last_old.number,
        id=last_old.id,
        old_chain=last_old.chain_hash,
        new_chain=last_new.chain_hash,
        milestone=milestones[-1].number if milestones else None,
        old_milestone_chain=milestones[-1].chain_hash if milestones else None,
        new_milestone_chain=previous if milestones else None,
    )


def _upgraded_text(ends: _Ends) -> str:
    lines = [
        "# snapline upgraded this history from a snapline 0.1 store (.snapline/store.db,",
        f"# kept beside the ledger as .snapline/{BACKUP_NAME}, not committed). The 0.1",
        "# history ended as below; its chain hashes (version 1) can be checked against",
        "# that store with snapline 0.1.0 (`snapline log --json`, `milestone list --json`).",
        "# The same snapshots carry version-2 chain hashes in this ledger. Nothing here",
        "# depends on when or where the upgrade ran: every clone upgrading the same store",
        "# writes the same file, and git merges them without a conflict.",
        f"snapshot {ends.number} {ends.id}",
        f"snapshot-chain-v1 {ends.old_chain}",
        f"snapshot-chain-v2 {ends.new_chain}",
    ]
    if ends.milestone is None:
        lines.append("milestone none")
    else:
        lines += [
            f"milestone {ends.milestone}",
            f"milestone-chain-v1 {ends.old_milestone_chain}",
            f"milestone-chain-v2 {ends.new_milestone_chain}",
        ]
    return "\n".join(lines) + "\n"


def _set_aside(store_dir: Path) -> None:
    """Rename the 0.1 store (and a log of it, if any) to the backup name."""
    source = store_dir / DB_NAME
    backup = store_dir / BACKUP_NAME
    # The log first: a store renamed without its log would lose what the log holds.
    for suffix in ("-wal", "-shm"):
        if os.path.lexists(f"{source}{suffix}"):
            os.replace(f"{source}{suffix}", f"{backup}{suffix}")
    if source.is_file():
        os.replace(source, backup)
    atomic.sync_directory(store_dir)


def _remove_staging(store_dir: Path) -> None:
    for leftover in store_dir.glob(INDEX_NAME + INIT_SUFFIX + "*"):
        _remove(leftover)
    shutil.rmtree(store_dir / (LEDGER_DIR + INIT_SUFFIX), ignore_errors=True)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
