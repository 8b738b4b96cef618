"""Forgotten versions known from the lines themselves, their forget record here or not.

A forget (:mod:`.forgetting`) leaves two marks on every line it rewrites: a record's
delta that rebuilt a forgotten version becomes its tombstone (the digest the chain hash
covers, so the chain still verifies), and a state's blob of a forgotten version becomes
its *tombstone blob*: ``f`` then that version's SHA-256 in hex
(:func:`snapline.content.tombstone`). The forget's record travels beside them on
``refs/snapline/forgets/<id>``, but a clean git operation can bring the lines without
it (``git fetch origin '+refs/snapline/lines/*:refs/snapline/lines/*'``), and a clean
git operation never makes the history corrupt. So readers take the marks as the forget:

- a record's tombstoned forward delta names its result version forgotten, a tombstoned
  reverse delta its base version (:func:`named_in`); the catch-up lists them as the
  forget records' versions are listed (:mod:`.catchup`);
- a state's blob that is exactly the tombstone of the version's recorded hash is that
  version forgotten (:func:`forgotten_blob`). No content can be ``f`` followed by its
  own SHA-256, so this is never a file's true bytes; any other bytes stay damage (exit 3).
  So is the :func:`placeholder` of that hash, which upgrades before this one wrote for
  a forgotten version (it names its own hash too, so it is no content either).

The upgrade of an in-tree ledger writes the same tombstone blobs for the versions the
ledger forgot (:mod:`.moving`); one by an older snapline wrote a :func:`placeholder`,
which a forget record names as forgotten and no forget rewrites again (:func:`stand_ins`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from snapline.content import git_referenced, tombstone, tombstone_digest
from snapline.store.connection import Connection
from snapline.store.content import BlobTable
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.objects import blob_id
from snapline.store.rows import ChangeRow, ForgottenRow

if TYPE_CHECKING:
    from snapline.store.sqlite import SqliteStore

__all__ = [
    "NO_RECORD",
    "Forgotten",
    "forgotten_blob",
    "is_stand_in",
    "named_in",
    "placeholder",
    "stand_ins",
    "take_named",
    "tombstone_blob",
]

NO_RECORD = (
    "its forget record is not in this repository; `snapline fetch REMOTE` brings it "
    "(refs/snapline/forgets/*)"
)
"""The reason given for a version known forgotten from the lines alone."""


def placeholder(hash_: str) -> bytes:
    """The bytes a state holds for a version the old store keeps no bytes of."""
    return (
        "snapline: the in-tree store kept no content of this version (forgotten, or kept "
        f"by its hash only); its recorded hash is {hash_}\n"
    ).encode()


def tombstone_blob(hash_: str) -> bytes:
    """The blob a state holds in place of the forgotten version ``hash_`` (``sha256:...``)."""
    return tombstone(hash_.removeprefix("sha256:"))


_TOMBSTONE_SIZE = len(tombstone_blob("sha256:" + "0" * 64))
_PLACEHOLDER_SIZE = len(placeholder("sha256:" + "0" * 64))

_UPGRADE_KEPT_NONE = (
    "an upgrade kept no content of it (forgotten, or a baseline file it no longer found), "
    "and no forget record is here"
)


def stand_ins(hash_: str) -> set[str]:
    """The ids of the blobs that stand for the forgotten version ``hash_`` in a state.

    Its tombstone blob, and the placeholder an upgrade by an older snapline wrote: a
    state holding either holds no content of the version, and a forget leaves it as it is.
    """
    return {blob_id(tombstone_blob(hash_)), blob_id(placeholder(hash_))}


def is_stand_in(data: bytes | None, hash_: str) -> bool:
    """Whether ``data`` is the version ``hash_``'s tombstone blob, or its placeholder."""
    if data is None or len(data) not in (_TOMBSTONE_SIZE, _PLACEHOLDER_SIZE):
        return False  # the common case: checked by length, nothing built
    return data in (tombstone_blob(hash_), placeholder(hash_))


def named_in(changes: Iterable[ChangeRow]) -> set[tuple[str, str]]:
    """The ``(path, hash)`` of each version a record's tombstones say was forgotten.

    A forward delta made a tombstone rebuilt the change's result; a reverse one, its base.
    """
    found = set()
    for change in changes:
        forward, reverse = change.forward, change.reverse
        if forward is None and reverse is None:
            continue  # a baseline's hundred thousand whole versions: one test each
        if change.result_hash is not None and _is_tombstone(forward):
            found.add((change.path, change.result_hash))
        if change.base_hash is not None and _is_tombstone(reverse):
            found.add((change.old_path or change.path, change.base_hash))
    return found


def _is_tombstone(packed: bytes | None) -> bool:
    return packed is not None and tombstone_digest(packed) is not None


def take_named(
    connection: Connection, blobs: BlobTable, number: int, named: set[tuple[str, str]]
) -> set[str]:
    """List versions named forgotten by a record in the index; inside ``write()``.

    As a forget record taken in does (:func:`.forget_index.take_in`): each is listed in
    the ``forgotten`` table (the first listing stays: a forget record's, when there is
    one) and the index keeps no content of it.

    Args:
        connection: The index.
        blobs: Its blobs.
        number: The snapshot whose record names them.
        named: :func:`named_in` of that record.

    Returns:
        Their hashes.
    """
    from snapline.store.forgotten import ForgottenTable

    ForgottenTable(connection).add(
        ForgottenRow(path, hash_, number, "", NO_RECORD) for path, hash_ in sorted(named)
    )
    hashes = {hash_ for _, hash_ in named}
    blobs.delete(sorted(hashes))
    return hashes


def forgotten_blob(
    blobs: BlobTable, repo: GitRepository, path: str, hash_: str
) -> ForgottenRow | None:
    """The version as forgotten when the index keeps it as git's blob that stands in for it.

    Its tombstone, or an older upgrade's placeholder (:func:`is_stand_in`).

    Asked only when rebuilding the version failed (:meth:`Forgotten.forgotten_version`).
    The snapshot number is not known here (``-1``); the time neither (``""``).
    """
    packed = BlobTable.get(blobs, hash_)  # as stored: a reference is not resolved
    blob = None if packed is None else git_referenced(packed)
    if blob is None:
        return None
    try:
        data = repo.read_blob(blob)
    except MissingObjectError:
        return None
    if not is_stand_in(data, hash_):
        return None
    why = NO_RECORD if data == tombstone_blob(hash_) else _UPGRADE_KEPT_NONE
    return ForgottenRow(path, hash_, -1, "", why)


class Forgotten:
    """The protocol's forgotten-version methods of the refs store.

    Attributes:
        index: The store's local index (the class it is mixed into sets both).
        repo: Its repository.
    """

    index: SqliteStore
    repo: GitRepository

    def forgotten_hashes(self) -> set[str]:
        """The content hashes of forgotten versions (the index's table)."""
        return self.index.forgotten_hashes()

    def forgotten_version(self, path: str, hash_: str) -> ForgottenRow | None:
        """The version ``hash_`` of ``path`` if its content was forgotten, else ``None``.

        Listed in the index (a forget record's, or a record's tombstone's), or kept as
        git's blob that is its tombstone.
        """
        found = self.index.forgotten_version(path, hash_)
        return found or forgotten_blob(self.index.blobs, self.repo, path, hash_)
