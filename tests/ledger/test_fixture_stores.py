"""Stores written by earlier code, read by today's: tests/fixtures/ledger-{1,2}.bundle.

Each bundle is a team's git repository with its history committed in ``.snapline/ledger/``,
written by ``tests/fixtures/make_ledger_stores.py`` with the code of its time (ledger 1:
d7fdcca, raw objects; ledger 2: c82d55b, keyed objects). Its manifest beside it is what
that writer said of it (``log --json``, ``milestone list --json`` on each branch, the files
after a few snapshots and the commit holding exactly them): the oracle here is the writer
and git, not the reader under test. These keep every later reader honest about histories
users already have: each branch verifies and reads the same; moved onto git's refs by
``snapline upgrade``, it rolls back byte for byte to what git's tree holds, and the branch
left unmerged merges.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.ledger.conftest import Repo, blob_id, output, upgraded
from tests.object_form import keyed_bytes

FIXTURES = Path(__file__).parent.parent / "fixtures"
STORES = ("ledger-1", "ledger-2")


def _manifest(name: str) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return manifest


def _clone(name: str, tmp_path: Path) -> Repo:
    """A fresh clone of the fixture's bundle, every branch of it a local branch."""
    Repo(tmp_path).git("clone", "-q", str(FIXTURES / f"{name}.bundle"), "repo")
    repo = Repo(tmp_path / "repo")
    for branch in _manifest(name)["branches"]:
        if branch != "main":
            repo.git("branch", "-q", branch, f"origin/{branch}")
    return repo


def _work_files(repo: Repo) -> set[str]:
    """Every file of the work tree outside ``.git/`` and ``.snapline/``."""
    found = set()
    for path in repo.path.rglob("*"):
        rel = path.relative_to(repo.path).as_posix()
        if path.is_file() and rel.split("/")[0] not in (".git", ".snapline"):
            found.add(rel)
    return found


def _assert_files_are(repo: Repo, state: dict[str, Any]) -> None:
    """The work tree holds exactly the state's files, byte for byte as git's tree of its commit."""
    listed = repo.git("ls-tree", "-r", "--name-only", "-z", state["commit"]).stdout
    in_git = {rel for rel in listed.split("\0") if rel and not rel.startswith(".snapline/")}
    assert in_git == set(state["files"]), "the writer's files are its commit's tree"
    assert _work_files(repo) == in_git
    for rel in sorted(in_git):
        blob = _blob(repo, f"{state['commit']}:{rel}")
        data = (repo.path / rel).read_bytes()
        assert data == blob, rel
        assert _sha256(data) == state["files"][rel], rel


