"""``snapline merge`` of another clone's line on git's refs, with real git and a bare remote.

A maintainer records snapshot 1 and closes milestone 1, pushes; an agent clones, records
two snapshots on a branch of its own and closes a milestone there, pushes; the maintainer
records snapshot 2 and closes milestone 2, then git merges (or squash-merges) the
agent's branch and runs ``snapline merge``. The agent's snapshots are its own line,
fetched beside the branch (issue 37, point 5: "Lines stay lines"). The merge snapshot
continues the maintainer's numbers, joins the agent's line (its snapshots reachable by
``id:``), one milestone closes the merge with the agent's milestone's title, and a fresh
clone agrees. (An old branch's in-tree ledger merged with a moved line is read in
tests/history_refs/test_upgrade_branches.py, from the fixtures.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.milestones.lines import Place
from tests.history_refs.gitrepo import Repo, new_repo

# "refs-published": main on the remote before init (the baseline has it as its parent).
LAYOUTS = ["refs"]


def _json(repo: Repo, *args: str) -> Any:
    return json.loads(repo.ok(*args, "--json"))


def _commit(repo: Repo, message: str) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-qm", message)


def _clone(tmp_path: Path, origin: Path, name: str, layout: str) -> Repo:
    repo = Repo(tmp_path / name)
    Repo(tmp_path).git("clone", "-q", str(origin), str(repo.path))
    if layout.startswith("refs"):
        repo.ok("fetch", "origin")
        repo.ok("push", "--install-hook")  # a clone has no hooks of its own
    return repo


@dataclass(frozen=True)
class Team:
    """The maintainer after ``git merge`` of the agent's branch, before ``snapline merge``."""

    layout: str
    origin: Path
    maintainer: Repo
    agent_ids: list[str]
    main_head: str


def _team(tmp_path: Path, layout: str, merging: str = "merge") -> Team:
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "v0\n", "lib.py": "x = 0\n"})
    if layout == "refs-published":
        # main on the remote before init: the baseline's commit has it as its parent.
        maintainer.git("init", "-q", "--bare", str(origin))
        maintainer.git("remote", "add", "origin", str(origin))
        maintainer.git("push", "-q", "origin", "main")
    maintainer.ok("init")
    if layout == "refs-published":
        refs = maintainer.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/")
        (line,) = refs.split()
        parent = maintainer.git("rev-parse", line + "^@")
        assert parent == maintainer.git("rev-parse", "main")
    (maintainer.path / "app.py").write_text("v1\n")
    maintainer.ok("record", "app.py", "-m", "v1")
    maintainer.ok("milestone", "create", "--title", "first")
    _commit(maintainer, "v1")
    if layout != "refs-published":
        maintainer.git("init", "-q", "--bare", str(origin))
        maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")

    agent = _clone(tmp_path, origin, "agent", layout)
    agent.git("switch", "-q", "-c", "feature")
    ids = []
    for text in ("x = 1\n", "x = 2\n"):
        (agent.path / "lib.py").write_text(text)
        agent.ok("record", "lib.py", "-m", f"lib {text.strip()}")
        ids.append(_json(agent, "log")[0]["id"])
    agent.ok("milestone", "create", "--title", "feature done", "--tag", "feat")
    _commit(agent, "feature")
    agent.git("push", "-q", "origin", "feature")

    (maintainer.path / "app.py").write_text("v2\n")
    maintainer.ok("record", "app.py", "-m", "v2")
    maintainer.ok("milestone", "create", "--title", "main done")
    _commit(maintainer, "v2")
    main_head = _json(maintainer, "log")[0]["id"]
    maintainer.git("fetch", "-q", "origin")
    if layout.startswith("refs"):
        maintainer.ok("fetch", "origin")
    if merging == "squash":
        maintainer.git("merge", "-q", "--squash", "origin/feature")
        maintainer.git("commit", "-qm", "feature (squashed)")
    else:
        maintainer.git("merge", "-q", "--no-edit", "origin/feature")
    return Team(layout, origin, maintainer, ids, main_head)


