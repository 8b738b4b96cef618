"""The first ``verify`` after ``init`` lists git's packs once, not once per version.

The index keeps every whole version as a reference to a git blob, and the first
``verify`` asks git whether each is there (``SideBlobs.present``). Asked one by one,
git's files looked at the pack folder again for every version; asked together, they
list it once, as git keeps its list of packs (and look again only for an object not
found: ``tests/store/refs/test_filedb.py``). Counted through the real command line
in a repository whose committed blobs are packed, so ``init`` names them there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from snapline.cli.app import app
from tests.cli_runner import CliRunner
from tests.history_refs.gitrepo import ENV, new_repo

FILES = 60


def test_the_first_verify_lists_the_packs_once_not_once_per_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "work", {f"src/m{n}.py": f"v = {n}\n" for n in range(FILES)})
    repo.git("gc", "-q")  # the committed blobs in a pack, none loose
    repo.ok("init")
    blob = repo.git("rev-parse", "HEAD:src/m0.py").strip()
    assert not (repo.path / ".git" / "objects" / blob[:2] / blob[2:]).exists()  # packed
    visits = []
    real_stat, real_scandir = os.stat, os.scandir

    def looked_at(path: Any) -> None:
        if isinstance(path, (str, os.PathLike)) and os.fspath(path).endswith(
            f"{os.sep}objects{os.sep}pack"
        ):
            visits.append(path)

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        looked_at(path)
        return real_stat(path, *args, **kwargs)

    def scandir(path: Any = ".") -> Any:
        looked_at(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "scandir", scandir)
    done = CliRunner().invoke(app, ["--root", str(repo.path), "verify"], env=ENV)
    assert done.exit_code == 0, done.stdout
    assert "snapshots 0..0 verified" in done.stdout
    # One listing (its folder's time, then its entries), not one look per version.
    assert 0 < len(visits) <= 2, len(visits)
