"""Writing into the workspace without ever leaving it half done.

Protocol, all under the workspace's writer lock:

1. commit a journal entry naming every file about to change, with its hash before and
   after;
2. write each file through the atomic-write helper, checking the new content's hash
   first (as one batch: every file written and fsynced under a temporary name, then
   renamed into place in order, then each directory fsynced once);
3. commit the snapshot and delete the journal entry in one transaction.

If anything fails in step 2 or 3 the files already touched are put back and the entry is
dropped before the error is raised. If the process dies instead, the entry survives and
:func:`recover` undoes it on the next open: every file still at its "after" hash is put
back to its known state (rebuilt from the store, which never saw the snapshot), so the
workspace is fully at the old state and matches the history. Files at neither hash were
changed by someone else since, and are left alone and reported.

A file whose known content the store cannot rebuild (tracked by hash only, above the
large-file limit) cannot be put back that way, so before it is replaced or deleted it is
*parked*: renamed into ``.snapline/parked/`` under a token the journal entry names.
Undoing renames it back; once the snapshot is committed a ``discard`` entry (committed
with the snapshot) has the parked files removed, by this process or by the next open.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from snapline import atomic, paths
from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes, hash_stream
from snapline.paths import UnsafePathError, disk_path, inside_git_dir
from snapline.scanning import git_mode
from snapline.snapshots.record import batching
from snapline.snapshots.record.commit import now_iso
from snapline.store import Store

__all__ = [
    "DISCARD_OP",
    "PARKED_DIR",
    "RUN_OP",
    "ContentMismatchError",
    "PlannedWrite",
    "RecoveryBlockedError",
    "apply_writes",
    "recover",
]

RUN_OP = "run"
"""The journal entry of a shell command in progress (settled by recording its effects)."""

DISCARD_OP = "discard"
"""The journal entry listing parked files that a committed snapshot no longer needs."""

PARKED_DIR = "parked"
"""Where, inside the store directory, files that cannot be rebuilt wait for a commit."""

T = TypeVar("T")

log = logging.getLogger("snapline")


class ContentMismatchError(SnaplineError):
    """Content about to be written does not hash to what the history says it should."""

    exit_code = 3

    def __init__(self, path: str, expected: str, actual: str) -> None:
        self.path = path
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"refusing to write {path}: its rebuilt content hashes to {actual}, not the "
            f"recorded {expected}; the store is damaged, run `snapline verify`"
        )


class RecoveryBlockedError(SnaplineError):
    """An interrupted write cannot be undone: something new stands where a file must go back.

    The journal entry is kept, so nothing is lost: once the obstacle is moved away, the
    next writing command finishes the recovery. Reading commands keep working meanwhile.

    Attributes:
        path: The file that must be put back.
        obstacle: What stands in the way (the path itself, or one of its parents).
    """

    exit_code = 1

    def __init__(self, path: str, obstacle: str, what: str) -> None:
        self.path = path
        self.obstacle = obstacle
        super().__init__(
            f"an interrupted write must put back {path}, but {obstacle} is {what} now; "
            f"move {obstacle} away and run the command again (reading commands still work)"
        )


@dataclass(frozen=True)
class PlannedWrite:
    """One file to change: from (before_hash, before_mode) to (after_hash, after_mode).

    ``None`` hashes mean "absent". ``content`` is the new content (``None`` to delete).
    ``park`` is set when the file's current content cannot be rebuilt from the store: it
    is then moved aside under that token rather than overwritten (see the module doc).
    """

    path: str
    before_hash: str | None
    before_mode: int | None
    after_hash: str | None
    after_mode: int | None
    content: bytes | None
    park: str | None = None

    def entry(self) -> dict[str, object]:
        """The journal's record of this write: everything but the content."""
        # Not dataclasses.asdict: it deep-copied every content only to drop it (a tenth
        # of committing a rollback's journal entry of 100 files, row R5).
        return {name: getattr(self, name) for name in _ENTRY_FIELDS}


_ENTRY_FIELDS = ("path", "before_hash", "before_mode", "after_hash", "after_mode", "park")
Rebuild = Callable[[str], tuple[bytes, int] | None]
"""Returns a path's known content and mode (``None``: not tracked)."""