@pytest.mark.parametrize(
    ("layout", "merging"),
    [(layout, merging) for layout in LAYOUTS for merging in ("merge", "squash")]
    + [("refs-published", "merge")],
)
def test_merge_joins_another_clones_line_and_its_milestone(
    tmp_path: Path, layout: str, merging: str
) -> None:
    team = _team(tmp_path, layout, merging)
    repo = team.maintainer
    merged = _json(repo, "merge")
    assert (merged["number"], merged["parent_id"]) == (3, team.main_head)
    assert merged["merges"] == [team.agent_ids[-1]]
    assert [f["path"] for f in merged["files"]] == ["lib.py"]
    log = _json(repo, "log")
    assert [s["number"] for s in log] == [3, 2, 1, 0]
    assert [s["id"] for s in log[0]["joins"]] == team.agent_ids[::-1]
    # Every snapshot of the joined line is reachable by its id, with its own diff.
    for number, id_ in enumerate(team.agent_ids, start=2):
        shown = _json(repo, "show", f"id:{id_[:8]}")
        assert (shown["number"], shown["id"], shown["joined_by"]) == (number, id_, 3)
    shown = repo.ok("show", f"id:{team.agent_ids[0]}")
    assert "-x = 0" in shown and "+x = 1" in shown
    # Milestones of both sides: the main line's 1 and 2, and 3 closing the merge.
    milestones = _json(repo, "milestone", "list")
    titles = [(m["number"], m["first"], m["last"], m["title"]) for m in milestones]
    assert titles == [(1, 1, 1, "first"), (2, 2, 2, "main done"), (3, 3, 3, "feature done")]
    assert _json(repo, "milestone", "show", "3")["tags"] == ["feat"]
    assert "joined by snapshot 3" in repo.ok("milestone", "list")
    assert repo.snap("verify").returncode == 0, repo.snap("verify").stdout
    assert "nothing to merge" in repo.ok("merge")
    # Recording goes on after the merge; a rollback by id to the joined line works.
    (repo.path / "app.py").write_text("v3\n")
    assert repo.ok("record", "app.py", "-m", "v3").startswith("recorded snapshot 4:")
    repo.ok("rollback", "--to", f"id:{team.agent_ids[0]}", "lib.py")
    assert (repo.path / "lib.py").read_text() == "x = 1\n"
    _commit(repo, "merged and on")
    if team.layout.startswith("refs"):
        assert repo.git("status", "--porcelain") == ""
    repo.git("push", "-q", "origin", "main")

    fresh = _clone(tmp_path, team.origin, "fresh", layout)
    verified = fresh.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    theirs = _json(fresh, "log")
    assert [(s["number"], s["id"]) for s in theirs] == [
        (s["number"], s["id"]) for s in _json(repo, "log")
    ]
    assert [s["id"] for s in theirs[2]["joins"]] == team.agent_ids[::-1]
    assert _json(fresh, "show", f"id:{team.agent_ids[0][:8]}")["joined_by"] == 3
    assert [m["title"] for m in _json(fresh, "milestone", "list")] == [
        "first",
        "main done",
        "feature done",
    ]


def test_the_api_names_a_joined_lines_milestone_by_its_last_snapshot_and_its_line(
    tmp_path: Path,
) -> None:
    # Workspace.milestones.others(): the agent's milestone, closed on the last snapshot of
    # its line (whose head that snapshot is), joined by the merge snapshot 3. (On git's
    # refs a line's milestones are listed once the line is joined: store/refs/sides.py.)
    team = _team(tmp_path, "refs")
    repo = team.maintainer
    last = team.agent_ids[-1]
    repo.ok("merge")
    with Workspace.open(repo.path) as ws:
        (other,) = ws.milestones.others()
    assert (other.row.title, other.last_id, other.place, other.line, other.joined_by) == (
        "feature done",
        last,
        Place.LINE,
        last,
        3,
    )
    assert not other.pending


