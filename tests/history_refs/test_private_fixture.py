"""A workspace outside git written by the code of issue 37.7, read by today's code.

``tests/fixtures/workspace-private-1.tar.gz`` (made by ``make_private_store.py``) holds
a workspace whose history is on the refs of its private repository, ``.snapline/repo``,
without its index (a cache): every later snapline must build the index from those refs
and answer what ``workspace-private-1.json`` says the history held.
"""

from __future__ import annotations

import hashlib
import json
import tarfile
from pathlib import Path
from typing import Any

from tests.cli.conftest import run_script

FIXTURES = Path(__file__).parent.parent / "fixtures"
MANIFEST: dict[str, Any] = json.loads((FIXTURES / "workspace-private-1.json").read_text())


def _extracted(tmp_path: Path) -> Path:
    with tarfile.open(FIXTURES / "workspace-private-1.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / "ws"


def _files(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] != ".snapline"
    }


def test_the_private_fixture_reads_as_its_writer_left_it(tmp_path: Path) -> None:
    root = _extracted(tmp_path)
    assert not (root / ".snapline" / "index.db").exists()
    verify = run_script("verify", "--full", cwd=root)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    log = json.loads(run_script("log", "--json", cwd=root).stdout)
    assert sorted(
        (s["number"], s["id"], s["parent_id"], s["description"], s["chain_hash"]) for s in log
    ) == [
        (s["number"], s["id"], s["parent_id"], s["description"], s["chain_hash"])
        for s in MANIFEST["snapshots"]
    ]
    milestones = json.loads(run_script("milestone", "list", "--json", cwd=root).stdout)
    assert [(m["number"], m["first"], m["last"], m["title"]) for m in milestones] == [
        (m["number"], m["first"], m["last"], m["title"]) for m in MANIFEST["milestones"]
    ]
    assert _files(root) == MANIFEST["files"]
    # Every version rebuilds from the refs alone: back to the baseline, then forward.
    assert run_script("rollback", "--to", "0", "--yes", cwd=root).returncode == 0
    assert (root / "src" / "app.py").read_text() == "def main():\n    return 1\n"
    assert run_script("undo", cwd=root).returncode == 0
    assert _files(root) == MANIFEST["files"]
    (root / "README.md").write_text("# later\n")
    assert run_script("record", "-m", "later", cwd=root).returncode == 0
    assert run_script("verify", "--full", cwd=root).returncode == 0
