"""One function per goal of issue 6, each measuring snapline against its git counterpart.

The rows share three generated trees of ``files`` files (same seed, so identical):

- ``main`` (A): snapline's workspace; its store is the last one the init row made, plus
  10 snapshots of history ("short history");
- ``git`` (B): git's repository of the same tree, with the long history imported;
- ``long`` (L): snapline's workspace with ``history`` snapshots (10,000; 1,000 in quick
  mode) of one-line edits cycling through 100 small files.

Library figures come from worker processes (:mod:`benchmarks.worker`) that keep one
``Workspace`` open, as an agent does; git figures are whole ``git`` processes. Rows that
miss their goal are profiled once more, and the profile goes into the report.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.blame import BLAME_ROWS, row_blame
from benchmarks.git_layer import GIT_LAYER_ROWS, row_git_layer
from benchmarks.growth import GROWTH_ROWS, row_growth
from benchmarks.hooks import row_hook
from benchmarks.install import cli_environment
from benchmarks.mcp import row_mcp
from benchmarks.on_refs import REFS_ROWS, row_on_refs
from benchmarks.one_path import ONE_PATH_ROWS, row_one_path
from benchmarks.page import row_report_page
from benchmarks.peers import PEER_ROWS, row_peers
from benchmarks.peers_rollback import ROLLBACK_ROWS, row_peer_rollback
from benchmarks.rebuild import row_index_rebuild
from benchmarks.report import (
    Evidence,
    Figure,
    RowResult,
    format_bytes,
    format_seconds,
    share_of,
    shown_path,
)
from benchmarks.timing import (
    ProcessRun,
    Sample,
    Series,
    alternate,
    profile_summary,
    ratio,
    run_process,
    summarize,
)
from benchmarks.warm import WARM_ROWS, row_warm_checks, row_warm_edits, row_warm_history
from benchmarks.worker import Reply, WorkerClient
from benchmarks.workspace_gen import (
    BIG_FILE,
    Layout,
    block_edit,
    generate,
    history_versions,
    one_line_edit,
    scattered_edit,
    source_text,
)

__all__ = [
    "GIT_FIXED",
    "GIT_FSYNC",
    "Bench",
    "Config",
    "cli_profile",
    "import_evidence",
    "method_notes",
    "row_blocks",
    "row_cli_record",
    "row_edit",
    "row_help",
    "row_history",
    "row_init",
    "row_large_file",
    "row_nochange",
    "row_rollback",
    "row_scattered",
    "row_storage",
    "run_all",
    "run_peers",
    "verify_shares",
]

GIT_FIXED = (
    "-c", "user.name=snapline-bench", "-c", "user.email=bench@snapline.invalid",
    "-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "commit.gpgSign=false",
    "-c", "init.defaultBranch=main", "-c", "core.autocrlf=false",
    "-c", "advice.detachedHead=false",
)  # fmt: skip
"""Every git command runs with this configuration (and no global or system config)."""
GIT_FSYNC = ("-c", "core.fsync=all", "-c", "core.fsyncMethod=batch")
"""The durable git column: fsync objects, index and refs, as snapline always does."""

MiB = 1 << 20
RACY_WINDOW = 2.5
"""Seconds after which a written file is safely older than any stat-cache check (2 s + margin)."""
SHORT_HISTORY = 10
ROLLBACK_SPAN = 1_000
CLI_RECORD_GOAL = 1.5
"""Row 4: ``snapline record F`` at most 1.5 times ``git add F && git commit`` (issue 16)."""
VERSION_GOAL = 1.5
"""Row 5b: ``snapline --version`` at most 1.5 times a bare ``python -c pass``."""
VERIFY_GOAL_QUICK = 3.0
VERIFY_GOAL_FULL = 1.5
"""Row 6c: ``snapline verify``, nothing changed, against ``git status``: 10k files, 100k."""
VERIFY_FULL_GOAL = 0.5
"""Row 6d: ``snapline verify --full`` against ``git status && git fsck``."""
ROLLBACK_GOAL = 2.0
"""Row 7: ``snapline rollback --to N`` at most twice ``git checkout REV -- .``."""
BLOCKS_LINES = 3_000
BLOCKS_CHANGED = 1_200
BLOCKS_GOAL = 0.050
"""Row 9b: a library record of a 1,200-line change of a 3,000-line file within 50 ms."""


@dataclass(frozen=True)
class Config:
    """What a run measures and where.

    Attributes:
        files: Tracked files in the shared trees (10k quick, 100k full).
        history: Snapshots in the long history (1,000 quick, 10,000 full).
        warmup: Rounds run and discarded before each alternating measurement.
        repeats: Rounds kept for most measurements.
        slow_repeats: Rounds kept for slow ones (init, whole-workspace record).
        quick_repeats: Rounds kept for measurements of a few milliseconds, whose
            spread (an fsync here and there) needs more samples.
        workdir: Where trees are generated; removed by the caller afterwards.
        seed: The generator's seed.
        full: Whether this is the ``--full`` mode.
        python: The interpreter with snapline installed.
        repo_root: The snapline checkout (put on the workers' ``PYTHONPATH``).
    """

    files: int
    history: int
    warmup: int
    repeats: int
    slow_repeats: int
    workdir: Path
    seed: int
    full: bool
    python: str
    repo_root: Path
    quick_repeats: int = 21


class Bench:
    """What the rows share: configuration, environments, the trees and edit counters."""

    def __init__(self, config: Config, log: Callable[[str], None]) -> None:
        self.config = config
        self.log = log
        self.trees: dict[str, Layout] = {}
        self._generated: dict[str, float] = {}
        self.facts: dict[str, Any] = {}
        self._counters: dict[str, int] = {}
        path = os.environ.get("PYTHONPATH")
        root = str(config.repo_root)
        self.worker_env = {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}
        self.cli_env = dict(os.environ)
        self.git_env = {
            **os.environ,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "HOME": str(config.workdir),
            "LC_ALL": "C",
            "GIT_TERMINAL_PROMPT": "0",
            # Never let a git command in a tree without .git find an enclosing repository.
            "GIT_CEILING_DIRECTORIES": str(config.workdir),
        }
        # Whole processes run snapline as installed, not through the editable install's
        # import hook (benchmarks/install.py).
        environment = cli_environment(config.workdir, config.repo_root, config.python)
        self.cli_python = str(environment.python)
        self.snapline_bin = environment.snapline

    # -- trees and edits ---------------------------------------------------------------

    def tree(self, name: str) -> Layout:
        """The generated tree ``name``, generating it on first use."""
        if name not in self.trees:
            started = time.perf_counter()
            root = self.config.workdir / name
            self.trees[name] = generate(root, self.config.files, seed=self.config.seed)
            self._generated[name] = time.time()
            self.log(f"generated {name}/ in {time.perf_counter() - started:.1f}s")
        return self.trees[name]

    def settled(self, name: str) -> Layout:
        """The tree ``name``, once its files are older than the racy window.

        A stat cache (snapline's, like git's index) does not trust a file modified
        within about two seconds of being hashed, and rehashes it until the entry is
        refreshed. A real workspace's files are older than that when it is initialised;
        without this wait, how many files start out racy would depend on how fast the
        tree happened to be written.
        """
        layout = self.tree(name)
        wait = self._generated[name] + RACY_WINDOW - time.time()
        if wait > 0:
            time.sleep(wait)
        return layout

    def next_index(self, tree: str) -> int:
        """The next edit number for ``tree`` (each edit of a tree is distinct)."""
        self._counters[tree] = self._counters.get(tree, 0) + 1
        return self._counters[tree]

    def edit_on_disk(self, root: Path, rel: str, index: int) -> None:
        """Apply one-line edit ``index`` to ``rel`` by rewriting it in place, as an editor does."""
        path = root / rel
        path.write_text(one_line_edit(path.read_text(encoding="utf-8"), index), encoding="utf-8")

    # -- processes ---------------------------------------------------------------------

    def git(
        self,
        cwd: Path,
        *args: str,
        fsync: bool = False,
        stdin: bytes | Path | None = None,
        rss: bool = False,
    ) -> ProcessRun:
        """Run one git command in ``cwd`` (checked); ``rss`` measures its peak memory."""
        argv = ["git", *GIT_FIXED, *(GIT_FSYNC if fsync else ()), *args]
        run = run_process(argv, cwd=cwd, env=self.git_env, stdin=stdin, measure_rss=rss)
        return run.check(f"git {args[0]}")

    def warming(self, index: int) -> bool:
        """Whether round ``index`` is a warm-up round (where memory is measured)."""
        return index < self.config.warmup

    def git_sample(
        self, cwd: Path, commands: Sequence[Sequence[str]], fsync: bool, *, rss: bool = False
    ) -> Sample:
        """Run git commands one after another: their total time and (``rss``) largest peak."""
        runs = [self.git(cwd, *command, fsync=fsync, rss=rss) for command in commands]
        peaks = [r.peak_rss for r in runs if r.peak_rss is not None]
        return Sample(sum(r.seconds for r in runs), max(peaks) if peaks else None)

    def worker(self) -> WorkerClient:
        """A new long-lived library worker."""
        return WorkerClient(self.config.python, self.worker_env, self.config.repo_root)

    def once(self, requests: list[dict[str, Any]]) -> tuple[ProcessRun, list[Reply]]:
        """Run ``requests`` in a fresh worker process; the process and the replies."""
        argv = [self.config.python, "-m", "benchmarks.worker", "--once", json.dumps(requests)]
        run = run_process(argv, cwd=self.config.repo_root, env=self.worker_env)
        run.check("benchmark worker")
        replies: list[Reply] = json.loads(run.stdout)
        for reply in replies:
            if "error" in reply:
                raise RuntimeError(f"worker: {reply['error']}\n{reply.get('traceback', '')}")
        return run, replies

    def rounds(self, repeats: int) -> dict[str, int]:
        return {"warmup": self.config.warmup, "repeats": repeats}


# -- helpers ---------------------------------------------------------------------------------


def _flat(lists: Iterable[list[Any]]) -> list[Any]:
    return [item for items in lists for item in items]


def _from_reply(reply: Reply, **info: Any) -> Sample:
    return Sample(reply["seconds"], reply.get("peak_rss"), {**reply, **info})


def _figure(label: str, series: Series) -> Figure:
    return Figure(label, stats=series.stats, peak_rss=series.peak_rss)


def _ratio_row(
    number: str,
    title: str,
    goal: float,
    snap: Figure,
    git: Figure,
    **fields: Any,
) -> RowResult:
    assert snap.stats is not None and git.stats is not None
    value = ratio(snap.stats, git.stats)
    return RowResult(
        number=number,
        title=title,
        goal=f"≤ {goal:g}",
        snapline=snap,
        git=git,
        ratio=value,
        met=value <= goal,
        **fields,
    )


def _profile_evidence(title: str, reply: Reply, *lines: str) -> Evidence:
    return Evidence(title, profile=reply.get("profile"), lines=lines)


def _objects_size(repo: Path) -> int:
    total = 0
    for directory, _, names in os.walk(repo / ".git" / "objects"):
        total += sum(os.lstat(os.path.join(directory, name)).st_size for name in names)
    return total


def _git_history(bench: Bench, repo: Path, versions: Iterable[tuple[str, bytes]]) -> int:
    """Append one commit per ``(path, content)`` with ``git fast-import``; returns the count.

    fast-import builds a long history in seconds instead of one add+commit pair per
    version; the working tree and index are then brought to the new tip.
    """
    stream = bench.config.workdir / f"{repo.name}.fast-import"
    count = 0
    with open(stream, "wb") as out:
        for count, (path, data) in enumerate(versions, start=1):
            message = f"history {count}".encode()
            mode = b"100755" if os.stat(repo / path).st_mode & stat.S_IXUSR else b"100644"
            out.write(b"commit refs/heads/main\n")
            out.write(
                b"committer bench <bench@snapline.invalid> %d +0000\n" % (1_700_000_000 + count)
            )
            out.write(b"data %d\n%s\n" % (len(message), message))
            if count == 1:
                out.write(b"from refs/heads/main^0\n")
            out.write(b"M %s inline %s\ndata %d\n" % (mode, path.encode(), len(data)))
            out.write(data + b"\n")
    bench.git(repo, "fast-import", "--quiet", stdin=stream)
    bench.git(repo, "reset", "-q", "--hard")
    stream.unlink()
    return count


def _git_edit(bench: Bench, repo: Path, fsync: bool) -> Callable[[int], Sample]:
    def run(round_index: int) -> Sample:
        index = bench.next_index("git")
        bench.edit_on_disk(repo, BIG_FILE, index)
        commands = [["add", BIG_FILE], ["commit", "-q", "-m", f"edit {index}"]]
        return bench.git_sample(repo, commands, fsync, rss=bench.warming(round_index))

    return run


# -- 1 and 10a: init ----------------------------------------------------------------------


def row_init(bench: Bench) -> list[RowResult]:
    """Row 1 (init of N files vs git init+add+commit) and row 10a (its peak memory)."""
    a, b = bench.settled("main").root, bench.settled("git").root
    n = bench.config.files

    def snapline_init(_: int) -> Sample:
        _remove(a / ".snapline")
        run, replies = bench.once([{"op": "init", "root": str(a)}])
        return Sample(run.seconds, replies[0]["process_peak"], replies[0])

    def git_init(fsync: bool) -> Callable[[int], Sample]:
        def run(index: int) -> Sample:
            _remove(b / ".git")
            commands = [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "baseline"]]
            return bench.git_sample(b, commands, fsync, rss=bench.warming(index))

        return run

    runners = [("snapline", snapline_init), ("git", git_init(False))]
    if not bench.config.full:
        # 100k loose objects fsynced take minutes per round; quick mode shows the effect.
        runners.append(("fsync", git_init(True)))
    bench.log(
        f"row 1: init of {n:,} files, {bench.config.warmup}+{bench.config.slow_repeats} rounds"
    )
    series = alternate(runners, **bench.rounds(bench.config.slow_repeats))
    snap = _figure("`Workspace.init` in a fresh Python process (whole process)", series["snapline"])
    git = _figure("`git init && git add -A && git commit` (3 processes)", series["git"])
    library = summarize(series["snapline"].infos("seconds"))
    idle = max(series["snapline"].infos("idle_rss"))
    layout = bench.tree("main")
    init = _ratio_row(
        "1",
        f"init / baseline of {n:,} files",
        1.0,
        snap,
        git,
        extra=[
            _figure("git, same, with `core.fsync=all` (batch)", series[name])
            for name in ("fsync",)
            if name in series
        ],
        notes=[
            f"Tree: {layout.tracked_files:,} tracked files ({format_bytes(layout.tracked_bytes)}) "
            f"in {layout.directories:,} directories, plus {layout.ignored_files:,} ignored files "
            "(node_modules/, build/, __pycache__/, *.pyc, logs).",
            f"The library call alone (`Workspace.init`, without interpreter start and imports) "
            f"took {format_seconds(library.median)} (median).",
            "snapline fsyncs its SQLite commit; git by default does not fsync loose objects, "
            "the index or refs"
            + (
                " (the fsync column shows git made durable)."
                if "fsync" in series
                else "; git made durable is measured in quick mode only (minutes per round "
                "at this size)."
            ),
            "git writes one loose object file per source file, so its init time follows the "
            "filesystem's file-creation speed (see Machine); snapline writes one SQLite file.",
        ],
    )
    peak = series["snapline"].peak_rss or 0
    memory = RowResult(
        number="10a",
        title=f"peak memory, init of {n:,} files",
        goal="≤ 150 MiB",
        snapline=Figure("peak RSS of the whole init process", value=peak, unit="B"),
        git=Figure("peak RSS of the largest git process", value=series["git"].peak_rss, unit="B"),
        ratio=None,
        met=peak <= 150 * MiB,
        notes=[
            f"Peak above the idle process (interpreter and imports, {format_bytes(idle)}): "
            f"{format_bytes(peak - idle)}.",
        ],
    )
    if not init.met or not memory.met:
        bench.log("row 1: profiling init")
        shutil.rmtree(a / ".snapline", ignore_errors=True)
        _, replies = bench.once([{"op": "init", "root": str(a), "profile": True}])
        evidence = _profile_evidence("cProfile of `Workspace.init`", replies[0])
        init.evidence.append(evidence)
        if not memory.met:
            shutil.rmtree(a / ".snapline", ignore_errors=True)
            _, replies = bench.once([{"op": "init", "root": str(a), "trace": True}])
            memory.evidence.append(_allocation_evidence(replies[0]))
    return [init, memory]


def _remove(path: Path) -> None:
    """Delete a previous run's store, then flush, so its cleanup is not timed with the next."""
    shutil.rmtree(path, ignore_errors=True)
    os.sync()


def _allocation_evidence(reply: Reply) -> Evidence:
    allocations = reply["allocations"]
    lines = [
        f"Python objects at their peak (tracemalloc): {format_bytes(allocations['traced_peak'])}; "
        "the rest of the RSS is the interpreter, imported modules, SQLite's page cache and "
        "allocator slack.",
        "Largest allocation sites near the peak:",
    ]
    lines += [
        f"{format_bytes(t['size'])} in {t['count']:,} blocks: `{t['where']}`"
        for t in allocations["top"][:6]
    ]
    return Evidence("Where the memory goes", lines=tuple(lines))


# -- histories ------------------------------------------------------------------------------


def ensure_baselines(bench: Bench) -> None:
    """Give A its snapline store and B its git repository when row 1 did not run."""
    a, b = bench.settled("main").root, bench.settled("git").root
    if not (a / ".snapline").exists():
        bench.once([{"op": "init", "root": str(a)}])
    if not (b / ".git").exists():
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "baseline"]):
            bench.git(b, *command)


