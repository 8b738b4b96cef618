"""Reading unified diffs: line counts, binary sections (quoted names too), cutting."""

from __future__ import annotations

from snapline import Workspace
from snapline.report.diffs import Budget, binary_paths, count_lines, cut_lines

_DIFF = (
    "diff --git a/x.py b/x.py\n"
    "index 1..2 100644\n"
    "--- a/x.py\n"
    "+++ b/x.py\n"
    "@@ -1,3 +1,3 @@\n"
    " keep\n"
    "--- a removed line that looks like a header\n"
    "+++ an added line that looks like a header\n"
    "-gone\n"
    "diff --git a/logo.png b/logo.png\n"
    "new file mode 100644\n"
    "Binary files /dev/null and b/logo.png differ\n"
)


def test_count_lines_counts_only_inside_hunks() -> None:
    assert count_lines(_DIFF) == (1, 2)
    assert count_lines("") == (0, 0)


def test_binary_paths_plain_and_renamed() -> None:
    assert binary_paths(_DIFF) == {"logo.png"}
    renamed = (
        "diff --git a/old name.bin b/new name.bin\n"
        "rename from old name.bin\n"
        "rename to new name.bin\n"
        "Binary files a/old name.bin and b/new name.bin differ\n"
    )
    assert binary_paths(renamed) == {"new name.bin"}


def test_binary_paths_with_names_git_quotes(ws: Workspace) -> None:
    names = ['quote"d.bin', "tab\there.bin", "a b.bin", "new\nline.bin"]
    for name in names:
        ws.write_file(name, b"\x00\x01binary")
    diff = ws.diff(0)

    assert '"b/quote\\"d.bin"' in diff  # the library quoted them, as git does
    assert binary_paths(diff) == set(names)


def test_cut_lines_keeps_short_diffs_whole_and_spends_the_budget() -> None:
    budget = Budget(max_lines=400, max_line_chars=400, chars_left=10_000)
    view = cut_lines(_DIFF, budget)

    assert view.text == _DIFF
    assert (view.total_lines, view.shown_lines, view.cut) == (12, 12, False)
    assert budget.chars_left == 10_000 - len(_DIFF)


def test_cut_lines_cuts_long_diffs_and_long_lines() -> None:
    budget = Budget(max_lines=3, max_line_chars=10)
    view = cut_lines(_DIFF, budget)

    assert view.text.splitlines() == [
        "diff --git [… 14 more characters]",
        "index 1..2 [… 7 more characters]",
        "--- a/x.py",
    ]
    assert (view.total_lines, view.shown_lines, view.shortened, view.cut) == (12, 3, True, True)


def test_cut_lines_leaves_out_diffs_once_the_budget_is_spent() -> None:
    budget = Budget(chars_left=0)
    view = cut_lines(_DIFF, budget)

    assert view.text == ""
    assert view.omitted is not None
    assert view.cut
    assert cut_lines("", budget).omitted is None
