"""A linked work tree that read the history before its first write stays on its snapshot.

Found by the git machine on refs (branch ``gitmachine``): ``git worktree add`` at the
main line's tip, a ``snapline status`` there (its index is built, following the main
line at the snapshot its checkout is), then the main work tree records and commits. The
linked work tree's index took the main work tree's later snapshot as its own: ``status``
called the main work tree's edit drift there (``modified``), its next record claimed that
edit as its base, and after ``git merge main`` there was "nothing to merge". A linked
work tree pins at the snapshot its checkout is, at the tip as behind it
(``store/refs/pinning.py``), so other work trees' later snapshots stay out of its index.
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo


def test_a_linked_work_tree_that_read_first_joins_the_main_line_s_later_work(
    tmp_path: Path,
) -> None:
    main = new_repo(tmp_path / "main", {"a.txt": "a\n", "b.txt": "b\n"})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "w1"))
    linked = Repo(tmp_path / "w1")
    assert "in sync" in linked.ok("status")  # its index is built here, at snapshot 0

    (main.path / "a.txt").write_text("a\nx\n")
    main.ok("record", "a.txt")
    main.git("commit", "-q", "-am", "main edits a")

    # The main work tree's snapshot is not this work tree's: no drift here.
    assert "in sync" in linked.ok("status")
    (linked.path / "b.txt").write_text("b\ny\n")
    linked.ok("record", "b.txt")
    linked.git("commit", "-q", "-am", "w1 edits b")
    linked.git("merge", "-q", "--no-edit", "main")

    merged = linked.snap("verify")
    assert merged.returncode == 1 and "unmerged" in merged.stdout, merged.stdout
    assert "a.txt" in merged.stdout
    assert "recorded snapshot" in linked.ok("merge")
    assert linked.snap("verify").returncode == 0
