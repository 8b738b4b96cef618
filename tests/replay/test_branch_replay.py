"""``snapline branch N`` over real histories: the branch holds exactly snapshot N's files.

Each bundle's first-parent history is recorded into a workspace that is a git work tree
of its own, one snapshot per commit, as the replay does (``tests/replay/replayer.py``).
HEAD is committed in the middle of the history, so its tree holds files that earlier
snapshots did not have yet and files that later snapshots deleted. Then ``branch N``
is made for snapshots across the whole history, and its tree, read back by
``git ls-tree`` and ``git cat-file``, must be the files of the commit that snapshot N
recorded (those git does not ignore) — git's tree is the oracle, never snapline.
Outside the workspace's files the branch is HEAD: the ledger under ``.snapline/``.

``SNAPLINE_REPLAY=short`` (``make test``) checks a spread of snapshots of a bounded
history; ``SNAPLINE_REPLAY=deep`` (``make test-deep``) every snapshot of every commit.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from snapline import Workspace
from tests.disk import Entry
from tests.replay.git_history import GitHistory, _git_env
from tests.replay.replayer import Replay

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEEP = os.environ.get("SNAPLINE_REPLAY", "short") == "deep"

# bundle -> commits replayed and branches made in the short run (spread evenly, the
# first and the last among them); the deep run replays every commit and branches all.
SHORT = {"bats-core": (125, 12), "diff-so-fancy": (240, 12)}


def _git(root: Path, *args: str, data: bytes | None = None) -> bytes:
    env = _git_env(
        GIT_AUTHOR_NAME="Dev",
        GIT_AUTHOR_EMAIL="dev@example.com",
        GIT_COMMITTER_NAME="Dev",
        GIT_COMMITTER_EMAIL="dev@example.com",
    )
    done = subprocess.run(
        ["git", "-C", str(root), *args], input=data, capture_output=True, env=env, check=False
    )
    assert done.returncode == 0, (args, done.stderr.decode(errors="replace"))
    return done.stdout


def _branch_files(root: Path, branch: str) -> dict[str, Entry]:
    """The branch's files outside ``.snapline/``, as git's own plumbing reads them."""
    entries: list[tuple[str, int, str]] = []
    for record in _git(root, "ls-tree", "-r", "-z", branch).split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, _kind, oid = meta.split(b" ")
        path = os.fsdecode(name)
        # A submodule (160000) is a commit git does not hold here; the trees have none.
        if not path.startswith(".snapline/") and int(mode, 8) != 0o160000:
            entries.append((path, int(mode, 8), oid.decode()))
    blobs = _git(
        root, "cat-file", "--batch", data="".join(f"{o}\n" for _, _, o in entries).encode()
    )
    files: dict[str, Entry] = {}
    at = 0
    for path, mode, _ in entries:
        header_end = blobs.index(b"\n", at)
        size = int(blobs[at:header_end].split(b" ")[2])
        files[path] = Entry(mode, blobs[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1
    return files


def _difference(got: dict[str, Entry], want: dict[str, Entry]) -> list[str]:
    extra = sorted(got.keys() - want.keys())
    missing = sorted(want.keys() - got.keys())
    changed = sorted(p for p in got.keys() & want.keys() if got[p] != want[p])
    return [f"extra {p}" for p in extra] + [f"missing {p}" for p in missing] + changed


@pytest.mark.parametrize("name", sorted(SHORT))
def test_a_branch_holds_exactly_each_snapshots_files(name: str, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    history = GitHistory.from_bundle(FIXTURES / f"{name}.bundle", tmp_path / "git", root)
    (head,) = history.heads()
    limit, count = (None, None) if DEEP else SHORT[name]
    commits = history.first_parent(head, limit)
    replay = Replay(history, every=len(commits) + 1)
    replay.run(commits)
    # The workspace is also a git work tree of its own (the replay's git never descends
    # into a `.git`), its HEAD the commit half way through the history: a user who
    # committed, then let an agent work on.
    middle = commits[len(commits) // 2]
    _git(root, "init", "-q", "-b", "main")
    _git(root, "fetch", "-q", str(history.git_dir), f"refs/heads/{head}")
    _git(root, "update-ref", "refs/heads/main", middle)
    head_tree = history.tree(history.tree_id(middle))
    head_ignored = replay._ignored[history.tree_id(middle)]
    numbers = list(range(len(replay.trees)))
    if count is not None:
        step = max(1, (len(numbers) - 1) // (count - 1))
        numbers = sorted({*numbers[::step], numbers[-1]})
    wrong: dict[int, list[str]] = {}
    with Workspace.open(root) as ws:
        for number in numbers:
            tree_id = replay.trees[number]
            made = ws.branch(number, f"b{number}")
            assert made.number == number and made.parent == middle
            got = _branch_files(root, f"b{number}")
            # Files git ignores (in this tree or HEAD's) are not snapline's: HEAD's stay.
            skip = replay._ignored[tree_id] | head_ignored
            for path in skip & got.keys():
                assert got.pop(path) == head_tree[path], (number, path)
            want = {p: e for p, e in replay._expected(tree_id).items() if p not in skip}
            diff = _difference(got, want)
            if diff:
                wrong[number] = diff[:5]
    assert not wrong, wrong
    assert _git(root, "rev-parse", "HEAD").decode().strip() == middle
