"""Blaming: the workspace methods that say who wrote each line of the files on disk."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from snapline.errors import SnaplineError
from snapline.paths import disk_path
from snapline.workspace.base import PathArg, WorkspaceBase

if TYPE_CHECKING:
    from snapline.blame import FileBlame
    from snapline.blame.elsewhere import Elsewhere
    from snapline.blame.summary import BlameSummary
    from snapline.snapshots.read.refs import SnapshotRef
    from snapline.snapshots.snapshot import Report

__all__ = ["BlameRangeError", "Blaming"]


class BlameRangeError(SnaplineError):
    """A line range starts past the end of the file.

    Attributes:
        path: The file.
        start: The first line asked for.
        count: How many lines the file has.
    """

    exit_code = 1
    path: str
    start: int
    count: int

    def _message(self) -> str:
        return f"{self.path} has only {self.count} lines; -L {self.start},... starts past its end"


class Blaming(WorkspaceBase):
    """The ``blame`` methods of :class:`~snapline.workspace.Workspace`."""

    def blame(self, path: PathArg, *, lines: tuple[int, int] | None = None) -> FileBlame:
        """Who wrote each line of ``path`` as it is on disk, as ``git blame`` would say.

        Each line gets the snapshot that last wrote it (its number, id, tool, session,
        prompt and milestone) and its kind: ``agent`` (a snapshot a tool recorded),
        ``person`` (an outside change recorded as such, tool ``external``), ``baseline``
        (snapshot 0: it predates snapline) or ``unrecorded`` (changed on disk since the
        latest snapshot). Lines are matched between versions by git's own line diff.
        In a checkout that only reads a history on git's refs (CI's clone of main), a
        file that other lines recorded (agents' pull requests, however merged) is
        blamed along the line that wrote it, as the agent's own clone blames it
        (:mod:`snapline.blame.elsewhere`).

        Args:
            path: The file, relative to the root or absolute inside it.
            lines: Only lines ``start..end`` (from 1, both included; ``end`` past the
                file's end means its end).

        Returns:
            The lines with their origins.

        Raises:
            UnknownPathError: If the file is neither on disk nor tracked.
            NotBlamableError: If it is tracked and was deleted on disk.
            BinaryFileError: If it is binary.
            NotAFileError: If it names a directory.
            BlameRangeError: If ``lines`` starts past the file's end.
            ContentUnavailableError: If a version of it was tracked by hash only or
                forgotten.
        """
        from snapline.blame import FileBlame, NotAFileError, blame_file
        from snapline.blame.batch import groups
        from snapline.blame.elsewhere import for_checkout
        from snapline.blame.gitdiff import line_diff

        rel = self._relpath(path)
        where = disk_path(self.root, rel)
        if where.is_dir() and not where.is_symlink():
            raise NotAFileError(rel)
        disk = _read_disk(where)
        hunks = line_diff()
        with self._store.read(), _closing(for_checkout(self.root, self._store, hunks)) as other:
            # Every version's diff with the one before in one git process, not one each.
            ((_, diff),) = groups(self._store, self._reconstructor, [(rel, disk)], hunks)
            found = blame_file(self._store, self._reconstructor, rel, disk, diff, elsewhere=other)
        if lines is None:
            return found
        start, end = lines
        if start > max(len(found.lines), 1):
            raise BlameRangeError(rel, start, len(found.lines))
        return FileBlame(found.path, found.lines[start - 1 : end], found.latest)

    def blame_summary(self, paths: Iterable[PathArg] | PathArg | None = None) -> BlameSummary:
        """How many lines of the tracked files each agent session, person and baseline wrote.

        Every tracked file (or those at or under ``paths``) is blamed as :meth:`blame`
        does, and its lines on disk counted by kind, by agent session and by person;
        the totals add them up. A file that cannot be blamed (binary, deleted on disk,
        a version tracked by hash only) is listed in ``skipped`` with the reason.

        Args:
            paths: Files or directories to count (default: the whole workspace).

        Returns:
            The counts per file, by path, and in total.

        Raises:
            UnsafePathError: If a path is outside the root or inside ``.snapline/``.
        """
        from snapline.blame.elsewhere import for_checkout
        from snapline.blame.gitdiff import line_diff
        from snapline.blame.summary import summarize

        scope = self._scope(paths)
        hunks = line_diff()
        with self._store.read(), _closing(for_checkout(self.root, self._store, hunks)) as other:
            tracked = set(self._store.state.get())
            if other is not None:
                # A reading checkout: the files other lines track count too (main's
                # files that the agents' pull requests added).
                tracked |= {p for p in other.paths() if disk_path(self.root, p).is_file()}
            wanted = [path for path in sorted(tracked) if _inside(path, scope)]
            return summarize(
                self._store, self._reconstructor, self._on_disk(wanted), hunks, elsewhere=other
            )

    def blame_markdown(
        self,
        base: SnapshotRef,
        end: SnapshotRef | None = None,
        *,
        verification: Report | None = None,
    ) -> str:
        """A pull request's review as Markdown: what the snapshots after ``base`` did, who wrote it.

        As ``git log BASE..END``: the snapshots after ``base`` up to ``end`` (default:
        the latest). It names their milestones, the agent prompts they answered, the
        files they changed, the lines of those files on disk now by who wrote them (an
        agent session or a person in the range, or earlier) and the guard outcomes.
        Plain Markdown with no link, for ``$GITHUB_STEP_SUMMARY`` or any host.
        ``verification``, ``verify``'s result, is shown after the snapshots when given.

        Raises:
            SnapshotRefError: If a reference is not a number or reference.
            SnapshotNotFoundError: If it names a snapshot outside the history.
        """
        from snapline.blame.markdown import range_summary
        from snapline.guard import outcomes
        from snapline.snapshots.read.refs import number_of

        with self._store.read():
            checks = outcomes(self._store)
            first = number_of(self._store, base) + 1
            last = number_of(self._store, "latest" if end is None else end)
            changed = {
                p
                for _, path, old in self._store.changes.paths(first, last)
                for p in (path, old)
                if p
            }
            tracked = sorted(changed & set(self._store.state.get(changed)))
            disk = dict(self._on_disk(tracked))
            return range_summary(
                self._store,
                self._reconstructor,
                first,
                last,
                disk,
                checks,
                verification=verification,
            )

    def blame_commits_markdown(
        self, base: str, head: str = "HEAD", *, verification: Report | None = None
    ) -> str:
        """A pull request's review as Markdown, the range given as git commits ``base..head``.

        With the history on git's refs the agent's snapshots are on the agent's line.
        Each commit's files are explained as ``verify`` explains a checkout (a recorded
        state, or git's clean merge of states, on any line); the range is, on each line
        whose snapshot explains ``head``, the snapshots after those explaining ``base``
        (:mod:`snapline.blame.commits`). Each line's range is reviewed as
        :meth:`blame_markdown` reviews one, with that line's own numbers, against the
        files on disk (CI's checkout of ``head``).

        Args:
            base: A git revision (``origin/main``, a SHA).
            head: Another (default ``HEAD``).
            verification: ``verify``'s result, shown first (``None``: not shown).

        Returns:
            The Markdown text, ending in a newline.

        Raises:
            CommitRangeError: If git does not know a revision, or the history is not on
                git's refs (an in-tree history: give snapshot references instead).
            DamagedLineError: If a line is damaged or crafted.
        """
        from snapline.blame.commits import review

        with self._store.read():
            return review(self.root, self._store, base, head, verification, self._on_disk)

    def _on_disk(self, paths: list[str]) -> Iterator[tuple[str, bytes | None]]:
        for path in paths:
            yield path, _read_disk(disk_path(self.root, path))


@contextlib.contextmanager
def _closing(other: Elsewhere | None) -> Iterator[Elsewhere | None]:
    try:
        yield other
    finally:
        if other is not None:
            other.close()


def _inside(path: str, scope: list[str] | None) -> bool:
    if scope is None:
        return True
    return any(path == prefix or path.startswith(prefix.rstrip("/") + "/") for prefix in scope)


def _read_disk(path: os.PathLike[str]) -> bytes | None:
    """The bytes of a file on disk (a symlink's target, as git stores it); ``None``: absent."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(mode):
        return os.fsencode(os.readlink(path))
    if not stat.S_ISREG(mode):
        return None
    with open(path, "rb") as handle:
        return handle.read()
