"""Walking a workspace: ``os.scandir``, ignored directories pruned before descending."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

from snapline.scanning.ignore import IgnoreRules, Matchers
from snapline.scanning.reasons import SkipReason
from snapline.scanning.tracked import STAT_MODE_BITS, Expected, TrackedTree

__all__ = ["UNREACHABLE_ERRNOS", "Scan", "Skipped", "scan", "unreachable"]

UNREACHABLE_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.ELOOP})
"""What the OS says of a path it cannot reach at all (longer than PATH_MAX, say)."""


def unreachable(error: OSError) -> bool:
    """Whether ``error`` means the path cannot be reached, so it is skipped with a note."""
    return error.errno in UNREACHABLE_ERRNOS


class Skipped(NamedTuple):
    """A path a scan saw and did not capture, and why."""

    path: str
    reason: str


class Scan:
    """What a walk found: files (with their ``lstat``), and what it left out.

    With tracked files given, ``files`` leaves out those their expected stat vouches
    for, ``missing`` names the tracked paths of listed directories that are not files
    there, and ``listed`` holds every directory listed. Without stats kept, the files
    found are listed in ``names`` instead of ``files``. A plain class, as a walk fills
    it in (not a dataclass: a cold record does not load ``dataclasses``, issue 39).
    """

    __slots__ = ("files", "ignored", "listed", "missing", "names", "skipped")

    def __init__(self) -> None:
        self.files: dict[str, os.stat_result] = {}
        self.ignored: list[str] = []
        self.skipped: list[Skipped] = []
        self.missing: list[str] = []
        self.listed: set[str] = set()
        self.names: list[str] = []


_NOT_TRACKED: dict[str, Expected | None] = {}
_UNREACHABLE = SkipReason.UNREACHABLE.value
_ABSENT = (-1, -1, -1, -1, -1)  # no lstat gives a negative size


def scan(
    root: Path,
    rules: IgnoreRules,
    under: str = "",
    tracked: TrackedTree | None = None,
    *,
    keep_stats: bool = True,
) -> Scan:
    """Walk ``root`` (or only the directory ``under`` inside it).

    Symlinks are reported as files and never followed. Ignored directories are pruned
    before descending, so ``node_modules/`` costs one check, not one per file.

    Args:
        root: The workspace root.
        rules: Its ignore rules.
        under: A relative directory to limit the walk to ("" for everything).
        tracked: The tracked files by directory. A tracked file is never matched
            against ignore rules (as in git), and one whose ``lstat`` is what it is
            expected to be is not reported at all: it is unchanged.
        keep_stats: Whether to keep each file's ``lstat`` (``files``) or only its path
            (``names``): a stat result is half a kilobyte, 50 MB for 100k files.

    Returns:
        The files found with their stat results, the ignored entries at the top of each
        pruned subtree, entries skipped for another reason (unreadable directories,
        sockets, devices, paths too long for the OS), and with ``tracked``, the tracked
        paths found missing.
    """
    result = Scan()
    tree = tracked if tracked is not None else {}
    # Each directory's own ignore files are loaded once it is listed (so only when they
    # are there); the stack carries the matchers of its parent.
    parent: Matchers = ()
    if under:
        parts = under.split("/")
        parent = rules.root_matchers()
        for depth in range(1, len(parts)):
            parent = rules.enter(parent, "/".join(parts[:depth]))
    stack: list[tuple[str, Matchers]] = [(under, parent)]
    base = os.fspath(root)
    while stack:
        reldir, parent = stack.pop()
        directory = os.path.join(base, reldir) if reldir else base
        try:
            entries = list(os.scandir(directory))
        except PermissionError:
            result.skipped.append(Skipped(reldir or ".", SkipReason.UNREADABLE_DIRECTORY.value))
            continue
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as error:
            # A chain of directories deeper than PATH_MAX: what lies below cannot be
            # opened by name, so it is left out with a note, never the whole command.
            if not unreachable(error):
                raise
            result.skipped.append(Skipped(reldir or ".", SkipReason.UNREACHABLE.value))
            continue
        names = {entry.name for entry in entries}
        matchers = rules.enter(parent, reldir, names)
        here = tree.get(reldir, _NOT_TRACKED)
        result.listed.add(reldir)
        found = 0
        not_files = []  # tracked names that vanished or are no longer files
        for entry in entries:
            name = entry.name
            expected = here.get(name, _ABSENT)
            info: os.stat_result | None = None
            if expected is not _ABSENT:
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    not_files.append(name)
                    continue
                except OSError as error:
                    if not unreachable(error):
                        raise
                    # Tracked, but out of reach (the tree moved deeper): not gone.
                    found += 1
                    result.skipped.append(
                        Skipped(f"{reldir}/{name}" if reldir else name, _UNREACHABLE)
                    )
                    continue
                mode = info.st_mode
                if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                    # The hot path of a whole-workspace check: one comparison a file.
                    found += 1
                    if expected != (
                        info.st_size,
                        info.st_mtime_ns,
                        info.st_ino,
                        info.st_ctime_ns,
                        mode & STAT_MODE_BITS,
                    ):
                        result.files[f"{reldir}/{name}" if reldir else name] = info
                    continue
                not_files.append(name)  # now a directory (or a socket…): the file is gone
                is_dir = stat.S_ISDIR(mode)
            else:
                # The directory entry's type, without a system call where the
                # filesystem reports it: directories and ignored files need no lstat.
                is_dir = entry.is_dir(follow_symlinks=False)
            relpath = f"{reldir}/{name}" if reldir else name
            if is_dir:
                if rules.ignored(matchers, relpath, True, name):
                    if not rules.builtin(relpath):
                        result.ignored.append(relpath + "/")
                else:
                    stack.append((relpath, matchers))
                continue
            if rules.ignored(matchers, relpath, False, name):
                if not rules.builtin(relpath):
                    result.ignored.append(relpath)
                continue
            if info is None:
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                except OSError as error:
                    if not unreachable(error):
                        raise
                    result.skipped.append(Skipped(relpath, _UNREACHABLE))
                    continue
            if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                if keep_stats:
                    result.files[relpath] = info
                else:
                    result.names.append(relpath)
            else:
                result.skipped.append(Skipped(relpath, SkipReason.NOT_A_FILE.value))
        if found != len(here):
            gone = [name for name in here if name not in names or name in not_files]
            result.missing.extend(f"{reldir}/{name}" if reldir else name for name in gone)
    return result
