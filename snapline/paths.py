"""Workspace-relative paths: the one place that decides whether a path is safe.

A store may come from elsewhere (it can be committed to a repository), so every path
read from it is checked again before it is used to touch the disk: no absolute paths,
no ``..``, nothing inside the store, and no symlinked directory on the way, because a
symlink inside the root can point anywhere.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path, PurePosixPath

from snapline.errors import SnaplineError

__all__ = [
    "GIT_DIR",
    "STORE_DIR",
    "OutputInStoreError",
    "UnknownPathError",
    "UnsafePathError",
    "UnsafeRecordError",
    "check_recorded",
    "check_relpath",
    "disk_path",
    "inside_git_dir",
    "output_path",
    "relpath_from_user",
]

STORE_DIR = ".snapline"

GIT_DIR = ".git"
"""A git repository's own directory: tracked around, never written into."""


class UnsafePathError(SnaplineError):
    """A path is absolute, climbs out of the root, names the store or crosses a symlink."""

    exit_code = 2

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(self._describe(path, reason))

    @staticmethod
    def _describe(path: str, reason: str) -> str:
        return f"refusing path {path!r}: {reason}"


class UnknownPathError(SnaplineError):
    """A path named for recording or restoring matches nothing there: most likely a typo.

    Recording a path neither on disk nor tracked, or rolling back one the history never
    had, would silently find "nothing changed", so it is refused (exit 2, a usage error,
    as git refuses a pathspec that matches nothing).

    Attributes:
        path: The workspace-relative path.
        doing: What was asked of it (``record``, ``roll back``).
    """

    exit_code = 2

    def __init__(self, path: str, doing: str = "record") -> None:
        self.path = path
        self.doing = doing
        if doing == "record":
            where = "is neither on disk nor tracked"
            hint = "`snapline status` shows what changed"
        else:
            where = "was never in the history"
            hint = "`snapline log --file PATH` lists the snapshots that changed a path"
        super().__init__(
            f"{path} {where}, so there is nothing to {doing} there; check the path ({hint})"
        )


class UnsafeRecordError(UnsafePathError):
    """The store itself records an unsafe path: it was damaged, or crafted to escape the root.

    A path a caller typed is a usage error (:class:`UnsafePathError`, exit 2); one read
    from the store means the store cannot be trusted (exit 3, like a corrupt store).
    """

    exit_code = 3

    @staticmethod
    def _describe(path: str, reason: str) -> str:
        return (
            f"the store records the path {path!r}, which snapline refuses to use: {reason}; "
            "the store may come from an untrusted source, run `snapline verify`"
        )


class OutputInStoreError(SnaplineError):
    """A file the user named (a patch, a page) would be written inside ``.snapline/``.

    Only snapline writes there: an export over ``store.db`` replaced the whole history.
    """

    exit_code = 2

    def __init__(self, path: Path, store: Path, what: str = "the output") -> None:
        self.path = str(path)
        self.store = str(store)
        super().__init__(
            f"refusing to write {what} to {path}: it is inside the store {store}, "
            "which only snapline writes; choose a path outside it"
        )


def output_path(root: Path, path: str | os.PathLike[str], what: str = "the output") -> Path:
    """The absolute path to write a file the user named, refused inside the store.

    The store directory is recognised however the path reaches it: relative or
    absolute, through ``..`` or a symlinked directory, and, where the filesystem folds
    case, under another spelling (its directories are compared by device and inode).

    Args:
        root: The workspace root.
        path: Where the user wants the file (relative to the current directory).
        what: What is written, for the message (``"the patch"``).

    Returns:
        ``path`` made absolute (not resolved: a symlink named like the output is
        replaced by the atomic write, never followed).

    Raises:
        OutputInStoreError: If ``path`` is the store directory or inside it.
    """
    target = Path(os.path.abspath(path))
    store = Path(os.path.realpath(root / STORE_DIR))
    real = Path(os.path.realpath(target.parent)) / target.name
    if _inside_store(real, store, Path(os.path.realpath(root))):
        raise OutputInStoreError(target, store, what)
    return target


def _inside_store(real: Path, store: Path, real_root: Path) -> bool:
    if real == store or store in real.parents:
        return True
    with contextlib.suppress(ValueError):
        # A case-folding filesystem (macOS, Windows) opens .SNAPLINE/ as the store.
        first = real.relative_to(real_root).parts[:1]
        if first and first[0].casefold() == STORE_DIR:
            return True
    try:
        store_stat = os.stat(store)
    except OSError:
        return False
    for candidate in (real, *real.parents):
        with contextlib.suppress(OSError):
            if os.path.samestat(os.stat(candidate), store_stat):
                return True
    return False


