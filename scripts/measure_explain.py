"""Measure the explanation of a tree (issue 37, point 4) on a few thousand snapshots.

Builds a repository of FILES files, a baseline line, and two agent lines forked from
it with SNAPSHOTS snapshots each (one file edited per snapshot, some files edited by
both agents); agent a commits 100 snapshots before its tip, agent b at its tip; git
merges the two commits (``git merge-tree``). Then times :func:`explain` cold (the lines
read and checked) and warm (a catalog kept), on a recorded state, on git's merge, and on
that merge with one file edited by hand; and the files on disk of a checkout of the
merge (hashed into git's tree in memory).

    .venv/bin/python scripts/measure_explain.py [SNAPSHOTS] [FILES]
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from snapline.store.refs.catalog import Catalog
from snapline.store.refs.disk import disk_tree, explain_workspace
from snapline.store.refs.explain import Explanation, explain
from snapline.store.refs.git import open_repository
from snapline.store.refs.values import Entry
from tests.store.refs.agents import Agent
from tests.store.refs.lines import GIT_ENV, git, make_repo


def _file(name: str, n: int = 40) -> bytes:
    return "".join(f"{name} line {i}\n" for i in range(n)).encode()


def _edit(data: bytes, line: int, text: str) -> bytes:
    rows = data.decode().splitlines()
    rows[line % len(rows)] = text
    return "".join(f"{row}\n" for row in rows).encode()


def _timed(what: str, call: Callable[[], object], rounds: int = 3) -> object:
    best, result = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    print(f"{what:<58} {best * 1000:9.1f} ms")
    return result


def main() -> None:
    snapshots = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    rng = random.Random(37)
    with tempfile.TemporaryDirectory() as directory:
        files = {f"pkg{i % 40}/mod{i}.py": _file(f"mod{i}") for i in range(count)}
        root = make_repo(Path(directory) / "repo", files)
        main_commit = git(root, "rev-parse", "HEAD").strip()
        repo = open_repository(root)
        start = time.perf_counter()
        baseline = Agent(repo)
        baseline.snapshot(dict(files), tool="init")
        names = sorted(files)
        # Agent a edits the first half's first lines, b the second half's and a few of
        # a's files further down: those are merged line by line.
        a, b = baseline.fork(0), baseline.fork(0)
        for n in range(snapshots):
            path = names[rng.randrange(0, count // 2)]
            a.snapshot({path: _edit(a.files[path], rng.randrange(0, 10), f"a {n}")})
            path = names[rng.randrange(count // 2 - 20, count)]
            b.snapshot({path: _edit(b.files[path], rng.randrange(30, 40), f"b {n}")})
        total = 1 + 2 * snapshots
        print(f"{total} snapshots on 3 lines written in {time.perf_counter() - start:.1f} s")
        commits = []
        for agent, at in ((a, -101), (b, -1)):
            state = agent.state(at)
            commits.append(git(root, "commit-tree", state, "-p", main_commit, "-m", "pr").strip())
        done = subprocess.run(
            ["git", "merge-tree", "--write-tree", *commits],
            cwd=root,
            capture_output=True,
            env=GIT_ENV,
            check=True,
        )
        merged = done.stdout.decode().split()[0]
        one = names[count // 2 + 3]
        blob = repo.write_blob(b"edited by hand\n")
        edited = repo.update_tree(merged, {one: Entry(blob, 0o100644)})
        cases = {"a recorded state (b's tip)": b.state(), "git's merge": merged}
        cases["git's merge + one hand edit"] = edited
        for name, tree in cases.items():
            found = _timed(f"cold: {name}", lambda tree=tree: explain(repo, tree))
            assert isinstance(found, Explanation)
            print(f"    -> {found.verdict.value} {found.paths[:3]}")
            kept = Catalog(repo)
            kept.refresh()
            _timed(f"warm: {name}", lambda t=tree, k=kept: explain(repo, t, catalog=k))
        _timed("cold: the lines read and checked", lambda: Catalog(repo).refresh())
        git(root, "read-tree", "-u", "--reset", merged)
        _timed(f"disk: {count} files hashed into a tree in memory", lambda: disk_tree(root))
        found = _timed("cold: explain_workspace (disk + explain)", lambda: explain_workspace(root))
        print(f"    -> {found[0].verdict.value}" if isinstance(found, tuple) else "")
        _timed(
            "reference: git status",
            lambda: subprocess.run(
                ["git", "status", "-s"], cwd=root, env=GIT_ENV, capture_output=True, check=True
            ),
        )


if __name__ == "__main__":
    main()
