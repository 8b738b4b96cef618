"""Guard outcomes on git's refs: ``refs/snapline/checks/<line>``, one commit per check.

Each ``snapline guard`` of a main-line snapshot adds a commit whose tree holds one blob,
named as the ledger names a check record (``20261123T054811Z-<id>.check``) and holding
the same text (:mod:`snapline.store.ledger.check_format`); its parent is the line's
check before it. The records are never part of a snapshot's chain, so the index keeps
none: readers walk the ref (a check is one commit, and a line has few).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.check_format import (
    CheckRecord,
    check_name,
    parse_check,
    parse_check_name,
    render_check,
)
from snapline.store.ledger.lines import LedgerFormatError
from snapline.store.refs.git import GitRepository, MissingObjectError, RefConflictError
from snapline.store.refs.layout import checks_ref
from snapline.store.refs.values import Entry

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["RefsCheckLog", "add_checks"]

_ATTEMPTS = 5
_MAX_CHECK_BYTES = 1 << 20


class RefsCheckLog:
    """The check records of one line, on its ref (written there, read with others').

    Args:
        repo: The repository.
        line: The line's id (its first snapshot's).
        also: Other lines whose check records are read too (the main line, for a
            work tree's own line forked from it).
    """

    def __init__(self, repo: GitRepository, line: str, also: tuple[str, ...] = ()) -> None:
        self._repo = repo
        self.ref = checks_ref(line)
        self._read = (self.ref, *(checks_ref(other) for other in also if other != line))

    @classmethod
    def of(cls, store: RefsStore) -> RefsCheckLog:
        """The check records of the line the store follows, and of its main line.

        Each work tree writes its own line's (two agents never move one ref).

        Raises:
            ValueError: If the store has no baseline (a check is of a snapshot).
        """
        line, main = store.followed_line(), store.main_line()
        if line is None or main is None:
            raise ValueError("a check is of a snapshot: the store has none")
        return cls(store.repo, line, (main,))

    def add(self, record: CheckRecord, name: str | None = None) -> str:
        """Write a new check record onto the ref; returns its name.

        A ref moved by another writer meanwhile is read again and the record put on
        its new tip (checks are never ordered by their commits: by time and name).

        Raises:
            RefConflictError: If other writers kept moving the ref.
        """
        # A new record's name: not uuid, which imports platform. An upgrade passes the
        # ledger file's own name, so an outcome keeps its name on the refs.
        name = name or check_name(record.time, os.urandom(16).hex())
        blob = self._repo.write_blob(render_check(record))
        tree = self._repo.tree({name: Entry(blob, 0o100644)})
        when = datetime.fromisoformat(record.time.replace("Z", "+00:00")).timestamp()
        message = f"snapline check of {record.number}: exit {record.exit_code}\n"
        for attempt in range(_ATTEMPTS):
            tip = self._repo.ref(self.ref)
            commit = self._repo.write_commit(tree, [] if tip is None else [tip], message, int(when))
            try:
                self._repo.set_ref(self.ref, commit, tip, message.strip())
                return name
            except RefConflictError:
                if attempt + 1 == _ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def all(self) -> list[tuple[str, CheckRecord]]:
        """Every check record with its name, by name (the time it was written).

        Raises:
            StoreCorruptError: If a commit on the ref is not a check record; it is named.
        """
        found: list[tuple[str, CheckRecord]] = []
        seen: set[str] = set()
        for ref in self._read:
            self._read_ref(ref, seen, found)
        return sorted(dict(found).items(), key=lambda item: item[0])

    def _read_ref(self, ref: str, seen: set[str], found: list[tuple[str, CheckRecord]]) -> None:
        commit = self._repo.ref(ref)
        while commit is not None and commit not in seen:
            seen.add(commit)
            try:
                read = self._repo.read_commit(commit)
                entries = self._repo.names(read.tree)
                if len(entries) != 1:
                    raise LedgerFormatError(None, f"{len(entries)} entries, not one record")
                [(name, entry)] = entries.items()
                parse_check_name(name)
                data = self._repo.read_blob(entry.id)
                if len(data) > _MAX_CHECK_BYTES:
                    raise LedgerFormatError(None, "larger than a check record")
                found.append((name, parse_check(data)))
            except (LedgerFormatError, MissingObjectError) as error:
                raise StoreCorruptError(
                    ref, f"commit {commit} is not a check record: {error}"
                ) from None
            commit = read.parents[0] if read.parents else None


def add_checks(
    repo: GitRepository, line: str, records: Sequence[tuple[str, bytes]], *, dry_run: bool
) -> int:
    """Put a ledger's check records (name, bytes) onto the main line's ref; how many new.

    A record the ref holds already (by name) is not written again, so an upgrade that
    stopped halfway adds only the rest.

    Raises:
        StoreCorruptError: If a record, or a commit on the ref, is not a check record.
        RefConflictError: If other writers kept moving the ref.
    """
    log = RefsCheckLog(repo, line)
    held = {name for name, _ in log.all()}
    new = sorted((name, data) for name, data in records if name not in held)
    for name, data in () if dry_run else new:
        try:
            parse_check_name(name)
            record = parse_check(data)
        except LedgerFormatError as error:
            raise StoreCorruptError(name, f"not a check record: {error}") from None
        log.add(record, name)
    return len(new)
