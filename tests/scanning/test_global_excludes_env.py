"""Which global excludes file git reads, under every environment that moves it, against git.

git finds ``core.excludesFile`` (and, unset, its default file) through the environment as
well as through config files: ``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_SYSTEM``,
``GIT_CONFIG_GLOBAL`` (a file, or empty for none), ``XDG_CONFIG_HOME`` and ``HOME`` (set,
empty or unset), ``GIT_CONFIG_COUNT``'s pairs and ``git -c`` (``GIT_CONFIG_PARAMETERS``, as
a hook run by git sees it). Seeded combinations of them, each with every candidate file
ignoring a name of its own; the oracle is ``git check-ignore`` on those names. Then the
files git finds through a work tree's ``.git`` file: a linked work tree (``git worktree
add``: ``info/exclude`` and ``config`` are its main repository's, ``config.worktree`` its
own) and a repository whose ``.git`` is a file naming its directory
(``--separate-git-dir``, no ``commondir``).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from snapline.scanning import IgnoreRules, scan
from snapline.scanning.gitconfig import global_excludes
from tests.scanning.git_reference import GIT

# Every variable that moves git's config files or its global excludes.
_MOVERS = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
           "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_DIR",
           "GIT_WORK_TREE", "GIT_COMMON_DIR")  # fmt: skip
_BOOLS = ["1", "true", "Yes", "ON", "0", "false", "no", "off", ""]


def _git(
    cwd: Path, env: dict[str, str], *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    assert GIT is not None, "git is needed to compare ignore rules with git's"
    return subprocess.run(
        [GIT, "-c", "core.ignorecase=false", *args],
        cwd=cwd, env=env, input=stdin, capture_output=True, check=False,
    )  # fmt: skip


def _ignored_by_git(root: Path, env: dict[str, str], names: list[str]) -> set[str]:
    listed = "".join(f"{name}\0" for name in names).encode()
    done = _git(root, env, "check-ignore", "--stdin", "-z", stdin=listed)
    assert done.returncode in (0, 1), done.stderr
    return {os.fsdecode(raw) for raw in done.stdout.split(b"\0") if raw}


def _ignored_by_snapline(
    root: Path, env: dict[str, str], names: list[str], monkeypatch: pytest.MonkeyPatch
) -> set[str]:
    for name in [*_MOVERS, *[k for k in os.environ if k.startswith("GIT_CONFIG_")]]:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    rules = IgnoreRules(root)
    return {name for name in names if rules.is_ignored(name)}


class _Place:
    """A test's directories, and a name of its own for each file that may hold rules."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.xdg = base / "xdg"
        self.root = base / "repo"
        self.names: list[str] = []
        for directory in (self.home, self.xdg, self.root):
            directory.mkdir(parents=True)

    def rules(self, name: str) -> Path:
        """An excludes file that ignores ``name`` (a file of the tree), and its path."""
        path = self.base / "rules" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"{name}\n")
        (self.root / name).write_text("x\n")
        self.names.append(name)
        return path

    def config(self, path: Path, rules: str, extra: str = "") -> Path:
        """A config file at ``path`` whose ``core.excludesFile`` ignores ``rules``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"[core]\n\texcludesFile = {self.rules(rules)}\n{extra}")
        return path


# A config outside the repository turning extensions.worktreeConfig on: git reads the
# extension from the repository's own config only.
_NOT_THE_REPOSITORYS = "[extensions]\n\tworktreeConfig = true\n"


def _combination(place: _Place, rng: random.Random) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    # The defaults, read when no config names a file.
    place.rules("xdg-default").replace(_moved(place.xdg / "git" / "ignore"))
    place.rules("home-default").replace(_moved(place.home / ".config" / "git" / "ignore"))
    system = place.base / "etc" / "gitconfig"
    if rng.random() < 0.7:
        place.config(system, "system", _NOT_THE_REPOSITORYS)
    roll = rng.random()
    if roll < 0.7:
        env["GIT_CONFIG_SYSTEM"] = os.fspath(system)
    elif roll < 0.8:
        env["GIT_CONFIG_SYSTEM"] = ""
    else:
        env["GIT_CONFIG_SYSTEM"] = os.fspath(place.base / "no-such-file")
    if rng.random() < 0.5:
        env["GIT_CONFIG_NOSYSTEM"] = rng.choice(_BOOLS)
    if rng.random() < 0.8:
        env["HOME"] = os.fspath(place.home)
    roll = rng.random()
    if roll < 0.5:
        env["XDG_CONFIG_HOME"] = os.fspath(place.xdg)
    elif roll < 0.6:
        env["XDG_CONFIG_HOME"] = ""
    if rng.random() < 0.4:
        place.config(place.xdg / "git" / "config", "xdg-config", _NOT_THE_REPOSITORYS)
    if rng.random() < 0.4:
        place.config(place.home / ".config" / "git" / "config", "home-config", _NOT_THE_REPOSITORYS)
    roll = rng.random()
    if roll < 0.25:
        place.config(place.home / ".gitconfig", "home-gitconfig")
    elif roll < 0.45:
        place.config(place.home / "included.cfg", "home-included")
        text = "[include]\n\tpath = ~/included.cfg\n"
        if rng.random() < 0.5:
            text += "[extensions]\n\tworktreeConfig = true\n"  # not the repository's: unread
        (place.home / ".gitconfig").write_text(text)
    roll = rng.random()
    if roll < 0.2:
        env["GIT_CONFIG_GLOBAL"] = os.fspath(
            place.config(place.base / "alt.cfg", "alt-global", _NOT_THE_REPOSITORYS)
        )
    elif roll < 0.3:
        env["GIT_CONFIG_GLOBAL"] = ""
    if rng.random() < 0.2:
        with open(place.root / ".git" / "config", "a") as config:
            config.write(f"[core]\n\texcludesfile = {place.rules('local')}\n")
    # The repository's own config.worktree, read only with extensions.worktreeConfig on.
    if rng.random() < 0.5 and "HOME" in env:
        place.config(place.home / "wt.cfg", "worktree-included")
        (place.root / ".git" / "config.worktree").write_text("[include]\n\tpath = ~/wt.cfg\n")
    else:
        place.config(place.root / ".git" / "config.worktree", "worktree")
    if rng.random() < 0.35:
        value = rng.choice(["= true", "= yes", "= on", "= 1", "= TRUE", "", "= false", "= 0"])
        with open(place.root / ".git" / "config", "a") as config:
            config.write(f"[extensions]\n\tworktreeConfig {value}\n")
    roll = rng.random()
    if roll < 0.08:
        env["GIT_CONFIG_COUNT"] = "2"
        env["GIT_CONFIG_KEY_0"] = "user.name"
        env["GIT_CONFIG_VALUE_0"] = "someone"
        env["GIT_CONFIG_KEY_1"] = rng.choice(["core.excludesFile", "CORE.EXCLUDESFILE"])
        env["GIT_CONFIG_VALUE_1"] = os.fspath(place.rules("count"))
    elif roll < 0.12:
        env["GIT_CONFIG_COUNT"] = "1"  # the pair after the count is not read
        env["GIT_CONFIG_KEY_0"] = "user.name"
        env["GIT_CONFIG_VALUE_0"] = "someone"
        env["GIT_CONFIG_KEY_1"] = "core.excludesfile"
        env["GIT_CONFIG_VALUE_1"] = os.fspath(place.rules("uncounted"))
    elif roll < 0.16:
        env["GIT_CONFIG_KEY_0"] = "core.excludesfile"  # no count: not read at all
        env["GIT_CONFIG_VALUE_0"] = os.fspath(place.rules("no-count"))
    roll = rng.random()
    if roll < 0.1:
        env["GIT_CONFIG_PARAMETERS"] = f"'core.excludesfile'='{place.rules('parameter')}'"
    elif roll < 0.2:
        # Any `git -c` has git asked, which must read this repository's config too.
        env["GIT_CONFIG_PARAMETERS"] = "'user.name'='someone'"
    return env


def _moved(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_the_environment_picks_the_file_git_picks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcomes = set()
    for seed in range(100):
        place = _Place(tmp_path / str(seed))
        rng = random.Random(seed)
        bare = {"PATH": os.environ.get("PATH", "")}
        assert _git(place.root, bare, "init", "--quiet", "--template=").returncode == 0
        env = _combination(place, rng)
        by_git = _ignored_by_git(place.root, env, place.names)
        by_snapline = _ignored_by_snapline(place.root, env, place.names, monkeypatch)
        assert by_snapline == by_git, f"seed {seed}: {sorted(env.items())}"
        outcomes.add(frozenset(by_git))
    # Every file had its turn: the combinations are not one case over and over.
    won = {name for outcome in outcomes for name in outcome}
    assert won >= {"xdg-default", "home-default", "system", "xdg-config", "home-config",
                   "home-gitconfig", "home-included", "alt-global", "local", "count", "parameter",
                   "worktree", "worktree-included"}  # fmt: skip
    assert frozenset() in outcomes  # and sometimes no file at all
    assert any("local" in outcome for outcome in outcomes if len(outcome) == 1)


def test_git_asked_about_nothing_configured_means_the_default_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = _Place(tmp_path)
    bare = {"PATH": os.environ.get("PATH", "")}
    assert _git(place.root, bare, "init", "--quiet", "--template=").returncode == 0
    place.rules("home-default").replace(_moved(place.home / ".config" / "git" / "ignore"))
    env = {**bare, "HOME": os.fspath(place.home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_PARAMETERS": "'user.name'='someone'"}  # fmt: skip
    assert _ignored_by_git(place.root, env, place.names) == {"home-default"}
    assert _ignored_by_snapline(place.root, env, place.names, monkeypatch) == {"home-default"}


def test_a_value_under_a_home_that_is_not_set_names_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = _Place(tmp_path)
    bare = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    assert _git(place.root, bare, "init", "--quiet", "--template=").returncode == 0
    system = place.base / "etc" / "gitconfig"
    _moved(system).write_text("[core]\n\texcludesFile = ~/ignore\n")
    env = {**bare, "GIT_CONFIG_SYSTEM": os.fspath(system)}  # and no HOME
    refused = _git(place.root, env, "check-ignore", "anything")
    # git cannot expand `~` and refuses the config: it reads no global excludes file.
    assert refused.returncode == 128, refused
    assert b"failed to expand user dir in: '~/ignore'" in refused.stderr
    assert _ignored_by_snapline(place.root, env, ["anything"], monkeypatch) == set()
    assert global_excludes(place.root) is None


def _env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.fspath(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def _same_as_git(
    root: Path, env: dict[str, str], names: list[str], monkeypatch: pytest.MonkeyPatch
) -> set[str]:
    by_git = _ignored_by_git(root, env, names)
    assert _ignored_by_snapline(root, env, names, monkeypatch) == by_git
    walked = scan(root, IgnoreRules(root), keep_stats=False).names
    assert not by_git & set(walked)
    return by_git


def test_a_linked_work_tree_reads_its_main_repositorys_rules_and_its_own_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    main = tmp_path / "main"
    main.mkdir()
    _git(main, env, "init", "--quiet", "--template=")
    (main / "tracked.txt").write_text("x\n")
    _git(main, env, "add", "tracked.txt")
    assert _git(main, env, "commit", "--quiet", "-m", "one").returncode == 0
    linked = tmp_path / "linked"
    assert _git(main, env, "worktree", "add", "--quiet", os.fspath(linked)).returncode == 0
    assert (linked / ".git").is_file()
    names = ["from-info-exclude", "from-main-config", "from-worktree-config", "kept"]
    for name in names:
        (linked / name).write_text("x\n")
    (main / ".git" / "info").mkdir(exist_ok=True)
    (main / ".git" / "info" / "exclude").write_text("from-info-exclude\n")
    (tmp_path / "main-rules").write_text("from-main-config\n")
    _git(main, env, "config", "core.excludesFile", os.fspath(tmp_path / "main-rules"))
    assert _same_as_git(linked, env, names, monkeypatch) == {
        "from-info-exclude",
        "from-main-config",
    }
    # With extensions.worktreeConfig, the linked tree's own config.worktree wins.
    _git(main, env, "config", "extensions.worktreeConfig", "true")
    (tmp_path / "own-rules").write_text("from-worktree-config\n")
    _git(
        linked, env, "config", "--worktree", "core.excludesFile", os.fspath(tmp_path / "own-rules")
    )
    assert _same_as_git(linked, env, names, monkeypatch) == {
        "from-info-exclude",
        "from-worktree-config",
    }


def test_a_git_file_naming_a_separate_git_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    root = tmp_path / "repo"
    root.mkdir()
    # Not UTF-8: the .git file names it in the file system's bytes.
    separate = tmp_path / os.fsdecode(b"elsewhere-\xff.git")
    _git(root, env, "init", "--quiet", "--template=", f"--separate-git-dir={separate}")
    assert (root / ".git").is_file() and not (separate / "commondir").exists()
    names = ["from-info-exclude", "from-config", "kept"]
    for name in names:
        (root / name).write_text("x\n")
    (separate / "info").mkdir()
    (separate / "info" / "exclude").write_text("from-info-exclude\n")
    (tmp_path / "rules").write_text("from-config\n")
    _git(root, env, "config", "core.excludesFile", os.fspath(tmp_path / "rules"))
    assert _same_as_git(root, env, names, monkeypatch) == {"from-info-exclude", "from-config"}


@pytest.mark.parametrize("value", [*_BOOLS, "TRUE", "yes", "on", "No"])
def test_every_spelling_of_git_config_nosystem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    place = _Place(tmp_path)
    bare = {"PATH": os.environ.get("PATH", "")}
    assert _git(place.root, bare, "init", "--quiet", "--template=").returncode == 0
    system = place.config(place.base / "etc" / "gitconfig", "system")
    env = {**bare, "GIT_CONFIG_SYSTEM": os.fspath(system), "GIT_CONFIG_NOSYSTEM": value}
    by_git = _ignored_by_git(place.root, env, place.names)
    assert by_git == (set() if value.lower() in ("1", "true", "yes", "on") else {"system"})
    assert _ignored_by_snapline(place.root, env, place.names, monkeypatch) == by_git
