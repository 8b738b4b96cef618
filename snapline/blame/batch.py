"""The line diffs blame will ask for, computed ahead by one git process for many files.

Blaming a file diffs each recorded version with the one before it, back through its
history (:mod:`snapline.blame.walk`), then the latest with the disk
(:mod:`snapline.blame.file`). With git's own diff that is one ``git diff`` process per
pair: a summary of a history of 1,000 snapshots ran 1,000 of them (the review page went
from 0.7 s to 7.7 s). :func:`prefetched` reads the versions of a group of files first,
diffs every pair in one process (:func:`~snapline.blame.gitdiff.git_hunks_many`) and
answers the walk from what it found, falling back to the line diff it was given for a
pair it did not see. The answer is the same diff, so the same blame.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from snapline.blame.lines import Hunks, is_binary
from snapline.blame.walk import versions
from snapline.errors import SnaplineError
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.store import StoreReader

__all__ = ["Prefetched", "groups", "pairs", "prefetched"]

PAIRS_PER_FILE = 512
"""The newest pairs of a file diffed ahead (a walk of a longer history diffs the rest one
by one): a walk often stops long before a file's first version."""
GROUP_BYTES = 32 << 20
"""About how many bytes of versions a group of files holds at once."""

Pair = tuple[bytes, bytes]


class Prefetched:
    """A line diff that answers the pairs diffed ahead, and asks ``fallback`` for others.

    Args:
        fallback: The line diff for pairs not diffed ahead.
        known: The hunks of each pair diffed ahead.
    """

    def __init__(self, fallback: Hunks, known: dict[Pair, list[tuple[int, int, int, int]]]) -> None:
        self._fallback = fallback
        self._known = known

    def __call__(self, old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
        """The hunks of ``old`` to ``new``, as the fallback would give them."""
        found = self._known.get((old, new))
        return self._fallback(old, new) if found is None else found


def groups(
    store: StoreReader,
    reconstructor: Reconstructor,
    files: Iterable[tuple[str, bytes | None]],
    fallback: Hunks,
) -> Iterator[tuple[list[tuple[str, bytes | None]], Hunks]]:
    """``files`` in groups of about :data:`GROUP_BYTES`, each with its line diff done ahead.

    Read inside one ``store.read()``. With libgit2's diff (no git binary), which runs in
    this process, the files come in one group with ``fallback`` itself.
    """
    from snapline.blame.gitdiff import git_hunks

    if fallback is not git_hunks:
        yield list(files), fallback
        return
    group: list[tuple[str, bytes | None]] = []
    ahead: list[Pair] = []
    size = 0
    for path, disk in files:
        group.append((path, disk))
        found = pairs(store, reconstructor, path, disk)
        ahead.extend(found)
        size += len(disk or b"") + sum(len(old) + len(new) for old, new in found)
        if size >= GROUP_BYTES:
            yield group, prefetched(ahead, fallback)
            group, ahead, size = [], [], 0
    if group:
        yield group, prefetched(ahead, fallback)


def prefetched(known: list[Pair], fallback: Hunks) -> Hunks:
    """A line diff that knows the pairs ``known`` (diffed in one git process) and falls back.

    Raises:
        OSError: If git cannot be run or fails.
    """
    from snapline.blame.gitdiff import git_hunks, git_hunks_many

    if fallback is not git_hunks:
        return fallback  # libgit2's (no git binary), or a test's: nothing to save
    unique = list(dict.fromkeys(pair for pair in known if pair[0] != pair[1]))
    if not unique:
        return fallback
    return Prefetched(fallback, dict(zip(unique, git_hunks_many(unique), strict=True)))


def pairs(
    store: StoreReader,
    reconstructor: Reconstructor,
    path: str,
    disk: bytes | None,
    at: int | None = None,
) -> list[Pair]:
    """The pairs blaming ``path`` diffs: the disk against its version, then back.

    Args:
        store: The history (read inside one ``store.read()``).
        reconstructor: Rebuilds its versions.
        path: The file.
        disk: Its bytes on disk (``None``: no pair).
        at: The snapshot whose version is blamed (default: the latest).

    Returns:
        The pairs (older, newer), newest first; none where the walk cannot start.
    """
    latest = store.snapshots.latest_number() if at is None else at
    if latest is None or disk is None or is_binary(disk):
        return []
    found: list[Pair] = []
    child = disk
    try:
        for row in versions(store, reconstructor, path, latest):
            parent = reconstructor.rebuild(row)
            found.append((parent, child))
            if len(found) > PAIRS_PER_FILE:
                break
            child = parent
    except SnaplineError:
        pass  # not tracked, or a version that cannot be read: the blame itself says so
    return found
