"""Two clones upgrade the same committed 0.1 store: the same ledger, byte for byte.

A team that committed ``.snapline/store.db`` (snapline 0.1) upgrades in every clone
on its first command. Each clone writes the ledger; git must see the same files, so
that committing the upgrade in two clones and merging conflicts on nothing.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from tests.ledger.conftest import Repo, clone, new_repo, output

FIXTURE = Path(__file__).parent.parent / "fixtures" / "workspace-0.1.0.tar.gz"


def _ledger_bytes(repo: Repo) -> dict[str, bytes]:
    return {
        str(path.relative_to(repo.ledger)): path.read_bytes()
        for path in sorted(repo.ledger.rglob("*"))
        if path.is_file()
    }


def test_two_clones_upgrading_one_store_write_the_same_ledger(tmp_path: Path) -> None:
    origin = new_repo(tmp_path / "origin")
    with tarfile.open(FIXTURE) as archive:
        archive.extractall(tmp_path / "extracted", filter="data")
    for item in (tmp_path / "extracted" / "ws").iterdir():
        item.rename(origin.path / item.name)
    origin.git("add", "-A", "-f")
    origin.git("commit", "-q", "-m", "a 0.1 history")
    first = clone(origin, tmp_path / "first")
    second = clone(origin, tmp_path / "second")

    for repo in (first, second):
        upgraded = repo.snap("status")
        assert upgraded.returncode == 0, output(upgraded)
        assert "upgraded the snapline 0.1 store" in upgraded.stderr
    assert (first.ledger / "UPGRADED").is_file()
    assert _ledger_bytes(first) == _ledger_bytes(second)

    for repo in (first, second):
        repo.commit("snapline upgrade")
    second.git("pull", "-q", "--no-rebase", "--no-edit", str(first.path), "main")
    assert second.git("ls-files", "--unmerged").stdout == ""
    verify = second.snap("verify")
    assert verify.returncode == 0, output(verify)
