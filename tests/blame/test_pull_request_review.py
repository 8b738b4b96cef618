"""The pull request's review in CI with the history on git's refs: the range as git commits.

An agent's clone records on a branch (its snapshots on its own line, prompts, a person's
edit, a milestone, a guard run) and pushes; CI's fresh clone checks out the pull
request's head, runs docs/ci.md's step as written (``snapline fetch``, then ``blame
--commits "origin/$GITHUB_BASE_REF..HEAD"``), and the Markdown names the agent's
snapshots, prompts, files and line counts. After a squash merge, main's clone reviews
the merge commit the same way (``HEAD~1..HEAD``); its files being the agent's latest
snapshot, it follows the agent's line (store/refs/pinning.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from snapline import Workspace
from tests.blame.test_team_lines import _team
from tests.history_refs.gitrepo import ENV, Repo, new_repo
from tests.old_ledgers import ledger_checkout

FILES = {"app.py": "def main():\n    return 0\n", "lib.py": "X = 0\n"}
DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def _pull_request(tmp_path: Path) -> tuple[Path, Repo]:
    """A bare remote with main and the agent's branch ``pr``; the agent's clone."""
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", FILES)
    maintainer.ok("init")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.ok("push", "--install-hook")
    maintainer.git("push", "-q", "origin", "main")
    agent = Repo(tmp_path / "agent")
    Repo(tmp_path).git("clone", "-q", str(origin), str(agent.path))
    agent.ok("fetch", "origin")
    agent.ok("push", "--install-hook")
    agent.git("switch", "-q", "-c", "pr")
    prompt = {"prompt": {"session": "agent-7", "n": 3, "at": 1}}
    with Workspace.open(agent.path) as ws:
        ws.write_file("app.py", "def main():\n    return run()\n\n\ndef run():\n    return 1\n",
                      session="agent-7", metadata=prompt)  # fmt: skip
        ws.write_file("new.py", "print('new')\n", session="agent-7", metadata=prompt)
        (agent.path / "lib.py").write_text("X = 0\nY = 'by hand'\n")
        ws.resync(session="alice")
        ws.milestones.create("feature done")
        ws.guard(["true"])
    agent.git("add", "-A")
    agent.git("commit", "-qm", "the agent's work")
    agent.git("push", "-q", "origin", "pr")  # the pre-push hook carries its line
    return origin, agent


def _docs_step(clone: Path, tmp_path: Path) -> str:
    """docs/ci.md's refs-layout review step, run as written; the step summary it wrote."""
    doc = DOC.read_text()
    step = doc.split("## The pull request's review", 1)[1].split("run: |\n", 1)[1]
    script = "\n".join(line.strip() for line in step.split("```", 1)[0].splitlines())
    assert "--commits" in script
    summary = tmp_path / "summary.md"
    env = {
        **ENV,
        "GITHUB_BASE_REF": "main",
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), ENV["PATH"]]),
    }
    done = subprocess.run(["bash", "-euc", script], cwd=clone, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return summary.read_text()


def _names_the_agent_s_work(text: str) -> None:
    assert re.search(r"^\| head \| recorded: snapshot 3 on line [0-9a-f]{8} \|$", text, re.M)
    assert "| verify | passed |" in text
    assert "## snapline: line " in text and ", snapshots 1-3\n" in text
    assert "| snapshots | 3 (1-3) |" in text
    assert "| prompts | 1 in 1 sessions |" in text
    assert "| agent-7 | 3 |" in text
    assert "| M1 | feature done | 1-3 |" in text
    assert "| agent agent-7 | 6 |\n| person alice | 1 |\n| before snapshot 1 | 2 |" in text
    assert "| app.py | 6 | 5 | 0 | 1 | 0 |" in text
    assert "| new.py | 1 | 1 | 0 | 0 | 0 |" in text
    assert "| lib.py | 2 | 0 | 1 | 1 | 0 |" in text
    assert "| 3 | true | passed |" in text
    assert "](" not in text and "http" not in text


def test_ci_s_clone_of_the_pull_request_reviews_the_agent_s_line(tmp_path: Path) -> None:
    origin, _ = _pull_request(tmp_path)
    ci = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", f"file://{origin}", str(ci.path))
    ci.git("checkout", "-q", "origin/pr")
    text = _docs_step(ci.path, tmp_path)
    assert text.startswith("## snapline: origin/main..HEAD\n")
    assert re.search(r"^\| base \| recorded: snapshot 0 on line [0-9a-f]{8} \|$", text, re.M)
    _names_the_agent_s_work(text)


def test_main_s_clone_reviews_a_squash_merge_by_its_commit(tmp_path: Path) -> None:
    origin, _ = _pull_request(tmp_path)
    main = Repo(tmp_path / "main")
    Repo(tmp_path).git("clone", "-q", str(origin), str(main.path))
    main.git("merge", "-q", "--squash", "origin/pr")
    main.git("commit", "-qm", "the pull request, squashed")
    main.ok("fetch", "origin")
    text = main.ok("blame", "--commits", "HEAD~1..HEAD")
    assert text.startswith("## snapline: HEAD~1..HEAD\n")
    _names_the_agent_s_work(text)
    # Snapshot references range over the line main's clone follows: the line its
    # checkout is a snapshot of (the squash commit's files are the agent's latest state).
    summary = main.ok("blame", "--summary", "--markdown", "0..")
    assert summary.startswith("## snapline: snapshots 1-3\n"), summary
    assert "No snapshot between these commits." in main.ok("blame", "--commits", "HEAD..")


def test_a_revision_git_does_not_know_is_one_clear_error(tmp_path: Path) -> None:
    origin, _ = _pull_request(tmp_path)
    ci = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", str(origin), str(ci.path))
    ci.ok("fetch", "origin")
    done = ci.snap("blame", "--commits", "origin/nowhere..HEAD")
    assert done.returncode == 1
    assert "'origin/nowhere': git knows no such commit" in done.stderr
    assert "Traceback" not in done.stderr
    assert ci.snap("blame", "--commits", "HEAD...HEAD").returncode == 2
    # No git to ask: the range cannot be read (1), never 5, which is push's and fetch's.
    (tmp_path / "no-git").mkdir()
    done = ci.snap("blame", "--commits", "HEAD~1..HEAD", env={"PATH": str(tmp_path / "no-git")})
    assert done.returncode == 1
    assert done.stderr == (
        "snapline: error: 'HEAD~1': `git rev-parse` failed: no git on PATH; "
        "install git or put it on PATH\n"
    )


def test_a_merge_of_two_agents_pull_requests_is_reviewed_line_by_line(tmp_path: Path) -> None:
    _, _, fresh = _team(tmp_path, "squash")
    text = fresh.ok("blame", "--commits", "HEAD~2..HEAD")
    assert re.search(r"^\| head \| merged: git's merge of snapshot 3 on line .*, snapshot 3 on ",
                     text, re.M)  # fmt: skip
    assert len(re.findall(r"^## snapline: line [0-9a-f]{8}, snapshots 1-3$", text, re.M)) == 2
    assert "| M1 | a done | 1-3 |" in text and "| M1 | b done | 1-3 |" in text
    assert "| agent agent-a | 5 |\n| person a's reviewer | 1 |" in text
    assert "| agent agent-b | 5 |" in text
    # shared.py, both agents' merge: each line's review leaves the other's line to it.
    assert text.count("| shared.py | 10 | 1 | 0 | 8 | 1 |") == 2
    assert text.count("| not recorded on this line | 1 |") == 2


def test_an_in_tree_history_is_told_to_give_snapshot_references(tmp_path: Path) -> None:
    repo = ledger_checkout(tmp_path / "repo")  # an old branch, its ledger in the tree
    done = repo.snap("blame", "--commits", "HEAD..HEAD")
    assert done.returncode == 1, done.stderr
    assert "not on git's refs: give snapshot references (--markdown A..B)" in done.stderr
    assert "Traceback" not in done.stderr
