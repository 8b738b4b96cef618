"""The oracle of ``snapline blame``: a twin repository, one commit per snapshot, and git blame.

The twin is written with ``git fast-import`` from the history: snapshot N becomes one
commit whose author is who recorded it (``baseline`` for snapshot 0, ``person`` for an
outside change, else the agent's session, or its tool when it has none), changing the
files the snapshot changed (a recorded rename as a deletion and an addition, as git
stores any). Then ``git blame --line-porcelain`` of a file at snapshot N's commit says,
per line, which commit (so which snapshot) and which author wrote it; git follows a
file across a commit where its path is new by its own rename detection, which
``snapline blame`` must therefore match (snapline/blame/renames.py).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from snapline import Workspace
from snapline.snapshots.kinds import ChangeKind
from tests.scanning.git_reference import GIT

__all__ = ["Twin", "git_env", "snapline_lines"]

_HEADER = re.compile(rb"^([0-9a-f]{40}) (\d+) (\d+)")


def git_env(home: Path) -> dict[str, str]:
    """An environment without the user's git configuration."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.fspath(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }


def _author(number: int, tool: str, session: str | None) -> str:
    if number == 0:
        return "baseline"
    if tool == "external":
        return "person"
    return re.sub(r"[<>\n]", "_", session or tool)


@dataclass
class Twin:
    """A twin repository of a workspace's history, up to the snapshot it was built at."""

    git_dir: Path
    commits: dict[int, str]  # snapshot -> the commit holding its state
    snapshots: dict[str, int]  # commit -> the snapshot it belongs to

    @classmethod
    def build(cls, ws: Workspace, git_dir: Path) -> Twin:
        """Write the twin of ``ws``'s main line into a new bare repository ``git_dir``."""
        assert GIT is not None
        env = git_env(git_dir.parent)
        subprocess.run([GIT, "init", "-q", "--bare", os.fspath(git_dir)], env=env, check=True)
        store, rebuild = ws._store, ws._reconstructor.rebuild
        stream = bytearray()
        with store.read():
            latest = store.snapshots.latest_number() or 0
            for number in range(latest + 1):
                row = store.snapshots.get(number)
                assert row is not None
                author = _author(number, row.tool, row.session).encode()
                ident = b"%s <s%d@twin> %d +0000\n" % (author, number, 1_000_000 + number)
                message = b"snapshot %d\n" % number
                stream += b"commit refs/heads/twin\nmark :%d\n" % (number + 1)
                stream += b"author " + ident + b"committer " + ident
                stream += b"data %d\n%s" % (len(message), message)
                if number:
                    stream += b"from :%d\n" % number
                for change in store.changes.of(number):
                    if change.kind == ChangeKind.RENAMED and change.old_path is not None:
                        stream += b"D " + _quoted(change.old_path) + b"\n"
                    if change.result_hash is None:
                        stream += b"D " + _quoted(change.path) + b"\n"
                        continue
                    data = rebuild(change)
                    mode = _git_mode(change.result_mode or 0)
                    stream += b"M %o inline %s\ndata %d\n" % (mode, _quoted(change.path), len(data))
                    stream += data + b"\n"
        marks_file = git_dir / "marks"
        subprocess.run(
            [GIT, "--git-dir", os.fspath(git_dir), "fast-import", "--quiet",
             f"--export-marks={marks_file}"],
            input=bytes(stream), env=env, check=True,
        )  # fmt: skip
        commits = {}
        for line in marks_file.read_text().splitlines():
            mark, sha = line.split()
            commits[int(mark[1:]) - 1] = sha
        snapshots = {sha: number for number, sha in commits.items()}
        return cls(git_dir, commits, snapshots)

    def blame(
        self, path: str, number: int, contents: bytes | None = None
    ) -> list[tuple[int | None, str]]:
        """git's ``(snapshot, author)`` of each line of ``path`` at snapshot ``number``.

        With ``contents`` (the file on disk), as ``git blame --contents``: a line it
        changed is ``(None, "unrecorded")`` (git's "Not Committed Yet").
        """
        assert GIT is not None
        commit = self.commits[number] if contents is None else self._on_disk(number, path, contents)
        done = subprocess.run(
            [GIT, "--git-dir", os.fspath(self.git_dir), "blame", "--line-porcelain",
             commit, "--", path],
            env=git_env(self.git_dir.parent), capture_output=True, check=True,
        )  # fmt: skip
        found: list[tuple[int | None, str]] = []
        sha = ""
        for line in done.stdout.split(b"\n"):
            header = _HEADER.match(line)
            if header:
                sha = header[1].decode()
            elif line.startswith(b"author "):
                found.append((self.snapshots.get(sha), line[7:].decode()))
        return found

    def _on_disk(self, number: int, path: str, contents: bytes) -> str:
        """A commit on snapshot ``number``'s holding ``contents`` at ``path``, by ``unrecorded``.

        As ``git blame --contents`` (which git before 2.41 refuses with a commit named):
        a line it changed is blamed on this commit, which is no snapshot's.
        """
        assert GIT is not None
        stream = (
            b"commit refs/heads/disk\nauthor unrecorded <u@twin> 2000000 +0000\n"
            b"committer unrecorded <u@twin> 2000000 +0000\ndata 5\ndisk\n"
            b"from %s\nM 100644 inline %s\ndata %d\n%s\n"
        ) % (self.commits[number].encode(), _quoted(path), len(contents), contents)
        env = git_env(self.git_dir.parent)
        git = [GIT, "--git-dir", os.fspath(self.git_dir)]
        subprocess.run(
            [*git, "fast-import", "--quiet", "--force"], input=stream, env=env, check=True
        )
        done = subprocess.run([*git, "rev-parse", "disk"], env=env, capture_output=True, check=True)
        return done.stdout.decode().strip()


def snapline_lines(ws: Workspace, path: str) -> list[tuple[int | None, str]]:
    """``snapline blame``'s ``(snapshot, author)`` of each line of ``path`` on disk."""
    return [(line.origin.number, line.origin.author) for line in ws.blame(path).lines]


def _git_mode(mode: int) -> int:
    if stat.S_ISLNK(mode):
        return 0o120000
    return 0o100755 if mode & 0o100 else 0o100644


def _quoted(path: str) -> bytes:
    raw = path.encode("utf-8", "surrogateescape")
    if not any(c in raw for c in b'"\\\n') and not raw.startswith(b'"'):
        return raw
    escaped = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
    return b'"' + escaped + b'"'