def _sha256(data: bytes) -> str:
    """The manifest's spelling of a content hash."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _blob(repo: Repo, spec: str) -> bytes:
    """The exact bytes git holds for ``COMMIT:PATH`` (``cat-file blob`` converts nothing)."""
    done = subprocess.run(
        ["git", "cat-file", "blob", spec], cwd=repo.path, capture_output=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize("name", STORES)
def test_each_branch_verifies_and_reads_as_its_writer_read_it(name: str, tmp_path: Path) -> None:
    manifest = _manifest(name)
    repo = _clone(name, tmp_path)
    assert (repo.ledger / "FORMAT").read_text() == manifest["format"]
    for branch, written in manifest["branches"].items():
        repo.git("checkout", "-q", branch)
        assert repo.git("rev-parse", "HEAD").stdout.strip() == written["commit"]
        for command in (["verify"], ["verify", "--full"]):
            result = repo.snap(*command)
            assert result.returncode == 0, f"{branch}: {output(result)}"
        assert repo.json("log") == written["log"], branch
        assert repo.json("milestone", "list") == written["milestones"], branch
        assert repo.status() == [], "reading wrote nothing git sees"
        # Ledger 1 holds raw objects only, ledger 2 keyed ones only (docs/format.md).
        keyed = manifest["format"] == "snapline ledger 2\n"
        assert {path.name.endswith(".x") for path in repo.object_files()} == {keyed}
    repo.git("checkout", "-q", "main")
    result = repo.snap("verify", "--deep")  # every recorded version rebuilt and hash-checked
    assert result.returncode == 0, output(result)


@pytest.mark.parametrize("name", STORES)
def test_forgotten_content_stays_forgotten(name: str, tmp_path: Path) -> None:
    manifest = _manifest(name)
    repo = _clone(name, tmp_path)
    assert manifest["forgotten"] == ["secret.env"]
    added = [
        entry["number"]
        for entry in manifest["branches"]["main"]["log"]
        if any(f["path"] == "secret.env" and f["kind"] == "added" for f in entry["files"])
    ]
    assert len(added) == 1
    shown = repo.snap("show", str(added[0]))
    assert shown.returncode == 0 and "hunter2" not in shown.stdout, output(shown)
    upgraded(repo)  # moved onto the refs, where the secret never goes
    result = repo.snap("rollback", "--to", str(added[0]), "--yes")
    assert result.returncode == 1, output(result)
    assert "secret.env" in result.stderr and "forgotten" in result.stderr
    assert repo.status() == [], "a refused rollback writes nothing"
    # Nowhere in the repository's history, in either object form, nor in any diff.
    secret = b"TOKEN=hunter2\n"
    for form in (secret, keyed_bytes(secret)):
        assert repo.git("cat-file", "-e", blob_id(form), check=False).returncode != 0
    assert repo.git("log", "--all", "--format=%H", "-S", "hunter2").stdout == ""
    for ref in repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/").stdout.split():
        listed = repo.git("rev-list", "--objects", ref).stdout.split()
        assert blob_id(secret) not in listed, ref


@pytest.mark.parametrize("name", STORES)
def test_the_moved_history_rebuilds_every_recorded_state_byte_for_byte(
    name: str, tmp_path: Path
) -> None:
    manifest = _manifest(name)
    repo = _clone(name, tmp_path)
    assert manifest["branches"]["main"]["log"], "the main line has snapshots"
    states = {label: s for label, s in manifest["states"].items() if s["branch"] != "agent-c"}
    assert len(states) >= 8
    # The ledger is read, never written: a rollback waits for the upgrade.
    assert repo.snap("rollback", "--to", "1", "--yes").returncode == 1
    upgraded(repo)
    for label, state in states.items():
        # A main-line state by its number, a joined branch's by its id (its line's number
        # is not the main line's).
        target = str(state["number"]) if state["branch"] == "main" else f"id:{state['id']}"
        repo.ok("rollback", "--to", target, "--yes")
        _assert_files_are(repo, state)
        assert repo.json("log", "-n", "1")[0]["description"].startswith("roll back"), label
    result = repo.snap("verify", "--full")
    assert result.returncode == 0, output(result)


@pytest.mark.parametrize("name", STORES)
def test_the_unmerged_branch_merges_once_moved_and_verifies(name: str, tmp_path: Path) -> None:
    manifest = _manifest(name)
    repo = _clone(name, tmp_path)
    branch = manifest["unmerged"]
    side = manifest["states"][branch]
    main_log = manifest["branches"]["main"]["log"]

    repo.git("merge", "-q", "--no-edit", branch)
    assert repo.snap("verify").returncode == 1, "two lines until `snapline merge`"
    refused = repo.snap("merge")
    assert refused.returncode == 1 and "snapline upgrade" in refused.stderr, output(refused)
    upgraded(repo)
    assert repo.snap("verify").returncode == 1, "still two lines until `snapline merge`"
    repo.ok("merge")
    for command in (["verify"], ["verify", "--full"]):
        result = repo.snap(*command)
        assert result.returncode == 0, output(result)
    log = repo.json("log")
    assert log[0]["number"] == main_log[0]["number"] + 1
    assert {joined["id"] for joined in log[0]["joins"]} >= {side["id"]}
    assert [entry["id"] for entry in log[1:]] == [entry["id"] for entry in main_log]

    # The merged branch's own state, reached by its id, rebuilt as git's tree holds it.
    repo.ok("rollback", "--to", f"id:{side['id']}", "--yes")
    _assert_files_are(repo, side)
    result = repo.snap("verify", "--full")
    assert result.returncode == 0, output(result)
