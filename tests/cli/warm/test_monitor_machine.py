"""A state machine: every route of change, and a warm check always says what a cold one says.

Issue 40, point 3. Random programs of edits made every way a file can change under a
watched tree: the same path written twice, appended, truncated, its mode flipped,
renamed over another, deleted; hard links between tracked names, from an ignored
folder and from outside the tree, and writes through them; ``git checkout`` rewriting a
file; ignore files edited; snapshots recorded; and the server stopped, started again,
restarted, or stopped by SIGSTOP while a change is made and then continued. After every
step, ``status --json`` served warm gives the drift ``SNAPLINE_SERVER=0`` gives, and
``verify`` the same exit code and output: the whole walk is the oracle.

Bounded in ``make test`` (the deterministic ``ci`` profile, a few short programs);
``SNAPLINE_STRESS=1`` (``make test-deep``) runs many longer ones. No timing: each step is
real processes against a real server and real inotify.

Hard links from outside the tree come both ways: made before the monitor starts, and
made *after* a check to a file that had one name then (an ignore file too), written
through and sometimes removed again, which the kernel reports nowhere in the tree: the
warm check's stat of every tracked file sees them.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, local, start_server, wait_gone
from tests.cli.warm.monitoring import git, stopped, wait_stopped
from tests.reliability.helpers import STRESS

FILES = ["a.txt", "b.txt", "d/c.txt", "d/e.txt", "n.txt", "x.log"]
COMMITTED = ["a.txt", "b.txt", "d/c.txt"]
# Names a write may go through that no check ever looks at: an ignored folder, outside.
LINKS = ["ign/b-link", "ign/new-link", "@a-link"]
IGNORES = ["ign/\n", "ign/\n*.log\n", "ign/\nd/\n", "ign/\n!x.log\n*.log\n"]
_ids = itertools.count()


def _is_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


class WarmMachine(RuleBasedStateMachine):
    """One workspace (a git work tree), one server, changes made every way."""

    runtime: Path
    base: Path

    def __init__(self) -> None:
        super().__init__()
        number = next(_ids)
        self.root = self.base / f"ws{number}"
        self.outside = self.base / f"out{number}"
        self.outside.mkdir(parents=True)
        self.root.mkdir()
        for rel in COMMITTED:
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(f"{rel}\n")
        (self.root / ".gitignore").write_text(IGNORES[0])
        (self.root / "ign").mkdir()
        # Links that exist before the monitor starts: one from the ignored folder, one
        # from outside the tree.
        os.link(self.root / "b.txt", self.root / "ign" / "b-link")
        os.link(self.root / "a.txt", self.outside / "a-link")
        git(self.root, "init", "-q")
        git(self.root, "add", ".")
        git(self.root, "commit", "-q", "-m", "first")
        assert run_script("init", cwd=self.root).returncode == 0
        self.server: Warm | None = _running(self.runtime)

    def _path(self, name: str) -> Path:
        return self.outside / name[1:] if name.startswith("@") else self.root / name

    # -- edits ---------------------------------------------------------------------

    @rule(rel=st.sampled_from(FILES), version=st.integers(0, 2))
    def write(self, rel: str, version: int) -> None:
        path = self.root / rel
        if path.parent.exists() and not path.parent.is_dir():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            return
        path.write_text(f"{rel} version {version}\n" * (version + 1))

    @rule(rel=st.sampled_from(FILES), version=st.integers(0, 2))
    def same_path_twice(self, rel: str, version: int) -> None:
        # Written, recorded, checked clean, written again: the journal's last entry.
        self.write(rel, version)
        self.record()
        self.warm_is_cold()
        self.write(rel, version + 1)

    @rule(rel=st.sampled_from(FILES))
    def append(self, rel: str) -> None:
        if _is_file(self.root / rel):
            with (self.root / rel).open("a") as handle:
                handle.write("appended\n")

    @rule(rel=st.sampled_from(FILES))
    def truncate(self, rel: str) -> None:
        if _is_file(self.root / rel):
            os.truncate(self.root / rel, 0)

    @rule(rel=st.sampled_from(FILES))
    def chmod(self, rel: str) -> None:
        path = self.root / rel
        if _is_file(path):
            path.chmod(path.stat().st_mode ^ 0o100)

    @rule(rel=st.sampled_from(FILES))
    def delete(self, rel: str) -> None:
        if _is_file(self.root / rel):
            (self.root / rel).unlink()

    @rule(source=st.sampled_from(FILES), onto=st.sampled_from(FILES))
    def rename_over(self, source: str, onto: str) -> None:
        target = self.root / onto
        free = target.parent.is_dir() and not target.is_dir()
        if source != onto and _is_file(self.root / source) and free:
            os.replace(self.root / source, target)

    @rule(source=st.sampled_from(FILES), name=st.sampled_from([*FILES, "ign/new-link"]))
    def hard_link(self, source: str, name: str) -> None:
        target = self.root / name
        if source == name or not _is_file(self.root / source) or not target.parent.is_dir():
            return
        if target.exists() or target.is_symlink():
            target.unlink()
        os.link(self.root / source, target)

    @rule(source=st.sampled_from(FILES), name=st.sampled_from([*FILES, "ign/new-link"]))
    def link_and_write_through(self, source: str, name: str) -> None:
        # Linked, the new name recorded where it counts, checked, then written through.
        self.hard_link(source, name)
        self.record()
        self.warm_is_cold()
        self.write_through_link(name)

    @rule(name=st.sampled_from([*LINKS, *FILES]))
    def write_through_link(self, name: str) -> None:
        path = self._path(name)
        if _is_file(path):
            with path.open("a") as handle:
                handle.write(f"through {name}\n")

    @rule(source=st.sampled_from([*FILES, ".gitignore"]), keep=st.booleans())
    def link_from_outside_later(self, source: str, keep: bool) -> None:
        # After checks: no watch in the tree hears of the link, or of the write.
        if not _is_file(self.root / source):
            return
        link = self.outside / "later-link"
        if link.exists():
            link.unlink()
        os.link(self.root / source, link)
        with link.open("a") as handle:
            handle.write("d/\n" if source == ".gitignore" else "through a later link\n")
        if not keep:
            link.unlink()

    @rule(rel=st.sampled_from(COMMITTED))
    def git_checkout(self, rel: str) -> None:
        git(self.root, "checkout", "--", rel, check=False)  # fails for a path not there: no matter

    @rule(number=st.integers(0, len(IGNORES) - 1))
    def edit_ignore_file(self, number: int) -> None:
        (self.root / ".gitignore").write_text(IGNORES[number])

    @rule()
    def record(self) -> None:
        assert run_script("resync", "-m", "outside", cwd=self.root).returncode in (0, 1)

    # -- the server ------------------------------------------------------------------

    @rule()
    def stop_server(self) -> None:
        if self.server is not None:
            assert run_script("server", "stop", cwd=self.runtime).returncode == 0
            wait_gone(self.server.pid)
            self.server = None

    @rule()
    def start_again(self) -> None:
        if self.server is None:
            self.server = start_server(self.runtime)

    @rule()
    def restart_server(self) -> None:
        self.stop_server()
        self.start_again()

    @rule(rel=st.sampled_from(FILES))
    def edit_while_stopped(self, rel: str) -> None:
        if self.server is None:
            return
        with stopped(self.server.pid):
            wait_stopped(self.server.pid)
            self.write(rel, 1)
            self.append(rel)

    # -- the oracle ------------------------------------------------------------------

    @invariant()
    def warm_is_cold(self) -> None:
        served = self._served()
        warm = run_script("status", "--json", cwd=self.root)
        cold = local("status", "--json", cwd=self.root)
        assert (warm.returncode, _status(warm.stdout)) == (cold.returncode, _status(cold.stdout))
        # Verify's history checkpoint first, so that both runs below start from it.
        local("verify", cwd=self.root)
        warm = run_script("verify", cwd=self.root)
        cold = local("verify", cwd=self.root)
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            cold.returncode,
            cold.stdout,
            cold.stderr,
        )
        if self.server is not None:
            # Both warm checks were served warm.
            assert self._served() == served + 2

    def _served(self) -> int:
        return -1 if self.server is None else self.server.served()


def _status(out: str) -> Any:
    data = json.loads(out)
    return data["in_sync"], data["drift"]


def _running(runtime: Path) -> Warm:
    done = run_script("server", "status", "--json", cwd=runtime)
    data = json.loads(done.stdout)
    if data.get("running"):
        return Warm(int(data["pid"]), runtime)
    return start_server(runtime)


def test_warm_answers_are_cold_answers(runtime: Path, tmp_path: Path) -> None:
    WarmMachine.runtime = runtime
    WarmMachine.base = tmp_path
    try:
        run_state_machine_as_test(
            WarmMachine,
            settings=settings(
                max_examples=40 if STRESS else 3,
                stateful_step_count=30 if STRESS else 10,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            ),
        )
    finally:
        run_script("server", "stop", cwd=runtime)
        shutil.rmtree(tmp_path, ignore_errors=True)
