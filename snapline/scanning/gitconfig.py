"""Where git's global excludes are: ``core.excludesFile``, read from git's config files.

git reads ignore rules from a file outside the tree too: ``core.excludesFile``, by default
``$XDG_CONFIG_HOME/git/ignore`` (``~/.config/git/ignore``). Its value is read here from
the config files as git reads them, in git's order (a later one wins): the system file
(``$GIT_CONFIG_SYSTEM``, else ``/etc/gitconfig``; none with ``GIT_CONFIG_NOSYSTEM``), the
global ones (``$GIT_CONFIG_GLOBAL``, else ``$XDG_CONFIG_HOME/git/config`` then
``~/.gitconfig``), the repository's ``config`` and, with ``extensions.worktreeConfig``,
its ``config.worktree``, then ``GIT_CONFIG_COUNT``'s pairs; ``include.path`` is followed.
This runs in every process that walks (a hook on every tool call), so git is not spawned
for it: only a config this parser does not model (``includeIf``, ``%(prefix)/``, ``git -c``
in ``GIT_CONFIG_PARAMETERS``) is asked of ``git config`` itself.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["git_dirs", "global_excludes"]

_KEY = "core.excludesfile"
_SPACE = b" \t\n\r"
_MAX_DEPTH = 10  # git's own limit on nested includes


class _AskGit(Exception):
    """The config holds something only git itself answers exactly."""


def git_dirs(root: Path) -> tuple[Path, Path] | None:
    """The git directory of a work tree at ``root`` and its common directory.

    ``.git`` is either the repository or, in a linked work tree or a submodule, a file
    ``gitdir: <path>``; a linked work tree shares ``config`` and ``info/`` with its main
    repository (named by ``commondir``).

    Returns:
        ``(git_dir, common_dir)``, or None when ``root`` holds no ``.git``.
    """
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git, dot_git
    text = _read(dot_git).decode("utf-8", "surrogateescape")
    if not text.startswith("gitdir:"):
        return None
    git_dir = root / text[len("gitdir:") :].strip()
    common = _read(git_dir / "commondir").decode("utf-8", "surrogateescape").strip()
    return git_dir, (git_dir / common if common else git_dir)


def global_excludes(root: Path) -> Path | None:
    """The global excludes file git reads for a work tree at ``root`` (it may not exist).

    Args:
        root: The work tree's top directory (a relative ``core.excludesFile`` is taken
            from there, as git runs there).

    Returns:
        The file's path, or None when git would read none (no ``HOME``, an empty value,
        a value git cannot expand), with this process's environment.
    """
    env = os.environ
    try:
        configured = _configured(root, env)
        value = _default(env) if configured is None else _expand(configured, env)
    except _AskGit:
        value = _ask_git(root, env)
        if value is None:
            value = _default(env)
    return root / value if value else None


def _default(env: Mapping[str, str]) -> str | None:
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        return os.path.join(xdg, "git", "ignore")
    home = env.get("HOME")
    return os.path.join(home, ".config", "git", "ignore") if home else None


def _configured(root: Path, env: Mapping[str, str]) -> str | None:
    if "GIT_CONFIG_PARAMETERS" in env:
        raise _AskGit
    value: str | None = None
    worktree_config = False
    for path, local in _files(root, env):
        for key, found in _entries(path, env, 0):
            if key == _KEY:
                value = found if found is not None else ""  # no value: git refuses it
            elif local and key == "extensions.worktreeconfig":
                worktree_config = (found or "true").lower() in ("true", "yes", "on", "1")
        if local and worktree_config:
            dirs = git_dirs(root)
            if dirs is not None:
                for key, found in _entries(dirs[0] / "config.worktree", env, 0):
                    if key == _KEY:
                        value = found if found is not None else ""
    count = env.get("GIT_CONFIG_COUNT", "")
    for index in range(int(count) if count.isdigit() else 0):
        if env.get(f"GIT_CONFIG_KEY_{index}", "").lower() == _KEY:
            value = env.get(f"GIT_CONFIG_VALUE_{index}", "")
    return value


def _files(root: Path, env: Mapping[str, str]) -> Iterator[tuple[Path, bool]]:
    if not _true(env.get("GIT_CONFIG_NOSYSTEM", "")):
        system = env.get("GIT_CONFIG_SYSTEM", "/etc/gitconfig")
        if system:
            yield Path(system), False
    if "GIT_CONFIG_GLOBAL" in env:
        if env["GIT_CONFIG_GLOBAL"]:
            yield Path(env["GIT_CONFIG_GLOBAL"]), False
    else:
        xdg, home = env.get("XDG_CONFIG_HOME"), env.get("HOME")
        if xdg:
            yield Path(xdg, "git", "config"), False
        elif home:
            yield Path(home, ".config", "git", "config"), False
        if home:
            yield Path(home, ".gitconfig"), False
    dirs = git_dirs(root)
    if dirs is not None:
        yield dirs[1] / "config", True


def _true(text: str) -> bool:
    return text.lower() in ("true", "yes", "on", "1")


def _entries(path: Path, env: Mapping[str, str], depth: int) -> Iterator[tuple[str, str | None]]:
    """Every ``(key, value)`` of one config file, its ``include.path`` files in place."""
    for key, value in _parse(_read(path)):
        if key == "include.path" and value:
            included = _expand(value, env)
            if included is None or depth >= _MAX_DEPTH:
                continue  # git stops there with an error: it reads no rule either
            yield from _entries(path.parent / included, env, depth + 1)
        elif key.startswith("includeif.") and key.endswith(".path"):
            raise _AskGit
        else:
            yield key, value


def _expand(value: str, env: Mapping[str, str]) -> str | None:
    """A path value as git's ``interpolate_path`` expands it (None: git cannot)."""
    if value.startswith("%(prefix)/"):
        raise _AskGit
    if not value.startswith("~"):
        return value
    user, slash, rest = value[1:].partition("/")
    if not user:
        home = env.get("HOME")
        return None if home is None else home + slash + rest
    try:
        return pwd.getpwnam(user).pw_dir + slash + rest
    except KeyError:
        return None


