"""Walking a workspace: ``os.scandir``, ignored directories pruned before descending."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from snapline.scanning.ignore import IgnoreRules, Matchers

__all__ = ["Scan", "Skipped", "scan"]


@dataclass(frozen=True)
class Skipped:
    """A path a scan saw and did not capture, and why."""

    path: str
    reason: str


@dataclass
class Scan:
    """What a walk found: files (with their ``lstat``), and what it left out."""

    files: dict[str, os.stat_result] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def scan(root: Path, rules: IgnoreRules, under: str = "") -> Scan:
    """Walk ``root`` (or only the directory ``under`` inside it).

    Symlinks are reported as files and never followed. Ignored directories are pruned
    before descending, so ``node_modules/`` costs one check, not one per file.

    Args:
        root: The workspace root.
        rules: Its ignore rules.
        under: A relative directory to limit the walk to ("" for everything).

    Returns:
        The files found with their stat results, the ignored entries at the top of each
        pruned subtree, and entries skipped for another reason (unreadable directories,
        sockets, devices).
    """
    result = Scan()
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
            result.skipped.append(Skipped(reldir or ".", "unreadable directory"))
            continue
        except (FileNotFoundError, NotADirectoryError):
            continue
        matchers = rules.enter(parent, reldir, {entry.name for entry in entries})
        for entry in entries:
            name = entry.name
            relpath = f"{reldir}/{name}" if reldir else name
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            mode = info.st_mode
            if stat.S_ISDIR(mode):
                if rules.ignored(matchers, relpath, True, name):
                    if not rules.builtin(relpath):
                        result.ignored.append(relpath + "/")
                else:
                    stack.append((relpath, matchers))
            elif rules.ignored(matchers, relpath, False, name):
                if not rules.builtin(relpath):
                    result.ignored.append(relpath)
            elif stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                result.files[relpath] = info
            else:
                result.skipped.append(Skipped(relpath, "not a regular file or symlink"))
    return result
