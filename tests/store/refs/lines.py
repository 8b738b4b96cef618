"""Builders for the refs store's tests: real git repositories and lines of snapshots."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

from snapline.hashing import hash_bytes
from snapline.store.refs.git import GitRepository, open_repository
from snapline.store.refs.reading import read_snapshot
from snapline.store.refs.writing import StateEdit, append_snapshot
from snapline.store.rows import ChangeRow, SnapshotRow
from tests.store.refs.recording import stored_change

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "user",
    "GIT_AUTHOR_EMAIL": "user@example.invalid",
    "GIT_COMMITTER_NAME": "user",
    "GIT_COMMITTER_EMAIL": "user@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "LC_ALL": "C",
}


def git(cwd: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=data, capture_output=True, env=GIT_ENV, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def git_bytes(cwd: Path, *args: str) -> bytes:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=GIT_ENV, check=True)
    return done.stdout


def make_repo(path: Path, files: dict[str, bytes] | None = None) -> Path:
    """A git repository at ``path`` with ``files`` written and committed (if any)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for name, data in (files or {}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if files:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "the user's commit")
    return path


class Line:
    """A line of snapshots written onto a repository as snapline would write it."""

    def __init__(self, repo: GitRepository, line: str | None = None, tip: str | None = None):
        self.repo = repo
        self.line = line
        self.tip = tip
        self.files: dict[str, bytes] = {}
        self.rows: list[SnapshotRow] = []
        self.changes: list[tuple[ChangeRow, ...]] = []
        self.commits: list[str] = []

    @classmethod
    def at(cls, path: Path) -> Line:
        return cls(open_repository(path))

    def snapshot(
        self,
        writes: dict[str, bytes | None],
        *,
        tool: str = "edit",
        description: str = "an edit",
        mode: int = 0o100644,
        tip: str | None = None,
        fork: str | None = None,
        merges: tuple[str, ...] | list[str] = (),
    ) -> str:
        """Record ``writes`` (path: new content, or ``None`` to delete) as one snapshot."""
        previous = self.rows[-1] if self.rows else None
        number = 0 if previous is None else previous.number + 1
        row = SnapshotRow(
            number=number,
            id=uuid.uuid4().hex,
            parent_id=None if previous is None else previous.id,
            time=f"2026-11-28T16:{number // 60 % 60:02d}:{number % 60:02d}.000000+00:00",
            tool=tool,
            description=description,
            session="s1",
            metadata='{"prompt":"make it so"}',
            skipped="[]",
            version=2,
            chain_hash=hash_bytes(((previous.chain_hash if previous else "") + "x").encode()),
            merges=json.dumps([read_snapshot(self.repo, c).record.row.id for c in merges]),
        )
        changes = tuple(
            stored_change(number, path, self.files.get(path), data, mode=mode, delta_chain=0)
            for path, data in sorted(writes.items())
        )
        edits = [StateEdit(path, data, mode) for path, data in sorted(writes.items())]
        line = self.line or row.id
        commit = append_snapshot(
            self.repo,
            line,
            row,
            changes,
            edits,
            tip=self.tip if tip is None else tip,
            fork=fork,
            merges=merges,
        )
        self.line, self.tip = line, commit
        for path, data in writes.items():
            if data is None:
                self.files.pop(path, None)
            else:
                self.files[path] = data
        self.rows.append(row)
        self.changes.append(changes)
        self.commits.append(commit)
        return commit