def prepare_histories(bench: Bench, main: WorkerClient, long: WorkerClient) -> None:
    """Give A a short history, L (a new tree) a long one, and B the same long one in git."""
    ensure_baselines(bench)
    layout = bench.tree("main")
    main.call("open", root=str(layout.root))
    main.call("history", paths=list(layout.history_files), count=SHORT_HISTORY)
    count = bench.config.history
    long_layout = bench.settled("long")
    reply = long.call("init", root=str(long_layout.root))
    bench.log(f"long history: init in {reply['seconds']:.1f}s, recording {count:,} snapshots")
    reply = long.call("history", paths=list(long_layout.history_files), count=count)
    bench.facts["history_seconds"] = reply["seconds"]
    bench.facts["long_latest"] = reply["latest"]
    bench.log(f"long history: {count:,} snapshots in {reply['seconds']:.1f}s")
    repo = bench.tree("git").root
    started = time.perf_counter()
    _git_history(bench, repo, history_versions(repo, list(layout.history_files), count))
    bench.log(f"git history imported in {time.perf_counter() - started:.1f}s")


# -- 2: one-line edit, library ------------------------------------------------------------


def row_edit(bench: Bench, main: WorkerClient) -> list[RowResult]:
    """Row 2: ``ws.write_file`` and ``ws.record([F])`` of a one-line edit vs git add+commit."""
    repo = bench.tree("git").root
    n = bench.config.files

    def write(_: int) -> Sample:
        return _from_reply(main.call("write_edit", path=BIG_FILE, index=bench.next_index("main")))

    def record(_: int) -> Sample:
        reply = main.call("disk_edit_record", path=BIG_FILE, index=bench.next_index("main"))
        return _from_reply(reply)

    runners = [
        ("write", write),
        ("git", _git_edit(bench, repo, False)),
        ("record", record),
        ("fsync", _git_edit(bench, repo, True)),
    ]
    bench.log("row 2: one-line edit, library vs git")
    series = alternate(runners, **bench.rounds(bench.config.quick_repeats))
    git = _figure("`git add F && git commit -q`", series["git"])
    fsync = _figure("git, same, with `core.fsync=all` (batch)", series["fsync"])
    storages = sorted(
        set(_flat(series["write"].infos("storage") + series["record"].infos("storage")))
    )
    size = format_bytes((bench.tree("main").root / BIG_FILE).stat().st_size)
    common = [
        f"F is a 10,000-line text file ({size}) in the {n:,}-file workspace; each edit "
        f"replaces one line. Stored as: {', '.join(storages)}.",
    ]
    results = []
    for key, number, label in (
        ("write", "2a", "`ws.write_file(F, content)` in a long-lived Workspace"),
        ("record", "2b", "`ws.record([F])` after editing F on disk, long-lived Workspace"),
    ):
        figure = _figure(label, series[key])
        assert figure.stats is not None and fsync.stats is not None
        row = _ratio_row(
            number,
            f"library record of a one-line edit ({label.split('`')[1]}), {n:,}-file workspace",
            0.3,
            figure,
            git,
            extra=[fsync],
            notes=[
                *common,
                "Against durable git (the fsync column): ratio "
                f"{ratio(figure.stats, fsync.stats):.2f}.",
            ],
        )
        if not row.met:
            op = "write_edit" if key == "write" else "disk_edit_record"
            reply = main.call(op, path=BIG_FILE, index=bench.next_index("main"), profile=True)
            row.evidence.append(_profile_evidence(f"cProfile of one {label}", reply))
        results.append(row)
    return results


