"""Row 15: rebuilding the local index of a 1,000-snapshot history from its refs (issue 13).

The workspace is outside git, so ``init`` puts its history on the refs of a private
repository, ``.snapline/repo`` (the default layout since issue 37; it was the in-tree
ledger). The local index beside it (``.snapline/index.db``: lookups, known state, stat
cache) is a cache: a deleted index makes the next command rebuild it from the refs,
reading every snapshot's record back from git's objects. The row deletes
``.snapline/index.db*`` before each run and times the next command as a whole process,
the library's ``Workspace.open`` alone, and ``snapline verify``; git's counterpart
rebuilds its own index from ``HEAD`` after ``rm .git/index`` with ``git reset``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.report import Evidence, Figure, RowResult, share_of
from benchmarks.timing import ProcessRun, Sample, alternate, ratio, run_process
from benchmarks.workspace_gen import generate, history_versions

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["REBUILD_GOAL", "REBUILD_SNAPSHOTS", "remove_index", "row_index_rebuild"]

REBUILD_SNAPSHOTS = 1_000
REBUILD_GOAL = 2.0
"""The goal: the next command after the index is deleted takes at most 2 s."""


def remove_index(root: Path) -> int:
    """Delete ``root/.snapline/index.db`` and its ``-wal``/``-shm``; returns how many files."""
    removed = 0
    for path in (root / ".snapline").glob("index.db*"):
        path.unlink()
        removed += 1
    return removed


def row_index_rebuild(bench: Bench, snapshots: int = REBUILD_SNAPSHOTS) -> list[RowResult]:
    """Row 15: the next command after ``rm .snapline/index.db*`` (goal ≤ 2 s) vs git's."""
    files = bench.config.files
    root = bench.config.workdir / "rebuild"
    repo = bench.config.workdir / "rebuild-git"
    layout = generate(root, files, seed=bench.config.seed)
    generate(repo, files, seed=bench.config.seed)
    bench.log(f"row 15: {files:,}-file workspace, recording {snapshots:,} snapshots")
    with bench.worker() as worker:
        worker.call("init", root=str(root))
        history = worker.call("history", paths=list(layout.history_files), count=snapshots)
    latest = history["latest"]
    final = dict(history_versions(repo, list(layout.history_files), snapshots))
    for path, data in final.items():
        (repo / path).write_bytes(data)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        bench.git(repo, *command)
    snapline = _snapline_argv(bench, root)

    def cli(args: list[str], *, rebuild: bool) -> Sample:
        if rebuild and not remove_index(root):
            raise RuntimeError(f"{root}/.snapline has no index.db to delete")
        run = run_process([*snapline, *args], env=bench.cli_env)
        _checked(run, args[0])
        return Sample(run.seconds)

    def library(_: int) -> Sample:
        remove_index(root)
        run, replies = bench.once([{"op": "open", "root": str(root)}])
        if replies[0]["latest"] != latest:
            raise RuntimeError(
                f"the rebuilt index has snapshot {replies[0]['latest']}, not {latest}"
            )
        return Sample(replies[0]["seconds"], None, {"process": run.seconds})

    def git(index: int) -> Sample:
        (repo / ".git" / "index").unlink()
        return bench.git_sample(repo, [["reset", "-q"]], False, rss=bench.warming(index))

    bench.log("row 15: rebuilding the index, alternating with git reset")
    series = alternate(
        [
            ("log", lambda _: cli(["log", "-n", "1"], rebuild=True)),
            ("open", library),
            ("verify", lambda _: cli(["verify"], rebuild=True)),
            ("warm", lambda _: cli(["verify"], rebuild=False)),
            ("git", git),
        ],
        **bench.rounds(bench.config.repeats),
    )
    stats = series["log"].stats
    processes = [float(p) for p in series["open"].infos("process")]
    row = RowResult(
        number="15",
        title=f"rebuild the local index of {latest:,} snapshots, {files:,}-file workspace",
        goal=f"≤ {REBUILD_GOAL:g} s",
        snapline=Figure(
            "`rm .snapline/index.db*`, then `snapline log -n 1` (whole process, rebuilds)",
            stats=stats,
        ),
        git=Figure(
            "`rm .git/index`, then `git reset -q`",
            stats=series["git"].stats,
            peak_rss=series["git"].peak_rss,
        ),
        ratio=ratio(stats, series["git"].stats),
        met=stats.median <= REBUILD_GOAL,
        extra=[
            Figure("library `Workspace.open` alone after the deletion", stats=series["open"].stats),
            Figure(
                "`snapline verify` after the deletion (whole process)", stats=series["verify"].stats
            ),
            Figure(
                "`snapline verify` with the index present (whole process)",
                stats=series["warm"].stats,
            ),
        ],
        notes=[
            f"History: {snapshots:,} one-line edits (`ws.write_file`) cycling through "
            f"{len(layout.history_files)} small files of a {files:,}-file generated tree, so "
            f"the private repository's line holds {latest + 1:,} snapshots (the baseline's "
            "record lists every file).",
            "A rebuild reads every snapshot's record back from the private repository "
            "(`.snapline/repo`, the history on refs outside git) and builds the index's "
            "rows. `git reset` after `rm .git/index` reads HEAD's tree and hashes every "
            "file to refresh the index.",
            "The open alone is timed inside a fresh worker process; the worker process "
            f"itself (interpreter, imports, open) took {min(processes):.2f} - "
            f"{max(processes):.2f} s. `snapline verify` adds the whole check of the "
            "history and the workspace (row 6c) to the rebuild.",
        ],
    )
    if not row.met:
        remove_index(root)
        _, replies = bench.once([{"op": "open", "root": str(root), "profile": True}])
        profile = replies[0].get("profile")
        row.evidence.append(
            Evidence(
                "cProfile of `Workspace.open` rebuilding the index",
                profile,
                lines=_shares(profile, latest + 1, files),
            )
        )
    return [row]


def _shares(profile: dict[str, Any] | None, snapshots: int, files: int) -> tuple[str, ...]:
    """What the profiled rebuild spent its time on, in words."""
    parts = [
        ("(read_snapshot)", f"Reading and parsing the {snapshots:,} snapshot files"),
        (
            "(_import_baseline)",
            "Taking the baseline's content from the workspace (read and hash "
            f"its {files:,} files into the index)",
        ),
    ]
    lines = []
    for marker, what in parts:
        share = share_of(profile, marker)
        if share is not None:
            lines.append(f"{what}: {100 * share:.0f}% of the open.")
    return tuple(lines)


def _snapline_argv(bench: Bench, root: Path) -> list[str]:
    if bench.snapline_bin.exists():
        return [str(bench.snapline_bin), "--root", str(root)]
    return [bench.cli_python, "-m", "snapline", "--root", str(root)]


def _checked(run: ProcessRun, command: str) -> None:
    if run.returncode != 0:
        raise RuntimeError(
            f"snapline {command} exited {run.returncode} after the index was deleted:\n"
            f"{run.stderr[-2000:]}"
        )
