"""The benchmark harness measures what it claims: a deterministic tree and honest statistics."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.timing import GNU_TIME, Sample, alternate, ratio, run_process, summarize
from benchmarks.workspace_gen import BIG_FILE, generate, one_line_edit, tree_hash

FILES = 200


def _untracked_by_git(root: Path) -> set[str]:
    """Paths git would add: everything its ignore rules (all .gitignore files) leave in."""
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CEILING_DIRECTORIES": str(root.parent),
    }
    subprocess.run(["git", "init", "-q"], cwd=root, env=env, check=True)
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "-z"],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    ).stdout
    return {p for p in listed.decode().split("\0") if p}


def test_same_seed_gives_the_same_tree_and_another_seed_does_not(tmp_path: Path) -> None:
    first = generate(tmp_path / "a", FILES, seed=7)
    second = generate(tmp_path / "b", FILES, seed=7)
    other = generate(tmp_path / "c", FILES, seed=8)

    assert tree_hash(first.root) == tree_hash(second.root)
    assert dataclasses.replace(second, root=first.root) == first
    assert tree_hash(other.root) != tree_hash(first.root)


def test_tracked_and_ignored_files_follow_the_gitignore_layout(tmp_path: Path) -> None:
    layout = generate(tmp_path / "ws", FILES, seed=7)
    tracked = _untracked_by_git(layout.root)
    on_disk = {
        p.relative_to(layout.root).as_posix()
        for p in layout.root.rglob("*")
        if (p.is_file() or p.is_symlink()) and ".git" not in p.relative_to(layout.root).parts
    }

    assert len(tracked) == layout.tracked_files == FILES
    assert len(on_disk - tracked) == layout.ignored_files > 0
    ignored = on_disk - tracked
    assert any(p.startswith("node_modules/") for p in ignored)
    assert any(p.startswith("build/") for p in ignored)
    assert any(p.endswith(".pyc") for p in ignored)
    assert "web/app_0.js.map" in ignored  # the nested .gitignore applies in web/
    assert "web/keep.map" in tracked  # and its negation re-includes
    assert BIG_FILE in tracked
    assert (layout.root / BIG_FILE).read_text().count("\n") == 10_000
    assert set(layout.history_files) <= tracked
    assert len(layout.history_files) == len(set(layout.history_files)) > 0


def test_one_line_edit_changes_exactly_one_line_and_is_repeatable() -> None:
    text = "".join(f"line {i}\n" for i in range(50))

    edited = one_line_edit(text, 3)

    assert edited == one_line_edit(text, 3)
    changed = [a for a, b in zip(text.split("\n"), edited.split("\n"), strict=True) if a != b]
    assert len(changed) == 1
    assert one_line_edit(text, 4) != edited


def test_stats_give_median_min_max_and_the_ratio_of_medians() -> None:
    odd = summarize([3.0, 1.0, 2.0])
    even = summarize([4.0, 1.0, 3.0, 2.0])

    assert (odd.median, odd.min, odd.max) == (2.0, 1.0, 3.0)
    assert even.median == 2.5
    assert ratio(odd, even) == pytest.approx(0.8)
    assert ratio(summarize([1.0]), summarize([0.0])) == float("inf")
    with pytest.raises(ValueError):
        summarize([])


def test_alternate_interleaves_runners_and_drops_the_warmup() -> None:
    calls: list[tuple[str, int]] = []

    def runner(name: str, seconds: float) -> Callable[[int], Sample]:
        def run(index: int) -> Sample:
            calls.append((name, index))
            return Sample(seconds + index)

        return run

    series = alternate([("a", runner("a", 1.0)), ("b", runner("b", 10.0))], warmup=1, repeats=3)

    assert calls == [("a", 0), ("b", 0), ("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3)]
    assert series["a"].stats.samples == (2.0, 3.0, 4.0)
    assert series["b"].stats.median == 12.0


def test_run_process_reports_exit_code_and_output() -> None:
    code = "import sys; print('ok'); sys.exit(3)"

    run = run_process([sys.executable, "-c", code])

    assert run.returncode == 3
    assert run.stdout.strip() == "ok"
    assert run.peak_rss is None
    assert run.seconds > 0


@pytest.mark.skipif(not GNU_TIME.exists(), reason="GNU time is not installed")
def test_peak_memory_is_the_childs_own_not_the_harness() -> None:
    ballast = bytearray(128 << 20)  # the harness is large; a small child must not look so
    ballast[:: 1 << 12] = b"x" * len(ballast[:: 1 << 12])

    small = run_process([sys.executable, "-c", "pass"], measure_rss=True)
    large = run_process(
        [sys.executable, "-c", "b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096])"],
        measure_rss=True,
    )

    assert small.peak_rss is not None and large.peak_rss is not None
    assert small.peak_rss < 64 << 20
    assert large.peak_rss >= small.peak_rss + (60 << 20)
    del ballast