def apply_writes(
    root: Path,
    store: Store,
    op: str,
    writes: Sequence[PlannedWrite],
    commit: Callable[[], T],
    rebuild_known: Rebuild,
) -> T:
    """Write ``writes`` into the workspace and run ``commit`` (a store write), atomically.

    Args:
        root: The workspace root.
        store: The open store.
        op: A name for the journal (``write``, ``rollback``…).
        writes: The files to change.
        commit: Records the snapshot; called inside the transaction that clears the
            journal entry.
        rebuild_known: Rebuilds the known state of a path, for undoing.

    Returns:
        What ``commit`` returned.

    Raises:
        ContentMismatchError: If a new content does not match its planned hash (nothing
            is written).
        OSError: If writing fails; every file touched has been put back.
    """
    for write in writes:
        if write.content is not None and write.after_hash is not None:
            actual = hash_bytes(write.content)
            if actual != write.after_hash:
                raise ContentMismatchError(write.path, write.after_hash, actual)
    with store.write():
        entry_id = store.journal.add(
            op, now_iso(), json.dumps([w.entry() for w in writes], ensure_ascii=True)
        )
    crash_point("journal-committed")
    touched: list[PlannedWrite] = []
    parked = [w.park for w in writes if w.park is not None]
    batch = atomic.WriteBatch()
    try:
        # Every new content is written and fsynced under a temporary name first, then
        # renamed in the plan's order; a crash before a rename leaves only temporary
        # files, which undoing removes (_remove_temp_files).
        staged = [batching.stage(batch, w, lambda p: _writable(root, p)) for w in writes]
        batch.sync()
        crash_point("files-staged")
        for group in batching.groups(writes, staged):
            touched.extend(write for write, _ in group)
            ready = [item for _, item in group if item is not None]
            if len(group) > 1:
                batch.place(*ready)  # files that depend on nothing else: all at once
            else:
                ((write, _),) = group
                if write.park is not None:
                    _park(root, write)
                if ready:
                    batch.place(*ready)
                else:
                    location = _writable(root, write.path)
                    batching.write(batch, root, location, write.content, write.after_mode)
            for _ in group:
                crash_point("file-written")
        batch.finish()
        crash_point("files-written")
        with store.write():
            result = commit()
            store.journal.delete(entry_id)
            if parked:
                discard_id = store.journal.add(DISCARD_OP, now_iso(), json.dumps(parked))
        crash_point("snapshot-committed")
    except BaseException:
        batch.abort()
        _undo(root, touched, rebuild_known, check=False)
        with contextlib.suppress(SnaplineError), store.write():
            store.journal.delete(entry_id)
        raise
    # The snapshot is committed, so the operation has succeeded and nothing may be
    # undone: a failure to remove a parked file only leaves the discard entry for the
    # next open to finish, and is not the caller's error.
    if parked:
        try:
            _discard(root, parked)
            with store.write():
                store.journal.delete(discard_id)
        except (OSError, SnaplineError) as error:
            log.warning("parked files are removed on the next open: %s", error)
    return result


def recover(
    root: Path, store: Store, rebuild_known: Rebuild, finish_run: Callable[[dict[str, str]], None]
) -> list[str]:
    """Settle every journal entry left by a process that died mid-operation.

    File writes are undone. A shell command (``run``) cannot be undone, so its side
    effects are recorded instead (``finish_run``), and nothing is left as drift.
    Call only while holding the writer lock, so no live writer's entry is touched.

    Paths are checked as a rollback checks them (safe, inside the root, not inside
    ``.git/`` or the store, no symlinked parent): the journal may come from elsewhere,
    and recovery must never write where no rollback could have written.

    Returns:
        One line per file that could not be put back (it was changed since).

    Raises:
        RecoveryBlockedError: If a directory or file stands where a file must be put
            back; the entry is kept for the next attempt.
    """
    notes: list[str] = []
    for row in store.journal.entries():
        try:
            payload = json.loads(row.payload)
            if row.op == RUN_OP:
                finish_run(payload)
            elif row.op == DISCARD_OP:
                _discard(root, payload)
            else:
                writes = [PlannedWrite(**{**entry, "content": None}) for entry in payload]
                if _committed(store, writes):
                    # The snapshot reached the ledger before the process died (the index
                    # took it in on this open): the writes stand, only parked files go.
                    _discard(root, [w.park for w in writes if w.park is not None])
                else:
                    notes.extend(_undo(root, writes, rebuild_known, check=True))
        except (ValueError, TypeError, AttributeError) as error:
            # The store may come from elsewhere: an entry snapline cannot have written
            # is dropped, never acted on, so a damaged journal cannot block every open.
            notes.append(f"dropped unreadable journal entry {row.id} ({row.op}): {error}")
        with store.write():
            store.journal.delete(row.id)
    return notes


