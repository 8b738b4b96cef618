"""Damaged rows and decompression bombs are corruption (exit 3), never an internal error.

Every column of the snapshot, change and milestone tables is given a value of the wrong
type, as a hand edit or a crafted store can; every stored content and delta can be a
zlib stream that inflates to far more than its recorded size. Reading commands must say
"corrupt" with what is wrong, and nothing may be inflated past the size on record.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from snapline import SnaplineError, Workspace
from snapline.cli.errors import EXIT_CORRUPT, exit_code_for
from snapline.workspace.rows import log_headers
from tests.reliability.crafting import reseal, sql

# What a damaged row can hold instead of its value, by the type the column wants.
_WRONG = {"INTEGER": "not a number", "TEXT": 12345, "BLOB": 12345}


def _columns(table: str) -> list[tuple[str, str]]:
    db = sqlite3.connect(":memory:")
    from snapline.store.schema import SCHEMA

    db.executescript(SCHEMA)
    return [(row[1], row[2]) for row in db.execute(f"PRAGMA table_info({table})")]


DAMAGE = [
    (table, column, kind)
    for table in ("snapshots", "changes", "milestones")
    for column, kind in _columns(table)
    # The row keys pick which row is damaged, and SQLite keeps INTEGER PRIMARY KEY an
    # integer whatever it is given.
    if not (table in ("snapshots", "milestones") and column == "number")
    and not (table == "changes" and column in ("snapshot", "path"))
]


def _history(root: Path) -> None:
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.bin").write_bytes(b"\x00\x01" * 40)
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "one\ntwo\nthree\n")
        ws.write_file("b.bin", b"\x00\x02" * 40)
        ws.milestones.create("first")


READERS: dict[str, Callable[[Workspace], object]] = {
    "log": lambda ws: list(ws.snapshots()),
    "log (text)": lambda ws: log_headers(
        ws, file=None, tool=None, session=None, limit=None, newest_first=True
    ),
    "show": lambda ws: ws.snapshot(1),
    "milestones": lambda ws: ws.milestones.list(),
    "status": lambda ws: ws.check_sync(),
}


@pytest.mark.parametrize(("table", "column", "kind"), DAMAGE, ids=lambda v: str(v))
def test_a_value_of_the_wrong_type_is_reported_as_damage(
    root: Path, table: str, column: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(root)
    where = "number = 1" if table != "changes" else "snapshot = 1"
    sql(root, f"UPDATE {table} SET {column} = ? WHERE {where}", _WRONG[kind])
    with Workspace.open(root) as ws:
        report = ws.verify()
        assert report.corrupt, f"verify missed a {kind} column {table}.{column} holding junk"
        for name, read in READERS.items():
            try:
                read(ws)
            except Exception as error:  # what the CLI would print, and its exit code
                code = exit_code_for(error)
                line = capsys.readouterr().err
                assert isinstance(error, SnaplineError), f"{name}: {line}"
                assert code == EXIT_CORRUPT, f"{name}: {line}"
                assert "internal error" not in line


# A value no snapline writes: of the wrong type (a TEXT column keeps 12345 as the text
# "12345", an edit the chain hash finds, so blobs stand in there), or of the right type
# with a meaning no snapline gives it.
_DAMAGED = [
    *(
        (table, column, b"\x00junk" if kind == "TEXT" else _WRONG[kind])
        for table, column, kind in DAMAGE
        if table != "milestones"
    ),
    ("changes", "kind", "replaced"),
    ("changes", "storage", "zip"),
    ("changes", "result_hash", "sha256:not-a-hash"),
]


@pytest.mark.parametrize("damaged", [1, 3], ids=["then-changed-again", "last"])
@pytest.mark.parametrize(("table", "column", "value"), _DAMAGED, ids=lambda v: str(v))
def test_damage_is_reported_at_its_snapshot_and_nowhere_else(
    root: Path, table: str, column: str, value: object, damaged: int
) -> None:
    # Every snapshot changes the same file, so a damaged one sits between two changes
    # of it (or is the last): what it did cannot be known, so neither the next change's
    # start nor the file's known state can be held to it. Only the damage is reported.
    (root / "a.txt").write_text("zero\n")
    with Workspace.init(root) as ws:
        for text in ("one\n", "two\n", "three\n"):
            ws.write_file("a.txt", text)
    where = f"number = {damaged}" if table != "changes" else f"snapshot = {damaged}"
    sql(root, f"UPDATE {table} SET {column} = ? WHERE {where}", value)
    with Workspace.open(root) as ws:
        report = ws.verify()
    assert report.corrupt
    elsewhere = [p for p in report.problems if p.number != damaged]
    assert not elsewhere, f"{table}.{column}: {[p.message for p in elsewhere]}"


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE meta SET value = '{not json' WHERE key = 'config'",
        "UPDATE meta SET value = '[1, 2]' WHERE key = 'config'",
        """UPDATE meta SET value = '{"max_chain": "ten"}' WHERE key = 'config'""",
        """UPDATE meta SET value = '{"large_file_limit": -1}' WHERE key = 'config'""",
        """UPDATE meta SET value = '{"diff_deadline": null}' WHERE key = 'config'""",
    ],
)
@pytest.mark.parametrize("command", [["log"], ["verify"], ["status"], ["show", "1"]])
def test_damaged_settings_are_corruption_through_the_cli(
    root: Path, damage: str, command: list[str]
) -> None:
    _history(root)
    sql(root, damage)
    result = subprocess.run(
        [sys.executable, "-m", "snapline", "--root", str(root), *command],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 3, result.stderr
    assert result.stderr.count("\n") == 1
    assert "configuration" in result.stderr and "internal error" not in result.stderr


@functools.cache
def _bomb(size: int) -> bytes:
    """A packed value (codec byte + zlib) that inflates to ``size`` zero bytes (made once)."""
    squeeze = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    parts = [squeeze.compress(chunk) for _ in range(size >> 20)]
    return b"z" + b"".join(parts) + squeeze.flush()


_CHILD = textwrap.dedent(
    """
    import resource, sys
    from snapline import Workspace, SnaplineError
    ws = Workspace.open(sys.argv[1])
    try:
        outcome = f"returned {{{action}}}"
    except SnaplineError as error:
        outcome = f"exit {{error.exit_code}}"
    print(outcome)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    """
)


@pytest.mark.parametrize(
    ("target", "action", "expected"),
    [
        ("blob", "ws.content_at('b.bin', 0)", "exit 3"),
        ("blob", "ws.rollback(0)", "exit 3"),
        ("blob", "ws.verify(deep=True).corrupt", "returned True"),
        ("delta", "ws.content_at('a.txt', 1)", "exit 3"),
        ("delta", "ws.snapshot(1)", "exit 3"),
        ("delta", "ws.diff(0, 1)", "exit 3"),
    ],
)
def test_a_decompression_bomb_is_refused_without_inflating_it(
    root: Path, target: str, action: str, expected: str
) -> None:
    _history(root)
    bomb = _bomb(512 << 20)  # 512 MiB of zeros in about half a megabyte
    assert len(bomb) < 1 << 20
    if target == "blob":
        (digest,) = sql(root, "SELECT content FROM changes WHERE snapshot = 0 AND path = 'b.bin'")[
            0
        ]
        sql(root, "UPDATE blobs SET data = ? WHERE hash = ?", bomb, digest)
    else:
        sql(root, "UPDATE changes SET forward = ? WHERE snapshot = 1 AND path = 'a.txt'", bomb)
        # A delta edit is what the chain covers; an attacker reseals it.
        reseal(root)
    with Workspace.open(root) as ws:  # settle anything the open would do, in this process
        assert ws.latest == 2
    result = subprocess.run(
        [sys.executable, "-c", _CHILD.format(action=action), str(root)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    outcome, peak_mib = result.stdout.splitlines()[:2]
    assert outcome == expected
    # Inflating the bomb would take 512 MiB; bounded inflation stays near the baseline.
    assert int(peak_mib) < 200, f"peak memory {peak_mib} MiB"
