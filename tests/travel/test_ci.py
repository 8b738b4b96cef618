"""The CI steps of docs/ci.md, followed as written: a shallow checkout, one fetch, a fork."""

from __future__ import annotations

from pathlib import Path

from snapline.store.refs.layout import line_ref
from tests.store.refs.lines import git
from tests.travel.repos import bare, clone, history, refs, run, snapline, work


def test_a_fork_s_pull_request_is_checked_with_both_histories(tmp_path: Path) -> None:
    # Upstream: the project and its history.
    root = work(tmp_path / "maintainer")
    upstream = bare(tmp_path / "upstream.git")
    git(root, "remote", "add", "origin", str(upstream))
    assert snapline(root, "push", "--install-hook").exit_code == 0
    theirs = history(root)
    assert run(root, "push", "origin", "main").returncode == 0
    # A contributor forks it, records on a branch, and pushes the branch to the fork.
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(upstream), str(fork))
    mine = clone(fork, tmp_path / "contributor")
    assert snapline(mine, "push", "--install-hook").exit_code == 0
    git(mine, "switch", "-q", "-c", "feature")
    own = history(mine)
    (mine / "src/app.py").write_bytes(b"x = 2\n")
    git(mine, "commit", "-q", "-am", "feature")
    assert run(mine, "push", "origin", "feature").returncode == 0
    assert line_ref(str(own.line)) in refs(fork)
    assert line_ref(str(own.line)) not in refs(upstream)

    # CI: the base repository checked out at depth 1, the pull request's commit fetched
    # (as GitHub's refs/pull/N/merge), then the two fetches of docs/ci.md.
    ci = clone(upstream, tmp_path / "ci", "--depth", "1")
    git(ci, "fetch", "-q", "--depth", "1", f"file://{fork}", "feature")
    git(ci, "checkout", "-q", "FETCH_HEAD")
    assert snapline(ci, "fetch", "origin").exit_code == 0
    fetched = snapline(ci, "fetch", f"file://{fork}")
    assert fetched.exit_code == 0, fetched.stderr
    # (A fork holds the branches it was made from, not upstream's history refs.)
    assert fetched.stdout == f"fetched 1 history ref from file://{fork}\n"
    assert set(refs(ci).splitlines()) == {*refs(root).splitlines(), *refs(mine).splitlines()}
    assert line_ref(str(theirs.line)) in refs(ci)
    assert git(ci, "status", "--porcelain") == ""

    # The plain git step the page gives instead gets the same refs from origin.
    plain = clone(upstream, tmp_path / "plain", "--depth", "1")
    git(
        plain,
        "fetch",
        "-q",
        "--no-tags",
        "--shallow-exclude=HEAD",
        "origin",
        "refs/snapline/*:refs/snapline/*",
    )
    other = clone(upstream, tmp_path / "other", "--depth", "1")
    assert snapline(other, "fetch").exit_code == 0
    assert refs(plain) == refs(other) == refs(upstream)


def test_a_remote_without_history_and_a_repository_without_any(tmp_path: Path) -> None:
    root = work(tmp_path / "work")
    remote = bare(tmp_path / "remote.git")
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "origin", "main")
    fetched = snapline(root, "fetch")
    assert (fetched.exit_code, fetched.stdout) == (
        0,
        "fetched 0 history refs from origin (origin has none: no refs/snapline/)\n",
    )
    pushed = snapline(root, "push")
    assert (pushed.exit_code, pushed.stdout) == (
        0,
        "pushed 0 history refs to origin (this repository has none: no refs/snapline/)\n",
    )
    assert refs(remote) == ""
