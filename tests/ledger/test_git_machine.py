"""Real git workflows on a snapline repository, against a twin repository without snapline.

The oracle is git itself. Two repositories take the same operations on the user's files:
one has ``snapline init`` done, records every edit (``snapline record``, as an agent's
shell hook does) and commits its ledger with the files, as a user does; its twin is
plain git. Rules write, edit (one line, so two branches merge cleanly or conflict on a
line), delete (a file still at its baseline version too), move files and create nested
directories; commit; create, switch and merge branches. A merge runs the same
``git merge`` in both, and a conflict is aborted or resolved the same way in both.

What must hold (docs/guarantees.md, docs/ci.md "Branches, pulls and merges"):

- the ledger never changes what git does with the user's files: a merge succeeds in
  both or conflicts in both, on the same work files, and ``.snapline/`` never
  conflicts; after every step the work files of the two repositories are byte for
  byte the same;
- a merge never modifies, deletes or renames a ledger file (nor pairs one with a work
  file): against each parent, git only adds files under ``.snapline/``;
- ``snapline verify`` never exits 3 and never raises. After a switch there is nothing
  to do; after a merge, ``verify`` names the two lines (exit 1, ``lines``) when both
  sides recorded, ``snapline merge`` joins them (and records a resolved conflict), and
  then ``verify`` exits 0. Between steps every edit is recorded, so it exits 0.

The ``ci`` profile of tests/conftest.py (deterministic) runs a few short programs by
default; ``SNAPLINE_STRESS=1`` (the ``deep`` profile) runs many longer ones.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from snapline.cli.app import app
from tests.cli_runner import CliRunner
from tests.conftest import tree
from tests.ledger.conftest import Repo, new_repo
from tests.reliability.helpers import STRESS

# A handful of paths in two directories, one nested in the other; no path is a parent
# of another, so every rule applies to any of them.
PATHS = ["a.txt", "b.txt", "d/a.txt", "d/e/f.txt"]
EMPTY_DIRECTORIES = ["d/e", "n/m"]
BRANCHES = ["main", "b1", "b2"]
WORDS = ["red", "blue", "green"]
LINES = 6
# The kinds of step, weighted towards what makes two branches meet on one file.
STEPS = ["edit"] * 4 + ["delete"] * 2 + ["write", "move", "mkdir", "commit"]
STEPS += ["branch"] * 2 + ["switch"] * 2 + ["merge"] * 3


def _baseline(path: str) -> bytes:
    """The first version of ``path``: lines of its own, so no two files are alike."""
    return "".join(f"{path} line {i}\n" for i in range(LINES)).encode()


def _edited(data: bytes, line: int, word: str) -> bytes:
    """``data`` with line ``line`` (wrapped) replaced by ``word``."""
    lines = data.split(b"\n")[:-1] or [b""]
    lines[line % len(lines)] = word.encode()
    return b"\n".join(lines) + b"\n"


def _status_letters(repo: Repo, parent: str, path: str) -> list[str]:
    """``git diff --name-status`` from ``parent`` to HEAD under ``path``, no renames."""
    text = repo.git("diff", "--name-status", "--no-renames", parent, "HEAD", "--", path).stdout
    return text.splitlines()


def _crossing_renames(repo: Repo, parent: str) -> list[str]:
    """Renames git finds between a ledger file and a work file, from ``parent`` to HEAD."""
    text = repo.git("diff", "--name-status", "-M", parent, "HEAD").stdout
    crossing = []
    for line in text.splitlines():
        if not line.startswith(("R", "C")):
            continue
        _, old, new = line.split("\t")
        if old.startswith(".snapline/") != new.startswith(".snapline/"):
            crossing.append(line)
    return crossing


class GitMachine(RuleBasedStateMachine):
    """A snapline repository and its plain-git twin, driven by the same git workflow."""

    def __init__(self) -> None:
        super().__init__()
        self.top = Path(tempfile.mkdtemp(prefix="sl-git-machine-"))
        self.runner = CliRunner()
        self.current = "main"
        self.made = {"main"}
        self.steps: list[str] = []
        self.commits = 0

    # -- the two repositories ----------------------------------------------------------

    @initialize()
    def start(self) -> None:
        self.snap = new_repo(self.top / "snap")
        self.twin = new_repo(self.top / "twin")
        for repo in self.both:
            for path in PATHS[:3]:
                target = repo.path / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(_baseline(path))
        self._ok("init", "--in-tree")
        self._commit_both("baseline")

    @property
    def both(self) -> tuple[Repo, Repo]:
        return self.snap, self.twin

    def _cli(self, *args: str) -> tuple[int, str]:
        """The real command line in-process; an exception (a traceback) fails the test."""
        done = self.runner.invoke(
            app, ["--root", str(self.snap.path), *args], catch_exceptions=False
        )
        assert "Traceback" not in done.output, done.output
        assert done.exit_code != 3, f"snapline {' '.join(args)} exit 3: {done.output}"
        return done.exit_code, done.output

    def _ok(self, *args: str) -> str:
        code, output = self._cli(*args)
        assert code == 0, f"snapline {' '.join(args)} exit {code}: {output}"
        return output

    def _verify(self) -> tuple[int, set[str], str]:
        """``snapline verify --json``: exit code, the problems' kinds, what it printed."""
        code, output = self._cli("verify", "--json")
        kinds = {problem["kind"] for problem in json.loads(output)["problems"]}
        return code, kinds, output

    def _commit_both(self, message: str) -> None:
        # A number in every message: two commits of one tree on one parent within a
        # second are otherwise one commit in the twin (same hash), which turns a merge
        # into a fast-forward there and not beside the ledger's unique files.
        self.commits += 1
        for repo in self.both:
            if repo.status():
                repo.commit(f"{message} {self.commits}")
                if repo is self.snap and self.commits > 1:
                    # Ledger files are written once: a commit only adds them.
                    changed = _status_letters(repo, "HEAD~1", ".snapline/")
                    assert all(line.startswith("A\t") for line in changed), changed
        assert self.snap.status() == [], self.snap.status()

    def _files(self, repo: Repo) -> dict[str, bytes]:
        return tree(repo.path)

    def _existing(self) -> list[str]:
        return sorted(path for path in self._files(self.twin) if path in PATHS)

    def _record(self, what: str) -> None:
        self.steps.append(what)
        self._ok("record", "-m", what)

    # -- the user's files ---------------------------------------------------------------

    # One rule for every step, its kind drawn with weights: hypothesis's swarm testing
    # turns whole rules off for a program, and a program without edits, or without
    # merges, finds nothing here.
    @rule(data=st.data(), what=st.sampled_from(STEPS))
    def step(self, data: st.DataObject, what: str) -> None:
        if what in ("commit", "branch", "switch", "merge"):
            getattr(self, "_" + what)(data)
        else:
            self._change(data, what)

    def _change(self, data: st.DataObject, what: str) -> None:
        existing = self._existing()
        free = [path for path in PATHS if path not in existing]
        if what == "edit" and existing:
            path = data.draw(st.sampled_from(existing))
            line = data.draw(st.integers(0, LINES - 1))
            word = data.draw(st.sampled_from(WORDS))
            self._edit(path, line, word)
        elif what == "delete" and existing:
            self._delete(data.draw(st.sampled_from(existing)))
        elif what == "move" and existing and free:
            self._move(data.draw(st.sampled_from(existing)), data.draw(st.sampled_from(free)))
        elif what == "mkdir":
            self._make_directory(data.draw(st.sampled_from(EMPTY_DIRECTORIES)))
        else:
            path = data.draw(st.sampled_from(PATHS))
            texts = [_baseline(path), _baseline(path)[:-1], b"", _edited(_baseline(path), 1, "x")]
            self._write(path, data.draw(st.sampled_from(texts)))

    def _write(self, path: str, text: bytes) -> None:
        for repo in self.both:
            target = repo.path / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text)
        self._record(f"write {path} {text[:12]!r}")

    def _edit(self, path: str, line: int, word: str) -> None:
        for repo in self.both:
            target = repo.path / path
            target.write_bytes(_edited(target.read_bytes(), line, word))
        self._record(f"edit {path}:{line}={word}")

    def _delete(self, path: str) -> None:
        for repo in self.both:
            (repo.path / path).unlink()
        self._record(f"delete {path}")

    def _move(self, source: str, target: str) -> None:
        for repo in self.both:
            (repo.path / target).parent.mkdir(parents=True, exist_ok=True)
            (repo.path / source).rename(repo.path / target)
        self._record(f"move {source} {target}")

    def _make_directory(self, directory: str) -> None:
        # Empty: git does not track it, and snapline has nothing to record.
        for repo in self.both:
            (repo.path / directory).mkdir(parents=True, exist_ok=True)
        self.steps.append(f"mkdir {directory}")
        self._ok("record", "-m", f"mkdir {directory}")

    # -- git ----------------------------------------------------------------------------

    def _commit(self, data: st.DataObject) -> None:
        self.steps.append("commit")
        self._commit_both("work")

    def _branch(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(BRANCHES[1:]))
        if name in self.made:
            return
        switch = data.draw(st.booleans())
        # A user commits before starting a branch; the work goes on either branch.
        self._commit_both("work")
        self.steps.append(f"branch {name}" + (" and switch" if switch else ""))
        for repo in self.both:
            repo.git(*(["switch", "-q", "-c"] if switch else ["branch"]), name)
        self.made.add(name)
        if switch:
            self.current = name

    def _other(self, data: st.DataObject) -> str | None:
        others = sorted(self.made - {self.current})
        return data.draw(st.sampled_from(others)) if others else None

    def _switch(self, data: st.DataObject) -> None:
        name = self._other(data)
        if name is None:
            return
        self._commit_both("work")
        self.steps.append(f"switch {name}")
        for repo in self.both:
            repo.git("switch", "-q", name)
        self.current = name

    def _merge(self, data: st.DataObject) -> None:
        name = self._other(data)
        if name is None:
            return
        resolve = data.draw(st.booleans())
        self._commit_both("work")
        self.steps.append(f"merge {name} ({'resolve' if resolve else 'abort'} a conflict)")
        self.commits += 1
        ours = self.snap.git("rev-parse", "HEAD").stdout.strip()
        theirs = self.snap.git("rev-parse", name).stdout.strip()
        merged = [
            repo.git("merge", "--no-edit", "-m", f"merge {name} {self.commits}", name, check=False)
            for repo in self.both
        ]
        codes = [result.returncode for result in merged]
        conflicted = [
            set(repo.git("diff", "--name-only", "--diff-filter=U").stdout.splitlines())
            for repo in self.both
        ]
        detail = "\n".join(result.stdout + result.stderr for result in merged)
        assert not [path for path in conflicted[0] if path.startswith(".snapline/")], detail
        assert (codes[0] == 0) == (codes[1] == 0), detail
        assert conflicted[0] == conflicted[1], detail
        if codes[0] != 0:
            assert conflicted[1], detail  # a failure other than a conflict: not a merge
            if not resolve:
                self.steps.append("abort")
                for repo in self.both:
                    repo.git("merge", "--abort")
                assert self._files(self.snap) == self._files(self.twin)
                return
            self.steps.append(f"resolve {sorted(conflicted[1])}")
            for repo in self.both:
                for path in conflicted[1]:
                    (repo.path / path).write_bytes(b"resolved\n")
                repo.git("add", "-A")
                repo.git("commit", "-q", "--no-edit")
        self._check_ledger_only_added(ours, theirs, detail)
        self._settle(resolved=codes[0] != 0)

    def _check_ledger_only_added(self, ours: str, theirs: str, detail: str) -> None:
        for parent in (ours, theirs):
            changed = _status_letters(self.snap, parent, ".snapline/")
            assert all(line.startswith("A\t") for line in changed), (changed, detail)
            crossing = _crossing_renames(self.snap, parent)
            assert crossing == [], (crossing, detail)

    def _settle(self, *, resolved: bool) -> None:
        """Do what docs/ci.md says after a merge; then verify passes and all is committed."""
        code, kinds, output = self._verify()
        if resolved:
            self._ok("merge")
        elif code != 0:
            assert code == 1 and "lines" in kinds, output
            self._ok("merge")
        code, kinds, output = self._verify()
        assert code == 0, output
        self._commit_both("snapline merge")

    # -- after every step ---------------------------------------------------------------

    @invariant()
    def the_work_files_are_the_twin_s_and_verify_passes(self) -> None:
        if not hasattr(self, "snap"):
            return
        assert self._files(self.snap) == self._files(self.twin), self.steps
        code, _, output = self._verify()
        assert code == 0, (output, self.steps)

    def teardown(self) -> None:
        shutil.rmtree(self.top, ignore_errors=True)


def test_git_workflows_do_what_plain_git_does() -> None:
    run_state_machine_as_test(
        GitMachine,
        settings=settings(
            max_examples=200 if STRESS else 25,
            stateful_step_count=50 if STRESS else 30,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
