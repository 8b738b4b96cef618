"""Rows G1-G6 (issue 30): costs that must not grow with the history, and CI's first check.

- G1, G2: a library record, and a warm ``snapline verify`` with nothing changed, in a
  workspace with 10,000 snapshots against the same workspace with 100 (goal ≤ 1.2).
- G3: the first check in a fresh ``git clone`` (``snapline verify``, after ``snapline
  fetch`` brought the history's refs), against a Python process that reads and
  SHA-256-hashes every tracked file of the same clone once (goal ≤ 1.5): the speed of
  reading the tree once.
- G4a, G4b: ``snapline verify --full`` against ``git fsck`` on the same history, at 1,000
  and at 10,000 snapshots (goal ≤ 2).
- G5: the peak RSS of ``snapline init`` and of the first ``snapline verify`` after it
  (goal ≤ 100 MiB each, at 100,000 files; GNU ``time`` reports the child's own
  ``getrusage`` maximum, see :func:`benchmarks.timing.run_process`).
- G6: the bytes snapline adds after init (the objects its refs, ``refs/snapline/*``,
  reach beyond the tree's commit, as one pack, and the local index ``.git/snapline/``)
  against git's ``.git`` after ``git add -A && git commit`` of the same tree (goal ≤ 1.2).

The histories (G1, G2, G4) are one-line edits cycling through 100 small files of a
1,000-file tree, recorded with ``ws.write_file``; git gets the same edits as commits. The
tree of G3, G5 and G6 has the run's ``--files`` (10,000 quick, 100,000 full), committed in
git before ``snapline init`` puts its history on the repository's refs (the default
layout, issue 37). Every comparison alternates its contenders in one run and reports
medians.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.report import Figure, RowResult, format_bytes
from benchmarks.timing import Sample, alternate, ratio, run_process
from benchmarks.workspace_gen import generate, history_versions

if TYPE_CHECKING:
    from benchmarks.cases import Bench
    from benchmarks.worker import WorkerClient

__all__ = [
    "GROWTH_ROWS",
    "HASH_WALK",
    "Sizes",
    "copy_clone",
    "directory_bytes",
    "refs_pack_bytes",
    "row_growth",
]

GROWTH_ROWS = ("G1", "G2", "G3", "G4a", "G4b", "G5", "G6")
GROWTH_GOAL = 1.2
CLONE_WALK_GOAL = 1.5
FSCK_GOAL = 2.0
RSS_GOAL = 100 << 20
SIZE_GOAL = 1.2
RACY_WINDOW = 2.5
"""Seconds after which a generated tree's files are older than any stat cache's check."""

HASH_WALK = """\
import hashlib, sys
total = 0
with open(sys.argv[1], "rb") as listing:
    names = listing.read().split(b"\\0")
