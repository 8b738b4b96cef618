"""A warm check sees git's global excludes change, as it sees ``info/exclude`` change.

The global excludes file lies outside the tree, where no monitor watches: a file it
ignored (never reported, so never checked again) counts once its rule goes. The whole
walk (``SNAPLINE_SERVER=0``) is the oracle.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.warm.conftest import start_server
from tests.cli.warm.monitoring import same_as_walk


def test_the_global_excludes_file_changed_means_the_whole_walk(
    runtime: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg"
    # The server's and every client's: a client with another one is not served (the
    # git library reads it once); the file it names is read by each client's worker.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    warm = start_server(runtime)  # stopped by the runtime fixture
    excludes = config / "git" / "ignore"
    excludes.parent.mkdir(parents=True)
    excludes.write_text("*.log\n")
    (project / "notes.log").write_text("ignored\n")
    assert same_as_walk(project, warm) == ([], True)
    assert same_as_walk(project, warm) == ([], False)
    excludes.write_text("")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("untracked", "notes.log")]
    assert walked
    # And back: the rule returns, the file is ignored again.
    excludes.write_text("*.log\n")
    assert same_as_walk(project, warm) == ([], True)
