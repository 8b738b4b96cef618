"""A forget of a version that lives among deltas: tests/fixtures/ledger-forgotten-edit.bundle.

The in-tree ledger's forget (the code of c82d55b, ``make_ledger_forgotten_edit.py``)
rewrote the forward delta that produced the forgotten version (snapshot 1) and the
reverse delta that went back to it (snapshot 2) as tombstones: the digest the chain hash
covers. Today's check of that ledger must take a tombstone for no content, and a live
delta to or from the forgotten version, put back from git's history, for a forget that
is not finished here. A tombstone is compared with the index's by its digest, so an
index that holds another one is named, as for any other delta.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.ledger.conftest import FIXTURES, LOCAL_NAMES, Repo, blob_id, output, upgraded

NAME = "ledger-forgotten-edit"
SECRET_LINE = b"token = s3cr3t-hunter2\n"


def _manifest() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((FIXTURES / f"{NAME}.json").read_text())
    return manifest


def _clone(tmp_path: Path) -> Repo:
    Repo(tmp_path).git("clone", "-q", str(FIXTURES / f"{NAME}.bundle"), "repo")
    return Repo(tmp_path / "repo")


def _secret(repo: Repo) -> bytes:
    """The forgotten version, made from the baseline as snapshot 1 edited it."""
    first = repo.git("rev-list", "--max-parents=0", "HEAD").stdout.strip()
    before = subprocess.run(
        ["git", "cat-file", "blob", f"{first}:settings.conf"],
        cwd=repo.path,
        capture_output=True,
        check=True,
    ).stdout
    secret = before.replace(b"token = (unset)\n", SECRET_LINE)
    assert "sha256:" + hashlib.sha256(secret).hexdigest() == _manifest()["secret"]
    return secret


def _verify(repo: Repo, code: int) -> list[dict[str, Any]]:
    result = repo.snap("verify", "--full", "--json")
    assert result.returncode == code, output(result)
    problems: list[dict[str, Any]] = json.loads(result.stdout)["problems"]
    return problems


def _index(repo: Repo, sql: str) -> Any:
    db = sqlite3.connect(repo.path / ".snapline" / "index.db")
    with db:
        found = db.execute(sql).fetchall()
    db.close()
    return found


def test_the_finished_forget_verifies_clean(tmp_path: Path) -> None:
    repo = _clone(tmp_path)
    manifest = _manifest()
    # What the writer left: each delta to or from the secret a tombstone, the secret's
    # text in no ledger file (it was in them before the forget).
    recorded = manifest["commits"]["recorded"]
    for number, direction in (("1", "forward"), ("2", "reverse")):
        where = manifest["snapshot_files"][number]
        assert f"  {direction} forgotten sha256:" in (repo.path / where).read_text()
        before = repo.git("show", f"{recorded}:{where}").stdout
        assert f"  {direction}\n" in before and SECRET_LINE.decode().strip() in before
    ledger = [p for p in (repo.path / ".snapline" / "ledger").rglob("*") if p.is_file()]
    assert not [p for p in ledger if SECRET_LINE.strip() in p.read_bytes()]

    assert _verify(repo, 0) == []


@pytest.mark.parametrize(("number", "direction"), [(1, "forward"), (2, "reverse")])
def test_a_delta_of_the_forgotten_version_put_back_says_the_forget_is_not_finished(
    tmp_path: Path, number: int, direction: str
) -> None:
    # Snapshot 1's forward delta produces the secret; snapshot 2's reverse delta goes
    # back to it. The file as git's history holds it from before the forget is what a
    # restore of the ledger from an old commit or a backup brings back.
    repo = _clone(tmp_path)
    manifest = _manifest()
    where = manifest["snapshot_files"][str(number)]
    repo.git("checkout", manifest["commits"]["recorded"], "--", where)
    assert f"  {direction}\n" in (repo.path / where).read_text()

    problems = _verify(repo, 1)

    assert problems == [
        {
            "kind": "forget-incomplete",
            "message": f"{where} still holds content that a forget removed: the forget is "
            "not finished here. Run `snapline upgrade`, which moves this history onto git's "
            "refs without it (never restore this file from a backup, which would bring the "
            "content back)",
            "path": where,
            "number": number,
            "expected": None,
            "actual": None,
            "severity": "error",
        }
    ]
    # The advice, as written, finishes the forget: nothing on the refs holds the secret.
    secret = _secret(repo)
    upgraded(repo)
    assert _verify(repo, 0) == []
    listed = repo.git("rev-list", "--objects", "--no-object-names", "--glob=refs/snapline")
    assert blob_id(secret) not in listed.stdout.split()
    objects = subprocess.run(
        ["git", "cat-file", "--batch"],
        input=listed.stdout.encode(),
        cwd=repo.path,
        capture_output=True,
        check=True,
    ).stdout
    assert SECRET_LINE.strip() not in objects


@pytest.mark.parametrize(
    ("number", "column", "other"),
    [(1, "forward", "SELECT reverse FROM changes WHERE snapshot = 2"),
     (2, "reverse", "SELECT forward FROM changes WHERE snapshot = 1")],
)  # fmt: skip
def test_a_tombstone_the_index_holds_otherwise_names_the_index(
    tmp_path: Path, number: int, column: str, other: str
) -> None:
    # The two tombstones of the forget swapped in the index: well formed, the other's
    # digest. The file still matches its chain hash, so only comparing the file with the
    # index, tombstone by tombstone, finds it.
    repo = _clone(tmp_path)
    repo.ok("log")
    ours = f"SELECT {column} FROM changes WHERE snapshot = {number}"
    ((kept,),) = _index(repo, ours)
    _index(repo, f"UPDATE changes SET {column} = ({other}) WHERE snapshot = {number}")
    ((now,),) = _index(repo, ours)
    assert kept[:1] == now[:1] == b"f" and kept != now, "both tombstones, other digests"
    where = _manifest()["snapshot_files"][str(number)]

    problems = _verify(repo, 3)

    assert [p for p in problems if p["kind"] == "ledger"] == [
        {
            "kind": "ledger",
            "message": f"{where}: says something else about snapshot {number} than the local "
            "index: either the file was edited (restore it from git) or the index is damaged "
            "(delete .snapline/index.db: it is rebuilt from the ledger)",
            "path": where,
            "number": number,
            "expected": None,
            "actual": None,
            "severity": "corrupt",
        }
    ]
    # The advice for the index, taken: rebuilt from the ledger, it holds the file's.
    for name in LOCAL_NAMES:
        if name.startswith("index.db"):
            (repo.path / ".snapline" / name).unlink(missing_ok=True)
    assert _verify(repo, 0) == []


def test_the_upgrade_keeps_the_versions_after_the_forgotten_one(tmp_path: Path) -> None:
    """The forget kept the version after the secret whole (its delta came from the
    secret): the upgrade writes those bytes into snapshot 2's state, never a placeholder,
    and snapshot 3's delta applies to them. Read from the refs alone (the index made
    from the ledger's dropped, as on every other clone), both are shown and restored as
    the ledger recorded them."""
    repo = _clone(tmp_path)
    recorded = {}
    for number in (2, 3):
        (change,) = json.loads(repo.ok("show", str(number), "--json").stdout)["files"]
        recorded[number] = change["result_hash"]
    upgraded(repo)
    for name in LOCAL_NAMES:
        (repo.path / ".git" / "snapline" / name).unlink(missing_ok=True)

    for number, result in recorded.items():
        shown = repo.snap("show", str(number))
        assert shown.returncode == 0, output(shown)
        repo.ok("rollback", "--to", str(number), "--yes")
        data = (repo.path / "settings.conf").read_bytes()
        assert "sha256:" + hashlib.sha256(data).hexdigest() == result, number
    assert _verify(repo, 0) == []
