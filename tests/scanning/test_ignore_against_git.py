"""Differential tests: the files a walk finds are exactly the files git tracks.

Seeded random trees (files, directories, symlinks, odd names) with random ignore files
at random depths and a random ``.git/info/exclude``, each compared with
``git add -A && git ls-files``; and every byte against every POSIX class.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from snapline.scanning import IgnoreRules, scan
from tests.scanning.git_reference import git_tracked, init_repository

_STRESS = os.environ.get("SNAPLINE_STRESS") == "1"
_TREES = 2000 if _STRESS else 120

_NAMES = ["a", "b", "ab", "ba", "aa", "x.txt", "y.log", "keep.txt", "logs", "dir", "build",
          "foo", "foobar", "é", "éa", "a b", "a ", "[a]", "*", "!a", "#a", "a\\b", "\ta",
          ".hidden", "A", "B.TXT", "1", "-", "]", "a\x01", "b\udcff"]  # fmt: skip
_ATOMS = ["a", "b", "ab", "x", "txt", ".", "logs", "dir", "foo", "é", " ", "\\ ", "\\*",
          "\\[", "\\!", "\\#", "\\\\", "[ab]", "[!a]", "[^b]", "[a-c]", "[c-a]",
          "[[:alpha:]]", "[[:digit:]]", "[[:space:]]", "[[:punct:]]", "[\\]]", "[]]",
          "[!]]", "[a-]", "[-a]", "[a-", "[[:foo:]]", "[[:alpha:]", "[[]", "[é]", "[\\x]", "?",
          "\\/", "*", "*", "*", "**", "?", "1", "A", "-", "]", "#", "!", "\t"]  # fmt: skip


def _pattern(rng: random.Random) -> str:
    segments = [
        "".join(rng.choice(_ATOMS) for _ in range(rng.choice([1, 1, 2, 2, 3])))
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3]))
    ]
    line = "/".join(segments)
    if rng.random() < 0.15:
        line = "/" + line
    if rng.random() < 0.2:
        line += "/"
    if rng.random() < 0.25:
        line = "!" + line
    line += rng.choice(["", "", "", "", "", "", "  ", "\\", "\t", "\\  ", "\r"])
    if rng.random() < 0.03:
        line = "#" + line
    return line


def _ignore_file(rng: random.Random, lines: int) -> bytes:
    text = "\n".join(_pattern(rng) for _ in range(lines))
    data = (text + ("\n" if rng.random() < 0.8 else "")).encode("utf-8", "surrogateescape")
    if rng.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.05:
        data = data.replace(b"\n", b"\r\n")
    return data


def _random_tree(root: Path, rng: random.Random) -> None:
    directories = [root]
    for _ in range(rng.randint(5, 40)):
        path = rng.choice(directories) / rng.choice(_NAMES)
        if path.exists() or path.is_symlink():
            continue
        roll = rng.random()
        if roll < 0.08:
            path.symlink_to(rng.choice([".", "a", "nowhere", ".."]))
        elif roll < 0.4 and len(path.relative_to(root).parts) < 4:
            path.mkdir()
            directories.append(path)
        else:
            path.write_bytes(b"x")
    for directory in directories:
        if rng.random() < (0.8 if directory == root else 0.3):
            (directory / ".gitignore").write_bytes(_ignore_file(rng, rng.randint(1, 8)))
    if rng.random() < 0.3:
        (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
        (root / ".git" / "info" / "exclude").write_bytes(_ignore_file(rng, rng.randint(1, 4)))


@pytest.mark.parametrize("batch", range(4))
def test_random_trees_track_what_git_tracks(tmp_path: Path, batch: int) -> None:
    for seed in range(batch, _TREES, 4):
        root = tmp_path / f"tree{seed}"
        root.mkdir()
        init_repository(root)
        _random_tree(root, random.Random(seed))
        found = scan(root, IgnoreRules(root), keep_stats=False).names
        expected = git_tracked(root)
        assert sorted(found) == sorted(expected), (
            f"seed {seed}: "
            f"only snapline tracks {sorted(set(found) - expected)}, "
            f"only git tracks {sorted(expected - set(found))}"
        )


_CLASSES = ["alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
            "space", "upper", "xdigit"]  # fmt: skip


def test_every_byte_against_every_posix_class(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    init_repository(root)
    byte_values = [b for b in range(1, 256) if b != ord("/")]
    for name in _CLASSES:
        directory = root / name
        directory.mkdir()
        (directory / ".gitignore").write_text(f"c[[:{name}:]]\nc[![:{name}:]]z\n")
        for value in byte_values:
            (directory / os.fsdecode(b"c" + bytes([value]))).write_bytes(b"")
            (directory / os.fsdecode(b"c" + bytes([value]) + b"z")).write_bytes(b"")
    found = scan(root, IgnoreRules(root), keep_stats=False).names
    assert sorted(found) == sorted(git_tracked(root))
    assert len(found) < len(_CLASSES) * len(byte_values) * 2  # some were ignored


# Bracket expressions at their edges: ranges ending in an escape or in `]`, reversed or
# chained ranges, `[:` that opens no class (unclosed, empty, one letter, no `:]`), and
# patterns that end inside the brackets.
_BRACKETS = ["[a-c]", "[c-a]", "[a-\\c]", "[\\a-c]", "[a-\\]]", "[a\\-c]", "[a-c-e]",
             "[--0]", "[!--0]", "[]-a]", "[\\]-a]", "[a-]]", "[x-]", "[-x]", "[!a-c]",
             "[^a-c]", "[[:]", "[[:]]", "[[::]]", "[[:a]", "[[:a]]", "[[:a:]]", "[[:alpha]]",
             "[[:alpha:]", "[[:alpha:]]", "[[:alpha:]x]", "[x[:digit:]]", "[[:digit:]-z]",
             "[[]", "[[]]", "[[x]", "[a-c", "[a-\\", "[a\\", "[\\", "[[:", "[[:alpha:",
             "[:alpha:]"]  # fmt: skip


def test_bracket_edges_against_git(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    init_repository(root)
    singles = [chr(value) for value in range(0x21, 0x7F) if chr(value) not in "./"]
    names = singles + [name + "]" for name in singles]
    for index, pattern in enumerate(_BRACKETS):
        directory = root / f"p{index}"
        directory.mkdir()
        (directory / ".gitignore").write_text(f"{pattern}\n")
        for name in names:
            (directory / name).write_bytes(b"")
    found = scan(root, IgnoreRules(root), keep_stats=False).names
    tracked = git_tracked(root)
    assert sorted(found) == sorted(tracked)
    ignored = {
        pattern: len(names) + 1 - sum(path.startswith(f"p{index}/") for path in tracked)
        for index, pattern in enumerate(_BRACKETS)
    }
    # Most of them decide some name (those that git aborts decide none).
    assert sum(count > 0 for count in ignored.values()) > len(_BRACKETS) * 2 // 3, ignored


# Star runs at their edges: a second `**` after a slash, one glued to a name, a lone `*`
# last, each also with a negation that only the exact span leaves standing.
_STARS = ["a/**/b/**/c", "a/**/**/c", "x/a**/c", "a/b**", "**/b/**", "a/*", "a/*\n!a/b/c",
          "a/*\n!a/b/", "a/**\n!a/b/", "a/*/**/c", "*/b**/c", "a/b*/**", "a**/c",
          # An escaped slash, alone or after a star run: `**` still spans directories
          # before one, `*` never.
          "a\\/b/c", "a/*\\/c", "a/**\\/c", "*\\/b/c", "**\\/b/**\\/c"]  # fmt: skip
_DEEP = ["a/c", "a/b/c", "a/b/x/c", "a/b/x/b/c", "a/b/x/b/y/c", "a/bb/c", "a/x/c",
         "x/a/c", "x/ab/c", "x/a/b/c", "b/c", "ab/c", "ab/x/c", "a/b/xc"]  # fmt: skip


def _tracked_by_both(root: Path, patterns: list[str], paths: list[str]) -> set[str]:
    """A folder per pattern (its .gitignore) holding ``paths``: what git tracks, which the
    walk must track too."""
    init_repository(root)
    for index, pattern in enumerate(patterns):
        directory = root / f"p{index}"
        directory.mkdir()
        (directory / ".gitignore").write_text(f"{pattern}\n")
        for path in paths:
            (directory / path).parent.mkdir(parents=True, exist_ok=True)
            (directory / path).write_bytes(b"")
    found = scan(root, IgnoreRules(root), keep_stats=False).names
    tracked = git_tracked(root)
    assert sorted(found) == sorted(tracked)
    return tracked


def test_star_edges_against_git(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    tracked = _tracked_by_both(root, _STARS, _DEEP)
    ignored = [
        len(_DEEP) + 1 - sum(p.startswith(f"p{i}/") for p in tracked) for i in range(len(_STARS))
    ]
    assert all(0 < count < len(_DEEP) for count in ignored), ignored


def test_a_folder_named_like_an_ignore_file_holds_no_rules(tmp_path: Path) -> None:
    # git cannot read a folder as its rules and reads none there; its files are files.
    init_repository(tmp_path)
    for folder in (".gitignore", "sub/.gitignore", "sub/deeper/.snaplineignore"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "inner.txt").write_text("*\n")
    (tmp_path / "sub" / "a.txt").write_text("a\n")
    found = scan(tmp_path, IgnoreRules(tmp_path), keep_stats=False).names
    expected = [
        ".gitignore/inner.txt",
        "sub/.gitignore/inner.txt",
        "sub/a.txt",
        "sub/deeper/.snaplineignore/inner.txt",
    ]
    assert sorted(found) == sorted(git_tracked(tmp_path)) == expected


# A slash where a name's character is asked for, and a pattern that is only its anchor:
# a bracket never matches the slash between names (git's WM_PATHNAME), and "/" alone
# names nothing. Each with a later rule, so that a pattern wrongly taken changes the set.
_SLASHES = ["a[/]b\n*b", "a[/]b\nb", "a[/x]b", "a[!/]b", "a[/-0]b", "/\n!a/b", "/\nab"]
_SLASH_NAMES = ["a/b", "axb", "a-b", "a0b", "ab", "b", "a/c"]


def test_slashes_in_brackets_and_a_lone_anchor_against_git(tmp_path: Path) -> None:
    tracked = _tracked_by_both(tmp_path, _SLASHES, _SLASH_NAMES)
    decided = [sum(p.startswith(f"p{i}/") for p in tracked) for i in range(len(_SLASHES))]
    assert any(count < len(_SLASH_NAMES) + 1 for count in decided), decided


def test_a_comment_is_no_pattern_and_an_escaped_hash_is(tmp_path: Path) -> None:
    # Files named as the comments are: git tracks them; "\#" makes the hash a pattern.
    patterns = ["#a\n#b*", "# a", "\\#a", "\\#b*\n#a", " #a"]
    tracked = _tracked_by_both(tmp_path, patterns, ["#a", "#b1", "# a", "a", " #a"])
    kept = [sorted(p.split("/", 1)[1] for p in tracked if p.startswith(f"p{i}/"))
            for i in range(len(patterns))]  # fmt: skip
    assert kept[0] == [" #a", "# a", "#a", "#b1", ".gitignore", "a"]
    assert kept[2] == [" #a", "# a", "#b1", ".gitignore", "a"]
