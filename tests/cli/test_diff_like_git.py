"""``snapline diff --stat`` against ``git diff --stat`` on a twin git repository.

Seeded random histories: files added, edited (lines inserted, removed, replaced),
deleted, made executable, a binary file, long paths, a file rewritten whole. Each state
is recorded by snapline (``resync``) in one directory and committed by git in its twin.
Then for pairs of states, both orders, and for the disk against each state, snapline's
diffstat must be git's, byte for byte (80 columns, as git off a terminal).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import run_script
from tests.scanning.git_reference import GIT

_SEEDS = 3 if os.environ.get("SNAPLINE_STRESS") != "1" else 30
_DIRS = ["", "src/", "docs/guide/", "a/very/long/directory/name/that/goes/on/and/on/"]


def _git(twin: Path, *args: str) -> str:
    assert GIT is not None
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.fspath(twin.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }
    return subprocess.run(
        [GIT, "-c", "user.name=t", "-c", "user.email=t@e", "-c", "diff.renames=false", *args],
        cwd=twin, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def _step(rng: random.Random, roots: tuple[Path, Path], counter: list[int]) -> None:
    """One random change, made the same way in both trees."""

    def fresh() -> str:
        counter[0] += 1
        return f"line {counter[0]} {rng.random():.6f}\n"

    existing = sorted(
        p.relative_to(roots[0]).as_posix()
        for p in roots[0].rglob("*")
        if p.is_file() and ".snapline" not in p.parts
    )
    roll = rng.random()
    if roll < 0.25 or not existing:
        name = rng.choice(_DIRS) + f"f{counter[0]}.txt"
        data = "".join(fresh() for _ in range(rng.randint(0, 30))).encode()
        if rng.random() < 0.1:
            data = "".join(fresh() for _ in range(300)).encode()  # wide enough to scale
        if rng.random() < 0.25:
            name, data = name.replace(".txt", ".bin"), b"\0" + os.urandom(rng.randint(0, 50))
        for root in roots:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        return
    name = rng.choice(existing)
    if roll < 0.35:
        for root in roots:
            (root / name).unlink()
    elif roll < 0.45:
        for root in roots:
            (root / name).chmod((root / name).stat().st_mode ^ 0o100)
    elif name.endswith(".bin"):
        data = b"\0" + os.urandom(rng.randint(0, 80))
        for root in roots:
            (root / name).write_bytes(data)
    else:
        lines = (roots[0] / name).read_text().splitlines(keepends=True)
        for _ in range(rng.randint(1, 6)):
            at = rng.randint(0, len(lines))
            what = rng.random()
            if what < 0.4 or not lines:
                lines[at:at] = [fresh() for _ in range(rng.randint(1, 4))]
            elif what < 0.7:
                del lines[min(at, len(lines) - 1) : at + rng.randint(1, 3)]
            else:
                lines[min(at, len(lines) - 1)] = fresh()
        for root in roots:
            (root / name).write_text("".join(lines))


@pytest.mark.parametrize("seed", range(_SEEDS))
def test_diffstat_is_gits(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    work, twin = tmp_path / "work", tmp_path / "twin"
    work.mkdir()
    twin.mkdir()
    counter = [0]
    (work / "README").write_text("start\n")
    (twin / "README").write_text("start\n")
    assert run_script("init", cwd=work).returncode == 0
    _git(twin, "init", "--quiet", "--template=")
    _git(twin, "add", "-A")
    _git(twin, "commit", "--quiet", "-m", "0")
    commits = [_git(twin, "rev-parse", "HEAD").strip()]
    for number in range(1, 6):
        for _ in range(rng.randint(1, 5)):
            _step(rng, (work, twin), counter)
        done = run_script("resync", "-m", str(number), cwd=work)
        assert done.returncode == 0, done.stderr
        _git(twin, "add", "-A")
        _git(twin, "commit", "--quiet", "--allow-empty", "-m", str(number))
        commits.append(_git(twin, "rev-parse", "HEAD").strip())
    env = {"COLUMNS": ""}
    for a, b in [(0, 5), (5, 0), (1, 3), (3, 1), (2, 2), (4, 5)]:
        ours = run_script("diff", str(a), str(b), "--stat", cwd=work, env=env)
        assert ours.returncode == 0, ours.stderr
        theirs = _git(twin, "diff", "--stat", commits[a], commits[b])
        assert ours.stdout == theirs, f"seed {seed}: diff {a} {b} --stat"
    # The disk against the latest and an older state: some changes left unrecorded.
    for _ in range(rng.randint(1, 4)):
        _step(rng, (work, twin), counter)
    _git(twin, "add", "-A")
    for ref in (None, 2):
        words = ["diff", "--stat"] + ([] if ref is None else [str(ref)])
        ours = run_script(*words, cwd=work, env=env)
        assert ours.returncode == 0, ours.stderr
        base = commits[-1 if ref is None else ref]
        theirs = _git(twin, "diff", "--cached", "--stat", base)
        assert ours.stdout == theirs, f"seed {seed}: {' '.join(words)}"
