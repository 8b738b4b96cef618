"""Rows P1-P3: snapline against its peers, stepback and rewind-ai (issue 16, goal 1).

``make bench-peers`` (``python -m benchmarks --peers``) installs the peers from the
package index into a virtual environment of their own (``bench-work/peers-venv``), so
their dependencies never meet snapline's, and runs them on the same work as snapline
in the same run: three identical generated trees, each a git repository with the tree
committed (both peers keep their checkpoints in git), the same one-line edit of the
same file before every checkpoint, and the contenders timed alternately.

What each peer offers on its command line (read from their sources, stepback 0.2.0 and
rewind-ai 1.1.0):

- stepback has no stand-alone checkpoint command: ``stepback run -- CMD`` watches the
  tree while CMD runs and checkpoints at its start, after every settled burst of edits
  and at its end. The checkpoint itself is ``Engine.checkpoint()``; the row times it in
  a fresh process (what one checkpoint of ``run`` costs, without the watcher) and also
  ``stepback run -- true`` whole. ``stepback list`` lists the checkpoints.
- rewind-ai's ``rewind snap -m LABEL`` takes a checkpoint now; ``rewind list`` lists them.

Nothing here runs in ``make bench``: installing the peers needs the network, and their
figures go into a section of ``docs/benchmarks.md`` of their own, dated, which later
runs of ``make bench`` carry over unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.report import Evidence, Figure, RowResult
from benchmarks.timing import ProcessRun, Sample, alternate, ratio, run_process
from benchmarks.workspace_gen import BIG_FILE

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = [
    "IDENTITY",
    "PEERS",
    "PEER_ROWS",
    "Peer",
    "committed_trees",
    "install_peers",
    "installed_peers",
    "peer_run",
    "row_peers",
    "versus",
]

PEERS = ("stepback", "rewind-ai")
"""The peers' package names on the package index."""
PEER_ROWS = ("P1", "P2", "P3")
"""P1: record vs stepback's checkpoint; P2: record vs rewind-ai's; P3: log vs stepback list."""

_STEPBACK_CHECKPOINT = (
    "import sys; from pathlib import Path; from stepback.engine import Engine; "
    "sys.exit(0 if Engine(Path.cwd()).checkpoint() is not None else 3)"
)
"""One stepback checkpoint in a fresh process, exiting 3 if it found nothing to record."""
IDENTITY = {
    # The peers commit their checkpoints with git, which needs an identity; the harness
    # runs git without any global configuration.
    "GIT_AUTHOR_NAME": "snapline-bench",
    "GIT_AUTHOR_EMAIL": "bench@snapline.invalid",
    "GIT_COMMITTER_NAME": "snapline-bench",
    "GIT_COMMITTER_EMAIL": "bench@snapline.invalid",
}


@dataclass(frozen=True)
class Peer:
    """One peer package in the peers' environment.

    Attributes:
        package: Its name on the package index.
        version: The installed version, or ``None`` when it could not be installed.
        problem: Why it is missing (the installer's last lines), or ``None``.
    """

    package: str
    version: str | None
    problem: str | None = None


