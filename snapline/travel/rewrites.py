"""A remote's line that a published forget rewrote: taken in by ``fetch`` when nothing is lost.

``snapline forget --publish`` force-pushes each line a forget rewrote: the same snapshots
(ids, numbers, chain hashes; the chain covers a forgotten version's digest, not its
bytes) on new commits. To a clone that fetched the line before, the remote's line is
not a fast-forward. The forget is the history's own record of that rewrite: its commit
names it (``Rewrote: REF OLD NEW``, :mod:`snapline.store.refs.forgetting`). ``fetch``
takes the remote's line when such a forget came with it, the local tip is ``OLD`` or a
commit before it, the remote's tip holds ``NEW``, and the remote's line holds every
snapshot of the local one at the same place (its number, id and chain hash, read from
the records of the commits that differ). Then no snapshot held here is lost, which is
what "a line is never rewound" protects (docs/guarantees.md); the forget record itself
arrives in the same move, and the next command takes it in (rebuilding the index
without the content). Anything else stays a refusal.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.store.refs.layout import FORGETS, RECORD
from snapline.travel.gitrun import git
from snapline.travel.localrefs import contains

if TYPE_CHECKING:
    from snapline.store.refs.forgetting import Rewrite

__all__ = ["forget_naming", "forget_rewriting"]

_HEADER = (b"number ", b"id ", b"chain ")


def forget_rewriting(
    root: Path, incoming: dict[str, str], ref: str, ours: str, theirs: str
) -> str | None:
    """The incoming forget whose rewrite takes ``ref`` from ``ours`` to ``theirs`` losslessly.

    Args:
        root: A directory in the work tree.
        incoming: The remote's history refs (fetched), by their local names.
        ref: A line's ref that diverged.
        ours: Its commit here.
        theirs: Its commit on the remote.

    Returns:
        The forget's ref, or ``None`` when no forget accounts for the rewrite.

    Raises:
        GitFailedError: If git cannot compare the commits.
    """
    for forget, rewrite in _rewrites(root, incoming):
        if (
            rewrite.ref == ref
            and contains(root, rewrite.old, ours)
            and contains(root, theirs, rewrite.new)
            and _holds_every_snapshot(root, ours, theirs)
        ):
            return forget
    return None


def forget_naming(root: Path, incoming: dict[str, str], ref: str) -> str | None:
    """An incoming forget that says it rewrote ``ref``, whatever it holds; ``None``: none.

    Raises:
        GitFailedError: If git cannot be run.
    """
    return next(
        (forget for forget, rewrite in _rewrites(root, incoming) if rewrite.ref == ref), None
    )


def _rewrites(root: Path, incoming: dict[str, str]) -> Iterator[tuple[str, Rewrite]]:
    # Only here: the forget format's reader comes with the git library.
    from snapline.store.refs.forgetting import rewrites_in

    for forget, commit in sorted(incoming.items()):
        if not forget.startswith(FORGETS):
            continue
        read = git(root, "cat-file", "commit", commit)
        if read.code == 0:
            for rewrite in rewrites_in(read.out.partition("\n\n")[2]):
                yield forget, rewrite


def _holds_every_snapshot(root: Path, ours: str, theirs: str) -> bool:
    """Whether ``theirs``'s line has each snapshot of ``ours``'s that it lacks the commit of."""
    mine, their = _only(root, ours, theirs), _only(root, theirs, ours)
    if mine is None or their is None or len(their) < len(mine):
        return False
    records = _headers(root, [*mine, *their[: len(mine)]])
    if records is None:
        return False
    return records[: len(mine)] == records[len(mine) :]


def _only(root: Path, tip: str, other: str) -> list[str] | None:
    # The line's own commits that ``other`` lacks, oldest first (first parents: a
    # line's commits are one chain, a join's other parent is another line's).
    ran = git(root, "rev-list", "--first-parent", "--reverse", tip, f"^{other}")
    return ran.out.split() if ran.code == 0 else None


def _headers(root: Path, commits: list[str]) -> list[tuple[bytes, ...]] | None:
    """Each commit's record's number, id and chain hash; ``None`` if one has no record."""
    if not commits:
        return []
    asked = "".join(f"{commit}:{RECORD}\n" for commit in commits)
    ran = git(root, "cat-file", "--batch", data=asked)
    if ran.code != 0:
        return None
    out = os.fsencode(ran.out)  # decoded as file names are: the bytes come back whole
    found: list[tuple[bytes, ...]] = []
    at = 0
    for _ in commits:
        end = out.find(b"\n", at)
        header = out[at:end].split()
        if end < 0 or len(header) != 3 or header[1] != b"blob":
            return None  # missing: not a snapshot commit (a user's commit, a crafted one)
        size = int(header[2])
        body = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
        lines = body.partition(b"\n\n")[0].splitlines()
        found.append(tuple(line for line in lines if line.startswith(_HEADER)))
    return found
