"""Ignore rules behave as git's do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snapline.scanning import IgnoreRules, scan
from snapline.scanning.ignore import _Kind
from snapline.scanning.wildmatch import byte_view, parse_pattern
from tests.scanning.git_reference import git_tracked, init_repository


def _make(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogateescape")
        path.write_bytes(content)


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


# Each case: files (the ignore files among them), the paths that must be tracked and the
# paths that must not; and in every case, the tracked set must be git's exactly.
_CASES: dict[str, tuple[dict[str, str | bytes], list[str], list[str]]] = {
    "whitelist: '*', '!*/', '!*.txt' keeps .txt files at every depth": (
        {".gitignore": "*\n!*/\n!*.txt\n", "a.txt": "", "a.log": "", "d/b.txt": "",
         "d/e/c.txt": "", "d/e/c.log": ""},
        ["a.txt", "d/b.txt", "d/e/c.txt"], ["a.log", "d/e/c.log", ".gitignore"],
    ),
    "whitelist with '!**/'": (
        {".gitignore": "*\n!**/\n!*.txt\n", "d/e/c.txt": "", "d/e/c.log": ""},
        ["d/e/c.txt"], ["d/e/c.log"],
    ),
    "'*/' and '**/' match every directory, and only directories": (
        {".gitignore": "*/\n", "top.txt": "", "d/x": "", "sub/.gitignore": "**/\n",
         "e/.gitignore": "!*/\n"},
        [".gitignore", "top.txt"], ["d/x", "sub/.gitignore", "e/.gitignore"],
    ),
    "'dir/**' leaves dir itself alone, so '!dir/keep.txt' re-includes": (
        {".gitignore": "dir/**\n!dir/keep.txt\n", "dir/keep.txt": "", "dir/drop.txt": "",
         "dir/sub/keep.txt": ""},
        ["dir/keep.txt"], ["dir/drop.txt", "dir/sub/keep.txt"],
    ),
    "'logs/**/' ignores the directories below logs/, not its files": (
        {".gitignore": "logs/**/\n", "logs/today.log": "", "logs/old/x.log": "",
         "logs/old/deeper/y.log": ""},
        ["logs/today.log"], ["logs/old/x.log", "logs/old/deeper/y.log"],
    ),
    "a nested '!**/[ab]' re-includes below its directory only": (
        {".gitignore": "a\nb\nc\n", "a": "", "sub/.gitignore": "!**/[ab]\n", "sub/a": "",
         "sub/x/b": "", "sub/c": ""},
        ["sub/a", "sub/x/b"], ["a", "sub/c"],
    ),
    "POSIX classes": (
        {".gitignore": "[[:alpha:]][[:digit:]]\n[[:space:]]x\n[[:upper:]]*.md\n"
                       "*[[:punct:]]\n[[:xdigit:]][[:xdigit:]]\n",
         "a1": "", "11": "", "1z": "", "aa": "", " x": "", "\tx": "", "\vx": "", "README.md": "",
         "readme.md": "", "q!": "", "q": "", "fz": "", "zz": ""},
        ["1z", "\vx", "readme.md", "q", "fz", "zz"],
        ["a1", " x", "\tx", "README.md", "q!", "aa", "11"],
    ),
    "escapes and odd members inside brackets": (
        {".gitignore": "[\\]]x\n[]]y\n[!]]z\n[a\\-c]w\n[\\\\]v\n[a-]u\n",
         "]x": "", "]y": "", "az": "", "]z": "", "-w": "", "bw": "", "\\v": "", "-u": "",
         "bu": ""},
        ["]z", "bw", "bu"], ["]x", "]y", "az", "-w", "\\v", "-u"],
    ),
    "a trailing tab is part of the pattern; trailing spaces are not, unless escaped": (
        {".gitignore": "tab\t\nsp   \nesc\\ \nesc2\\   \n", "tab\t": "", "tab": "",
         "sp": "", "esc ": "", "esc2 ": "", "esc2": ""},
        ["tab", "esc2"], ["tab\t", "sp", "esc ", "esc2 "],
    ),
    "a line of spaces is blank": (
        {".gitignore": "  \n", " ": "", "  ": ""},
        [" ", "  "], [],
    ),
    "an escaped space at the start of a line is a pattern of one space": (
        {".gitignore": "\\ \n", " ": "", "  ": ""},
        ["  "], [" "],
    ),
    "'**' spans names that hold a newline": (
        {".gitignore": "**/x\nfoo/**\n", "a\nb/x": "", "foo/c\nd": "", "keep\n": ""},
        ["keep\n"], ["a\nb/x", "foo/c\nd"],
    ),
    "a UTF-8 BOM starts the file; elsewhere it is a character": (
        {".gitignore": b"\xef\xbb\xbfbom.txt\n\xef\xbb\xbfsecond.txt\n", "bom.txt": "",
         "second.txt": ""},
        ["second.txt"], ["bom.txt"],
    ),
    ".git/info/exclude is read, below every .gitignore": (
        {".git/info/exclude": "excluded.txt\n", "excluded.txt": "", "d/excluded.txt": "",
         "sub/.gitignore": "!excluded.txt\n", "sub/excluded.txt": ""},
        ["sub/excluded.txt"], ["excluded.txt", "d/excluded.txt"],
    ),
    "lines git accepts and never matches do not stop the others": (
        {".gitignore": "foo\\\n*.[c-a]\n!\na\\   \n[[:nope:]]\n[unclosed\n\\\n/\n!/\nz\n",
         "foo\\": "", "foo": "", "x.b": "", "a ": "", "a": "", "n": "", "[unclosed": "",
         "z": ""},
        ["foo\\", "foo", "x.b", "a", "n", "[unclosed"], ["a ", "z"],
    ),
    "a NUL ends its line, as it ends git's C string": (
        {".gitignore": b"nul\0rest\nafter\n", "nul": "", "rest": "", "after": ""},
        ["rest"], ["nul", "after"],
    ),
    "CRLF line ends": (
        {".gitignore": "one\r\ntwo/\r\n!keep\r\n*.o\r\n", "one": "", "two/x": "",
         "keep": "", "m.o": ""},
        ["keep"], ["one", "two/x", "m.o"],
    ),
    "a '**' right after the literal start of a pattern spans directories": (
        {".gitignore": "foo**/bar\n", "foo/x/bar": "", "foobar": "", "fooz/y/bar": "",
         "other/bar": ""},
        ["other/bar"], ["foo/x/bar", "foobar", "fooz/y/bar"],
    ),
    "'?' and brackets match one byte of a UTF-8 name": (
        {".gitignore": "?.txt\n??.md\n[é]\n", "é.txt": "", "e.txt": "", "é.md": "",
         "é": ""},
        ["é.txt", "é"], ["e.txt", "é.md"],
    ),
    "a directory pattern does not match a symlink to a directory": (
        {".gitignore": "linked/\nreal/\n", "real/f": ""},
        ["linked"], ["real/f"],
    ),
    "anchored and path patterns in a nested file are relative to it": (
        {"sub/.gitignore": "/x\ny/z\n", "sub/x": "", "sub/deep/x": "", "sub/y/z": "",
         "x": "", "y/z": ""},
        ["sub/deep/x", "x", "y/z"], ["sub/x", "sub/y/z"],
    ),
    "nothing inside an ignored directory can be re-included": (
        {".gitignore": "build/\n!build/keep\n", "build/keep": "", "build/.gitignore": "!*\n"},
        [], ["build/keep", "build/.gitignore"],
    ),
    # A regex engine that backtracks takes hours on the first (git answers at once); on
    # the second git's own time grows exponentially with the number of "**/" (four are
    # quick), snapline's does not.
    "many stars against a long name, '**/' against a deep path": (
        {".gitignore": "*a*a*a*a*a*a*a*a*a*a*b\n**/**/**/**/x\n",
         "a" * 200: "", "a" * 199 + "b": "", "d/" * 40 + "y": "", "d/" * 40 + "x": ""},
        ["a" * 200, "d/" * 40 + "y"], ["a" * 199 + "b", "d/" * 40 + "x"],
    ),
    "a symlinked .gitignore is not read (as git 2.32+)": (
        {"rules": "secret\n", "secret": ""},
        ["secret"], [],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(_CASES), ids=list(_CASES))
def test_tracked_files_are_the_ones_git_tracks(tmp_path: Path, case: str) -> None:
    files, tracked, ignored = _CASES[case]
    root = tmp_path / "ws"
    root.mkdir()
    init_repository(root)
    _make(root, files)
    if "symlink to a directory" in case:
        (root / "linked").symlink_to("real")
    if "symlinked .gitignore" in case:
        (root / ".gitignore").symlink_to("rules")
    found = scan(root, IgnoreRules(root), keep_stats=False).names
    assert sorted(found) == sorted(git_tracked(root))
    assert set(tracked) <= set(found)
    assert not set(ignored) & set(found)
    rules = IgnoreRules(root)
    for path in tracked:
        assert not rules.is_ignored(path)
    for path in ignored:
        assert rules.is_ignored(path)


_PATTERNS = ["*.log", "!keep.log", "build/", "/top", "docs/**/*.tmp", "a?c", "[ab]*.o",
             "\\#hash", "trailing\\ ", "**/deep/x", "dir/*", "!dir/keep", "*.py[co]", "*",
             "!*/", "top", "**", "x/**", "[[:alpha:]]?", "!a*"]  # fmt: skip
_NAMES = ["a.log", "keep.log", "build", "top", "docs/x/y.tmp", "abc", "b1.o", "#hash",
          "deep/x", "dir/f", "dir/keep", "m.pyc", "src/top", "src/a.log", "ok.py", "x/y",
          "é.log"]  # fmt: skip


@given(
    lines=st.lists(st.sampled_from(_PATTERNS), max_size=8),
    path=st.sampled_from(_NAMES),
    is_dir=st.booleans(),
)
def test_the_fast_path_never_changes_a_verdict(lines: list[str], path: str, is_dir: bool) -> None:
    patterns = [p for p in (parse_pattern(line, "") for line in lines) if p is not None]
    kind = _Kind([p for p in patterns if is_dir or not p.dir_only])
    slow = None
    name = path.rpartition("/")[2]
    for pattern in reversed(kind.patterns):
        text = name if pattern.basename else path
        if re.fullmatch(pattern.regex, text, re.DOTALL):
            slow = not pattern.negative
            break
    assert kind.verdict(byte_view(name), byte_view(path)) == slow


def test_an_ignore_file_that_cannot_be_read_gives_no_rules(tmp_path: Path) -> None:
    # Missing, a link not followed, a folder: no rules at all (tracks more, loses nothing).
    from snapline.scanning.ignore import _read

    (tmp_path / "real").write_bytes(b"*.log\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "folder").mkdir()
    for name in ("missing", "link", "folder"):
        assert _read(tmp_path / name, follow=False) == b"", name
    assert _read(tmp_path / "link", follow=True) == b"*.log\n"
    assert _read(tmp_path / "missing", follow=True) == b""
