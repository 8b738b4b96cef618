"""Random parallel histories explained, against git's own merge as the oracle.

Two or three agents fork from one baseline and edit a few small files (lines changed,
files deleted and added again); each commits its code on a branch at a snapshot of its
choosing, and may record on after it. ``git merge-tree --write-tree`` merges the
branches (a third one merged into the first two's merge): a clean merge must be
explained; a merge in conflict (its files with git's conflict markers) that is not
explained names paths, only ones git's merge changed; and git confirms every
explanation given (the state's tree, or its own clean merge of the states named from
the base named).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from snapline.store.refs.explain import Explanation, Verdict, explain
from snapline.store.refs.git import open_repository
from tests.store.refs.agents import Agent
from tests.store.refs.lines import GIT_ENV, git, make_repo

PATHS = ("a.txt", "b.txt", "d/c.txt", "d/e.txt")
BASE = {path: "".join(f"{path} {i}\n" for i in range(6)).encode() for path in PATHS[:3]}

# An edit: a line of a file set to a new text (the file made again if gone), or the file
# deleted.
_edit = st.tuples(st.sampled_from(PATHS), st.one_of(st.integers(0, 5), st.just(-1)))
_agent = st.tuples(
    st.lists(st.lists(_edit, min_size=1, max_size=2), min_size=1, max_size=4),
    st.integers(0, 3),
)


def _apply(
    files: dict[str, bytes], edits: list[tuple[str, int]], tag: str
) -> dict[str, bytes | None]:
    writes: dict[str, bytes | None] = {}
    current = dict(files)
    for n, (path, line) in enumerate(edits):
        if line < 0:
            if path in current:
                writes[path] = None
                del current[path]
            continue
        rows = (current.get(path) or BASE.get(path) or b"x\n" * 6).decode().splitlines()
        rows[line % len(rows)] = f"{tag}.{n}"
        data = "".join(f"{row}\n" for row in rows).encode()
        writes[path] = current[path] = data
    # A file made and deleted again in one snapshot is no change of it.
    writes = {path: data for path, data in writes.items() if files.get(path) != data}
    if not writes:
        # Every edit deleted a file already gone: one line changed instead.
        return _apply(files, [("b.txt", 0)], tag)
    return writes


def _merge_tree(root: Path, *commits: str) -> tuple[bool, str, list[str]]:
    done = subprocess.run(
        ["git", "merge-tree", "--write-tree", "--name-only", *commits],
        cwd=root,
        capture_output=True,
        env=GIT_ENV,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    out = done.stdout.decode().split("\n")
    conflicted = out[1 : out.index("")] if done.returncode else []
    return done.returncode == 0, out[0], conflicted


def _files(root: Path, tree: str) -> dict[str, str]:
    rows = git(root, "ls-tree", "-r", tree).splitlines()
    return {row.split("\t", 1)[1]: row.split()[2] for row in rows}


def _confirmed(root: Path, found: Explanation) -> str:
    """The tree git makes of an explanation: a snapshot's state, or git's own merge."""
    states = [git(root, "rev-parse", f"{place.commit}:state").strip() for place in found.snapshots]
    if found.verdict is Verdict.RECORDED:
        return states[0]
    assert found.base is not None
    base = git(root, "rev-parse", f"{found.base.commit}:state").strip()
    start = git(root, "commit-tree", base, "-m", "base").strip()
    merged = git(root, "commit-tree", states[0], "-p", start, "-m", "side").strip()
    for state in states[1:]:
        side = git(root, "commit-tree", state, "-p", start, "-m", "side").strip()
        clean, tree, _ = _merge_tree(root, merged, side)
        assert clean, found
        merged = git(root, "commit-tree", tree, "-p", merged, "-p", side, "-m", "m").strip()
    return git(root, "rev-parse", f"{merged}^{{tree}}").strip()


@given(st.lists(_agent, min_size=2, max_size=3))
# Found by the deep profile: a file added then deleted (the line back at the base's
# files), an agent that edited on after its commit, a merge in conflict git keeps,
# three agents each deleting a file and editing another after its commit.
@example([([[("a.txt", -1)]], 0), ([[("d/e.txt", 0)], [("d/e.txt", -1)]], 0)])
@example([([[("a.txt", 0)]] * 4, 0), ([[("a.txt", 2)]], 0)])
@example([([[("b.txt", 0)]], 0), ([[("b.txt", 2)]], 0), ([[("b.txt", -1), ("a.txt", -1)]], 0)])
@example(
    [
        ([[("a.txt", -1)], [("b.txt", 0)]], 0),
        ([[("b.txt", -1)], [("a.txt", 0)], [("b.txt", -1)]], 0),
        ([[("d/c.txt", -1)], [("b.txt", 0)], [("a.txt", 0)]], 0),
    ]
)
def test_random_parallel_lines_merged_by_git_are_explained(
    agents: list[tuple[list[list[tuple[str, int]]], int]],
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = make_repo(Path(directory) / "repo", BASE)
        main = git(root, "rev-parse", "HEAD").strip()
        line = Agent(open_repository(root))
        line.snapshot(dict(BASE), tool="init")
        branches = []
        for number, (snapshots, at) in enumerate(agents):
            agent = line.fork(0)
            for step, edits in enumerate(snapshots):
                agent.snapshot(_apply(agent.files, edits, f"agent{number}.{step}"))
            state = agent.state(min(at, len(snapshots) - 1))
            made = git(root, "commit-tree", state, "-p", main, "-m", f"agent {number}")
            branches.append(made.strip())
        clean, tree, conflicted = _merge_tree(root, branches[0], branches[1])
        if clean and len(branches) == 3:
            first = git(root, "commit-tree", tree, "-p", branches[0], "-p", branches[1], "-m", "m")
            clean, tree, conflicted = _merge_tree(root, first.strip(), branches[2])
        found = explain(line.repo, tree)
        if clean:
            assert found.explained, (found, tree)
        elif not found.explained:
            # Something is named, and only paths git's merge changed: a path that no
            # agent touched is never named. (Which of the changed paths is named depends
            # on the nearest merge: a file git left in conflict may be another clean
            # merge's, the deletion beside it not; test_explain.py names the conflict.)
            assert found.paths, found
            baseline = _files(root, "HEAD^{tree}")
            files = _files(root, tree)
            changed = {p for p in baseline.keys() | files.keys() if baseline.get(p) != files.get(p)}
            assert set(found.paths) <= changed, (found, conflicted)
        if found.explained:
            # In conflict too, git's tree may be a state, or another clean merge (a
            # file changed on one side and deleted on the other: git keeps it): git
            # itself confirms every explanation.
            assert _confirmed(root, found) == tree, found
