"""CI's `verify` of a checked-out commit, against the history on git's refs.

A fresh clone of the remote, the history fetched, a commit checked out: `verify` passes
when the commit's files are a state some snapshot recorded (or git's clean merge of such
states, tests/store/refs/test_explain.py), and names each path that no snapshot explains.
A work tree with changes git has not committed stays held to its latest snapshot.
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo


def _agent(tmp_path: Path) -> tuple[Repo, Path]:
    """A workspace whose branch holds snapshot 1's files; snapshot 2 recorded, not committed."""
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", {"app.py": "print('v0')\n", "lib.py": "x = 0\n"})
    work.ok("init")
    (work.path / "app.py").write_text("print('v1')\n")
    work.ok("record", "app.py", "-m", "v1")
    work.git("commit", "-qam", "v1")  # the pull request: snapshot 1's files
    (work.path / "lib.py").write_text("x = 2\n")
    work.ok("record", "lib.py", "-m", "x is 2, not committed")
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    work.ok("push", str(origin))
    return work, origin


def _ci(tmp_path: Path, origin: Path) -> Repo:
    ci = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", str(origin), str(ci.path))
    ci.ok("fetch", "origin")
    return ci


def test_a_commit_whose_files_an_earlier_snapshot_recorded_verifies(tmp_path: Path) -> None:
    _, origin = _agent(tmp_path)
    ci = _ci(tmp_path, origin)
    done = ci.snap("verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "lib.py" not in done.stdout + done.stderr
    assert ci.git("status", "--porcelain", "--ignored") == ""


def test_a_hand_edit_committed_is_named_and_fails(tmp_path: Path) -> None:
    work, origin = _agent(tmp_path)
    (work.path / "app.py").write_text("print('by hand')\n")
    work.git("commit", "-qam", "a hand edit nobody recorded")
    work.git("push", "-q", str(origin), "main")
    ci = _ci(tmp_path, origin)
    done = ci.snap("verify")
    assert done.returncode == 1
    output = done.stdout + done.stderr
    assert "app.py" in output and "no file that a snapshot recorded" in output
    assert "lib.py" not in output  # snapshot 1's lib.py: explained


def test_uncommitted_work_equal_to_a_recorded_state_is_still_drift(tmp_path: Path) -> None:
    work, _ = _agent(tmp_path)
    # Put lib.py back by hand: the files are snapshot 1's, which the commit holds too,
    # but the workspace's latest snapshot is 2 and git sees a change: drift, as always.
    (work.path / "lib.py").write_text("x = 0\n")
    done = work.snap("verify")
    assert done.returncode == 1
    assert "lib.py" in done.stdout + done.stderr
