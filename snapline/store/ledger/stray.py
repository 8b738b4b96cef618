"""A ``.snapline/ledger/`` without its ``FORMAT`` file: a store half there, or a stray folder.

``status`` (which looks for ``FORMAT``) and ``init`` (which refuses any ``ledger/``) must
tell the same story about it: a folder that holds history is a damaged store to both
(exit 3, restore it); one that holds none is no store to both, and ``init`` clears it.
"""

from __future__ import annotations

import os
from pathlib import Path

from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.files import CHECKS, FORMAT_NAME, LEDGER_DIR

__all__ = ["set_stray_aside", "stray_ledger"]


def stray_ledger(store_dir: Path) -> bool:
    """Whether ``ledger/`` is there without its ``FORMAT`` file and holds no history.

    No history: nothing but folders and check records (what a store deleted under a
    running check left, before guard checked for it). ``status`` then says there is no
    store and ``init`` sets the folder aside; a ledger that holds anything else is a
    store half there, which both refuse alike, so that neither says "no store" while
    the other says "a store".

    Raises:
        StoreCorruptError: If ``ledger/`` lacks ``FORMAT`` and holds any other file.
    """
    ledger = store_dir / LEDGER_DIR
    if not os.path.lexists(ledger) or (ledger / FORMAT_NAME).is_file():
        return False
    if not ledger.is_dir() or ledger.is_symlink():
        raise StoreCorruptError(ledger, "it is not a directory")
    history = sum(
        1
        for found in ledger.rglob("*")
        if not found.is_dir() and found.relative_to(ledger).parts[0] != CHECKS
    )
    if history:
        raise StoreCorruptError(
            ledger,
            f"it has no {FORMAT_NAME} file, though it holds {history} history file(s): a "
            "store half there (an interrupted copy or checkout)",
        )
    return True


def set_stray_aside(store_dir: Path) -> None:
    """Clear the way for ``init`` over a ledger without history (call under its lock).

    Raises:
        StoreCorruptError: If ``ledger/`` lacks ``FORMAT`` and holds history.
    """
    # Folders alone go; check records are kept, set aside (`.snapline/.gitignore` keeps
    # them out of commits: only ledger/ is committed).
    if not stray_ledger(store_dir):
        return
    stray = store_dir / LEDGER_DIR
    if not any(found.is_file() for found in stray.rglob("*")):
        import shutil  # here: shutil imports lzma and bz2, for every command

        shutil.rmtree(stray)
        return
    target, count = store_dir / f"{LEDGER_DIR}.stray", 1
    while os.path.lexists(target):
        count += 1
        target = store_dir / f"{LEDGER_DIR}.stray-{count}"
    os.rename(stray, target)
    import logging  # here: only a stray ledger has something to say

    logging.getLogger("snapline").warning(
        "%s held no history (no FORMAT file, nothing but check records); it was set aside as %s",
        stray,
        target,
    )
