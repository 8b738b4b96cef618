"""A real git history as the oracle of a replay: its commits, trees and blobs, by real git.

`GitHistory` works on a private bare repository of its own: the objects of a bundle
fetched into it, or a borrowed object store (``objects/info/alternates``) for the
project's own checkout, whose ``.git`` is only read. It puts a commit's tree into a
workspace with ``git read-tree -u --reset`` (its index is a file of its own, so the
workspace holds no ``.git``) and answers what a tree holds with ``git ls-tree`` and
``git cat-file``; which paths git ignores is asked of ``git check-ignore``. Nothing here
comes from snapline.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from tests.disk import Entry

__all__ = ["GitHistory"]

_GITLINK = 0o160000


class GitHistory:
    """A git repository read by real git, and the workspace it checks commits out into.

    Args:
        git_dir: An empty directory for the private bare repository.
        work_tree: The workspace that :meth:`check_out` fills.
    """

    def __init__(self, git_dir: Path, work_tree: Path) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        self._index = git_dir / "replay-index"
        self._trees: dict[str, dict[str, Entry]] = {}
        self._git("init", "--quiet", "--bare", str(git_dir), bare=True)

    @classmethod
    def from_bundle(cls, bundle: Path, git_dir: Path, work_tree: Path) -> GitHistory:
        """A history holding every branch of ``bundle``."""
        history = cls(git_dir, work_tree)
        history._git("fetch", "--quiet", str(bundle), "refs/heads/*:refs/heads/*")
        return history

    @classmethod
    def borrowing(cls, checkout: Path, git_dir: Path, work_tree: Path) -> GitHistory | None:
        """A history reading the objects of the git checkout at ``checkout`` (never writing them).

        Returns ``None`` when ``checkout`` is not in a git work tree.
        """
        found = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--path-format=absolute", "--git-common-dir"],
            capture_output=True,
            text=True,
            check=False,
            env=_git_env(),
        )
        if found.returncode != 0:
            return None
        history = cls(git_dir, work_tree)
        objects = Path(found.stdout.strip()) / "objects"
        (git_dir / "objects" / "info" / "alternates").write_text(f"{objects}\n")
        head = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            env=_git_env(),
        ).stdout.strip()
        history._git("update-ref", "refs/heads/checkout", head)
        return history

    # -- reading -------------------------------------------------------------------------

    def first_parent(self, ref: str, limit: int | None = None) -> list[str]:
        """The commits of ``ref``'s first-parent line, oldest first (the first ``limit``)."""
        out = self._git("rev-list", "--first-parent", "--reverse", ref).decode()
        commits = out.split()
        return commits if limit is None else commits[:limit]

    def heads(self) -> list[str]:
        """The branch names of the repository."""
        out = self._git("for-each-ref", "--format=%(refname:short)", "refs/heads/").decode()
        return out.split()

    def tree_id(self, commit: str) -> str:
        """The tree object of ``commit``."""
        return self._git("rev-parse", f"{commit}^{{tree}}").decode().strip()

    def tree(self, tree_id: str) -> dict[str, Entry]:
        """Every file of a tree, as ``git ls-tree -r`` and ``git cat-file`` give it.

        Submodules (mode 160000) are left out: git checks out an empty directory for
        them, which holds no file.
        """
        if tree_id not in self._trees:
            listing = self._git("ls-tree", "-r", "-z", "--full-tree", tree_id)
            entries: list[tuple[str, int, str]] = []
            for record in listing.split(b"\0"):
                if not record:
                    continue
                meta, _, name = record.partition(b"\t")
                mode, _kind, oid = meta.split(b" ")
                if int(mode, 8) != _GITLINK:
                    entries.append((os.fsdecode(name), int(mode, 8), oid.decode()))
            blobs = self._blobs(oid for _, _, oid in entries)
            self._trees[tree_id] = {path: Entry(mode, blobs[oid]) for path, mode, oid in entries}
        return self._trees[tree_id]

    def ignored(self, paths: Iterable[str]) -> set[str]:
        """Which of ``paths`` the ``.gitignore`` files now in the workspace ignore.

        Asked of ``git check-ignore --no-index`` (tracked or not, as snapline sees them).
        """
        query = b"\0".join(os.fsencode(p) for p in paths)
        if not query:
            return set()
        done = subprocess.run(
            ["git", "check-ignore", "--no-index", "-z", "--stdin"],
            input=query + b"\0",
            capture_output=True,
            env=self._env(),
            check=False,
        )
        # 1: nothing is ignored; anything else but 0 is a failure of git itself.
        assert done.returncode in (0, 1), done.stderr
        return {os.fsdecode(p) for p in done.stdout.split(b"\0") if p}

    # -- writing the workspace -----------------------------------------------------------

    def check_out(self, commit: str) -> None:
        """Make the workspace exactly ``commit``'s tree, ``.snapline/`` aside.

        ``read-tree -u --reset`` rewrites what differs from the last tree checked out
        (and any of its files changed since); ``clean`` removes what no tree put there.
        """
        self._git("read-tree", "-u", "--reset", commit)
        self._git("clean", "-ffdqx", "-e", "/.snapline")

    # -- plumbing ------------------------------------------------------------------------

    def _env(self) -> dict[str, str]:
        return _git_env(
            GIT_DIR=str(self.git_dir),
            GIT_WORK_TREE=str(self.work_tree),
            GIT_INDEX_FILE=str(self._index),
        )

    def _git(self, *args: str, bare: bool = False) -> bytes:
        env = _git_env() if bare else self._env()
        done = subprocess.run(["git", *args], capture_output=True, env=env, check=False)
        assert done.returncode == 0, (args, done.stderr.decode(errors="replace"))
        return done.stdout

    def _blobs(self, oids: Iterable[str]) -> Mapping[str, bytes]:
        wanted = sorted(set(oids))
        if not wanted:
            return {}
        out = self._git_input(["cat-file", "--batch"], "".join(f"{o}\n" for o in wanted).encode())
        blobs: dict[str, bytes] = {}
        at = 0
        for oid in wanted:
            header_end = out.index(b"\n", at)
            name, kind, size = out[at:header_end].split(b" ")
            assert (name.decode(), kind) == (oid, b"blob"), out[at:header_end]
            start = header_end + 1
            blobs[oid] = out[start : start + int(size)]
            at = start + int(size) + 1  # the content is followed by one LF
        return blobs

    def _git_input(self, args: list[str], data: bytes) -> bytes:
        done = subprocess.run(
            ["git", *args], input=data, capture_output=True, env=self._env(), check=False
        )
        assert done.returncode == 0, (args, done.stderr.decode(errors="replace"))
        return done.stdout


def _git_env(**extra: str) -> dict[str, str]:
    """The environment without the user's git configuration, so every machine sees the same."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
    )
    env.update(extra)
    return env
