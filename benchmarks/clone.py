"""Row 6e: ``snapline verify`` in a fresh clone, against git's status with a stale index.

A fresh clone has the ledger (``.snapline/ledger/``, committed with the project) but no
local index and no checkpoint of its own, so its first ``snapline verify`` rebuilds the
index from the ledger, reads and hashes every file, and checks the whole history. git's
nearest counterpart is ``git status`` when no entry of its index can be trusted by its
stat data (every file touched after the checkout), so it re-hashes every file.

The workspace of the main tree (A) is committed, ledger included, into a repository
that starts as a bare clone of B (git's repository of the same tree, whose objects
already hold the files, so the commit writes few new ones); every round then clones it
once (``git clone --shared``: neither timed command reads git's objects beyond the
commit's trees), and every run of either command gets a copy of that clone made of hard
links (:func:`copy_clone`), outside the timing: a fresh clone each time, without the
10 s a real clone and its removal take per run on the benchmark machine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.report import Figure, RowResult
from benchmarks.timing import Sample, alternate, ratio, run_process

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["CLONE_GOAL", "NOT_ON_REFS", "copy_clone", "row_fresh_clone", "touch_all"]

CLONE_GOAL = 1.5
"""The goal: the first verify of a fresh clone takes at most 1.5 times git's stale status."""


def touch_all(root: Path, paths: list[str], when: float) -> None:
    """Set the access and modification times of every ``root/path`` to ``when``."""
    for path in paths:
        os.utime(root / path, (when, when), follow_symlinks=False)


def copy_clone(pristine: Path, target: Path) -> Path:
    """A copy of the clone ``pristine`` at ``target`` whose files are hard links to its own.

    Both timed commands only read the files they share (git replaces its index by
    renaming a new one into place, snapline writes its own new files), so every copy
    starts as the clone did, at the cost of creating directories and links.
    """
    shutil.copytree(pristine, target, symlinks=True, copy_function=os.link)
    return target


