"""git's line diff from the git library, for ``blame`` when no git binary is there.

With :mod:`snapline.store.refs.git`, the only module that imports pygit2 (libgit2):
this one has the line diff, which is no part of the refs store, so that the store's
module stays about objects and refs.
"""

from __future__ import annotations

__all__ = ["line_hunks"]


def line_hunks(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    """Git's line diff (xdiff, indent heuristic: blame's): ``@@ -a,b +c,d @@`` per hunk."""
    import pygit2  # here: loading libgit2 costs tens of milliseconds

    flags = pygit2.enums.DiffOption.FORCE_TEXT | pygit2.enums.DiffOption.INDENT_HEURISTIC
    patch = pygit2.Patch.create_from(old, new, context_lines=0, flag=flags)
    return [(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in patch.hunks]