# -- 3: history length ----------------------------------------------------------------------


def row_history(bench: Bench, main: WorkerClient, long: WorkerClient) -> list[RowResult]:
    """Row 3: the one-line edit with a long history vs a short one (same workspace size)."""
    short_latest = main.call("latest")["latest"]
    long_latest = long.call("latest")["latest"]

    def edit(worker: WorkerClient, tree: str, op: str) -> Callable[[int], Sample]:
        def run(_: int) -> Sample:
            return _from_reply(worker.call(op, path=BIG_FILE, index=bench.next_index(tree)))

        return run

    runners = [
        ("long-write", edit(long, "long", "write_edit")),
        ("short-write", edit(main, "main", "write_edit")),
        ("long-record", edit(long, "long", "disk_edit_record")),
        ("short-record", edit(main, "main", "disk_edit_record")),
    ]
    bench.log(f"row 3: history of {long_latest:,} vs {short_latest} snapshots")
    series = alternate(runners, **bench.rounds(bench.config.quick_repeats))
    quick = "" if bench.config.full else " (quick mode: 1,000, not 10,000)"
    results = []
    for key, number, label in (
        ("write", "3a", "ws.write_file"),
        ("record", "3b", "ws.record([F])"),
    ):
        long_figure = _figure(f"`{label}` with {long_latest:,} snapshots", series[f"long-{key}"])
        short_figure = _figure(f"`{label}` with {short_latest} snapshots", series[f"short-{key}"])
        assert long_figure.stats is not None and short_figure.stats is not None
        value = ratio(long_figure.stats, short_figure.stats)
        row = RowResult(
            number=number,
            title=f"`{label}` with {bench.config.history:,} snapshots of history vs 10{quick}",
            goal="≤ 1.2x",
            snapline=long_figure,
            git=None,
            ratio=value,
            ratio_label="long history ÷ short history (medians)",
            met=value <= 1.2,
            extra=[short_figure],
            notes=[
                "Both workspaces hold the same tree; the long history is one-line edits "
                f"cycling through 100 small files ({bench.config.history:,} snapshots, "
                f"recorded at {bench.config.history / bench.facts['history_seconds']:.0f} "
                "snapshots/s with `ws.write_file`).",
            ],
        )
        if not row.met:
            # Profile both: what differs between them is what the history costs.
            op = "write_edit" if key == "write" else "disk_edit_record"
            for worker, tree, which in ((long, "long", "long"), (main, "main", "short")):
                reply = worker.call(op, path=BIG_FILE, index=bench.next_index(tree), profile=True)
                title = f"cProfile of `{label}`, {which} history"
                row.evidence.append(_profile_evidence(title, reply))
        results.append(row)
    return results


# -- 4: CLI record ----------------------------------------------------------------------------


def row_cli_record(bench: Bench) -> list[RowResult]:
    """Row 4: ``snapline record F`` as a whole process vs git add+commit."""
    ensure_baselines(bench)
    root, repo = bench.tree("main").root, bench.tree("git").root
    probe = None
    if bench.snapline_bin.exists():
        probe = run_process([str(bench.snapline_bin), "record", "--help"], env=bench.cli_env)
    if probe is not None and probe.returncode == 0:
        argv = [str(bench.snapline_bin), "record", BIG_FILE]
        label = "`snapline record F` (whole process)"
        stand_in = False
    else:
        code = f"from snapline import Workspace; Workspace.find('.').record([{BIG_FILE!r}])"
        argv = [bench.cli_python, "-c", code]
        label = (
            'stand-in: `python -c "from snapline import Workspace; '
            "Workspace.find('.').record(['F'])\"`"
        )
        stand_in = True

    def cli(index: int) -> Sample:
        bench.edit_on_disk(root, BIG_FILE, bench.next_index("main"))
        run = run_process(argv, cwd=root, env=bench.cli_env, measure_rss=bench.warming(index))
        return Sample(run.check("snapline record").seconds, run.peak_rss)

    bench.log("row 4: CLI record vs git")
    series = alternate(
        [
            ("cli", cli),
            ("git", _git_edit(bench, repo, False)),
            ("fsync", _git_edit(bench, repo, True)),
        ],
        **bench.rounds(bench.config.repeats),
    )
    notes = [
        "Every run is a new process: interpreter start, imports, opening the store, "
        "rebuilding F's base from the store (no warm cache) and the record."
    ]
    if stand_in:
        notes.insert(
            0,
            "`snapline record` does not exist yet, so the library call it will "
            "make was measured in a fresh interpreter instead.",
        )
    row = _ratio_row(
        "4",
        "CLI `snapline record F` of the one-line edit, whole process"
        + (" (stand-in)" if stand_in else ""),
        CLI_RECORD_GOAL,
        _figure(label, series["cli"]),
        _figure("`git add F && git commit -q`", series["git"]),
        extra=[_figure("git, same, with `core.fsync=all` (batch)", series["fsync"])],
        notes=notes,
    )
    if not row.met:
        row.evidence.append(cli_profile(bench, root, argv, stand_in=stand_in))
        bench.edit_on_disk(root, BIG_FILE, bench.next_index("main"))
        row.evidence.append(import_evidence(bench, argv[1:], root))
    return [row]


