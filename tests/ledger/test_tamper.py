"""Tamper evidence: a ledger file edited or deleted makes ``verify`` exit 3 and name it.

Each damage is done twice: in the working repository, whose index still holds what was
recorded, and in a fresh clone, whose index is rebuilt from the damaged ledger. A
deleted tail is not damage the ledger can show (the history simply ends earlier): the
workspace then holds more than the history, which verify reports as drift (exit 1).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ledger.conftest import NOTES, Repo, clone, copy, output
from tests.object_form import object_file

Damage = Callable[[Repo], tuple[Path, str]]
"""Damages a repository; returns the file damaged and what the output must name."""


def _edit(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert data.count(old) >= 1, (path, old)
    path.write_bytes(data.replace(old, new, 1))


def _edit_line(repo: Repo, number: int, old: bytes, new: bytes) -> tuple[Path, str]:
    path = repo.snapshot_file(number)
    _edit(path, old, new)
    return path, path.name


def _flip_hash(repo: Repo, number: int, prefix: bytes) -> tuple[Path, str]:
    path = repo.snapshot_file(number)
    data = path.read_bytes()
    at = data.index(prefix) + len(prefix)
    flipped = b"0" if data[at : at + 1] != b"0" else b"1"
    path.write_bytes(data[:at] + flipped + data[at + 1 :])
    return path, path.name


def _notes_object(repo: Repo) -> Path:
    path = object_file(repo.ledger, NOTES.encode())
    assert path.is_file()
    return path


def _edit_object(repo: Repo) -> tuple[Path, str]:
    path = _notes_object(repo)
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 0x01]))
    return path, path.name


def _delete_object(repo: Repo) -> tuple[Path, str]:
    path = _notes_object(repo)
    path.unlink()
    # The snapshot that needs it is named, with the object's hash.
    return path, hashlib.sha256(NOTES.encode()).hexdigest()


def _delete_middle(repo: Repo) -> tuple[Path, str]:
    path = repo.snapshot_file(1)
    path.unlink()
    # Its id is what the next snapshot's file names as the missing parent.
    return path, repo.ids["s1"]


def _edit_milestone(repo: Repo) -> tuple[Path, str]:
    (path,) = repo.milestone_files()
    _edit(path, b'title "first"', b'title "First"')
    return path, path.name


def _rename_milestone(repo: Repo) -> tuple[Path, str]:
    # A milestone's name ends with the digest of its bytes: a name that does not is a
    # file someone made or renamed, not one snapline wrote.
    (path,) = repo.milestone_files()
    renamed = path.with_name(path.name[:9] + "0" * 16 + ".mile")
    path.rename(renamed)
    return renamed, renamed.name


CORRUPT: dict[str, Damage] = {
    "description": lambda r: _edit_line(
        r, 2, b'description "add notes"', b'description "add notez"'
    ),
    "delta-line": lambda r: _edit_line(r, 1, b"+    return 2\n", b"+    return 7\n"),
    "result-hash": lambda r: _flip_hash(r, 1, b"  result sha256:"),
    "chain": lambda r: _flip_hash(r, 3, b"chain sha256:"),
    "baseline": lambda r: _flip_hash(r, 0, b"  result sha256:"),
    "middle-deleted": _delete_middle,
    "object-edited": _edit_object,
    "object-deleted": _delete_object,
    "milestone-edited": _edit_milestone,
    "milestone-renamed": _rename_milestone,
}


def _prepare(origin: Repo, where: str, tmp_path: Path) -> Repo:
    return copy(origin, tmp_path / "copy") if where == "working" else clone(origin, tmp_path / "c")


@pytest.mark.parametrize("where", ["working", "fresh-clone"])
@pytest.mark.parametrize("damage", list(CORRUPT))
def test_an_edited_or_deleted_ledger_file_is_corruption(
    origin: Repo, tmp_path: Path, where: str, damage: str
) -> None:
    repo = _prepare(origin, where, tmp_path)
    path, name = CORRUPT[damage](repo)
    damaged = repo.status()
    assert len(damaged) == (2 if damage == "milestone-renamed" else 1)

    result = repo.snap("verify")
    text = output(result)
    assert result.returncode == 3, text
    assert name in text
    assert "Traceback" not in text and "internal error" not in text
    # Reading wrote nothing: the damage is still the only change git sees.
    assert repo.status() == damaged
    assert any(path.name in line for line in damaged)


@pytest.mark.parametrize("where", ["working", "fresh-clone"])
def test_a_deleted_tail_shows_as_drift(origin: Repo, tmp_path: Path, where: str) -> None:
    repo = _prepare(origin, where, tmp_path)
    repo.snapshot_file(3).unlink()

    result = repo.snap("verify")
    text = output(result)
    assert result.returncode == 1, text
    # The history now ends at snapshot 2; app.py still holds what snapshot 3 recorded.
    assert "app.py" in text
    assert "Traceback" not in text and "internal error" not in text
    log = repo.json("log")
    assert [s["number"] for s in log] == [2, 1, 0]
