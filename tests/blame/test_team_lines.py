"""Blame on main after two agents' pull requests are merged, with the history on git's refs.

Two agents record on lines of their own in two clones and push (issue 37's team, as
``tests/history_refs/test_team.py`` sets it up); a maintainer squash-merges,
rebase-merges or merge-commits both pull requests into main. A fresh clone of main
that fetched the history and never wrote to it blames every file as the agent's own
clone does, line by line: the same snapshot (number and id), kind, tool, session,
prompt, milestone and time. A file both agents changed is git's merge of their two
versions: each line is blamed as in the clone of the agent whose version has it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.history_refs.gitrepo import Repo, new_repo

SHARED = "".join(f"shared {n}\n" for n in range(1, 11))
FILES = {
    "app.py": "def main():\n    return 0\n",
    "lib.py": "X = 0\nY = 0\n",
    "shared.py": SHARED,
}

Lines = list[dict[str, Any]]


def _blame(repo: Repo, path: str) -> Lines:
    lines: Lines = json.loads(repo.ok("blame", path, "--json"))["lines"]
    return lines


def _agent(tmp_path: Path, origin: Path, name: str, edits: list[tuple[str, str, str]]) -> Repo:
    """A clone that fetches the history, records ``edits`` (path, new text, how) and pushes.

    ``how`` is ``record`` (the agent's session) or ``resync`` (a person, by hand).
    """
    agent = Repo(tmp_path / name)
    Repo(tmp_path).git("clone", "-q", str(origin), str(agent.path))
    agent.ok("fetch", "origin")
    agent.ok("push", "--install-hook")  # a clone has no hooks of its own
    agent.git("switch", "-q", "-c", name)
    for path, text, how in edits:
        (agent.path / path).write_text(text)
        if how == "record":
            agent.ok("record", path, "--session", f"agent-{name}", "-m", f"{name}: {path}")
        else:
            agent.ok("resync", path, "--session", f"{name}'s reviewer", "-m", "by hand")
    agent.ok("milestone", "create", "--title", f"{name} done")
    agent.git("add", "-A")
    agent.git("commit", "-qm", f"{name}'s work")
    agent.git("push", "-q", "origin", name)  # the pre-push hook carries its line
    return agent


def _team(tmp_path: Path, merging: str) -> tuple[Repo, Repo, Repo]:
    """Agents ``a`` and ``b`` merged into main by ``merging``; a fresh clone of main."""
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", FILES)
    maintainer.ok("init")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")
    a = _agent(
        tmp_path,
        origin,
        "a",
        [
            ("app.py", "def main():\n    return run()\n\n\ndef run():\n    return 1\n", "record"),
            ("shared.py", SHARED.replace("shared 1\n", "shared one, by a\n"), "record"),
            ("app.py", "def main():\n    return run()  # checked\n\n\ndef run():\n    return 1\n",
             "resync"),
        ],
    )  # fmt: skip
    b = _agent(
        tmp_path,
        origin,
        "b",
        [
            ("lib.py", "X = 0\nY = 'b'\nZ = X\n", "record"),
            ("shared.py", SHARED.replace("shared 10\n", "shared ten, by b\n"), "record"),
            ("new.py", "print('new')\r\nprint('no newline')", "record"),
        ],
    )
    maintainer.git("fetch", "-q", "origin")
    for name in ("a", "b"):
        if merging == "squash":
            maintainer.git("merge", "-q", "--squash", f"origin/{name}")
            maintainer.git("commit", "-qm", f"merge {name} (squashed)")
        elif merging == "rebase":
            maintainer.git("switch", "-q", "-c", f"rebased-{name}", f"origin/{name}")
            maintainer.git("rebase", "-q", "main")
            maintainer.git("switch", "-q", "main")
            maintainer.git("merge", "-q", "--ff-only", f"rebased-{name}")
        else:
            maintainer.git("merge", "-q", "--no-ff", "-m", f"merge {name}", f"origin/{name}")
    maintainer.git("push", "-q", "origin", "main")
    fresh = Repo(tmp_path / "fresh")
    Repo(tmp_path).git("clone", "-q", str(origin), str(fresh.path))
    fresh.ok("fetch", "origin")
    return a, b, fresh


@pytest.mark.parametrize("merging", ["squash", "rebase", "merge"])
def test_main_s_fresh_clone_blames_each_line_as_the_agent_s_clone_does(
    tmp_path: Path, merging: str
) -> None:
    a, b, fresh = _team(tmp_path, merging)
    assert (fresh.path / "shared.py").read_text() == SHARED.replace(
        "shared 1\n", "shared one, by a\n"
    ).replace("shared 10\n", "shared ten, by b\n")

    for path, agent in (("app.py", a), ("lib.py", b), ("new.py", b)):
        assert _blame(fresh, path) == _blame(agent, path), path
    kinds = {line["kind"] for line in _blame(fresh, "app.py")}
    assert kinds == {"agent", "person", "baseline"}
    assert {line["kind"] for line in _blame(fresh, "new.py")} == {"agent"}

    # git's merge of the two versions: line 1 as a's clone blames it, line 10 as b's.
    on_main, by_a, by_b = (_blame(repo, "shared.py") for repo in (fresh, a, b))
    assert on_main[0] == by_a[0] and on_main[0]["session"] == "agent-a"
    assert on_main[9] == by_b[9] and on_main[9]["session"] == "agent-b"
    assert on_main[1:9] == by_a[1:9] == by_b[1:9]
    assert {line["kind"] for line in on_main[1:9]} == {"baseline"}
    assert on_main[0]["id"] != on_main[9]["id"]

    summary = json.loads(fresh.ok("blame", "--summary", "--json"))["total"]
    assert summary["unrecorded"] == 0
    assert summary["sessions"] == {"agent-a": 5, "agent-b": 5}
    assert summary["people"] == {"a's reviewer": 1}


def test_a_line_changed_by_hand_in_the_checkout_is_the_only_one_unrecorded(
    tmp_path: Path,
) -> None:
    a, _, fresh = _team(tmp_path, "squash")
    text = (fresh.path / "app.py").read_text().replace("return 1", "return 2")
    (fresh.path / "app.py").write_text(text)
    on_main, by_a = _blame(fresh, "app.py"), _blame(a, "app.py")
    changed = [n for n, line in enumerate(on_main) if line != by_a[n]]
    assert changed == [5]
    assert on_main[5]["kind"] == "unrecorded" and on_main[5]["snapshot"] is None