def cli_profile(
    bench: Bench,
    root: Path,
    argv: list[str],
    *,
    stand_in: bool = False,
    edit: bool = True,
    tree: str = "main",
    title: str = "cProfile of the whole process (imports included)",
) -> Evidence:
    """One more run of a snapline command in ``root``, under cProfile, as evidence.

    Args:
        bench: The run.
        root: The workspace (the command's working directory).
        argv: The command as timed (``[snapline, *args]``, or a ``python -c`` stand-in).
        stand_in: Whether ``argv`` is a ``python -c CODE`` stand-in.
        edit: Make a one-line edit of F (numbered for ``tree``) first, as the timed runs did.
        tree: Whose edit counter numbers that edit.
        title: The evidence's title.
    """
    script = bench.config.workdir / "cli_profile_target.py"
    if stand_in:
        script.write_text(argv[2] + "\n", encoding="utf-8")
        target = [str(script)]
    else:
        target = [str(bench.snapline_bin), *argv[1:]]
    output = bench.config.workdir / "cli.prof"
    if edit:
        bench.edit_on_disk(root, BIG_FILE, bench.next_index(tree))
    run_process(
        [bench.cli_python, "-m", "cProfile", "-o", str(output), *target],
        cwd=root,
        env=bench.cli_env,
    ).check(f"profiled {' '.join(argv[1:])}")
    # More functions than the report lists, so that the shares of named parts can be found.
    return Evidence(title, profile=profile_summary(output, limit=80))


# -- 5: --help --------------------------------------------------------------------------------


def _help_commands(bench: Bench) -> tuple[list[str], str, list[str]]:
    if bench.snapline_bin.exists():
        argv, label = [str(bench.snapline_bin), "--help"], "`snapline --help` (whole process)"
        version = [str(bench.snapline_bin), "--version"]
    else:
        argv = [bench.cli_python, "-c", "from snapline.cli import main; main()", "--help"]
        label = "stand-in: `python -c 'from snapline.cli import main; main()' --help`"
        version = [bench.cli_python, "-m", "snapline", "--version"]
    return argv, label, version


def help_series(bench: Bench) -> dict[str, Series]:
    """``snapline --help``, ``--version`` and ``python -c pass`` alternated, once a run.

    Rows 5 and W7 time the same command (the same imports, the same files read, with
    or without a server's socket to look for): they report this one series, measured
    the first time either asks, so the two rows cannot show two figures for it.
    """
    measured: dict[str, Series] | None = bench.facts.get("help_series")
    if measured is not None:
        return measured
    argv, _, version = _help_commands(bench)

    def run(command: list[str]) -> Callable[[int], Sample]:
        def sample(index: int) -> Sample:
            result = run_process(command, env=bench.cli_env, measure_rss=bench.warming(index))
            return Sample(result.check(" ".join(command)).seconds, result.peak_rss)

        return sample

    bench.log("rows 5, 5b, W7: snapline --help, --version, python -c pass")
    series = alternate(
        [
            ("help", run(argv)),
            ("version", run(version)),
            ("python", run([bench.cli_python, "-c", "pass"])),
        ],
        **bench.rounds(bench.config.repeats * 2),
    )
    bench.facts["help_series"] = series
    return series


def row_help(bench: Bench) -> list[RowResult]:
    """Rows 5 and 5b: ``snapline --help`` (≤ 150 ms), ``--version`` (≤ 1.5x ``python -c pass``)."""
    _, label, version = _help_commands(bench)
    series = help_series(bench)
    figure = _figure(label, series["help"])
    python = _figure("`python -c pass` (the interpreter's own start)", series["python"])
    assert figure.stats is not None
    row = RowResult(
        number="5",
        title="`snapline --help`, whole process",
        goal="≤ 150 ms median",
        snapline=figure,
        met=figure.stats.median <= 0.150,
        extra=[python],
    )
    if not row.met:
        row.evidence.append(import_evidence(bench, ["--help"], bench.config.workdir))
    version_row = _ratio_row(
        "5b",
        "`snapline --version` against a bare `python -c pass`, whole processes",
        VERSION_GOAL,
        _figure(f"`{' '.join(['snapline', *version[-1:]])}` (whole process)", series["version"]),
        python,
        ratio_label="snapline ÷ python (medians)",
        reference_name="python",
        notes=[
            "The floor of every snapline command: interpreter start, the `snapline` console "
            "script's own import and the answer; `python -c pass` is the same interpreter "
            "starting and doing nothing (site-packages included)."
        ],
    )
    if not version_row.met:
        version_row.evidence.append(import_evidence(bench, ["--version"], bench.config.workdir))
    return [row, version_row]


def import_evidence(bench: Bench, args: list[str], cwd: Path) -> Evidence:
    """The largest imports of ``snapline ARGS`` run in ``cwd``, from ``python -X importtime``."""
    if args and args[0] == "-c":
        command = [bench.cli_python, "-X", "importtime", *args]
    else:
        code = (
            f"import sys; sys.argv = ['snapline', *{args!r}]; from snapline.cli import main; main()"
        )
        command = [bench.cli_python, "-X", "importtime", "-c", code]
    run = run_process(command, cwd=cwd, env=bench.cli_env)
    imports = []
    for line in run.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            # The name column is indented two spaces per level of nesting.
            name = parts[2].rstrip()
            depth = (len(name) - len(name.lstrip()) - 1) // 2
            imports.append((int(parts[1]), depth, name.strip()))
    top = sorted((i for i in imports if i[1] <= 1), reverse=True)[:10]
    total = sum(cumulative for cumulative, depth, _ in imports if depth == 0)
    lines = [f"All imports: {total / 1000:.0f} ms."]
    lines += [f"`{name}`: {cumulative / 1000:.1f} ms cumulative" for cumulative, _, name in top]
    shown = " ".join(["snapline", *args]) if args[:1] != ["-c"] else "the stand-in"
    return Evidence(
        f"`python -X importtime` of `{shown}` (largest imports, cumulative)", lines=tuple(lines)
    )


# -- 6: nothing changed ---------------------------------------------------------------------


def row_nochange(bench: Bench, main: WorkerClient) -> list[RowResult]:
    """Rows 6a-6d: nothing changed; the library checks, ``snapline verify`` and ``--full``."""
    repo = bench.tree("git").root
    n = bench.config.files
    surprises: list[str] = []

    def record(_: int) -> Sample:
        reply = main.call("record")
        if reply["number"] is not None:
            surprises.append(f"record() recorded snapshot {reply['number']}")
        return _from_reply(reply)

    def check(_: int) -> Sample:
        reply = main.call("check_sync")
        if not reply["ok"]:
            surprises.append(f"check_sync() found: {reply['problems']}")
        return _from_reply(reply)

    def status(index: int) -> Sample:
        return bench.git_sample(repo, [["status"]], False, rss=bench.warming(index))

    def bare(_: int) -> Sample:
        started = time.perf_counter()
        _bare_walk(bench.tree("main").root)
        return Sample(time.perf_counter() - started, None)

    bench.log(f"row 6: nothing changed, {n:,} files")
    series = alternate(
        [("record", record), ("check", check), ("status", status), ("bare", bare)],
        **bench.rounds(bench.config.slow_repeats * 2),
    )
    git = _figure("`git status`", series["status"])
    results = []
    for key, number, label, op in (
        ("record", "6a", "`ws.record()` returning None", "record"),
        ("check", "6b", "`ws.check_sync()`", "check_sync"),
    ):
        row = _ratio_row(
            number,
            f"whole-workspace {label.split('`')[1]} with nothing changed, {n:,} files",
            2.0,
            _figure(label + ", long-lived Workspace", series[key]),
            git,
            extra=[
                _figure(
                    "Python's own `os.scandir` + `lstat` of the same tree, nothing else "
                    "(the floor of any walk in Python; git lstats on several threads)",
                    series["bare"],
                )
            ],
            notes=[
                "Both run with warm stat caches (snapline's table, git's index) after the warm-up."
            ],
        )
        if surprises:
            row.notes.append("Unexpected: " + "; ".join(sorted(set(surprises))[:3]))
        if not row.met:
            reply = main.call(op, profile=True)
            row.evidence.append(_profile_evidence(f"cProfile of {label}", reply))
        results.append(row)
    results += _verify_rows(bench)
    return results


