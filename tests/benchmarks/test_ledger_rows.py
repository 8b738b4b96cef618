"""Benchmark rows 14a/14b (the ledger replayed from a git history) and 15 (index rebuild).

The plumbing on tiny inputs: a source repository of a few commits, a rebuild of a few
snapshots. The figures are not checked for speed, only that the rows measure what they
say: the trees replayed, the two repositories, the bytes counted, the index rebuilt.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from benchmarks import rebuild
from benchmarks.__main__ import parse_args
from benchmarks.cases import Bench, Config
from benchmarks.rebuild import remove_index, row_index_rebuild
from benchmarks.replay import (
    first_parent_commits,
    ledger_breakdown,
    one_line_commits,
    row_ledger_size,
    synthetic_history,
)
from benchmarks.report import format_bytes
from snapline import Workspace
from tests.old_ledgers import ledger_checkout

REPO_ROOT = Path(__file__).resolve().parents[2]


def _bench(workdir: Path, files: int = 60) -> Bench:
    workdir.mkdir(parents=True, exist_ok=True)
    config = Config(
        files=files,
        history=5,
        warmup=0,
        repeats=1,
        slow_repeats=1,
        workdir=workdir,
        seed=3,
        full=False,
        python=sys.executable,
        repo_root=REPO_ROOT,
    )
    return Bench(config, lambda _: None)


def _source(bench: Bench, path: Path) -> Path:
    """Six first-parent commits: a tree, a one-line edit, a side branch merged (a file
    added, then edited), a line added, a file deleted, and an empty commit."""
    path.mkdir()
    lines = "".join(f"line {n}\n" for n in range(50))
    (path / "a.py").write_text(lines)
    (path / "b.md").write_text("# title\n")
    git = bench.git
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "tree")
    (path / "a.py").write_text(lines.replace("line 7\n", "line seven\n"))
    git(path, "commit", "-q", "-am", "one line")
    git(path, "checkout", "-q", "-b", "side")
    (path / "c.txt").write_text("side\nfile\n")
    git(path, "add", "c.txt")
    git(path, "commit", "-q", "-m", "side: add c")
    (path / "c.txt").write_text("side\nfile\nmore\n")
    git(path, "commit", "-q", "-am", "side: edit c")
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    (path / "a.py").write_text(lines.replace("line 7\n", "line seven\n") + "appended\n")
    git(path, "commit", "-q", "-am", "add one line")
    git(path, "rm", "-q", "b.md")
    git(path, "commit", "-q", "-m", "delete b")
    git(path, "commit", "-q", "--allow-empty", "-m", "nothing")
    return path


def test_one_line_commits_are_those_changing_exactly_one_line(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "work")
    source = _source(bench, tmp_path / "source") / ".git"
    commits = first_parent_commits(bench, source)
    subjects = bench.git(source, "--git-dir", str(source), "log", "--format=%H %s").stdout

    found = one_line_commits(bench, source)

    by_sha = dict(line.split(" ", 1) for line in subjects.splitlines())
    assert [by_sha[sha] for sha in commits] == [
        "tree", "one line", "merge side", "add one line", "delete b", "nothing",
    ]  # fmt: skip
    assert {by_sha[sha] for sha in found} == {"one line"}


def test_synthetic_history_is_a_repository_of_one_line_edits(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "work")

    repo = synthetic_history(bench, tmp_path / "synthetic", 4) / ".git"

    commits = first_parent_commits(bench, repo)
    assert len(commits) == 4
    assert one_line_commits(bench, repo) == set(commits[1:])


def test_the_ledger_size_rows_say_they_measured_the_in_tree_ledger(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "work")

    size, edit = row_ledger_size(bench, synthetic_commits=3, edits=4)

    # Issue 37 removed the in-tree ledger; R6 and R7 measure the history's bytes on refs.
    assert (size.number, edit.number) == ("14a", "14b")
    for row in (size, edit):
        assert row.met is None and row.snapline is None and row.skipped is not None
        assert "rows R6 and R7" in row.skipped and "in-tree ledger" in row.skipped
    assert not (bench.config.workdir / "replay").exists()


def test_index_rebuild_row_times_a_rebuilt_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _bench(tmp_path / "work")
    removed: list[int] = []

    def counting(root: Path) -> int:
        removed.append(remove_index(root))
        return removed[-1]

    monkeypatch.setattr(rebuild, "remove_index", counting)

    (row,) = row_index_rebuild(bench, snapshots=4)

    # Before each timed `log`, `Workspace.open` and `verify` (and the profile when unmet).
    assert len(removed) == 3 + (row.met is False) and min(removed) >= 1

    assert row.number == "15"
    assert row.snapline is not None and row.snapline.stats is not None
    assert row.git is not None and row.git.stats is not None
    assert row.met is (row.snapline.stats.median <= 2.0)
    assert [len(f.stats.samples) for f in row.extra if f.stats] == [1, 1, 1]
    root = bench.config.workdir / "rebuild"
    assert (root / ".snapline" / "index.db").is_file()  # the last command rebuilt it
    with Workspace.open(root) as ws:
        assert ws.latest == 4 and ws.verify().ok


def test_ledger_breakdown_splits_snapshot_files_into_deltas_and_the_rest(
    tmp_path: Path,
) -> None:
    # An in-tree ledger as c82d55b wrote it (the ledger-2 fixture): its baseline and
    # snapshot 1 (one edit: a forward and a reverse delta), with all its objects.
    source = ledger_checkout(tmp_path / "fixture").path / ".snapline" / "ledger"
    root = tmp_path / "ws"
    ledger = root / ".snapline" / "ledger"
    (ledger / "snapshots").mkdir(parents=True)
    for number in ("00000000", "00000001"):
        (found,) = (source / "snapshots").glob(f"{number}-*.snap")
        shutil.copy(found, ledger / "snapshots" / found.name)
    shutil.copytree(source / "objects", ledger / "objects")
    snap = next((ledger / "snapshots").glob("00000001-*.snap")).read_text()
    forward = snap.split("  forward\n")[1].split("  reverse\n")[0]
    reverse = snap.split("  reverse\n")[1]
    files = list((ledger / "snapshots").glob("*.snap"))
    total = sum(p.stat().st_size for p in files)
    stored = [p.read_bytes() for p in (ledger / "objects").glob("*/*")]
    assert len(stored) > 1

    lines = ledger_breakdown(root)

    rest = total - len(forward) - len(reverse)
    assert lines[0] == (
        f"2 snapshot files, {format_bytes(total)}: forward deltas {len(forward)} B, reverse "
        f"deltas {len(reverse)} B, headers, paths and hashes {format_bytes(rest)}."
    )
    assert lines[2] == (
        f"{len(stored)} content objects, {format_bytes(sum(map(len, stored)))}; deflated by "
        f"zlib {format_bytes(sum(len(zlib.compress(o, 6)) for o in stored))}, about what "
        "git's pack stores of them."
    )


def test_remove_index_deletes_the_local_index_only(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()  # outside git: the index beside the private repository
    # What a process killed with the index open leaves beside it.
    for name in ("index.db-wal", "index.db-shm"):
        (root / ".snapline" / name).write_bytes(b"")

    assert remove_index(root) == 3
    assert not list((root / ".snapline").glob("index.db*"))
    assert (root / ".snapline" / "repo" / "HEAD").is_file()  # the history stays
    assert remove_index(root) == 0
    with Workspace.open(root) as ws:  # and the index is built again from it
        assert ws.latest == 0 and ws.verify().ok


def test_the_command_line_and_make_pass_a_history(tmp_path: Path) -> None:
    args = parse_args(["--history-repo", str(tmp_path), "--history-commits", "7"])
    assert (args.history_repo, args.history_commits) == (tmp_path, 7)
    dry = subprocess.run(
        ["make", "-n", "bench", f"HISTORY={tmp_path}", "HISTORY_COMMITS=7"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"-m benchmarks --history-repo {tmp_path} --history-commits 7" in dry
    plain = subprocess.run(
        ["make", "-n", "bench"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "--history-repo" not in plain


def test_an_unmet_rebuild_says_what_the_open_spent_its_time_on() -> None:
    top = [
        {"function": "snapline/workspace/__init__.py:95(open)", "cumtime": 8.0},
        {"function": "snapline/store/ledger/sync.py:92(read_snapshot)", "cumtime": 2.0},
        {"function": "snapline/store/ledger/importing.py:156(_import_baseline)", "cumtime": 6.0},
    ]

    lines = rebuild._shares({"total": 8.0, "top": top}, 1_001, 10_000)

    assert lines == (
        "Reading and parsing the 1,001 snapshot files: 25% of the open.",
        "Taking the baseline's content from the workspace (read and hash its "
        "10,000 files into the index): 75% of the open.",
    )
