"""``snapline merge`` on git's refs: what it makes of the milestones closed on the line it joins.

Real git, one bare remote. The maintainer records snapshot 1 and closes milestone 1,
pushes; an agent clones and records on a branch of its own; the maintainer records
snapshot 2; git merges the agent's branch. Then ``snapline merge`` (docs/format.md,
"Milestones across lines"):

- two milestones closed on the agent's line become one on the main line, numbered after
  its last, closing the merge: their titles in order, each tag once, and a description
  naming each one's number, title, range and record, a line each;
- a line on which no milestone was closed is joined with no milestone at all, and
  ``milestone list`` shows it as a line not in a milestone yet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.history_refs.gitrepo import Repo, new_repo


def _json(repo: Repo, *args: str) -> Any:
    return json.loads(repo.ok(*args, "--json"))


def _commit(repo: Repo, message: str) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-qm", message)


def _merged(tmp_path: Path, milestones: list[tuple[str, list[str]]]) -> tuple[Repo, list[str]]:
    """The maintainer after ``git merge`` of the agent's line, one snapshot per milestone.

    ``milestones``: each agent snapshot's milestone (title, tags), closed right after it;
    empty: two snapshots, no milestone. Returns the maintainer and the agent's ids.
    """
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "v0\n", "lib.py": "x = 0\n"})
    maintainer.ok("init")
    (maintainer.path / "app.py").write_text("v1\n")
    maintainer.ok("record", "app.py", "-m", "v1")
    maintainer.ok("milestone", "create", "--title", "first")
    _commit(maintainer, "v1")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")

    agent = Repo(tmp_path / "agent")
    Repo(tmp_path).git("clone", "-q", str(origin), str(agent.path))
    agent.ok("fetch", "origin")
    agent.ok("push", "--install-hook")
    agent.git("switch", "-q", "-c", "feature")
    ids = []
    for step, closed in enumerate(milestones or [("", []), ("", [])], start=1):
        (agent.path / "lib.py").write_text(f"x = {step}\n")
        agent.ok("record", "lib.py", "-m", f"lib {step}")
        ids.append(_json(agent, "log")[0]["id"])
        title, tags = closed
        if title:
            tagged = [arg for tag in tags for arg in ("--tag", tag)]
            agent.ok("milestone", "create", "--title", title, *tagged)
    _commit(agent, "feature")
    agent.git("push", "-q", "origin", "feature")

    (maintainer.path / "app.py").write_text("v2\n")
    maintainer.ok("record", "app.py", "-m", "v2")
    _commit(maintainer, "v2")
    maintainer.git("fetch", "-q", "origin")
    maintainer.ok("fetch", "origin")
    maintainer.git("merge", "-q", "--no-edit", "origin/feature")
    return maintainer, ids


def test_two_milestones_closed_on_the_joined_line_become_one_closing_the_merge(
    tmp_path: Path,
) -> None:
    repo, ids = _merged(tmp_path, [("feature one", ["feat"]), ("feature two", ["feat", "x"])])
    merged = _json(repo, "merge", "-m", "join the feature branch")
    assert (merged["number"], merged["tool"]) == (3, "merge")
    assert merged["description"] == "join the feature branch"
    listed = _json(repo, "milestone", "list")
    assert [(m["number"], m["first"], m["last"], m["title"]) for m in listed] == [
        (1, 1, 1, "first"),
        (2, 2, 3, "feature one + feature two"),
    ]
    (line,) = listed[1]["lines"]
    assert (line["line"], line["fork"], line["joined_by"]) == (ids[-1], 1, 3)
    assert [s["id"] for s in line["snapshots"]] == ids
    files = [m["file"] for m in line["milestones"]]
    closed = [
        (m["number"], m["title"], m["first"], m["last"], m["joined_by"]) for m in line["milestones"]
    ]
    assert closed == [(2, "feature one", 2, 2, 3), (3, "feature two", 3, 3, 3)]
    # The merge snapshot names the records it joined, as a clone reading it finds them.
    assert _json(repo, "show", "3")["metadata"]["joined_milestones"] == sorted(files)
    joined = _json(repo, "milestone", "show", "2")
    assert joined["tags"] == ["feat", "x"]
    assert joined["description"] == (
        f"joins milestone 2 'feature one' (snapshots 2..2, {files[0]}), closed on another "
        f"branch\njoins milestone 3 'feature two' (snapshots 3..3, {files[1]}), closed on "
        "another branch"
    )
    # The line under the milestone whose range holds the merge that joined it.
    text = repo.ok("milestone", "list").splitlines()
    at = text.index(
        f"      line {ids[-1][:12]}: snapshots 2..3 from snapshot 1, joined by snapshot 3"
    )
    assert text[at - 1].startswith("   2  snapshots 2..3  ")
    assert text[at - 1].endswith("  feature one + feature two  [feat, x]")
    assert text[at + 3 : at + 5] == [
        "        milestone 2 feature one (snapshots 2..2)",
        "        milestone 3 feature two (snapshots 3..3)",
    ]
    assert repo.snap("verify").returncode == 0


def test_a_line_with_no_milestone_is_joined_with_none(tmp_path: Path) -> None:
    repo, ids = _merged(tmp_path, [])
    merged = _json(repo, "merge")
    assert (merged["number"], merged["merges"]) == (3, [ids[-1]])
    listed = _json(repo, "milestone", "list")
    assert [(m["number"], m["title"], m["lines"]) for m in listed] == [(1, "first", [])]
    text = repo.ok("milestone", "list").splitlines()
    at = text.index("other lines, not in a milestone yet:")
    assert text[at + 1] == (
        f"      line {ids[-1][:12]}: snapshots 2..3 from snapshot 1, joined by snapshot 3"
    )
    assert repo.snap("verify").returncode == 0
    # Nothing closed the merge: the next milestone takes it in, from snapshot 2.
    created = _json(repo, "milestone", "create", "--title", "next")
    assert (created["number"], created["first"], created["last"]) == (2, 2, 3)
