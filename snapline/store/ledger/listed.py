"""The ledger's listings remembered across processes: a stamp of its folders of records.

Every command asks whether the index holds exactly the ledger's files (``sync``'s
``_in_step``), and the exact answer is a listing of ``snapshots/``, ``milestones/`` and
``forgotten/``, compared with the names in the index: time in proportion to the history.
When a listing agreed, this module keeps an ``lstat`` stamp of those folders (device,
inode, mtime, ctime, size) in the index; the next process that finds the folders with
the same stamp knows the listing is the same without making it.

Why a folder's stamp stands for its listing: adding, removing or renaming an entry in a
folder, by any program (git's checkout, merge and pull, ``cp``, ``rm``), sets the
folder's mtime and ctime to the current time, and nothing can set a ctime back
(``utime`` sets it to now). The stamp is anchored in ctime, as git's index and the
verify checkpoint are.

The racy window, handled as git's index handles it. A timestamp has a granularity (a
clock tick of a few milliseconds on Linux, more on some filesystems), so an entry added
in the same tick as the change the stamp saw leaves the stamp as it was. A stamp is
therefore kept only when it is *safely old*: before the listing, the lock file's times
are set to now (``utime``) and its ctime read back, which is the filesystem's own clock
(a network filesystem's server's, not this machine's); only a folder whose ctime is
strictly older than that is trusted. Any later change gets a ctime at or after that
clock reading, so it cannot reproduce the kept stamp. The folders are stamped before
and after the listing, and the stamp is kept only when both agree, so the listing is
the one the stamp describes.

What invalidates it: any name the index adds (a record published, a catch-up) deletes
it in the same transaction, and so does a rebuild; a folder that changes no longer
matches it. A stamp is kept by ``verify`` (``keep``); a record, which changes the
folder anyway, keeps none.
"""

from __future__ import annotations

import json
import os

from snapline.store.ledger.files import KINDS, Ledger
from snapline.store.table import Table

__all__ = [
    "FolderStamps",
    "ListedTable",
    "filesystem_clock",
    "filesystem_now",
    "folder_stamps",
    "safely_old",
]

FolderStamps = tuple[tuple[int, ...] | None, ...]
"""Per folder of records (``KINDS`` order): ``(dev, ino, mtime_ns, ctime_ns, size)``,
or ``None`` when the folder does not exist."""

_KEY = "ledger_listed"
_CTIME = 3
_LOCK_NAME = "lock"
"""The writer lock's file beside the ledger (``.snapline/lock``): its times are ours."""


def folder_stamps(ledger: Ledger) -> FolderStamps:
    """The stamp of each folder of records, as :data:`FolderStamps`."""
    stamps: list[tuple[int, ...] | None] = []
    for kind in KINDS:
        try:
            st = os.lstat(ledger.path / kind)
        except OSError:
            stamps.append(None)
            continue
        stamps.append((st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size))
    return tuple(stamps)


def filesystem_now(ledger: Ledger) -> int | None:
    """The filesystem's clock now, in ns, read as the lock file's new ctime.

    ``None`` when it cannot be read (a read-only checkout, a lock that is not a file):
    then no stamp is trusted, and every process lists the folders, as before.
    """
    clock = filesystem_clock(ledger)
    return None if clock is None else clock[0]


def filesystem_clock(ledger: Ledger) -> tuple[int, int] | None:
    """:func:`filesystem_now`, and the device it was read on (``st_dev``).

    A time read on one filesystem says nothing of another's timestamps (a folder of the
    workspace mounted from elsewhere has its own clock): callers compare it only with
    files on that device.
    """
    lock = ledger.path.parent / _LOCK_NAME
    try:
        # The writer lock makes the file; a clone no writer ran in yet has none.
        os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644))
        os.utime(lock, follow_symlinks=False)
        st = os.lstat(lock)
    except (OSError, NotImplementedError):
        return None
    return st.st_ctime_ns, st.st_dev


def safely_old(stamps: FolderStamps, now: int | None) -> bool:
    """Whether no folder changed in the clock tick of ``now`` or after it."""
    return now is not None and all(s is None or s[_CTIME] < now for s in stamps)


class ListedTable(Table):
    """The kept stamp, in the index's ``meta`` as ``ledger_listed`` (a JSON list)."""

    def get(self) -> FolderStamps | None:
        """The kept stamp, or ``None`` (none kept, or not one of ours: list again)."""
        rows = self._c.query("SELECT value FROM meta WHERE key = ?", (_KEY,))
        if not rows:
            return None
        try:
            value = json.loads(str(rows[0][0]))
        except ValueError:
            return None
        if not isinstance(value, list) or len(value) != len(KINDS):
            return None
        stamps: list[tuple[int, ...] | None] = []
        for item in value:
            if item is None:
                stamps.append(None)
            elif isinstance(item, list) and len(item) == 5 and all(type(v) is int for v in item):
                stamps.append(tuple(item))
            else:
                return None
        return tuple(stamps)

    def put(self, stamps: FolderStamps) -> None:
        """Keep ``stamps``; call inside ``write()``."""
        self._c.require_transaction()
        value = json.dumps([None if s is None else list(s) for s in stamps])
        self._c.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_KEY, value))

    def clear(self) -> None:
        """Forget the kept stamp (the index's names change); call inside ``write()``."""
        self._c.require_transaction()
        self._c.db.execute("DELETE FROM meta WHERE key = ?", (_KEY,))
