"""A whole-workspace check that looks only at what a file-system monitor saw change.

As git's fsmonitor protocol (version 2): the workspace keeps a *token*, the point in a
monitor's journal its last check looked at, in ``.snapline/monitor.json`` (local to the
clone, never in the ledger). The next check asks the monitor what changed since that
point and checks those paths, plus the paths the last check found different (a drift
stays a drift until something changes it: a snapshot, or an edit), plus the paths of
the snapshots recorded since (the known state moved under them). Every other path is
as the last check left it, so the answer is the whole walk's, path for path; the paths
checked go through the ordinary detection, stat cache and racy rule included.

What no event in the tree reports, the file's own ``lstat`` does: a write through a
hard link from outside the tree (the kernel tells a link count's change, and a write
through another name, to that file's own watches only, never to its directory's). So
every check also stats every tracked file by its path, as git's index does (no
directory is read), and checks by content each one whose stat is not the one its
stat-cache entry vouches for, and each with more than one link (a stat, then content
when the stat moved). The token keeps the linked paths for people and tests; no check
reads them.

Any doubt and it walks the whole tree, as without a monitor:

- no token, or one of another monitor (another server, a monitor started again);
- the monitor cannot say (overflow, a lost watch, its journal trimmed past the token);
- the history did not simply grow since the token (a rewound tip, another store);
- an ignore file changed (a ``.gitignore`` or ``.snaplineignore`` in the tree that the
  monitor names, or a tracked one the stat sweep sent to the content check and found
  different; the repository's ``info/exclude`` or git's global excludes): which
  untracked files count changed everywhere;
- the root itself changed, or too many paths to be worth it.

What it cannot see: a change that moves no stat of a tracked file and makes no event in
the tree (a write through ``mmap`` before the kernel updates the file's times, which the
whole walk's stat cache misses as well), and an ignore file that no snapshot tracks and
an ignore rule covers, written through a link from outside the tree (no event, and no
stat of it is kept). ``verify --full`` walks the whole tree whatever the monitor says,
and a whole walk that finds drift never leaves a token that would hide it
(:func:`note_walk`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from snapline import atomic
from snapline.errors import SnaplineError
from snapline.scanning.fingerprint import RACY_WINDOW_NS
from snapline.scanning.ignore import IGNORE_FILES, exclude_files
from snapline.scanning.reasons import SkipReason
from snapline.scanning.tracked import sweep
from snapline.snapshots.record.detect import Detection
from snapline.state_dir import state_dir
from snapline.store import Store

if TYPE_CHECKING:
    from snapline.snapshots.record.recorder import Recorder

__all__ = ["TOKEN_NAME", "TOKEN_VERSION", "Changes", "compare_watched", "note_walk"]

TOKEN_NAME = "monitor.json"
"""The token's file in ``.snapline/`` (ignored by git: ``.snapline/.gitignore``): the
monitor's identity and point, the history's tip and ``info/exclude``'s digest then (with
git's global excludes), the paths found different, and, for people and tests, the
tracked paths with more than one link and whether that check walked the whole tree."""
TOKEN_VERSION = 2
_MOST_PATHS = 20_000
"""Above this many paths to check (or to remember), the whole walk."""


class Changes(Protocol):
    """What a monitor says at one instant (``scanning.monitor.TreeMonitor`` is one)."""

    @property
    def id(self) -> str:
        """The monitor's identity."""

    @property
    def seq(self) -> int:
        """The point of its journal this instant is."""

    def changed_since(self, seq: int) -> set[str] | None:
        """The paths that may have changed after ``seq``; ``None`` when it cannot say."""


def compare_watched(recorder: Recorder, changes: Changes, *, save: bool = True) -> Detection:
    """``recorder.compare(None)``, checking only what ``changes`` says may differ.

    Args:
        recorder: The open workspace's recorder.
        changes: The monitor's view, taken after every change before the command began
            was read from the kernel's queue.
        save: Keep what the check learnt in the stat cache; ``False`` leaves that to
            the caller (a rollback keeps only what its writes do not make stale).

    Returns:
        The same detection as the whole walk's (the notes of ignored paths aside,
        which the whole walk never gives).
    """
    location = state_dir(recorder.root) / TOKEN_NAME
    token = _read_token(location)
    exclude = _exclude_digest(recorder.root)
    store = recorder.store
    root = recorder.root
    with store.read():
        tip = _tip(store)
        named = _named(token, changes, tip, exclude, store)
        # Every tracked file's lstat against its stat-cache entry, as git's index does:
        # what changed through a name no event reports (a hard link from outside the
        # tree) shows in the file's own stat. No directory is read.
        moved, linked = sweep(root, store.stat_cache.stamps(RACY_WINDOW_NS))
        paths = None if named is None else _bounded(named, moved | linked)
        detection = None if paths is None else _detect_paths(recorder, paths)
        if detection is not None and any(_is_rules(path) for path in _found(detection)):
            # An ignore file no event named differs from its recorded content (written
            # through a link from outside the tree): which untracked files count changed.
            detection = None
        walked = detection is None
        if detection is None:
            detection = recorder.detect(None, want_content=False)
    if save:
        recorder.save_stat_cache(detection)
    _keep(location, token, changes, (tip, exclude, walked, sorted(linked)), detection)
    return detection


