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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes

__all__ = ["MergeCheckError", "Merged", "merge3", "split_lines"]


class MergeCheckError(SnaplineError):
    """A merge's result failed its own check (a bug): nothing built on it is written."""

    exit_code = 3

    def __init__(self, expected: str, actual: str) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"a three-way merge produced {actual}, not the certain {expected}; nothing was "
            "written; report it"
        )


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
        if kind == "conflict":
            conflicts += 1
            continue
        if kind == "theirs":
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
) -> Iterator[tuple[str, Sequence[bytes]]]:
    # bzr's merge3: walk the regions all three share; what lies between them changed on
    # one side, both alike, or both differently.
    iz = ia = ib = 0
    for zstart, zend, astart, aend, bstart, bend in _sync_regions(base, a, b):
        if astart > ia or bstart > ib or zstart > iz:
            a_part, b_part, z_part = a[ia:astart], b[ib:bstart], base[iz:zstart]
            if a_part == b_part:
                yield "same", a_part
            elif a_part == z_part:
                yield "theirs", b_part
            elif b_part == z_part:
                yield "ours", a_part
            else:
                yield "conflict", ()
        if zend > zstart:
            yield "unchanged", base[zstart:zend]
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
    # autojunk off: a line repeated in a long file (a blank line, a brace) is still a
    # line to align on, or the alignment, and with it the merge, would depend on length.
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [(m.a, m.b, m.size) for m in matcher.get_matching_blocks() if m.size]
