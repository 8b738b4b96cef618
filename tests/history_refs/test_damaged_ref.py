"""A ref file of snapline's holding bytes git never writes: damage (exit 3), one line.

git's files backend keeps a ref as a file of its id; one that holds anything else was
damaged or crafted. libgit2 refuses to read it with an error of its own, which every
command used to report as a bug in snapline (exit 70).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.history_refs.gitrepo import new_repo


@pytest.mark.parametrize("command", [["status"], ["verify"], ["log"], ["record", "a.txt"]])
def test_a_ref_file_of_garbage_is_damage_named_in_one_line(
    tmp_path: Path, command: list[str]
) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit")
    (line,) = (repo.path / ".git" / "refs" / "snapline" / "lines").iterdir()
    line.write_text("not an id at all\n")
    (repo.path / "a.txt").write_text("three\n")
    done = repo.snap(*command)
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"refs/snapline/lines/{line.name}" in lines[0]
    assert "damaged or crafted" in lines[0]
    assert f"git update-ref refs/snapline/lines/{line.name} ID" in lines[0]
    assert lines[0].count(line.name) == 2, lines[0]  # the damage, and its repair
    # Every other command sends the user to `snapline verify`; verify met the damage
    # before it could check anything else, and does not send the user to itself.
    assert ("snapline verify" in lines[0]) == (command != ["verify"]), lines[0]
    assert line.read_text() == "not an id at all\n"  # nothing written over it


def test_a_record_of_content_git_already_holds_names_the_damage_the_same_way(
    tmp_path: Path,
) -> None:
    """Content git already holds (the start commit's) makes the record ask whether
    another line recorded it, a listing of the lines that meets the damaged ref first."""
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit")
    (line,) = (repo.path / ".git" / "refs" / "snapline" / "lines").iterdir()
    line.write_text("not an id at all\n")
    (repo.path / "a.txt").write_text("one\n")
    done = repo.snap("record", "a.txt")
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"refs/snapline/lines/{line.name}" in lines[0] and "damaged or crafted" in lines[0]