def note_walk(root: Path, detection: Detection) -> None:
    """After a whole walk made without the monitor: a token that hides its drift goes.

    A cold check (no server) or ``verify --full`` may find what a warm check could not
    see (an ignore file that no snapshot tracks and a rule covers, written through a
    link from outside the tree); the token, which lists the paths found different, would
    then hide it from the next warm check. Such a token is removed: the next warm check
    walks.

    Args:
        root: The workspace root.
        detection: What the whole walk found.
    """
    if not detection.drifts and not detection.skipped:
        return
    location = state_dir(root) / TOKEN_NAME
    token = _read_token(location)
    if token is None:
        return
    dirty = token.get("dirty")
    known = set(dirty) if isinstance(dirty, list) else set()
    if not set(_found(detection)) <= known:
        with contextlib.suppress(OSError):
            location.unlink()


def _named(
    token: dict[str, object] | None,
    changes: Changes,
    tip: list[object] | None,
    exclude: str | None,
    store: Store,
) -> set[str] | None:
    """What the monitor, the last check and the snapshots since say may differ."""
    if token is None or token.get("monitor") != changes.id or token.get("exclude") != exclude:
        return None
    seq, dirty, then = token.get("seq"), token.get("dirty"), token.get("tip")
    if not isinstance(seq, int) or not isinstance(dirty, list):
        return None
    changed = changes.changed_since(seq)
    if changed is None:
        return None
    if then != tip:
        recorded = _recorded_since(store, then, tip)
        if recorded is None:
            return None
        changed |= recorded
    changed.update(path for path in dirty if isinstance(path, str))
    return changed


def _bounded(named: set[str], swept: set[str]) -> list[str] | None:
    """The paths to check, outermost first; ``None``: the whole walk is the way.

    Args:
        named: What the monitor, the last check and the snapshots since name.
        swept: The tracked files whose stat does not vouch for them, or linked.
    """
    if any(path in ("", ".") or _is_rules(path) for path in named):
        return None
    paths = named | swept
    return None if len(paths) > _MOST_PATHS else _outermost(paths)


def _is_rules(path: str) -> bool:
    return path.rpartition("/")[2] in IGNORE_FILES


def _found(detection: Detection) -> list[str]:
    return [drift.path for drift in detection.drifts] + [s.path for s in detection.skipped]


def _detect_paths(recorder: Recorder, paths: list[str]) -> Detection | None:
    try:
        detection = recorder.detect(paths, want_content=False)
    except (OSError, SnaplineError):
        return None  # whatever it is, the whole walk says it (or raises it) as it would
    # A path named directly that an ignore rule covers is noted; a walk passes over it.
    skipped = [s for s in detection.skipped if s.reason != SkipReason.IGNORED.value]
    return Detection(detection.drifts, skipped, detection.cache_updates, detection.cache_deletes)


def _outermost(paths: set[str]) -> list[str]:
    # A directory checked is checked whole: what lies below it is not named again (the
    # detection would note it twice).
    kept = set(paths)
    for path in paths:
        parts = path.split("/")
        if any("/".join(parts[:depth]) in paths for depth in range(1, len(parts))):
            kept.discard(path)
    return sorted(kept)


def _tip(store: Store) -> list[object] | None:
    latest = store.snapshots.latest_number()
    row = store.snapshots.get(latest) if latest is not None else None
    return None if row is None else [row.number, row.chain_hash]


def _recorded_since(store: Store, then: object, tip: list[object] | None) -> set[str] | None:
    """The paths of the snapshots after ``then`` up to ``tip``; ``None``: not a growth."""
    if not isinstance(then, list) or tip is None or len(then) != 2:
        return None
    number, chain_hash = then
    if not isinstance(number, int) or not isinstance(tip[0], int) or number > tip[0]:
        return None
    row = store.snapshots.get(number)
    if row is None or row.chain_hash != chain_hash:
        return None
    paths: set[str] = set()
    for _, path, old_path in store.changes.paths(number + 1, tip[0]):
        paths.add(path)
        if old_path is not None:
            paths.add(old_path)
    return paths


def _exclude_digest(root: Path) -> str | None:
    # The ignore files outside the tree, which no monitor watches: git's global excludes
    # (where the config names it) and info/exclude, each named and hashed.
    digest = hashlib.sha256()
    for path in exclude_files(root):
        digest.update(b"-\0" if path is None else os.fsencode(path) + b"\0")
        # As the rules read it: not there, or unreadable, is no rule.
        with contextlib.suppress(OSError):
            digest.update(hashlib.sha256(path.read_bytes()).digest() if path else b"")
        digest.update(b"\0")
    return digest.hexdigest()


def _read_token(location: Path) -> dict[str, object] | None:
    try:
        token = json.loads(location.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(token, dict) or token.get("version") != TOKEN_VERSION:
        return None
    return token


def _keep(
    location: Path,
    token: dict[str, object] | None,
    changes: Changes,
    how: tuple[list[object] | None, str | None, bool, list[str]],
    detection: Detection,
) -> None:
    tip, exclude, walked, linked = how
    dirty = sorted(set(_found(detection)))
    if len(linked) > _MOST_PATHS:
        with contextlib.suppress(OSError):  # an older one would miss some of them
            location.unlink()
        return
    if len(dirty) > _MOST_PATHS:
        return  # an older token stays true: it only makes the next check look at more
    new = {
        "version": TOKEN_VERSION,
        "monitor": changes.id,
        "seq": changes.seq,
        "tip": tip,
        "exclude": exclude,
        "dirty": dirty,
        "linked": linked,
        # How this check went (the whole walk, or the paths the monitor named): for
        # people and tests; no check reads it.
        "walked": walked,
    }
    if new == token:
        return
    with contextlib.suppress(OSError):  # no token: the next check walks the whole tree
        atomic.write_local(location, json.dumps(new, separators=(",", ":")).encode())
