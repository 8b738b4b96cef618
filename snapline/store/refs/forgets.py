"""Forget records on the refs: ``refs/snapline/forgets/<id>``, one commit per ``forget``.

Each commit's tree holds ``record``, the forget in the ledger's forget format
(:mod:`snapline.store.ledger.forget_format`: when, why, and each version forgotten by
snapshot, path and SHA-256); its message names it as the ledger named its file
(``snapline forget: 20261123T063000Z-<id>.forget``, the ref's ``<id>``). No parent: each
forget is its own ref, so two clones never contend. ``snapline upgrade`` writes a
ledger's; a catch-up from the refs reads them, so that a forgotten version, which a
state holds only as a placeholder, is known as forgotten rather than taken for damage.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from snapline.store.ledger.forget_format import ForgetRecord, parse_forget, parse_forget_name
from snapline.store.ledger.lines import LedgerFormatError
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.layout import FORGETS, RECORD
from snapline.store.refs.reading import DamagedLineError
from snapline.store.refs.values import Entry
from snapline.store.rows import ForgottenRow

__all__ = ["add_forgets", "forgotten_rows", "read_forgets"]

_SUBJECT = "snapline forget: "


def read_forgets(repo: GitRepository) -> list[tuple[str, ForgetRecord]]:
    """Every forget record on the refs with its name, by name.

    Raises:
        DamagedLineError: If a forget ref holds what snapline would not write.
    """
    found = []
    for ref, commit in sorted(repo.refs(FORGETS).items()):
        try:
            read = repo.read_commit(commit)
            names = repo.names(read.tree)
            entry = names.get(RECORD)
            name = read.message.split("\n", 1)[0].removeprefix(_SUBJECT)
            _, id_ = parse_forget_name(name)
            if set(names) != {RECORD} or entry is None or read.parents or ref != FORGETS + id_:
                raise DamagedLineError(ref, commit, "not a forget record snapline writes")
            found.append((name, parse_forget(repo.read_blob(entry.id))))
        except MissingObjectError as error:
            raise DamagedLineError(ref, commit, str(error)) from None
        except LedgerFormatError as error:
            raise DamagedLineError(ref, commit, f"its {RECORD}: {error}") from None
    return sorted(found, key=lambda pair: pair[0])


def forgotten_rows(repo: GitRepository) -> list[ForgottenRow]:
    """The versions the forget records on the refs name, as the index keeps them."""
    return [
        ForgottenRow(version.path, version.hash, version.number, record.time, record.reason)
        for _, record in read_forgets(repo)
        for version in record.forgot
    ]


def add_forgets(repo: GitRepository, records: Sequence[tuple[str, bytes]], *, dry_run: bool) -> int:
    """Put each forget record not on the refs yet (by name) onto its ref; how many.

    Raises:
        LedgerFormatError: If a name is not a forget record's.
        RefConflictError: If another writer set such a ref meanwhile.
    """
    held = {name for name, _ in read_forgets(repo)}
    new = [(name, data) for name, data in sorted(records) if name not in held]
    if dry_run:
        return len(new)
    for name, data in new:
        stamp, id_ = parse_forget_name(name)
        when = int(datetime.strptime(stamp + "+0000", "%Y%m%dT%H%M%SZ%z").timestamp())
        root = repo.tree({RECORD: Entry(repo.write_blob(data), 0o100644)})
        commit = repo.write_commit(root, [], f"{_SUBJECT}{name}\n", when)
        repo.set_ref(FORGETS + id_, commit, None, "snapline upgrade")
    return len(new)
