"""A whole-workspace check that looks only at what a file-system monitor saw change.

As git's fsmonitor protocol (version 2): the workspace keeps a *token*, the point in a
monitor's journal its last check looked at, in ``.snapline/monitor.json`` (local to the
clone, never in the ledger). The next check asks the monitor what changed since that
point and checks those paths, plus the paths the last check found different (a drift
stays a drift until something changes it: a snapshot, or an edit), plus the paths of
the snapshots recorded since (the known state moved under them). Every other path is
as the last check left it, so the answer is the whole walk's, path for path; the paths
checked go through the ordinary detection, stat cache and racy rule included.

A file with more than one name (``st_nlink > 1``) can change with no event in the
tree: written through a name the monitor does not watch (outside the tree, or in a
folder it never reports because no walk looks there) or through its other tracked name
(the kernel names only the one written through). Such a file is *linked*: the token
keeps its paths, and every check looks at them (stat, then content when the stat moved)
whatever the monitor says. A path the monitor names that has become linked means the
whole walk (its other names are not known), which finds every tracked file linked.

Any doubt and it walks the whole tree, as without a monitor:

- no token, or one of another monitor (another server, a monitor started again);
- the monitor cannot say (overflow, a lost watch, its journal trimmed past the token);
- the history did not simply grow since the token (a rewound tip, another store);
- an ignore file changed (a ``.gitignore`` or ``.snaplineignore`` in the tree, the
  repository's ``info/exclude`` or git's global excludes): which untracked files count
  changed everywhere;
- the root itself changed, or too many paths to be worth it;
- a path named has more than one link and had one at the last check.

What it cannot see, nothing here sees either: a link made from outside the tree to a
file that had one name at the last check, then written through (the kernel reports
neither in the tree). ``verify --full`` walks the whole tree whatever the monitor says,
and a whole walk that finds drift never leaves a token that would hide it
(:func:`note_walk`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from snapline import atomic
from snapline.errors import SnaplineError
from snapline.paths import STORE_DIR
from snapline.scanning.ignore import IGNORE_FILES, exclude_files
from snapline.scanning.reasons import SkipReason
from snapline.snapshots.record.detect import Detection
from snapline.state_dir import state_dir
from snapline.store import Store

if TYPE_CHECKING:
    from snapline.snapshots.record.recorder import Recorder

__all__ = ["TOKEN_NAME", "TOKEN_VERSION", "Changes", "compare_watched", "note_walk"]

TOKEN_NAME = "monitor.json"
"""The token's file in ``.snapline/`` (ignored by git: ``.snapline/.gitignore``): the
monitor's identity and point, the history's tip and ``info/exclude``'s digest then (with
git's global excludes), the paths found different, the paths with more than one link,
and whether that check walked the whole tree."""
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


def compare_watched(recorder: Recorder, changes: Changes) -> Detection:
    """``recorder.compare(None)``, checking only what ``changes`` says may differ.

    Args:
        recorder: The open workspace's recorder.
        changes: The monitor's view, taken after every change before the command began
            was read from the kernel's queue.

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
        paths = _to_check(token, changes, tip, exclude, store)
        linked = set() if paths is None else _linked(root, paths)
        detection = None
        if paths is not None and linked <= _known_linked(token):
            detection = _detect_paths(recorder, paths)
        walked = detection is None
        if detection is None:
            # Whatever may share an inode with a tracked file: every tracked file's
            # links counted, each a stat (the walk's own are not kept).
            detection = recorder.detect(None, want_content=False)
            linked |= _linked(root, [row.path for row in store.state.iter()])
    recorder.save_stat_cache(detection)
    _keep(location, token, changes, (tip, exclude, walked, sorted(linked)), detection)
    return detection


def note_walk(root: Path, detection: Detection) -> None:
    """After a whole walk made without the monitor: a token that hides its drift goes.

    A cold check (no server) or ``verify --full`` may find what the monitor could not
    see (a write through a link made from outside the tree since the last check); the
    token, which lists the paths found different, would then hide it from the next warm
    check. Such a token is removed: the next warm check walks.

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
    found = {drift.path for drift in detection.drifts} | {s.path for s in detection.skipped}
    if not found <= known:
        with contextlib.suppress(OSError):
            location.unlink()


def _to_check(
    token: dict[str, object] | None,
    changes: Changes,
    tip: list[object] | None,
    exclude: str | None,
    store: Store,
) -> list[str] | None:
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
    changed |= _known_linked(token)
    if len(changed) > _MOST_PATHS or any(
        path in ("", ".") or path.rpartition("/")[2] in IGNORE_FILES for path in changed
    ):
        return None
    return _outermost(changed)


def _detect_paths(recorder: Recorder, paths: list[str]) -> Detection | None:
    try:
        detection = recorder.detect(paths, want_content=False)
    except (OSError, SnaplineError):
        return None  # whatever it is, the whole walk says it (or raises it) as it would
    # A path named directly that an ignore rule covers is noted; a walk passes over it.
    skipped = [s for s in detection.skipped if s.reason != SkipReason.IGNORED.value]
    return replace(detection, skipped=skipped)


def _known_linked(token: dict[str, object] | None) -> set[str]:
    linked = None if token is None else token.get("linked")
    if not isinstance(linked, list):
        return set()
    return {path for path in linked if isinstance(path, str)}


def _linked(root: Path, paths: list[str]) -> set[str]:
    """The files at or below ``paths`` with more than one link (one ``lstat`` each)."""
    linked: set[str] = set()
    for path in paths:
        try:
            info = os.lstat(root / path)
        except OSError:
            continue  # gone (or unreachable): not linked, and the detection says so
        if stat.S_ISDIR(info.st_mode):
            linked |= _linked_below(root, path)
        elif info.st_nlink > 1:
            linked.add(path)
    return linked


def _linked_below(root: Path, top: str) -> set[str]:
    # A directory named (created or moved in): its files may be links too.
    linked: set[str] = set()
    for directory, subdirectories, names in os.walk(root / top):
        subdirectories[:] = [d for d in subdirectories if d not in (".git", STORE_DIR)]
        for name in names:
            location = os.path.join(directory, name)
            with contextlib.suppress(OSError):
                if os.lstat(location).st_nlink > 1:
                    linked.add(os.path.relpath(location, root).replace(os.sep, "/"))
    return linked


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
    dirty = sorted({drift.path for drift in detection.drifts} | {s.path for s in detection.skipped})
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
