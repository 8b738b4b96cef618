"""The advice for many drifted paths: the first three named, then how many more.

Every surface (status, verify, the writers' refusals, the hooks, the MCP tools) words
another line's merged work with ``merge_advice`` and pulled files with ``Pulled``; a
merge of many files must stay one readable line, never a list of every path.
"""

from __future__ import annotations

from snapline.snapshots.check.merged import merge_advice
from snapline.snapshots.check.unfetched import Pulled

FIVE = ["a.py", "b.py", "c.py", "d.py", "e.py"]


def test_merge_advice_names_three_paths_then_how_many_more() -> None:
    assert merge_advice(FIVE) == (
        "a.py, b.py, c.py and 2 more are another line's recorded work that git merged into "
        "the files; join that line with `snapline merge` (it is no outside change: do not "
        "resync it)"
    )
    assert merge_advice(FIVE[:3], merge="the `merge` tool") == (
        "a.py, b.py, c.py are another line's recorded work that git merged into the files; "
        "join that line with the `merge` tool (it is no outside change: do not resync it)"
    )
    assert merge_advice(FIVE[:1]).startswith("a.py is another line's recorded work")


def test_the_fetch_advice_names_three_paths_then_how_many_more() -> None:
    assert Pulled("upstream", tuple(FIVE)).advice() == (
        "a.py, b.py, c.py and 2 more came with commits git fetched from upstream after the "
        "history was last fetched: bring their snapshots with `snapline fetch upstream` "
        "first (recorded elsewhere, they are no outside change); then, for what still "
        "differs:"
    )
    # A ref of no configured remote reached the commit: `snapline fetch` picks its own.
    assert Pulled(None, tuple(FIVE[:3])).advice() == (
        "a.py, b.py, c.py came with commits git fetched from a remote after the history was "
        "last fetched: bring their snapshots with `snapline fetch` first (recorded "
        "elsewhere, they are no outside change); then, for what still differs:"
    )
