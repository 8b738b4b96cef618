"""The history's push sends what the remote lacks; a shallow CI clone's fetch stays shallow.

A line's baseline commit has the user's commit it was taken at as its parent (when a
remote has it), so git's push leaves out the files the remote holds through the user's
branch (bench row R6). Real git, bare remotes, the real command line; what a push sent
is counted by a receive-pack that keeps a copy of it.
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.store.refs.lines import git, make_repo
from tests.travel.repos import bare, clone, refs, run, snapline

_FILES = 30
_SIZE = 4096


def _tree() -> dict[str, bytes]:
    """Files that compress little (hex of random bytes): about 60 KiB in a pack."""
    rng = random.Random(37)
    return {f"src/m{n:02}.py": rng.randbytes(_SIZE // 2).hex().encode() for n in range(_FILES)}


def _counting(tmp_path: Path) -> tuple[Path, Path]:
    """A receive-pack that keeps a copy of what each push sent (``pushed/``), and its dir."""
    pushed = tmp_path / "pushed"
    pushed.mkdir()
    script = tmp_path / "receive-pack.sh"
    script.write_text(
        f'#!/bin/sh\nout=$(mktemp "{pushed}/push.XXXXXX") || exit 1\n'
        'tee "$out" | git receive-pack "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script, pushed


def _session(tmp_path: Path) -> tuple[Path, Path, str]:
    """A remote holding the user's branch; a clone's ``init`` and 3 recorded edits."""
    upstream = make_repo(tmp_path / "upstream", _tree())
    remote = bare(tmp_path / "remote.git")
    git(upstream, "push", "-q", str(remote), "main")
    work = clone(remote, tmp_path / "work")
    assert snapline(work, "init").exit_code == 0
    for n in range(3):
        (work / "src/m00.py").write_bytes(b"edit %d\n" % n)
        assert snapline(work, "record", "src/m00.py").exit_code == 0
    (line,) = (name.split()[-1] for name in refs(work).splitlines() if "/lines/" in name)
    return work, remote, line  # the line's ref


def test_the_history_s_push_leaves_out_the_files_the_remote_has(tmp_path: Path) -> None:
    work, remote, line = _session(tmp_path)
    script, pushed = _counting(tmp_path)
    git(work, "config", "remote.origin.receivepack", str(script))
    done = snapline(work, "push")
    assert done.exit_code == 0, done.stderr
    assert refs(remote) == refs(work)
    (sent,) = (p.stat().st_size for p in pushed.iterdir())
    baseline = sum(len(data) for data in _tree().values())
    # Four snapshots' records, trees and one small file each: a few KiB. The baseline's
    # files again (as before: the line's first commit had no parent) are over 60 KiB.
    assert sent < 16 * 1024, f"the history's push sent {sent} B for a {baseline} B tree"
    # The baseline's parent is the user's commit, and a walk down the line stops before it.
    head = git(work, "rev-parse", "HEAD").strip()
    first = git(work, "rev-list", "--first-parent", line, "--not", "HEAD").split()[-1]
    assert git(work, "rev-parse", f"{first}^@").split() == [head]
    assert snapline(work, "verify").exit_code == 0


def test_a_shallow_ci_clone_fetches_the_history_and_stays_shallow(tmp_path: Path) -> None:
    work, remote, line = _session(tmp_path)
    # The user's older commits, which a depth-1 clone must not get through the line.
    older = git(work, "rev-list", "HEAD").split()
    git(work, "commit", "-q", "-am", "the session's code")
    git(work, "push", "-q", "origin", "main")
    assert snapline(work, "push").exit_code == 0

    ci = clone(remote, tmp_path / "ci", "--depth", "1")
    done = snapline(ci, "fetch")
    assert done.exit_code == 0, done.stderr
    assert refs(ci) == refs(remote)
    assert git(ci, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(ci, "rev-parse", "--is-shallow-repository").strip() == "true"
    shallow = (ci / ".git/shallow").read_text(encoding="ascii").split()
    assert git(ci, "rev-parse", "HEAD").strip() in shallow
    missing = [c for c in older if _absent(ci, c)]
    assert missing == older, "the fetch brought the user's commits below the baseline"
    verified = snapline(ci, "verify")
    assert verified.exit_code == 0, verified.stdout + verified.stderr

    # Later: unshallow, gc and fsck, as git does them; the history still verifies.
    git(ci, "fetch", "-q", "--unshallow", "origin")
    assert not (ci / ".git/shallow").exists()
    git(ci, "gc", "-q")
    git(ci, "fsck", "--no-progress")
    assert snapline(ci, "verify").exit_code == 0
    assert int(git(ci, "rev-list", "--count", line)) == 4 + len(older)


def _absent(repo: Path, commit: str) -> bool:
    return run(repo, "cat-file", "-e", commit).returncode != 0


def test_forget_rewrites_the_baseline_and_keeps_its_parent(tmp_path: Path) -> None:
    work, _remote, line = _session(tmp_path)
    head = git(work, "rev-parse", "HEAD").strip()
    assert snapline(work, "milestone", "create", "--to", "latest").exit_code == 0
    edited = [git(work, "rev-parse", f"{line}~{n}:state/src/m00.py").strip() for n in range(3)]
    before = git(work, "rev-list", "--first-parent", line, "--not", "HEAD").split()[-1]
    done = snapline(work, "forget", "src/m00.py", "-m", "a secret")
    assert done.exit_code == 0, done.stdout + done.stderr
    first = git(work, "rev-list", "--first-parent", line, "--not", "HEAD").split()[-1]
    assert first != before  # the baseline held a version of it: rewritten too
    assert git(work, "rev-parse", f"{first}^@").split() == [head]
    reachable = git(work, "rev-list", "--objects", line, "--not", "HEAD")
    assert not set(edited) & {row.split()[0] for row in reachable.splitlines()}
    verified = snapline(work, "verify")
    assert verified.exit_code == 0, verified.stdout
    assert snapline(work, "milestone", "list").exit_code == 0
    assert snapline(work, "log").stdout.count("\n") >= 4