def _committed(store: Store, writes: Sequence[PlannedWrite]) -> bool:
    """Whether the known state is already what ``writes`` were to make it."""
    if not writes:
        return False
    known = store.state.get([w.path for w in writes])
    for write in writes:
        row = known.get(write.path)
        now = (row.hash, row.mode) if row is not None else (None, None)
        if now != (write.after_hash, write.after_mode) or now == (
            write.before_hash,
            write.before_mode,
        ):
            return False
    return True


def _undo(
    root: Path, writes: Sequence[PlannedWrite], rebuild_known: Rebuild, *, check: bool
) -> list[str]:
    notes = []
    for write in reversed(writes):
        try:
            location = _writable(root, write.path)
        except UnsafePathError as error:
            if check and (write.before_hash is not None or write.park is not None):
                # A file standing where a directory must go back is an obstacle to
                # move, not a reason to give up on the file (a symlink is unsafe).
                _check_unobstructed(root, write.path)
            # Nothing is ever written through an unsafe path (the write itself checks),
            # so there is nothing to put back there, and the other files still are.
            notes.append(f"{write.path}: not touched ({error})")
            continue
        batching.remove_temp_files(location)
        current = _disk_hash(location)
        parked = None if write.park is None else _parked(root, write.park)
        if parked is not None and os.path.lexists(parked):
            if check and current not in ((write.after_hash, write.after_mode), (None, None)):
                notes.append(
                    f"{write.path}: changed since the interrupted write; its previous "
                    f"content is kept in {parked}"
                )
                continue
            if check:
                _check_unobstructed(root, write.path)
            atomic.move_file(parked, location)
            crash_point("file-restored")
            continue
        if current == (write.before_hash, write.before_mode):
            continue
        if check and current != (write.after_hash, write.after_mode):
            notes.append(f"{write.path}: changed since the interrupted {write.after_hash}")
            continue
        if check:
            # Before rebuilding: a directory in the way must stop recovery, not be lost.
            _check_unobstructed(root, write.path)
        known = rebuild_known(write.path)
        if known is None:
            atomic.remove_file(location, root=root)
        else:
            content, mode = known
            atomic.write_file(location, content, mode)
        crash_point("file-restored")
    return notes


def _writable(root: Path, path: str) -> Path:
    # The same rule as a rollback's plan (plan.unsafe_conflict): a journal names only
    # paths a rollback could write, so any other is refused whoever wrote the entry.
    location = disk_path(root, path)
    if inside_git_dir(path):
        raise paths.ProtectedPathError(path, paths.GIT_DIR)
    return location


def _check_unobstructed(root: Path, path: str) -> None:
    parts = path.split("/")
    current = root
    for depth, part in enumerate(parts, start=1):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return
        last = depth == len(parts)
        if not last and stat.S_ISLNK(mode):
            return  # never a way to write (disk_path refuses it), so never a way out
        if last and stat.S_ISDIR(mode):
            raise RecoveryBlockedError(path, path, "a directory")
        if not last and not stat.S_ISDIR(mode):
            raise RecoveryBlockedError(path, "/".join(parts[:depth]), "a file")
        if last and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise RecoveryBlockedError(path, path, "a special file")


def _parked(root: Path, token: str) -> Path:
    # Tokens come from the journal, which may come from elsewhere: never a path.
    if not (isinstance(token, str) and token.isascii() and token.isalnum()):
        raise ValueError(f"a parked file's token is letters and digits only, not {token!r}")
    from snapline.state_dir import state_dir

    return state_dir(root) / PARKED_DIR / token


def _park(root: Path, write: PlannedWrite) -> None:
    assert write.park is not None
    atomic.move_file(disk_path(root, write.path), _parked(root, write.park))


def _discard(root: Path, tokens: Sequence[str]) -> None:
    for token in tokens:
        atomic.remove_file(_parked(root, token))


def _disk_hash(location: Path) -> tuple[str | None, int | None]:
    try:
        info = os.lstat(location)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    mode = git_mode(info)
    if mode is None:
        return None, None
    if mode == 0o120000:
        return hash_bytes(os.fsencode(os.readlink(location))), mode
    # Streamed: the file may be far above the large-file limit (memory stays bounded).
    with open(location, "rb") as handle:
        return hash_stream(handle)[0], mode
