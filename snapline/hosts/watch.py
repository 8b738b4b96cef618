"""``snapline watch``: record what changes on disk, for agents that have no hooks.

A watchdog observer reports file events from its own thread; events under ignored
paths (the workspace's ignore rules, ``.git/``, ``.snapline/``) are dropped there. The
watching thread waits for a quiet period with no new event and then records the paths
the events named, once, with tool ``watch`` — so a burst (a ``git checkout`` of thousands
of files) becomes one snapshot; at the stop it records the whole workspace. Recording is
what ``resync`` does: whatever changed is the change, wherever it came from. The writer
lock is held only while recording, so the CLI and hooks keep working beside the watcher;
changes they record themselves leave nothing for the watcher to record.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from snapline.errors import SnaplineError
from snapline.scanning import IgnoreRules
from snapline.scanning.ignore import IGNORE_FILES

if TYPE_CHECKING:
    from watchdog.events import FileSystemEventHandler

    from snapline.snapshots.snapshot import Snapshot
    from snapline.workspace import Workspace

__all__ = ["DEFAULT_QUIET", "WATCH_TOOL", "WatchUnavailableError", "Watcher"]

DEFAULT_QUIET = 0.3
"""Seconds without a new event before the changes are recorded."""

WATCH_TOOL = "watch"
"""The ``tool`` of every snapshot the watcher records."""

_TICK = 0.1  # How often a waiting watcher looks at its stop flag, in seconds.
_MAX_NAMED = 3


class WatchUnavailableError(SnaplineError):
    """``watchdog``, which ``snapline watch`` needs, is not installed."""

    exit_code = 2

    def __init__(self) -> None:
        super().__init__(
            "snapline watch needs the watchdog package, which is not installed; "
            "install it with `pip install 'snapline[watch]'`"
        )


@dataclass(frozen=True)
class _Event:
    paths: tuple[str, ...]  # workspace-relative, not ignored


class Watcher:
    """Watches one open workspace and records its changes after each quiet period.

    Args:
        ws: The open workspace, kept open (and used from this thread only) for the
            watcher's life.
        quiet: Seconds without a new event before recording.
        on_snapshot: Called with each snapshot recorded.

    Raises:
        WatchUnavailableError: If watchdog is not installed.
    """

    def __init__(
        self,
        ws: Workspace,
        *,
        quiet: float = DEFAULT_QUIET,
        on_snapshot: Callable[[Snapshot], None] | None = None,
    ) -> None:
        try:
            from watchdog.observers import Observer
        except ImportError:
            raise WatchUnavailableError() from None
        self.ws = ws
        self.quiet = quiet
        self._on_snapshot = on_snapshot
        self._events: queue.Queue[_Event] = queue.Queue()
        self._root = Path(os.path.realpath(ws.root))
        self._rules = _Rules(self._root)
        self._observer = Observer()
        # _Handler has the one method an observer calls (dispatch); subclassing watchdog's
        # handler would make importing this module need watchdog.
        handler = cast("FileSystemEventHandler", _Handler(self._root, self._rules, self._events))
        self._observer.schedule(handler, str(self._root), recursive=True)

    def run(self, stop: threading.Event, on_ready: Callable[[], None] | None = None) -> None:
        """Watch until ``stop`` is set, then record what is still pending and return.

        Args:
            stop: Set it (from a signal handler or another thread) to stop watching.
            on_ready: Called once the observer runs: changes from then on are seen.

        Raises:
            SnaplineError: If a recording fails for a reason other than a busy store
                (a busy store is retried after the next quiet period).
        """
        self._observer.start()
        if on_ready is not None:
            on_ready()
        try:
            pending: set[str] = set()
            while not stop.is_set():
                try:
                    event = self._events.get(timeout=self.quiet if pending else _TICK)
                except queue.Empty:
                    if pending:
                        pending = self._record(pending)
                    continue
                pending.update(event.paths)
        finally:
            self._observer.stop()
            self._observer.join()
        # Whatever happened before the stop, delivered as an event or not yet, is on disk.
        while not self._events.empty():
            pending.update(self._events.get_nowait().paths)
        self._record(pending, final=True)

    def _record(self, pending: set[str], *, final: bool = False) -> set[str]:
        from snapline import FileChangingError, StoreBusyError, UnknownPathError
        from snapline.snapshots.check.merged import UNMERGED

        # Only the paths the events named are looked at (cost in proportion to the
        # change); at the stop, the whole workspace, for events not delivered yet.
        paths = None if final else sorted(pending)
        try:
            problems = self.ws.check_sync(paths).problems
            # Another line's recorded work that git merged in (``unmerged``) is not a
            # change of the watcher's: ``snapline merge`` joins it with its own snapshots.
            changed = sorted({p.path for p in problems if p.path and p.kind != UNMERGED})
            if not changed:
                return set()  # already recorded by whoever wrote it (the CLI, a hook)
            # Only what drifted: an event's path may be gone and never tracked (an
            # editor's swap file), which record() refuses as a likely typo; and never
            # the whole workspace, which would take in the unmerged files too.
            snapshot = self.ws.record(changed, tool=WATCH_TOOL, description=_describe(changed))
        except (StoreBusyError, FileChangingError, UnknownPathError):
            if final:
                raise
            # Another writer is busy, or a file is still being written: try again after
            # the next quiet period.
            return pending
        if snapshot is not None and self._on_snapshot is not None:
            self._on_snapshot(snapshot)
        return set()


class _Rules:
    """The ignore rules, reloaded when an ignore file changes (read by the observer thread)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._rules = IgnoreRules(root)

    def ignored(self, rel: str, is_dir: bool) -> bool:
        name = rel.rpartition("/")[2]
        if name in IGNORE_FILES:
            self._rules = IgnoreRules(self._root)
        return self._rules.is_ignored(rel, is_dir)


class _Handler:
    """Turns watchdog events into workspace-relative paths that are not ignored."""

    def __init__(self, root: Path, rules: _Rules, events: queue.Queue[_Event]) -> None:
        self._root = str(root)
        self._rules = rules
        self._events = events

    def dispatch(self, event: Any) -> None:
        # watchdog calls dispatch() on its own thread for every event.
        if event.event_type in ("opened", "closed_no_write"):
            return  # reads change nothing
        if event.is_directory and event.event_type == "modified":
            return  # a directory's entries changed: its children have their own events
        paths = []
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            rel = self._relative(raw)
            if rel is not None and not self._rules.ignored(rel, bool(event.is_directory)):
                paths.append(rel)
        if paths:
            self._events.put(_Event(tuple(paths)))

    def _relative(self, raw: str | bytes) -> str | None:
        path = os.fsdecode(raw)
        if not path:
            return None
        rel = os.path.relpath(path, self._root)
        if rel == "." or rel.startswith(".." + os.sep) or rel == "..":
            return None
        return rel.replace(os.sep, "/")


def _describe(named: list[str]) -> str:
    shown = ", ".join(named[:_MAX_NAMED])
    more = f" and {len(named) - _MAX_NAMED} more" if len(named) > _MAX_NAMED else ""
    return f"{shown}{more}"
