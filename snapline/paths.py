"""Workspace-relative paths: the one place that decides whether a path is safe.

A store may come from elsewhere (it can be committed to a repository), so every path
read from it is checked again before it is used to touch the disk: no absolute paths,
no ``..``, nothing inside the store, and no symlinked directory on the way, because a
symlink inside the root can point anywhere.

It also holds the writers' rule (DESIGN rule 10): nothing snapline writes for a user,
an agent or a tool lands inside ``.git/`` or ``.snapline/``, at any depth (a nested
repository's ``sub/.git`` and a nested workspace's ``sub/.snapline`` included), and
every writer refuses the same way, with :class:`ProtectedPathError`
(:func:`protected_dir`, :func:`check_writable`, :func:`writable_relpath`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path, PurePosixPath

from snapline.errors import SnaplineError
from snapline.unknown_path import UnknownPathError

__all__ = [
    "GIT_DIR",
    "PROTECTED_DIRS",
    "STORE_DIR",
    "OutputInStoreError",
    "ProtectedPathError",
    "UnknownPathError",
    "UnsafePathError",
    "UnsafeRecordError",
    "check_recorded",
    "check_relpath",
    "check_writable",
    "disk_path",
    "inside_git_dir",
    "output_path",
    "protected_dir",
    "relpath_from_user",
    "writable_relpath",
]

STORE_DIR = ".snapline"

GIT_DIR = ".git"
"""A git repository's own directory: tracked around, never written into."""

PROTECTED_DIRS = (GIT_DIR, STORE_DIR)
"""The directories no snapline writer ever writes into, at any depth."""

_PROTECTED_PLACE = {
    GIT_DIR: "{where}, git's own directory (its config, hooks and objects), which only git changes",
    STORE_DIR: "the store {where}, which only snapline's own bookkeeping changes",
}


class UnsafePathError(SnaplineError):
    """A path is absolute, climbs out of the root, names the store or crosses a symlink."""

    exit_code = 2
    path: str
    reason: str

    def _message(self) -> str:
        # Each kind of refusal says it in its own words; the data is the same.
        return f"refusing path {self.path!r}: {self.reason}"


class UnsafeRecordError(UnsafePathError):
    """The store itself records an unsafe path: it was damaged, or crafted to escape the root.

    A path a caller typed is a usage error (:class:`UnsafePathError`, exit 2); one read
    from the store means the store cannot be trusted (exit 3, like a corrupt store).
    """

    exit_code = 3

    def _message(self) -> str:
        return (
            f"the store records the path {self.path!r}, which snapline refuses to use: "
            f"{self.reason}; the store may come from an untrusted source, run `snapline verify`"
        )


class ProtectedPathError(UnsafePathError):
    """A writer was asked to write (or a reader to show) a path inside ``.git/`` or ``.snapline/``.

    The one refusal every writer gives (library calls, MCP tools, hooks, commands): a
    git hook or config planted by an agent runs code outside the history, and a write
    into the store damages it. Nothing was written.

    Attributes:
        path: The path as the caller named it (relative to the root, or absolute).
        directory: The protected directory it lies in (``.git`` or ``.snapline``).
        action: What was refused (``"write"``, ``"read"``, ``"write the patch to"``).
    """

    exit_code = 2

    def __init__(
        self, path: str, directory: str, action: str = "write", place: str | None = None
    ) -> None:
        """Describe the refusal.

        Args:
            path: The path named.
            directory: ``.git`` or ``.snapline``.
            action: What was refused, as a verb phrase.
            place: Where the directory is, for the message (default ``<directory>/``).
        """
        self.directory = directory
        self.action = action
        where = _PROTECTED_PLACE.get(directory, "{where}").format(where=place or f"{directory}/")
        super().__init__(path, f"it is inside {where}")

    def _message(self) -> str:
        return (
            f"refusing to {self.action} {self.path}: {self.reason}; name a path outside "
            f"{GIT_DIR}/ and {STORE_DIR}/ (snapline never writes into either)"
        )


class OutputInStoreError(ProtectedPathError):
    """A file the user named (a patch, a page) would be written inside ``.snapline/``.

    Only snapline writes there: an export over ``store.db`` replaced the whole history.
    """

    def __init__(self, path: Path, store: Path, what: str = "the output") -> None:
        super().__init__(str(path), STORE_DIR, f"write {what} to", str(store))
        self.store = str(store)


