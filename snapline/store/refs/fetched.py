"""Whether the history was fetched after git last fetched commits: two ``stat`` calls.

``git pull`` brings a colleague's commits and leaves the history's refs as they were:
their snapshots stay on the remote (its pre-push hook pushed them) until ``snapline
fetch``. A clone in that state sees the pulled files as drift, and the usual advice
(``snapline resync``) would file the colleague's recorded work as a person's edit.

Nothing at run time asks the network. git writes ``FETCH_HEAD`` on every ``git fetch``
and ``git pull`` (in the work tree's own git directory: pseudo refs are per work tree);
``snapline fetch`` passes ``--no-write-fetch-head`` and touches :data:`MARK` in the
repository's common git directory instead, after each fetch that reached the remote.
When ``FETCH_HEAD`` is newer than the mark (or there is no mark), commits came in after
the history was last fetched, so their snapshots may be missing here. A fresh clone has
no ``FETCH_HEAD`` (``git clone`` writes none): its missing history is said by the
opening (``opening_errors.py``), and a clone whose history came by ``snapline fetch``
and that fetched no commit since is not asked to fetch again.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MARK", "fetched_since", "note_fetched"]

MARK = "snapline/history-fetched"
"""The mark ``snapline fetch`` touches, relative to the common git directory."""


def note_fetched(common_dir: Path) -> None:
    """Touch the mark: the history's refs were just fetched from a remote.

    Args:
        common_dir: The repository's common git directory.
    """
    mark = common_dir / MARK
    try:
        mark.parent.mkdir(exist_ok=True)
        mark.touch()  # its mtime is the fact kept (touch() sets it to now, file or not)
    except OSError:
        pass  # a mark not kept only makes status name `snapline fetch` once too often


def fetched_since(git_dir: Path, common_dir: Path) -> bool:
    """Whether every ``git fetch`` of this work tree came before the last ``snapline fetch``.

    Args:
        git_dir: The work tree's own git directory (its ``FETCH_HEAD``).
        common_dir: The repository's common git directory (the mark).

    Returns:
        ``True`` when git never fetched here (no ``FETCH_HEAD``: a clone's commits came
        with its history's own fetch, or nothing came), or the mark is newer than
        ``FETCH_HEAD``; ``False`` when commits may have come after the history.
    """
    pulled = _mtime(git_dir / "FETCH_HEAD")
    if pulled is None:
        return True
    fetched = _mtime(common_dir / MARK)
    return fetched is not None and fetched > pulled


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None
