"""What ``snapline verify`` finds in a history that came through git, and what it cannot.

The chain hash makes accidental damage and a careless edit visible; it is no signature.
Someone who can push to the repository can rewrite a committed snapshot file and
recompute every chain hash after it (the algorithm is public), or append a snapshot of
their own with a correct chain hash. These tests hold the documented limit
(docs/guarantees.md, "What verify finds, and what it cannot"; the README's verify table)
to what really happens, through real git clones and the real command line, on a branch
whose history is committed in ``.snapline/ledger/`` (the ledger-2 fixture's ``agent-c``,
snapshots 0..6 on one line, written by c82d55b; every edit below is made by hand):

- a fresh clone verifies a resealed rewrite and a forged append as sound (exit 0);
- a clone whose index was filled before the rewrite names every rewritten file (exit 3);
- an edit left unsealed, or a snapshot file deleted from the middle, fails everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from snapline.hashing import hash_bytes
from snapline.snapshots.check.chain import GENESIS, chain_hash
from snapline.store.ledger.format import parse_snapshot, render_snapshot
from tests.conftest import GIT_IDENTITY
from tests.history_refs.upgrading import FIXTURES

SCRIPT = str(Path(sys.executable).with_name("snapline"))


def _env() -> dict[str, str]:
    # Read at each call: `make mutation` names the mutant in the environment after import.
    return {**os.environ, "SNAPLINE_SERVER": "0", **GIT_IDENTITY}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=120, check=False
    )


def _git(*args: str, cwd: Path) -> None:
    done = _run("git", *args, cwd=cwd)
    assert done.returncode == 0, done.stderr


def _snapline(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return _run(SCRIPT, *args, cwd=cwd)


def _clone(origin: Path, to: Path) -> Path:
    _git("clone", "-q", "-b", "main", str(origin), str(to), cwd=origin.parent)
    return to


def _published(tmp_path: Path) -> tuple[Path, Path]:
    """A project with snapshots 0..6 committed and pushed; its origin and first clone."""
    origin = tmp_path / "origin.git"
    _git("clone", "-q", "--bare", str(FIXTURES / "ledger-2.bundle"), str(origin), cwd=tmp_path)
    _git(
        "--git-dir",
        str(origin),
        "update-ref",
        "refs/heads/main",
        "refs/heads/agent-c",
        cwd=tmp_path,
    )
    mine = _clone(origin, tmp_path / "mine")
    assert _snapline("verify", cwd=mine).returncode == 0  # its index now holds 0..6
    return origin, mine


def _snapshot_files(root: Path) -> list[Path]:
    return sorted((root / ".snapline" / "ledger" / "snapshots").glob("*.snap"))


def _rewrite(root: Path, number: int, *, reseal: bool, **fields: object) -> None:
    """Edit snapshot ``number``'s header; with ``reseal``, recompute every chain hash."""
    previous = GENESIS
    for path in _snapshot_files(root):
        record = parse_snapshot(path.read_bytes())
        row = record.row
        if row.number == number:
            row = row._replace(**fields)
        if reseal:
            row = row._replace(chain_hash=chain_hash(previous, row, record.changes))
        previous = row.chain_hash
        path.write_bytes(render_snapshot(row, record.changes))


def _forge_append(root: Path, **fields: object) -> None:
    """Append snapshot 7 by hand: a copy of the file snapshot 6 added, its content object
    already in the ledger, chained onto 6 with the public algorithm."""
    *_, last = _snapshot_files(root)
    record = parse_snapshot(last.read_bytes())
    (added,) = record.changes
    data = (root / added.path).read_bytes()
    assert hash_bytes(data) == added.result_hash
    copy = added.path + ".copy"
    (root / copy).write_bytes(data)
    row = record.row._replace(
        number=record.row.number + 1,
        id="f" * 32,
        parent_id=record.row.id,
        description="a copy",
        **fields,
    )
    changes = [added._replace(path=copy, snapshot=row.number)]
    row = row._replace(chain_hash=chain_hash(record.row.chain_hash, row, changes))
    name = f"{row.number:08d}-{row.id}.snap"
    (last.parent / name).write_bytes(render_snapshot(row, changes))


