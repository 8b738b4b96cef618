"""The team: a maintainer and two agents in their own clones, one bare remote, real git.

Each agent records on a line of its own (issue 37, point 5: "Lines stay lines"), so
both pushes of the history go through (each a new ref, fast-forward); the maintainer
merges both pull requests on main (squashed, or rebased), and CI's fresh clone verifies
main's commit as git's merge of the two lines' states, then refuses a hand edit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.history_refs.gitrepo import Repo, new_repo


def _agent(tmp_path: Path, origin: Path, name: str, path: str, text: str) -> Repo:
    """A clone that fetches the history, records an edit of ``path`` and pushes its branch."""
    agent = Repo(tmp_path / name)
    Repo(tmp_path).git("clone", "-q", str(origin), str(agent.path))
    agent.ok("fetch", "origin")
    agent.ok("push", "--install-hook")  # a clone has no hooks of its own
    agent.git("switch", "-q", "-c", name)
    (agent.path / path).write_text(text)
    agent.ok("record", path, "-m", f"{name} edits {path}")
    agent.ok("guard", "--", "true")  # its outcome goes on its own line's checks ref
    agent.git("commit", "-qam", f"{name}: {path}")
    agent.git("push", "-q", "origin", name)  # the pre-push hook carries its line
    return agent


def _lines(repo: Repo) -> set[str]:
    return set(repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split())


def _ci(tmp_path: Path, origin: Path, name: str) -> Repo:
    ci = Repo(tmp_path / name)
    Repo(tmp_path).git("clone", "-q", str(origin), str(ci.path))
    ci.ok("fetch", "origin")
    return ci


@pytest.mark.parametrize(
    ("merging", "published"), [("squash", False), ("rebase", False), ("squash", True)]
)
def test_two_agents_record_push_and_are_merged_and_ci_verifies(
    tmp_path: Path, merging: str, published: bool
) -> None:
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "print('v0')\n", "lib.py": "x = 0\n"})
    if not published:
        maintainer.ok("init")  # installs the pre-push hook
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")
    if published:
        # main is on the remote first: the baseline's commit has it as its parent.
        maintainer.ok("init")
        maintainer.ok("push")
        first = maintainer.git("rev-list", "--first-parent", *_lines(maintainer), "--not", "main")
        parent = maintainer.git("rev-parse", first.split()[-1] + "^@")
        assert parent == maintainer.git("rev-parse", "main")
    origin_repo = Repo(origin)
    assert len(_lines(origin_repo)) == 1

    a = _agent(tmp_path, origin, "a", "app.py", "print('a')\n")
    b = _agent(tmp_path, origin, "b", "lib.py", "x = 'b'\n")
    # Each pushed a line of its own, beside the maintainer's: three lines, none diverged.
    assert len(_lines(origin_repo)) == 3
    checks = origin_repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/checks/")
    assert len(checks.split()) == 2
    assert _lines(a) <= _lines(origin_repo) and _lines(b) <= _lines(origin_repo)
    assert a.ok("log", "--json") != b.ok("log", "--json")

    maintainer.git("fetch", "-q", "origin")
    for name in ("a", "b"):
        if merging == "squash":
            maintainer.git("merge", "-q", "--squash", f"origin/{name}")
            maintainer.git("commit", "-qm", f"merge {name} (squashed)")
        else:
            maintainer.git("switch", "-q", "-c", f"rebased-{name}", f"origin/{name}")
            maintainer.git("rebase", "-q", "main")
            maintainer.git("switch", "-q", "main")
            maintainer.git("merge", "-q", "--ff-only", f"rebased-{name}")
    maintainer.git("push", "-q", "origin", "main")
    changed = maintainer.git("diff", "--name-only", "main~2", "main").split()
    assert changed == ["app.py", "lib.py"]  # code files only: no history in the tree

    ci = _ci(tmp_path, origin, "ci")
    assert ci.git("rev-parse", "HEAD") == maintainer.git("rev-parse", "HEAD")
    verified = ci.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr

    # A hand edit on main that no agent recorded: CI names it.
    (maintainer.path / "lib.py").write_text("x = 'by hand'\n")
    maintainer.git("commit", "-qam", "a hand edit")
    maintainer.git("push", "-q", "origin", "main")
    later = _ci(tmp_path, origin, "ci-later")
    refused = later.snap("verify")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "lib.py" in refused.stdout + refused.stderr
    assert "app.py" not in refused.stdout + refused.stderr


def test_two_work_trees_of_one_repository_record_on_two_lines(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "main", {"app.py": "print('v0')\n", "lib.py": "x = 0\n"})
    main.ok("init")
    (main.path / "app.py").write_text("print('v1')\n")
    main.ok("record", "app.py", "-m", "v1")
    main.ok("milestone", "create", "--title", "main's first")
    main.git("commit", "-qam", "v1")  # the linked work tree checks out snapshot 1's files
    main.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "other")
    linked = Repo(tmp_path / "linked")
    # The linked work tree starts a line of its own from snapshot 1, where it forked;
    # the main work tree's next record stays on the baseline's line.
    (linked.path / "lib.py").write_text("x = 'linked'\n")
    assert linked.ok("record", "lib.py", "-m", "linked edit").startswith("recorded snapshot 2:")
    (main.path / "app.py").write_text("print('v2')\n")
    assert main.ok("record", "app.py", "-m", "v2").startswith("recorded snapshot 2:")
    (linked.path / "lib.py").write_text("x = 'linked again'\n")
    linked.ok("record", "lib.py", "-m", "linked again")
    assert len(_lines(main)) == 2
    # Its milestones go on its own line's ref, numbered on from the fork's (1).
    assert "2" in linked.ok("milestone", "create", "--title", "linked's first", "--json")
    milestones = main.git("for-each-ref", "--format=%(refname)", "refs/snapline/milestones/")
    assert len(milestones.split()) == 2
    # Each index follows its own line: the other's snapshots are not joined.
    assert "linked again" in linked.ok("log")
    assert "v2" not in linked.ok("log")
    assert "linked" not in main.ok("log")
    # The linked work tree's index, built afresh, follows its line through the fork.
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (main.path / ".git/worktrees/linked/snapline" / name).unlink(missing_ok=True)
    rebuilt = linked.ok("log")
    assert "linked again" in rebuilt and "v1" in rebuilt and "v2" not in rebuilt
    assert "linked's first" in linked.ok("milestone", "list")
    assert "main's first" in linked.ok("milestone", "list")
    assert linked.snap("verify").returncode == 0
    assert main.snap("verify").returncode == 0