def _ask_git(root: Path, env: Mapping[str, str]) -> str | None:
    # Imported here: a walk whose config this parser models never runs git. git asked
    # here reads the repository at root, as the parser does, whatever GIT_DIR says.
    from snapline.git_binary import GitNotRunError, git_environment, run_git

    try:
        done = run_git(
            root, "config", "--type=path", "--get", _KEY, env=git_environment(env), timeout=30
        )
    except GitNotRunError:
        return None
    return os.fsdecode(done.out.rstrip(b"\n")) if done.code == 0 else None


def _parse(data: bytes) -> Iterator[tuple[str, str | None]]:
    """The ``(section.key, value)`` pairs of a config file, as git's ``git_parse_source``.

    Section and key lower-cased (a subsection kept as written); a key without ``=`` has
    the value None. A syntax error ends the file (git refuses the whole config then).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = data.replace(b"\r\n", b"\n") + b"\n"
    at, size, section = 0, len(data) - 1, ""
    while at < size:
        char = data[at : at + 1]
        if char in (b"#", b";"):
            at = data.index(b"\n", at) + 1
        elif char in _SPACE:
            at += 1
        elif char == b"[":
            header = _section(data, at + 1)
            if header is None:
                return
            section, at = header
        elif char.isalpha():
            end = at
            while data[end : end + 1].isalnum() or data[end : end + 1] == b"-":
                end += 1
            key = data[at:end].decode("ascii").lower()
            name = f"{section}.{key}" if section else key  # git's name before any section
            while data[end : end + 1] in (b" ", b"\t"):
                end += 1
            if data[end : end + 1] == b"\n":
                yield name, None
                at = end + 1
                continue
            if data[end : end + 1] != b"=":
                return
            parsed = _value(data, end + 1)
            if parsed is None:
                return
            value, at = parsed
            yield name, value
        else:
            return


def _section(data: bytes, at: int) -> tuple[str, int] | None:
    """``[name]``, ``[name "sub"]`` or ``[name.sub]`` from ``at``; the name and the end."""
    end = at
    while data[end : end + 1].isalnum() or data[end : end + 1] in (b"-", b"."):
        end += 1
    name = data[at:end].decode("ascii").lower()
    if data[end : end + 1] == b"]":
        return (name, end + 1) if name else None
    if data[end : end + 1] not in _SPACE or data[end : end + 1] == b"\n":
        return None
    while data[end : end + 1] in _SPACE:
        if data[end : end + 1] == b"\n":
            return None
        end += 1
    if data[end : end + 1] != b'"':
        return None
    sub = bytearray()
    end += 1
    while True:
        char = data[end : end + 1]
        if char in (b"\n", b""):
            return None
        if char == b'"':
            break
        if char == b"\\":
            end += 1
            char = data[end : end + 1]
            if char in (b"\n", b""):
                return None
        sub += char
        end += 1
    if data[end + 1 : end + 2] != b"]":
        return None
    return f"{name}.{os.fsdecode(bytes(sub))}", end + 2


_ESCAPES = {b"t": b"\t", b"b": b"\b", b"n": b"\n", b"\\": b"\\", b'"': b'"'}


def _value(data: bytes, at: int) -> tuple[str, int] | None:
    """A value from ``at`` to its line's end, as git's ``parse_value``; and where it ends."""
    out, quote, spaces = bytearray(), False, 0
    while True:
        char = data[at : at + 1]
        at += 1
        if char in (b"\n", b""):
            return None if quote else (os.fsdecode(bytes(out)), at)
        if char in _SPACE and not quote:
            spaces += 1 if out else 0
            continue
        if not quote and char in (b"#", b";"):
            at = data.index(b"\n", at - 1) + 1
            return os.fsdecode(bytes(out)), at
        out += b" " * spaces
        spaces = 0
        if char == b"\\":
            char = data[at : at + 1]
            at += 1
            if char == b"\n":
                continue  # a line continued
            if char not in _ESCAPES:
                return None
            out += _ESCAPES[char]
        elif char == b'"':
            quote = not quote
        else:
            out += char


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""  # missing or unreadable: git reads no value from it either
