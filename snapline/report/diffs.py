"""Reading the git-style unified diffs the library renders: counts, binary files, cutting.

The diffs come from ``Workspace.diff``; this module only reads their text. Paths in
``diff --git`` headers are C-quoted by git's rules when they hold a quote, a backslash
or a control character, and are unquoted here to match them with the snapshot's files.
"""

from __future__ import annotations

from dataclasses import dataclass

from snapline.report.model import DiffView

__all__ = ["Budget", "binary_paths", "count_lines", "cut_lines"]

_HEADER = "diff --git "
_UNESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r"}


def count_lines(diff: str) -> tuple[int, int]:
    """Lines added and removed in ``diff``'s hunks (headers are not counted).

    Returns:
        ``(added, removed)``.
    """
    added = removed = 0
    in_hunk = False
    for line in diff.split("\n"):
        if line.startswith(_HEADER):
            in_hunk = False
        elif line.startswith("@@"):
            in_hunk = True
        elif in_hunk:
            if line.startswith("+"):
                added += 1
            elif line.startswith("-"):
                removed += 1
    return added, removed


def binary_paths(diff: str) -> set[str]:
    """The paths whose sections in ``diff`` name the file without showing lines."""
    found: set[str] = set()
    path: str | None = None
    for line in diff.split("\n"):
        if line.startswith(_HEADER):
            path = _header_path(line[len(_HEADER) :])
        elif line.startswith("rename to "):
            path = _unquote(line[len("rename to ") :])
        elif line.startswith("Binary files ") and path is not None:
            found.add(path)
    return found


@dataclass
class Budget:
    """How much diff text a page still has room for.

    Attributes:
        max_lines: Lines shown of one snapshot's diff at most.
        max_line_chars: Characters shown of one line at most (a minified file is one
            enormous line).
        chars_left: Characters of diff the whole page may still hold; once spent, diffs
            are left out and the page says where to read them.
    """

    max_lines: int = 400
    max_line_chars: int = 400
    chars_left: int = 3_000_000


def cut_lines(diff: str, budget: Budget) -> DiffView:
    """The part of ``diff`` a page shows, spending ``budget``.

    Returns:
        The diff's first lines (long ones shortened), or nothing with the reason when the
        page's budget was already spent.
    """
    lines = diff.splitlines(keepends=True)
    total = len(lines)
    if budget.chars_left <= 0 and total:
        return DiffView("", total, 0, omitted="the page's room for diffs was spent")
    shown = []
    shortened = False
    for line in lines[: budget.max_lines]:
        if len(line) > budget.max_line_chars + 1:
            extra = len(line.rstrip("\n")) - budget.max_line_chars
            line = f"{line[: budget.max_line_chars]} [… {extra:,} more characters]\n"
            shortened = True
        shown.append(line)
    text = "".join(shown)
    budget.chars_left -= len(text)
    return DiffView(text, total, len(shown), shortened=shortened)


def _header_path(rest: str) -> str | None:
    """The new path of a ``diff --git a/X b/Y`` header (without its first two words)."""
    if rest.startswith('"'):
        first, end = _quoted(rest)
        tail = rest[end:].lstrip(" ")
        name = _quoted(tail)[0] if tail.startswith('"') else tail
        return name[2:] if name.startswith("b/") else (first[2:] if first else None)
    if rest.endswith('"'):
        start = rest.index(' "')
        name = _quoted(rest[start + 1 :])[0]
        return name[2:] if name.startswith("b/") else None
    # Unquoted, and not a rename (renames are taken from "rename to"): "a/X b/X".
    size = (len(rest) - 5) // 2
    return rest[2 : 2 + size] if size >= 0 else None


def _unquote(name: str) -> str:
    return _quoted(name)[0] if name.startswith('"') else name


def _quoted(text: str) -> tuple[str, int]:
    """Decode the C-quoted string at the start of ``text``; returns it and where it ends."""
    out: list[str] = []
    index = 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return "".join(out), index + 1
        if char == "\\" and index + 1 < len(text):
            nxt = text[index + 1]
            if nxt in "01234567":
                out.append(chr(int(text[index + 1 : index + 4], 8)))
                index += 4
                continue
            out.append(_UNESCAPES.get(nxt, nxt))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out), index
