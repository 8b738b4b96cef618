"""A damaged guard check record on ``refs/snapline/checks/<line>``: `verify` names it (exit 3).

`snapline log` reads every check record of the line and refuses a damaged one (exit 3,
naming the commit); `verify`, which CI trusts, used to read none and said ok. The record
is crafted with git's plumbing only, as a hand or a bad tool would commit it: a blob named
as the ledger names a check record, holding ``exit zero``, on a commit whose parent is the
line's check before it. `verify` finds it in its whole check and in the check since its
checkpoint (the commit came after the checkpoint was kept), in one problem naming the ref
and the commit.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo

_NAME = "20261129T130000Z-0123456789abcdef0123456789abcdef.check"


def _plumb(repo: Repo, args: list[str], given: str) -> str:
    done = subprocess.run(
        [*GIT, *args], cwd=repo.path, input=given, capture_output=True, text=True, env=ENV
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _guarded(tmp_path: Path) -> tuple[Repo, str]:
    """A work tree with snapshot 1 checked by `guard`, verified once; its checks ref."""
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit")
    repo.ok("guard", "--", "true")
    (ref,) = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/checks/").split()
    assert "ok:" in repo.ok("verify")  # the checkpoint: snapshot 1, this check read sound
    return repo, ref


def _damage(repo: Repo, ref: str) -> str:
    """A check record holding ``exit zero`` committed onto ``ref``; the new commit."""
    tip = repo.git("rev-parse", ref).strip()
    (old,) = repo.git("ls-tree", "--name-only", tip).split()
    text = repo.git("cat-file", "blob", f"{tip}:{old}").replace("\nexit 0\n", "\nexit zero\n")
    assert "exit zero" in text
    blob = _plumb(repo, ["hash-object", "-w", "--stdin"], text)
    tree = _plumb(repo, ["mktree"], f"100644 blob {blob}\t{_NAME}\n")
    commit = _plumb(repo, ["commit-tree", tree, "-p", tip], "snapline check of 1: exit 0\n")
    repo.git("update-ref", ref, commit, tip)
    return commit


@pytest.mark.parametrize("args", [[], ["--full"]], ids=["since-checkpoint", "full"])
def test_a_damaged_check_record_on_the_ref_is_named_by_verify(
    tmp_path: Path, args: list[str]
) -> None:
    repo, ref = _guarded(tmp_path)
    commit = _damage(repo, ref)

    logged = repo.snap("log")
    assert logged.returncode == 3 and commit in logged.stderr  # the oracle: log refuses it

    done = repo.snap("verify", "--json", *args)
    assert done.returncode == 3, done.stdout + done.stderr
    problems = json.loads(done.stdout)["problems"]
    assert len(problems) == 1, problems
    (problem,) = problems
    kind = (problem["kind"], problem["severity"], problem["path"])
    assert kind == ("bad-record", "corrupt", None)
    assert ref in problem["message"] and commit in problem["message"], problem
    # What it is, and the way back, named with the ref itself.
    assert problem["message"].startswith(f"{ref}: "), problem
    assert problem["message"].endswith(
        " (damaged or crafted: no snapline writes it); set the ref back to the sound check "
        f"before it with `git update-ref {ref} COMMIT` (`git log {ref}` lists them) or "
        "restore it from a copy"
    ), problem
    assert "Traceback" not in done.stderr

    text = repo.snap("verify", *args)
    assert text.returncode == 3 and commit in text.stdout, text.stdout + text.stderr
