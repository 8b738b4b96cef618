"""validate(): each problem a tampered index shows, in full (kind, place, digests, words).

``verify`` prints these messages and ``verify --json`` gives every field, and CI reads
their severity for the exit code (``error`` 1, ``corrupt`` 3): each case holds the whole
list, so that a problem that loses its words, its place or its severity is seen.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from snapline import Workspace
from snapline.hashing import is_hash

ONE = "sha256:046076f59b3d9fe61bc5261e95b7e9e371634206007c3a1143f9eb6f3c8c0f85"
TWO = "sha256:5eb1ff75cf947f67684ad15844597b456fdf4917d92f8f690ea184d046902a22"
BIN = "sha256:b413f47d13ee2fe6c845b2ee141af81de858df4ec549a58b7970bb96645bc8d2"
HELLO = "sha256:03e693d9f2f687e0f40e36a8df7fcb4d1c22974012b7c2a55c000eb30f305824"
README = "sha256:bc70e26f40b8816eb177813dda1f5f529a27a4641d45aa19cae2348a8c6a5fe9"
CHAIN = "snapshot {} does not match its chain hash: it was edited after it was recorded"


@pytest.fixture
def history(ws: Workspace) -> Workspace:
    ws.write_file("src/app.py", "print('one')\n")
    ws.write_file("src/app.py", "print('two')\n")
    ws.write_file("bin.dat", b"\x00\x01")
    return ws


def _tamper(ws: Workspace, sql: str, *params: object) -> None:
    db = sqlite3.connect(ws.root / ".snapline" / "index.db")
    with db:
        db.execute(sql, params)
    db.close()


def _problem(kind: str, message: str, severity: str, **fields: Any) -> dict[str, Any]:
    found = {"path": None, "number": None, "expected": None, "actual": None}
    return {"kind": kind, "message": message, "severity": severity, **found, **fields}


def _chain(chains: dict[int, str], number: int) -> dict[str, Any]:
    return _problem("chain-mismatch", CHAIN.format(number), "corrupt", number=number,
                    expected="RECOMPUTED", actual=chains[number])  # fmt: skip


def _chains(ws: Workspace) -> dict[int, str]:
    # Read before the tampering: a tampered row may no longer read as a snapshot.
    return {number: ws.snapshot(number).chain_hash for number in range(ws.latest + 1)}


def _found(ws: Workspace) -> list[dict[str, Any]]:
    problems = [p.model_dump() for p in ws.validate().problems]
    for problem in problems:
        if problem["kind"] == "chain-mismatch":
            # Recomputed from the tampered rows: a digest, never the one recorded.
            assert is_hash(problem["expected"]) and problem["expected"] != problem["actual"]
            problem["expected"] = "RECOMPUTED"
    return problems


def test_a_reused_id_a_newer_format_and_unreadable_json(history: Workspace) -> None:
    chains = _chains(history)
    first = history.snapshot(1).id
    _tamper(history, "UPDATE snapshots SET version = 99 WHERE number = 1")
    _tamper(history, "UPDATE snapshots SET metadata = '{' WHERE number = 2")
    _tamper(history, "UPDATE snapshots SET id = ? WHERE number = 3", first)
    assert _found(history) == [
        _problem("unknown-version", "snapshot 1 has format version 99; upgrade snapline",
                 "corrupt", number=1),
        _chain(chains, 1),
        _chain(chains, 2),
        _problem("bad-record", "snapshot 2 has unreadable JSON", "corrupt", number=2),
        _problem("duplicate-id", f"snapshot 3 reuses the id {first}", "corrupt", number=3,
                 actual=first),
        _chain(chains, 3),
    ]  # fmt: skip


def test_a_deleted_snapshot_is_a_gap_and_a_broken_link(history: Workspace) -> None:
    chains = _chains(history)
    parent, second = history.snapshot(3).parent_id, history.snapshot(1).id
    _tamper(history, "DELETE FROM changes WHERE snapshot = 2")
    _tamper(history, "DELETE FROM snapshots WHERE number = 2")
    assert _found(history) == [
        _problem("gap", "snapshot 3 follows 1: snapshots 2..2 are missing", "error", number=3),
        _problem("broken-link", f"snapshot 3 names {parent} as its parent, not {second}",
                 "error", number=3, expected=second, actual=parent),
        _chain(chains, 3),
        _problem("state-mismatch", "the known state of src/app.py does not follow from the "
                 "history", "error", path="src/app.py", expected=ONE, actual=TWO),
    ]  # fmt: skip


def test_a_change_of_unknown_kind_and_a_malformed_hash(history: Workspace) -> None:
    chains = _chains(history)
    _tamper(history, "UPDATE changes SET kind = 'bogus' WHERE snapshot = 2")
    _tamper(history, "UPDATE changes SET result_hash = 'sha256:xyz' WHERE snapshot = 1")
    assert _found(history) == [
        _chain(chains, 1),
        _problem("bad-record", "src/app.py has a malformed hash 'sha256:xyz'", "corrupt",
                 path="src/app.py", number=1),
        _chain(chains, 2),
        _problem("bad-record", "src/app.py in snapshot 2 has kind 'bogus' and storage 'delta'",
                 "corrupt", path="src/app.py", number=2),
        # What either change left at src/app.py is unknown: its known state is held to
        # nothing, and snapshot 2's start is not held to snapshot 1's malformed hash.
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("sql", "base", "had"),
    [
        ("base_hash = NULL, base_mode = NULL", "nothing", ONE),
        # The same content with another mode is another base: a chmod nobody recorded.
        ("base_mode = 33261", f"{ONE} with mode 100755", f"{ONE} with mode 100644"),
    ],
)
def test_a_change_that_does_not_start_from_the_history_breaks_continuity(
    history: Workspace, sql: str, base: str, had: str
) -> None:
    chains = _chains(history)
    _tamper(history, f"UPDATE changes SET {sql} WHERE snapshot = 2")
    assert _found(history) == [
        _chain(chains, 2),
        _problem("continuity", f"src/app.py in snapshot 2 starts from {base}, but the history "
                 f"had {had} there", "error", path="src/app.py", number=2, expected=ONE,
                 actual=None if base == "nothing" else ONE),
    ]  # fmt: skip


def test_an_added_file_over_a_tracked_one_loses_its_version(history: Workspace) -> None:
    chains = _chains(history)
    _tamper(history, "UPDATE changes SET path = 'README.md' WHERE snapshot = 3")
    assert _found(history) == [
        _chain(chains, 3),
        _problem("continuity", f"README.md in snapshot 3 starts from nothing, but the history "
                 f"had {README} there", "error", path="README.md", number=3, expected=README),
        _problem("continuity", "README.md in snapshot 3 is recorded as added over a tracked "
                 "file, whose version is lost from the history", "error", path="README.md",
                 number=3, actual=README),
        _problem("state-mismatch", "the known state of README.md does not follow from the "
                 "history", "error", path="README.md", expected=BIN, actual=README),
        _problem("state-mismatch", "the known state of bin.dat does not follow from the "
                 "history", "error", path="bin.dat", actual=BIN),
    ]  # fmt: skip


def test_unsafe_paths_missing_deltas_and_orphan_changes(history: Workspace) -> None:
    chains = _chains(history)
    _tamper(history, "UPDATE changes SET forward = NULL WHERE snapshot = 1")
    _tamper(history, "UPDATE changes SET reverse = NULL WHERE snapshot = 2")
    _tamper(history, "UPDATE changes SET path = '../escape' WHERE snapshot = 3")
    _tamper(history, "UPDATE changes SET snapshot = 9 WHERE snapshot = 0 AND path = 'README.md'")
    assert _found(history) == [
        _chain(chains, 0),
        _chain(chains, 1),
        _problem("missing-content", "the delta of src/app.py in snapshot 1 is missing",
                 "corrupt", path="src/app.py", number=1),
        _chain(chains, 2),
        _problem("missing-content", "the delta of src/app.py in snapshot 2 is missing",
                 "corrupt", path="src/app.py", number=2),
        _chain(chains, 3),
        _problem("unsafe-path", "refusing path '../escape': the path must be normalised and "
                 "stay inside the root", "corrupt", path="../escape", number=3),
        _problem("orphan-change", "file changes recorded for snapshot 9, which does not exist",
                 "corrupt", number=9),
        _problem("state-mismatch", "the known state of README.md does not follow from the "
                 "history", "error", path="README.md", actual=README),
        _problem("state-mismatch", "the known state of bin.dat does not follow from the "
                 "history", "error", path="bin.dat", actual=BIN),
    ]  # fmt: skip


def test_a_known_state_that_does_not_follow(history: Workspace) -> None:
    _tamper(history, "UPDATE state SET mode = 33261 WHERE path = 'src/app.py'")
    _tamper(history, "DELETE FROM state WHERE path = 'bin.dat'")
    _tamper(history, "INSERT INTO state SELECT 'extra.txt', hash, mode, size, snapshot "
                     "FROM state WHERE path = 'README.md'")  # fmt: skip
    assert _found(history) == [
        _problem("state-mismatch", "the known state of bin.dat does not follow from the "
                 "history", "error", path="bin.dat", expected=BIN),
        _problem("state-mismatch", "the known state of extra.txt does not follow from the "
                 "history", "error", path="extra.txt", actual=README),
        _problem("state-mismatch", "the known state of src/app.py does not follow from the "
                 "history", "error", path="src/app.py", expected=TWO, actual=TWO),
    ]  # fmt: skip


def test_after_a_checkpoint_an_id_from_before_it_and_the_state_of_what_changed(
    history: Workspace,
) -> None:
    assert history.verify().ok  # the checkpoint: snapshot 3
    history.write_file("src/app.py", "print('three')\n")
    history.write_file("new.txt", "new\n")
    chains, first = _chains(history), history.snapshot(1).id
    parent = history.snapshot(5).parent_id
    three = history.snapshot(4).files[0].result_hash
    new = history.snapshot(5).files[0].result_hash
    _tamper(history, "UPDATE snapshots SET id = ? WHERE number = 4", first)
    _tamper(history, "UPDATE state SET mode = 33261 WHERE path = 'src/app.py'")
    _tamper(history, "DELETE FROM state WHERE path = 'new.txt'")
    report = history.verify()
    assert report.since == 3
    # Not the sync check's drift (the disk against the tampered state): the history's.
    drift = {"modified", "untracked"}
    found = [p.model_dump() for p in report.problems if p.kind not in drift]
    assert found[1]["expected"] != chains[4]
    found[1]["expected"] = "RECOMPUTED"
    assert found == [
        _problem("duplicate-id", f"snapshot 4 reuses the id {first}", "corrupt", number=4,
                 actual=first),
        _chain(chains, 4),
        _problem("broken-link", f"snapshot 5 names {parent} as its parent, not {first}",
                 "error", number=5, expected=first, actual=parent),
        _problem("state-mismatch", "the known state of new.txt does not follow from the "
                 "history", "error", path="new.txt", expected=new),
        _problem("state-mismatch", "the known state of src/app.py does not follow from the "
                 "history", "error", path="src/app.py", expected=three, actual=three),
    ]  # fmt: skip


def test_an_added_file_that_starts_from_a_version_the_history_never_had(
    history: Workspace,
) -> None:
    chains = _chains(history)
    _tamper(history, "UPDATE changes SET base_hash = result_hash, base_mode = 33188 "
                     "WHERE snapshot = 3")  # fmt: skip
    assert _found(history) == [
        _chain(chains, 3),
        _problem("continuity", f"bin.dat in snapshot 3 starts from {BIN}, but the history had "
                 "nothing there", "error", path="bin.dat", number=3, actual=BIN),
    ]  # fmt: skip


def test_a_change_holding_a_value_no_snapline_writes(history: Workspace) -> None:
    _tamper(history, "UPDATE changes SET size = 'big' WHERE snapshot = 1")
    # Snapshot 1 is not replayed: what it left at src/app.py is unknown, so snapshot 2's
    # start there is not held to the history (it was a second, false, problem).
    assert _found(history) == [
        _problem("bad-record", "a file change of snapshot 1 holds a value no snapline writes: "
                 "its size is the text 'big', not int | None", "corrupt", number=1),
    ]  # fmt: skip


def test_content_missing_from_the_store(history: Workspace) -> None:
    _tamper(history, "DELETE FROM blobs WHERE hash = ?", BIN)
    assert _found(history) == [
        _problem("missing-content", f"the content of bin.dat in snapshot 3 ({BIN}) is missing "
                 "from the store", "corrupt", path="bin.dat", number=3, expected=BIN),
    ]  # fmt: skip
