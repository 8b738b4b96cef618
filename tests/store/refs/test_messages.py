"""The first line of every commit message snapline writes: at most 100 characters, cut with ``...``.

The messages are for people reading ``git log`` on the refs (readers take everything from
the records); a forget of many long paths once cut its line at 100 characters silently.
"""

from __future__ import annotations

from pathlib import Path

from snapline import Workspace
from tests.history_refs.gitrepo import Repo, new_repo


def test_a_forget_of_long_paths_is_cut_as_snapshots_and_milestones_are(tmp_path: Path) -> None:
    repo: Repo = new_repo(tmp_path / "repo", {"README.md": "hi\n"})
    names = [f"secret-{'x' * 40}-{n}.env" for n in range(4)]
    with Workspace.init(repo.path) as ws:
        for name in names:
            ws.write_file(name, "TOKEN=1\n", description="d" * 150)
        ws.milestones.create("t" * 150, to="latest")
        ws.forget(names, reason="leaked")
    lines = repo.git("log", "--format=%s", "--glob=refs/snapline/*").splitlines()
    forget = [line for line in lines if line.startswith("snapline forget:")]
    assert forget, lines
    long_ones = [line for line in lines if len(line) == 100]
    assert forget[0] in long_ones
    assert all(len(line) <= 100 for line in lines), lines
    assert all(line.endswith("...") for line in long_ones), long_ones
