"""The MCP ``read_file`` and ``list_files`` tools: the workspace as a model reads it.

Both stay inside the root and out of ``.git/`` and ``.snapline/`` (the writers' rule,
:func:`snapline.paths.writable_relpath`, with the action ``read`` or ``list``); neither
follows a symlink (a link reads as its target path, as snapline records it), and
``list_files`` lists what snapline tracks plus what is new and not ignored, so ignored
files (build output, ``node_modules``) stay out of a model's context.
"""

from __future__ import annotations

import base64
import os
import stat
from typing import TYPE_CHECKING, Any

from snapline.errors import SnaplineError
from snapline.paths import disk_path, writable_relpath

if TYPE_CHECKING:
    from snapline.snapshots.read.refs import SnapshotRef
    from snapline.workspace import Workspace

__all__ = ["DEFAULT_LIST_LIMIT", "DEFAULT_READ_BYTES", "NotAFileError", "list_files", "read_file"]

DEFAULT_READ_BYTES = 256 * 1024
"""How much of a file ``read_file`` returns unless asked for more."""

DEFAULT_LIST_LIMIT = 1000
"""How many paths ``list_files`` returns unless asked for more."""


class NotAFileError(SnaplineError):
    """``read_file`` was named a directory, a missing path or a special file.

    Attributes:
        path: The workspace-relative path.
        detail: What stands there.
    """

    exit_code = 1
    path: str
    detail: str

    def _message(self) -> str:
        return (
            f"cannot read {self.path}: {self.detail}; call `list_files` to see the "
            "workspace's files"
        )


def read_file(
    ws: Workspace,
    path: str,
    snapshot: SnapshotRef | None = None,
    max_bytes: int = DEFAULT_READ_BYTES,
) -> dict[str, Any]:
    """One file's content: on disk now, or as recorded after ``snapshot``.

    Args:
        ws: The open workspace.
        path: Relative to the root (or absolute inside it).
        snapshot: Read the version recorded after this snapshot instead of the disk.
        max_bytes: Return at most this many bytes (``truncated`` says when cut).

    Returns:
        ``path``, ``snapshot``, ``size``, ``truncated``, ``symlink`` and either ``text``
        (UTF-8) or ``base64`` (any other bytes).

    Raises:
        ProtectedPathError: If the path is inside ``.git/`` or ``.snapline/``.
        UnsafePathError: If it leaves the root or crosses a symlinked directory.
        NotAFileError: If nothing readable is at the path on disk.
    """
    rel = writable_relpath(ws.root, path, action="read")
    symlink = False
    if snapshot is not None:
        data = ws.content_at(rel, snapshot)
        size = len(data)
    else:
        location = disk_path(ws.root, rel)
        try:
            info = os.lstat(location)
        except (FileNotFoundError, NotADirectoryError):
            raise NotAFileError(rel, "nothing is there") from None
        if stat.S_ISLNK(info.st_mode):
            symlink = True
            data = os.fsencode(os.readlink(location))
            size = len(data)
        elif stat.S_ISREG(info.st_mode):
            # O_NOFOLLOW: a link swapped in since the lstat is refused, not followed.
            descriptor = os.open(location, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(descriptor, "rb") as handle:
                data = handle.read(max(0, max_bytes) + 1)
            size = info.st_size
        else:
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise NotAFileError(rel, kind)
    shown = data[: max(0, max_bytes)]
    result: dict[str, Any] = {
        "path": rel,
        "snapshot": snapshot,
        "size": size,
        "truncated": len(data) > len(shown),
        "symlink": symlink,
    }
    try:
        result["text"] = shown.decode("utf-8")
    except UnicodeDecodeError:
        result["base64"] = base64.b64encode(shown).decode("ascii")
    return result


def list_files(ws: Workspace, under: str = "", limit: int = DEFAULT_LIST_LIMIT) -> dict[str, Any]:
    """The tracked files, and the new ones not ignored, under a directory, with their state.

    Args:
        ws: The open workspace.
        under: A directory (or file) relative to the root; empty: the whole workspace.
        limit: Return at most this many paths (``truncated`` says when cut).

    Returns:
        ``files``: ``{"path", "status"}`` sorted by path, the status ``tracked`` (as
        recorded), ``modified``, ``deleted`` (tracked, gone from disk), ``untracked``
        (new, not ignored) or ``unreadable``; ``in_sync`` (no outside change under
        ``under``), ``truncated``.

    Raises:
        ProtectedPathError: If ``under`` is inside ``.git/`` or ``.snapline/``.
        UnsafePathError: If it leaves the root.
    """
    scope = writable_relpath(ws.root, under, action="list") if under.strip("/.") else None
    status = {
        path: "tracked"
        for path in ws.tracked()
        if scope is None or path == scope or path.startswith(scope + "/")
    }
    problems = ws.check_sync(scope).problems
    for problem in problems:
        if problem.path is not None:
            status[problem.path] = problem.kind
    paths = sorted(status)
    shown = paths[: max(0, limit)]
    return {
        "files": [{"path": path, "status": status[path]} for path in shown],
        "in_sync": not problems,
        "truncated": len(paths) > len(shown),
    }
