"""Crafted ledger files arrive with a pull like any other: refused as corrupt, never obeyed.

Each file is put into the ledger of a repository (its working copy, with an index, and a
fresh clone, without one) and ``snapline`` must exit 3 with one line naming the file:
no traceback, no internal error, nothing written outside ``.snapline/``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import tree
from tests.ledger.conftest import NOTES, Repo, clone, copy, output
from tests.object_form import object_file

CRAFTED_ID = "c0ffee00" * 4

Craft = Callable[[Repo], Path]
"""Puts a crafted file into a repository's ledger; returns it."""


def _next_snapshot(repo: Repo, edit: Callable[[str], str], name: str | None = None) -> Path:
    """A snapshot 4 after snapshot 3, made from snapshot 3's file and then edited."""
    text = repo.snapshot_file(3).read_text()
    header = f"number 3\nid {repo.ids['s3']}\nparent {repo.ids['s2']}\n"
    assert header in text
    text = text.replace(header, f"number 4\nid {CRAFTED_ID}\nparent {repo.ids['s3']}\n")
    path = repo.ledger / "snapshots" / (name or f"00000004-{CRAFTED_ID}.snap")
    path.write_bytes(edit(text).encode("utf-8", "surrogateescape"))
    return path


def _replace(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return edit


def _huge_number(repo: Repo) -> Path:
    huge = 2**70
    return _next_snapshot(
        repo, _replace("number 4\n", f"number {huge}\n"), f"{huge}-{CRAFTED_ID}.snap"
    )


def _same_id_twice(repo: Repo) -> Path:
    # Snapshot 3's id again, under the next number: two files claim one snapshot.
    text = repo.snapshot_file(3).read_text()
    path = repo.ledger / "snapshots" / f"00000004-{repo.ids['s3']}.snap"
    path.write_text(text.replace("number 3\n", "number 4\n", 1))
    return path


def _same_number_and_id_renamed(repo: Repo) -> Path:
    # Snapshot 3 byte for byte, under a second spelling of its name.
    source = repo.snapshot_file(3)
    path = source.with_name("0" + source.name)
    path.write_bytes(source.read_bytes())
    return path


def _notes_object(repo: Repo) -> Path:
    path = object_file(repo.ledger, NOTES.encode())
    assert path.is_file()
    return path


def _huge_object(repo: Repo) -> Path:
    """An object file past the 1 GiB any reader accepts (sparse: made in no time)."""
    path = _notes_object(repo)
    with open(path, "r+b") as handle:
        handle.truncate((1 << 30) + 1)
    return path


def _object_link(repo: Repo) -> Path:
    """An object that is a symlink (to the right content): never followed."""
    path = _notes_object(repo)
    target = path.with_name("elsewhere")
    path.rename(target)
    path.symlink_to(target.name)
    return path


def _object(repo: Repo, content: bytes) -> Path:
    path = _notes_object(repo)
    path.write_bytes(content)
    return path


CRAFTED: dict[str, Craft] = {
    "escaping-path": lambda r: _next_snapshot(
        r, _replace('modified "app.py"', 'modified "../escape"')
    ),
    "absolute-path": lambda r: _next_snapshot(
        r, _replace('modified "app.py"', 'modified "/tmp/escape"')
    ),
    "number-not-a-number": lambda r: _next_snapshot(r, _replace("number 4\n", "number x\n")),
    "size-not-a-number": lambda r: _next_snapshot(r, _replace(" 100644 ", " 100644 x")),
    "path-not-a-string": lambda r: _next_snapshot(r, _replace('"app.py"', "7")),
    "huge-number": _huge_number,
    "huge-size": lambda r: _next_snapshot(r, _replace("100644 27\n", f"100644 {2**70}\n")),
    "same-id-twice": _same_id_twice,
    "same-snapshot-renamed": _same_number_and_id_renamed,
    "not-utf8": lambda r: _next_snapshot(r, _replace('"return 3"', '"return \udcff"')),
    "unknown-version": lambda r: _next_snapshot(
        r, _replace("snapline snapshot 2\n", "snapline snapshot 9\n")
    ),
    "object-edited": lambda r: _object(r, NOTES.encode() + b"one line more\n"),
    "object-huge": _huge_object,
    "object-symlink": _object_link,
}


# A new snapshot file is read the same way with or without an index (it extends the main
# line); an object is checked differently (the index already holds a good copy of it).
BOTH = ("escaping-path", "same-id-twice", "object-edited", "object-huge", "object-symlink")


@pytest.mark.parametrize(
    ("craft", "where"),
    [(craft, "fresh-clone") for craft in CRAFTED]
    + [(craft, "working") for craft in CRAFTED if craft in BOTH],
)
def test_a_crafted_ledger_file_is_refused_as_corrupt(
    origin: Repo, tmp_path: Path, where: str, craft: str
) -> None:
    repo = copy(origin, tmp_path / "copy") if where == "working" else clone(origin, tmp_path / "c")
    files_before = tree(repo.path)
    path = CRAFTED[craft](repo)

    result = repo.snap("verify")
    text = output(result)
    assert result.returncode == 3, text
    assert path.name in text
    assert "Traceback" not in text and "internal error" not in text
    # Said in one line: the error on stderr, or a problem under the headline (a damaged
    # object is also missing for the snapshot that needs it: a second line).
    assert len(result.stderr.splitlines()) <= 1, result.stderr
    assert any(path.name in line for line in text.splitlines())
    assert tree(repo.path) == files_before
    assert sorted(os.listdir(tmp_path)) == ["c" if where != "working" else "copy"]


@pytest.mark.parametrize("command", [("rollback", "--to", "4"), ("show", "4")])
def test_a_crafted_escaping_path_is_never_written(
    origin: Repo, tmp_path: Path, command: tuple[str, ...]
) -> None:
    repo = clone(origin, tmp_path / "c")
    files_before = tree(repo.path)
    path = CRAFTED["escaping-path"](repo)

    result = repo.snap(*command)
    assert result.returncode == 3, output(result)
    assert result.stdout == ""
    assert result.stderr.startswith("snapline: error: ")
    assert len(result.stderr.splitlines()) == 1
    assert path.name in result.stderr
    assert not (tmp_path / "escape").exists()
    assert tree(repo.path) == files_before
