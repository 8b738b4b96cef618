"""The stored content checked: each blob against its hash, each version rebuilt.

What ``verify --deep`` adds to the history's check (and ``--full``, for the content a
history on git's refs keeps by reference: git's blobs, hashed against the records).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from snapline.content import PackedSizeError, UnknownCodecError, unpack
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.paths import UnsafeRecordError
from snapline.snapshots.found import make_problem
from snapline.snapshots.read.reconstruct import ForgottenVersionError, Reconstructor
from snapline.store import StoreReader

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["blob_problems", "deep_check"]


def deep_check(store: StoreReader) -> list[Problem]:
    """Every stored blob hashed, and every recorded version rebuilt (``verify --deep``)."""
    return blob_problems(store.blobs.iter()) + _rebuild_problems(Reconstructor(store))


def blob_problems(blobs: Iterable[tuple[str, int, bytes]]) -> list[Problem]:
    """A ``corrupt-content`` problem for each ``(hash, size, packed)`` that is not its hash."""
    problems = []
    for hash_, size, packed in blobs:
        try:
            actual = hash_bytes(unpack(packed, limit=size))
        except (UnknownCodecError, PackedSizeError, zlib.error) as error:
            problems.append(
                make_problem(
                    kind="corrupt-content",
                    severity="corrupt",
                    expected=hash_,
                    message=f"stored content {hash_} cannot be read: {error}",
                )
            )
            continue
        if actual != hash_:
            problems.append(
                make_problem(
                    kind="corrupt-content",
                    severity="corrupt",
                    expected=hash_,
                    actual=actual,
                    message=f"stored content {hash_} hashes to {actual}",
                )
            )
    return problems


def _rebuild_problems(rebuilder: Reconstructor) -> list[Problem]:
    problems = []
    for change in rebuilder.store.changes.iter(deltas=True):
        if change.storage not in ("delta", "full"):
            continue
        try:
            rebuilder.rebuild(change)
        except UnsafeRecordError:
            continue  # reported as unsafe-path by the walk above
        except ForgottenVersionError:
            # Removed on purpose (`snapline forget`): a tombstone is not damage, and
            # advising a backup would bring the forgotten bytes back.
            continue
        except SnaplineError as error:
            problems.append(
                make_problem(
                    kind="corrupt-content",
                    severity="corrupt",
                    path=change.path,
                    number=change.snapshot,
                    message=str(error),
                )
            )
    return problems
