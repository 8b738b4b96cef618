"""Ledger 1 (raw objects) is read as it is, forever: reading converts and writes nothing.

The ledger 1 is ``tests/fixtures/ledger-1.bundle``, written by d7fdcca, the last code
that wrote raw objects (``objects/ab/<62 hex>``) and the ``FORMAT`` line ``snapline
ledger 1``. A fresh clone builds its index from those objects; every reading command
leaves the ledger byte for byte as git has it (no object converted, ``FORMAT`` kept),
and the writers refuse (tests/ledger/test_in_tree_read_only.py). Ledger 2's keyed
objects are read by tests/ledger/test_fixture_stores.py and tests/store/ledger/.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.history_refs.upgrading import clone_fixture, git_status


def _ledger_bytes(root: Path) -> dict[str, str]:
    ledger = root / ".snapline" / "ledger"
    return {
        path.relative_to(ledger).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(ledger.rglob("*"))
        if path.is_file()
    }


def test_read_only_commands_leave_a_ledger_1_as_it_is(tmp_path: Path) -> None:
    repo = clone_fixture("ledger-1", tmp_path / "repo")  # no index: every command catches up
    ledger = repo.path / ".snapline" / "ledger"
    assert (ledger / "FORMAT").read_text() == "snapline ledger 1\n"
    objects = [p for p in (ledger / "objects").rglob("*") if p.is_file()]
    assert objects and not any(p.name.endswith(".x") for p in objects), "raw objects only"
    before = _ledger_bytes(repo.path)
    for command in (["verify", "--full"], ["status"], ["log"], ["show", "3"], ["verify"]):
        done = repo.snap(*command)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    # A binary version stored whole (snapshot 3's logo.bin), read back through the index
    # the clone built from the raw object, and hash-checked.
    shown = json.loads(repo.ok("show", "3", "--json"))
    assert [f["storage"] for f in shown["files"]] == ["full"]
    assert repo.snap("verify", "--deep").returncode == 0
    assert _ledger_bytes(repo.path) == before
    assert git_status(repo) == ""