def _verify_rows(bench: Bench) -> list[RowResult]:
    """Rows 6c and 6d: ``snapline verify`` and ``verify --full`` as CI runs them.

    Both run in L, the workspace with the long history, against git's commands in B, the
    repository with the same history: the default check must not grow with the history,
    and the full one is held against git's own check of its history.
    """
    repo = bench.tree("git").root
    root = bench.tree("long").root
    n = bench.config.files
    latest = json.loads(
        run_process(
            [str(bench.snapline_bin), "log", "-n", "1", "--json"], cwd=root, env=bench.cli_env
        )
        .check("snapline log")
        .stdout
    )
    newest = _newest_number(latest)
    verify_argv = [str(bench.snapline_bin), "verify"]
    help_text = run_process([*verify_argv, "--help"], env=bench.cli_env).check("verify --help")
    has_full = "--full" in help_text.stdout
    full_argv = [*verify_argv, "--full"] if has_full else verify_argv

    def cli(argv: list[str]) -> Callable[[int], Sample]:
        def sample(index: int) -> Sample:
            rss = bench.warming(index)
            run = run_process(argv, cwd=root, env=bench.cli_env, measure_rss=rss)
            return Sample(run.check(" ".join(["snapline", *argv[1:]])).seconds, run.peak_rss)

        return sample

    def status(index: int) -> Sample:
        return bench.git_sample(repo, [["status"]], False, rss=bench.warming(index))

    git_argv = ["git", *GIT_FIXED]
    both = " ".join([*git_argv, "status", ">/dev/null", "&&", *git_argv, "fsck", "--no-progress"])

    def status_fsck(index: int) -> Sample:
        run = run_process(
            ["sh", "-c", both], cwd=repo, env=bench.git_env, measure_rss=bench.warming(index)
        )
        return Sample(run.check("git status && git fsck").seconds, run.peak_rss)

    bench.log(f"rows 6c, 6d: snapline verify{', verify --full' if has_full else ''} vs git")
    runners = [("verify", cli(verify_argv)), ("status", status)]
    if has_full:
        runners.append(("full", cli(full_argv)))
    runners.append(("status-fsck", status_fsck))
    series = alternate(runners, **bench.rounds(bench.config.slow_repeats))
    goal = VERIFY_GOAL_FULL if bench.config.full else VERIFY_GOAL_QUICK
    history = f"snapshots 0 to {newest:,}" if newest is not None else "its whole history"
    verify = _ratio_row(
        "6c",
        f"CLI `snapline verify` with nothing changed, whole process, {n:,} files",
        goal,
        _figure("`snapline verify` (whole process)", series["verify"]),
        _figure("`git status`", series["status"]),
        notes=[
            "`snapline verify` is what CI runs, in the workspace with the long history ("
            f"{history}): by default it checks what is new since the checkpoint it last "
            "verified, plus the whole workspace against the latest snapshot (row 6b's "
            "check in a new process). `git status` checks the workspace only.",
            f"Goal: ≤ {VERIFY_GOAL_QUICK:g} at 10,000 files (quick mode), ≤ "
            f"{VERIFY_GOAL_FULL:g} at 100,000 (full mode); this run: ≤ {goal:g}.",
        ],
    )
    full_label = (
        "`snapline verify --full` (whole process)"
        if has_full
        else "`snapline verify` (whole process; `--full` does not exist yet)"
    )
    full = _ratio_row(
        "6d",
        f"CLI `snapline verify --full`, whole history, {n:,} files",
        VERIFY_FULL_GOAL,
        _figure(full_label, series["full" if has_full else "verify"]),
        _figure(
            "`git status && git fsck --no-progress` (one shell command)", series["status-fsck"]
        ),
        extra=[],
        notes=[
            f"`--full` checks the whole history ({history}: SQLite's check of the store, "
            "the sequence and chain hash of every snapshot, every change row, milestones) "
            "and the workspace; git's counterpart checks the workspace and then every "
            "object of its history, in the repository with the same history.",
        ],
    )
    if not has_full:
        full.notes.insert(
            0,
            "`snapline verify --full` does not exist in this snapline (its `verify --help` "
            "has no `--full`), so plain `snapline verify` was timed: until the default "
            "becomes incremental it checks the whole history.",
        )
    profiled: dict[tuple[str, ...], Evidence] = {}
    for row, argv in ((verify, verify_argv), (full, full_argv)):
        if not row.met:
            # Without --full both rows timed the same command: one profile serves both.
            if tuple(argv) not in profiled:
                evidence = cli_profile(bench, root, argv, edit=False)
                profiled[tuple(argv)] = dataclasses.replace(evidence, lines=verify_shares(evidence))
            row.evidence.append(profiled[tuple(argv)])
    return [verify, full]


def _newest_number(log: Any) -> int | None:
    """The newest snapshot's number in ``snapline log --json`` output, if it says."""
    entries = log.get("snapshots", log) if isinstance(log, dict) else log
    if isinstance(entries, list) and entries and isinstance(entries[0], dict):
        number = entries[0].get("number")
        return int(number) if isinstance(number, int) else None
    return None


def verify_shares(evidence: Evidence) -> tuple[str, ...]:
    """What a profiled ``snapline verify`` spent on its parts, as lines of evidence.

    The parts: validating the history, checking the workspace against the latest
    snapshot, and catching the local index up with the ledger (a rebuild in a fresh
    clone). A part the profile does not show is left out.
    """
    lines = []
    for marker, what in (
        ("check/sequence.py:", "validating the history (`validate_history`)"),
        ("workspace/reading.py:", "the check of the workspace (`check_sync`)"),
        ("ledger/sync.py:", "catching the local index up with the ledger (`catch_up`)"),
    ):
        share = _named_share(evidence.profile, marker, what)
        if share is not None:
            lines.append(f"{what[0].upper()}{what[1:]}: {100 * share:.0f}% of the process.")
    return tuple(lines)


def _bare_walk(root: Path) -> int:
    """``os.scandir`` and ``lstat`` of every entry, skipping the ignored folders."""
    skip = {".git", ".snapline", "node_modules", "build", "dist", "__pycache__", "generated"}
    stack, count = [str(root)], 0
    while stack:
        for entry in os.scandir(stack.pop()):
            entry.stat(follow_symlinks=False)
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in skip:
                    stack.append(entry.path)
            else:
                count += 1
    return count


def _named_share(profile: dict[str, Any] | None, marker: str, what: str) -> float | None:
    """The share of the run of the function named in ``what`` (in backquotes) in ``marker``."""
    name = what.split("`")[1] if "`" in what else ""
    if not profile or not profile["total"]:
        return None
    times = [
        row["cumtime"]
        for row in profile["top"]
        if marker in row["function"] and f"({name})" in row["function"]
    ]
    return max(times) / profile["total"] if times else None


# -- 7: rollback -------------------------------------------------------------------------------


