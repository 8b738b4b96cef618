"""Drift that pulled commits brought before their history: for ``snapline fetch``.

A clone that ``git pull``s a colleague's commits gets their files, not their snapshots:
those stay on the remote (the colleague's pre-push hook pushed them) until ``snapline
fetch``. The pulled files then differ from this clone's latest snapshot, and the usual
advice (``snapline resync``) would file the colleague's recorded work as a person's
outside change. This tells that case apart, with no network call, and its advice names
``snapline fetch REMOTE`` first.

A drifted path is *pulled* when all of these hold, asked cheapest first:

1. the history is on git's refs, and git fetched after the history was last fetched
   (``FETCH_HEAD`` newer than ``snapline fetch``'s mark: two ``stat`` calls,
   :mod:`snapline.store.refs.fetched`);
2. the file on disk is the checked-out commit's (its blob, or both absent): git put it
   there, no hand edit since;
3. a remote-tracking ref reaches the checked-out commit (a remote has it, so its
   snapshots may be there): one ``git for-each-ref``, and ``git remote`` for its name;
4. no snapshot here has the checked-out commit's files as its state (the lines read,
   the commit's tree in scope built: what ``verify`` pays in a CI clone).

A plain hand edit fails 2, a commit never pushed fails 3, a checkout of an older
snapshot's commit fails 4: their advice stays ``snapline resync``.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem
    from snapline.store.protocol import StoreReader
    from snapline.store.refs.git import GitRepository

__all__ = ["Pulled", "mark_pulled", "pulled"]

_MAX_NAMED = 3
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Pulled:
    """Drifted paths that commits git fetched brought before their history.

    Attributes:
        remote: The remote whose tracking ref reaches the checked-out commit (``None``:
            only a ref of no configured remote does; ``snapline fetch`` picks its own).
        paths: The drifted paths that are the checked-out commit's files.
    """

    remote: str | None
    paths: tuple[str, ...]

    @property
    def fetch(self) -> str:
        """The command, quoted: ``snapline fetch origin``."""
        return f"`snapline fetch {self.remote}`" if self.remote else "`snapline fetch`"

    def advice(self) -> str:
        """The one line of ``status``: fetch first, and why.

        Returns:
            ``a.txt came with commits git fetched from origin after the history was ...``.
        """
        shown = ", ".join(self.paths[:_MAX_NAMED])
        if len(self.paths) > _MAX_NAMED:
            shown += f" and {len(self.paths) - _MAX_NAMED} more"
        return (
            f"{shown} came with commits git fetched {self.whence} after the history was "
            f"last fetched: bring their snapshots with {self.fetch} first (recorded "
            "elsewhere, they are no outside change); then, for what still differs:"
        )

    def path_advice(self, path: str) -> str:
        """One drifted path's message (``status --json``, ``verify``, the refusals)."""
        return (
            f"{path} came with commits git fetched {self.whence} after the history was "
            f"last fetched: bring their snapshots with {self.fetch} first; if it still "
            "differs, record it with `snapline resync`"
        )

    @property
    def whence(self) -> str:
        """Where git fetched the commits from: ``from origin``, or ``from a remote``."""
        return f"from {self.remote}" if self.remote else "from a remote"


def pulled(root: Path, store: StoreReader, drifted: Sequence[str]) -> Pulled | None:
    """Of the ``drifted`` paths, those that pulled commits brought before their history.

    Args:
        root: The workspace root (the top of its git work tree).
        store: The open store; only a history on git's refs is asked.
        drifted: Paths that differ from the known state.

    Returns:
        ``None`` when no path is such (the module's four conditions), else the paths
        and the remote to fetch from.

    Raises:
        DamagedLineError: If, asked so, a line is damaged or crafted (exit 3).
    """
    if not drifted:
        return None
    from snapline.store.refs.store import RefsStore

    if not isinstance(store, RefsStore):
        return None
    from snapline.store.refs.fetched import fetched_since

    repo = store.repo
    if fetched_since(repo.git_dir, repo.common_dir):
        return None
    head = repo.head_tree()
    if head is None:
        return None
    paths = tuple(path for path in drifted if _checked_out(root, repo, head, path))
    if not paths:
        return None
    published, remote = _published(repo)
    if not published or _recorded(root, repo, head):
        return None
    return Pulled(remote, paths)


