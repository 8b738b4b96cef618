"""Ledger 1 (raw objects) and ledger 2 (keyed objects) side by side, through real git.

A ledger written before ledger 2 is read as it is, forever: its raw objects are never
converted, read-only commands write nothing, and it becomes ``snapline ledger 2`` only
when a keyed object is first written into it. Branches of both layouts, and two clones
upgrading on their own, merge without a conflict.

The ledger 1 side is made by :func:`to_layout_1`, which writes exactly what snapline
wrote before ledger 2 (d7fdcca): each object's raw bytes at ``objects/ab/<62 hex>``, the
``FORMAT`` line ``snapline ledger 1`` and the ``.gitattributes`` of then; every other
file was written the same way then as now.
"""

from __future__ import annotations

from pathlib import Path

from tests.ledger.conftest import APP_V0, APP_V1, NOTES, Repo, clone, new_repo, output
from tests.object_form import object_content, object_file, raw_object_file

ATTRIBUTES_1 = (
    "# Written by snapline: ledger files are compared byte for byte, never converted.\n* -text\n"
)
DATA = b"\x00\x01binary\xff" * 300


def to_layout_1(repo: Repo) -> None:
    """Rewrite the ledger as snapline wrote it before ledger 2: raw objects, FORMAT 1."""
    for path in repo.object_files():
        if path.name.endswith(".x"):
            path.with_name(path.name.removesuffix(".x")).write_bytes(object_content(path))
            path.unlink()
    (repo.ledger / "FORMAT").write_text("snapline ledger 1\n")
    (repo.ledger / ".gitattributes").write_text(ATTRIBUTES_1)


def _layout_1_history(path: Path) -> Repo:
    """A committed ledger 1: app.py edited (its baseline kept raw), notes.txt added raw."""
    repo = new_repo(path)
    repo.write("app.py", APP_V0)
    repo.write("README.md", "# demo\n")
    repo.ok("init", "--in-tree")
    repo.write("app.py", APP_V1)
    repo.ok("record", "-m", "return 2")
    repo.write("notes.txt", NOTES)
    repo.ok("record", "-m", "add notes")
    to_layout_1(repo)
    repo.commit("history, ledger 1")
    assert repo.status() == []
    return repo


def _format(repo: Repo) -> str:
    return (repo.ledger / "FORMAT").read_text()


def test_read_only_commands_leave_a_ledger_1_as_it_is(tmp_path: Path) -> None:
    origin = _layout_1_history(tmp_path / "origin")
    repo = clone(origin, tmp_path / "clone")  # no index: every command catches up first
    for command in (["verify", "--full"], ["status"], ["log"], ["show", "2"], ["verify"]):
        assert repo.snap(*command).returncode == 0, output(repo.snap(*command))
    # The raw object's content, read back through the index the clone built from it.
    assert "+second note" in repo.ok("diff", "1", "2").stdout
    assert repo.status() == []
    assert _format(repo) == "snapline ledger 1\n"
    assert raw_object_file(repo.ledger, NOTES.encode()).is_file()


