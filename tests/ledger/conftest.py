"""Real git and the real ``snapline`` command: repositories, clones, and a prepared history.

Every test here drives the installed console script and the system's ``git`` as a team
would, in temporary repositories. Building a history costs a few snapline runs (about
half a second each), so one committed history (``origin``) is built once per session;
tests that change a repository work on a fresh ``git clone`` of it (no index yet) or on
a copy of the working repository (``shutil.copytree``: the index included).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SNAPLINE = str(Path(sys.executable).with_name("snapline"))
# Where no console script is installed (`make mutation` runs the copy of snapline it
# mutates, in a venv without snapline), the same command line through the interpreter,
# importing that copy: the mutant under test is then the one the command runs.
_INSTALLED = Path(SNAPLINE).exists()
_COMMAND = [SNAPLINE] if _INSTALLED else [sys.executable, "-m", "snapline"]

# Each repository's identity is given on every git command line: no global or system
# configuration of the machine running the tests takes part.
_GIT = [
    "git",
    "-c",
    "user.name=Ledger Tests",
    "-c",
    "user.email=ledger-tests@example.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "init.defaultBranch=main",
]


def _env() -> dict[str, str]:
    # Read at each call, never on import: `make mutation` names the mutant under test in
    # the environment after the tests are imported, and every command run here must run it.
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "NO_COLOR": "1",
    }
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    if not _INSTALLED:
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


LOCAL_NAMES = (
    "index.db",
    "index.db-wal",
    "index.db-shm",
    "index.db-journal",
    "lock",
    "parked",
    "workspace",
)
"""What ``.snapline/`` may hold that is local to one clone (never committed)."""


@dataclass
class Repo:
    """A git repository with a snapline workspace at its root."""

    path: Path
    ids: dict[str, str] = field(default_factory=dict)

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``git ARGS`` here; fail the test on a non-zero exit when ``check``."""
        result = subprocess.run(
            [*_GIT, *args],
            cwd=self.path,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=120,
            check=False,
        )
        if check:
            assert result.returncode == 0, f"git {' '.join(args)}: {result.stderr}"
        return result

    def snap(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run the installed ``snapline ARGS`` here (or in ``cwd``), as a user would."""
        return subprocess.run(
            [*_COMMAND, *args],
            cwd=cwd or self.path,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=120,
            check=False,
        )

    def ok(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``snapline ARGS``, which must exit 0."""
        result = self.snap(*args)
        assert result.returncode == 0, f"snapline {' '.join(args)}: {output(result)}"
        return result

    def json(self, *args: str) -> Any:
        """What ``snapline ARGS --json`` printed (it must exit 0)."""
        return json.loads(self.ok(*args, "--json").stdout)

    def write(self, rel: str, text: str) -> None:
        """Write a workspace file (parents created)."""
        location = self.path / rel
        location.parent.mkdir(parents=True, exist_ok=True)
        location.write_text(text)

    def commit(self, message: str) -> None:
        """Commit everything (``git add -A``: the ignore rules decide what goes in)."""
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def status(self) -> list[str]:
        """``git status --porcelain`` lines, untracked files listed one by one."""
        text = self.git("status", "--porcelain", "--untracked-files=all").stdout
        return text.splitlines()

    @property
    def ledger(self) -> Path:
        """The committed ledger directory."""
        return self.path / ".snapline" / "ledger"

    def snapshot_file(self, number: int, id_: str | None = None) -> Path:
        """The ledger file of snapshot ``number`` (the only one, unless ``id_`` is given)."""
        found = [
            path
            for path in (self.ledger / "snapshots").iterdir()
            if path.name.startswith(f"{number:08d}-") and (id_ is None or id_ in path.name)
        ]
        assert len(found) == 1, found
        return found[0]

    def snapshot_ids(self) -> list[tuple[int, str]]:
        """``(number, id)`` of every snapshot file in the ledger, sorted."""
        names = sorted(p.name for p in (self.ledger / "snapshots").iterdir())
        return [(int(name[:8]), name[9:-5]) for name in names if name.endswith(".snap")]

    def milestone_files(self) -> list[Path]:
        """The milestone files, sorted."""
        return sorted((self.ledger / "milestones").iterdir())

    def object_files(self) -> list[Path]:
        """The object files, sorted."""
        return sorted(p for p in (self.ledger / "objects").rglob("*") if p.is_file())


def output(result: subprocess.CompletedProcess[str]) -> str:
    """Everything a command printed, stdout then stderr."""
    return result.stdout + result.stderr


def upgraded(repo: Repo) -> None:
    """``snapline upgrade``: the checkout's ledger onto git's refs, as a user moves it."""
    repo.git("config", "user.name", "Fixture Reader")
    repo.git("config", "user.email", "fixtures@example.invalid")
    repo.ok("upgrade")
    assert not repo.ledger.exists()


def blob_id(data: bytes) -> str:
    """The id git gives a blob of ``data``."""
    done = subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True)
    return done.stdout.decode().strip()


def new_repo(path: Path) -> Repo:
    """An empty git repository on branch ``main``."""
    path.mkdir(parents=True)
    repo = Repo(path)
    repo.git("init", "-q", "-b", "main")
    return repo


def clone(source: Repo, path: Path) -> Repo:
    """``git clone`` of ``source``: the committed files only, no index."""
    result = subprocess.run(
        [*_GIT, "clone", "-q", str(source.path), str(path)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return Repo(path, dict(source.ids))


def copy(source: Repo, path: Path) -> Repo:
    """A copy of the working repository, local index and all (as if it had stayed put)."""
    shutil.copytree(source.path, path, symlinks=True)
    return Repo(path, dict(source.ids))


def committed_outside_ledger(paths: list[str]) -> list[str]:
    """The paths under ``.snapline/`` that are neither its .gitignore nor in ``ledger/``."""
    return [
        path
        for path in paths
        if path.startswith(".snapline/")
        and path != ".snapline/.gitignore"
        and not path.startswith(".snapline/ledger/")
    ]


APP_V0 = "def answer():\n    return 1\n"
APP_V1 = "def answer():\n    return 2\n"
APP_V3 = "def answer():\n    return 3\n"
NOTES = "first note\nsecond note\n"


FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture(scope="session")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """A committed history on ``main``; do not change it (clone or copy it instead).

    A clone of ``tests/fixtures/ledger-origin.bundle``, written by the code that still
    wrote the in-tree ledger (``tests/fixtures/make_ledger_origin.py``), its local index
    built by a first reading command. Snapshot 1 edits app.py (a delta), 2 adds notes.txt
    (an object), 3 edits app.py again; milestone 1 covers snapshots 1..2. ``ids`` maps
    ``"s0"``..``"s3"`` to the snapshot ids.
    """
    parent = tmp_path_factory.mktemp("origin")
    Repo(parent).git("clone", "-q", str(FIXTURES / "ledger-origin.bundle"), "repo")
    repo = Repo(parent / "repo")
    repo.ok("log")
    assert repo.status() == []
    assert (repo.path / "app.py").read_text() == APP_V3
    repo.ids = {f"s{number}": id_ for number, id_ in repo.snapshot_ids()}
    assert sorted(repo.ids) == ["s0", "s1", "s2", "s3"]
    return repo
