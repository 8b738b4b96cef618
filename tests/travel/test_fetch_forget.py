"""`snapline fetch` after a remote's published forget: the rewrite is taken in, nothing lost.

`snapline forget --publish` force-pushes the lines a forget rewrote (same snapshot ids,
numbers and chain hashes; new commits). A clone that had fetched the line before used to
get "diverged" (exit 1) with no way forward. The remote's forget names the rewrite
(`Rewrote: REF OLD NEW`); when the clone's tip is OLD (or before it) and the remote's
line holds every snapshot of the clone's, by number, id and chain hash, fetch takes the
rewrite by compare-and-swap: the clone loses no snapshot and the secret leaves its refs.
A line rewritten without such a forget, or one whose rewrite drops a snapshot held here,
is still refused, and nothing here moves.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo

SECRET = b"AKIA-SECRET-TOKEN-5d1c0b"


def _reachable_hold_secret(repo: Repo) -> bool:
    refs = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/").split()
    listed = repo.git("rev-list", "--objects", *refs).splitlines()
    for oid in (line.split()[0] for line in listed):
        data = subprocess.run(
            [*GIT, "cat-file", "-p", oid], cwd=repo.path, env=ENV, capture_output=True, check=True
        ).stdout
        if SECRET in data:
            return True
    return False


def _published(tmp_path: Path) -> tuple[Repo, Repo, str]:
    """The agent (secret in snapshot 1, pushed), a clone that fetched it; the line's ref."""
    agent = new_repo(tmp_path / "agent", {"a.txt": "one\n"})
    remote = tmp_path / "remote.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(remote)], env=ENV, check=True)
    agent.git("remote", "add", "origin", str(remote))
    agent.ok("init")
    (agent.path / "config.env").write_bytes(SECRET + b"\n")
    agent.ok("record", "config.env", "-m", "add the config")
    (agent.path / "a.txt").write_text("two\n")
    agent.ok("record", "a.txt", "-m", "edit a")
    agent.git("push", "-q", "origin", "main")
    agent.ok("push", "origin")
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", str(remote), str(clone.path))
    clone.ok("fetch", "origin")
    assert "edit a" in clone.ok("log") and _reachable_hold_secret(clone)
    (line,) = clone.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()
    return agent, clone, line


def test_fetch_takes_in_a_published_forget_s_rewrite(tmp_path: Path) -> None:
    agent, clone, line = _published(tmp_path)
    agent.ok("forget", "config.env", "-m", "leaked token")
    agent.ok("forget", "--publish", "origin")
    rewritten = agent.git("rev-parse", line).strip()

    done = clone.snap("fetch", "origin", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout)
    assert answer["refused"] == [], answer
    assert line in [moved["ref"] for moved in answer["moved"]]
    assert clone.git("rev-parse", line).strip() == rewritten
    assert not _reachable_hold_secret(clone)
    # Every snapshot still there, the forgotten version named as such, the history sound.
    assert "edit a" in clone.ok("log")
    assert "forgotten" in clone.ok("show", "1")
    clone.ok("verify", "--full")


def test_a_rewrite_without_a_forget_naming_it_is_still_refused(tmp_path: Path) -> None:
    agent, clone, line = _published(tmp_path)
    before = clone.git("rev-parse", line).strip()
    # The remote's line moved to another commit by hand: no forget names that rewrite.
    other = agent.git(
        "commit-tree", "-m", "elsewhere", agent.git("rev-parse", "main^{tree}").strip()
    )
    agent.git("push", "-q", "--force", "origin", f"{other.strip()}:{line}")

    done = clone.snap("fetch", "origin")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "diverged" in done.stderr and "Traceback" not in done.stderr
    assert clone.git("rev-parse", line).strip() == before


def test_a_forget_whose_rewrite_drops_a_snapshot_held_here_is_refused(tmp_path: Path) -> None:
    agent, clone, line = _published(tmp_path)
    tip = agent.git("rev-parse", line).strip()
    # A crafted "rewrite" of the line without its latest snapshot, and a forget naming it.
    tree = agent.git("rev-parse", f"{tip}~1^{{tree}}").strip()
    dropped = agent.git("commit-tree", "-m", "rewritten", "-p", f"{tip}~2", tree).strip()
    message = f"snapline forget: 1 version(s) of a.txt\n\nRewrote: {line} {tip} {dropped}\n"
    forget = agent.git("commit-tree", "-m", message, tree).strip()
    agent.git("push", "-q", "--force", "origin", f"{dropped}:{line}")
    agent.git("push", "-q", "origin", f"{forget}:refs/snapline/forgets/{'0' * 32}")

    done = clone.snap("fetch", "origin")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    # The refusal names the forget, and the one command that takes it, with its cost.
    assert f"refs/snapline/forgets/{'0' * 32} rewrote the line" in done.stderr
    assert f"git fetch origin '+{line}:{line}'" in done.stderr and "drops them" in done.stderr
    assert clone.git("rev-parse", line).strip() == tip