def _push(root: Path, message: str) -> None:
    _git("add", "-A", cwd=root)
    _git("commit", "-qm", message, cwd=root)
    _git("push", "-q", "origin", "main", cwd=root)


def test_a_resealed_rewrite_passes_a_fresh_clone_and_fails_an_existing_one(
    tmp_path: Path,
) -> None:
    origin, mine = _published(tmp_path)
    theirs = _clone(origin, tmp_path / "theirs")
    _rewrite(theirs, 1, reseal=True, description="a person wrote two", tool="resync")
    _push(theirs, "history rewritten and resealed")

    fresh = _clone(origin, tmp_path / "fresh")
    verified = _snapline("verify", "--full", "--deep", cwd=fresh)
    assert verified.returncode == 0, verified.stdout  # the limit: nothing to compare with
    shown = _snapline("show", "1", cwd=fresh)
    assert "a person wrote two" in shown.stdout

    _git("pull", "-q", "origin", "main", cwd=mine)
    found = _snapline("verify", cwd=mine)
    assert found.returncode == 3, found.stdout
    named = [line for line in found.stdout.splitlines() if line.strip().startswith("ledger")]
    # Snapshot 1 and every one after it, whose chain hash changed with it.
    assert len(named) == 6 and all("says something else" in line for line in named), named
    assert all(f"0000000{n}-" in found.stdout for n in range(1, 7))


def test_a_forged_append_with_a_correct_chain_hash_passes_everywhere(tmp_path: Path) -> None:
    origin, mine = _published(tmp_path)
    theirs = _clone(origin, tmp_path / "theirs")
    # Claimed for an agent session that never made it, and sealed as snapline seals.
    _forge_append(theirs, tool="Edit", session="a-session-that-never-was")
    _push(theirs, "one more snapshot")

    fresh = _clone(origin, tmp_path / "fresh")
    _git("pull", "-q", "origin", "main", cwd=mine)
    for clone in (fresh, mine):
        verified = _snapline("verify", "--full", "--deep", cwd=clone)
        assert verified.returncode == 0, (clone.name, verified.stdout)
        logged = _snapline("log", "--session", "a-session-that-never-was", cwd=clone)
        assert logged.stdout.split()[0] == "7", logged.stdout


def test_an_unsealed_edit_or_a_gap_fails_even_a_fresh_clone(tmp_path: Path) -> None:
    origin, _ = _published(tmp_path)
    theirs = _clone(origin, tmp_path / "theirs")
    _rewrite(theirs, 1, reseal=False, description="edited, chain left as it was")
    _push(theirs, "edited")
    edited = _snapline("verify", cwd=_clone(origin, tmp_path / "fresh-edited"))
    assert edited.returncode == 3 and "snapshot 1" in edited.stdout, edited.stdout

    _git("revert", "--no-edit", "HEAD", cwd=theirs)
    _snapshot_files(theirs)[2].unlink()  # snapshot 2, from the middle
    _push(theirs, "a snapshot deleted")
    gap = _snapline("verify", cwd=_clone(origin, tmp_path / "fresh-gap"))
    assert gap.returncode == 3, gap.stdout


def test_the_docs_claim_no_more_than_these_tests_show() -> None:
    checkout = Path(__file__).resolve().parents[2]
    guarantees = (checkout / "docs" / "guarantees.md").read_text(encoding="utf-8")
    readme = (checkout / "README.md").read_text(encoding="utf-8")
    # The old claim: verify finds damage further back in a resealed chain.
    assert "resealed chain is found by `snapline verify`" not in guarantees
    assert "What verify finds, and what it cannot" in guarantees
    assert "test_resealed_history.py" in guarantees
    for text in (guarantees, readme):
        flat = " ".join(text.split())
        assert "not a signature" in flat
        assert "a fresh clone (as in CI) verifies" in flat or "a fresh clone (CI) verifies" in flat
