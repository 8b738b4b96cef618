"""What ``snapline upgrade`` would do (``--dry-run``), and what its removal commit says."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from snapline.moving import Upgraded
from snapline.paths import STORE_DIR
from snapline.store import DB_NAME

__all__ = ["message", "plan"]


def plan(root: Path, state: Path, kind: str, timeout: float) -> Upgraded:
    """What a run would do, computed as it does, with nothing written to the repository.

    A 0.1 store is brought to the ledger in a copy in a temporary directory (the
    conversion renames files); a ledger is read where it is (an open catches the local
    index up with the ledger, as any reading command does).
    """
    import tempfile

    from snapline.moving import moved

    with tempfile.TemporaryDirectory(prefix="snapline-upgrade-") as scratch:
        where = root
        if kind == "0.1":
            where = Path(scratch)
            (where / STORE_DIR).mkdir()
            for name in (DB_NAME, DB_NAME + "-wal"):
                if os.path.lexists(root / STORE_DIR / name):
                    shutil.copy2(root / STORE_DIR / name, where / STORE_DIR / name)
        return moved(root, where, state, kind, dry_run=True, timeout=timeout)


def message(done: Upgraded) -> str:
    """The removal commit's message: what moved, and where."""
    lines = [
        "snapline: the history moved onto git's refs; .snapline/ leaves the tree",
        "",
    ]
    if done.found == "none":
        lines.append(
            "snapline upgrade moved this history onto refs/snapline/ before (it was "
            "interrupted); this commit removes .snapline/ from the tree."
        )
    else:
        what = "snapline 0.1 store" if done.found == "0.1" else "ledger"
        lines.append(
            f"snapline upgrade moved the in-tree {what} (.snapline/) onto git's refs: "
            f"{done.written} snapshots written, {done.present} already there; main line "
            f"{done.main_line}."
        )
        for ref, count in sorted(done.lines.items()):
            lines.append(f"- {ref}: {count} snapshots")
        if done.milestones:
            lines.append(f"- milestones {', '.join(map(str, done.milestones))}")
        lines.append(
            "The local index is under git's directory (snapline/index.db); the refs "
            "travel with `git push REMOTE 'refs/snapline/*:refs/snapline/*'`."
        )
    return "\n".join(lines) + "\n"
