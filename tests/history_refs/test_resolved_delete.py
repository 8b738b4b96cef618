"""A modify/delete conflict resolved by hand: `snapline merge` joins the line git merged.

Found by the git machine on refs (branch ``gitmachine``): a linked work tree edits a
file, the main work tree deletes it and edits another, each records and commits; the
linked one merges ``main`` (git: "CONFLICT (modify/delete)") and the person writes the
file anew. ``verify`` called both files drift (``modified``) and ``snapline merge`` said
"nothing to merge": the main line's snapshots, which deleted the file the tree holds,
were no candidate for the merge that explains the files, so the nearest single state
won and nothing was joined. A deletion against a change is a conflict, which a person
may resolve: the nearest merge names that path, and the main line is joined.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo


def test_a_modify_delete_conflict_resolved_by_hand_joins_the_other_line(
    tmp_path: Path,
) -> None:
    main = new_repo(tmp_path / "main", {"a.txt": "a\nb\nc\n", "b.txt": "b\n", "d.txt": "d\n"})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "w1"))
    linked = Repo(tmp_path / "w1")
    (linked.path / "a.txt").write_text("a\nB\nc\n")
    linked.ok("record", "a.txt")
    linked.git("commit", "-q", "-am", "b1 edits a")

    (main.path / "a.txt").unlink()
    main.ok("record", "a.txt")
    (main.path / "b.txt").write_text("bb\n")
    main.ok("record", "b.txt")
    main.git("commit", "-q", "-am", "main deletes a, edits b")

    conflicted = linked.snap("status")  # a reader first: the merge below must not need it
    assert conflicted.returncode == 0, conflicted.stdout + conflicted.stderr
    assert "CONFLICT (modify/delete)" in _merge_main(linked)
    (linked.path / "a.txt").write_text("resolved\n")
    linked.git("add", "-A")
    linked.git("commit", "-q", "-m", "resolve a")

    before = linked.snap("verify")
    assert before.returncode == 1, before.stdout
    # b.txt is the main line's recorded work; a.txt the person's resolution (drift).
    assert "unmerged       b.txt" in before.stdout, before.stdout
    assert "modified       a.txt" in before.stdout, before.stdout
    merged = linked.ok("merge")
    assert "recorded snapshot 2" in merged, merged
    after = linked.snap("verify")
    assert after.returncode == 0, after.stdout
    assert linked.git("status", "--porcelain") == ""


def _merge_main(repo: Repo) -> str:
    """``git merge main`` in ``repo``, which conflicts: what git said."""
    done = subprocess.run(
        [*GIT, "merge", "--no-edit", "main"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stdout
