r"""Lines as git's blame sees them, and how the lines of one version carry into the next.

A line is its bytes up to and including ``\n`` (a ``\r`` before it belongs to the line,
as in a CRLF file; a last line without one is a line of its own, different from the same
text with it). Which lines of a version come from its parent is read off a line diff
that is git's own (:mod:`snapline.blame.gitdiff`: xdiff's Myers with the indent
heuristic, as ``git blame`` runs it), so where a change is ambiguous (a block inserted
between two equal ones) the line blamed is the one git blames.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["BINARY_PROBE", "Hunks", "carried", "is_binary", "split_lines"]

BINARY_PROBE = 8000
"""How many leading bytes are looked at for a NUL, as git's ``buffer_is_binary`` does."""

Hunks = Callable[[bytes, bytes], list[tuple[int, int, int, int]]]
"""A line diff: ``(old_start, old_lines, new_start, new_lines)`` per hunk, as ``@@`` says."""


def split_lines(data: bytes) -> list[bytes]:
    r"""The lines of ``data``, each with its ``\n`` (the last one may have none)."""
    if not data:
        return []
    lines = data.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def is_binary(data: bytes) -> bool:
    """Whether git would call ``data`` binary: a NUL among its first 8000 bytes."""
    return b"\0" in data[:BINARY_PROBE]


def carried(parent: bytes, child: bytes, hunks: Hunks, child_count: int) -> list[int | None]:
    """For each line of ``child``, the line of ``parent`` it is (0-based), or ``None`` if new.

    Args:
        parent: The version before.
        child: The version after.
        hunks: The line diff to read the changes from.
        child_count: How many lines ``child`` has (:func:`split_lines`).

    Returns:
        One entry per line of ``child``: its parent line, or ``None`` when the diff
        shows it added or changed (the child is where it was written).
    """
    mapping: list[int | None] = []
    old = 0
    for old_start, old_lines, new_start, new_lines in hunks(parent, child):
        # An empty side of a hunk names the line before the change, not the first of it.
        new_first = new_start - 1 if new_lines else new_start
        old_first = old_start - 1 if old_lines else old_start
        while len(mapping) < new_first:
            mapping.append(old)
            old += 1
        mapping.extend([None] * new_lines)
        old = old_first + old_lines
    while len(mapping) < child_count:
        mapping.append(old)
        old += 1
    return mapping
