"""Where a history on git's refs is found, and where each work tree keeps its local state.

The refs are the repository's (shared by its work trees, brought by a fetch); the local
state is each work tree's own, under its git directory. A work tree without a history
says, in one line, the two ways on.
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo


def _lines(repo: Repo) -> list[str]:
    return repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()


def test_a_linked_work_tree_keeps_its_own_local_state(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "main", {"a.txt": "a\n"})
    main.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "other")
    linked = Repo(tmp_path / "linked")
    linked.ok("init")
    own = main.path / ".git" / "worktrees" / "linked" / "snapline"
    assert (own / "index.db").is_file()
    assert not (main.path / ".git" / "snapline").exists()
    assert linked.files() == {"a.txt", ".git"}  # a linked work tree's .git is a file
    assert linked.git("status", "--porcelain", "--ignored") == ""
    # The line is the repository's: the main work tree sees it, and builds its own index.
    assert len(_lines(main)) == 1
    assert "in sync" in main.ok("status")
    assert (main.path / ".git" / "snapline" / "index.db").is_file()
    assert main.git("status", "--porcelain", "--ignored") == ""


def test_a_clone_says_how_to_get_the_history_then_builds_its_index_from_the_refs(
    tmp_path: Path,
) -> None:
    origin = new_repo(tmp_path / "origin", {"a.txt": "a\n"})
    origin.ok("init")
    (origin.path / "a.txt").write_text("a, edited\n")
    origin.ok("record", "a.txt", "-m", "edit")
    origin.git("commit", "-qam", "edit")
    clone = Repo(tmp_path / "clone")
    origin.git("clone", "-q", str(origin.path), str(clone.path))

    missing = clone.snap("status")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.count("\n") == 1
    assert "`snapline fetch`" in missing.stderr and "`snapline init`" in missing.stderr
    assert "in sync" not in missing.stderr

    clone.git("fetch", "-q", "origin", "refs/snapline/*:refs/snapline/*")
    log = clone.ok("log")
    assert "edit" in log and "baseline" in log
    assert "ok: snapshots 0..1 verified" in clone.ok("verify")
    assert (clone.path / ".git" / "snapline" / "index.db").is_file()
    assert clone.git("status", "--porcelain", "--ignored") == ""
    # init on a history that is there already is refused, the history kept.
    again = clone.snap("init")
    assert again.returncode == 2 and "already has a snapline store" in again.stderr
    assert _lines(clone) == _lines(origin)


def test_below_a_work_tree_top_the_store_is_a_private_repository(tmp_path: Path) -> None:
    # Below a work tree's top: the private repository (issue 37.7), never the work tree's.
    repo = new_repo(tmp_path / "repo", {"sub/a.txt": "a\n", "b.txt": "b\n"})
    below = Repo(repo.path / "sub")
    below.ok("init")
    assert (below.path / ".snapline" / "repo" / "HEAD").is_file()
    assert not (below.path / ".snapline" / "ledger").exists()
    assert not (repo.path / ".git" / "snapline").exists() and _lines(repo) == []
    assert repo.git("status", "--porcelain") == ""  # .snapline/ ignored, nothing to commit
