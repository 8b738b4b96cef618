"""Issue 40, point 9: ``status`` and ``init`` agree on a ``.snapline/`` that is half there.

Regression: with ``.snapline/ledger/`` there but no ``FORMAT`` file in it (the stray
check record a store deleted under ``guard`` left, or a store half copied), ``status``
said "no snapline store; run `snapline init`" while ``init`` said "already has a
snapline store ... delete that directory to start over". Now a ledger folder that
holds history is a damaged store to both (exit 3, one line, restore it; nothing is
deleted), and one that holds none is no store to both: ``init`` clears it and starts.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.old_ledgers import LEDGER, ledger_checkout


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_ledger_holding_history_without_format_is_damaged_to_status_and_init(
    tmp_path: Path,
) -> None:
    # An old in-tree ledger (the ledger-2 fixture's checkout), outside git as a copy is.
    root = ledger_checkout(tmp_path / "ws", git=False).path
    ledger = root / LEDGER
    kept = (ledger / "FORMAT").read_bytes()
    (ledger / "FORMAT").unlink()
    before = _files(root / ".snapline")

    status = run_script("status", cwd=root)
    init = run_script("init", cwd=root)

    for done in (status, init):
        said = done.stderr.strip().splitlines()
        assert done.returncode == 3, done.stderr
        assert len(said) == 1 and str(ledger) in said[0], said
        assert "no FORMAT file" in said[0] and "restore .snapline/" in said[0]
        assert "delete" not in said[0] and "snapline init" not in said[0]
    assert status.stderr == init.stderr
    assert _files(root / ".snapline") == before  # neither changed a thing
    (ledger / "FORMAT").write_bytes(kept)  # what the line says to do, done
    assert run_script("verify", cwd=root).returncode == 0


def test_a_ledger_holding_no_history_is_no_store_to_status_and_init_starts_one(
    root: Path,
) -> None:
    # What `guard -- rm -rf .snapline` left before guard checked for it: a check record.
    (root / "a.txt").write_text("a\n")
    checks = root / ".snapline" / "ledger" / "checks"
    checks.mkdir(parents=True)
    (checks / "00000001-abc.check").write_text("stray\n")

    status = run_script("status", cwd=root)
    assert status.returncode == 2
    assert "no snapline history: run `snapline fetch` if it was pushed, or `snapline init`" in (
        status.stderr
    )
    init = run_script("init", cwd=root)
    assert init.returncode == 0, init.stderr
    assert str(root / ".snapline" / "ledger.stray") in init.stderr  # kept, and said so
    stray = root / ".snapline" / "ledger.stray" / "checks" / "00000001-abc.check"
    assert stray.read_text() == "stray\n"
    assert run_script("status", cwd=root).returncode == 0
    assert run_script("verify", cwd=root).returncode == 0
    git = subprocess.run(["git", "init", "-q"], cwd=root, check=False)
    assert git.returncode == 0
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", ".snapline"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert listed == []  # the private repository and the stray check: never committed


def test_an_empty_ledger_folder_is_no_store_and_init_takes_its_place(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / ".snapline" / "ledger" / "snapshots").mkdir(parents=True)
    assert run_script("status", cwd=root).returncode == 2
    assert run_script("init", cwd=root).returncode == 0
    assert not (root / ".snapline" / "ledger.stray").exists()
    assert run_script("verify", cwd=root).returncode == 0


def test_init_on_a_store_never_advises_deleting_it(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    again = run_script("init", cwd=root)
    assert again.returncode == 2
    assert "already has a snapline store" in again.stderr and "delete" not in again.stderr
