"""A 0.2 ``snapline run`` killed before it recorded, in a checkout of the in-tree ledger.

The fixture (``tests/fixtures/interrupted-run-0.2.tar.gz``, made by the code of c82d55b
with ``make_interrupted_run.py``) holds the run's journal entry in its local index as
0.2 left it. Settling it means recording a snapshot, which this snapline refuses in a
history it only reads: reading commands answer anyway and say in one line what waits
and what to do; a write refuses with the ledger's one line; after ``snapline upgrade``
the first command records the run's changes, as 0.2's next open would have.
"""

from __future__ import annotations

import json
import sqlite3
import tarfile
from pathlib import Path
from typing import Any

from tests.history_refs.gitrepo import Repo
from tests.history_refs.upgrading import FIXTURES, git_status, upgrade

MANIFEST: dict[str, Any] = json.loads((FIXTURES / "interrupted-run-0.2.json").read_text())
DESCRIPTION = json.loads(MANIFEST["journal"][0]["payload"])["description"]
WAITING = (
    f"a `snapline run` interrupted at {MANIFEST['journal'][0]['created']} ({DESCRIPTION}) "
    "left changes on disk that no snapshot records: this history is only read until "
    "`snapline upgrade` moves it onto refs, and the first command after that "
    "records them\n"
)


def _checkout(tmp_path: Path) -> Repo:
    with tarfile.open(FIXTURES / "interrupted-run-0.2.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    return Repo(tmp_path / "ws")


def _journal(index: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT id, op, created, payload FROM journal ORDER BY id").fetchall()
    return [dict(zip(("id", "op", "created", "payload"), row, strict=True)) for row in rows]


def test_reads_answer_and_name_the_run_left_waiting(tmp_path: Path) -> None:
    repo = _checkout(tmp_path)
    assert MANIFEST["code"].startswith("c82d55b") and MANIFEST["version"] == "0.2.0"
    for command in (["log"], ["status"], ["show", "0"], ["log", "--json"]):
        done = repo.snap(*command)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        assert done.stderr == WAITING, command
    shown = json.loads(repo.snap("log", "--json").stdout)
    assert [entry["number"] for entry in shown] == [0]
    status = repo.ok("status")
    assert "modified   a.txt" in status and "untracked  b.txt" in status
    # Nothing settled, nothing lost: the entry waits, the command's changes stay on disk.
    assert _journal(repo.path / ".snapline" / "index.db") == MANIFEST["journal"]
    assert (repo.path / "a.txt").read_bytes() == b"changed\n"
    assert (repo.path / "b.txt").read_bytes() == b"new\n"


def test_a_write_refuses_and_the_first_command_after_upgrade_records_the_run(
    tmp_path: Path,
) -> None:
    repo = _checkout(tmp_path)
    refused = repo.snap("record")
    assert refused.returncode == 1
    assert refused.stderr.splitlines()[-1] == (
        "snapline: error: this checkout's history is the 0.2 in-tree ledger, "
        ".snapline/ledger/, which this snapline reads but no longer writes: run `snapline "
        "upgrade` to move it onto git's refs, then try again; nothing was changed"
    )
    assert "Traceback" not in refused.stderr
    moved = upgrade(repo)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert _journal(repo.path / ".git" / "snapline" / "index.db") == MANIFEST["journal"]
    done = repo.snap("log", "--json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    latest = json.loads(done.stdout)[0]
    assert latest["number"] == 1 and latest["tool"] == "shell"
    assert latest["description"] == f"{DESCRIPTION} (recorded after an interruption)"
    assert latest["metadata"] == {"recovered": True}
    assert {(f["path"], f["kind"]) for f in latest["files"]} == {
        ("a.txt", "modified"),
        ("b.txt", "added"),
    }
    assert _journal(repo.path / ".git" / "snapline" / "index.db") == []
    assert "in sync" in repo.ok("status")
    # The run's changes are the user's work in the tree, as any recorded edit is.
    assert git_status(repo) == " M a.txt\n?? b.txt\n"
