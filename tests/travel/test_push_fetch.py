"""``snapline push`` and ``snapline fetch`` with real git and bare remotes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline.store.refs.layout import line_ref
from snapline.travel import GitFailedError, push
from tests.store.refs.lines import Line, git
from tests.travel.repos import (
    bare,
    clone,
    continued,
    history,
    refs,
    run_json,
    snapline,
    work,
)

LINES: dict[Path, Line] = {}


def _published(tmp_path: Path) -> tuple[Path, Path, str]:
    """A work repo with a line (``LINES[root]``), its branch pushed to a bare ``origin``."""
    root = work(tmp_path / "work")
    remote = bare(tmp_path / "remote.git")
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "origin", "main")
    line = history(root)
    assert line.line is not None
    LINES[root] = line
    return root, remote, line_ref(line.line)


def test_push_then_a_fresh_clone_s_fetch_gives_the_same_refs(tmp_path: Path) -> None:
    root, remote, ref = _published(tmp_path)
    code, pushed = run_json(root, "push")
    assert code == 0, pushed
    assert [m["ref"] for m in pushed["moved"]] == [ref]
    assert pushed["moved"][0]["old"] is None
    assert refs(remote) == refs(root)

    other = clone(remote, tmp_path / "clone")
    assert refs(other) == ""  # a plain clone brings the branches only
    code, fetched = run_json(other, "fetch")
    assert code == 0, fetched
    assert [m["ref"] for m in fetched["moved"]] == [ref]
    assert refs(other) == refs(root)
    assert git(other, "for-each-ref", "refs/snapline-incoming") == ""  # staging is gone
    assert git(other, "status", "--porcelain") == ""
    # Again: nothing moves, both ways.
    assert run_json(other, "fetch")[1]["up_to_date"] == 1
    again = snapline(root, "push")
    assert again.exit_code == 0
    assert again.stdout == "pushed 0 history refs to origin (1 up to date)\n"


def test_a_line_continued_elsewhere_fast_forwards_on_push_and_fetch(tmp_path: Path) -> None:
    root, remote, ref = _published(tmp_path)
    line = LINES[root]
    assert snapline(root, "push").exit_code == 0
    other = clone(remote, tmp_path / "clone")
    assert snapline(other, "fetch").exit_code == 0
    history(other, 2, continued(other, line))
    code, pushed = run_json(other, "push")
    assert code == 0
    assert pushed["moved"] == [
        {"ref": ref, "old": git(root, "rev-parse", ref).strip(), "new": pushed["moved"][0]["new"]}
    ]
    code, fetched = run_json(root, "fetch")
    assert (code, [m["ref"] for m in fetched["moved"]]) == (0, [ref])
    assert refs(root) == refs(other) == refs(remote)


def test_a_fork_pushes_to_the_fork_and_fetches_from_upstream(tmp_path: Path) -> None:
    root, upstream, ref = _published(tmp_path)
    assert snapline(root, "push").exit_code == 0
    fork = bare(tmp_path / "fork.git")
    mine = clone(upstream, tmp_path / "mine")  # origin: upstream, as `gh repo fork` sets it
    git(mine, "remote", "add", "fork", str(fork))
    git(mine, "config", "remote.pushDefault", "fork")
    # The fork's own line (a second agent's history, say) is pushed to the fork only.
    own = history(mine)
    assert own.line is not None
    code, pushed = run_json(mine, "push")
    assert (code, pushed["remote"]) == (0, "fork")
    assert line_ref(own.line) in refs(fork)
    assert line_ref(own.line) not in refs(upstream)
    # Upstream's history comes from upstream (the branch's upstream remote).
    code, fetched = run_json(mine, "fetch")
    assert (code, fetched["remote"], [m["ref"] for m in fetched["moved"]]) == (0, "origin", [ref])
    assert set(refs(mine).splitlines()) == {*refs(root).splitlines(), *refs(fork).splitlines()}


def test_a_shallow_clone_fetches_the_whole_history(tmp_path: Path) -> None:
    root, remote, ref = _published(tmp_path)
    for n in range(3):
        (root / "src/app.py").write_bytes(b"user %d\n" % n)
        git(root, "commit", "-q", "-am", f"user commit {n}")
    git(root, "push", "-q", "origin", "main")
    history(root, 4, LINES[root])
    assert snapline(root, "push").exit_code == 0
    shallow = clone(remote, tmp_path / "shallow", "--depth", "1")
    assert git(shallow, "rev-parse", "--is-shallow-repository").strip() == "true"
    code, fetched = run_json(shallow, "fetch")
    assert (code, [m["ref"] for m in fetched["moved"]]) == (0, [ref])
    assert refs(shallow) == refs(root)
    assert len(git(shallow, "rev-list", ref).split()) == len(git(root, "rev-list", ref).split())
    assert git(shallow, "rev-parse", "--is-shallow-repository").strip() == "true"


def _diverged(tmp_path: Path) -> tuple[Path, Path, Path, str]:
    """Two clones that both continued one line: ``root`` has pushed, ``other`` has not."""
    root, remote, ref = _published(tmp_path)
    line = LINES[root]
    assert snapline(root, "push").exit_code == 0
    other = clone(remote, tmp_path / "clone")
    assert snapline(other, "fetch").exit_code == 0
    history(other, 2, continued(other, line))
    history(root, 1, line)
    assert snapline(root, "push").exit_code == 0
    return root, remote, other, ref


def test_a_diverged_line_is_refused_on_push_and_nothing_is_lost(tmp_path: Path) -> None:
    _root, remote, other, ref = _diverged(tmp_path)
    before_remote, before_here = refs(remote), refs(other)
    done = snapline(other, "push")
    assert done.exit_code == 1
    assert done.stderr.splitlines() == [
        f"snapline: error: {ref} was not pushed: origin has snapshots on it that this "
        "repository lacks; run `snapline fetch origin`, then push again (nothing was lost)"
    ]
    assert (refs(remote), refs(other)) == (before_remote, before_here)
    # Fetched as advised: still refused (it diverged), the local snapshots kept.
    code, fetched = run_json(other, "fetch")
    assert code == 1
    assert [(r["ref"], r["reason"]) for r in fetched["refused"]] == [(ref, "diverged")]
    assert fetched["exit_code"] == 1
    assert refs(other) == before_here
    # The push now knows the remote's commit: diverged, said so, still nothing moved.
    code, pushed = run_json(other, "push")
    assert (code, [(r["ref"], r["reason"]) for r in pushed["refused"]]) == (
        1,
        [(ref, "diverged")],
    )
    assert (refs(remote), refs(other)) == (before_remote, before_here)


def test_a_diverged_line_is_refused_on_fetch_and_the_other_refs_still_come(
    tmp_path: Path,
) -> None:
    root, _remote, other, ref = _diverged(tmp_path)
    extra = history(root, 1)  # a second line on the remote, new to `other`
    assert extra.line is not None
    assert snapline(root, "push").exit_code == 0
    mine = git(other, "rev-parse", ref).strip()
    done = snapline(other, "fetch")
    assert done.exit_code == 1
    assert done.stderr.startswith(f"snapline: error: {ref} was not fetched: origin's line and")
    assert len(done.stderr.splitlines()) == 1
    assert git(other, "rev-parse", ref).strip() == mine  # never rewound
    assert git(other, "rev-parse", line_ref(extra.line)) == git(
        root, "rev-parse", line_ref(extra.line)
    )


def test_fetch_keeps_unpushed_lines_even_when_git_is_set_to_prune(tmp_path: Path) -> None:
    root, remote, ref = _published(tmp_path)
    assert snapline(root, "push").exit_code == 0
    other = clone(remote, tmp_path / "clone")
    git(other, "config", "fetch.prune", "true")
    own = history(other)  # recorded here, never pushed
    assert own.line is not None
    code, fetched = run_json(other, "fetch")
    assert (code, [m["ref"] for m in fetched["moved"]]) == (0, [ref])
    assert line_ref(own.line) in refs(other)


def test_no_remote_and_an_unreachable_one_are_one_line_each(tmp_path: Path) -> None:
    root = work(tmp_path / "work")
    history(root)
    for command in ("push", "fetch"):
        done = snapline(root, command)
        assert done.exit_code == 2
        assert done.stderr == (
            f"snapline: error: no remote to {command}: this repository has no remote "
            f"'origin'; name one (`snapline {command} REMOTE`) or add one "
            "(`git remote add origin URL`)\n"
        )
    git(root, "remote", "add", "origin", str(tmp_path / "gone.git"))
    for command in ("push", "fetch"):
        done = snapline(root, command)
        assert done.exit_code == 5
        assert len(done.stderr.splitlines()) == 1
        assert done.stderr.startswith(f"snapline: error: `git {command} origin` failed: ")
        assert "does not appear to be a git repository" in done.stderr
    assert git(root, "for-each-ref", "refs/snapline-incoming") == ""


def test_outside_a_git_repository_push_says_where_it_works(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    done = snapline(tmp_path / "plain", "push")
    assert done.exit_code == 2
    assert "is not in a git repository" in done.stderr


def test_a_remote_that_never_answers_is_given_up_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A remote helper that reads what git says and never answers: git waits on it for
    # ever (and it on git, until git is stopped), so any bound ends the push, whatever
    # the machine's speed (the pre-push hook sets none, as git's own push sets none).
    helpers = tmp_path / "bin"
    helpers.mkdir()
    hang = helpers / "git-remote-hang"
    hang.write_text("#!/bin/sh\nexec cat >/dev/null\n")
    hang.chmod(0o755)
    monkeypatch.setenv("PATH", f"{helpers}{os.pathsep}{os.environ['PATH']}")
    root = work(tmp_path / "work")
    history(root)
    with pytest.raises(GitFailedError) as raised:
        push(root, "hang::nowhere", timeout=1)
    assert str(raised.value) == (
        "`git push hang::nowhere` failed: it ran past 1 s and was stopped; nothing was moved"
    )
    assert raised.value.exit_code == 5
