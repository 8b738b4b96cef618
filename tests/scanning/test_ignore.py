"""Ignore rules behave as git's do."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec

from snapline.scanning import IgnoreRules, scan
from snapline.scanning.ignore import _any_match, _Level


def _make(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_nested_gitignore_applies_to_its_directory_and_can_reinclude(tmp_path: Path) -> None:
    _make(tmp_path, {
        ".gitignore": "*.log\nbuild/\n/top-only.txt\n",
        "sub/.gitignore": "!keep.log\nlocal.txt\n",
        "sub/keep.log": "k", "sub/drop.log": "d", "sub/local.txt": "l",
        "other/local.txt": "kept: the rule is sub/'s", "x.log": "x",
        "build/out.o": "o", "sub/build/out.o": "o",
        "top-only.txt": "t", "sub/top-only.txt": "kept: anchored to the root",
        ".snaplineignore": "secret.env\n", "secret.env": "s", "app.py": "a",
        ".git/config": "c", "sub/.git/HEAD": "h",
    })  # fmt: skip
    found = scan(tmp_path, IgnoreRules(tmp_path))
    assert sorted(found.files) == [
        ".gitignore", ".snaplineignore", "app.py", "other/local.txt", "sub/.gitignore",
        "sub/keep.log", "sub/top-only.txt",
    ]  # fmt: skip
    assert "build/" in found.ignored and "sub/build/" in found.ignored
    assert ".git/" not in found.ignored  # built-in rules are not worth reporting


def test_is_ignored_checks_ancestors(tmp_path: Path) -> None:
    _make(tmp_path, {".gitignore": "node_modules/\n", "src/.gitignore": "gen/\n"})
    rules = IgnoreRules(tmp_path)
    assert rules.is_ignored("node_modules/pkg/index.js")
    assert rules.is_ignored("src/gen/a.py")
    assert not rules.is_ignored("gen/a.py")
    assert rules.is_ignored(".snapline/store.db")
    assert not rules.is_ignored("src/app.py")


def test_ignored_directories_are_pruned_not_walked(tmp_path: Path) -> None:
    _make(tmp_path, {".gitignore": "deps/\n"})
    for i in range(50):
        _make(tmp_path, {f"deps/p{i}/f.js": "x"})
    found = scan(tmp_path, IgnoreRules(tmp_path))
    assert found.ignored == ["deps/"]
    assert sorted(found.files) == [".gitignore"]


_PATTERNS = ["*.log", "!keep.log", "build/", "/top", "docs/**/*.tmp", "a?c", "[ab]*.o",
             "\\#hash", "trailing\\ ", "**/deep/x", "dir/*", "!dir/keep", "*.py[co]"]  # fmt: skip
_NAMES = ["a.log", "keep.log", "build", "top", "docs/x/y.tmp", "abc", "b1.o", "#hash",
          "deep/x", "dir/f", "dir/keep", "m.pyc", "src/top", "src/a.log", "ok.py"]  # fmt: skip


@given(
    patterns=st.lists(st.sampled_from(_PATTERNS), max_size=8),
    name=st.sampled_from(_NAMES),
    is_dir=st.booleans(),
)
def test_the_prefilter_never_changes_a_verdict(
    patterns: list[str], name: str, is_dir: bool
) -> None:
    spec = GitIgnoreSpec.from_lines(patterns)
    fast = _Level("", spec, _any_match(spec))
    assert (fast.any_match is not None) == bool(patterns)  # the fast path is really taken
    slow = _Level("", spec, None)
    rules = IgnoreRules(Path("/nonexistent"))
    assert rules.ignored((fast,), name, is_dir) == rules.ignored((slow,), name, is_dir)
