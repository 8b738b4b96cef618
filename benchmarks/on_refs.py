"""Rows R4-R10: the history on git's refs, as a team uses it (issue 37 point 9, issue 39).

``snapline init`` at the top of a git work tree keeps the history on
``refs/snapline/…`` in the repository and its local state under ``.git/snapline/``
(docs/ci.md). These rows measure that layout, each side by side with git in the same
run:

- R4: a fresh CI clone's first ``snapline verify`` (after ``git clone`` and
  ``snapline fetch``, neither timed) against ``git status`` of a fresh clone; at 10k
  files the goal is ``git status`` plus a cold ``snapline --version`` (timed in the same
  rounds), at 100k files (``--full``) 1.5x ``git status``;
- R5: a warm ``snapline rollback --to N`` of 100 files across the history (the server
  running) against ``git checkout REV -- .`` in a twin repository of the same history;
- R6: the bytes a 500-edit session pushes (records on refs, a commit of the code, then
  ``git push`` with the pre-push hook) against the same code work pushed without snapline;
- R7: 20 versions of a 2 MiB binary, the repository packed by ``git gc``, against the
  same 20 versions as plain git commits;
- R8: the library record of a one-line edit against ``git add F && git commit``;
- R9, R10: a cold ``snapline record F`` and a cold Claude Code ``PostToolUse`` hook
  against ``python -c "import sqlite3"`` (issue 39's floor), in the refs layout.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.hooks import hook_event
from benchmarks.report import Evidence, Figure, RowResult, format_bytes
from benchmarks.timing import Sample, Series, Stats, alternate, ratio, run_process
from benchmarks.workspace_gen import BIG_FILE, history_versions

if TYPE_CHECKING:
    from benchmarks.cases import Bench
    from benchmarks.worker import WorkerClient

__all__ = ["REFS_ROWS", "row_on_refs"]

REFS_ROWS = ("R4", "R5", "R6", "R7", "R8", "R9", "R10")
"""R4 CI clone's verify; R5 warm rollback; R6 push bytes; R7 binary pack; R8 library
record; R9, R10 cold record and hook against ``import sqlite3``."""

CLONE_GOAL_FULL = 1.5
"""R4 at 100k files: at most 1.5x ``git status`` of the clone."""
GOALS = {"R5": 1.0, "R6": 1.2, "R7": 1.5, "R8": 0.3, "R9": 3.0, "R10": 3.0}
SESSION = 500
"""Edits in R6's session."""
ROLLBACK_SPAN = 1_000
BINARY_SIZE = 2 * 1024 * 1024
BINARY_VERSIONS = 20


