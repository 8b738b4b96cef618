"""Turning drifts into stored change rows: the delta-or-full decision, renames, chains.

Text changes are stored as forward and reverse deltas against the previous version; a
version is stored in full when it is new, binary, above the diff limit, when the diff
degenerates, or when its delta chain would grow past the bounds that keep rebuilds
cheap (``max_chain`` deltas, or more delta bytes than twice the file), as Mercurial's
revlog does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from snapline.content import decode_text, pack
from snapline.diffing import compute_deltas
from snapline.scanning import DiskFile, Skipped
from snapline.scanning.reasons import SkipReason
from snapline.snapshots.kinds import ChangeKind, Storage
from snapline.snapshots.read.reconstruct import ForgottenVersionError
from snapline.snapshots.record.detect import Drift
from snapline.store import ChangeRow, StateRow

__all__ = ["Limits", "Prepared", "prepare_changes"]


class Limits(NamedTuple):
    """Store settings that shape how content is kept (see docs/format.md)."""

    large_file_limit: int = 64 << 20
    diff_limit: int = 16 << 20
    max_chain: int = 1000
    diff_deadline: float = 1.0


class Prepared:
    """Change rows (snapshot number still unset) and the blobs they need.

    A plain class that a preparation fills in (not a dataclass: a cold record does not
    load ``dataclasses``, issue 39).

    Attributes:
        changes: The change rows, in path order.
        blobs: The versions the index keeps whole: hash to (size, packed bytes).
        skipped: What the recording did not capture.
        contents: Every new version's bytes that were at hand, by SHA-256 (computed
            from those bytes): a store that keeps each version whole (git's refs) writes
            them as they are, rather than rebuilding them from the deltas.
    """

    __slots__ = ("blobs", "changes", "contents", "skipped")

    def __init__(self) -> None:
        self.changes: list[ChangeRow] = []
        self.blobs: dict[str, tuple[int, bytes]] = {}
        self.skipped: list[Skipped] = []
        self.contents: dict[str, bytes] = {}

    def add_blob(self, hash_: str, content: bytes) -> None:
        """Store ``content`` in full (compressed) under its hash, once."""
        if hash_ not in self.blobs:
            self.blobs[hash_] = (len(content), pack(content))


BaseContent = Callable[[StateRow], bytes | None]
"""Returns the content of a known version (``None`` when it cannot be rebuilt)."""
BaseRow = Callable[[str], ChangeRow | None]
"""Returns the change row that produced a path's known version."""
Stored = Callable[[str], bool]
"""Whether a content with this hash is already stored in full."""


def prepare_changes(
    drifts: list[Drift],
    *,
    limits: Limits,
    base_content: BaseContent,
    base_row: BaseRow,
    renames: dict[str, str] | None = None,
    stored: Stored | None = None,
) -> Prepared:
    """Build the change rows for one snapshot.

    What the store already has is reused rather than computed again: going back to the
    version before a file's last change (an undo, a rollback and its rollback) takes
    that change's two deltas swapped, and a version stored in full already (the
    baseline's, say) is referenced, not diffed.

    Args:
        drifts: What differs between the disk and the known state.
        limits: The store's content settings.
        base_content: Rebuilds a known version (for diffing).
        base_row: Finds the row behind a known version (for the delta chain).
        renames: Explicit ``{new_path: old_path}`` pairs (from ``move_file``); exact
            renames are also detected between a deleted and an added file.
        stored: Whether a content is stored in full already (``None``: never reused).

    Returns:
        The prepared rows, in path order.
    """
    prepared = Prepared()
    pairs = _pair_renames(drifts, renames or {})
    moved_away = set(pairs.values())
    by_path = {d.path: d for d in drifts}
    for drift in drifts:
        if drift.disk is not None and drift.disk.content is not None:
            prepared.contents[drift.disk.hash] = drift.disk.content
        if drift.path in moved_away:
            continue
        source = by_path[pairs[drift.path]] if drift.path in pairs else None
        if source is not None or (drift.disk is not None and drift.known is not None):
            # Modified in place, or renamed: then based on the version it moved from.
            prepared.changes.append(
                _modified(
                    drift.path,
                    drift.known if source is None else source.known,
                    drift.disk,
                    prepared,
                    limits,
                    base_content,
                    base_row,
                    stored,
                    old_path=None if source is None else source.path,
                )
            )
        elif drift.disk is None:
            assert drift.known is not None
            prepared.changes.append(_deleted(drift.path, drift.known))
        else:
            prepared.changes.append(_added(drift.path, drift.disk, prepared))
    prepared.changes.sort(key=lambda c: c.path)
    return prepared


def _pair_renames(drifts: list[Drift], explicit: dict[str, str]) -> dict[str, str]:
    deleted = {d.path: d for d in drifts if d.disk is None and d.known is not None}
    added = [d for d in drifts if d.known is None and d.disk is not None]
    # A rename needs a free target: moving onto a tracked file is that file's
    # modification plus a deletion, so its previous version stays in the record.
    added_paths = {d.path for d in added}
    pairs = {new: old for new, old in explicit.items() if old in deleted and new in added_paths}
    taken = set(pairs.values())
    by_content: dict[tuple[str, int], list[str]] = {}
    for path, drift in sorted(deleted.items()):
        if path not in taken:
            assert drift.known is not None
            by_content.setdefault((drift.known.hash, drift.known.mode), []).append(path)
    for drift in added:
        if drift.path in pairs:
            continue
        assert drift.disk is not None
        candidates = by_content.get((drift.disk.hash, drift.disk.mode))
        if candidates:
            pairs[drift.path] = candidates.pop(0)
    return pairs


def _added(path: str, disk: DiskFile, prepared: Prepared) -> ChangeRow:
    storage, content = _store_full(disk, prepared)
    return ChangeRow(
        snapshot=-1,
        path=path,
        kind=ChangeKind.ADDED.value,
        old_path=None,
        base_hash=None,
        result_hash=disk.hash,
        base_mode=None,
        result_mode=disk.mode,
        size=disk.size,
        storage=storage,
        forward=None,
        reverse=None,
        content=content,
        chain=0,
        chain_bytes=0,
    )


def _deleted(path: str, known: StateRow) -> ChangeRow:
    return ChangeRow(
        snapshot=-1,
        path=path,
        kind=ChangeKind.DELETED.value,
        old_path=None,
        base_hash=known.hash,
        result_hash=None,
        base_mode=known.mode,
        result_mode=None,
        size=None,
        storage=Storage.NONE.value,
        forward=None,
        reverse=None,
        content=None,
        chain=0,
        chain_bytes=0,
    )


def _modified(
    path: str,
    known: StateRow | None,
    disk: DiskFile | None,
    prepared: Prepared,
    limits: Limits,
    base_content: BaseContent,
    base_row: BaseRow,
    stored: Stored | None,
    *,
    old_path: str | None = None,
) -> ChangeRow:
    assert known is not None and disk is not None
    kind = ChangeKind.MODIFIED if old_path is None else ChangeKind.RENAMED
    template = ChangeRow(
        snapshot=-1, path=path, kind=kind.value, old_path=old_path, base_hash=known.hash,
        result_hash=disk.hash, base_mode=known.mode, result_mode=disk.mode, size=disk.size,
        storage=Storage.FULL.value, forward=None, reverse=None, content=None, chain=0,
        chain_bytes=0,
    )  # fmt: skip
    previous = base_row(known.path)
    deltas = None
    if old_path is None:  # a rename keeps its own delta, against its old path's version
        deltas = _swapped(previous, known, disk, limits)
        if deltas is None and stored and disk.content is not None and stored(disk.hash):
            # Already stored in full under its hash: referenced as it is, no bytes added.
            return template._replace(content=disk.hash)
    if deltas is None:
        deltas = _try_deltas(known, disk, limits, base_content, previous)
    if deltas is not None:
        forward, reverse, chain, chain_bytes = deltas
        return template._replace(storage=Storage.DELTA.value, forward=forward, reverse=reverse,
                                 chain=chain, chain_bytes=chain_bytes)  # fmt: skip
    storage, content = _store_full(disk, prepared)
    return template._replace(storage=storage, content=content)


def _swapped(
    previous: ChangeRow | None, known: StateRow, disk: DiskFile, limits: Limits
) -> tuple[bytes, bytes, int, int] | None:
    """The deltas of going back over ``previous``, the change that made the known version.

    Its reverse delta turns the known version into the one before it, exactly (deltas
    are exact, and every rebuild is hash-checked): when that is the new content, the
    new change's deltas are the old change's, swapped, with no diff computed.
    """
    if (
        previous is None
        or previous.storage != Storage.DELTA
        or previous.forward is None
        or previous.reverse is None
        or previous.result_hash != known.hash
        or previous.base_hash != disk.hash
        or disk.content is None
        or disk.mode == 0o120000
        or previous.chain + 1 > limits.max_chain
    ):
        return None
    forward, reverse = previous.reverse, previous.forward
    chain_bytes = previous.chain_bytes + len(forward)
    if chain_bytes > 2 * max(len(disk.content), 1024):
        return None
    return forward, reverse, previous.chain + 1, chain_bytes


def _try_deltas(
    known: StateRow,
    disk: DiskFile,
    limits: Limits,
    base_content: BaseContent,
    previous: ChangeRow | None,
) -> tuple[bytes, bytes, int, int] | None:
    if disk.content is None or disk.large or disk.size > limits.diff_limit:
        return None
    if known.size > limits.diff_limit or known.mode == 0o120000 or disk.mode == 0o120000:
        return None
    if previous is None or previous.storage not in (Storage.DELTA, Storage.FULL):
        return None
    if previous.chain + 1 > limits.max_chain:
        return None
    new_text = decode_text(disk.content)
    if new_text is None:
        return None
    try:
        base = base_content(known)
    except ForgottenVersionError:
        base = None  # `snapline forget` took it: nothing to diff against, store it whole
    if base is None:
        return None
    base_text = decode_text(base)
    if base_text is None:
        return None
    deltas = compute_deltas(base_text, new_text, deadline=limits.diff_deadline)
    if deltas is None:
        return None
    forward, reverse = pack(deltas.forward.encode()), pack(deltas.reverse.encode())
    chain_bytes = previous.chain_bytes + len(forward)
    if chain_bytes > 2 * max(len(disk.content), 1024):
        return None
    return forward, reverse, previous.chain + 1, chain_bytes


def _store_full(disk: DiskFile, prepared: Prepared) -> tuple[str, str | None]:
    if disk.content is None:
        prepared.skipped.append(Skipped(disk.path, SkipReason.HASH_ONLY.value))
        return Storage.HASH_ONLY.value, None
    prepared.add_blob(disk.hash, disk.content)
    return Storage.FULL.value, disk.hash
