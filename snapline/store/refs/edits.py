"""The files a snapshot changes, rebuilt from the index's rows for its commit's ``state``.

The index keeps a version as a delta against the one before, or whole (a blob), or by
its hash only. The refs store's ``state`` holds every file's bytes, so publishing a
snapshot turns its change rows back into content: a whole version from the index's
blob, a delta applied to the version before as the line's previous ``state`` holds it,
a version kept by its hash only streamed from the work tree into a blob, its SHA-256
taken of the bytes the blob holds (:mod:`.large_files`); a
version whose bytes the writer still holds (it just hashed and recorded them) is taken
as it is, which spares reading the version before out of git and applying the delta;
a whole version the index stored as git's blob in the same transaction is named by
that blob's id, unread (it was held to its hash as it was written); a delta whose base a
forget took away, from the whole version kept under its hash (the in-tree ledger's
forget kept the version after the forgotten one so, and ``snapline upgrade`` reads it).
Every version is checked against its recorded SHA-256, then written to git as a blob at
once: the edits keep blob ids, never contents, so a baseline of many files holds about
one file's bytes at a time (a failed snapshot leaves only unreferenced blobs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.content import MAX_DELTA_BYTES, decode_text, unpack
from snapline.diffing import apply_delta
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.store.refs.git import GitRepository
from snapline.store.refs.writing import StateEdit
from snapline.store.rows import ChangeRow

if TYPE_CHECKING:
    from snapline.store.protocol import BlobReader

__all__ = ["UnpublishableError", "state_edits"]


class UnpublishableError(SnaplineError):
    """A snapshot the refs store cannot put on a line: a version it has no bytes for.

    The index transaction that added the snapshot rolls back; nothing is on the line.

    Attributes:
        path: The index the snapshot was written to.
        number: The snapshot's number.
        file: The file whose version is missing.
        detail: Why.
    """

    path: str
    number: int
    file: str
    detail: str

    def __init__(self, path: Path | str, number: int, file: str, detail: str) -> None:
        super().__init__(str(path), number, file, detail)

    def _message(self) -> str:
        return (
            f"snapshot {self.number} cannot be written to git's refs: {self.file!r:.80} "
            f"{self.detail}; nothing was recorded"
        )


def state_edits(
    repo: GitRepository,
    before: str | None,
    changes: Iterable[ChangeRow],
    blobs: BlobReader,
    where: Path,
    at_hand: Mapping[str, bytes] | None = None,
    written: Mapping[str, str] | None = None,
) -> list[StateEdit]:
    """The files of ``state`` that a snapshot's changes set or remove, their blobs written.

    Args:
        repo: The repository.
        before: The ``state`` tree of the snapshot before, ``None`` for a baseline.
        changes: The snapshot's changes, deltas included, taken one at a time (a
            stream of a baseline's rows is never all in memory).
        blobs: The index's blobs (whole versions).
        where: The index, for the error.
        at_hand: New versions the writer holds, by SHA-256 (the bytes it recorded):
            taken as they are, checked as the others, instead of rebuilt.
        written: Git blobs the writer already wrote whole versions to, by SHA-256,
            each held to its hash as it was written (``otherlines.SideBlobs``): named
            in the state as they are, unread.

    Returns:
        One edit per path the changes name (a rename's old path removed, unless a
        change of the same snapshot puts a file there), in path order: each file's
        content already written to git as a blob, the edit holding its id.

    Raises:
        UnpublishableError: If a version has no bytes here (kept by hash only and gone
            from the work tree, a blob missing, a delta whose base is not in ``before``)
            or other bytes than its recorded hash. The blobs written before it stay
            unreferenced.
    """
    edits: dict[str, StateEdit] = {}
    for change in changes:
        if change.old_path is not None:
            # Removed unless a change of the same snapshot puts a file there.
            edits.setdefault(change.old_path, StateEdit(change.old_path, None))
        if change.result_hash is None:
            edits.setdefault(change.path, StateEdit(change.path, None))
            continue
        mode = change.result_mode if change.result_mode is not None else 0o100644
        blob = None if written is None else written.get(change.result_hash)
        if blob is not None and change.content == change.result_hash:
            edits[change.path] = StateEdit(change.path, None, mode, blob=blob)
            continue
        held = None if at_hand is None else at_hand.get(change.result_hash)
        if held is None and change.content is None and change.forward is None:
            edits[change.path] = _streamed(repo, change, where, mode)
            continue
        if held is not None:
            data = _checked(change, held, "is handed", where)
        else:
            try:
                data = _checked(
                    change, _content(repo, before, change, blobs, where), "rebuilds to", where
                )
            except UnpublishableError as refused:
                data = _kept_whole(change, blobs, where, refused)
        # Written now, so that only its id waits for the tree (writing.py's blob).
        edits[change.path] = StateEdit(change.path, None, mode, blob=repo.write_blob(data))
    return [edits[path] for path in sorted(edits)]


def _checked(change: ChangeRow, data: bytes, said: str, where: Path) -> bytes:
    """``data``, when it is the version ``change`` recorded (its SHA-256)."""
    if (actual := hash_bytes(data)) != change.result_hash:
        raise UnpublishableError(
            where, change.snapshot, change.path, f"{said} {actual}, recorded {change.result_hash}"
        )
    return data


def _kept_whole(
    change: ChangeRow, blobs: BlobReader, where: Path, refused: UnpublishableError
) -> bytes:
    """A delta's version that its base could not give, kept whole under its hash.

    A forget of the version before takes the delta's base away and keeps this version
    whole (the in-tree ledger's forget did, as an object, which ``snapline upgrade``
    reads here). Raises ``refused`` when there is no such blob.
    """
    kept = None if change.content is not None else blobs.get(str(change.result_hash))
    if kept is None:
        raise refused
    size = change.size if change.size is not None else 0
    return _checked(change, unpack(kept, limit=size), "is kept whole as", where)


def _content(
    repo: GitRepository,
    before: str | None,
    change: ChangeRow,
    blobs: BlobReader,
    where: Path,
) -> bytes:
    def refuse(detail: str) -> UnpublishableError:
        return UnpublishableError(where, change.snapshot, change.path, detail)

    if change.content is not None:
        packed = blobs.get(change.content)
        if packed is None:
            raise refuse(f"has no stored content {change.content}")
        return unpack(packed, limit=change.size if change.size is not None else 0)
    assert change.forward is not None, "a version kept by its hash only is streamed"
    lineage = change.old_path or change.path
    base = None if before is None else repo.read_path(before, lineage)
    text = None if base is None else decode_text(base)
    if text is None:
        raise refuse(f"is a delta on {lineage!r:.80}, which the line's state lacks")
    delta = unpack(change.forward, limit=MAX_DELTA_BYTES).decode("utf-8")
    try:
        return apply_delta(text, delta).encode("utf-8")
    except ValueError as error:
        raise refuse(f"has a delta that does not fit its base: {error}") from None


def _streamed(repo: GitRepository, change: ChangeRow, where: Path, mode: int) -> StateEdit:
    """A version kept by its hash only: the work tree's file streamed into a blob.

    Above the large-file limit the index keeps only the hash; a state needs the bytes:
    the work tree's, written to git as they are read (never whole in memory) and held
    to the recorded hash by the SHA-256 of those same bytes (large_files.py).
    """
    # Lazy: a cold record of an ordinary file never streams one (issue 39).
    from snapline.store.refs.large_files import work_tree_blob

    found = work_tree_blob(repo, change.path, change.size)
    if found is not None and found.blob is not None and found.hash == change.result_hash:
        return StateEdit(change.path, None, mode, blob=found.blob)
    if found is None:
        detail = f"is kept by its hash only ({change.storage}) and is not on disk"
    elif found.hash is None:
        detail = f"is {found.size} bytes on disk, recorded {change.size}; record it again"
    elif found.blob is None:
        detail = "changed while it was read; record it again"
    else:
        detail = f"is {found.hash} on disk, recorded {change.result_hash}; record it again"
    raise UnpublishableError(where, change.snapshot, change.path, detail)