def _digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        if path.is_file() and not path.is_symlink():
            digest.update(str(path.relative_to(directory)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


NOT_ON_REFS = (
    "not measured: the row timed a fresh clone of a workspace committed with its in-tree "
    "ledger, which issue 37 removed (the history is on git's refs, not in the commits); "
    "row R4 measures a fresh CI clone's first `snapline verify` on the refs"
)
"""Why row 6e is not measured any more."""


def row_fresh_clone(bench: Bench) -> list[RowResult]:
    """Row 6e: skipped (:data:`NOT_ON_REFS`); row R4 of ``on_refs.py`` measures a fresh clone.

    It timed the first ``snapline verify`` of a fresh clone of a workspace committed with
    its in-tree ledger against ``git status`` re-hashing all; ``_measured_fresh_clone``
    is that measurement, kept until the rows of the in-tree ledger are removed.
    """
    del bench  # nothing is measured
    title = "first `snapline verify` in a fresh clone vs `git status` with a stale index"
    return [RowResult(number="6e", title=title, goal="≤ 1.5", skipped=NOT_ON_REFS)]


def _measured_fresh_clone(bench: Bench) -> list[RowResult]:
    from benchmarks.cases import cli_profile, ensure_baselines, verify_shares

    ensure_baselines(bench)
    workspace, repo = bench.tree("main").root, bench.tree("git").root
    workdir = bench.config.workdir
    source = workdir / "clone-source.git"
    bench.log("row 6e: committing the workspace with its ledger")
    shutil.rmtree(source, ignore_errors=True)
    bench.git(workdir, "clone", "-q", "--bare", str(repo), str(source))
    into = ("--git-dir", str(source), "--work-tree", str(workspace))
    bench.git(workspace, *into, "read-tree", "HEAD")
    bench.git(workspace, *into, "add", "-A")
    bench.git(workspace, *into, "commit", "-q", "-m", "the workspace with its ledger")
    listed = bench.git(workspace, *into, "ls-files", "-z").stdout.split("\0")
    tracked = [path for path in listed if path]
    ledger = [path for path in tracked if path.startswith(".snapline/ledger/")]
    if not ledger:
        raise RuntimeError(f"{workspace}/.snapline/ledger/ was not committed")
    local = [p for p in tracked if p.startswith(".snapline/") and not p.startswith(".snapline/le")]
    newest = json.loads(
        run_process([str(bench.snapline_bin), "log", "-n", "1", "--json"], cwd=workspace)
        .check("snapline log")
        .stdout
    )
    latest = newest[0]["number"] if isinstance(newest, list) and newest else None
    verify = [str(bench.snapline_bin), "verify"]
    pristine = workdir / "clone-pristine"
    bench.git(workdir, "clone", "-q", "--shared", str(source), str(pristine))
    # The checkout's writes reach the disk now, not during a timed command.
    os.sync()
    before = _digest(pristine / ".snapline")
    copies: list[Path] = []

    def fresh(name: str) -> Path:
        for old in copies:
            shutil.rmtree(old, ignore_errors=True)
        copies.clear()
        copies.append(workdir / name)
        return copy_clone(pristine, copies[-1])

    def snapline(index: int) -> Sample:
        clone = fresh(f"clone-snapline-{index}")
        run = run_process(verify, cwd=clone, env=bench.cli_env, measure_rss=bench.warming(index))
        return Sample(run.check("snapline verify in a fresh clone").seconds, run.peak_rss)

    def git(index: int) -> Sample:
        clone = fresh(f"clone-git-{index}")
        # No file's stat data then matches its index entry: git must re-hash every one.
        touch_all(clone, tracked, time.time() - 60)
        return bench.git_sample(clone, [["status"]], False, rss=bench.warming(index))

    bench.log("row 6e: snapline verify in a fresh clone vs git status with a stale index")
    series = alternate(
        [("snapline", snapline), ("git", git)], **bench.rounds(bench.config.slow_repeats)
    )
    value = ratio(series["snapline"].stats, series["git"].stats)
    history = f"snapshots 0 to {latest:,}" if isinstance(latest, int) else "the history"
    row = RowResult(
        number="6e",
        title=f"first `snapline verify` in a fresh clone, {bench.config.files:,} files",
        goal=f"≤ {CLONE_GOAL:g}",
        snapline=Figure(
            "`snapline verify` in a new `git clone` (whole process)",
            stats=series["snapline"].stats,
            peak_rss=series["snapline"].peak_rss,
        ),
        git=Figure(
            "`git status` in a new clone, every file touched after the checkout",
            stats=series["git"].stats,
            peak_rss=series["git"].peak_rss,
        ),
        ratio=value,
        met=value <= CLONE_GOAL,
        notes=[
            f"The clone holds {len(tracked):,} files, {len(ledger):,} of them the ledger "
            f"({history})"
            + (", and " + ", ".join(f"`{path}`" for path in local[:3]) if local else "")
            + (f" and {len(local) - 3} more files of `.snapline/`" if len(local) > 3 else "")
            + ". Every run of either command gets its own copy of a clone made before the "
            "first (hard links to its files, outside the timing): no run sees what an earlier "
            "one left, neither snapline's index nor git's refreshed one, and a clone and its "
            "removal per run (about 10 s here) stay out of the run's time.",
            "snapline has no local index and no checkpoint in a fresh clone: the first "
            "verify rebuilds the index from the ledger (reading and hashing every file) and "
            "checks the whole history. git re-hashes every file whose stat data no longer "
            "matches its index (all of them here) and rewrites the index.",
        ],
    )
    if not row.met:
        clone = fresh("clone-profile")
        evidence = cli_profile(
            bench,
            clone,
            verify,
            edit=False,
            title="cProfile of `snapline verify` in a fresh clone (whole process)",
        )
        row.evidence.append(dataclasses.replace(evidence, lines=verify_shares(evidence)))
    for old in copies:
        shutil.rmtree(old, ignore_errors=True)
    if _digest(pristine / ".snapline") != before:
        # A copy shares its files with the pristine clone: a command that rewrote one in
        # place would have changed what every later run saw.
        raise RuntimeError(f"a command changed {pristine}/.snapline through a hard link")
    shutil.rmtree(pristine, ignore_errors=True)
    return [row]
