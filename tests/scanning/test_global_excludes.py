"""git's global excludes (``core.excludesFile``) against real git.

Every way git finds the file (the default under ``$XDG_CONFIG_HOME`` or ``~/.config``,
``core.excludesFile`` in the system, XDG, home, included, local or worktree config, the
value quoted, escaped, relative, ``~``-expanded, empty, overridden by a later file, an
``includeIf`` that only git answers), each on seeded random trees with random nested
ignore files and a random ``info/exclude``. Two oracles: ``git check-ignore`` on every
path of the tree, and ``git add -A && git ls-files`` against the walk. git runs with
``HOME``, ``XDG_CONFIG_HOME`` and its system file in the test's own directories, and
snapline with the same environment.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from snapline.scanning import IgnoreRules, scan
from snapline.scanning.gitconfig import global_excludes
from tests.cli.conftest import run_script
from tests.nogit import no_git_path
from tests.scanning.git_reference import GIT
from tests.scanning.test_ignore_against_git import _ignore_file, _random_tree

_SEEDS = 6 if os.environ.get("SNAPLINE_STRESS") != "1" else 60


class _Case:
    """One test's directories: the home, XDG's, the system file, the repository."""

    def __init__(self, base: Path, xdg: bool) -> None:
        self.home = base / "home"
        self.xdg = base / "xdg"
        self.system = base / "etc" / "gitconfig"
        self.root = base / "repo"
        for directory in (self.home, self.xdg, self.system.parent, self.root):
            directory.mkdir(parents=True)
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.fspath(self.home),
            "GIT_CONFIG_SYSTEM": os.fspath(self.system),
            "LC_ALL": "C",
        }
        if xdg:
            self.env["XDG_CONFIG_HOME"] = os.fspath(self.xdg)
        self.git("init", "--quiet", "--template=")

    def git(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        assert GIT is not None, "git is needed to compare ignore rules with git's"
        return subprocess.run(
            [GIT, "-c", "core.ignorecase=false", "-c", "core.quotepath=off", *args],
            cwd=self.root, env=self.env, input=stdin, capture_output=True, check=False,
        )  # fmt: skip

    def write(self, path: Path, data: bytes | str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)


# Each route puts rules where git reads them and returns the file git should read.
def _default_xdg(case: _Case, rules: bytes) -> None:
    case.write(case.xdg / "git" / "ignore", rules)


def _default_home(case: _Case, rules: bytes) -> None:
    case.write(case.home / ".config" / "git" / "ignore", rules)


def _home_config_tilde(case: _Case, rules: bytes) -> None:
    case.write(case.home / ".gitconfig", "[core]\n\texcludesFile = ~/my dir/my ignore\n")
    case.write(case.home / "my dir" / "my ignore", rules)


def _later_file_wins(case: _Case, rules: bytes) -> None:
    case.write(case.system, "[core]\nexcludesfile = /nowhere/system\n")
    case.write(case.xdg / "git" / "config", "[core]\nexcludesfile = /nowhere/xdg\n")
    case.write(case.home / ".gitconfig", f"[core]\nexcludesfile = {case.home}/wins\n")
    case.write(case.home / "wins", rules)
    case.write(case.xdg / "git" / "ignore", b"*\n")  # the default, not read


def _local_beats_global(case: _Case, rules: bytes) -> None:
    case.write(case.home / ".gitconfig", "[core]\nexcludesfile = ~/global\n")
    case.write(case.home / "global", b"*\n")
    with open(case.root / ".git" / "config", "a") as config:
        config.write(f"[core]\n\texcludesfile = {case.home}/local\n")
    case.write(case.home / "local", rules)


def _system_only(case: _Case, rules: bytes) -> None:
    case.write(case.system, f"[core]\n  excludesFile = {case.home}/sys\n")
    case.write(case.home / "sys", rules)


def _included(case: _Case, rules: bytes) -> None:
    case.write(case.home / ".gitconfig", "[include]\n\tpath = conf/more\n")
    case.write(case.home / "conf" / "more", '[core]\n\texcludesfile = "../from include"\n')
    # Relative: taken from the work tree's top, where git runs.
    case.write(case.root.parent / "from include", rules)


def _nested_include(case: _Case, rules: bytes) -> None:
    # An include inside an included file, its path from HOME: expanded there too.
    case.write(case.home / ".gitconfig", "[include]\n\tpath = conf/more\n")
    case.write(case.home / "conf" / "more", "[include]\n\tpath = ~/conf/last\n")
    case.write(case.home / "conf" / "last", "[core]\n\texcludesfile = ~/nested rules\n")
    case.write(case.home / "nested rules", rules)


def _tricky_syntax(case: _Case, rules: bytes) -> None:
    case.write(
        case.home / ".gitconfig",
        "\ufeff# a comment\n"
        '[core "sub"]\n\texcludesfile = /nowhere/sub\n'
        "[core.sub]\n\texcludesfile = /nowhere/dotted\n"
        f'[Core] ExcludesFile = "{case.home}/q\\"uo" \\\n  ted\\\\x  ; trailing comment\n'
        "[other]\n\texcludesfile = /nowhere/other\n",
    )
    case.write(case.home / 'q"uo   ted\\x', rules)  # the spaces around the break kept


def _empty_value(case: _Case, rules: bytes) -> None:
    case.write(case.home / ".gitconfig", "[core]\n\texcludesfile =\n")
    case.write(case.xdg / "git" / "ignore", b"*\n")  # an empty value: no file at all
    case.write(case.root / ".git" / "info" / "exclude", rules)


def _worktree_config(case: _Case, rules: bytes) -> None:
    with open(case.root / ".git" / "config", "a") as config:
        config.write("[extensions]\n\tworktreeConfig = true\n[core]\nexcludesfile = /x\n")
    case.write(case.root / ".git" / "config.worktree", f"[core]\nexcludesfile={case.home}/wt\n")
    case.write(case.home / "wt", rules)


def _symlinked(case: _Case, rules: bytes) -> None:
    # Dotfiles kept elsewhere and linked into place: git follows links to the files
    # outside the tree (unlike an in-tree .gitignore, since git 2.32).
    case.write(case.home / "dotfiles" / "ignore", rules)
    (case.xdg / "git").mkdir(parents=True)
    (case.xdg / "git" / "ignore").symlink_to(case.home / "dotfiles" / "ignore")


def _include_if(case: _Case, rules: bytes, name: str = "conditional") -> None:
    case.write(case.home / ".gitconfig", f'[includeIf "gitdir:{case.root}/"]\n\tpath = ~/cond\n')
    case.write(case.home / "cond", f'[core]\nexcludesfile = "~/{name}"\n')
    case.write(case.home / name, rules)


_ROUTES: dict[str, tuple[Callable[[_Case, bytes], None], bool]] = {
    "default under XDG_CONFIG_HOME": (_default_xdg, True),
    "default under ~/.config": (_default_home, False),
    "~/.gitconfig, ~ expanded": (_home_config_tilde, False),
    "a later config file wins": (_later_file_wins, True),
    "the repository's config beats the global": (_local_beats_global, True),
    "the system config": (_system_only, True),
    "include.path, a relative value": (_included, False),
    "include.path inside an included file, from ~": (_nested_include, False),
    "quotes, escapes, comments, sections that are not core": (_tricky_syntax, False),
    "an empty value reads no file": (_empty_value, True),
    "extensions.worktreeConfig": (_worktree_config, True),
    "the default file a link to another": (_symlinked, True),
    "includeIf, asked of git": (_include_if, False),
    # git's answer ends in its newline, and only that is cut.
    "includeIf, a name ending in X": (partial(_include_if, name="conditionalX"), False),
    "includeIf, a name ending in a space": (partial(_include_if, name="conditional "), False),
}


def _every_path(root: Path) -> dict[str, bool]:
    paths = {}
    for directory, dirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        if rel == ".git" or rel.startswith(".git/"):
            continue
        for name in dirs:
            path = os.path.normpath(os.path.join(rel, name))
            if path != ".git":
                paths[path] = not os.path.islink(os.path.join(directory, name))
        for name in files:
            paths[os.path.normpath(os.path.join(rel, name))] = False
    return paths


@pytest.mark.parametrize("route", sorted(_ROUTES))
def test_snapline_ignores_what_git_ignores_with_a_global_excludes_file(
    tmp_path: Path, route: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    place, xdg = _ROUTES[route]
    outside = 0  # paths git ignores by a pattern of the file outside the tree
    for seed in range(_SEEDS):
        case = _Case(tmp_path / str(seed), xdg)
        rng = random.Random(f"{route}{seed}")
        _random_tree(case.root, rng)
        # Random patterns, and names from the tree so that some of them bite.
        rules = _ignore_file(rng, rng.randint(2, 8))
        names = sorted({path.rpartition("/")[2] for path in _every_path(case.root)})
        for name in rng.sample(names, min(len(names), 2)):
            rules += b"\n" + os.fsencode(name) + rng.choice([b"", b"/"]) + b"\n"
        place(case, rules)
        for name in ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"):
            monkeypatch.delenv(name, raising=False)
        for name, value in case.env.items():
            monkeypatch.setenv(name, value)

        told = case.git("config", "--type=path", "--get", "core.excludesfile")
        configured = os.fsdecode(told.stdout.rstrip(b"\n")) if told.returncode == 0 else None
        found = global_excludes(case.root)
        if configured is None:
            expected = case.xdg if xdg else case.home / ".config"
            assert found == expected / "git" / "ignore", route
        else:
            assert found == (case.root / configured if configured else None), route

        paths = _every_path(case.root)
        listed = b"".join(os.fsencode(path) + b"\0" for path in paths)
        checked = case.git("check-ignore", "--stdin", "-z", "-v", stdin=listed)
        assert checked.returncode in (0, 1), checked.stderr
        # Source, line, pattern, path for each; with -v a negated pattern's match is
        # listed too, and that path is not ignored.
        fields = checked.stdout.split(b"\0")[:-1]
        matches = [m for m in zip(*[iter(fields)] * 4, strict=True) if m[2][:1] != b"!"]
        by_git = {os.fsdecode(path) for _, _, _, path in matches}
        outside += sum(not source.endswith(b".gitignore") for source, _, _, _ in matches)
        rules_now = IgnoreRules(case.root)
        by_snapline = {path for path, is_dir in paths.items() if rules_now.is_ignored(path, is_dir)}
        assert by_snapline == by_git, (
            f"{route}, seed {seed}: only snapline ignores {sorted(by_snapline - by_git)}, "
            f"only git ignores {sorted(by_git - by_snapline)}"
        )

        case.git("add", "--all")
        tracked = case.git("ls-files", "-z").stdout
        expected_files = {os.fsdecode(raw) for raw in tracked.split(b"\0") if raw}
        walked = scan(case.root, IgnoreRules(case.root), keep_stats=False).names
        assert sorted(walked) == sorted(expected_files), f"{route}, seed {seed}"
    assert outside > 0, f"{route}: the file outside the tree never decided a path"


_HEADERS = ["[core]", "[Core]", "[CORE]", '[core "x"]', "[core.x]", "[other]", "[core]  ",
            "[core] ", '[core ""]', "[ core]", "[core", "[co-re]", "[]"]  # fmt: skip
_KEYS = ["excludesfile", "excludesFile", "ExcludesFile", "excludes", "excludesfile2",
         "excludes-file", "\texcludesfile", "  excludesfile"]  # fmt: skip
_VALUES = ["/abs/a", "~/h", "rel", "a b", "a  b", "\ta\t", '"q;x"', "a#b", '"a#b"', "a;b",
           '"  spaced  "', "a\\tb", 'a\\"b', "a\\\\b", "a\\qb", '"open', 'x"y"z', "a\\\nb",
           "a \\\n  b", "", "~", "~root/x", "~nobody-here/x", "%(prefix)/x", "é/ü"]  # fmt: skip
_TAILS = ["", "", "", " # comment", "; comment", "\t", "  ", " ;"]


def _random_config(rng: random.Random) -> str:
    lines = ["[core]"] if rng.random() < 0.7 else []
    for _ in range(rng.randint(1, 6)):
        roll = rng.random()
        if roll < 0.2:
            lines.append(rng.choice(_HEADERS))
        elif roll < 0.4:
            # A comment may end in anything: its whole line goes.
            lines.append(rng.choice(["", "# note", "; note", "   ", "# note.", "; see [core]"]))
        else:
            key = rng.choice(_KEYS)
            if rng.random() < 0.1:
                lines.append(key + rng.choice(_TAILS))
            else:
                equals = rng.choice(["=", " = ", "\t=\t", "= "])
                tail = rng.choice(_TAILS)
                lines.append(f"{key}{equals}{rng.choice(_VALUES)}{tail}")
        if rng.random() < 0.15 and lines[-1].startswith("[") and lines[-1].endswith("]"):
            lines[-1] += f" excludesfile = {rng.choice(_VALUES)}"
    text = "\n".join(lines) + rng.choice(["\n", "", "\n\n"])
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.1:
        text = "\ufeff" + text
    return text


def test_the_configured_path_is_the_one_git_config_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _Case(tmp_path, xdg=False)
    for name in ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    compared, answered = set(), 0
    for seed in range(400 if os.environ.get("SNAPLINE_STRESS") != "1" else 4000):
        rng = random.Random(seed)
        text = _random_config(rng)
        case.write(case.home / ".gitconfig", text)
        told = case.git("config", "--type=path", "--get", "core.excludesfile")
        if told.returncode not in (0, 1):
            continue  # git refuses the whole config: it reads no ignore rule at all
        configured = os.fsdecode(told.stdout.rstrip(b"\n")) if told.returncode == 0 else None
        if configured is None:
            expected: Path | None = case.home / ".config" / "git" / "ignore"
        else:
            expected = case.root / configured if configured else None
        assert global_excludes(case.root) == expected, f"seed {seed}: {text!r}"
        compared.add(configured)
        answered += 1
    assert len(compared) > 15  # many different answers, not one over and over
    assert answered > 200  # of 400: most configs are ones git reads


def test_a_file_git_ignores_globally_is_no_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _Case(tmp_path, xdg=False)
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    case.write(case.home / ".config" / "git" / "ignore", "*.swp\n.idea/\n")
    case.write(case.root / "app.py", "print('hi')\n")
    assert run_script("init", cwd=case.root).returncode == 0
    # An editor's swap file and an IDE's folder, as git leaves them out.
    case.write(case.root / ".app.py.swp", b"\0swap")
    case.write(case.root / ".idea" / "workspace.xml", "<x/>\n")
    checked = run_script("verify", cwd=case.root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    status = run_script("status", "--json", cwd=case.root)
    assert json.loads(status.stdout)["drift"] == []
    untracked = case.git("status", "--porcelain", "--untracked-files=all").stdout.splitlines()
    assert [line for line in untracked if b".snapline/" not in line] == [b"?? app.py"]


def test_sections_with_dashes_and_dots_do_not_end_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _Case(tmp_path, xdg=False)
    for name in ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    for header in ("[co-re]", "[core.sub]", "[a-b.c-d]", '[x-y "sub"]'):
        case.write(case.home / ".gitconfig", f"{header}\n\tk = v\n[core]\n\texcludesfile = /k\n")
        told = case.git("config", "--type=path", "--get", "core.excludesfile")
        assert told.stdout == b"/k\n", header
        assert global_excludes(case.root) == Path("/k"), header


def _home_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> _Case:
    """A case whose config files are the home's alone, for this process and git."""
    case = _Case(tmp_path, xdg=False)
    monkeypatch.setenv("HOME", str(case.home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return case


def test_an_include_git_cannot_expand_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git refuses such a config outright; a walk reads the rest rather than fail.
    case = _home_only(tmp_path, monkeypatch)
    case.write(case.home / ".gitconfig", "[include]\n\tpath = ~no-such-user-here/x\n"
                                         "[core]\n\texcludesfile = /k\n")  # fmt: skip
    assert global_excludes(case.root) == Path("/k")


def test_an_include_of_itself_stops_at_git_s_depth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git refuses such a config ("exceeded maximum include depth"); a walk reads on.
    case = _home_only(tmp_path, monkeypatch)
    case.write(case.home / ".gitconfig", "[core]\n\texcludesfile = /k\n"
                                         "[include]\n\tpath = ~/.gitconfig\n")  # fmt: skip
    assert global_excludes(case.root) == Path("/k")
    told = case.git("config", "--get", "core.excludesfile")
    assert told.returncode != 0 and b"depth" in told.stderr  # git's own refusal


def test_includes_nested_as_deep_as_git_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _home_only(tmp_path, monkeypatch)
    read = 0
    for depth in range(7, 13):
        # ~/.gitconfig includes inc1, which includes inc2, ... the last sets the value.
        case.write(case.home / ".gitconfig", "[include]\n\tpath = inc1\n")
        for level in range(1, depth):
            case.write(case.home / f"inc{level}", f"[include]\n\tpath = inc{level + 1}\n")
        case.write(case.home / f"inc{depth}", f"[core]\n\texcludesfile = /depth{depth}\n")
        told = case.git("config", "--get", "core.excludesfile")
        if told.returncode != 0:
            assert b"depth" in told.stderr  # too deep: git refuses, and reads no rule
            continue
        assert global_excludes(case.root) == Path(told.stdout.decode().strip()), depth
        read += 1
    assert read >= 3  # the deepest chains git still reads


def test_a_key_named_path_elsewhere_is_no_include_to_ask_git_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only includeIf.*.path needs git; without git on PATH the parser's answer stands.
    case = _home_only(tmp_path, monkeypatch)
    case.write(case.home / ".gitconfig", "[other]\n\tpath = x\n[core]\n\texcludesfile = /k\n")
    assert case.git("config", "--get", "core.excludesfile").stdout == b"/k\n"
    monkeypatch.setenv("PATH", no_git_path(tmp_path))
    assert global_excludes(case.root) == Path("/k")
