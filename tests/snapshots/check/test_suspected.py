"""``record``'s cheap first check: with one line nothing is hashed, with two it asks as before.

Every ``record`` asks :func:`~snapline.snapshots.check.merged.suspected` whether a path
it is about to file could be another line's work that git merged in. With no line but
this work tree's own (the common case) the answer is "none" whatever the content, so it
is given from one listing of the lines' refs, before any content is hashed (a file of
tens of MiB was hashed whole for nothing). With another line the answer is what it was:
content git already holds, or content not read, is suspected; a fresh edit is not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import Workspace
from snapline.snapshots.check.merged import suspected
from snapline.store.refs import objects
from tests.history_refs.gitrepo import Repo, new_repo

_COMMITTED = "committed by the user\n"


@pytest.fixture(params=["loose", "packed"])
def repo(tmp_path: Path, request: pytest.FixtureRequest) -> Repo:
    made = new_repo(tmp_path / "work", {"app.py": _COMMITTED})
    made.ok("init")
    if request.param == "packed":  # the line's ref in packed-refs, as `git gc` leaves it
        made.git("pack-refs", "--all")
    return made


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each content ``suspected`` hashes into a blob id."""
    sizes: list[int] = []
    real = objects.blob_id

    def counting(data: bytes) -> str:
        sizes.append(len(data))
        return real(data)

    monkeypatch.setattr(objects, "blob_id", counting)
    return sizes


def test_a_record_with_one_line_hashes_no_content(repo: Repo, hashed: list[int]) -> None:
    big = b"x" * (8 << 20)  # below the large-file limit: read, and once hashed for nothing
    (repo.path / "big.bin").write_bytes(big)
    (repo.path / "copy.py").write_text(_COMMITTED)  # a blob git holds: suspect, with a line
    with Workspace.open(repo.path) as ws:
        recorded = ws.record(["big.bin", "copy.py"], tool="edit")
        assert sorted(f.path for f in recorded.files) == ["big.bin", "copy.py"]
        assert suspected(ws._store, {"copy.py": _COMMITTED.encode()}, ["app.py"]) == []
    assert hashed == []


def test_with_another_line_the_answer_is_as_before(repo: Repo, hashed: list[int]) -> None:
    (line,) = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()
    # Another line on the refs (as a fetch of another writer's brings one).
    repo.git("update-ref", "refs/snapline/lines/" + "f" * 32, line)
    if (repo.path / ".git" / "packed-refs").exists():
        repo.git("pack-refs", "--all")
    with Workspace.open(repo.path) as ws:
        store = ws._store
        written: dict[str, bytes | None] = {
            "copy.py": _COMMITTED.encode(),  # a blob the repository holds
            "fresh.py": b"an agent's fresh edit\n",
            "big.bin": None,  # not read: above the large-file limit
        }
        assert suspected(store, written, []) == ["big.bin", "copy.py"]
        assert sorted(hashed) == sorted([len(_COMMITTED), len(b"an agent's fresh edit\n")])
        assert suspected(store, {"fresh.py": b"fresh\n"}, []) == []
        assert suspected(store, {}, ["app.py"]) == []  # HEAD still holds it: no merge's
