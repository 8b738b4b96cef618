"""Orphaned snapshot files: recorded on a branch, not committed, left behind by a switch.

git keeps an untracked file when it checks out another branch, so a snapshot recorded
on ``feature`` and not committed stays in ``.snapline/ledger/snapshots/`` on ``main``,
where its parent (committed on ``feature``) is not. The index holds the checkout's own
line without it; it becomes part of its line again when its branch is checked out.
"""

from __future__ import annotations

from snapline.store import StoreReader

__all__ = ["orphan_message"]


def orphan_message(store: StoreReader) -> str | None:
    """One line naming the orphaned snapshot files and what to do; ``None`` when none."""
    orphans = store.orphan_snapshots()
    if not orphans:
        return None
    names = ", ".join(f"{number} ({id_[:12]})" for number, id_ in orphans)
    count = len(orphans)
    files = "file" if count == 1 else "files"
    return (
        f"{count} orphaned snapshot {files} whose parent is not in this checkout "
        f"(snapshot {names}: recorded on another branch and not committed there); this "
        f"checkout's own line goes on without them, and they join their line again when "
        f"their branch is checked out. Commit them on their branch (check it out, `git add "
        f".snapline/ledger`, commit), or carry them over to it (`git stash push "
        f"--include-untracked -- .snapline/ledger`, then `git stash pop` on that branch)"
    )
