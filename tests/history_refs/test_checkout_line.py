"""A clone follows the line its checkout is a snapshot of, and is held to that snapshot.

Real git, one bare remote (issue 37, points 3 and 5: "a fresh clone's first command ...
never reports in sync without it", "lines stay lines"):

- A clone of an agent's branch, made after the agent pushed its line, follows that
  agent's line (through the line it forked from): its ``status`` is in sync, its ``log``
  and ``verify`` are that line's, and its first record forks from the agent's latest
  snapshot with the agent's file as its base. It followed the main line: drift on every
  file the agent changed, and a record with the main line's files as its base.
- A clone whose commit is an older snapshot of its line (the agent recorded on after the
  commit, and never committed that) reads the whole line (``log``, ``show N``) while
  ``status`` and ``verify`` hold its files to the snapshot its checkout is; a record
  there would fork the line, so it is refused with one line saying how to go on, and a
  work tree of its own (``git worktree add``) records from that snapshot.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import Repo, new_repo


def _refs(repo: Repo) -> str:
    return repo.git("for-each-ref", "refs/snapline/")


def _log(repo: Repo) -> list[dict[str, object]]:
    return list(json.loads(repo.ok("log", "--json")))


def _clone(tmp_path: Path, origin: Path, name: str, *branch: str) -> Repo:
    """A fresh clone of ``origin`` (of ``branch``), its history fetched."""
    clone = Repo(tmp_path / name)
    Repo(tmp_path).git("clone", "-q", *branch, str(origin), str(clone.path))
    clone.ok("fetch", "origin")
    return clone


def _maintainer(tmp_path: Path) -> tuple[Path, Repo]:
    """The maintainer's repository: init, snapshot 1 recorded and committed, pushed."""
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "print('v0')\n", "lib.py": "x = 0\n"})
    maintainer.ok("init")
    (maintainer.path / "app.py").write_text("print('v1')\n")
    maintainer.ok("record", "app.py", "-m", "v1")
    maintainer.git("commit", "-qam", "v1")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")
    maintainer.ok("push")
    return origin, maintainer


