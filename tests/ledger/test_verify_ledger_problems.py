"""What `snapline verify --json` says about a ledger file, field by field and word for word.

test_tamper.py shows each damage is found; here is what the user is told about it: the
file named from the workspace's root (also when verify runs in a subdirectory), the
advice to restore it where restoring is the way out, and the index named where the file
may be right and the index wrong. A delta in the index that says something else than its
ledger file is found whichever of the two deltas differs.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.ledger.conftest import FIXTURES, NOTES, Repo, blob_id, copy, output, upgraded
from tests.object_form import keyed_bytes, object_file


def _verify(repo: Repo, *, cwd: Path | None = None) -> list[dict[str, Any]]:
    where = Repo(cwd) if cwd is not None else repo
    result = where.snap("verify", "--full", "--json")
    assert result.returncode == 3, output(result)
    problems: list[dict[str, Any]] = json.loads(result.stdout)["problems"]
    return problems


def _index(repo: Repo, sql: str) -> None:
    db = sqlite3.connect(repo.path / ".snapline" / "index.db")
    with db:
        db.execute(sql)
    db.close()


def test_an_edited_file_is_named_from_the_root_with_how_to_restore_it(
    origin: Repo, tmp_path: Path
) -> None:
    repo = copy(origin, tmp_path / "copy")
    path = repo.snapshot_file(2)
    path.write_bytes(path.read_bytes().replace(b"add notes", b"add notez", 1))
    (repo.path / "deeper" / "down").mkdir(parents=True)
    where = path.relative_to(repo.path).as_posix()

    problems = _verify(repo, cwd=repo.path / "deeper" / "down")

    assert problems == [
        {
            "kind": "ledger",
            "message": f"{where}: does not match its chain hash: it was edited after it was "
            f"written; restore it from git in the workspace's root (`git checkout -- {where}`) "
            "or from a copy",
            "path": where,
            "number": 2,
            "expected": None,
            "actual": None,
            "severity": "corrupt",
        }
    ]
    # The advice, run where it says, restores the file: verify is clean again.
    advice = problems[0]["message"].split("`")[1]
    subprocess.run(shlex.split(advice), cwd=repo.path, check=True, capture_output=True)
    assert repo.snap("verify", "--full").returncode == 0


def test_an_unreadable_file_is_named_from_the_root_too(origin: Repo, tmp_path: Path) -> None:
    """A file that does not parse is named as the edited one is, from the workspace's
    root, when verify runs in a subdirectory."""
    repo = copy(origin, tmp_path / "copy")
    path = repo.snapshot_file(2)
    path.write_bytes(b"not a ledger file at all\n")
    (repo.path / "deeper" / "down").mkdir(parents=True)
    where = path.relative_to(repo.path).as_posix()

    problems = _verify(repo, cwd=repo.path / "deeper" / "down")

    named = [p for p in problems if p["kind"] == "ledger"]
    assert [p["path"] for p in named] == [where], problems
    assert named[0]["message"].startswith(f"{where}: "), named
    assert f"`git checkout -- {where}`" in named[0]["message"], named


def test_a_missing_object_names_the_snapshot_file_that_needs_it(
    origin: Repo, tmp_path: Path
) -> None:
    repo = copy(origin, tmp_path / "copy")
    object_file(repo.ledger, NOTES.encode()).unlink()
    where = repo.snapshot_file(2).relative_to(repo.path).as_posix()
    notes = "sha256:" + hashlib.sha256(NOTES.encode()).hexdigest()

    problems = _verify(repo)

    assert problems == [
        {
            "kind": "ledger",
            "message": f"{where}: the object holding notes.txt ({notes}) is missing from the "
            "ledger; restore .snapline/ledger/objects from git or from a copy",
            "path": where,
            "number": 2,
            "expected": None,
            "actual": None,
            "severity": "corrupt",
        }
    ]


def test_a_forgotten_object_brought_back_says_the_forget_is_not_finished(
    tmp_path: Path,
) -> None:
    # ledger-2 forgot secret.env's one version; its object file put back, as a restore
    # from a backup would.
    Repo(tmp_path).git("clone", "-q", str(FIXTURES / "ledger-2.bundle"), "repo")
    repo = Repo(tmp_path / "repo")
    secret = b"TOKEN=hunter2\n"
    path = object_file(repo.ledger, secret)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(keyed_bytes(secret))
    where = path.relative_to(repo.path).as_posix()

    result = repo.snap("verify", "--full", "--json")

    assert result.returncode == 1, output(result)
    assert json.loads(result.stdout)["problems"] == [
        {
            "kind": "forget-incomplete",
            "message": f"{where} still holds content that a forget removed: the forget is "
            "not finished here. Run `snapline upgrade`, which moves this history onto git's "
            "refs without it (never restore this file from a backup, which would bring the "
            "content back)",
            "path": where,
            "number": None,
            "expected": None,
            "actual": None,
            "severity": "error",
        }
    ]
    # The advice, as written, finishes the forget (a rebuilt index did not: the file
    # kept the content).
    upgraded(repo)
    assert repo.snap("verify", "--full").returncode == 0
    listed = repo.git("rev-list", "--objects", "--no-object-names", "--glob=refs/snapline")
    assert blob_id(secret) not in listed.stdout.split()


_ELSE = (
    "{}: says something else about {} than the local index: either the file was edited "
    "(restore it from git) or the index is damaged (delete .snapline/index.db: it is "
    "rebuilt from the ledger)"
)


def test_a_milestone_the_index_holds_otherwise_names_the_index(
    origin: Repo, tmp_path: Path
) -> None:
    repo = copy(origin, tmp_path / "copy")
    _index(repo, "UPDATE milestones SET title = 'firsT' WHERE number = 1")
    (path,) = repo.milestone_files()
    where = path.relative_to(repo.path).as_posix()

    problems = _verify(repo)

    assert {
        "kind": "ledger",
        "message": _ELSE.format(where, "milestone 1"),
        "path": where,
        "number": None,
        "expected": None,
        "actual": None,
        "severity": "corrupt",
    } in problems, problems


@pytest.mark.parametrize(
    ("damaged", "taken_from"), [("forward", "reverse"), ("reverse", "forward")]
)
def test_a_delta_the_index_holds_otherwise_names_the_index(
    origin: Repo, tmp_path: Path, damaged: str, taken_from: str
) -> None:
    repo = copy(origin, tmp_path / "copy")
    # Snapshot 1's delta in the index swapped for its other direction: well formed, and
    # everything else about the snapshot as its ledger file says.
    _index(repo, f"UPDATE changes SET {damaged} = {taken_from} WHERE snapshot = 1")
    where = repo.snapshot_file(1).relative_to(repo.path).as_posix()

    problems = _verify(repo)

    ledger = [p for p in problems if p["kind"] == "ledger"]
    assert ledger == [
        {
            "kind": "ledger",
            "message": _ELSE.format(where, "snapshot 1"),
            "path": where,
            "number": 1,
            "expected": None,
            "actual": None,
            "severity": "corrupt",
        }
    ]


def test_a_baseline_the_index_holds_otherwise_names_the_index(origin: Repo, tmp_path: Path) -> None:
    repo = copy(origin, tmp_path / "copy")
    # One of the baseline's two files given another size in the index: the two sides
    # are compared file by file, in path order.
    _index(repo, "UPDATE changes SET size = 99 WHERE snapshot = 0 AND path = 'README.md'")
    where = repo.snapshot_file(0).relative_to(repo.path).as_posix()

    problems = _verify(repo)

    assert [p for p in problems if p["kind"] == "ledger"] == [
        {
            "kind": "ledger",
            "message": _ELSE.format(where, "snapshot 0"),
            "path": where,
            "number": 0,
            "expected": None,
            "actual": None,
            "severity": "corrupt",
        }
    ]