def test_a_ledger_1_becomes_2_with_its_first_keyed_object_and_keeps_its_raw_ones(
    tmp_path: Path,
) -> None:
    origin = _layout_1_history(tmp_path / "origin")
    repo = clone(origin, tmp_path / "clone")
    raw = {path: path.read_bytes() for path in repo.object_files()}
    assert raw and not [path for path in raw if path.name.endswith(".x")]

    # A delta needs no object: the ledger stays 1, readable by the snapline before.
    repo.write("notes.txt", NOTES + "third note\n")
    repo.ok("record", "-m", "a delta")
    assert _format(repo) == "snapline ledger 1\n"
    ledger = [line for line in repo.status() if ".snapline/" in line]
    assert ledger and all("/ledger/snapshots/" in line for line in ledger), ledger

    (repo.path / "data.bin").write_bytes(DATA)
    repo.ok("record", "-m", "an object")

    assert _format(repo) == "snapline ledger 2\n"
    attributes = (repo.ledger / ".gitattributes").read_text().splitlines()
    assert "* -text" in attributes and "objects/** -diff" in attributes
    assert object_content(object_file(repo.ledger, DATA)) == DATA
    assert {path: path.read_bytes() for path in raw} == raw  # never converted
    assert repo.snap("verify", "--full").returncode == 0
    repo.commit("upgraded")
    # git shows a keyed object as binary, never as lines of noise.
    shown = repo.git("show", "--numstat", "--format=", "HEAD").stdout.splitlines()
    assert f"-\t-\t{object_file(repo.ledger, DATA).relative_to(repo.path)}" in shown
    # A fresh clone rebuilds every version from both forms.
    other = clone(repo, tmp_path / "other")
    other.ok("rollback", "--to", "1")
    assert not (other.path / "data.bin").exists()
    assert not (other.path / "notes.txt").exists()
    other.ok("rollback", "--to", "latest~1")
    assert (other.path / "data.bin").read_bytes() == DATA
    assert (other.path / "notes.txt").read_text() == NOTES + "third note\n"
    assert other.snap("verify", "--full").returncode == 0


def test_a_ledger_1_branch_merges_into_a_ledger_2_branch_and_both_read_back(
    tmp_path: Path,
) -> None:
    repo = _layout_1_history(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "old")
    # What the snapline before ledger 2 writes on its branch: raw objects, FORMAT 1.
    repo.write("old.txt", "written by the old snapline\n")
    repo.ok("record", "-m", "old file")
    to_layout_1(repo)
    repo.commit("old branch")
    old_id = repo.snapshot_ids()[-1][1]
    repo.git("checkout", "-q", "main")
    (repo.path / "data.bin").write_bytes(DATA)
    repo.ok("record", "-m", "new file")
    repo.commit("main, ledger 2")
    assert _format(repo) == "snapline ledger 2\n"

    merged = repo.git("merge", "--no-edit", "old", check=False)

    assert merged.returncode == 0, output(merged)
    repo.ok("merge")
    repo.commit("snapline merge")
    assert repo.snap("verify", "--full").returncode == 0
    assert _format(repo) == "snapline ledger 2\n"
    assert raw_object_file(repo.ledger, b"written by the old snapline\n").is_file()
    assert object_file(repo.ledger, DATA).is_file()

    # A fresh clone's index is built from both forms; every version comes back.
    other = clone(repo, tmp_path / "clone")
    assert other.snap("verify", "--full").returncode == 0
    other.ok("rollback", "--to", "0")
    assert not (other.path / "notes.txt").exists()
    assert not (other.path / "data.bin").exists()
    other.ok("rollback", "--to", "latest~1")
    assert (other.path / "notes.txt").read_text() == NOTES
    assert (other.path / "old.txt").read_text() == "written by the old snapline\n"
    assert (other.path / "data.bin").read_bytes() == DATA
    other.ok("rollback", "--to", f"id:{old_id[:8]}")
    assert (other.path / "old.txt").exists() and not (other.path / "data.bin").exists()
    assert other.snap("verify").returncode == 0


def test_two_clones_upgrading_and_storing_the_same_object_merge_without_a_conflict(
    tmp_path: Path,
) -> None:
    origin = _layout_1_history(tmp_path / "origin")
    one = clone(origin, tmp_path / "one")
    two = clone(origin, tmp_path / "two")
    for repo in (one, two):
        (repo.path / "data.bin").write_bytes(DATA)
        repo.ok("record", "-m", "the same file")
        repo.commit("the same object")
        assert _format(repo) == "snapline ledger 2\n"
    assert object_file(one.ledger, DATA).read_bytes() == object_file(two.ledger, DATA).read_bytes()

    two.git("pull", "-q", "--no-rebase", "--no-edit", str(one.path), "main")

    assert two.git("status", "--porcelain").stdout == ""
    two.ok("merge")
    assert two.snap("verify", "--full").returncode == 0
    assert [p for p in two.object_files() if p.name.endswith(".x")] == [
        object_file(two.ledger, DATA)
    ]
