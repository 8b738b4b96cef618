"""An exact, line-based three-way merge (diff3), for taking one snapshot's change out.

``git revert N`` is a three-way merge: the common ancestor is the version N produced,
"ours" is today's file, "theirs" is the version before N. Each side is aligned with the
ancestor by position (a longest-matching-block line diff), so N's change is found where
N made it, never at a look-alike block elsewhere. Between the lines all three share,
a region changed on one side only takes that side; changed identically on both, either;
changed differently on both, it is a conflict, and nothing is guessed.

Lines keep their endings (only a line feed ends a line; a carriage return stays part of
its line), so the result is byte-exact. The merge checks its own result where the answer
is known (a side equal to the ancestor means the result is the other side) by hash,
before anyone writes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import Enum, auto

from snapline.diffing import increasing_run
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes

__all__ = ["MergeCheckError", "Merged", "merge3", "split_lines"]

# Lines on one side times lines on the other that a gap between anchors may have to be
# aligned by the (quadratic at worst) longest-matching-block diff.
_GAP_LIMIT = 1_000_000


class MergeCheckError(SnaplineError):
    """A merge's result failed its own check (a bug): nothing built on it is written."""

    exit_code = 3
    expected: str
    actual: str

    def _message(self) -> str:
        return (
            f"a three-way merge produced {self.actual}, not the certain {self.expected}; "
            "nothing was written; report it"
        )


class _Region(Enum):
    """What happened to one stretch of lines between the lines all three share."""

    UNCHANGED = auto()  # the lines all three share
    SAME = auto()  # changed alike on both sides
    OURS = auto()  # changed on our side only
    THEIRS = auto()  # changed on their side only: taken
    CONFLICT = auto()  # changed differently on both sides


@dataclass(frozen=True)
class Merged:
    """The outcome of :func:`merge3`.

    Attributes:
        content: The merged bytes (``None`` when any region conflicts).
        conflicts: How many regions changed differently on both sides.
        taken: How many regions changed on the ``theirs`` side only were taken.
    """

    content: bytes | None
    conflicts: int
    taken: int


def split_lines(data: bytes) -> list[bytes]:
    """``data`` as lines that keep their line feed (the last may lack one); joined, ``data``."""
    lines = data.split(b"\n")
    result = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1])
    return result


def merge3(base: bytes, ours: bytes, theirs: bytes) -> Merged:
    """Merge the change ``base`` -> ``theirs`` into ``ours``, line by line.

    Args:
        base: The common ancestor.
        ours: One side (for a revert: today's content).
        theirs: The other side (for a revert: the version before the snapshot).

    Returns:
        The merged content, or ``None`` as content with the number of conflicts.

    Raises:
        MergeCheckError: If the result is not what a trivial merge must give.
    """
    a_lines, z_lines, b_lines = split_lines(ours), split_lines(base), split_lines(theirs)
    out: list[bytes] = []
    conflicts = taken = 0
    for kind, lines in _regions(z_lines, a_lines, b_lines):
        if kind is _Region.CONFLICT:
            conflicts += 1
            continue
        if kind is _Region.THEIRS:
            taken += 1
        out.extend(lines)
    if conflicts:
        return Merged(None, conflicts, taken)
    result = b"".join(out)
    _check(base, ours, theirs, result)
    return Merged(result, 0, taken)


def _check(base: bytes, ours: bytes, theirs: bytes, result: bytes) -> None:
    certain = theirs if ours == base else ours if theirs in (base, ours) else None
    if certain is not None and hash_bytes(result) != hash_bytes(certain):
        raise MergeCheckError(hash_bytes(certain), hash_bytes(result))


def _regions(
    base: Sequence[bytes], a: Sequence[bytes], b: Sequence[bytes]
) -> Iterator[tuple[_Region, Sequence[bytes]]]:
    # bzr's merge3: walk the regions all three share; what lies between them changed on
    # one side, both alike, or both differently.
    iz = ia = ib = 0
    for zstart, zend, astart, aend, bstart, bend in _sync_regions(base, a, b):
        if astart > ia or bstart > ib or zstart > iz:
            a_part, b_part, z_part = a[ia:astart], b[ib:bstart], base[iz:zstart]
            if a_part == b_part:
                yield _Region.SAME, a_part
            elif a_part == z_part:
                yield _Region.THEIRS, b_part
            elif b_part == z_part:
                yield _Region.OURS, a_part
            else:
                yield _Region.CONFLICT, ()
        if zend > zstart:
            yield _Region.UNCHANGED, base[zstart:zend]
        iz, ia, ib = zend, aend, bend


def _sync_regions(
    base: Sequence[bytes], a: Sequence[bytes], b: Sequence[bytes]
) -> list[tuple[int, int, int, int, int, int]]:
    a_blocks = _matching_blocks(base, a)
    b_blocks = _matching_blocks(base, b)
    regions = []
    ia = ib = 0
    while ia < len(a_blocks) and ib < len(b_blocks):
        a_base, a_other, a_len = a_blocks[ia]
        b_base, b_other, b_len = b_blocks[ib]
        start = max(a_base, b_base)
        end = min(a_base + a_len, b_base + b_len)
        if start < end:
            a_start = a_other + (start - a_base)
            b_start = b_other + (start - b_base)
            regions.append(
                (start, end, a_start, a_start + end - start, b_start, b_start + end - start)
            )
        if a_base + a_len < b_base + b_len:
            ia += 1
        else:
            ib += 1
    regions.append((len(base), len(base), len(a), len(a), len(b), len(b)))
    return regions


def _matching_blocks(base: Sequence[bytes], other: Sequence[bytes]) -> list[tuple[int, int, int]]:
    """Equal runs of lines, in order on both sides: ``(base index, other index, length)``.

    Patience-style, as ``git diff --patience``: the common head and tail first, then
    lines that occur once on each side as anchors (their longest run in the same order),
    and a longest-matching-block diff only inside the gaps between anchors. A gap too
    large for that is left unmatched: exact, and at worst a conflict, never a guess.
    """
    head = 0
    limit = min(len(base), len(other))
    while head < limit and base[head] == other[head]:
        head += 1
    tail = 0
    while tail < limit - head and base[-1 - tail] == other[-1 - tail]:
        tail += 1
    a, b = base[head : len(base) - tail], other[head : len(other) - tail]
    blocks = [(0, 0, head)] if head else []
    i0 = j0 = 0
    for i, j in [*_anchors(a, b), (len(a), len(b))]:
        blocks += [(x + i0 + head, y + j0 + head, n) for x, y, n in _gap_blocks(a[i0:i], b[j0:j])]
        if i < len(a):
            blocks.append((i + head, j + head, 1))
        i0, j0 = i + 1, j + 1
    if tail:
        blocks.append((len(base) - tail, len(other) - tail, tail))
    return blocks


def _anchors(a: Sequence[bytes], b: Sequence[bytes]) -> list[tuple[int, int]]:
    count_a = Counter(a)
    count_b = Counter(b)
    where_b = {line: j for j, line in enumerate(b) if count_b[line] == 1}
    pairs = [(i, where_b[x]) for i, x in enumerate(a) if count_a[x] == 1 and x in where_b]
    return increasing_run(pairs)


def _gap_blocks(a: Sequence[bytes], b: Sequence[bytes]) -> list[tuple[int, int, int]]:
    if not a or not b or len(a) * len(b) > _GAP_LIMIT:
        return []
    # autojunk off: a line repeated in a long file (a blank line, a brace) is still a
    # line to align on, or the alignment, and with it the merge, would depend on length.
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return [(m.a, m.b, m.size) for m in matcher.get_matching_blocks() if m.size]