@pytest.mark.parametrize("layout", LAYOUTS)
def test_another_lines_snapshots_are_reachable_by_id_before_any_merge(
    tmp_path: Path, layout: str
) -> None:
    team = _team(tmp_path, layout)
    repo = team.maintainer
    first, second = team.agent_ids
    shown = _json(repo, "show", f"id:{first[:8].upper()}")
    assert (shown["number"], shown["id"], shown["joined_by"]) == (2, first, None)
    assert "+x = 1" in repo.ok("show", f"id:{first}")
    # From the fork (the maintainer's snapshot 1) along the other line, and across lines.
    along = repo.ok("diff", "1", f"id:{second}")
    assert "-x = 0" in along and "+x = 2" in along and "app.py" not in along
    across = repo.ok("diff", "2", f"id:{second}")
    assert "-v2" in across and "+v1" in across and "+x = 2" in across
    bad = repo.snap("show", "id:ffffffff")
    assert bad.returncode == 1 and len(bad.stderr.splitlines()) == 1, bad.stderr


def test_a_rollback_by_id_to_a_fetched_line_needs_no_merge_on_the_refs(tmp_path: Path) -> None:
    team = _team(tmp_path, "refs")
    repo = team.maintainer
    repo.git("reset", "-q", "--hard", "HEAD^1")  # undo the git merge: only the fetch remains
    assert repo.snap("verify").returncode == 0
    rolled = _json(repo, "rollback", "--to", f"id:{team.agent_ids[0]}")
    assert rolled["snapshot"]["number"] == 3
    assert (repo.path / "lib.py").read_text() == "x = 1\n"
    assert (repo.path / "app.py").read_text() == "v1\n"
    assert _json(repo, "show", "3")["metadata"]["rollback_to_id"] == team.agent_ids[0]
    assert repo.snap("verify").returncode == 0


def test_an_agent_merges_the_main_lines_later_work_into_its_own_line(tmp_path: Path) -> None:
    # The other direction: the agent's clone, on a line of its own, takes main's later
    # snapshot 2 (git merge origin/main); its merge snapshot joins the main line's part.
    team = _team(tmp_path, "refs")
    agent = Repo(tmp_path / "agent")
    team.maintainer.git("reset", "-q", "--hard", "HEAD^1")
    team.maintainer.git("push", "-q", "origin", "main")
    agent.git("fetch", "-q", "origin")
    agent.ok("fetch", "origin")
    agent.git("merge", "-q", "--no-edit", "origin/main")
    merged = _json(agent, "merge")
    assert (merged["number"], merged["parent_id"]) == (4, team.agent_ids[-1])
    assert merged["merges"] == [team.main_head]
    assert [f["path"] for f in merged["files"]] == ["app.py"]
    assert [s["id"] for s in _json(agent, "log")[0]["joins"]] == [team.main_head]
    titles = [m["title"] for m in _json(agent, "milestone", "list")]
    assert titles == ["first", "feature done", "main done"]
    assert agent.snap("verify").returncode == 0
    # Its line, rebuilt from the refs, still runs through its fork and its merge.
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (agent.path / ".git/snapline" / name).unlink(missing_ok=True)
    assert [s["number"] for s in _json(agent, "log")] == [4, 3, 2, 1, 0]
    assert _json(agent, "show", f"id:{team.main_head}")["joined_by"] == 4


def test_a_merge_killed_after_its_refs_moved_is_caught_up(tmp_path: Path) -> None:
    # refs-published: the merge snapshot and the milestone closing it are on their refs,
    # the index not committed; the next command reads both, with the joined line.
    from tests.reliability.helpers import KILLED, cli

    team = _team(tmp_path, "refs")
    repo = team.maintainer
    child = cli(repo.path, "merge", crash="refs-published")
    assert child.returncode == KILLED, (child.returncode, child.stdout, child.stderr)
    log = _json(repo, "log")
    assert (log[0]["number"], log[0]["merges"]) == (3, [team.agent_ids[-1]])
    assert [s["id"] for s in log[0]["joins"]] == team.agent_ids[::-1]
    titles = [m["title"] for m in _json(repo, "milestone", "list")]
    assert titles == ["first", "main done", "feature done"]
    assert repo.snap("verify").returncode == 0
    assert "nothing to merge" in repo.ok("merge")