class _Refs:
    """The shared state: the refs work tree, its twin git repository, the history's tip."""

    def __init__(self, bench: Bench) -> None:
        self.bench = bench
        self.workdir = bench.config.workdir
        self.cold = {**bench.cli_env, "SNAPLINE_SERVER": "0"}
        self.ci = {**self.cold, "CI": "true"}
        self.layout = bench.settled("refs")
        self.root = self.layout.root
        self.paths = list(self.layout.history_files)
        self.span = min(ROLLBACK_SPAN, bench.config.history)
        self.tip = 0
        self._twin: Path | None = None

    def snapline(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
        """Run the console script in ``cwd`` (checked); its standard output."""
        argv = [str(self.bench.snapline_bin), *args]
        run = run_process(argv, cwd=cwd, env=env or self.cold)
        return run.check(f"snapline {args[0]}").stdout

    def commit_all(self, repo: Path, message: str) -> None:
        self.bench.git(repo, "add", "-A")
        self.bench.git(repo, "commit", "-q", "-m", message)

    def prepare(self, worker: WorkerClient) -> None:
        """Commit the tree and record its history on refs (``span`` one-line edits)."""
        bench = self.bench
        bench.git(self.root, "init", "-q")
        self.commit_all(self.root, "baseline")
        # R6's remote holds the user's commit only, made before any snapline ref exists.
        session = self.workdir / "session-remote.git"
        bench.git(self.workdir, "clone", "-q", "--bare", str(self.root), str(session))
        started = time.perf_counter()
        worker.call("init", root=str(self.root))
        self.snapline(self.root, "push", "--install-hook")
        if (self.root / ".snapline").exists() or not (self.root / ".git" / "snapline").is_dir():
            raise RuntimeError(f"{self.root}: init did not choose the refs layout")
        reply = worker.call("history", paths=self.paths, count=self.span)
        self.tip = int(reply["latest"])
        bench.log(
            f"rows R4-R10: init and {self.span:,} snapshots on refs in "
            f"{time.perf_counter() - started:.1f}s"
        )

    @property
    def twin(self) -> Path:
        """git's repository of the same tree with the same edits as commits (made once)."""
        if self._twin is None:
            from benchmarks.cases import _git_history

            twin = self.bench.settled("refs-git").root
            self.bench.git(twin, "init", "-q")
            self.commit_all(twin, "baseline")
            _git_history(self.bench, twin, history_versions(twin, self.paths, self.span))
            self._twin = twin
        return self._twin


def _series_figure(label: str, series: Series) -> Figure:
    return Figure(label, stats=series.stats)


def _row(
    number: str,
    title: str,
    snap: Figure,
    ref: Figure,
    value: float,
    goal: float,
    *,
    reference: str = "git",
    label: str | None = None,
    notes: list[str] | None = None,
    extra: list[Figure] | None = None,
) -> RowResult:
    return RowResult(
        number=number,
        title=title,
        goal=f"≤ {goal:g}",
        snapline=snap,
        git=ref,
        ratio=value,
        ratio_label=label or f"snapline ÷ {reference} (medians)",
        reference_name=reference,
        met=value <= goal,
        notes=notes or [],
        extra=extra or [],
    )


def _timed(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None) -> Sample:
    return Sample(run_process(argv, cwd=cwd, env=env, stdin=stdin).check(argv[1]).seconds)


# -- R5, R9, R10, R8: on the refs work tree --------------------------------------------------


def _rollback(refs: _Refs) -> RowResult:
    """R5: warm ``snapline rollback --to N`` and back vs ``git checkout REV -- .`` and back."""
    from benchmarks.warm import WarmServer

    bench, root = refs.bench, refs.root
    back = refs.tip - refs.span
    rev = bench.git(refs.twin, "rev-parse", f"HEAD~{refs.span}").stdout.strip()
    snapline = str(bench.snapline_bin)
    rounds = bench.rounds(bench.config.repeats)
    with WarmServer(bench) as server:

        def rollback(index: int) -> Sample:
            to = str(back if index % 2 == 0 else refs.tip)
            return _timed([snapline, "rollback", "--to", to], root, server.env)

        def checkout(index: int) -> Sample:
            target = rev if index % 2 == 0 else "HEAD"
            return bench.git_sample(refs.twin, [["checkout", target, "--", "."]], False)

        bench.log("row R5: warm rollback on refs vs git checkout")
        series = alternate([("warm", rollback), ("git", checkout)], **rounds)
        served = server.served()
    total = rounds["warmup"] + rounds["repeats"]
    if total % 2 == 1:
        _timed([snapline, "rollback", "--to", str(refs.tip)], root, refs.cold)
        bench.git(refs.twin, "checkout", "HEAD", "--", ".")
    row = _row(
        "R5",
        f"warm `snapline rollback --to N` across {refs.span:,} snapshots touching 100 files, "
        "history on refs",
        _series_figure(
            f"`snapline rollback --to {back}` and back, served by the warm server", series["warm"]
        ),
        _series_figure("`git checkout REV -- .` and back (`HEAD`)", series["git"]),
        ratio(series["warm"].stats, series["git"].stats),
        GOALS["R5"],
        notes=[
            f"The server forked {served} workers for the {total} rollbacks (warm-up included). "
            "The work tree's history is on `refs/snapline/`; git's twin repository "
            "holds the same edits as commits.",
            "snapline checks the work tree for outside changes first (served warm: the paths "
            "the server's monitor saw change, and an lstat of every tracked file), journals "
            "the rollback, records it as a snapshot on the line and fsyncs what it writes; "
            "git checkout writes the files without fsync and checks nothing.",
        ],
    )
    if not row.met:
        from benchmarks.cases import cli_profile

        title = f"cProfile of `snapline rollback --to {back}` without the server (whole process)"
        argv = [snapline, "rollback", "--to", str(back)]
        row.evidence.append(cli_profile(bench, root, argv, edit=False, title=title))
        _timed([snapline, "rollback", "--to", str(refs.tip)], root, refs.cold)
    return row


def _cold(refs: _Refs) -> list[RowResult]:
    """R9, R10: cold ``snapline record F`` and PostToolUse hook vs ``import sqlite3``."""
    bench, root = refs.bench, refs.root
    snapline = str(bench.snapline_bin)
    post = hook_event(root, "PostToolUse", BIG_FILE)

    def record(_: int) -> Sample:
        bench.edit_on_disk(root, BIG_FILE, bench.next_index("refs"))
        return _timed([snapline, "record", BIG_FILE], root, refs.cold)

    def hook(_: int) -> Sample:
        bench.edit_on_disk(root, BIG_FILE, bench.next_index("refs"))
        return _timed([snapline, "hook", "claude-code"], root, refs.cold, post)

    def python(_: int) -> Sample:
        return _timed([bench.cli_python, "-c", "import sqlite3"], root, bench.cli_env)

    bench.log("rows R9, R10: cold record and hook on refs vs python -c 'import sqlite3'")
    series = alternate(
        [("record", record), ("python", python), ("hook", hook)],
        **bench.rounds(bench.config.repeats),
    )
    floor = _series_figure('`python -c "import sqlite3"`', series["python"])
    note = (
        "No server (`SNAPLINE_SERVER=0`): a whole process, in a git work tree whose history "
        'is on refs. `python -c "import sqlite3"` is the floor of any Python process that '
        "opens the store; the three commands alternate in each round."
    )
    rows: list[RowResult] = []
    for number, key, title, label in (
        ("R9", "record", "cold `snapline record F`", "`snapline record F`, no server"),
        (
            "R10",
            "hook",
            "cold Claude Code PostToolUse hook",
            "`snapline hook claude-code` (PostToolUse: record F), no server",
        ),
    ):
        rows.append(
            _row(
                number,
                f'{title} on refs vs `python -c "import sqlite3"`',
                _series_figure(label, series[key]),
                floor,
                ratio(series[key].stats, series["python"].stats),
                GOALS[number],
                reference="python",
                notes=[note],
            )
        )
    if not rows[0].met:
        from benchmarks.budget import import_budget
        from benchmarks.cases import cli_profile, import_evidence

        bench.edit_on_disk(root, BIG_FILE, bench.next_index("refs"))
        rows[0].evidence.append(import_evidence(bench, ["record", BIG_FILE], root))
        bench.edit_on_disk(root, BIG_FILE, bench.next_index("refs"))
        budget = import_budget(bench, ["record", BIG_FILE], root, refs.cold, GOALS["R9"])
        rows[0].evidence.append(budget)
        argv = [snapline, "record", BIG_FILE]
        rows[0].evidence.append(cli_profile(bench, root, argv, tree="refs"))
    return rows


def _library(refs: _Refs, worker: WorkerClient) -> RowResult:
    """R8: ``ws.record([F])`` of a one-line edit vs ``git add F && git commit``."""
    from benchmarks.cases import _git_edit

    bench = refs.bench

    def record(_: int) -> Sample:
        reply = worker.call("disk_edit_record", path=BIG_FILE, index=bench.next_index("refs"))
        return Sample(reply["seconds"])

    bench.log("row R8: library record on refs vs git add + commit")
    series = alternate(
        [("record", record), ("git", _git_edit(bench, refs.twin, False))],
        **bench.rounds(bench.config.quick_repeats),
    )
    row = _row(
        "R8",
        f"library record of a one-line edit (`ws.record([F])`), history on refs, "
        f"{bench.config.files:,} files",
        _series_figure("`ws.record([F])` after editing F, long-lived Workspace", series["record"]),
        _series_figure("`git add F && git commit -q`", series["git"]),
        ratio(series["record"].stats, series["git"].stats),
        GOALS["R8"],
        notes=[
            f"F is the 10,000-line text file of the {bench.config.files:,}-file tree; "
            f"{refs.span:,} snapshots are on the line before the first. Each record writes "
            "F's blob, its record, the trees on F's path and a commit, and moves the line's "
            "ref with compare-and-swap (pygit2), besides the local index (SQLite, fsynced)."
        ],
    )
    if not row.met:
        index = bench.next_index("refs")
        reply = worker.call("disk_edit_record", path=BIG_FILE, index=index, profile=True)
        title = "cProfile of one `ws.record([F])` on refs"
        row.evidence.append(Evidence(title, profile=reply.get("profile")))
    return row


# -- R4: a fresh CI clone -------------------------------------------------------------------


def _ci_clone(refs: _Refs) -> RowResult:
    """R4: the first ``snapline verify`` of a fresh clone vs ``git status`` of one."""
    bench, workdir = refs.bench, refs.workdir
    remote = workdir / "refs-remote.git"
    bench.git(workdir, "init", "-q", "--bare", str(remote))
    refs.commit_all(refs.root, "the agent's work")
    bench.git(refs.root, "remote", "add", "origin", str(remote))
    # The pre-push hook `init` installed carries the history with the branch.
    _push_with_hook(bench, refs.root)
    pushed = bench.git(workdir, "--git-dir", str(remote), "for-each-ref", "refs/snapline/")
    hooked = bool(pushed.stdout.strip())
    if not hooked:
        # The hook gives its `git push` 120 s, then lets the user's push go on alone: at
        # 100k files on a loaded machine it ran past that (R4 measures verify, not this).
        bench.log("row R4: the pre-push hook did not push refs/snapline/*; `snapline push`")
        refs.snapline(refs.root, "push", "origin")
    snapline = str(bench.snapline_bin)
    clones: list[Path] = []

    def fresh(name: str, fetch: bool) -> Path:
        for old in clones:
            shutil.rmtree(old, ignore_errors=True)
        clones.clear()
        clone = workdir / name
        clones.append(clone)
        bench.git(workdir, "clone", "-q", str(remote), str(clone))
        if fetch:
            refs.snapline(clone, "fetch", env=refs.ci)
        # The checkout's writes reach the disk now, not during a timed command.
        os.sync()
        return clone

    def verify(index: int) -> Sample:
        clone = fresh(f"ci-snapline-{index}", True)
        run = run_process([snapline, "verify"], cwd=clone, env=refs.ci)
        run.check("snapline verify in a fresh clone")
        # The same job's next verify starts from the checkpoint the first one kept.
        again = run_process([snapline, "verify"], cwd=clone, env=refs.ci)
        again.check("a second snapline verify in the clone")
        return Sample(run.seconds, info={"again": again.seconds})

    def status(index: int) -> Sample:
        return bench.git_sample(fresh(f"ci-git-{index}", False), [["status"]], False)

    def version(_: int) -> Sample:
        return _timed([snapline, "--version"], workdir, refs.ci)

    files = bench.config.files
    bench.log(f"row R4: verify in a fresh CI clone of {files:,} files vs git status")
    series = alternate(
        [("verify", verify), ("git", status), ("version", version)],
        **bench.rounds(bench.config.slow_repeats),
    )
    profile = None
    if series["verify"].stats.median > series["git"].stats.median:
        from benchmarks.cases import cli_profile

        title = "cProfile of `snapline verify` in a fresh clone (whole process)"
        clone = fresh("ci-profile", True)
        profile = cli_profile(bench, clone, [snapline, "verify"], edit=False, title=title)
    for old in clones:
        shutil.rmtree(old, ignore_errors=True)
    floor = series["version"].stats
    git = series["git"].stats
    snap = _series_figure(
        "`snapline verify`, fresh clone, after `snapline fetch`", series["verify"]
    )
    status_figure = _series_figure("`git status` in a fresh `git clone`", series["git"])
    version_figure = _series_figure("cold `snapline --version`, same run", series["version"])
    again = Stats(tuple(float(sample.info["again"]) for sample in series["verify"].samples))
    again_figure = Figure("the next `snapline verify` in the same clone (not alternated)", again)
    notes = [
        f"The remote holds the tree ({files:,} files) committed, and its history pushed "
        f"by the pre-push hook: {refs.tip:,} snapshots and more on one line. Each run of "
        "either side gets its own new `git clone` (and, for snapline, `snapline fetch`), "
        "neither timed; then the command is timed as CI runs it (`CI=true`, no server).",
        "snapline has no local index in a fresh clone: its first verify reads and checks "
        "the line's snapshots from the refs into a new index, then checks the whole "
        "history (chain hashes); the work tree's files are compared by `lstat` with what "
        "git's index recorded at checkout (files whose blob is the state's), reading only "
        "those git cannot vouch for, as git's `status` after a clone trusts the index its "
        "checkout just wrote, except racily clean entries.",
        "Each clone's next `verify` is timed too, right after its first (not a "
        "ratio): it checks only the snapshots after the checkpoint the first one "
        "kept in the index (none here), then the work tree.",
    ]
    if not hooked:
        notes.append(
            "The pre-push hook did not carry the history within its 120 s limit for its "
            "`git push`; it was pushed with `snapline push origin` (not timed)."
        )
    title = f"first `snapline verify` of a fresh CI clone, {files:,} files"
    if files >= 100_000:
        value = ratio(series["verify"].stats, git)
        row = _row(
            "R4",
            title,
            snap,
            status_figure,
            value,
            CLONE_GOAL_FULL,
            notes=notes,
            extra=[version_figure, again_figure],
        )
        row.evidence += [profile] if profile and not row.met else []
        return row
    both = Stats((git.median + floor.median,))
    value = ratio(series["verify"].stats, both)
    notes.append(
        f"Goal at {files:,} files: `git status` plus a cold `snapline --version`, "
        f"{format_seconds_pair(git.median, floor.median)}; ratio to `git status` alone "
        f"{ratio(series['verify'].stats, git):.2f}."
    )
    row = _row(
        "R4",
        title,
        snap,
        status_figure,
        value,
        1.0,
        label="verify ÷ (git status + snapline --version) (medians)",
        notes=notes,
        extra=[version_figure, again_figure],
    )
    row.evidence += [profile] if profile and not row.met else []
    return row


def format_seconds_pair(first: float, second: float) -> str:
    """``a + b = c`` in milliseconds."""
    return f"{first * 1000:.1f} + {second * 1000:.1f} = {(first + second) * 1000:.1f} ms"


# -- R6: push bytes of a session ------------------------------------------------------------


def _counting_receive_pack(directory: Path) -> Path:
    """A receive-pack that keeps a copy of what each push sent, one file per push."""
    directory.mkdir()
    script = directory.with_suffix(".sh")
    script.write_text(
        "#!/bin/sh\n"
        f'out=$(mktemp "{directory}/push.XXXXXX") || exit 1\n'
        'tee "$out" | git receive-pack "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def _push_with_hook(bench: Bench, repo: Path) -> None:
    """``git push -q origin main`` with snapline's pre-push hook, read through a pipe.

    To an empty remote the hook pushes the history once git's push has ended, from a
    process that holds git's stderr: the pipe's end of file comes after that push too
    (the harness's ``run_process`` returns at git's exit, before it).
    """
    from benchmarks.cases import GIT_FIXED  # here: cases imports this module

    subprocess.run(
        ["git", *GIT_FIXED, "push", "-q", "origin", "main"],
        cwd=repo,
        env=bench.git_env,
        capture_output=True,
        check=True,
    )


def _pushed(directory: Path) -> list[int]:
    return sorted((p.stat().st_size for p in directory.iterdir()), reverse=True)


def _pack_bytes(bench: Bench, repo: Path, revisions: str) -> int:
    """Bytes of the pack ``git pack-objects --revs`` makes of ``revisions`` (one a line)."""
    done = subprocess.run(
        ["git", "pack-objects", "--revs", "--thin", "--stdout", "-q"],
        cwd=repo,
        env=bench.git_env,
        input=revisions.encode(),
        capture_output=True,
        check=True,
    )
    return len(done.stdout)


def _line_shares(bench: Bench, repo: Path) -> tuple[int, int, int]:
    """The line's snapshots, its baseline snapshot's pack bytes, and the rest's.

    Each as the history's push sends it to a remote holding the user's branch
    (``origin/main``): ``git pack-objects --revs`` of the commits, less what the
    branch reaches. The line's first commit is the last one ``origin/main`` does not
    reach along first parents (its parent, if any, is the user's commit).
    """
    line = bench.git(repo, "for-each-ref", "--format=%(refname)", "refs/snapline/lines/")
    ref = line.stdout.split()[0]
    own = bench.git(repo, "rev-list", "--first-parent", ref, "--not", "origin/main")
    commits = own.stdout.split()
    root = commits[-1]
    return (
        len(commits),
        _pack_bytes(bench, repo, f"{root}\n^origin/main\n"),
        _pack_bytes(bench, repo, f"{ref}\n^{root}\n"),
    )


def _session(refs: _Refs) -> RowResult:
    """R6: bytes pushed for a 500-edit session, with snapline's history and without."""
    bench, workdir = refs.bench, refs.workdir
    remote = workdir / "session-remote.git"
    results: dict[str, list[int]] = {}
    for name in ("hook", "after", "explicit", "plain"):
        # Each side pushes to a copy of the remote of its own, as it was before any push.
        own = workdir / f"session-{name}.git"
        bench.git(workdir, "clone", "-q", "--bare", str(remote), str(own))
        clone = workdir / f"session-{name}"
        bench.git(workdir, "clone", "-q", str(own), str(clone))
        counts = workdir / f"pushed-{name}"
        script = _counting_receive_pack(counts)
        bench.git(clone, "config", "remote.origin.receivepack", str(script))
        if name == "plain":
            for path, data in history_versions(clone, refs.paths, SESSION):
                (clone / path).write_bytes(data)
        else:
            with bench.worker() as worker:
                worker.call("init", root=str(clone))
                worker.call("history", paths=refs.paths, count=SESSION)
            if name in ("hook", "after"):
                # What `snapline init` does on the command line; the library leaves hooks alone.
                refs.snapline(clone, "push", "--install-hook")
            if name == "after":
                bench.git(clone, "config", "snapline.prePush", "after")
        refs.commit_all(clone, "the session's code")
        if name == "after":
            _push_with_hook(bench, clone)  # the history follows git's push: read to the end
        else:
            bench.git(clone, "push", "-q", "origin", "main")
        if name == "explicit":
            refs.snapline(clone, "push", "origin")
        results[name] = _pushed(counts)
        if name == "hook":
            snapshots, baseline, rest = _line_shares(bench, clone)
        if name != "plain" and len(results[name]) < 2:
            raise RuntimeError(f"session-{name}: the history was not pushed ({results[name]})")
    plain = sum(results["plain"])
    hook, explicit = sum(results["hook"]), sum(results["explicit"])
    after = sum(results["after"])
    return _row(
        "R6",
        f"bytes pushed for a {SESSION}-edit session: the code and its history on refs vs "
        "the code alone",
        Figure("`git push` with the pre-push hook (branch, then history)", value=hook, unit="B"),
        Figure("`git push` of the same code work, no snapline", value=plain, unit="B"),
        hook / plain,
        GOALS["R6"],
        label="snapline ÷ git (bytes)",
        extra=[
            Figure("`git push`, then `snapline push` (no hook)", value=explicit, unit="B"),
            Figure(
                "`git push` with the hook and `snapline.prePush after` (history after)",
                value=after,
                unit="B",
            ),
        ],
        notes=[
            f"Each side clones a remote that holds the tree's commit, makes the same "
            f"{SESSION} one-line edits cycling through {len(refs.paths)} small files "
            "(snapline: each recorded by `ws.write_file`, a snapshot on refs), commits the "
            "result and pushes it. Bytes are what the client sent to `git receive-pack` "
            "(commands and packs), counted by a wrapper set as the remote's receive-pack.",
            "Per push, largest first: hook "
            + ", ".join(format_bytes(b) for b in results["hook"])
            + "; after "
            + ", ".join(format_bytes(b) for b in results["after"])
            + "; explicit "
            + ", ".join(format_bytes(b) for b in results["explicit"])
            + "; plain "
            + ", ".join(format_bytes(b) for b in results["plain"])
            + ". With the hook the history is pushed from inside the branch's push (the "
            "hook runs `snapline push`); without it, by `snapline push` after `git push`. "
            f"Ratio without the hook: {explicit / plain:.2f}; with `snapline.prePush "
            f"after`: {after / plain:.2f} (the history follows the branch, so nothing "
            "goes twice; the default's history goes first, so that it can stop the push, "
            "and what both reach goes in both packs).",
            f"What the history push holds (`git pack-objects --revs` of the line less "
            f"`origin/main`, in the same clone): the baseline snapshot (the tree at `init`, "
            f"whose commit's parent is the user's commit that the remote holds, so that "
            f"git's push leaves its files out) {format_bytes(baseline)}; the "
            f"{snapshots - 1:,} snapshots after it {format_bytes(rest)} "
            f"({rest / max(1, snapshots - 1):,.0f} B a snapshot: its commit, its record, "
            "the trees on the changed path, the file's new version).",
        ],
    )


# -- R7: a binary's versions packed -----------------------------------------------------------


def _binary_versions() -> list[bytes]:
    """20 versions of a 2 MiB binary, 4 KiB rewritten each time (tests/store/refs/test_packs.py)."""
    chance = random.Random(37)
    data = bytearray(chance.randbytes(BINARY_SIZE))
    found = [bytes(data)]
    for _ in range(BINARY_VERSIONS - 1):
        at = chance.randrange(BINARY_SIZE - 4096)
        data[at : at + 4096] = chance.randbytes(4096)
        found.append(bytes(data))
    return found


def _packed(bench: Bench, repo: Path) -> tuple[int, int]:
    """``git gc``, then (pack bytes, loose bytes) from ``count-objects -v``."""
    bench.git(repo, "gc", "-q")
    out = bench.git(repo, "count-objects", "-v").stdout
    counts = dict(line.split(": ") for line in out.splitlines() if ": " in line)
    return int(counts["size-pack"]) * 1024, int(counts["size"]) * 1024


def _binary(refs: _Refs) -> RowResult:
    """R7: 20 versions of a 2 MiB binary, packed, with snapline's line vs plain commits."""
    bench = refs.bench
    versions = _binary_versions()
    plain, ours = refs.workdir / "binary-plain", refs.workdir / "binary-snapline"
    for repo in (plain, ours):
        repo.mkdir()
        bench.git(repo, "init", "-q")
    for n, data in enumerate(versions):
        (plain / "big.bin").write_bytes(data)
        refs.commit_all(plain, f"version {n}")
    (ours / "big.bin").write_bytes(versions[0])
    refs.commit_all(ours, "version 0")
    refs.snapline(ours, "init")
    for data in versions[1:]:
        (ours / "big.bin").write_bytes(data)
        refs.snapline(ours, "record", "big.bin")
    git_pack, git_loose = _packed(bench, plain)
    our_pack, our_loose = _packed(bench, ours)
    lines = bench.git(ours, "for-each-ref", "refs/snapline/").stdout.count("\n")
    return _row(
        "R7",
        f"{BINARY_VERSIONS} versions of a 2 MiB binary, packed: history on refs vs plain git",
        Figure("a commit of version 0, 19 `snapline record`, `git gc`", value=our_pack, unit="B"),
        Figure(f"{BINARY_VERSIONS} plain git commits, `git gc`", value=git_pack, unit="B"),
        our_pack / git_pack,
        GOALS["R7"],
        label="snapline ÷ git (bytes)",
        notes=[
            "Each version rewrites 4 KiB at a random place of the one before (seed 37, as "
            "tests/store/refs/test_packs.py). Sizes are `count-objects -v` size-pack after "
            f"`git gc`; loose objects left: {format_bytes(our_loose)} with snapline "
            f"(refs under refs/snapline/: {lines}), {format_bytes(git_loose)} plain. Without "
            "deltas the versions would take 40 MiB.",
        ],
    )


def row_on_refs(bench: Bench, only: set[str] | None = None) -> list[RowResult]:
    """Rows R4-R10 (or those in ``only``), in order; a row that fails is reported failed."""
    wanted = [n for n in REFS_ROWS if only is None or n in only]
    results: list[RowResult] = []

    def attempt(numbers: tuple[str, ...], title: str, row: Callable[[], list[RowResult]]) -> None:
        if not any(n in wanted for n in numbers):
            return
        try:
            results.extend(r for r in row() if r.number in wanted)
        except Exception as error:  # one broken row must not hide the others
            bench.log(f"row {', '.join(numbers)} failed: {error}")
            detail = f"{type(error).__name__}: {error}".splitlines()[0][:300]
            results.extend(
                RowResult(number=n, title=title, goal="—", skipped=f"failed: {detail}")
                for n in numbers
                if n in wanted
            )

    refs = _Refs(bench)
    attempt(("R7",), "binary versions packed", lambda: [_binary(refs)])
    if any(n in wanted for n in ("R4", "R5", "R6", "R8", "R9", "R10")):
        with bench.worker() as worker:
            refs.prepare(worker)
            worker.call("close")  # R5's and R9's commands write snapshots the worker did not
            attempt(("R6",), "session push", lambda: [_session(refs)])
            attempt(("R5",), "warm rollback on refs", lambda: [_rollback(refs)])
            attempt(("R9", "R10"), "cold record and hook on refs", lambda: _cold(refs))
            worker.call("open", root=str(refs.root))
            attempt(("R8",), "library record on refs", lambda: [_library(refs, worker)])
            worker.call("close")
        attempt(("R4",), "fresh CI clone", lambda: [_ci_clone(refs)])
    return sorted(results, key=lambda r: REFS_ROWS.index(r.number))
