"""Shared fixtures and the hypothesis profiles.

``ci`` (the default) is deterministic: the same examples on every run, so a red build
is reproducible. ``SNAPLINE_STRESS=1`` selects ``deep``, which explores far more.
"""

from __future__ import annotations

import compileall
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import snapline
from snapline import Workspace

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
settings.register_profile(
    "deep",
    deadline=None,
    max_examples=500,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.load_profile("deep" if os.environ.get("SNAPLINE_STRESS") == "1" else "ci")


def pytest_configure(config: pytest.Config) -> None:
    """Compile snapline's modules once, before any test starts a snapline process.

    Most tests run snapline as a user does, each command in a process of its own. Where
    PYTHONDONTWRITEBYTECODE is set (the machines this project is built on set it), no
    process writes what it compiles, so each one compiled every module it imported again:
    tests/cli/test_verify.py took 10.5 s, and 3.3 s once compiled. Bytecode is read
    whatever that variable says; ``compileall`` writes it for the copy of snapline the
    tests import (under ``make mutation``, the mutated one, whose modules are far larger).
    Once: in the process that starts pytest-xdist's workers, or runs the tests itself.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        compileall.compile_dir(Path(snapline.__file__).parent, quiet=1)


# Git's identity for the commits a test makes, and none of the machine's configuration.
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (outside ``.snapline/`` and ``.git/``) with its bytes."""
    result = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in (".snapline", ".git") or path.is_dir():
            continue
        result[rel] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty workspace directory."""
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def ws(root: Path) -> Iterator[Workspace]:
    """An initialised workspace with two files in its baseline."""
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "README.md").write_text("# demo\n")
    workspace = Workspace.init(root)
    yield workspace
    workspace.close()


@pytest.fixture(autouse=True, scope="session")
def _no_warm_server() -> Iterator[None]:
    """No test reaches a user's warm server, and none starts one unless it says so.

    Every ``snapline`` a test runs looks for its server in a directory of this run's own
    (``SNAPLINE_RUNTIME_DIR``) and, with ``SNAPLINE_SERVER=0``, neither uses nor starts
    one (``integrate claude-code`` and ``watch`` would). The warm server's tests
    (tests/cli/warm/) set both again for each test, and stop what they start.
    """
    runtime = tempfile.mkdtemp(prefix="sl-")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SNAPLINE_RUNTIME_DIR", runtime)
        patch.setenv("SNAPLINE_SERVER", "0")
        yield
    shutil.rmtree(runtime, ignore_errors=True)
