"""Forgetting a secret outside git: the private repository keeps no byte of it afterwards.

A workspace outside git keeps its history in ``.snapline/repo``, a bare repository no
``git gc`` ever runs in. ``snapline forget`` rewrites the lines, and the old commits,
trees and the secret's blob must not stay behind as unreachable objects: after the
forget no file under ``.snapline/`` holds the secret, read raw and, for git's loose
objects, inflated (a pack a user made with ``git gc`` there is rewritten too). The
history still reads and verifies, and no git binary takes part.
"""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.history_refs.gitrepo import ENV, GIT
from tests.nogit import no_git_path
from tests.reliability.helpers import KILLED, cli

SECRET = b"AKIA-PRIVATE-SECRET-51c0de"


def _holders(state: Path) -> list[str]:
    """Every file under ``state`` holding the secret, raw or zlib-inflated."""
    found = []
    for path in sorted(p for p in state.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if SECRET in data:
            found.append(str(path))
            continue
        try:
            inflated = zlib.decompress(data)
        except zlib.error:
            continue
        if SECRET in inflated:
            found.append(str(path))
    return found


def _ok(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = run_script(*args, cwd=root, env=env)
    assert done.returncode == 0, f"snapline {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def _secret_recorded(root: Path, env: dict[str, str] | None = None) -> None:
    (root / "a.txt").write_text("one\n")
    _ok(root, "init", env=env)
    (root / "config.env").write_bytes(b"TOKEN=" + SECRET + b"\nMODE=dev\n")
    _ok(root, "record", "config.env", "-m", "add the config", env=env)
    (root / "config.env").write_bytes(b"TOKEN=\nMODE=dev\n")
    _ok(root, "record", "config.env", "-m", "drop the token", env=env)
    (root / "a.txt").write_text("two\n")
    _ok(root, "record", "a.txt", "-m", "edit a", env=env)
    assert _holders(root / ".snapline")


def _still_reads(root: Path, env: dict[str, str] | None = None) -> None:
    _ok(root, "verify", "--full", env=env)
    assert "edit a" in _ok(root, "log", env=env)
    assert "forgotten" in _ok(root, "show", "1", env=env)
    with Workspace.open(root) as ws:
        assert ws.content_at("config.env", 2) == b"TOKEN=\nMODE=dev\n"


def test_forget_outside_git_leaves_no_byte_of_the_secret_under_snapline(
    root: Path, tmp_path: Path
) -> None:
    env = {"PATH": no_git_path(tmp_path)}
    _secret_recorded(root, env)
    said = _ok(root, "forget", "config.env", "--snapshot", "1", "-m", "leaked token", env=env)
    assert "deleted from .snapline/repo" in said and "--publish" not in said, said
    assert _holders(root / ".snapline") == []
    _still_reads(root, env)
    # Recording goes on, and the file is recorded again as it is now.
    (root / "a.txt").write_text("three\n")
    _ok(root, "record", "a.txt", "-m", "after the forget", env=env)
    _ok(root, "verify", "--full", env=env)


def test_a_pack_made_by_git_gc_in_the_private_repository_loses_the_secret_too(
    root: Path,
) -> None:
    _secret_recorded(root)
    repo = root / ".snapline" / "repo"
    subprocess.run([*GIT, "--git-dir", str(repo), "gc", "-q"], env=ENV, check=True)
    assert list((repo / "objects" / "pack").glob("*.pack"))
    _ok(root, "forget", "config.env", "--snapshot", "1", "-m", "leaked token")
    assert _holders(root / ".snapline") == []
    # Every object the repository holds, packed or loose, reachable or not, read by git.
    every = subprocess.run(
        [*GIT, "--git-dir", str(repo), "cat-file", "--batch-all-objects", "--batch"],
        env=ENV,
        capture_output=True,
        check=True,
    ).stdout
    assert every and SECRET not in every
    _still_reads(root)
    fsck = subprocess.run(
        [*GIT, "--git-dir", str(repo), "fsck", "--no-dangling"],
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


def test_a_forget_killed_before_its_prune_is_pruned_by_the_next_command(root: Path) -> None:
    _secret_recorded(root)
    # Killed with the refs moved and the index rebuilt, before the cleanup: the old
    # objects are still there, and the next command removes them.
    child = cli(
        root, "forget", "config.env", "--snapshot", "1", "-m", "leaked", crash="forget-indexed"
    )
    assert child.returncode == KILLED, (child.returncode, child.stderr)
    assert _holders(root / ".snapline")
    _ok(root, "status")
    assert _holders(root / ".snapline") == []
    _still_reads(root)
