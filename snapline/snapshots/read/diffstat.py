"""A diff's summary as ``git diff --stat`` prints it: a line per file, then the totals.

The counts are the lines the unified diff adds and removes (:mod:`.unidiff`); the shape
is git's ``show_stats``: names padded to the longest (cut to ``...`` and the tail when
the width runs out), the change count right-aligned, a ``+``/``-`` graph scaled to the
width left (80 columns off a terminal, as git), ``Bin OLD -> NEW bytes`` for a binary
file, ``{old => new}`` for a rename, and git's summary line.
"""

from __future__ import annotations

from dataclasses import dataclass

from snapline.snapshots.read.unidiff import Side, changed_lines, quote_name

__all__ = ["FileStat", "file_stat", "render_stat", "totals"]


@dataclass(frozen=True)
class FileStat:
    """One file's line of a diffstat.

    Attributes:
        path: The file's path (after a rename: its new path).
        old_path: Its path before, for a rename; else None.
        added: Lines added (0 for a binary file).
        removed: Lines removed (0 for a binary file).
        binary: Whether the file is shown as binary (its lines are not counted).
        old_size: A binary file's size before (None: absent or unavailable).
        new_size: A binary file's size after (None: absent or unavailable).
    """

    path: str
    old_path: str | None
    added: int
    removed: int
    binary: bool = False
    old_size: int | None = None
    new_size: int | None = None


def file_stat(old: Side | None, new: Side | None) -> FileStat | None:
    """The diffstat line of one file diff (None when both sides are absent)."""
    side = new if new is not None else old
    if side is None:
        return None
    old_path = old.path if old is not None and new is not None and old.path != new.path else None
    counts = changed_lines(old, new)
    if counts is None:
        return FileStat(
            side.path,
            old_path,
            0,
            0,
            binary=True,
            old_size=_size(old),
            new_size=_size(new),
        )
    return FileStat(side.path, old_path, counts[0], counts[1])


def totals(stats: list[FileStat]) -> tuple[int, int]:
    """Lines added and removed over every file (binary files count no lines)."""
    return sum(s.added for s in stats), sum(s.removed for s in stats)


def render_stat(stats: list[FileStat], width: int = 80) -> str:
    """The diffstat text, as ``git diff --stat`` prints it in ``width`` columns.

    Args:
        stats: The files, in the diff's order.
        width: The columns available (git: the terminal's, else 80).

    Returns:
        The lines, each ending in a newline; ``""`` for no file at all.
    """
    if not stats:
        return ""
    names = [_print_name(s) for s in stats]
    max_len = max(len(name) for name in names)
    max_change = max((s.added + s.removed for s in stats if not s.binary), default=0)
    bin_width, number_width = 0, 0
    for s in stats:
        if s.binary:
            # "Bin XXX -> YYY bytes"
            bin_width = max(bin_width, 14 + len(_bytes(s.new_size)) + len(_bytes(s.old_size)))
            number_width = 3
    number_width = max(len(str(max_change)), number_width)
    width = max(width, 16 + 6 + number_width)
    graph_width = max_change if max_change + 4 > bin_width else bin_width - 4
    name_width = max_len
    if name_width + number_width + 6 + graph_width > width:
        if graph_width > width * 3 // 8 - number_width - 6:
            graph_width = max(width * 3 // 8 - number_width - 6, 6)
        if name_width > width - number_width - 6 - graph_width:
            name_width = width - number_width - 6 - graph_width
        else:
            graph_width = width - number_width - 6 - name_width
    lines = [
        _line(s, name, name_width, number_width, graph_width, max_change)
        for s, name in zip(stats, names, strict=True)
    ]
    added, removed = totals(stats)
    return "".join(lines) + _summary(len(stats), added, removed)


def _line(
    s: FileStat, name: str, name_width: int, number_width: int, graph_width: int, max_change: int
) -> str:
    prefix = ""
    length = name_width
    if name_width < len(name):
        prefix = "..."
        length = max(length - 3, 0)
        name = name[len(name) - length :] if length else ""
        slash = name.find("/")
        if slash >= 0:
            name = name[slash:]
    padding = " " * max(length - len(name), 0)
    head = f" {prefix}{name}{padding} | "
    if s.binary:
        if not s.old_size and not s.new_size:
            return f"{head}{'Bin':>{number_width}}\n"
        return f"{head}{'Bin':>{number_width}} {_bytes(s.old_size)} -> {_bytes(s.new_size)} bytes\n"
    add, remove = s.added, s.removed
    if graph_width <= max_change:
        total = _scale(add + remove, graph_width, max_change)
        if total < 2 and add and remove:
            total = 2
        if add < remove:
            add = _scale(add, graph_width, max_change)
            remove = total - add
        else:
            remove = _scale(remove, graph_width, max_change)
            add = total - remove
    change = s.added + s.removed
    return f"{head}{change:>{number_width}}{' ' if change else ''}{'+' * add}{'-' * remove}\n"


def _scale(it: int, width: int, max_change: int) -> int:
    # git: at least one sign for any change, as if the width were one column shorter.
    return 0 if not it else 1 + (it * (width - 1) // max_change)


def _summary(files: int, added: int, removed: int) -> str:
    text = f" {files} file{'' if files == 1 else 's'} changed"
    if added or not removed:
        text += f", {added} insertion{'' if added == 1 else 's'}(+)"
    if removed or not added:
        text += f", {removed} deletion{'' if removed == 1 else 's'}(-)"
    return text + "\n"


def _print_name(s: FileStat) -> str:
    if s.old_path is None:
        return quote_name(s.path)
    return _rename(s.old_path, s.path)


def _rename(a: str, b: str) -> str:
    """A rename as git's ``pprint_rename`` writes it: ``{old => new}`` inside what is shared."""
    qa, qb = quote_name(a), quote_name(b)
    if qa != a or qb != b:
        return f"{qa} => {qb}"
    prefix = 0
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            break
        if x == "/":
            prefix = index + 1
    adjust = 1 if prefix else 0
    i, j, suffix = len(a) - 1, len(b) - 1, 0
    while i >= prefix - adjust and j >= prefix - adjust and i >= 0 and j >= 0 and a[i] == b[j]:
        if a[i] == "/":
            suffix = len(a) - i
        i -= 1
        j -= 1
    a_mid = max(len(a) - prefix - suffix, 0)
    b_mid = max(len(b) - prefix - suffix, 0)
    middle = f"{a[prefix : prefix + a_mid]} => {b[prefix : prefix + b_mid]}"
    if prefix + suffix:
        return f"{a[:prefix]}{{{middle}}}{a[len(a) - suffix :]}"
    return middle


def _bytes(size: int | None) -> str:
    return "0" if size is None else str(size)


def _size(side: Side | None) -> int | None:
    return None if side is None or side.content is None else len(side.content)
