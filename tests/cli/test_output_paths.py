"""Files the user names are never written inside ``.snapline/`` (issue 14, item 11).

``milestone export 1 -o .snapline/index.db`` exited 0 after replacing the whole store.
Every command that writes a file the user names goes through one check,
``snapline.paths.output_path``, however the path spells the store.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke

# Spellings of a path inside the store, relative to the workspace root.
INSIDE = [
    ".snapline/index.db",
    ".snapline/lock",
    ".snapline/new.patch",
    "./.snapline/index.db",
    ".snapline/../.snapline/index.db",
    "src/../.snapline/index.db",
    ".snapline//store.db",
    ".SNAPLINE/index.db",  # the store itself where the filesystem folds case
    ".Snapline/x.patch",
    "storelink/index.db",  # a symlink to .snapline/
    "storelink/../.snapline/index.db",
    "deep/link/index.db",  # a symlinked directory on the way
    "{abs}/.snapline/index.db",
    "{abs}/src/../.snapline/index.db",
]

COMMANDS = [
    ["milestone", "export", "1", "-o"],
    ["report", "-o"],
    ["verify", "--report"],
]


@pytest.fixture
def milestone(project: Path) -> Path:
    with Workspace.open(project) as ws:
        ws.write_file("a.txt", "one\n")
        ws.milestones.create("phase 1")
    (project / "storelink").symlink_to(".snapline")
    (project / "deep").mkdir()
    (project / "deep" / "link").symlink_to(project / ".snapline")
    for variant in (".SNAPLINE", ".Snapline"):
        (project / variant).mkdir()
    return project


def _store_state(root: Path) -> tuple[list[str], bytes, list[str]]:
    # The files in the store, the database's header, and the history's ids (reading
    # commands may rewrite store.db's stat cache, so its bytes are not compared).
    store = root / ".snapline"
    with Workspace.open(root) as ws:
        ids = [snapshot.id for snapshot in ws.snapshots()]
    names = sorted(
        entry.name for entry in store.iterdir() if not entry.name.endswith(("-wal", "-shm"))
    )
    return names, (store / "index.db").read_bytes()[:16], ids


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_spelling_of_the_store_is_refused(
    milestone: Path, cli: Invoke, command: list[str]
) -> None:
    before = _store_state(milestone)
    for spelling in INSIDE:
        path = spelling.format(abs=milestone)
        result = cli(*command, path)
        assert result.exit_code == 2, (path, result.output)
        assert "inside the store" in result.stderr, (path, result.stderr)
        assert _store_state(milestone) == before, path
    assert not (milestone / ".snapline" / "new.patch").exists()
    assert not list((milestone / ".SNAPLINE").iterdir())
    assert cli("verify").exit_code in (0, 1)
    assert cli("log").exit_code == 0


def test_from_a_subdirectory_the_store_is_still_refused(
    milestone: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(milestone / "src")
    for path in ("../.snapline/index.db", "../storelink/x.patch"):
        result = cli("milestone", "export", "1", "-o", path)
        assert result.exit_code == 2, result.output


def test_paths_outside_the_store_are_written(milestone: Path, cli: Invoke, tmp_path: Path) -> None:
    for path in (".snapline.patch", "snapline/store.db", str(tmp_path / "m1.patch")):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        result = cli("milestone", "export", "1", "-o", path)
        assert result.exit_code == 0, result.output
        assert Path(path).read_text().startswith("Milestone 1: phase 1")


def test_the_library_refuses_too(milestone: Path) -> None:
    from snapline import OutputInStoreError

    with Workspace.open(milestone) as ws:
        for spelling in INSIDE:
            with pytest.raises(OutputInStoreError):
                ws.milestones.export(1, milestone / spelling.format(abs=milestone))
            with pytest.raises(OutputInStoreError):
                ws.report(milestone / spelling.format(abs=milestone))
