"""Forgetting a secret that another clone recorded on its own line (issue 37, point 5).

An agent's clone records a secret on its line (forked from the maintainer's), then a
clean version, commits the clean file and pushes; the maintainer fetches the line, git
merges the branch and ``snapline merge`` joins the line. The maintainer's ``snapline
forget`` rewrites the agent's line too (every line is rewritten, the merge snapshot's
commit pointing at the rewritten head), ``forget --publish`` force-pushes the rewrite,
and a fresh clone of the remote holds the secret in no object under ``refs/snapline/``.
The agent, forgetting on its own line before any merge, gets the same.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo
from tests.history_refs.test_forget_refs import SECRET, _holds_secret


def _team(tmp_path: Path) -> tuple[Repo, Repo, Path, list[str]]:
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "v0\n"})
    maintainer.ok("init")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")
    agent = Repo(tmp_path / "agent")
    Repo(tmp_path).git("clone", "-q", str(origin), str(agent.path))
    agent.ok("fetch", "origin")
    agent.git("switch", "-q", "-c", "feature")
    ids = []
    for content in (b"TOKEN=" + SECRET + b"\n", b"TOKEN=\n"):
        (agent.path / "config.env").write_bytes(content)
        ids.append(json.loads(agent.ok("record", "config.env", "-m", "config", "--json"))["id"])
    agent.git("add", "config.env")
    agent.git("commit", "-qm", "config")
    agent.git("push", "-q", "origin", "feature")
    agent.ok("push", "origin")
    assert _holds_secret(Repo(origin))
    return maintainer, agent, origin, ids


def _fresh(tmp_path: Path, origin: Path, name: str) -> Repo:
    fresh = Repo(tmp_path / name)
    Repo(tmp_path).git("clone", "-q", str(origin), str(fresh.path))
    fresh.ok("fetch", "origin")
    return fresh


def test_the_maintainer_forgets_a_secret_on_the_joined_line_of_another_clone(
    tmp_path: Path,
) -> None:
    maintainer, _, origin, ids = _team(tmp_path)
    maintainer.git("fetch", "-q", "origin")
    maintainer.ok("fetch", "origin")
    maintainer.git("merge", "-q", "--ff-only", "origin/feature")
    merged = json.loads(maintainer.ok("merge", "--json"))
    assert merged["merges"] == [ids[-1]]
    maintainer.git("push", "-q", "origin", "main")  # the pre-push hook carries the merge
    user = maintainer.git("rev-parse", "main")
    assert SECRET.decode() in maintainer.ok("show", f"id:{ids[0]}")

    out = maintainer.ok("forget", "config.env", "-m", "leaked token")
    assert "refs/snapline/forgets/" in out
    assert not _holds_secret(maintainer)
    shown = maintainer.ok("show", f"id:{ids[0]}")
    assert SECRET.decode() not in shown and "forgotten" in shown
    assert [s["id"] for s in json.loads(maintainer.ok("log", "--json"))[0]["joins"]] == ids[::-1]
    maintainer.ok("verify")
    maintainer.ok("forget", "--publish", "origin")
    assert maintainer.git("rev-parse", "main") == user

    fresh = _fresh(tmp_path, origin, "fresh")
    assert not _holds_secret(fresh)
    assert fresh.git("rev-parse", "origin/main") == user
    assert "forgotten" in fresh.ok("show", f"id:{ids[0]}")
    assert fresh.snap("verify").returncode == 0


def test_an_agent_forgets_a_secret_on_its_own_forked_line(tmp_path: Path) -> None:
    _, agent, origin, ids = _team(tmp_path)
    out = agent.ok("forget", "config.env", "--snapshot", "1", "-m", "leaked token")
    assert "refs/snapline/forgets/" in out
    assert not _holds_secret(agent)
    assert "forgotten" in agent.ok("show", "1")
    assert [s["id"] for s in json.loads(agent.ok("log", "--json"))][:2] == ids[::-1]
    agent.ok("verify")
    agent.ok("forget", "--publish", "origin")
    fresh = _fresh(tmp_path, origin, "fresh")
    assert not _holds_secret(fresh)
    # The secret's line is another writer's for the fresh clone: reachable by id, forgotten.
    assert "forgotten" in fresh.ok("show", f"id:{ids[0]}")
    assert fresh.snap("verify").returncode == 0


def test_a_forget_across_lines_killed_after_its_refs_moved_is_taken_in(tmp_path: Path) -> None:
    # forget-refs-moved: both lines and the forget ref moved in one transaction, the
    # index not rebuilt; the next command takes it in, the joined line read forgotten.
    from tests.reliability.helpers import KILLED, cli

    maintainer, _, _, ids = _team(tmp_path)
    maintainer.git("fetch", "-q", "origin")
    maintainer.ok("fetch", "origin")
    maintainer.git("merge", "-q", "--ff-only", "origin/feature")
    maintainer.ok("merge")
    lines = maintainer.git("for-each-ref", "refs/snapline/lines/")
    child = cli(maintainer.path, "forget", "config.env", "-m", "leaked", crash="forget-refs-moved")
    assert child.returncode == KILLED, (child.returncode, child.stderr)
    assert not _holds_secret(maintainer)
    assert maintainer.git("for-each-ref", "refs/snapline/lines/") != lines
    shown = maintainer.ok("show", f"id:{ids[0]}")
    assert SECRET.decode() not in shown and "forgotten" in shown
    assert [s["id"] for s in json.loads(maintainer.ok("log", "--json"))[0]["joins"]] == ids[::-1]
    maintainer.ok("verify")
