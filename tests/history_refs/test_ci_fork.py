"""Issue 37, points 3 and 4, through the real command line: a fork's pull request and merge commits.

tests/travel/test_ci.py follows docs/ci.md's fork steps but never runs `verify` (its
snapshots are written with the store's writer, and the contributor's commit is a hand
edit); tests/history_refs/test_team.py verifies squash and rebase merges in CI but not
merge commits (those are checked only in-process, tests/store/refs/test_explain.py).
Here, with real git, bare remotes and the `snapline` script:

1. a contributor forks upstream, fetches the history from upstream, records on a branch
   and pushes branch and line to the fork; upstream's maintainer records in parallel. CI
   checks out GitHub's `refs/pull/N/merge` (a merge commit of main and the PR head), does
   docs/ci.md's two fetches (origin, then the fork's URL) and `verify` exits 0; without
   the fork's fetch it exits 1 naming the contributor's file.
2. two agents' pull requests merged with merge commits (`git merge --no-ff`): CI's fresh
   clone verifies main with exit 0 and no `snapline merge`.

CI's first fetch comes after git's (the checkout, then `snapline fetch`): its
`unexplained` advice is the resync, not a fetch (tests/history_refs/test_history_missing.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo
from tests.history_refs.test_team import _agent, _ci


def test_a_fork_s_pull_request_merge_commit_verifies_after_docs_ci_fetches(
    tmp_path: Path,
) -> None:
    origin = tmp_path / "upstream.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "print('v0')\n", "lib.py": "x = 0\n"})
    maintainer.ok("init")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")  # the hook carries the history
    # GitHub's fork: the branches, none of upstream's refs/snapline/.
    fork = tmp_path / "fork.git"
    Repo(tmp_path).git("clone", "-q", "--bare", str(origin), str(fork))
    assert Repo(fork).git("for-each-ref", "refs/snapline/") == ""

    contributor = Repo(tmp_path / "contributor")
    Repo(tmp_path).git("clone", "-q", str(fork), str(contributor.path))
    contributor.git("remote", "add", "upstream", str(origin))
    contributor.ok("fetch", "upstream")
    contributor.ok("push", "--install-hook")
    contributor.git("switch", "-q", "-c", "feature")
    (contributor.path / "lib.py").write_text("x = 'contributed'\n")
    contributor.ok("record", "lib.py", "-m", "the contribution")
    contributor.git("commit", "-qam", "contribution")
    contributor.git("push", "-q", "origin", "feature")  # to the fork, with its line
    assert Repo(fork).git("for-each-ref", "refs/snapline/lines/") != ""

    # Upstream moves on in parallel, recorded.
    (maintainer.path / "app.py").write_text("print('v1')\n")
    maintainer.ok("record", "app.py", "-m", "v1")
    maintainer.git("commit", "-qam", "v1")
    maintainer.git("push", "-q", "origin", "main")

    # CI: upstream checked out, the PR head fetched from the fork, GitHub's merge commit.
    ci = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", str(origin), str(ci.path))
    ci.git("fetch", "-q", f"file://{fork}", "feature")
    ci.git(
        "-c", "user.name=GitHub", "-c", "user.email=gh@example.invalid",
        "merge", "-q", "--no-ff", "-m", "Merge pull request #1", "FETCH_HEAD",
    )  # fmt: skip
    assert len(ci.git("rev-parse", "HEAD^@").split()) == 2
    ci.ok("fetch", "origin")
    without = ci.snap("verify")
    assert without.returncode == 1, without.stdout + without.stderr
    assert "lib.py" in without.stdout + without.stderr
    assert "app.py" not in without.stdout + without.stderr
    ci.ok("fetch", f"file://{fork}")
    verified = ci.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert ci.git("status", "--porcelain", "--ignored") == ""


def test_two_agents_merged_with_merge_commits_verify_in_ci(tmp_path: Path) -> None:
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "print('v0')\n", "lib.py": "x = 0\n"})
    maintainer.ok("init")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")
    _agent(tmp_path, origin, "a", "app.py", "print('a')\n")
    _agent(tmp_path, origin, "b", "lib.py", "x = 'b'\n")
    maintainer.git("fetch", "-q", "origin")
    for name in ("a", "b"):
        maintainer.git(
            "merge", "-q", "--no-ff", "-m", f"Merge pull request {name}", f"origin/{name}"
        )
    maintainer.git("push", "-q", "origin", "main")
    assert maintainer.git("diff", "--name-only", "main~2", "main").split() == ["app.py", "lib.py"]
    ci = _ci(tmp_path, origin, "ci")
    verified = ci.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "git's clean merge of" in verified.stdout
    # No snapline merge, no extra commit: main is the two merge commits on the start.
    assert maintainer.git("rev-list", "--count", "main").strip() == "5"