def mark_pulled(problems: list[Problem], found: Pulled | None) -> list[Problem]:
    """``problems``, each drifted path of ``found`` saying to fetch first (its kind kept).

    Args:
        problems: A sync check's problems.
        found: What :func:`pulled` found.

    Returns:
        The same problems; a pulled path's drift with :meth:`Pulled.path_advice` as
        its message.
    """
    if found is None:
        return problems
    from snapline.snapshots.check.explained import DRIFT_KINDS
    from snapline.snapshots.found import make_problem

    named = set(found.paths)
    return [
        make_problem(
            kind=p.kind,
            path=p.path,
            expected=p.expected,
            actual=p.actual,
            message=found.path_advice(p.path),
        )
        if p.kind in DRIFT_KINDS and p.path in named
        else p
        for p in problems
    ]


def _checked_out(root: Path, repo: GitRepository, head: str, path: str) -> bool:
    """Whether the file at ``path`` is the checked-out commit's (both absent: yes)."""
    from snapline.store.refs.git_errors import MissingObjectError
    from snapline.store.refs.values import TREE_MODE

    try:
        entry = repo.entry(head, path)
    except MissingObjectError:
        return False  # a tree git did not fetch: no claim
    full = root / path
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        return entry is None
    except OSError:
        return False
    if entry is None or entry.mode == TREE_MODE:
        return False
    if stat.S_ISLNK(info.st_mode):
        data = os.fsencode(os.readlink(full))
        return _blob_id([data], len(data)) == entry.id
    if not stat.S_ISREG(info.st_mode):
        return False
    try:
        with open(full, "rb") as handle:
            # Streamed: a file tracked by hash only may be large.
            return _blob_id(iter(lambda: handle.read(_CHUNK), b""), info.st_size) == entry.id
    except OSError:
        return False


def _blob_id(chunks: Iterable[bytes], size: int) -> str:
    """Git's blob id of the bytes ``chunks`` yields (``size`` of them in all)."""
    # SHA-1 is git's object name here, not a security choice (objects.blob_id's).
    digest = hashlib.sha1(b"blob %d\x00" % size, usedforsecurity=False)
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def _published(repo: GitRepository) -> tuple[bool, str | None]:
    """Whether a remote-tracking ref reaches ``HEAD``, and that remote's name.

    No git binary (or one that fails): not published, so no claim is made.
    """
    from snapline.git_binary import GitNotRunError, run_git

    where = f"--git-dir={repo.git_dir}"
    contains = ["for-each-ref", "--contains=HEAD", "--format=%(refname)", "refs/remotes/"]
    try:
        found = run_git(repo.git_dir, where, *contains)
        refs = found.text.split() if found.code == 0 else []
        if not refs:
            return False, None
        listed = run_git(repo.git_dir, where, "remote")
    except GitNotRunError:
        return False, None
    names = listed.text.split() if listed.code == 0 else []
    for name in sorted(names, key=lambda name: (name != "origin", name)):
        if any(ref.startswith(f"refs/remotes/{name}/") for ref in refs):
            return True, name
    return True, None


def _recorded(root: Path, repo: GitRepository, head: str) -> bool:
    """Whether a snapshot here has the checked-out commit's files (in scope) as its state."""
    from snapline.store.refs.catalog import Catalog
    from snapline.store.refs.disk import scoped_tree
    from snapline.store.refs.git_errors import MissingObjectError

    catalog = Catalog(repo)
    catalog.refresh()
    try:
        tree = scoped_tree(repo, head, root, catalog.paths()).tree
    except MissingObjectError:
        return False
    return bool(catalog.recorded(tree))
