"""Other lines of a history on git's refs, each read as the work tree that wrote it reads it.

``blame`` walks a file's versions through an index (:mod:`snapline.blame.walk`). In a
checkout whose files other lines recorded (main after agents' pull requests were
merged), a file is blamed along the line that wrote its content, through an index that
follows that line (:func:`~snapline.store.refs.lineview.open_line_index`): the snapshot
numbers, milestones and origins are those of the agent's own clone. Each line's index
is built once per answer, in a private temporary directory removed on close.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapline.blame.origins import Origins
from snapline.snapshots.read.reconstruct import Reconstructor

if TYPE_CHECKING:
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.store import RefsStore

__all__ = ["LineView", "LineViews"]


@dataclass(frozen=True, slots=True)
class LineView:
    """One line's history, open for reading.

    Attributes:
        line: The line's id.
        store: Its index (read inside the view ``LineViews`` holds open).
        reconstructor: Rebuilds its versions.
        origins: Who each of its snapshots was.
    """

    line: str
    store: RefsStore
    reconstructor: Reconstructor
    origins: Origins


class LineViews:
    """The lines' views, built when first asked for and kept until :meth:`close`.

    Args:
        repo: The repository holding the lines.
        config: The workspace's content settings, for each index.
    """

    def __init__(self, repo: GitRepository, config: dict[str, Any]) -> None:
        self._repo = repo
        self._config = config
        self._views: dict[str, LineView] = {}
        self._open = contextlib.ExitStack()
        self._folder: Path | None = None

    def get(self, line: str) -> LineView:
        """The view of ``line``.

        Raises:
            DamagedLineError: If a line read is damaged or crafted.
        """
        found = self._views.get(line)
        if found is not None:
            return found
        from snapline.store.refs.lineview import open_line_index

        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="snapline-blame-"))
            self._open.callback(shutil.rmtree, self._folder, ignore_errors=True)
        folder = self._folder / line
        folder.mkdir()
        store = open_line_index(self._repo, line, folder, self._config)
        self._open.callback(store.close)
        self._open.enter_context(store.read())
        found = self._views[line] = LineView(line, store, Reconstructor(store), Origins(store))
        return found

    def close(self) -> None:
        """Close every index and remove the temporary directory."""
        self._views.clear()
        self._open.close()
