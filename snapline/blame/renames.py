"""Where ``git blame`` looks for a file a snapshot added: git's own rename detection.

``git blame`` follows a file across a commit that does not hold its path before: it
runs git's rename detection for that one path (``find_rename``, diffcore-rename with
``single_follow``) against every file the commit removed. So a move recorded as a
deletion and an addition (a shell ``mv`` and an edit) is followed when git would
pair the two files, and not otherwise. This is a port of that decision, so that
``snapline blame`` agrees with ``git blame`` on a repository holding one commit per
snapshot (tests/blame/ hold it to real git):

1. an exact match (the same content; a symlink only with a symlink) wins, one with
   the same base name first, then the first by path;
2. else the only removed file with the same base name, if at least 75% similar;
3. else the most similar removed file, if at least 50% similar (ties: the same base
   name first, then the first by path).

Similarity is git's estimate (diffcore-delta): both files cut into chunks ending at a
newline or after 64 bytes (a CR before a newline skipped in text), each chunk hashed,
and the bytes the chunks share counted against the larger file's size.
"""

from __future__ import annotations

import stat
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from snapline.blame.lines import is_binary

__all__ = ["MAX_SCORE", "Candidate", "choose_source", "similarity"]

MAX_SCORE = 60000
_MINIMUM = 30000  # git's default rename score: 50%
_BASENAME_MINIMUM = _MINIMUM + (MAX_SCORE - _MINIMUM) // 2  # 75%, git's basename step
_HASHBASE = 107927
_MASK = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file the snapshot removed, as it was before it.

    Attributes:
        path: Its path then.
        mode: Its mode then.
        hash: Its content hash then.
        size: Its size then, when known (to rule it out without reading it).
    """

    path: str
    mode: int
    hash: str
    size: int | None = None


def _chunks(data: bytes) -> Counter[int]:
    """Bytes per chunk hash, as git's ``hash_chars`` counts them (a last partial chunk left out)."""
    counts: Counter[int] = Counter()
    text = not is_binary(data)
    accum1 = accum2 = n = 0
    size = len(data)
    for at, c in enumerate(data):
        if text and c == 13 and at + 1 < size and data[at + 1] == 10:
            continue
        old1 = accum1
        accum1 = ((((accum1 << 7) & _MASK) ^ (accum2 >> 25)) + c) & _MASK
        accum2 = ((accum2 << 7) & _MASK) ^ (old1 >> 25)
        n += 1
        if n < 64 and c != 10:
            continue
        counts[((accum1 + accum2 * 0x61) & _MASK) % _HASHBASE] += n
        n = accum1 = accum2 = 0
    return counts


def similarity(src: bytes, dst: bytes, minimum: int = _MINIMUM) -> int:
    """How similar git finds ``dst`` to ``src`` (0 to 60000); 0 when their sizes rule it out."""
    return _score(src, dst, _chunks(dst), minimum)


def _ruled_out(src_size: int, dst_size: int, minimum: int) -> bool:
    """Whether the sizes alone differ too much for ``minimum`` (git checks them first)."""
    large, small = max(src_size, dst_size), min(src_size, dst_size)
    return large * (MAX_SCORE - minimum) < (large - small) * MAX_SCORE or not dst_size


def _score(src: bytes, dst: bytes, ours: Counter[int], minimum: int) -> int:
    if _ruled_out(len(src), len(dst), minimum):
        return 0
    theirs = _chunks(src)
    copied = sum(min(count, ours[key]) for key, count in theirs.items() if key in ours)
    return copied * MAX_SCORE // max(len(src), len(dst))


def _same_basename(a: str, b: str) -> bool:
    return a.rsplit("/", 1)[-1] == b.rsplit("/", 1)[-1]


def _order(candidate: Candidate) -> bytes:
    return candidate.path.encode("utf-8", "surrogateescape")  # git compares paths as bytes


def choose_source(
    path: str,
    mode: int,
    hash_: str,
    content: bytes,
    removed: Sequence[Candidate],
    load: Callable[[Candidate], bytes | None],
) -> str | None:
    """The removed file ``git blame`` would follow the added file ``path`` to, if any.

    Args:
        path: The added file.
        mode: Its mode.
        hash_: Its content hash.
        content: Its bytes.
        removed: The files the same snapshot removed (deleted, or moved away).
        load: The bytes of a removed file (``None``: not rebuildable, so never similar);
            called only when no exact match settles it.

    Returns:
        The path of the file git would call its origin, or ``None``: the file starts here.
    """
    ordered = sorted((c for c in removed if c.path != path), key=_order)
    exact = [
        c
        for c in ordered
        if c.hash == hash_ and (c.mode == mode or (stat.S_ISREG(c.mode) and stat.S_ISREG(mode)))
    ]
    if exact:
        return next((c.path for c in exact if _same_basename(c.path, path)), exact[0].path)
    if not stat.S_ISREG(mode):
        return None
    ours = _chunks(content)

    def score(candidate: Candidate, minimum: int) -> int:
        # Only regular files are compared; the sizes are checked before the bytes are read.
        if not stat.S_ISREG(candidate.mode):
            return 0
        if candidate.size is not None and _ruled_out(candidate.size, len(content), minimum):
            return 0
        data = load(candidate)
        return 0 if data is None else _score(data, content, ours, minimum)

    # git's basename step: the one removed file with this name (unique among them all).
    named = [c for c in ordered if _same_basename(c.path, path)]
    if len(named) == 1 and score(named[0], _BASENAME_MINIMUM) >= _BASENAME_MINIMUM:
        return named[0].path
    best: tuple[int, bool] | None = None
    chosen = None
    for candidate in ordered:
        found = (score(candidate, _MINIMUM), _same_basename(candidate.path, path))
        if best is None or found > best:
            best, chosen = found, candidate.path
    if best is None or best[0] < _MINIMUM:
        return None
    return chosen
