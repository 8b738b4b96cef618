"""A fresh clone's first `verify` reads the line's trees from git's pack, each delta once.

git packs a line's states (trees) as deltas of each other, in chains. The first command
of a clone reads every state, one after the other; the pack reader keeps what it rebuilt
(git's delta base cache), so a delta is applied once, not again for every object further
down its chain. Counted through the real command line in a clone whose objects are packed,
with the files' reader kept for the whole line (a process normally hands bulk reads on).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline.cli.app import app
from snapline.store.refs import git, packs
from tests.cli_runner import CliRunner
from tests.history_refs.gitrepo import ENV, Repo, new_repo

SNAPSHOTS = 40


def _packed_clone(tmp_path: Path) -> Repo:
    """CI's clone of a line of ``SNAPSHOTS`` edits in nested folders, every object packed."""
    files = {f"src/part{n}/mod{m}.py": f"v = {n}{m}\n" for n in range(4) for m in range(8)}
    work = new_repo(tmp_path / "work", files)
    work.ok("init")
    for number in range(1, SNAPSHOTS + 1):
        path = f"src/part{number % 4}/mod{number % 8}.py"
        (work.path / path).write_text(f"value = {number}\n" * (number % 3 + 1))
        work.ok("record", path, "-m", f"edit {number}")
    work.git("commit", "-qam", "work")
    origin = tmp_path / "origin.git"
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    work.ok("push", str(origin))
    ci = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", str(origin), str(ci.path))
    ci.ok("fetch", "origin")
    # A small fetch leaves its objects loose; a repository's objects end in a pack.
    ci.git("repack", "-adq")
    return ci


def _deltas_in_pack(ci: Repo) -> int:
    """How many objects of the clone's pack are stored as deltas (git verify-pack)."""
    pack = next((ci.path / ".git" / "objects" / "pack").glob("*.idx"))
    listing = ci.git("verify-pack", "-v", str(pack))
    # A delta's line has seven fields: id, type, size, size in pack, offset, depth, base.
    return sum(1 for line in listing.splitlines() if len(line.split()) == 7)


def test_the_first_verify_applies_each_delta_of_the_pack_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _packed_clone(tmp_path)
    deltas = _deltas_in_pack(ci)
    assert deltas > SNAPSHOTS  # the states' trees are chains of deltas
    applied = 0
    real = packs.apply_delta

    def counted(base: bytes, delta: bytes) -> bytes:
        nonlocal applied
        applied += 1
        return real(base, delta)

    monkeypatch.setattr(packs, "apply_delta", counted)
    # The files' reader kept for the whole line: past 64 packed objects a process
    # hands its reads to libgit2 (git.BULK_READS), which would leave it nothing to count.
    monkeypatch.setattr(git, "BULK_READS", 10**9)
    done = CliRunner().invoke(app, ["--root", str(ci.path), "verify"], env=ENV)
    assert done.exit_code == 0, done.stdout
    assert f"snapshots 0..{SNAPSHOTS} verified" in done.stdout
    assert 0 < applied <= deltas, (applied, deltas)
