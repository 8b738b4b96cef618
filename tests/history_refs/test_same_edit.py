"""An edit that happens to be another line's version is the editor's, not git's merge.

Found by the git machine on refs (branch ``gitmachine``): a linked work tree edits two
files and records; the main work tree edits the first elsewhere, then writes the second
exactly as the linked one did. Its record was refused ("d.txt is another line's recorded
work that git merged into the files; join that line with `snapline merge`"): git's
merge of the two lines' states is as near to the files as the main line's latest, so the
other line "explained" d.txt. But git merged nothing: the file is neither ``HEAD``'s nor
staged. Only a file git put there is another line's merged work.
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo


def test_an_edit_equal_to_another_line_s_version_is_recorded(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "main", {"a.txt": "1\n2\n3\n4\n5\n6\n", "d.txt": "d\n"})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "w1"))
    linked = Repo(tmp_path / "w1")
    (linked.path / "a.txt").write_text("1\nX\n3\n4\n5\n6\n")
    linked.ok("record", "a.txt")
    (linked.path / "d.txt").write_text("same\n")
    linked.ok("record", "d.txt")

    (main.path / "a.txt").write_text("1\n2\n3\n4\n5\nY\n")
    main.ok("record", "a.txt")
    (main.path / "d.txt").write_text("same\n")
    status = main.snap("status")
    assert "unmerged" not in status.stdout, status.stdout
    recorded = main.snap("record", "d.txt")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert "recorded snapshot 2" in recorded.stdout
    assert main.snap("verify").returncode == 0

    # What git does merge is still the other line's work, for `snapline merge`.
    linked.git("commit", "-q", "-am", "b1")
    main.git("commit", "-q", "-am", "main")
    main.git("merge", "-q", "--no-edit", "b1")
    merged = main.snap("verify")
    assert merged.returncode == 1 and "unmerged       a.txt" in merged.stdout, merged.stdout
    assert "recorded snapshot 3" in main.ok("merge")
    assert main.snap("verify").returncode == 0


def test_an_edit_back_to_head_s_version_is_recorded(tmp_path: Path) -> None:
    """Found by the git machine at 8 programs of 15 steps: ``HEAD`` never moved.

    A linked work tree edits a file and records; the main line records an edit and its
    undoing (a state that holds the linked work tree's checkout again, on a line it has
    not joined). The linked work tree's agent writes the file back as its commit holds it:
    ``HEAD``'s file, and git's index's, but git wrote nothing since the line's last
    snapshot (no commit moved ``HEAD``, nothing staged, no merge waits).
    """
    main = new_repo(tmp_path / "main", {"a.txt": "1\n2\n3\n", "b.txt": "b\n"})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "w1"))
    linked = Repo(tmp_path / "w1")
    (linked.path / "a.txt").write_text("1\nX\n3\n")
    linked.ok("record", "a.txt")
    (main.path / "b.txt").write_text("c\n")
    main.ok("record", "b.txt")
    (main.path / "b.txt").write_text("b\n")
    main.ok("record", "b.txt")

    (linked.path / "a.txt").write_text("1\n2\n3\n")
    status = linked.snap("status")
    assert "unmerged" not in status.stdout and "a.txt" in status.stdout, status.stdout
    recorded = linked.snap("record", "a.txt")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert "recorded snapshot 2" in recorded.stdout
    assert linked.snap("verify").returncode == 0

    # A squash of the main line's work waits for its commit: git staged it.
    (main.path / "b.txt").write_text("d\n")
    main.ok("record", "b.txt")
    main.git("commit", "-q", "-am", "main")
    linked.git("merge", "-q", "--squash", "main")
    waiting = linked.snap("record", "b.txt")
    assert waiting.returncode == 1 and "another line's recorded work" in waiting.stderr, (
        waiting.stdout + waiting.stderr
    )
    # Committed, HEAD moved: still the main line's work, for `snapline merge`.
    linked.git("commit", "-q", "-m", "squash main")
    merged = linked.snap("verify")
    assert merged.returncode == 1 and "unmerged       b.txt" in merged.stdout, merged.stdout
    assert "recorded snapshot 3" in linked.ok("merge")
    assert linked.snap("verify").returncode == 0


def test_after_a_commit_of_recorded_work_an_edit_back_to_head_s_version_is_recorded(
    tmp_path: Path,
) -> None:
    """A commit of the line's own recorded work moves git's ``HEAD``, not another line's.

    The linked work tree records ``a.txt``, commits it, records another edit of it, and
    writes it back as the commit holds it; the main line recorded that same version
    (so a state of a line not joined holds the files). git wrote nothing since the
    commit: the edit is the agent's.
    """
    main = new_repo(tmp_path / "main", {"a.txt": "1\n2\n3\n", "b.txt": "b\n"})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "w1"))
    linked = Repo(tmp_path / "w1")
    (linked.path / "a.txt").write_text("1\nX\n3\n")
    linked.ok("record", "a.txt")
    linked.git("commit", "-q", "-am", "b1")
    (linked.path / "a.txt").write_text("1\nZ\n3\n")
    linked.ok("record", "a.txt")
    (main.path / "a.txt").write_text("1\nX\n3\n")
    main.ok("record", "a.txt")

    (linked.path / "a.txt").write_text("1\nX\n3\n")
    status = linked.snap("status")
    assert "unmerged" not in status.stdout and "a.txt" in status.stdout, status.stdout
    recorded = linked.snap("record", "a.txt")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert "recorded snapshot 3" in recorded.stdout
    assert linked.snap("verify").returncode == 0
