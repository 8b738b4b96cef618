"""git never pairs a ledger object with a work file: a merge cannot edit the history.

A snapshot that deletes a file still at its baseline version writes that version as an
object in the same git commit. Written raw (ledger 1), the object had the deleted file's
very bytes, and git's rename detection (exact, then similarity of 50 % and more, which
``git merge`` uses) paired the two: a teammate's edit of the file was merged *into the
object*, the merge was clean, the edit was gone from the workspace and ``verify`` exited
3. Keyed objects (ledger 2) change every byte through a table keyed by their hash. The
oracle is git itself: what it reports as a rename, what its merge reports, and the
merged tree.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ledger.conftest import Repo, new_repo, output
from tests.object_form import object_content, sha256


def _text() -> bytes:
    draw = random.Random(1)
    return "".join(
        f"def f{i}(x):\n    return x * {draw.randint(1, 999)}\n" for i in range(60)
    ).encode()


def _binary() -> bytes:
    draw = random.Random(2)
    return b"\x00PNG\r\n" + bytes(draw.randrange(256) for _ in range(3000))


def _zeros() -> bytes:
    return bytes(8192)


def _edit_line(data: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[2] = b"    return x + 1"
    return b"\n".join(lines)


def _edit_bytes(data: bytes) -> bytes:
    return data[:100] + b"teammate" + data[108:]


def _objects(repo: Repo) -> list[bytes]:
    """The content of every object, each checked against its name (no merge edited one)."""
    found = []
    for path in repo.object_files():
        content = object_content(path)
        assert sha256(content) == "sha256:" + path.parent.name + path.name.removesuffix(".x")
        found.append(content)
    return found


def _start(path: Path, content: bytes) -> Repo:
    """A repository whose baseline (committed) holds ``lib`` with ``content``."""
    repo = new_repo(path)
    (repo.path / "lib").write_bytes(content)
    repo.write("keep.txt", "hi\n")
    repo.ok("init", "--in-tree")
    repo.commit("init")
    return repo


def _teammate_edits(repo: Repo, edit: Callable[[bytes], bytes]) -> bytes:
    repo.git("checkout", "-q", "-b", "teammate")
    edited = edit((repo.path / "lib").read_bytes())
    (repo.path / "lib").write_bytes(edited)
    repo.ok("record", "lib", "-m", "teammate edits lib")
    repo.commit("teammate edits lib")
    repo.git("checkout", "-q", "main")
    return edited


@pytest.mark.parametrize(
    ("content", "edit"),
    [(_text, _edit_line), (_binary, _edit_bytes), (_zeros, _edit_bytes)],
    ids=["text", "binary", "zero-filled"],
)
def test_deleting_a_file_a_teammate_edited_is_git_s_conflict_not_an_edited_object(
    tmp_path: Path, content: Callable[[], bytes], edit: Callable[[bytes], bytes]
) -> None:
    original = content()
    repo = _start(tmp_path / "repo", original)
    edited = _teammate_edits(repo, edit)
    (repo.path / "lib").unlink()
    repo.ok("record", "-m", "delete lib")
    repo.commit("delete lib")
    # git sees a file deleted and an object added, never a rename of one into the other.
    changed = repo.git("diff", "--name-status", "-M", "HEAD~1", "HEAD").stdout
    assert not [line for line in changed.splitlines() if line.startswith("R")], changed

    merged = repo.git("merge", "teammate", "-m", "merge", check=False)

    # What git reports without snapline: the teammate's edit against the deletion.
    assert merged.returncode == 1, output(merged)
    assert "CONFLICT (modify/delete): lib deleted in HEAD" in merged.stdout, output(merged)
    assert (repo.path / "lib").read_bytes() == edited  # their version, left in the tree
    assert original in _objects(repo)
    assert repo.snap("verify").returncode != 3, output(repo.snap("verify"))


def _change_line(data: bytes, number: int, text: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[number] = text
    return b"\n".join(lines)


def test_a_file_edited_a_little_then_deleted_is_not_paired_by_similarity(tmp_path: Path) -> None:
    # The object added beside the deletion holds a version close to the deleted one,
    # not equal: no exact rename, one git's similarity (50 % by default) would find.
    repo = new_repo(tmp_path / "repo")
    (repo.path / "lib").write_bytes(_text())
    repo.ok("init", "--in-tree")
    # Every version stored whole (an object): a file above `diff_limit` has no delta.
    config = repo.ledger / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "diff_limit": 1}))
    for local in (repo.path / ".snapline").glob("index.db*"):
        local.unlink()
    (repo.path / "lib").write_bytes(_change_line(_text(), 100, b"    return x - 1"))
    repo.ok("record", "-m", "edit lib")
    repo.commit("base")
    edited = _teammate_edits(repo, _edit_line)
    before = (repo.path / "lib").read_bytes()
    (repo.path / "lib").write_bytes(_change_line(before, 60, b"    return x - 2"))
    repo.ok("record", "-m", "edit lib again")
    (repo.path / "lib").unlink()
    repo.ok("record", "-m", "delete lib")
    repo.commit("edit and delete lib")
    changed = repo.git("diff", "--name-status", "-M", "HEAD~1", "HEAD").stdout.splitlines()
    assert "D\tlib" in changed, changed
    assert len([line for line in changed if line.startswith("A\t.snapline/ledger/objects/")]) == 1
    assert not [line for line in changed if line.startswith("R")], changed

    merged = repo.git("merge", "teammate", "-m", "merge", check=False)

    assert merged.returncode == 1, output(merged)
    assert "CONFLICT (modify/delete): lib deleted in HEAD" in merged.stdout, output(merged)
    assert (repo.path / "lib").read_bytes() == edited
    assert len(_objects(repo)) == 3  # the three versions main stored, as written
    assert repo.snap("verify").returncode != 3


@pytest.mark.parametrize(
    "content",
    [b"", b"snapline object 2\n", b"x", b"\n" * 200, bytes(3 << 20), _text()],
    ids=["empty", "header-line", "one-byte", "newlines", "three-mib-of-zeros", "text"],
)
def test_git_pairs_no_object_with_the_file_it_copies(tmp_path: Path, content: bytes) -> None:
    # Any content, even a file that is exactly a header line or empty: git finds no
    # rename between the deleted file and its object, at the similarity a merge uses
    # and well below it.
    repo = _start(tmp_path / "repo", content)
    (repo.path / "lib").unlink()
    repo.ok("record", "-m", "delete lib")
    repo.commit("delete lib")
    for threshold in ("-M50%", "-M10%"):
        changed = repo.git("diff", "--name-status", threshold, "HEAD~1", "HEAD").stdout
        assert not [line for line in changed.splitlines() if line.startswith("R")], changed
    assert _objects(repo) == [content]
