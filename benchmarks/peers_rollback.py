"""Rows P4-P5: a rollback of 100 files against the peers' own (issue 29, goal 1).

``make bench-peers`` runs them after rows P1-P3, in the peers' environment that those
rows installed. Three identical generated trees, each a git repository with the tree
committed; in each, a baseline checkpoint, the same one-line edit of the same 100 small
files, and a second checkpoint. Then every contender goes back and forth between the two
checkpoints, each run a new process, timed alternately in one run:

- snapline: ``snapline rollback --to N``, served by the warm server (the goal is the
  warm figure), and the same command with no server (cold), on the same tree;
- stepback 0.2.0: ``stepback rewind ID --yes`` (restores the tree and keeps a redo state);
- rewind-ai 1.1.0: ``rewind jump INDEX --yes`` (restores the tree and first saves a
  safety checkpoint when the tree differs from the last one).

Each side also records what it restored: snapline the rollback as a snapshot, stepback
its redo stack, rewind-ai its safety checkpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.peers import IDENTITY, committed_trees, installed_peers, peer_run, versus
from benchmarks.report import Figure, RowResult
from benchmarks.timing import Sample, alternate, run_process

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["ROLLBACK_ROWS", "row_peer_rollback"]

ROLLBACK_ROWS = ("P4", "P5")
"""P4: rollback vs stepback's rewind; P5: rollback vs rewind-ai's jump."""

_FILES = 100
"""How many files each rollback restores."""
_STEPBACK_CHECKPOINT = (
    "import sys; from pathlib import Path; from stepback.engine import Engine; "
    "sys.exit(0 if Engine(Path.cwd()).checkpoint() is not None else 3)"
)


def row_peer_rollback(bench: Bench, venv: Path) -> list[RowResult]:
    """Rows P4-P5: ``snapline rollback --to N`` of 100 files against the peers' restores."""
    from benchmarks.warm import WarmServer

    peers = installed_peers(venv)
    peer_bin = venv / "bin"
    env = {**bench.git_env, **IDENTITY}
    names = ("rollback-snapline", "rollback-stepback", "rollback-rewind")
    snap_root, step_root, rewind_root = committed_trees(bench, names)
    files = bench.tree(names[0]).history_files[:_FILES]
    stepback = peers["stepback"].version is not None
    rewind = peers["rewind-ai"].version is not None

    def edit(root: Path) -> None:
        for index, rel in enumerate(files):
            bench.edit_on_disk(root, rel, index + 1)

    bench.log("rows P4/P5: two checkpoints of 100 edited files in each tree")
    _, (init,) = bench.once([{"op": "init", "root": str(snap_root)}])
    edit(snap_root)
    _, (_, recorded) = bench.once([{"op": "open", "root": str(snap_root)}, {"op": "record"}])
    targets: dict[Path, tuple[list[str], list[str]]] = {
        snap_root: (
            ["rollback", "--to", str(init["latest"])],
            ["rollback", "--to", str(recorded["number"])],
        )
    }
    checkpoint = [str(peer_bin / "python"), "-c", _STEPBACK_CHECKPOINT]
    if stepback:
        peer_run(checkpoint, step_root, env, "stepback")
        edit(step_root)
        peer_run(checkpoint, step_root, env, "stepback")
        # stepback numbers its checkpoints from 1.
        rewind_to = [str(peer_bin / "stepback"), "rewind"]
        targets[step_root] = ([*rewind_to, "1", "--yes"], [*rewind_to, "2", "--yes"])
    if rewind:
        snap = [str(peer_bin / "rewind"), "snap", "-m"]
        peer_run([*snap, "baseline"], rewind_root, env, "rewind")
        edit(rewind_root)
        peer_run([*snap, "edited"], rewind_root, env, "rewind")
        # rewind-ai numbers them from 0; its safety checkpoints come after, so 0 and 1 stay.
        jump = [str(peer_bin / "rewind"), "jump"]
        targets[rewind_root] = ([*jump, "0", "--yes"], [*jump, "1", "--yes"])
    at_edited = dict.fromkeys(targets, True)

    def back_and_forth(
        root: Path, head: list[str], run_env: dict[str, str]
    ) -> Callable[[int], Sample]:
        def sample(index: int) -> Sample:
            # Every run restores the other checkpoint of its tree: the same 100 files change.
            back, forth = targets[root]
            argv = [*head, *(back if at_edited[root] else forth)]
            run = run_process(argv, cwd=root, env=run_env, measure_rss=bench.warming(index))
            run.check(" ".join(argv[:2]))
            at_edited[root] = not at_edited[root]
            return Sample(run.seconds, run.peak_rss)

        return sample

    snapline = [str(bench.snapline_bin)]
    with WarmServer(bench) as server:
        runners = [
            ("warm", back_and_forth(snap_root, snapline, server.env)),
            ("cold", back_and_forth(snap_root, snapline, server.cold_env)),
        ]
        if stepback:
            runners.append(("stepback", back_and_forth(step_root, [], env)))
        if rewind:
            runners.append(("rewind", back_and_forth(rewind_root, [], env)))
        bench.log("rows P4/P5: rollback of 100 files, snapline (warm, cold) vs the peers")
        series = alternate(runners, **bench.rounds(bench.config.repeats))
        served = server.served()

    def figure(name: str, label: str) -> Callable[[], Figure]:
        return lambda: Figure(label, stats=series[name].stats, peak_rss=series[name].peak_rss)

    warm = figure("warm", "`snapline rollback --to N`, served by the warm server")()
    cold = figure("cold", "`snapline rollback --to N` with no server (whole process)")
    notes = [
        f"Three identical {bench.config.files:,}-file trees, each a git repository with the "
        f"tree committed; in each, a checkpoint, the same one-line edit of the same {_FILES} "
        "small files, and a second checkpoint. Every run restores the other checkpoint, so "
        f"each changes the same {_FILES} files; every run is a new process. The warm server "
        f"forked {served} workers, one per warm run.",
        "snapline journals the rollback, fsyncs what it writes and records the rollback as "
        "a snapshot; stepback keeps a redo state; rewind-ai saves a safety checkpoint first.",
    ]
    return [
        versus(
            "P4",
            f"`snapline rollback --to N` of {_FILES} files vs `stepback rewind ID`",
            warm,
            peers["stepback"],
            figure("stepback", "`stepback rewind ID --yes` (whole process)"),
            lambda: [cold()],
            notes,
        ),
        versus(
            "P5",
            f"`snapline rollback --to N` of {_FILES} files vs rewind-ai's `rewind jump INDEX`",
            warm,
            peers["rewind-ai"],
            figure("rewind", "`rewind jump INDEX --yes` (whole process)"),
            lambda: [cold()],
            notes,
        ),
    ]
