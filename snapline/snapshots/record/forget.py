"""Forgetting: removing the stored content of files recorded by mistake (a secret).

``snapline forget PATH`` removes every stored version of PATH from the history; with
``--snapshot N`` only the content PATH had after snapshot N (wherever PATH had exactly
that content: a rollback that brought it back recorded it again). What goes, for each
such version: its object and index blob, the forward delta that produced it, and the
reverse delta of the file's next change (which rebuilds it). What stays: every hash,
so the chain verifies, and tombstones carrying the digests of the removed deltas.
The next version, when it was a delta on top of a forgotten one, is first stored whole
so that it and everything after it still rebuilds. The act is recorded beside the lines
(``refs/snapline/forgets/<id>``: paths, versions, time, reason). An in-tree ledger is
never rewritten: it refuses every write (``InTreeLedgerError``).

Like ``git filter-repo``, forget rewrites history and leaves the working tree alone:
forgetting the version a file still has on disk is allowed (the file stays; the result
says so), because the usual order is "remove it from the history, then deal with the
file". Snapshots of other lines joined by ``snapline merge`` lose the content too
(their deltas become tombstones; this clone never rebuilds their versions); a history
with lines not yet joined is refused, as by every writer. Forget does not reach
copies elsewhere: git commits that already hold the ledger files (use git's own
tools), other clones until they pull the forget (their index is then rebuilt without
the content).

On git's refs (:mod:`snapline.store.refs.forgetting`) snapline's line commits are
rewritten with tombstones (the state's blob too), the act goes onto
``refs/snapline/forgets/<id>``, and :func:`publish` pushes the rewrite under a lease.
The user's commits are never touched.

Rebuilding a forgotten version raises :class:`ForgottenVersionError` (exit code 1,
not 3: the history is intact, its content was removed on purpose).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.snapshots.kinds import Storage
from snapline.snapshots.read.reconstruct import (
    ForgottenVersionError,
    NotInSnapshotError,
    Reconstructor,
)
from snapline.snapshots.record.recorder import Recorder
from snapline.store import ChangeRow, Store
from snapline.store.ledger.forget_format import ForgetRecord, ForgottenVersion
from snapline.values import FrozenModel

__all__ = [
    "ForgetResult",
    "ForgottenVersionError",
    "ForgottenVersionRecord",
    "NoLedgerError",
    "NothingToForgetError",
    "SharedContentError",
    "forget",
    "publish",
]

_STORED = (Storage.DELTA.value, Storage.FULL.value)


class NothingToForgetError(SnaplineError):
    """The history stores no content of the path (never recorded, or hash only)."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"the history stores no content of {path}; check the path with "
            f"`snapline log --file {path}`"
        )


class SharedContentError(SnaplineError):
    """The content to forget is also recorded under another path, which keeps it."""

    def __init__(self, path: str, other: str, number: int) -> None:
        self.path = path
        self.other = other
        self.number = number
        super().__init__(
            f"the content of {path} to forget is also recorded as {other} (snapshot "
            f"{number}); forget both at once: `snapline forget {path} {other}`"
        )


class NoLedgerError(SnaplineError):
    """The store has no ledger or refs to forget content from (a 0.1 store)."""

    def __init__(self) -> None:
        super().__init__(
            "forget rewrites a ledger in .snapline/ or snapline's refs in git, and this "
            "store keeps neither: open it with this version first (it is upgraded then)"
        )


class ForgottenVersionRecord(FrozenModel):
    """One version whose content was forgotten (or kept whole).

    Attributes:
        path: The file.
        number: The snapshot that recorded it.
        hash: Its content hash.
    """

    path: str
    number: int
    hash: str


class ForgetResult(FrozenModel):
    """What ``forget`` removed.

    Attributes:
        paths: The paths asked for.
        forgotten: The versions whose content is gone, by snapshot.
        kept: Later versions stored whole so that they still rebuild.
        still_on_disk: Paths whose file in the workspace still has forgotten content
            (forget never touches the workspace).
        record: What records the act: the ledger file (``forgotten/<name>``), or on
            git's refs the forget's ref (``refs/snapline/forgets/<id>``).
        time: When.
        reason: Why.
    """

    paths: tuple[str, ...]
    forgotten: tuple[ForgottenVersionRecord, ...]
    kept: tuple[ForgottenVersionRecord, ...]
    still_on_disk: tuple[str, ...]
    record: str
    time: str
    reason: str


