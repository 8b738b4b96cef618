"""Ignore rules that give the files git would track (``git add -A && git ls-files``).

Built in, as git has ``.git``: every entry named ``.git`` or ``.snapline`` at any depth (a
nested workspace is left alone, as git leaves a nested repository), and snapline's own
temporary files (:func:`snapline.atomic.is_temp_name`). Then, as git reads them: git's
global excludes (``core.excludesFile``, by default ``~/.config/git/ignore``: the weakest,
:mod:`snapline.scanning.gitconfig`), ``.git/info/exclude``, and every ``.gitignore`` and
``.snaplineignore`` in the tree, each applying to its own directory and below. The
deepest file with a matching pattern decides (so a nested ``!pattern`` can re-include,
and any ``.gitignore`` beats the files outside the tree), the last matching pattern in a
file wins (``.snaplineignore`` after ``.gitignore``), and a directory is left out only
when a pattern matches the directory itself, which then hides everything inside it.
Patterns mean what git's ``wildmatch`` makes of them (:mod:`snapline.scanning.wildmatch`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable
from pathlib import Path

from snapline.atomic import TEMP_MARKER, is_temp_name
from snapline.paths import STORE_DIR
from snapline.scanning.gitconfig import git_dirs, global_excludes
from snapline.scanning.wildmatch import GitPattern, byte_view, parse_ignore_file, parse_pattern

__all__ = ["IGNORE_FILES", "IgnoreRules", "Matchers", "exclude_files", "info_exclude"]

IGNORE_FILES = (".gitignore", ".snaplineignore")
_BUILTIN_NAMES = frozenset({".git", STORE_DIR})
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class _Kind:
    """The patterns of one level that can match one kind of entry (files, or directories).

    They are split so that the usual question, "could any pattern match?", is cheap: a
    set lookup for plain names, ``str.endswith`` for ``*.ext``, one regex for the other
    basename patterns and one for the patterns with a slash.
    """

    __slots__ = ("_compiled", "name_any", "names", "path_any", "patterns", "suffixes")

    def __init__(self, patterns: list[GitPattern]) -> None:
        self.patterns = tuple(patterns)
        self.names = frozenset(p.literal for p in patterns if p.literal is not None)
        self.suffixes = tuple(
            {p.suffix for p in patterns if p.suffix is not None and p.literal is None}
        )
        self.name_any = _fold(
            p.regex for p in patterns if p.basename and p.literal is None and p.suffix is None
        )
        self.path_any = _fold(p.regex for p in patterns if not p.basename)
        self._compiled: list[re.Pattern[str]] | None = None

    def verdict(self, name: str, path: str) -> bool | None:
        """Whether the last pattern matching ``name``/``path`` (byte view) ignores it.

        None when no pattern matches.
        """
        if not (
            name in self.names
            or (self.suffixes and name.endswith(self.suffixes))
            or (self.name_any is not None and self.name_any.fullmatch(name))
            or (self.path_any is not None and self.path_any.fullmatch(path))
        ):
            return None
        if self._compiled is None:
            # Compiled on the first match only: most levels never see one.
            self._compiled = [re.compile(p.regex, re.DOTALL) for p in self.patterns]
        for pattern, regex in zip(reversed(self.patterns), reversed(self._compiled), strict=True):
            if regex.fullmatch(name if pattern.basename else path):
                return not pattern.negative
        return None


def _fold(sources: Iterable[str]) -> re.Pattern[str] | None:
    alternatives = [f"(?:{source})" for source in sources]
    if not alternatives:
        return None
    return re.compile("|".join(alternatives), re.DOTALL)


class _Level:
    """The patterns of one directory's ignore files (or of ``.git/info/exclude``)."""

    __slots__ = ("dirs", "files")

    def __init__(self, patterns: list[GitPattern]) -> None:
        self.files = _Kind([p for p in patterns if not p.dir_only])
        self.dirs = _Kind(patterns)


Matchers = tuple[_Level, ...]
"""The rule levels in force in one directory, weakest first."""


