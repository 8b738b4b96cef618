"""A baseline version the ledger leaves out, read where it still is: the workspace, or git.

The ledger keeps no copy of a baseline file until a snapshot changes it, and an index
rebuilt from the ledger (a fresh clone) copies none either: the workspace holds those
versions, and in a git work tree the commit checked out holds them too. Both are only
places to look: bytes are handed out only when they are exactly the recorded size and
hash to the recorded SHA-256, so a file edited since, a special file, a symlinked
parent or a crafted commit yields nothing rather than other content.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from snapline.hashing import hash_bytes

__all__ = ["baseline_content"]

_GIT_TIMEOUT = 30


def baseline_content(root: Path, path: str, hash_: str, size: int) -> bytes | None:
    """The bytes of a baseline version from the workspace file or git's ``HEAD``.

    Args:
        root: The workspace root.
        path: The recorded path.
        hash_: The version's recorded hash.
        size: Its recorded size.

    Returns:
        The content, checked against ``size`` and ``hash_``; ``None`` when neither the
        workspace nor the commit checked out holds that version.
    """
    for read in (_from_workspace, _from_git):
        data = read(root, path, size)
        if data is not None and len(data) == size and hash_bytes(data) == hash_:
            return data
    return None


def _from_workspace(root: Path, path: str, size: int) -> bytes | None:
    location = os.path.join(root, path)
    try:
        info = os.lstat(location)
        if stat.S_ISLNK(info.st_mode):
            return os.fsencode(os.readlink(location))
        # Never a FIFO or a device: reading one could block or never end.
        if not stat.S_ISREG(info.st_mode) or info.st_size != size:
            return None
        descriptor = os.open(location, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(descriptor, "rb") as handle:
            return handle.read(size + 1)
    except (OSError, ValueError):
        return None


def _from_git(root: Path, path: str, size: int) -> bytes | None:
    import subprocess  # here: a record that finds its versions in the index never asks git

    from snapline.git_binary import git_environment

    # Not git_binary.run_git: read as a stream, stopped past `size` bytes (a blob may be
    # far larger than the file it would stand for). The workspace's own repository
    # (git_environment). The blob is read raw (no filters), which is what the workspace
    # held unless a filter or autocrlf rewrote it, and then its hash differs, unused.
    env = git_environment()
    argv = [b"git", b"cat-file", b"blob", b"HEAD:./" + os.fsencode(path)]
    try:
        with subprocess.Popen(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        ) as process:
            assert process.stdout is not None
            data = process.stdout.read(size + 1)
            if len(data) > size:
                process.kill()
                return None
            code = process.wait(timeout=_GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None
    return data if code == 0 else None