def test_a_clone_of_an_agent_s_branch_follows_the_agent_s_line(tmp_path: Path) -> None:
    origin, maintainer = _maintainer(tmp_path)
    agent = _clone(tmp_path, origin, "agent")
    agent.git("switch", "-q", "-c", "feature")
    for text in ("x = 'b'\n", "x = 'b2'\n"):
        (agent.path / "lib.py").write_text(text)
        agent.ok("record", "lib.py", "-m", f"agent: {text.strip()}")
    agent.git("commit", "-qam", "the agent's work")
    agent.git("push", "-q", "origin", "feature")
    agent.ok("push", "origin")
    agent_log = _log(agent)
    # The main line goes on meanwhile: the clone below must not follow it.
    (maintainer.path / "app.py").write_text("print('v2')\n")
    maintainer.ok("record", "app.py", "-m", "v2")
    maintainer.git("commit", "-qam", "v2")
    maintainer.git("push", "-q", "origin", "main")
    maintainer.ok("push")

    reviewer = _clone(tmp_path, origin, "reviewer", "-b", "feature")
    status = reviewer.snap("status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "in sync" in status.stdout and "drift" not in status.stdout, status.stdout
    assert _log(reviewer) == agent_log  # 3, 2 (the agent's), 1, 0
    verified = reviewer.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "snapshots 0..3 verified" in verified.stdout, verified.stdout

    (reviewer.path / "lib.py").write_text("x = 'c'\n")
    made = json.loads(reviewer.ok("record", "lib.py", "-m", "reviewer", "--json"))
    assert (made["number"], made["parent_id"]) == (4, agent_log[0]["id"])
    (change,) = made["files"]
    agent_lib = json.loads(agent.ok("show", "3", "--json"))["files"][0]["result_hash"]
    assert (change["path"], change["base_hash"]) == ("lib.py", agent_lib)
    # Its line's first commit follows the agent's latest snapshot's commit.
    own = (reviewer.path / ".git" / "snapline" / "line").read_text().strip()
    first = reviewer.git("rev-parse", f"refs/snapline/lines/{own}^").strip()
    agent_line = agent.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/")
    tips = {reviewer.git("rev-parse", ref).strip() for ref in agent_line.split()}
    assert first in tips
    assert reviewer.snap("verify").returncode == 0


@pytest.mark.parametrize("committed", [0, 1])
def test_a_clone_behind_its_line_is_held_to_its_snapshot_and_reads_the_whole_line(
    tmp_path: Path, committed: int
) -> None:
    origin, maintainer = _maintainer(tmp_path)
    if committed == 0:
        maintainer.git("push", "-q", "-f", "origin", "main~1:main")  # the baseline's commit
    # The agent records on, and never commits it.
    (maintainer.path / "app.py").write_text("print('v2')\n")
    maintainer.ok("record", "app.py", "-m", "v2")
    (maintainer.path / "lib.py").write_text("x = 3\n")
    maintainer.ok("record", "lib.py", "-m", "lib 3")
    maintainer.ok("push")
    ids = [entry["id"] for entry in reversed(_log(maintainer))]

    clone = _clone(tmp_path, origin, "clone")
    status = clone.snap("status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "drift" not in status.stdout, status.stdout
    # It says what it held the files to, as verify does: not "the latest snapshot".
    assert f"snapshot {committed} (id:{ids[committed][:8]})" in status.stdout, status.stdout
    assert "latest snapshot" not in status.stdout, status.stdout
    held = json.loads(clone.ok("status", "--json"))
    assert held["in_sync"] and [s["id"] for s in held["explained"]["snapshots"]] == [ids[committed]]
    assert [entry["id"] for entry in reversed(_log(clone))] == ids  # the whole line
    assert "lib 3" in clone.ok("show", "3") and "v2" in clone.ok("show", "2")
    verified = clone.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"snapshot {committed} (id:{ids[committed][:8]})" in verified.stdout, verified.stdout

    # An edit is drift against the snapshot the checkout is, and only that file.
    (clone.path / "lib.py").write_text("x = 'edited'\n")
    status = clone.snap("status", "--json")
    drift = json.loads(status.stdout)["drift"]
    assert [(p["kind"], p["path"]) for p in drift] == [("modified", "lib.py")], drift
    refused = clone.snap("verify")
    assert refused.returncode == 1, refused.stdout
    assert "lib.py" in refused.stdout and "app.py" not in refused.stdout, refused.stdout

    # A record would fork the line: refused in one line, nothing written.
    before = _refs(clone)
    recorded = clone.snap("record", "lib.py", "-m", "edit")
    assert recorded.returncode == 1, recorded.stdout + recorded.stderr
    assert len(recorded.stderr.splitlines()) == 1, recorded.stderr
    assert f"snapshot {committed}, behind its line's latest snapshot 3" in recorded.stderr
    assert "git worktree add" in recorded.stderr
    assert _refs(clone) == before
    assert not (clone.path / ".git" / "snapline" / "line").exists()
    assert [entry["id"] for entry in reversed(_log(clone))] == ids

    # The way it names: a work tree of its own starts a line from that snapshot.
    clone.git("checkout", "--", "lib.py")
    clone.git("worktree", "add", "-q", "-b", "mine", str(tmp_path / "mine"), "HEAD")
    mine = Repo(tmp_path / "mine")
    (mine.path / "lib.py").write_text("x = 'mine'\n")
    made = json.loads(mine.ok("record", "lib.py", "-m", "mine", "--json"))
    assert (made["number"], made["parent_id"]) == (committed + 1, ids[committed])
    assert mine.snap("verify").returncode == 0


def test_a_first_record_after_checking_out_an_older_snapshot_is_refused(tmp_path: Path) -> None:
    origin, maintainer = _maintainer(tmp_path)
    (maintainer.path / "app.py").write_text("print('v2')\n")
    maintainer.ok("record", "app.py", "-m", "v2")
    maintainer.git("commit", "-qam", "v2")
    maintainer.git("push", "-q", "origin", "main")
    maintainer.ok("push")

    clone = _clone(tmp_path, origin, "clone")
    assert clone.snap("status").returncode == 0  # its index is built at the tip
    # Then the clone checks out snapshot 1's commit: a record there claimed snapshot 2's
    # app.py as its base and went on after it.
    clone.git("checkout", "-q", "HEAD~1")
    (clone.path / "lib.py").write_text("x = 'old'\n")
    before = _refs(clone)
    recorded = clone.snap("record", "lib.py", "-m", "on the old commit")
    assert recorded.returncode == 1, recorded.stdout + recorded.stderr
    assert "snapshot 1, behind its line's latest snapshot 2" in recorded.stderr
    assert _refs(clone) == before
    # Back on the line's latest, the same edit is recorded there.
    clone.git("checkout", "-q", "main")
    (clone.path / "lib.py").write_text("x = 'new'\n")
    made = json.loads(clone.ok("record", "lib.py", "-m", "on main", "--json"))
    assert made["number"] == 3