def protected_dir(relpath: str) -> str | None:
    """The protected directory (``.git`` or ``.snapline``) a relpath names or lies in.

    Every component counts, at any depth: a nested repository's ``sub/.git`` (a
    directory, or the gitlink file of a submodule) is git's as much as the root's. The
    match ignores case and trailing dots and spaces, as git's own ``verify_path`` does:
    on a case-folding filesystem (macOS, Windows) ``.GIT/hooks`` *is* ``.git/hooks``.

    Args:
        relpath: A workspace-relative POSIX path.

    Returns:
        ``".git"`` or ``".snapline"``, or ``None`` when the path is outside both.
    """
    for part in relpath.split("/"):
        folded = _folded(part)
        if folded in PROTECTED_DIRS:
            return folded
    return None


def _folded(part: str) -> str:
    return part.rstrip(" .").casefold()


def check_writable(relpath: str, *, shown: str | None = None, action: str = "write") -> str:
    """Refuse a relpath inside ``.git/`` or ``.snapline/``: the writers' one rule.

    Args:
        relpath: The workspace-relative path about to be written.
        shown: The path as the caller named it, for the message (default ``relpath``).
        action: What is refused, for the message (``"write"``, ``"read"``).

    Returns:
        ``relpath``, unchanged.

    Raises:
        ProtectedPathError: If it lies inside either directory.
    """
    directory = protected_dir(relpath)
    if directory is not None:
        raise ProtectedPathError(shown if shown is not None else relpath, directory, action)
    return relpath


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
        ProtectedPathError: If ``path`` is inside any other ``.git`` or ``.snapline``.
    """
    target = Path(os.path.abspath(path))
    store = Path(os.path.realpath(root / STORE_DIR))
    real = Path(os.path.realpath(target.parent)) / target.name
    if _inside_store(real, store, Path(os.path.realpath(root))):
        raise OutputInStoreError(target, store, what)
    # Any git directory or store, this workspace's or another's: a patch named
    # .git/hooks/pre-commit is a planted hook wherever the repository is.
    directory = protected_dir(real.as_posix())
    if directory is not None:
        raise ProtectedPathError(str(target), directory, f"write {what} to")
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
    if "" in parts or "." in parts or ".." in parts:
        raise UnsafePathError(path, "the path must be normalised and stay inside the root")
    if parts[0] == STORE_DIR:
        raise UnsafePathError(path, f"{STORE_DIR}/ holds the store and is never tracked")
    return path


def inside_git_dir(path: str) -> bool:
    """Whether a relpath lies inside a ``.git`` directory (at any depth), never written.

    The same match as :func:`protected_dir` (case and trailing dots ignored).
    """
    # Folding goes code point by code point: a part folding to ".git" leaves ".git" in
    # the whole path's folding, so most paths are answered without splitting them.
    if GIT_DIR not in path.casefold():
        return False
    return any(_folded(part) == GIT_DIR for part in path.split("/"))


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
    checked = check_relpath(_user_text(root, raw))
    _refuse_symlinked_parent(root, checked, raw)
    return checked


def writable_relpath(root: Path, path: str | os.PathLike[str], action: str = "write") -> str:
    """:func:`relpath_from_user` for a path about to be written: every writer's entry.

    Args:
        root: The workspace root.
        path: The path the caller named (absolute, or relative to the root).
        action: What is refused, for the message (``"write"``, ``"read"``).

    Returns:
        The checked workspace-relative path.

    Raises:
        ProtectedPathError: If it lies inside ``.git/`` or ``.snapline/`` (checked
            first, so every spelling of such a path gets the same refusal).
        UnsafePathError: If it leaves the root or goes through a symlinked directory.
    """
    raw = os.fspath(path)
    check_writable(_user_text(root, raw), shown=raw, action=action)
    return relpath_from_user(root, raw)


def _user_text(root: Path, raw: str) -> str:
    """A caller's path as a normalised relative POSIX text (not checked yet)."""
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
    return text


def disk_path(root: Path, relpath: str) -> Path:
    """Map a checked relpath to its location under ``root`` without crossing a symlink.

    Every parent directory that exists must be a real directory, not a symlink: writing
    through a symlinked directory could land outside the root.

    Raises:
        UnsafePathError: If the relpath is unsafe or a parent is a symlink or a file.
    """
    check_relpath(relpath)
    parts = relpath.split("/")
    current = os.fspath(root)  # a Path per parent was most of the time (row R5)
    for part in parts[:-1]:
        current = os.path.join(current, part)
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            break
        if stat.S_ISLNK(mode):
            raise UnsafePathError(relpath, f"its parent {current} is a symlink")
        if not stat.S_ISDIR(mode):
            raise UnsafePathError(relpath, f"its parent {current} is not a directory")
    return root / relpath  # checked: the same parts as joinpath(*parts), parsed once


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