def install_peers(
    venv: Path, python: str, log: Callable[[str], None], packages: Sequence[str] = PEERS
) -> dict[str, Peer]:
    """Create ``venv`` if needed and ``pip install`` each peer into it, one at a time.

    A package that does not exist or does not install is reported, not raised: the
    rows against it then say why they were not measured.

    Args:
        venv: The peers' virtual environment (created with ``python -m venv``).
        python: The interpreter to create it with.
        log: Progress messages.
        packages: The packages to install.

    Returns:
        One :class:`Peer` per package, by name.
    """
    bin_python = venv / "bin" / "python"
    if not bin_python.exists():
        log(f"peers: creating {venv}")
        created = run_process([python, "-m", "venv", str(venv)])
        if created.returncode != 0:
            problem = f"`python -m venv` failed: {_last_lines(created.stderr)}"
            return {name: Peer(name, None, problem) for name in packages}
    peers = {}
    for name in packages:
        log(f"peers: pip install {name}")
        installed = run_process(
            [
                str(bin_python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                name,
            ]
        )
        version = _version(bin_python, name)
        if installed.returncode != 0 or version is None:
            problem = f"`pip install {name}` failed: {_last_lines(installed.stderr)}"
            peers[name] = Peer(name, None, problem)
        else:
            peers[name] = Peer(name, version)
    return peers


def installed_peers(venv: Path, packages: Sequence[str] = PEERS) -> dict[str, Peer]:
    """The peers :func:`install_peers` left in ``venv``, without installing anything."""
    python = venv / "bin" / "python"
    versions = {name: _version(python, name) if python.exists() else None for name in packages}
    return {
        name: Peer(name, version, None if version else f"{name} is not installed in {venv}")
        for name, version in versions.items()
    }


def _version(python: Path, package: str) -> str | None:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    run = run_process([str(python), "-c", code])
    return run.stdout.strip() if run.returncode == 0 and run.stdout.strip() else None


def _last_lines(text: str, count: int = 2) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    # pip's warnings about unreachable indexes come first; the error is at the end.
    return " / ".join(lines[-count:])[-400:] or "no output"


def row_peers(bench: Bench, venv: Path) -> list[RowResult]:
    """Rows P1-P3: ``snapline record F`` and ``snapline log`` against the peers' commands."""
    from benchmarks.cases import cli_profile, import_evidence

    peers = install_peers(venv, sys.executable, bench.log)
    bench.facts["peers"] = _versions(peers)
    peer_bin = venv / "bin"
    env = {**bench.git_env, **IDENTITY}
    names = ("peers-snapline", "peers-stepback", "peers-rewind")
    roots = committed_trees(bench, names)
    snap_root, step_root, rewind_root = roots
    bench.log("peers: baselines (snapline init, a first checkpoint of each peer)")
    bench.once([{"op": "init", "root": str(snap_root)}])
    stepback = peers["stepback"].version is not None
    rewind = peers["rewind-ai"].version is not None
    checkpoint = [str(peer_bin / "python"), "-c", _STEPBACK_CHECKPOINT]
    if stepback:
        peer_run(checkpoint, step_root, env, "stepback")
    if rewind:
        peer_run([str(peer_bin / "rewind"), "snap", "-m", "baseline"], rewind_root, env, "rewind")

    record_argv = [str(bench.snapline_bin), "record", BIG_FILE]

    def edited(root: Path, tree: str) -> None:
        bench.edit_on_disk(root, BIG_FILE, bench.next_index(tree))

    def snapline_record(index: int) -> Sample:
        edited(snap_root, "peers-snapline")
        run = run_process(record_argv, cwd=snap_root, env=bench.cli_env, measure_rss=index == 0)
        return Sample(run.check("snapline record").seconds, run.peak_rss)

    def peer(argv: list[str], root: Path, tree: str, what: str) -> Callable[[int], Sample]:
        def sample(index: int) -> Sample:
            edited(root, tree)
            run = peer_run(argv, root, env, what, rss=bench.warming(index))
            return Sample(run.seconds, run.peak_rss)

        return sample

    runners: list[tuple[str, Callable[[int], Sample]]] = [("snapline", snapline_record)]
    if stepback:
        runners.append(("stepback", peer(checkpoint, step_root, "peers-stepback", "stepback")))
        run_true = [str(peer_bin / "stepback"), "run", "--", "true"]
        runners.append(("stepback-run", peer(run_true, step_root, "peers-stepback", "stepback")))
    if rewind:
        snap = [str(peer_bin / "rewind"), "snap", "-m", "edit"]
        runners.append(("rewind", peer(snap, rewind_root, "peers-rewind", "rewind")))
    bench.log("rows P1/P2: snapline record F vs the peers' checkpoints")
    series = alternate(runners, **bench.rounds(bench.config.repeats))
    record = Figure(
        "`snapline record F` (whole process)",
        stats=series["snapline"].stats,
        peak_rss=series["snapline"].peak_rss,
    )
    common = (
        f"Three identical {bench.config.files:,}-file trees, each a git repository with the "
        "tree committed; before every checkpoint the same kind of one-line edit of the same "
        f"10,000-line file (`{BIG_FILE}`) in the contender's own tree; every run a new "
        "process. The peers run from their own virtual environment "
        f"({_versions(peers)}), with the same git configuration as the git rows."
    )
    results = []
    record_limits: list[Evidence] = []

    def record_evidence() -> list[Evidence]:
        if not record_limits:
            record_limits.append(cli_profile(bench, snap_root, record_argv, tree="peers-snapline"))
            edited(snap_root, "peers-snapline")
            record_limits.append(import_evidence(bench, record_argv[1:], snap_root))
        return record_limits

    p1 = versus(
        "P1",
        "`snapline record F` vs stepback's checkpoint, one-line edit, whole processes",
        record,
        peers["stepback"],
        lambda: Figure(
            "stepback's `Engine.checkpoint()` in a fresh process (what `stepback run` does "
            "per settled burst of edits)",
            stats=series["stepback"].stats,
            peak_rss=series["stepback"].peak_rss,
        ),
        lambda: [
            Figure(
                "`stepback run -- true` after the edit (whole command: watcher, a "
                "checkpoint at the start and one at the end)",
                stats=series["stepback-run"].stats,
                peak_rss=series["stepback-run"].peak_rss,
            )
        ],
        [
            common,
            "stepback 0.2.0 has no stand-alone checkpoint command: its checkpoints are taken "
            "by `stepback run -- CMD` (at the start, after every settled burst of edits, at "
            "the end). Its checkpoint stages the whole tree into a new temporary index "
            "(`git add -A`, reading and hashing every file), then `write-tree`, "
            "`commit-tree` and `update-ref`. The goal is judged against that checkpoint "
            "alone, the cheaper of its two figures.",
        ],
    )
    p2 = versus(
        "P2",
        "`snapline record F` vs rewind-ai's `rewind snap`, one-line edit, whole processes",
        record,
        peers["rewind-ai"],
        lambda: Figure(
            "`rewind snap -m edit` (whole process)",
            stats=series["rewind"].stats,
            peak_rss=series["rewind"].peak_rss,
        ),
        list,
        [
            common,
            "`rewind snap` stages the whole tree into a new temporary index (`git add -A`), "
            "writes a tree, diffs it against the previous checkpoint's, and commits it under "
            "`refs/rewind/` (GitPython driving git processes).",
        ],
    )
    for row in (p1, p2):
        if row.met is False:
            row.evidence.extend(record_evidence())
        results.append(row)

    log_argv = [str(bench.snapline_bin), "log"]
    list_runners: list[tuple[str, Callable[[int], Sample]]] = [
        ("snapline", _command(log_argv, snap_root, bench.cli_env, "snapline log"))
    ]
    if stepback:
        list_argv = [str(peer_bin / "stepback"), "list"]
        list_runners.append(("stepback", _command(list_argv, step_root, env, "stepback list")))
    if rewind:
        rewind_list = [str(peer_bin / "rewind"), "list"]
        list_runners.append(("rewind", _command(rewind_list, rewind_root, env, "rewind list")))
    bench.log("row P3: snapline log vs stepback list")
    listed = alternate(list_runners, **bench.rounds(bench.config.repeats))
    p3 = versus(
        "P3",
        "`snapline log` vs `stepback list`, whole processes",
        Figure(
            "`snapline log` (whole process)",
            stats=listed["snapline"].stats,
            peak_rss=listed["snapline"].peak_rss,
        ),
        peers["stepback"],
        lambda: Figure(
            "`stepback list` (whole process)",
            stats=listed["stepback"].stats,
            peak_rss=listed["stepback"].peak_rss,
        ),
        lambda: (
            [
                Figure(
                    "`rewind list` (rewind-ai, whole process)",
                    stats=listed["rewind"].stats,
                    peak_rss=listed["rewind"].peak_rss,
                )
            ]
            if "rewind" in listed
            else []
        ),
        [
            "The same three trees after the checkpoint rows: each lists the baseline and "
            f"the {bench.config.warmup + bench.config.repeats} checkpoints (stepback: twice "
            "as many) that the rows above made.",
        ],
    )
    if p3.met is False:
        p3.evidence.append(cli_profile(bench, snap_root, log_argv, edit=False))
        p3.evidence.append(import_evidence(bench, log_argv[1:], snap_root))
    results.append(p3)
    return results


def committed_trees(bench: Bench, names: Sequence[str]) -> list[Path]:
    """The same generated tree under each name, each a git repository with it committed.

    The first is generated and committed; the others are clones of it (the same
    content, the same commit), which is quicker than committing every tree.
    """
    first = bench.config.workdir / names[0]
    bench.tree(names[0])
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "baseline"]):
        bench.git(first, *command)
    roots = [first]
    for name in names[1:]:
        root = bench.config.workdir / name
        bench.git(bench.config.workdir, "clone", "-q", str(first), str(root))
        roots.append(root)
    bench.settled(names[0])  # every tree's files are older than the racy window
    return roots