class IgnoreRules:
    """Loads ignore files lazily, once per directory, and answers "is this ignored?".

    Args:
        root: The workspace root.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._levels: dict[str, _Level | None] = {}
        self._outside: Matchers | None = None

    def root_matchers(self) -> Matchers:
        """The matchers in force in the root directory."""
        return self.enter((), "")

    def enter(
        self, parent: Matchers, reldir: str, names: Collection[str] | None = None
    ) -> Matchers:
        """The matchers in force inside ``reldir``, given those of its parent.

        Args:
            parent: The matchers of the parent directory (``()`` for the root).
            reldir: The directory, relative to the root ("" for the root).
            names: The directory's entries when the caller has listed it: spares trying
                to open ignore files that are not there (one failed open per directory
                per file name adds up over thousands of directories).

        Returns:
            The matchers, weakest first.
        """
        if not reldir:
            parent = self._exclude_levels()
        if (
            names is not None
            and reldir not in self._levels
            and not any(name in names for name in IGNORE_FILES)
        ):
            self._levels[reldir] = None
        level = self._level(reldir)
        return parent if level is None else (*parent, level)

    def builtin(self, relpath: str) -> bool:
        """Whether ``relpath`` is ignored by a built-in rule (never worth reporting)."""
        name = relpath.rpartition("/")[2]
        return name in _BUILTIN_NAMES or (TEMP_MARKER in name and is_temp_name(name))

    def ignored(self, matchers: Matchers, relpath: str, is_dir: bool, name: str = "") -> bool:
        """Whether ``relpath`` (an entry of the directory ``matchers`` belong to) is ignored.

        Args:
            matchers: The matchers of the entry's directory.
            relpath: The entry, relative to the root.
            is_dir: Whether it is a directory (a symlink to one is not).
            name: Its last component, when the caller already has it.

        Returns:
            Whether git would leave it out.
        """
        name = name or relpath.rpartition("/")[2]
        # The built-in rules, inline: this runs once per entry of every walk.
        if name in _BUILTIN_NAMES or (TEMP_MARKER in name and is_temp_name(name)):
            return True
        if not matchers:
            return False
        if not relpath.isascii():
            relpath = byte_view(relpath)
            name = relpath.rpartition("/")[2]
        for level in reversed(matchers):
            verdict = (level.dirs if is_dir else level.files).verdict(name, relpath)
            if verdict is not None:
                return verdict
        return False

    def is_ignored(self, relpath: str, is_dir: bool = False) -> bool:
        """Whether a path anywhere in the tree is ignored, its ancestors included.

        Args:
            relpath: The path, relative to the root.
            is_dir: Whether the path itself is a directory.

        Returns:
            Whether git would leave it out.
        """
        parts = relpath.split("/")
        matchers = self.root_matchers()
        for depth in range(1, len(parts) + 1):
            sub = "/".join(parts[:depth])
            sub_is_dir = depth < len(parts) or is_dir
            if self.ignored(matchers, sub, sub_is_dir):
                return True
            if depth < len(parts):
                matchers = self.enter(matchers, sub)
        return False

    def _level(self, reldir: str) -> _Level | None:
        if reldir in self._levels:
            return self._levels[reldir]
        directory = self.root / reldir if reldir else self.root
        lines: list[str] = []
        for name in IGNORE_FILES:
            # Not followed when a symlink, as git (2.32+) does with in-tree ignore files.
            lines.extend(parse_ignore_file(_read(directory / name, follow=False)))
        level = _make_level(byte_view(reldir), lines)
        self._levels[reldir] = level
        return level

    def _exclude_levels(self) -> Matchers:
        """The levels outside the tree, weakest first: the global excludes, ``info/exclude``."""
        if self._outside is None:
            levels = []
            for path in exclude_files(self.root):
                lines = parse_ignore_file(_read(path, follow=True)) if path is not None else []
                levels.append(_make_level("", lines))
            self._outside = tuple(level for level in levels if level is not None)
        return self._outside


def _make_level(base: str, lines: list[str]) -> _Level | None:
    patterns = [p for p in (parse_pattern(line, base) for line in lines) if p is not None]
    return _Level(patterns) if patterns else None


def _read(path: Path, *, follow: bool) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | (0 if follow else _O_NOFOLLOW))
    except OSError:
        # Missing, a symlink not followed, unreadable: an ignore file that cannot be
        # read is not honoured, which tracks more, never less, and loses nothing.
        return b""
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read()
    except OSError:
        return b""  # a directory named .gitignore, an I/O error: as above


def info_exclude(root: Path) -> Path | None:
    """Where git keeps the repository's ``info/exclude`` for a work tree at ``root``.

    A linked work tree shares ``info/`` with its main repository
    (:func:`snapline.scanning.gitconfig.git_dirs`).
    """
    dirs = git_dirs(root)
    return None if dirs is None else dirs[1] / "info" / "exclude"


def exclude_files(root: Path) -> tuple[Path | None, Path | None]:
    """The ignore files outside the tree, weakest first: the global excludes, ``info/exclude``.

    Either may be None (no such file is configured) or name a file that is not there.
    """
    return global_excludes(root), info_exclude(root)
