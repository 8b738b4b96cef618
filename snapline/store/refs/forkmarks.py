"""The forks an index's history follows, kept so a line rewritten under one is noticed.

A line that forks is read after the lines it forked from, each up to its fork
(:mod:`.followed`), when the index is built; only the followed line's ref has a mark
(:mod:`.marks`). A forget made in another clone and fetched before its record (a
``git fetch`` of the lines alone) rewrites a forked-from line under the fork while the
followed line stays: the index would keep the old rows (the forgotten content) and a
rebuild would read the rewritten ones. Each fork is kept with the tip its line had
when it was seen holding it; a line that moved is read back to the fork, and one that
no longer holds it makes the catch-up rebuild the index from the refs.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import LineRewrittenError, read_line

if TYPE_CHECKING:
    from snapline.store.refs.followed import Segment
    from snapline.store.refs.store import RefsStore

__all__ = ["FORKS", "forks_moved", "forks_rewritten", "mark_forks"]

FORKS = "forks"
"""The key, among the index's marks, of the forks followed: the followed line's id, then
``LINE:FORK:TIP`` for each line it forked from, spaced."""


def forks_moved(store: RefsStore, line: str) -> bool:
    """Whether a line ``line`` forked from moved since the index kept its fork.

    Also when no fork is kept for ``line`` and it is not the main line (a work tree's
    first write on a line of its own, or an index older than the forks' mark): the
    catch-up then finds and keeps them. A ref read per fork, one index row.
    """
    kept_for, kept = _kept(store)
    if kept_for != line:
        return kept_for is not None or (
            store.index.snapshots.latest_number() is not None and line != store.main_line()
        )
    return any(store.repo.ref(line_ref(other)) != tip for other, _, tip in kept)


def forks_rewritten(store: RefsStore, line: str) -> bool:
    """Whether a line the index's history forked from no longer holds its fork.

    The forks kept for ``line``; when none are (a work tree's first write on a line of
    its own, or an index older than the forks' mark), the lines are read, and a fork
    found only rewritten on the line it forked from is one.

    Raises:
        DamagedLineError: If such a line, read back to its fork, is damaged or crafted.
    """
    kept_for, kept = _kept(store)
    if kept_for != line:
        if store.index.snapshots.latest_number() is None or line == store.main_line():
            return False
        segments = _segments(store, line)
        return any(
            low.snapshots[-1].commit != high.snapshots[0].parents[0]
            for low, high in pairwise(segments)
            if low.snapshots and high.snapshots and high.snapshots[0].parents
        )
    for other, fork, tip in kept:
        now = store.repo.ref(line_ref(other))
        if now is None or now == tip:
            continue  # a line deleted: the rebuild that would follow names it, if ever
        try:
            read_line(store.repo, other, after=fork)
        except LineRewrittenError:
            return True
    return False


def mark_forks(store: RefsStore, line: str, *, fresh: bool) -> None:
    """Keep the forks followed to reach ``line``, each with its line's tip now; in ``write()``.

    Args:
        store: The open store.
        line: The line the index follows.
        fresh: The index was built now. Then, or when the line followed is not the one
            the forks were kept for, the forks are found (each forked-from line read up
            to its fork, once); else the kept ones stay, their tips renewed.

    Raises:
        DamagedLineError: If a line read to find the forks is damaged or crafted.
    """
    kept_for, kept = _kept(store)
    if not fresh and kept_for == line:
        forks = [(other, fork) for other, fork, _ in kept]
    elif line == store.main_line():
        forks = []
    else:
        segments = _segments(store, line)
        forks = [(s.line, s.snapshots[-1].commit) for s in segments[:-1] if s.snapshots]
    if not forks:
        if kept_for is not None:
            store.marks.drop(FORKS)
        return
    tips = [f"{other}:{fork}:{store.repo.ref(line_ref(other)) or ''}" for other, fork in forks]
    store.marks.put(FORKS, " ".join([line, *tips]))


def _segments(store: RefsStore, line: str) -> list[Segment]:
    from snapline.store.refs.followed import followed_segments

    return followed_segments(store.repo, line)


def _kept(store: RefsStore) -> tuple[str | None, list[tuple[str, str, str]]]:
    """The forks kept by :func:`mark_forks`.

    Returns:
        The line they were kept for, and each line forked from, its fork commit and
        its tip then.
    """
    words = (store.marks.get(FORKS) or "").split()
    found = []
    for kept in words[1:]:
        other, fork, tip = [*kept.split(":"), "", "", ""][:3]
        found.append((other, fork, tip))
    return (words[0] if words else None), found