def row_rollback(bench: Bench, long: WorkerClient) -> list[RowResult]:
    """Row 7: ``snapline rollback --to N`` across 1,000 snapshots vs ``git checkout REV -- .``.

    The library call (``ws.rollback`` in the long-lived worker) is measured first, as an
    "also measured" line; then the command, a whole process, alternately with git.
    """
    import snapline

    title = (
        f"`snapline rollback --to N` across {min(ROLLBACK_SPAN, bench.config.history):,} "
        "snapshots touching 100 files, whole process"
    )
    if not hasattr(snapline.Workspace, "rollback"):
        return [
            RowResult(
                number="7",
                title=title,
                goal=f"≤ {ROLLBACK_GOAL:g}",
                skipped="not measured: rollback not built yet",
                notes=[
                    "`Workspace.rollback` does not exist in this checkout; the row's code "
                    "(benchmarks/cases.py, `row_rollback`) runs as soon as it does."
                ],
            )
        ]
    repo = bench.tree("git").root
    root = bench.tree("long").root
    span = min(ROLLBACK_SPAN, bench.config.history)
    tip = long.call("latest")["latest"]
    back = tip - span
    rev = bench.git(repo, "rev-parse", f"HEAD~{span}").stdout.strip()
    files: list[int] = []

    def library(index: int) -> Sample:
        reply = long.call("rollback", to=back if index % 2 == 0 else tip)
        files.append(int(reply.get("changed", reply.get("files")) or 0))
        return _from_reply(reply)

    def cli(index: int) -> Sample:
        argv = [str(bench.snapline_bin), "rollback", "--to", str(back if index % 2 == 0 else tip)]
        run = run_process(argv, cwd=root, env=bench.cli_env, measure_rss=bench.warming(index))
        return Sample(run.check("snapline rollback").seconds, run.peak_rss)

    def git(index: int) -> Sample:
        target = rev if index % 2 == 0 else "HEAD"
        commands = [["checkout", target, "--", "."]]
        return bench.git_sample(repo, commands, False, rss=bench.warming(index))

    rounds = bench.rounds(bench.config.repeats)
    odd = (rounds["warmup"] + rounds["repeats"]) % 2 == 1
    bench.log("row 7: rollback, library")
    in_library = alternate([("library", library)], **rounds)
    if odd:
        long.call("rollback", to=tip)
    bench.log("row 7: rollback, whole process vs git")
    # The commands write snapshots the worker did not: it reopens the workspace after.
    long.call("close")
    try:
        series = alternate([("cli", cli), ("git", git)], **rounds)
        if odd:
            cli(1)
            bench.git(repo, "checkout", "HEAD", "--", ".")
    finally:
        long.call("open", root=str(root))
    row = _ratio_row(
        "7",
        title,
        ROLLBACK_GOAL,
        _figure(
            f"`snapline rollback --to {back}` and back (`--to {tip}`), alternately (whole process)",
            series["cli"],
        ),
        _figure("`git checkout REV -- .` and back (`HEAD`)", series["git"]),
        extra=[
            _figure(
                "library `ws.rollback` of the same, long-lived Workspace (no process start)",
                in_library["library"],
            )
        ],
        notes=[
            f"Files each rollback changed: {', '.join(map(str, sorted(set(files))))}; the "
            f"workspace has {bench.config.files:,} files. Every rollback is itself recorded "
            "as a new snapshot.",
            "snapline journals the rollback and fsyncs what it writes; git checkout writes "
            "files without fsync.",
        ],
    )
    if not row.met:
        argv = [str(bench.snapline_bin), "rollback", "--to", str(back)]
        long.call("close")
        try:
            evidence = cli_profile(bench, root, argv, edit=False)
            run_process(
                [str(bench.snapline_bin), "rollback", "--to", str(tip)],
                cwd=root,
                env=bench.cli_env,
            ).check("snapline rollback")
        finally:
            long.call("open", root=str(root))
        lines = []
        detect = share_of(evidence.profile, "snapshots/detect.py:")
        if detect:
            lines.append(
                f"Checking the whole workspace for outside changes (`detect`, a walk of all "
                f"{bench.config.files:,} files) takes {100 * detect:.0f}% of the rollback; "
                "the files it restores are 100."
            )
        row.evidence.append(dataclasses.replace(evidence, lines=tuple(lines)))
    return [row]


# -- 8: stored bytes ---------------------------------------------------------------------------


def row_storage(bench: Bench) -> list[RowResult]:
    """Row 8: bytes stored for 1,000 one-line edits of a 10k-line file vs git after gc."""
    edits = 1_000
    text = source_text(10_000, seed=bench.config.seed + 1)
    snap_root = bench.config.workdir / "storage-snapline"
    git_root = bench.config.workdir / "storage-git"
    for root in (snap_root, git_root):
        (root / "src").mkdir(parents=True)
        (root / "src" / "module.py").write_text(text, encoding="utf-8")
    rel = "src/module.py"
    bench.log(f"row 8: stored bytes for {edits:,} edits")
    with bench.worker() as worker:
        worker.call("init", root=str(snap_root))
        before = worker.call("store_size")["bytes"]
        history = worker.call("history", paths=[rel], count=edits)
        after = worker.call("store_size")["bytes"]
        vacuumed = worker.call("gc")["bytes"]
    bench.git(git_root, "init", "-q")
    bench.git(git_root, "add", "-A")
    bench.git(git_root, "commit", "-q", "-m", "baseline")
    bench.git(git_root, "gc", "--aggressive", "-q")
    git_before = _objects_size(git_root)
    _git_history(bench, git_root, history_versions(git_root, [rel], edits))
    gc_run = bench.git(git_root, "gc", "--aggressive", "-q")
    git_after = _objects_size(git_root)
    snap_bytes, git_bytes = after - before, git_after - git_before
    value = snap_bytes / git_bytes if git_bytes else float("inf")
    row = RowResult(
        number="8",
        title=f"stored bytes for {edits:,} one-line edits of a 10k-line file",
        goal="≤ 1",
        snapline=Figure(
            "growth of the local index `.snapline/index.db` after `wal_checkpoint(TRUNCATE)`",
            value=snap_bytes,
            unit="B",
        ),
        git=Figure(
            "growth of `.git/objects` after `git gc --aggressive`", value=git_bytes, unit="B"
        ),
        ratio=value,
        ratio_label="snapline ÷ git (bytes)",
        met=value <= 1.0,
        extra=[Figure("snapline after `ws.gc()` (VACUUM)", value=vacuumed - before, unit="B")],
        notes=[
            f"The file is {format_bytes(len(text))}; per edit: snapline "
            f"{snap_bytes / edits:.0f} B, git {git_bytes / edits:.0f} B (commit, trees and a "
            "delta in the pack).",
            f"Recording the {edits:,} edits with `ws.write_file` took {history['seconds']:.1f}s; "
            f"`git gc --aggressive` took {gc_run.seconds:.1f}s.",
        ],
    )
    if not row.met:
        row.evidence.append(_store_breakdown(snap_root, edits))
    return [row]


def _store_breakdown(root: Path, edits: int) -> Evidence:
    db = sqlite3.connect(f"file:{root / '.snapline' / 'index.db'}?mode=ro", uri=True)
    try:
        deltas, count = db.execute(
            "SELECT SUM(LENGTH(forward) + LENGTH(reverse)), COUNT(*) FROM changes "
            "WHERE snapshot > 0"
        ).fetchone()
        forward = db.execute(
            "SELECT SUM(LENGTH(forward)) FROM changes WHERE snapshot > 0"
        ).fetchone()[0]
        blobs = db.execute("SELECT COUNT(*), SUM(LENGTH(data)) FROM blobs").fetchone()
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        free = db.execute("PRAGMA freelist_count").fetchone()[0]
        tables = _table_sizes(db)
    finally:
        db.close()
    lines = [
        f"{count:,} change rows for {edits:,} edits: forward + reverse deltas take "
        f"{format_bytes(deltas or 0)} ({(deltas or 0) / edits:.0f} B per edit, forward alone "
        f"{(forward or 0) / edits:.0f} B).",
        f"{blobs[0]} blobs, {format_bytes(blobs[1] or 0)}; the file has {pages:,} pages of "
        f"{page_size} B ({free} free).",
    ]
    if tables:
        lines.append(
            "Bytes per table and index (SQLite dbstat): "
            + ", ".join(f"{name} {format_bytes(size)}" for name, size in tables)
        )
    lines.append(
        "Everything that is not delta bytes is per-snapshot bookkeeping: the snapshot row "
        "(id, parent id, time, chain hash, JSON fields), the change row with two 71-byte "
        "`sha256:` hashes, the path, and the indexes on `changes` and `snapshots`."
    )
    return Evidence("Where the bytes go", lines=tuple(lines))


def _table_sizes(db: sqlite3.Connection) -> list[tuple[str, int]]:
    try:
        rows = db.execute(
            "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
        ).fetchall()
    except sqlite3.DatabaseError:
        return []  # this SQLite was built without the dbstat table
    return [(str(name), int(size)) for name, size in rows]


# -- 9: a large file with 10% of its lines changed -------------------------------------------


