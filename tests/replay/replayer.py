"""Replaying a git history into a workspace, one snapshot per commit, restoring as it goes.

For each first-parent commit the workspace is made exactly the commit's tree (by git)
and recorded as one snapshot through the library, as an agent host would. At every
K-th snapshot (a *check point*):

1. every file of that snapshot is rebuilt from the store alone and compared with git's
   tree: the same paths, bytes, exec bit and symlink targets;
2. the real command line rolls the workspace back to the previous check point and the
   disk is compared with that commit's tree; ``undo`` then puts it back (compared with
   the tree of the check point again);
3. ``revert`` takes the check point's own snapshot out (the disk must be the tree of the
   snapshot before it);
4. ``verify`` exits 0.

The next commit is then checked out over whatever the restores left, so every later
snapshot also records the way back. The oracle is git's tree each time, never snapline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from snapline import Workspace
from snapline.cli.app import app
from snapline.snapshots.read.history import state_at
from tests.cli_runner import CliRunner, Result
from tests.disk import Entry, disk_tree
from tests.replay.git_history import GitHistory

__all__ = ["Replay", "Tally"]


@dataclass
class Tally:
    """What a replay did, for its test to assert on and report."""

    commits: int = 0
    snapshots: int = 0
    unchanged: int = 0
    rebuilt: int = 0
    rollbacks: int = 0
    undos: int = 0
    reverts: int = 0
    verifies: int = 0
    failures: list[str] = field(default_factory=list)


class Replay:
    """One history replayed into the workspace ``history.work_tree``.

    Args:
        history: The git history (and the oracle).
        every: Check every ``every``-th snapshot recorded.
    """

    def __init__(self, history: GitHistory, every: int) -> None:
        self.history = history
        self.root = history.work_tree
        self.every = every
        self.tally = Tally()
        # For every snapshot number, the git tree its files must equal.
        self.trees: list[str] = []
        # For every tree checked out, the files of it that git ignores.
        self._ignored: dict[str, set[str]] = {}
        self._runner = CliRunner()

    def run(self, commits: list[str]) -> Tally:
        """Replay ``commits`` (oldest first): the first is the baseline, each other a snapshot."""
        self.history.check_out(commits[0])
        Workspace.init(self.root).close()
        self.trees.append(self._checked_out(commits[0]))
        self.tally.commits = 1
        last_check: int | None = None
        since_check = 0
        for commit in commits[1:]:
            self.history.check_out(commit)
            tree_id = self._checked_out(commit)
            with Workspace.open(self.root) as ws:
                snapshot = ws.record(tool="replay", description=f"commit {commit}")
            self.tally.commits += 1
            if snapshot is None:
                # Only a change git ignores (or none): the trees must agree on the rest.
                self._compare(self.trees[-1], f"unchanged at {commit}")
                self.tally.unchanged += 1
                continue
            assert snapshot.number == len(self.trees), (snapshot.number, len(self.trees))
            self.trees.append(tree_id)
            self.tally.snapshots += 1
            since_check += 1
            if since_check == self.every:
                self._check_point(snapshot.number, last_check)
                last_check, since_check = snapshot.number, 0
        return self.tally

    # -- one check point -----------------------------------------------------------------

    def _check_point(self, number: int, earlier: int | None) -> None:
        self._rebuilt(number)
        here = self._expected(self.trees[number])
        if earlier is not None and self._expected(self.trees[earlier]) != here:
            self._restore(["rollback", "--to", str(earlier)], self.trees[earlier])
            self.tally.rollbacks += 1
            self._restore(["undo"], self.trees[number])
            self.tally.undos += 1
        self._restore(["revert", str(number)], self.trees[number - 1])
        self.tally.reverts += 1
        verified = self._cli("verify")
        assert verified.exit_code == 0, (number, verified.output)
        self.tally.verifies += 1

    def _rebuilt(self, number: int) -> None:
        """Every file of snapshot ``number`` rebuilt from the store equals git's tree."""
        with Workspace.open(self.root) as ws:
            versions = state_at(ws._store, number)
            rebuilt = {
                path: Entry(version.mode, ws.content_at(path, number))
                for path, version in versions.items()
            }
        expected = self._expected(self.trees[number])
        assert rebuilt == expected, _difference(rebuilt, expected, f"rebuilt snapshot {number}")
        self.tally.rebuilt += len(rebuilt)

    def _restore(self, args: list[str], tree_id: str) -> None:
        """Run a restoring command: one new snapshot, and the disk is exactly ``tree_id``."""
        before = len(self.trees)
        done = self._cli(*args)
        assert done.exit_code == 0, (args, done.exit_code, done.output)
        with Workspace.open(self.root) as ws:
            assert ws.latest == before, (args, ws.latest, before)
        self.trees.append(tree_id)
        self._compare(tree_id, " ".join(args))

    # -- comparing with git ---------------------------------------------------------------

    def _checked_out(self, commit: str) -> str:
        """The tree of ``commit``, just checked out; what git ignores of it is noted now.

        Only now: a tracked file can be ignored by a ``.gitignore`` of its own tree (a
        ``test/tmp/.gitignore`` holding ``*`` ignores itself), and which is known only
        while that tree's ignore files are all on disk.
        """
        tree_id = self.history.tree_id(commit)
        if tree_id not in self._ignored:
            self._ignored[tree_id] = self.history.ignored(self.history.tree(tree_id))
        return tree_id

    def _expected(self, tree_id: str) -> dict[str, Entry]:
        """What snapline holds of a tree: every file git does not ignore in it."""
        ignored = self._ignored[tree_id]
        return {p: e for p, e in self.history.tree(tree_id).items() if p not in ignored}

    def _compare(self, tree_id: str, what: str) -> None:
        """The disk holds exactly the files of ``tree_id`` that git does not ignore.

        Past them, only files that git ignores may be on disk: restores leave those alone.
        """
        expected = self._expected(tree_id)
        disk = disk_tree(self.root)
        extra = self.history.ignored(disk.keys() - expected.keys())
        ignored = self._ignored[tree_id] | extra
        disk = {p: e for p, e in disk.items() if p not in ignored}
        assert disk == expected, _difference(disk, expected, f"{what} (tree {tree_id})")

    def _cli(self, *args: str) -> Result:
        return self._runner.invoke(app, ["--root", str(self.root), *args], catch_exceptions=False)


def _difference(actual: dict[str, Entry], expected: dict[str, Entry], what: str) -> str:
    """The first differences, named by path, for an assertion message."""
    lines = [f"{what}: differs from git's tree"]
    for path in sorted(actual.keys() | expected.keys()):
        got, want = actual.get(path), expected.get(path)
        if got == want:
            continue
        if got is None:
            lines.append(f"  missing {path}")
        elif want is None:
            lines.append(f"  extra {path}")
        elif got.mode != want.mode:
            lines.append(f"  mode of {path}: {got.mode:o}, git has {want.mode:o}")
        else:
            lines.append(f"  content of {path} ({len(got.content)} bytes, git {len(want.content)})")
        if len(lines) > 12:
            lines.append("  ...")
            break
    return "\n".join(lines)