for name in names:
    if name:
        digest = hashlib.sha256()
        with open(name, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
                total += len(block)
print(total)
"""
"""The reference of G3: read every file named in a NUL-separated list and hash it."""


@dataclass(frozen=True)
class Sizes:
    """How large the growth rows' histories and trees are.

    Attributes:
        short: Snapshots in the short history (G1, G2).
        mid: Snapshots in the middle one (G4a).
        long: Snapshots in the long one (G1, G2, G4b).
        history_files: Files of the trees the histories are recorded in.
        tree_files: Files of the tree of G3, G5 and G6.
    """

    short: int = 100
    mid: int = 1_000
    long: int = 10_000
    history_files: int = 1_000
    tree_files: int = 10_000


def directory_bytes(path: Path) -> int:
    """The apparent size of every regular file under ``path`` (symlinks not followed)."""
    total = 0
    for directory, _, names in os.walk(path):
        for name in names:
            info = os.lstat(os.path.join(directory, name))
            total += info.st_size
    return total


def row_growth(
    bench: Bench, only: Collection[str] | None = None, sizes: Sizes | None = None
) -> list[RowResult]:
    """Rows G1-G6, or those of them in ``only``.

    ``sizes`` defaults to histories of 100, 1,000 and 10,000 snapshots and a tree of the
    run's ``--files``.
    """
    sizes = sizes or Sizes(tree_files=bench.config.files)
    wanted = set(GROWTH_ROWS if only is None else only)
    results: list[RowResult] = []
    if wanted & {"G1", "G2", "G4a", "G4b"}:
        results += _history_rows(bench, sizes)
    if wanted & {"G3", "G5", "G6"}:
        results += _tree_rows(bench, sizes, clone="G3" in wanted)
    return [row for row in results if row.number in wanted]


# -- G1, G2, G4: histories --------------------------------------------------------------


@dataclass
class _History:
    root: Path
    repo: Path
    latest: int
    worker: WorkerClient


def _make_history(bench: Bench, count: int, sizes: Sizes) -> _History:
    from benchmarks.cases import _git_history

    root = bench.config.workdir / f"growth-{count}"
    repo = bench.config.workdir / f"growth-{count}-git"
    layout = generate(root, sizes.history_files, seed=bench.config.seed)
    generate(repo, sizes.history_files, seed=bench.config.seed)
    time.sleep(RACY_WINDOW)
    worker = bench.worker()
    worker.call("init", root=str(root))
    started = time.perf_counter()
    reply = worker.call("history", paths=list(layout.history_files), count=count)
    bench.log(f"growth: {count:,} snapshots in {time.perf_counter() - started:.0f}s")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "baseline"]):
        bench.git(repo, *command)
    _git_history(bench, repo, history_versions(repo, list(layout.history_files), count))
    return _History(root, repo, reply["latest"], worker)


def _history_rows(bench: Bench, sizes: Sizes) -> list[RowResult]:
    histories: dict[int, _History] = {}
    try:
        for count in (sizes.short, sizes.mid, sizes.long):
            histories[count] = _make_history(bench, count, sizes)
        short, mid, long = (histories[c] for c in (sizes.short, sizes.mid, sizes.long))
        rows = [_record_row(bench, short, long), _warm_verify_row(bench, short, long)]
        rows += [_fsck_row(bench, "G4a", mid), _fsck_row(bench, "G4b", long)]
        return rows
    finally:
        for history in histories.values():
            history.worker.close()


def _record_row(bench: Bench, short: _History, long: _History) -> RowResult:
    path = _edited_file(long.root)

    def record(history: _History, tree: str) -> Callable[[int], Sample]:
        def run(_: int) -> Sample:
            reply = history.worker.call("disk_edit_record", path=path, index=bench.next_index(tree))
            return Sample(reply["seconds"])

        return run

    bench.log(f"row G1: library record, {long.latest:,} vs {short.latest:,} snapshots")
    series = alternate(
        [("long", record(long, "growth-long")), ("short", record(short, "growth-short"))],
        **bench.rounds(bench.config.quick_repeats),
    )
    return _growth_row(
        "G1",
        f"library `ws.record([F])` of a one-line edit, {long.latest:,} vs {short.latest:,} "
        "snapshots",
        Figure(f"`ws.record([F])` with {long.latest:,} snapshots", stats=series["long"].stats),
        Figure(f"`ws.record([F])` with {short.latest:,} snapshots", stats=series["short"].stats),
        "The same 1,000-file tree in both; one `Workspace` kept open in a worker process, "
        "the call alone timed.",
    )


def _warm_verify_row(bench: Bench, short: _History, long: _History) -> RowResult:
    argv = [str(bench.snapline_bin), "verify"]
    for history in (short, long):
        # The first verify checks the whole history and keeps its checkpoint.
        run_process(argv, cwd=history.root, env=bench.cli_env).check("snapline verify")

    def verify(history: _History) -> Callable[[int], Sample]:
        def run(_: int) -> Sample:
            result = run_process(argv, cwd=history.root, env=bench.cli_env)
            return Sample(result.check("snapline verify").seconds)

        return run

    bench.log("row G2: warm snapline verify, long vs short history")
    series = alternate(
        [("long", verify(long)), ("short", verify(short))], **bench.rounds(bench.config.repeats)
    )
    return _growth_row(
        "G2",
        f"warm `snapline verify`, nothing changed, {long.latest:,} vs {short.latest:,} snapshots",
        Figure(f"`snapline verify` with {long.latest:,} snapshots", stats=series["long"].stats),
        Figure(f"`snapline verify` with {short.latest:,} snapshots", stats=series["short"].stats),
        "Whole processes, after a first verify that kept its checkpoint in each workspace.",
    )


def _growth_row(number: str, title: str, long: Figure, short: Figure, note: str) -> RowResult:
    assert long.stats is not None and short.stats is not None
    value = ratio(long.stats, short.stats)
    return RowResult(
        number=number,
        title=title,
        goal=f"≤ {GROWTH_GOAL:g}x",
        snapline=long,
        git=None,
        ratio=value,
        ratio_label="long history ÷ short history (medians)",
        met=value <= GROWTH_GOAL,
        extra=[short],
        notes=[note],
    )


def _fsck_row(bench: Bench, number: str, history: _History) -> RowResult:
    argv = [str(bench.snapline_bin), "verify", "--full"]

    def snapline(index: int) -> Sample:
        rss = bench.warming(index)
        run = run_process(argv, cwd=history.root, env=bench.cli_env, measure_rss=rss)
        return Sample(run.check("snapline verify --full").seconds, run.peak_rss)

    def fsck(index: int) -> Sample:
        commands = [["fsck", "--no-progress"]]
        return bench.git_sample(history.repo, commands, False, rss=bench.warming(index))

    bench.log(f"row {number}: verify --full vs git fsck, {history.latest:,} snapshots")
    series = alternate(
        [("snapline", snapline), ("git", fsck)], **bench.rounds(bench.config.slow_repeats)
    )
    snap_stats, git_stats = series["snapline"].stats, series["git"].stats
    value = ratio(snap_stats, git_stats)
    return RowResult(
        number=number,
        title=f"`snapline verify --full` vs `git fsck`, {history.latest:,} snapshots",
        goal=f"≤ {FSCK_GOAL:g}",
        snapline=Figure(
            "`snapline verify --full` (whole process)",
            stats=snap_stats,
            peak_rss=series["snapline"].peak_rss,
        ),
        git=Figure(
            "`git fsck --no-progress` of the same history",
            stats=git_stats,
            peak_rss=series["git"].peak_rss,
        ),
        ratio=value,
        met=value <= FSCK_GOAL,
        notes=[
            "The same one-line edits, as snapshots and as git commits (fast-import), of a "
            "1,000-file tree; `--full` also compares the workspace with the latest snapshot.",
        ],
    )


def _edited_file(root: Path) -> str:
    # A small file the histories do not edit, so both workers edit the same text.
    for path in sorted((root / "src").rglob("*.md")):
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 8_000:
            return path.relative_to(root).as_posix()
    raise RuntimeError(f"{root}/src holds no small Markdown file to edit")


# -- G3, G5, G6: a tree of --files files -------------------------------------------------


def _tree_rows(bench: Bench, sizes: Sizes, *, clone: bool = True) -> list[RowResult]:
    files = sizes.tree_files
    root = bench.config.workdir / "growth-tree"
    twin = bench.config.workdir / "growth-tree-git"
    bench.log(f"rows G3, G5, G6: generating two {files:,}-file trees")
    generate(root, files, seed=bench.config.seed)
    generate(twin, files, seed=bench.config.seed)
    time.sleep(RACY_WINDOW)
    snapline = str(bench.snapline_bin)
    # The default layout: the tree committed in git, the history on its refs (G3 clones
    # it, G6 measures what the refs add).
    for tree in (root, twin):
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
            bench.git(tree, *command)
    init = run_process([snapline, "init"], cwd=root, env=bench.cli_env, measure_rss=True)
    init.check("snapline init")
    if (root / ".snapline").exists() or not (root / ".git" / "snapline").is_dir():
        raise RuntimeError(f"{root}: init did not choose the refs layout")
    first = run_process([snapline, "verify"], cwd=root, env=bench.cli_env, measure_rss=True)
    first.check("first snapline verify")
    pack, index = refs_pack_bytes(bench, root), directory_bytes(root / ".git" / "snapline")
    stored, git_bytes = pack + index, directory_bytes(twin / ".git")
    memory = RowResult(
        number="G5",
        title=f"peak memory of `snapline init` and the first `snapline verify`, {files:,} files",
        goal=f"≤ {format_bytes(RSS_GOAL)}",
        snapline=Figure("peak RSS of `snapline init`", value=init.peak_rss, unit="B"),
        git=None,
        ratio=None,
        met=init.peak_rss is not None
        and first.peak_rss is not None
        and max(init.peak_rss, first.peak_rss) <= RSS_GOAL,
        extra=[Figure("peak RSS of the first `snapline verify`", value=first.peak_rss, unit="B")],
        notes=[
            "Whole processes, measured by GNU `time` (the child's own `getrusage` maximum). "
            "The goal is set at 100,000 files.",
        ],
    )
    size_ratio = stored / git_bytes if git_bytes else float("inf")
    size = RowResult(
        number="G6",
        title=f"what `snapline init` adds (its refs' pack and `.git/snapline/`) vs `.git` "
        f"after `git add -A && git commit`, {files:,} files",
        goal=f"≤ {SIZE_GOAL:g}",
        snapline=Figure(
            "a pack of what `refs/snapline/*` add to the commit, and `.git/snapline/`",
            value=stored,
            unit="B",
        ),
        git=Figure("`.git/`", value=git_bytes, unit="B"),
        ratio=size_ratio,
        ratio_label="snapline ÷ git (bytes)",
        met=size_ratio <= SIZE_GOAL,
        extra=[
            Figure("the pack of `refs/snapline/*` less the commit", value=pack, unit="B"),
            Figure("`.git/snapline/` (the local index)", value=index, unit="B"),
        ],
        notes=[
            "The tree is committed before init, so the baseline's blobs are git's own (the "
            "history stores no copy of them): the refs add the snapshot's tree, its commit "
            "and its record. Those objects (reached from `refs/snapline/*`, not from "
            "`HEAD`: `git rev-list --objects`) are measured as one pack (`git "
            "pack-objects`); the index and `.git/` are apparent sizes of every file, "
            "after the first verify.",
        ],
    )
    return ([_clone_row(bench, root)] if clone else []) + [memory, size]


def refs_pack_bytes(bench: Bench, repo: Path) -> int:
    """Bytes of a pack of the objects ``refs/snapline/*`` reach in ``repo`` and ``HEAD`` not.

    A set difference of ``git rev-list --objects``, not ``--revs`` with ``^HEAD``: a
    baseline made before its commit was published has no parent, so git would not mark
    the blobs it shares with ``HEAD`` as already there.

    Args:
        bench: The run (git's environment).
        repo: A git work tree whose history is on its refs.

    Returns:
        The size of ``git pack-objects --stdout`` of those objects.
    """
    listed = bench.git(repo, "for-each-ref", "--format=%(refname)", "refs/snapline/").stdout
    refs = listed.split()
    if not refs:
        raise RuntimeError(f"{repo}: no refs under refs/snapline/")

    def objects(*revisions: str) -> set[str]:
        out = bench.git(repo, "rev-list", "--objects", *revisions).stdout
        return {line.split(" ", 1)[0] for line in out.splitlines() if line}

    added = sorted(objects(*refs) - objects("HEAD"))
    done = subprocess.run(
        ["git", "pack-objects", "--stdout", "-q"],
        cwd=repo,
        env=bench.git_env,
        input="".join(f"{oid}\n" for oid in added).encode(),
        capture_output=True,
        check=True,
    )
    return len(done.stdout)


def copy_clone(pristine: Path, target: Path) -> Path:
    """A copy of the clone ``pristine`` at ``target`` whose files are hard links to its own.

    The timed commands only read the files they share (snapline writes its own new
    files), so every copy starts as the clone did, at the cost of creating directories
    and links: a fresh clone per run without the seconds a real clone and its removal take.

    Args:
        pristine: The clone to copy.
        target: Where the copy goes (must not exist).

    Returns:
        ``target``.
    """
    shutil.copytree(pristine, target, symlinks=True, copy_function=os.link)
    return target


def _clone_row(bench: Bench, root: Path) -> RowResult:
    workdir = bench.config.workdir
    source = workdir / "growth-clone.git"
    shutil.rmtree(source, ignore_errors=True)
    # A mirror: the branch and the history's refs, as a remote holds them after a push.
    bench.git(workdir, "clone", "-q", "--mirror", str(root), str(source))
    pristine = workdir / "growth-clone"
    bench.git(workdir, "clone", "-q", "--shared", str(source), str(pristine))
    fetched = run_process(
        [str(bench.snapline_bin), "fetch", "origin"], cwd=pristine, env=bench.cli_env
    )
    fetched.check("snapline fetch in a fresh clone")
    tracked = [p for p in bench.git(pristine, "ls-files", "-z").stdout.split("\0") if p]
    listing = workdir / "growth-clone.list"
    listing.write_bytes(b"\0".join(p.encode() for p in tracked))
    os.sync()
    copies: list[Path] = []

    def fresh(name: str) -> Path:
        for old in copies:
            shutil.rmtree(old, ignore_errors=True)
        copies.clear()
        copies.append(workdir / name)
        return copy_clone(pristine, copies[-1])

    def snapline(index: int) -> Sample:
        clone = fresh(f"growth-clone-snapline-{index}")
        run = run_process(
            [str(bench.snapline_bin), "verify"],
            cwd=clone,
            env=bench.cli_env,
            measure_rss=bench.warming(index),
        )
        return Sample(run.check("snapline verify in a fresh clone").seconds, run.peak_rss)

    def walk(index: int) -> Sample:
        clone = fresh(f"growth-clone-walk-{index}")
        run = run_process(
            [sys.executable, "-c", HASH_WALK, str(listing)],
            cwd=clone,
            env=bench.cli_env,
            measure_rss=bench.warming(index),
        )
        return Sample(run.check("the hashing walk").seconds, run.peak_rss)

    bench.log("row G3: first snapline verify in a fresh clone vs a Python hashing walk")
    try:
        series = alternate(
            [("snapline", snapline), ("walk", walk)], **bench.rounds(bench.config.slow_repeats)
        )
    finally:
        for old in copies:
            shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(pristine, ignore_errors=True)
    snap_stats, walk_stats = series["snapline"].stats, series["walk"].stats
    value = ratio(snap_stats, walk_stats)
    return RowResult(
        number="G3",
        title=f"first `snapline verify` in a fresh clone (history fetched) vs reading it once, "
        f"{len(tracked):,} files",
        goal=f"≤ {CLONE_WALK_GOAL:g}",
        snapline=Figure(
            "`snapline verify` in a new `git clone` after `snapline fetch` (whole process)",
            stats=snap_stats,
            peak_rss=series["snapline"].peak_rss,
        ),
        git=Figure(
            "Python: read and SHA-256 every tracked file once (whole process)",
            stats=walk_stats,
            peak_rss=series["walk"].peak_rss,
        ),
        ratio=value,
        reference_name="python",
        ratio_label="snapline ÷ hashing walk (medians)",
        met=value <= CLONE_WALK_GOAL,
        notes=[
            f"The clone tracks {len(tracked):,} files, the code alone (the history is on "
            "its refs, brought by one `snapline fetch` before the copies); the walk reads "
            "each of them (`git ls-files`) in one thread. Each run gets its own copy of the "
            "clone, made of hard links outside the timing (`copy_clone`).",
        ],
    )