def check_recorded(path: str) -> str:
    """:func:`check_relpath` for a path read from the store.

    Raises:
        UnsafeRecordError: If the path is unsafe.
    """
    try:
        return check_relpath(path)
    except UnsafeRecordError:
        raise
    except UnsafePathError as error:
        raise UnsafeRecordError(path, error.reason) from None


def check_relpath(path: str) -> str:
    """Validate a workspace-relative POSIX path as stored in snapshots.

    Args:
        path: A path such as ``src/app.py``.

    Returns:
        The same path, unchanged.

    Raises:
        UnsafePathError: If it is empty, absolute, not normalised, contains ``..`` or
            NUL, or names the store directory. Backslashes, colons, spaces, control
            characters and wildcards are legal in POSIX names and accepted.
    """
    if not path or "\x00" in path:
        raise UnsafePathError(path, "empty path or NUL byte")
    # Backslashes and drive-like colons (``c:notes.txt``) are ordinary characters in a
    # POSIX name, and git tracks them; only a leading slash makes a path absolute here.
    if path.startswith("/"):
        raise UnsafePathError(path, "absolute paths are not allowed in a workspace")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UnsafePathError(path, "the path must be normalised and stay inside the root")
    if parts[0] == STORE_DIR:
        raise UnsafePathError(path, f"{STORE_DIR}/ holds the store and is never tracked")
    return path


def inside_git_dir(path: str) -> bool:
    """Whether a relpath lies inside a ``.git`` directory (at any depth), never written."""
    return GIT_DIR in path.split("/")


def relpath_from_user(root: Path, path: str | os.PathLike[str]) -> str:
    """Turn a path given by a caller (absolute, or relative to the root) into a safe relpath.

    Symlinks are never resolved below the root: a symlink named last is itself the path
    (a tracked file), so naming it never widens an operation to what it points to; a
    path whose parent directory inside the root is a symlink is refused.

    Raises:
        UnsafePathError: If the path leaves the root, names the store, or goes through a
            symlinked directory inside the root.
    """
    raw = os.fspath(path)
    candidate = Path(raw)
    if candidate.is_absolute():
        try:
            rel = PurePosixPath(
                Path(os.path.normpath(candidate)).relative_to(_real_root(root)).as_posix()
            )
        except ValueError:
            try:
                rel = PurePosixPath(Path(os.path.normpath(candidate)).relative_to(root).as_posix())
            except ValueError:
                raise UnsafePathError(raw, f"it is outside the workspace {root}") from None
    else:
        normal = os.path.normpath(raw.replace(os.sep, "/"))
        if normal == ".." or normal.startswith("../"):
            raise UnsafePathError(raw, f"it is outside the workspace {root}")
        rel = PurePosixPath(normal)
    text = rel.as_posix()
    if text in ("", "."):
        raise UnsafePathError(raw, "the workspace root itself is not a file")
    checked = check_relpath(text)
    _refuse_symlinked_parent(root, checked, raw)
    return checked


def disk_path(root: Path, relpath: str) -> Path:
    """Map a checked relpath to its location under ``root`` without crossing a symlink.

    Every parent directory that exists must be a real directory, not a symlink: writing
    through a symlinked directory could land outside the root.

    Raises:
        UnsafePathError: If the relpath is unsafe or a parent is a symlink or a file.
    """
    check_relpath(relpath)
    parts = relpath.split("/")
    current = root
    for part in parts[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            break
        if stat.S_ISLNK(mode):
            raise UnsafePathError(relpath, f"its parent {current} is a symlink")
        if not stat.S_ISDIR(mode):
            raise UnsafePathError(relpath, f"its parent {current} is not a directory")
    return root.joinpath(*parts)


def _refuse_symlinked_parent(root: Path, relpath: str, raw: str) -> None:
    current = root
    for part in relpath.split("/")[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as error:
            # Deeper than PATH_MAX: nothing below can be reached, so nothing is followed
            # (the scan notes the path as unreachable).
            if error.errno in (errno.ENAMETOOLONG, errno.ELOOP):
                return
            raise
        if stat.S_ISLNK(mode):
            prefix = current.relative_to(root).as_posix()
            raise UnsafePathError(
                raw,
                f"it goes through the symlink {prefix}; name the path without the link "
                "(a symlink is tracked as a file, never followed)",
            )


def _real_root(root: Path) -> Path:
    return Path(os.path.realpath(root))
