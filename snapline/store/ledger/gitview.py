"""What git says about the ledger's files, for the states a git operation leaves behind.

Only asked when the ledger does not hold together on its own (a rebuild that finds a
snapshot whose parent is missing): one ``git ls-files`` run. Outside a git work tree,
or when git cannot be run, the answer is ``None`` and the caller keeps its rule
without git.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["untracked_snapshot_files"]

_SNAPSHOTS = ".snapline/ledger/snapshots"


def untracked_snapshot_files(root: Path) -> set[str] | None:
    """The names of the snapshot files git does not track here, when git tracks the ledger.

    Args:
        root: The workspace root.

    Returns:
        The file names (not paths) of untracked snapshot files, or ``None`` outside a git
        work tree, when git tracks no snapshot file (the ledger is not committed), or
        when git cannot be run.
    """
    tracked = _ls_files(root, [])
    if not tracked:
        return None
    untracked = _ls_files(root, ["--others"])
    return None if untracked is None else {Path(p).name for p in untracked}


def _ls_files(root: Path, options: list[str]) -> list[str] | None:
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", *options, "--", _SNAPSHOTS],
            cwd=root,
            capture_output=True,
            env=env,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return [p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
