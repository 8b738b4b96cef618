"""Blame's line diff is git's: where libgit2's xdiff parts from git's, blame follows git.

One commit of the diff-so-fancy history (tests/fixtures) rewrites most of its 720-line
script: libgit2's diff of the two versions changes 323 lines, git's 337, and the lines
``git blame`` gives to the commit are git's. Found by the deep replay of the oracle.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import snapline.blame.batch
import snapline.blame.gitdiff
from snapline import Workspace
from snapline.blame.gitdiff import git_hunks
from snapline.store.refs.gitlines import line_hunks
from tests.blame.twin import Twin, git_env, snapline_lines
from tests.scanning.git_reference import GIT

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

BUNDLE = Path(__file__).resolve().parents[1] / "fixtures" / "diff-so-fancy.bundle"
BEFORE, AFTER = (
    "04ccbe4b7ec975e35afc36e5c74f20fa0feca449",
    "66da172a69b3e535181b844c358bc9bb8e4ffb02",
)


def _versions(tmp_path: Path) -> tuple[bytes, bytes]:
    assert GIT is not None
    repo = tmp_path / "dsf.git"
    env = git_env(tmp_path)
    subprocess.run([GIT, "clone", "-q", "--bare", str(BUNDLE), str(repo)], env=env, check=True)
    git = [GIT, "--git-dir", os.fspath(repo), "cat-file", "blob"]
    blobs = [
        subprocess.run([*git, blob], env=env, capture_output=True, check=True).stdout
        for blob in (BEFORE, AFTER)
    ]
    return blobs[0], blobs[1]


Lines = list[tuple[int | None, str]]


def _blamed(tmp_path: Path, before: bytes, after: bytes) -> tuple[Lines, Lines]:
    root = tmp_path / "ws"
    root.mkdir(parents=True)
    (root / "diff-so-fancy").write_bytes(before)
    with Workspace.init(root) as ws:
        ws.write_file("diff-so-fancy", after, session="s1")
        twin = Twin.build(ws, tmp_path / "twin.git")
        return snapline_lines(ws, "diff-so-fancy"), twin.blame("diff-so-fancy", 1)


def test_where_libgit2_and_git_diff_apart_blame_is_gits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, after = _versions(tmp_path)
    assert git_hunks(before, after) != line_hunks(before, after)
    ours, git = _blamed(tmp_path / "git", before, after)
    assert ours == git
    # The same with libgit2's diff: the lines blamed part from git's.
    monkeypatch.setattr(snapline.blame.gitdiff, "line_diff", lambda: line_hunks)
    ours, git = _blamed(tmp_path / "libgit2", before, after)
    assert ours != git


def _edge_pairs() -> list[tuple[bytes, bytes]]:
    base = b"".join(b"line %d\n" % n for n in range(40))
    return [
        (base, base.replace(b"line 3\n", b"three\n").replace(b"line 30\n", b"")),
        (base, base + b"no newline at the end"),
        (base.replace(b"\n", b"\r\n"), base),
        (b"", base),
        (base, b""),
        (base, base),
        (b"a\0binary\n", b"a\0binary, changed\n"),
        (b"@@ -1 +1 @@\ndiff --git a/x b/x\n", b"diff --git a/y b/y\n@@ -2 +2 @@\n"),
        (base, b"".join(b"line %d\n" % n for n in range(39, -1, -1))),
    ]


def test_many_pairs_in_one_git_process_are_diffed_as_each_on_its_own(tmp_path: Path) -> None:
    from snapline.blame.gitdiff import git_hunks_many

    pairs = [*_edge_pairs(), _versions(tmp_path), *_edge_pairs()[::-1]]
    assert git_hunks_many(pairs) == [git_hunks(old, new) for old, new in pairs]
    assert git_hunks_many([]) == []


def _each(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    return git_hunks(old, new)


def test_a_summary_runs_one_git_diff_for_every_version_of_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The review page counts lines with blame --summary: one process per version made a
    # 1,000-snapshot history's page ten times slower (benchmark row 11).
    with Workspace.init(tmp_path) as ws:
        for n in range(12):
            ws.write_file("a.txt", "".join(f"{i}{'!' * (i == n)}\n" for i in range(15)))
            ws.write_file("b.txt", f"b {n}\n" * (n + 1))
        with monkeypatch.context() as one_by_one:  # a line diff of one pair per process
            one_by_one.setattr(snapline.blame.gitdiff, "line_diff", lambda: _each)
            before = {path: snapline_lines(ws, path) for path in ("a.txt", "b.txt")}
        runs: list[list[str]] = []
        real = subprocess.run

        def counted(args: list[str], **kwargs: object) -> object:
            runs.append(list(args))
            return real(args, **kwargs)  # type: ignore[call-overload]

        monkeypatch.setattr(subprocess, "run", counted)
        summary = ws.blame_summary()
        assert len([run for run in runs if "diff" in run]) == 1
        assert summary.total.lines == 15 + 12
        runs.clear()
        assert {path: snapline_lines(ws, path) for path in ("a.txt", "b.txt")} == before
        assert len([run for run in runs if "diff" in run]) == 2  # one per file blamed
        # Files in groups of a bounded size: one process per group, the same counts.
        monkeypatch.setattr(snapline.blame.batch, "GROUP_BYTES", 1)
        runs.clear()
        assert ws.blame_summary().to_json() == summary.to_json()
        assert len([run for run in runs if "diff" in run]) == 2