def forget(
    recorder: Recorder,
    reconstructor: Reconstructor,
    paths: Iterable[str],
    *,
    snapshot: int | None = None,
    reason: str = "",
) -> ForgetResult:
    """Remove the stored content of ``paths`` from the history; hold the writer lock.

    Args:
        recorder: The workspace's recorder (its store must be a ledger store).
        reconstructor: Rebuilds the versions to keep whole.
        paths: Checked workspace-relative paths.
        snapshot: Only the content each path had after this snapshot.
        reason: Why, recorded with the act.

    Returns:
        What was forgotten and kept.

    Raises:
        NothingToForgetError: If no content of a path is stored.
        NotInSnapshotError: If a path did not exist after ``snapshot``.
        SharedContentError: If the same content is recorded under another path.
    """
    from snapline.store.refs.elsewhere import changes_off_history
    from snapline.store.refs.forget_index import forget_on_refs
    from snapline.store.refs.store import RefsStore

    store = recorder.store
    if not isinstance(store, RefsStore):
        raise NoLedgerError()  # the in-tree ledger refused before (Recorder.writing)
    wanted = sorted(set(paths))
    latest = store.snapshots.latest_number() or 0
    rows = store.changes.in_range(0, latest, deltas=False)
    targets = _targets(rows, wanted, snapshot, reconstructor)
    hashes = {row.result_hash for row in targets}
    for row in rows:
        if row.path not in wanted and row.result_hash in hashes and row.storage in _STORED:
            source = next(t.path for t in targets if t.result_hash == row.result_hash)
            raise SharedContentError(source, row.path, row.snapshot)
    # The versions built by a delta on a forgotten one: their states hold them whole.
    kept: dict[str, ChangeRow] = {}
    for target in targets:
        following = _next_change(rows, target)
        if following is None:
            continue
        if following.storage == Storage.DELTA and following.result_hash not in hashes:
            assert following.result_hash is not None
            kept[following.result_hash] = following
    # Joined lines and other writers' lines: the rewrite goes through every line.
    side_targets = [
        row
        for row in changes_off_history(store)
        if row.path in wanted and row.result_hash and row.storage in _STORED
        if snapshot is None or row.result_hash in hashes
    ]
    targets += side_targets
    found = {row.path for row in targets}
    for path in wanted:
        if path not in found:
            raise NothingToForgetError(path)
    hashes |= {row.result_hash for row in side_targets}
    now = datetime.now(timezone.utc).isoformat()
    record = ForgetRecord(
        time=now,
        reason=reason,
        forgot=tuple(sorted({ForgottenVersion(r.snapshot, r.path, _hash(r)) for r in targets})),
        kept=tuple(sorted({ForgottenVersion(r.snapshot, r.path, h) for h, r in kept.items()})),
    )
    name = forget_on_refs(store, record, secrets.token_hex(16))
    for hash_ in hashes:
        if hash_ is not None:
            reconstructor.cache.discard(hash_)
    known = store.state.get(wanted)
    return ForgetResult(
        paths=tuple(wanted),
        forgotten=tuple(_model(v) for v in record.forgot),
        kept=tuple(_model(v) for v in record.kept),
        still_on_disk=tuple(p for p in wanted if p in known and known[p].hash in hashes),
        record=name,
        time=now,
        reason=reason,
    )


def publish(store: Store, root: Path, remote: str) -> list[str]:
    """Push the forgets on git's refs and the lines they rewrote to ``remote``.

    Returns:
        The refs updated on the remote.

    Raises:
        PublishRefusedError: If the remote cannot take the rewrite as it is, or the
            history is in the tree (it travels with its commits).
    """
    from snapline.store.refs.publishing import PublishRefusedError, publish_forgets
    from snapline.store.refs.store import RefsStore

    if not isinstance(store, RefsStore):
        raise PublishRefusedError(
            remote, "this history is in the tree: commit .snapline/ and push the branch"
        )
    return publish_forgets(store.repo, root, remote)


def _targets(
    rows: list[ChangeRow], paths: list[str], snapshot: int | None, reconstructor: Reconstructor
) -> list[ChangeRow]:
    """The change rows that produced the versions to forget."""
    targets: list[ChangeRow] = []
    for path in paths:
        mine = [r for r in rows if r.path == path and r.result_hash and r.storage in _STORED]
        if snapshot is not None:
            version = reconstructor.version(path, snapshot)
            if version is None:
                raise NotInSnapshotError(path, snapshot)
            mine = [r for r in mine if r.result_hash == version.result_hash]
        if not mine and snapshot is not None:
            raise NothingToForgetError(path)
        targets.extend(mine)
    return targets


def _next_change(rows: list[ChangeRow], target: ChangeRow) -> ChangeRow | None:
    """The change that took the file on from ``target``'s version (its reverse rebuilds it)."""
    for row in rows:
        if row.snapshot <= target.snapshot or row.base_hash != target.result_hash:
            continue
        if (row.old_path or row.path) == target.path:
            return row
    return None


def _hash(row: ChangeRow) -> str:
    assert row.result_hash is not None
    return row.result_hash


def _model(version: ForgottenVersion) -> ForgottenVersionRecord:
    return ForgottenVersionRecord(path=version.path, number=version.number, hash=version.hash)
