"""Ignore rules that follow git's.

Built in: every ``.git`` entry and the root ``.snapline/`` store. Then every ``.gitignore``
and ``.snaplineignore`` in the tree, each applying to its own directory and below, matched
with pathspec's ``GitIgnoreSpec``. As in git, the deepest file with a matching pattern
decides (so a nested ``!pattern`` can re-include), the last matching pattern in a file
wins, and nothing inside an ignored directory can be re-included.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.atomic import TEMP_MARKER
from snapline.paths import STORE_DIR

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["IGNORE_FILES", "IgnoreRules", "Matchers"]

IGNORE_FILES = (".gitignore", ".snaplineignore")


@dataclass(frozen=True)
class _Level:
    base: str  # directory the rules apply to, "" for the root
    spec: GitIgnoreSpec
    # Every pattern of the level in one regex: "could any pattern match?". Almost no
    # path matches, and one regex search is several times cheaper than pathspec's
    # per-pattern check, which then only runs for the few candidates.
    any_match: re.Pattern[str] | None


def _any_match(spec: GitIgnoreSpec) -> re.Pattern[str] | None:
    sources = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if regex is None:
            continue
        if not isinstance(regex, re.Pattern) or "(?P=" in regex.pattern:
            return None  # not a pattern we can fold safely: always ask pathspec
        sources.append(_GROUP.sub("(?:", regex.pattern))
    if not sources:
        return None
    try:
        return re.compile("|".join(f"(?:{source})" for source in sources))
    except re.error:
        return None


_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


Matchers = tuple[_Level, ...]
"""The rule levels in force in one directory, shallowest first."""


class IgnoreRules:
    """Loads ignore files lazily, once per directory, and answers "is this ignored?"."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._levels: dict[str, _Level | None] = {}

    def root_matchers(self) -> Matchers:
        """The matchers in force at the root."""
        return self.enter((), "")

    def enter(
        self, parent: Matchers, reldir: str, names: Collection[str] | None = None
    ) -> Matchers:
        """The matchers in force inside ``reldir``, given those of its parent.

        ``names``, the directory's entries when the caller has listed it, spares trying
        to open ignore files that are not there (one failed open per directory per file
        name adds up over thousands of directories).
        """
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
        return self.ignored((), relpath, is_dir=False)

    def ignored(self, matchers: Matchers, relpath: str, is_dir: bool, name: str = "") -> bool:
        """Whether ``relpath`` (an entry of the directory ``matchers`` belong to) is ignored.

        ``name``, the last component, may be passed by a caller that already has it.
        """
        name = name or relpath.rpartition("/")[2]
        # The built-in rules, inline: this runs once per entry of every walk.
        if name == ".git" or TEMP_MARKER in name or relpath == STORE_DIR:
            return True
        for level in reversed(matchers):
            rel = relpath[len(level.base) + 1 :] if level.base else relpath
            target = rel + "/" if is_dir else rel
            if level.any_match is not None and level.any_match.match(target) is None:
                continue
            result = level.spec.check_file(target)
            if result.include is not None:
                return bool(result.include)
        return False

    def is_ignored(self, relpath: str, is_dir: bool = False) -> bool:
        """Whether a path anywhere in the tree is ignored, its ancestors included."""
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
        lines: list[str] = []
        directory = self.root / reldir if reldir else self.root
        for name in IGNORE_FILES:
            try:
                with open(directory / name, encoding="utf-8", errors="surrogateescape") as f:
                    lines.extend(f.read().splitlines())
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                continue
            except OSError:
                # An unreadable ignore file cannot be honoured; treating it as empty
                # tracks more, never less, which loses nothing.
                continue
        if lines:
            # Imported here: recording a tracked file never matches ignore rules, and
            # pathspec is a tenth of the CLI's start-up (measured, 10 ms).
            from pathspec import GitIgnoreSpec

            spec = GitIgnoreSpec.from_lines(lines)
            level: _Level | None = _Level(reldir, spec, _any_match(spec))
        else:
            level = None
        self._levels[reldir] = level
        return level