def row_scattered(bench: Bench) -> list[RowResult]:
    """Row 9: record a 100k-line file with 10% of lines changed at random positions."""
    root = bench.config.workdir / "scattered"
    rel = "src/large_module.py"
    (root / "src").mkdir(parents=True)
    (root / rel).write_text(source_text(100_000, seed=bench.config.seed + 2), encoding="utf-8")
    size = (root / rel).stat().st_size
    bench.log("row 9: 100k-line file, 10% of lines changed")
    samples: list[Sample] = []
    with bench.worker() as worker:
        worker.call("init", root=str(root))
        for index in range(bench.config.warmup + bench.config.slow_repeats):
            path = root / rel
            path.write_text(scattered_edit(path.read_text(encoding="utf-8"), 0.1, seed=index))
            before = worker.call("store_size")["bytes"]
            reply = worker.call("record", paths=[rel])
            stored = worker.call("store_size")["bytes"] - before
            if index >= bench.config.warmup:
                samples.append(_from_reply(reply, stored=stored))
        series = Series("record", tuple(samples))
        storages = sorted(set(_flat(series.infos("storage"))))
        stored = summarize(series.infos("stored"))
        seconds = series.stats
        whole = [s for s in storages if s != "delta"]
        met = seconds.median <= 1.5 and stored.median <= 0.4 * size and not whole
        row = RowResult(
            number="9",
            title="record of a 100k-line file with 10% of lines changed (scattered)",
            goal="≤ 1.5 s, stored ≤ 0.4x file, a real delta",
            snapline=_figure("`ws.record([F])`, long-lived Workspace", series),
            met=met,
            extra=[Figure("stored bytes per record (index.db growth)", stats=stored, unit="B")],
            notes=[
                f"File: {format_bytes(size)}, 100,000 lines; each run replaces a new 10% of "
                "the lines at random positions.",
                f"Stored bytes ÷ file size: {stored.median / size:.2f} (goal ≤ 0.4).",
                f"Storage kind of the snapshots: {', '.join(storages)}"
                + (" — the change was stored as a whole file, not a delta" if whole else "."),
            ],
        )
        if not met:
            path = root / rel
            path.write_text(scattered_edit(path.read_text(encoding="utf-8"), 0.1, seed=999))
            reply = worker.call("record", paths=[rel], profile=True)
            lines = [
                f"That record took {format_seconds(reply['seconds'])} under the profiler "
                f"and was stored as {', '.join(reply['storage'])}."
            ]
            bisect = share_of(reply.get("profile"), "(diff_bisect)")
            if bisect:
                lines.append(
                    f"diff-match-patch's `diff_bisect` (pure-Python Myers, O(N·D) for N lines "
                    f"and D differences) takes {100 * bisect:.0f}% of it: with about 10,000 "
                    "scattered changes it runs into the diff deadline, and the version is "
                    "stored whole."
                )
            row.evidence.append(_profile_evidence("cProfile of one record", reply, *lines))
    return [row]


# -- 9b: a 1,200-line change in many blocks ------------------------------------------------


def row_blocks(bench: Bench) -> list[RowResult]:
    """Row 9b: library record of a 1,200-line change in scattered blocks of a 3,000-line file."""
    root = bench.config.workdir / "blocks"
    rel = "src/refactored_module.py"
    (root / "src").mkdir(parents=True)
    path = root / rel
    path.write_text(source_text(BLOCKS_LINES, seed=bench.config.seed + 4), encoding="utf-8")
    bench.log(f"row 9b: {BLOCKS_CHANGED:,}-line changes of a {BLOCKS_LINES:,}-line file")
    samples: list[Sample] = []
    shapes: list[tuple[int, int]] = []
    with bench.worker() as worker:
        worker.call("init", root=str(root))
        rounds = bench.config.warmup + bench.config.quick_repeats
        for index in range(rounds):
            before = path.read_text(encoding="utf-8")
            after = block_edit(before, BLOCKS_CHANGED, seed=index)
            path.write_text(after, encoding="utf-8")
            reply = worker.call("record", paths=[rel])
            if index == rounds - 1:
                shapes.append(_changed_lines(before, after))
            if index >= bench.config.warmup:
                samples.append(_from_reply(reply))
        series = Series("record", tuple(samples))
        storages = sorted(set(_flat(series.infos("storage"))))
        removed, added = shapes[0]
        figure = _figure("`ws.record([F])`, long-lived Workspace", series)
        assert figure.stats is not None
        row = RowResult(
            number="9b",
            title=f"library record of a {BLOCKS_CHANGED:,}-line change (scattered blocks) "
            f"of a {BLOCKS_LINES:,}-line file",
            goal=f"≤ {BLOCKS_GOAL * 1000:.0f} ms median",
            snapline=figure,
            met=figure.stats.median <= BLOCKS_GOAL,
            notes=[
                f"Each run changes {BLOCKS_CHANGED:,} lines of the file's current version in "
                "blocks of 1 to 12 lines at random positions (most replaced, about one in "
                "eight deleted, one in eight followed by new lines), the shape of a large "
                f"refactoring commit; the last run's diff removed {removed:,} lines and added "
                f"{added:,}.",
                f"Stored as: {', '.join(storages)}.",
            ],
        )
        if not row.met:
            path.write_text(block_edit(path.read_text(encoding="utf-8"), BLOCKS_CHANGED, seed=999))
            reply = worker.call("record", paths=[rel], profile=True)
            row.evidence.append(_profile_evidence("cProfile of one record", reply))
    return [row]


def _changed_lines(before: str, after: str) -> tuple[int, int]:
    """Lines removed and added by the change from ``before`` to ``after`` (difflib)."""
    import difflib

    removed = added = 0
    matcher = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"), False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return removed, added


# -- 10b: a 200 MB file ------------------------------------------------------------------------


def row_large_file(bench: Bench) -> list[RowResult]:
    """Row 10b: peak memory above idle while recording a change to a 200 MiB file."""
    root = bench.config.workdir / "large"
    rel = "data/huge.log"
    (root / "data").mkdir(parents=True)
    block = source_text(20_000, seed=bench.config.seed + 3).encode()
    with open(root / rel, "wb") as out:
        written = 0
        number = 0
        while written < 200 * MiB:
            chunk = f"# block {number}\n".encode() + block
            chunk = chunk[: 200 * MiB - written]
            out.write(chunk)
            written += len(chunk)
            number += 1
    bench.log("row 10b: record of a 200 MiB file")
    results = []
    variants: list[tuple[str, int | None]] = [("default limits", None)]
    if bench.config.full:
        variants.append(("large-file limit raised to 512 MiB", 512 * MiB))
    for label, limit in variants:
        shutil.rmtree(root / ".snapline", ignore_errors=True)
        init_run, init_replies = bench.once(
            [{"op": "init", "root": str(root), "large_file_limit": limit}]
        )
        samples = []
        for index in range(bench.config.warmup + 2):
            edit = bench.next_index("large")
            with open(root / rel, "r+b") as handle:
                handle.seek(edit * 37 * MiB % (200 * MiB))
                handle.write(f"changed {edit} ".encode())
            _, replies = bench.once(
                [{"op": "open", "root": str(root)}, {"op": "record", "paths": [rel]}]
            )
            reply = replies[1]
            above = reply["peak_rss"] - reply["idle_rss"]
            if index >= bench.config.warmup:
                samples.append(
                    Sample(reply["seconds"], reply["peak_rss"], {**reply, "above": above})
                )
        series = Series("large", tuple(samples))
        above = max(series.infos("above"))
        storages = sorted(set(_flat(series.infos("storage"))))
        row = RowResult(
            number="10b" if limit is None else "10c",
            title=f"peak memory, record of a 200 MiB file ({label})",
            goal="≤ 64 MiB above idle" if limit is None else "— (information)",
            snapline=Figure(
                "peak RSS above the idle process during `ws.record([F])`", value=above, unit="B"
            ),
            met=above <= 64 * MiB if limit is None else None,
            extra=[_figure("time of that record", series)],
            notes=[
                f"Stored as: {', '.join(storages)}"
                + (
                    " (above the 64 MiB large-file limit: hashed in a stream, content not kept)."
                    if storages == ["hash-only"]
                    else "."
                ),
                f"Idle process (after imports and opening the store): "
                f"{format_bytes(min(series.infos('idle_rss')))}; init of this workspace took "
                f"{format_seconds(init_run.seconds)} and peaked at "
                f"{format_bytes(init_replies[0]['process_peak'])}.",
            ],
        )
        if limit is None and not row.met:
            _, replies = bench.once(
                [{"op": "open", "root": str(root)}, {"op": "record", "paths": [rel], "trace": True}]
            )
            row.evidence.append(_allocation_evidence(replies[1]))
        results.append(row)
    return results


# -- everything ------------------------------------------------------------------------------