def peer_run(
    argv: list[str], root: Path, env: dict[str, str], what: str, *, rss: bool = False
) -> ProcessRun:
    run = run_process(argv, cwd=root, env=env, measure_rss=rss).check(what)
    if "failed" in run.stdout + run.stderr:
        # rewind reports a failed checkpoint on its output and still exits 0.
        raise RuntimeError(f"{what} failed: {_last_lines(run.stdout + run.stderr)}")
    return run


def _command(
    argv: list[str], root: Path, env: dict[str, str], what: str
) -> Callable[[int], Sample]:
    def sample(index: int) -> Sample:
        run = run_process(argv, cwd=root, env=env, measure_rss=index == 0).check(what)
        return Sample(run.seconds, run.peak_rss)

    return sample


def _versions(peers: dict[str, Peer]) -> str:
    return ", ".join(
        f"{peer.package} {peer.version}" if peer.version else f"{peer.package} not installed"
        for peer in peers.values()
    )


def versus(
    number: str,
    title: str,
    snapline: Figure,
    peer: Peer,
    reference: Callable[[], Figure],
    extra: Callable[[], list[Figure]],
    notes: list[str],
) -> RowResult:
    """A row judged on snapline being faster than ``peer`` (ratio of medians below 1)."""
    if peer.version is None:
        return RowResult(
            number=number,
            title=title,
            goal="< 1",
            skipped=f"not measured: {peer.package} is not installed",
            notes=[peer.problem or f"{peer.package} could not be installed.", *notes[1:]],
        )
    other = reference()
    assert snapline.stats is not None and other.stats is not None
    value = ratio(snapline.stats, other.stats)
    return RowResult(
        number=number,
        title=title,
        goal="< 1",
        snapline=snapline,
        git=other,
        ratio=value,
        ratio_label=f"snapline ÷ {peer.package} (medians)",
        reference_name=peer.package,
        met=value < 1,
        extra=extra(),
        notes=notes,
    )
