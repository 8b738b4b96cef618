"""Writing into the workspace without ever leaving it half done.

Protocol, all under the workspace's writer lock:

1. commit a journal entry naming every file about to change, with its hash before and
   after;
2. write each file through the atomic-write helper, checking the new content's hash
   first;
3. commit the snapshot and delete the journal entry in one transaction.

If anything fails in step 2 or 3 the files already touched are put back and the entry is
dropped before the error is raised. If the process dies instead, the entry survives and
:func:`recover` undoes it on the next open: every file still at its "after" hash is put
back to its known state (rebuilt from the store, which never saw the snapshot), so the
workspace is fully at the old state and matches the history. Files at neither hash were
changed by someone else since, and are left alone and reported.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

from snapline import atomic
from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.paths import disk_path
from snapline.scanning import git_mode
from snapline.snapshots.commit import now_iso
from snapline.store import Store

__all__ = ["RUN_OP", "ContentMismatchError", "PlannedWrite", "apply_writes", "recover"]

RUN_OP = "run"
"""The journal entry of a shell command in progress (settled by recording its effects)."""

T = TypeVar("T")


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


@dataclass(frozen=True)
class PlannedWrite:
    """One file to change: from (before_hash, before_mode) to (after_hash, after_mode).

    ``None`` hashes mean "absent". ``content`` is the new content (``None`` to delete).
    """

    path: str
    before_hash: str | None
    before_mode: int | None
    after_hash: str | None
    after_mode: int | None
    content: bytes | None

    def entry(self) -> dict[str, object]:
        data = asdict(self)
        del data["content"]
        return data


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
        entry_id = store.add_journal(
            op, now_iso(), json.dumps([w.entry() for w in writes], ensure_ascii=True)
        )
    crash_point("journal-committed")
    touched: list[PlannedWrite] = []
    try:
        for write in writes:
            touched.append(write)
            _write(root, write.path, write.content, write.after_mode)
            crash_point("file-written")
        crash_point("files-written")
        with store.write():
            result = commit()
            store.delete_journal(entry_id)
        crash_point("snapshot-committed")
        return result
    except BaseException:
        _undo(root, touched, rebuild_known)
        with contextlib.suppress(SnaplineError), store.write():
            store.delete_journal(entry_id)
        raise


def recover(
    root: Path, store: Store, rebuild_known: Rebuild, finish_run: Callable[[dict[str, str]], None]
) -> list[str]:
    """Settle every journal entry left by a process that died mid-operation.

    File writes are undone. A shell command (``run``) cannot be undone, so its side
    effects are recorded instead (``finish_run``), and nothing is left as drift.
    Call only while holding the writer lock, so no live writer's entry is touched.

    Returns:
        One line per file that could not be put back (it was changed since).
    """
    notes: list[str] = []
    for row in store.journal():
        if row.op == RUN_OP:
            finish_run(json.loads(row.payload))
            with store.write():
                store.delete_journal(row.id)
            continue
        entries = json.loads(row.payload)
        writes = [PlannedWrite(content=None, **entry) for entry in entries]
        notes.extend(_undo(root, writes, rebuild_known, check=True))
        with store.write():
            store.delete_journal(row.id)
    return notes


def _undo(
    root: Path, writes: Sequence[PlannedWrite], rebuild_known: Rebuild, *, check: bool = False
) -> list[str]:
    notes = []
    for write in reversed(writes):
        location = disk_path(root, write.path)
        _remove_temp_files(location)
        current = _disk_hash(location)
        if current == (write.before_hash, write.before_mode):
            continue
        if check and current != (write.after_hash, write.after_mode):
            notes.append(f"{write.path}: changed since the interrupted {write.after_hash}")
            continue
        known = rebuild_known(write.path)
        if known is None:
            atomic.remove_file(location, root=root)
        else:
            content, mode = known
            atomic.write_file(location, content, mode)
    return notes


def _write(root: Path, path: str, content: bytes | None, mode: int | None) -> None:
    location = disk_path(root, path)
    if content is None:
        atomic.remove_file(location, root=root)
    else:
        assert mode is not None
        atomic.write_file(location, content, mode)


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
    with open(location, "rb") as handle:
        return hash_bytes(handle.read()), mode


def _remove_temp_files(location: Path) -> None:
    prefix = f".{location.name}{atomic.TEMP_MARKER}"
    with contextlib.suppress(OSError):
        for entry in os.scandir(location.parent):
            if entry.name.startswith(prefix):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