Row = Callable[[], list[RowResult]]
ORDER = (
    "1",
    "2a",
    "2b",
    "3a",
    "3b",
    "4",
    "5",
    "5b",
    "6a",
    "6b",
    "6c",
    "6d",
    "7",
    "8",
    "9",
    "9b",
    "10a",
    "10b",
    "10c",
    "11",
    "12",
    "13",
    "15",
    *GROWTH_ROWS,
    *WARM_ROWS,
    *ONE_PATH_ROWS,
    *GIT_LAYER_ROWS,
    *REFS_ROWS,
    *BLAME_ROWS,
)
"""Row numbers in the order of the issue's table (11: the review page, issue 17; 12: the
Claude Code hook round trip, issue 15; 13: an MCP write_file at the client, issue 15;
15: rebuilding the local index,
issue 13; 5b, 6d and 9b: issue 16; G1-G6: growth with the history, issue 30;
W1-W7: the warm server and the cold path, issue 29, benchmarks/warm.py; R1-R3: the git
layer of the history on refs, issue 37, benchmarks/git_layer.py; R4-R10: the history on
refs as a team uses it, issue 37 point 9 and issue 39's numbers, benchmarks/on_refs.py;
B1: blame of the whole long-history workspace against git blame, issue 38,
benchmarks/blame.py). The peers'
rows P1-P5 run only with ``--peers``."""


def run_all(
    config: Config, log: Callable[[str], None], only: set[str] | None = None
) -> list[RowResult]:
    """Run every row (or those whose number is in ``only``) and return them in order.

    A row that fails is reported as failed with its error; the others still run.
    """
    bench = Bench(config, log)
    results: list[RowResult] = []

    def wanted(numbers: Sequence[str]) -> bool:
        return only is None or bool(only.intersection(numbers))

    def attempt(numbers: Sequence[str], title: str, row: Row) -> None:
        if not wanted(numbers):
            return
        try:
            results.extend(r for r in row() if only is None or r.number in only)
        except Exception as error:  # one broken row must not hide the others
            log(f"row {', '.join(numbers)} failed: {error}")
            results.extend(_failed(number, title, error) for number in numbers)

    attempt(("1", "10a"), "init", lambda: row_init(bench))
    library = ("2a", "2b", "3a", "3b", "6a", "6b", "6c", "6d", "7", "W3", "W4")
    if wanted(library):
        with bench.worker() as main, bench.worker() as long:
            try:
                prepare_histories(bench, main, long)
            except Exception as error:
                log(f"preparing the histories failed: {error}")
                results.extend(_failed(n, "library rows", error) for n in library if wanted([n]))
            else:
                attempt(("7",), "rollback", lambda: row_rollback(bench, long))
                span = min(ROLLBACK_SPAN, bench.config.history)
                attempt(("W3", "W4"), "warm", lambda: row_warm_history(bench, long, span))
                attempt(("3a", "3b"), "history length", lambda: row_history(bench, main, long))
                attempt(("2a", "2b"), "one-line edit", lambda: row_edit(bench, main))
                attempt(
                    ("6a", "6b", "6c", "6d"), "nothing changed", lambda: row_nochange(bench, main)
                )
    attempt(("4",), "CLI record", lambda: row_cli_record(bench))
    attempt(("5", "5b"), "--help and --version", lambda: row_help(bench))
    attempt(("8",), "stored bytes", lambda: row_storage(bench))
    attempt(("9",), "10% of a large file", lambda: row_scattered(bench))
    attempt(("9b",), "1,200-line change", lambda: row_blocks(bench))
    attempt(("10b", "10c"), "200 MiB file", lambda: row_large_file(bench))
    attempt(("11",), "review page", lambda: row_report_page(bench))
    attempt(("12",), "Claude Code hook", lambda: row_hook(bench))
    attempt(("13",), "MCP write_file", lambda: row_mcp(bench))
    attempt(("15",), "index rebuild", lambda: row_index_rebuild(bench))
    attempt(GROWTH_ROWS, "growth with the history", lambda: row_growth(bench, only))
    attempt(("W1", "W2", "W5", "W6", "W7"), "warm and cold", lambda: row_warm_edits(bench))
    attempt(("W8", "W9"), "warm checks", lambda: row_warm_checks(bench))
    attempt(ONE_PATH_ROWS, "one path per command", lambda: row_one_path(bench))
    attempt(GIT_LAYER_ROWS, "the git layer", lambda: row_git_layer(bench))
    attempt(REFS_ROWS, "the history on refs", lambda: row_on_refs(bench, only))
    attempt(BLAME_ROWS, "blame", lambda: row_blame(bench))
    return sorted(results, key=lambda r: ORDER.index(r.number) if r.number in ORDER else 99)


def run_peers(
    config: Config, log: Callable[[str], None], venv: Path
) -> tuple[list[RowResult], str]:
    """Rows P1-P5 alone (``make bench-peers``): the results and the peers' versions.

    A failure is reported as failed rows, as in :func:`run_all`.
    """
    bench = Bench(config, log)
    try:
        results = row_peers(bench, venv)
    except Exception as error:
        log(f"rows {', '.join(PEER_ROWS)} failed: {error}")
        results = [_failed(number, "peers", error) for number in PEER_ROWS]
    try:
        results += row_peer_rollback(bench, venv)
    except Exception as error:
        log(f"rows {', '.join(ROLLBACK_ROWS)} failed: {error}")
        results += [_failed(number, "peers' rollback", error) for number in ROLLBACK_ROWS]
    return results, str(bench.facts.get("peers", "peers not installed"))


def _failed(number: str, title: str, error: Exception) -> RowResult:
    detail = f"{type(error).__name__}: {error}".splitlines()[0][:300]
    return RowResult(number=number, title=title, goal="—", skipped=f"failed: {detail}")


def method_notes(config: Config) -> list[str]:
    """How the figures were taken, for the report."""
    return [
        f"Synthetic workspaces (seed {config.seed}): {config.files:,} tracked files of "
        "source-like text (most 1-20 KB, about 6% 20-120 KB, 2% binary) in nested "
        "directories, a root and a nested `.gitignore`, and ignored node_modules/, build/, "
        "__pycache__/ and *.pyc files. The same seed gives the same tree; separate "
        "identical trees are used for snapline and git so their edits never meet. A tree "
        "is initialised only once its files are older than the 2 s window in which stat "
        "caches (snapline's, git's index) distrust a file, as in a real workspace.",
        f"Each timed comparison runs the contenders alternately (A B A B …): "
        f"{config.warmup} warm-up round, then {config.repeats} rounds "
        f"({config.quick_repeats} for the library edits of a few milliseconds, "
        f"{config.slow_repeats} for init, `snapline verify` and the fresh clone, "
        f"{2 * config.slow_repeats} for the library's whole-workspace checks); figures are "
        "median (min - max) and ratios are ratios of medians.",
        "Library figures are timed inside a worker process around the call alone, with "
        "one `Workspace` kept open as an agent would; CLI and git figures are whole "
        "processes timed from outside. Peak RSS of a process is taken by GNU `time` "
        "(`%M`) in the warm-up round, which is not timed; for a library call it is the "
        "worker's `VmHWM` after resetting it (`/proc/self/clear_refs`) just before the call.",
        "git runs with no global or system configuration and `-c "
        + " -c ".join(GIT_FIXED[1::2])
        + "`. By default git does not fsync loose objects, the index or refs; snapline "
        "commits with `synchronous=FULL` and fsyncs what it writes into the workspace. "
        "Where git writes, a second git column adds `core.fsync=all` with "
        "`core.fsyncMethod=batch`; the goals are judged against default git.",
        "snapline's modules are byte-compiled before the run, as installing a wheel does, "
        "so no CLI process compiles its own code.",
        "CLI processes (and the `python -c pass` they are held to) run from a virtual "
        "environment of the run's own, laid out as an install: a `.pth` file names the "
        "checkout and the development environment's site-packages, and `snapline` is "
        "pip's launcher. The development environment's editable install imports "
        "setuptools' finder in every Python it starts (about 25 ms), which an installed "
        "snapline does not (benchmarks/install.py).",
        "Rows that miss their goal are run once more under cProfile (or tracemalloc for "
        "memory) and the result is under *What limits it*.",
        f"Python {sys.version.split()[0]} at {shown_path(config.python)}.",
    ] + (
        []
        if config.full
        else [
            f"Quick mode runs at {config.files:,} files, where the goals are set for 100,000 "
            "(the full-run summary below has those figures). Fixed costs of a process or an "
            "operation (interpreter start and imports, an fsync for every file written) "
            "weigh more against git's at this scale."
        ]
    )
