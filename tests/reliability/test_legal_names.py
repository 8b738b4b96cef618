"""Issue 14, item 1: any name git can track is recordable, restorable and shown correctly.

Backslashes, drive-like colons, newlines, tabs, leading and trailing spaces, wildcards
and bytes that are not UTF-8 are ordinary characters in a POSIX name. Regression: a
file named ``back\\slash.txt`` or ``c:notes.txt`` made ``init`` exit 3 and bricked the
store.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from snapline import Workspace
from snapline.atomic import TEMP_MARKER
from snapline.cli.app import app
from tests.cli_runner import CliRunner, Result
from tests.reliability import figures
from tests.reliability.helpers import assert_healthy, tree

_NAMED = [
    "back\\slash.txt",
    "c:notes.txt",
    "C:",
    "z:\\windows\\path.ini",
    "new\nline.txt",
    "tab\there",
    " leading space",
    "trailing space ",
    "star*.txt",
    "what?.md",
    "[abc]",
    "quote\"d'",
    "#hash",
    "!bang",
    "-dash",
    "caf\udce9.txt",  # the byte 0xE9 alone: not UTF-8
    "x" * 200,
]

# Names that are not plain data in a workspace: ignore files change what is tracked,
# and .git/.snapline are never tracked (all as in git, which never tracks .git).
_SPECIAL = {".", "..", ".git", ".snapline", ".gitignore", ".snaplineignore"}

_CHARS = st.sampled_from([*"ab\\:*?[] \t\n\"'#!-.~", "\udce9", "\udcff", "é", "\u2028"])
_NAME = (
    st.text(_CHARS, min_size=1, max_size=24)
    .filter(lambda n: n not in _SPECIAL and TEMP_MARKER not in n)
    .filter(lambda n: not n.startswith(".snapline"))
)
_PATH = st.lists(_NAME, min_size=1, max_size=3).map("/".join)


def _layout(paths: list[str]) -> dict[str, bytes]:
    """Paths with content, dropping any that would need a file to be a directory too."""
    chosen: dict[str, bytes] = {}
    for index, path in enumerate(paths):
        prefixes = {"/".join(path.split("/")[:i]) for i in range(1, path.count("/") + 1)}
        if path in chosen or prefixes & chosen.keys():
            continue
        if any(other.startswith(path + "/") for other in chosen):
            continue
        chosen[path] = f"version 1 of file {index}\n".encode()
    return chosen


def _write(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        location = root / path
        location.parent.mkdir(parents=True, exist_ok=True)
        location.write_bytes(data)


@given(paths=st.lists(_PATH, min_size=1, max_size=6))
@example(paths=_NAMED)
@example(paths=["back\\slash.txt", "c:notes.txt"])
def test_any_legal_name_round_trips(paths: list[str]) -> None:
    """init -> edit -> record -> rollback -> content_at, for random legal names."""
    files = _layout(paths)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "ws"
        root.mkdir()
        _write(root, files)
        with Workspace.init(root) as ws:
            assert set(ws.tracked()) == set(files)
            edited = {path: data + b"version 2\n" for path, data in files.items()}
            _write(root, edited)
            snapshot = ws.record()
            assert snapshot is not None
            assert {change.path for change in snapshot.files} == set(files)
            newcomer = next(iter(files)) + " new"
            _write(root, {newcomer: b"added later\n"})
            assert ws.record() is not None
            ws.rollback(0)
            assert tree(root) == files
            for path, data in files.items():
                assert ws.content_at(path, 0) == data
                assert ws.content_at(path, 1) == edited[path]
            assert ws.diff(0, 1)
        assert_healthy(root)
    figures.add("legal_names", len(files))


def cli(root: Path, *args: str) -> Result:
    """The real command line, in-process (the names need no shell)."""
    return CliRunner().invoke(app, ["--root", str(root), *args], catch_exceptions=False)


def test_legal_names_through_the_command_line(tmp_path: Path) -> None:
    """init, record, log, show, diff and rollback exit 0 and print the names as git quotes them."""
    root = tmp_path / "ws"
    root.mkdir()
    names = ["back\\slash.txt", "c:notes.txt", "new\nline.txt", "tab\there"]
    _write(root, {name: b"one\n" for name in names})
    assert cli(root, "init").exit_code == 0
    _write(root, {name: b"two\n" for name in names})
    assert cli(root, "record", "-m", "edit").exit_code == 0
    for command in (["log"], ["show", "1"], ["status"], ["verify"]):
        assert cli(root, *command).exit_code == 0, command
    diff = cli(root, "diff", "0", "1")
    assert diff.exit_code == 0
    assert 'diff --git "a/back\\\\slash.txt" "b/back\\\\slash.txt"' in diff.stdout
    assert "diff --git a/c:notes.txt b/c:notes.txt" in diff.stdout
    assert '"a/new\\nline.txt"' in diff.stdout
    assert cli(root, "rollback", "--to", "0").exit_code == 0
    assert all((root / name).read_bytes() == b"one\n" for name in names)
    assert_healthy(root)
    figures.add("legal_names", len(names))


def test_a_name_that_is_not_utf8_is_quoted_in_octal_in_diffs(tmp_path: Path) -> None:
    """As git writes it: ``"a/dir\\377/caf\\351.txt"``, never a replacement character."""
    root = tmp_path / "ws"
    root.mkdir()
    directory = Path(os.fsdecode(os.fsencode(root) + b"/dir\xff"))
    directory.mkdir()
    (directory / "caf\udce9.txt").write_bytes(b"one\n")
    with Workspace.init(root) as ws:
        (directory / "caf\udce9.txt").write_bytes(b"two\n")
        ws.record()
        diff = ws.diff(0, 1)
        assert 'diff --git "a/dir\\377/caf\\351.txt" "b/dir\\377/caf\\351.txt"' in diff
        ws.rollback(0)
        assert (directory / "caf\udce9.txt").read_bytes() == b"one\n"
    figures.add("legal_names")


@pytest.mark.parametrize("name", ["back\\slash.txt", "c:notes.txt", "a\\..\\b", "C:"])
def test_a_name_appearing_later_is_recorded(tmp_path: Path, name: str) -> None:
    """The same names, first seen by a later ``record`` rather than by ``init``."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        (root / name).write_text("new\n")
        snapshot = ws.record()
        assert snapshot is not None
        assert [c.path for c in snapshot.files] == [name]
        ws.rollback(0)
        assert not (root / name).exists()
        ws.rollback(1)
        assert (root / name).read_text() == "new\n"
    assert_healthy(root)
    figures.add("legal_names")
