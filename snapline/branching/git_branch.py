"""Make a git branch from a snapshot's files with git's plumbing, never touching HEAD.

The branch's commit has HEAD as its parent (none on an unborn branch) and HEAD's tree,
except that every path the history ever recorded is as it was after the snapshot:
changed, added, or removed when the snapshot did not have it (deleted before it, or
added after). Paths git tracks and the history never recorded (``.snapline/ledger``
itself, files snapline ignores) stay as HEAD has them, so the branch is HEAD with the
workspace rolled back, as ``snapline rollback --to N`` would leave it, committed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.git_binary import GitNotRunError, GitRun, run_git
from snapline.state_dir import in_git

__all__ = ["BranchError", "BranchResult", "make_branch"]

_FALLBACK_IDENT = b"snapline <snapline@localhost>"


class BranchError(SnaplineError):
    """The branch could not be made: no git work tree, a bad or taken name, git refused.

    Attributes:
        name: The branch asked for.
    """

    exit_code = 1
    name: str
    problem: str

    def _message(self) -> str:
        return self.problem


@dataclass(frozen=True)
class BranchResult:
    """The branch made.

    Attributes:
        name: The branch (``refs/heads/<name>``).
        commit: Its commit id.
        number: The snapshot whose files it holds.
        parent: The commit it was made on (HEAD then), or ``None`` on an unborn HEAD.
        worktree: The work tree checked out on it, when one was asked for.
    """

    name: str
    commit: str
    number: int
    parent: str | None
    worktree: str | None


def make_branch(
    root: Path,
    *,
    name: str,
    number: int,
    files: Mapping[str, int],
    removed: Iterable[str],
    read: Callable[[str], bytes],
    message: str,
    worktree: Path | None = None,
) -> BranchResult:
    """Make branch ``name`` holding the workspace's files after snapshot ``number``.

    Args:
        root: The workspace root, inside a git work tree.
        name: The new branch's name.
        number: The snapshot (for the result and the message only).
        files: Every path tracked after the snapshot, with its git mode (``0o100644``,
            ``0o100755``, ``0o120000`` for a symlink, whose content is its target).
        removed: Paths the history recorded that the snapshot did not have.
        read: The bytes of a path after the snapshot.
        message: The commit message.
        worktree: Also check the branch out there (``git worktree add``).

    Returns:
        The branch made.

    Raises:
        BranchError: If ``root`` is not in a git work tree, ``name`` is not a valid
            branch name or is taken, ``worktree`` exists, or git fails.
    """
    git = _Git(root, name)
    prefix = git.prefix()
    if git.run("check-ref-format", "--branch", name, check=False).code != 0:
        raise BranchError(name, f"{name!r} is not a valid git branch name; choose another")
    if git.run("rev-parse", "--verify", "--quiet", f"refs/heads/{name}", check=False).out:
        raise BranchError(
            name, f"a git branch named {name} already exists; choose another name or delete it"
        )
    if worktree is not None and os.path.lexists(worktree):
        raise BranchError(
            name, f"{worktree} already exists; give --worktree a path that does not exist yet"
        )
    head = git.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
    parent = head.text.strip() or None
    stream = _fast_import_stream(
        name, _ident(git), message, parent, prefix, files, sorted(removed), read
    )
    git.run("fast-import", "--quiet", input=stream)
    commit = git.run("rev-parse", f"refs/heads/{name}").text.strip()
    if worktree is not None:
        git.run("worktree", "add", "--quiet", str(worktree), name)
    return BranchResult(
        name=name,
        commit=commit,
        number=number,
        parent=parent,
        worktree=None if worktree is None else str(worktree),
    )


class _Git:
    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name

    def run(self, *args: str, input: bytes | None = None, check: bool = True) -> GitRun:
        # The work tree's own repository, whatever GIT_DIR says (git_binary's environment).
        try:
            done = run_git(self.root, *args, input=input)
        except GitNotRunError as error:
            raise BranchError(self.name, f"cannot run git: {error.reason}; install git") from None
        if check and done.code != 0:
            said = done.lines
            raise BranchError(self.name, f"git {args[0]} failed: {said[-1] if said else done.code}")
        return done

    def prefix(self) -> str:
        # Outside git (a private repository's workspace) said without git: none may be there.
        inside = (
            self.run("rev-parse", "--is-inside-work-tree", check=False)
            if in_git(self.root)
            else None
        )
        if inside is None or inside.code != 0 or inside.out.strip() != b"true":
            raise BranchError(
                self.name,
                f"{self.root} is not inside a git work tree; a branch needs one (`git init`)",
            )
        return self.run("rev-parse", "--show-prefix").text.strip()


def _ident(git: _Git) -> bytes:
    # git's own committer identity and time; a repository without one still gets a branch.
    done = git.run("var", "GIT_COMMITTER_IDENT", check=False)
    line = done.out.strip()
    if done.code == 0 and line:
        return line
    import time

    return _FALLBACK_IDENT + b" %d +0000" % int(time.time())


def _fast_import_stream(
    name: str,
    ident: bytes,
    message: str,
    parent: str | None,
    prefix: str,
    files: Mapping[str, int],
    removed: list[str],
    read: Callable[[str], bytes],
) -> bytes:
    text = message.encode()
    parts = [b"commit refs/heads/%s\n" % name.encode(), b"committer %s\n" % ident]
    parts.append(b"data %d\n%s\n" % (len(text), text))
    if parent is not None:
        parts.append(b"from %s\n" % parent.encode())
    for path in removed:
        parts.append(b"D %s\n" % _quoted(prefix + path))
    for path in sorted(files):
        data = read(path)
        parts.append(b"M %o inline %s\n" % (files[path], _quoted(prefix + path)))
        parts.append(b"data %d\n%s\n" % (len(data), data))
    return b"".join(parts)


def _quoted(path: str) -> bytes:
    # fast-import reads a path to the end of its line, or C-quoted: quoting every path
    # carries any name (a newline, a quote, bytes that are not UTF-8) exactly.
    out = bytearray(b'"')
    for byte in os.fsencode(path):
        if byte in (0x22, 0x5C):
            out += b"\\" + bytes([byte])
        elif byte < 0x20 or byte >= 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    out += b'"'
    return bytes(out)
