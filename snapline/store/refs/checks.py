"""Guard outcomes on the refs: ``refs/snapline/checks/<line>``, one commit per check record.

Each commit's tree holds ``record``, the check in the ledger's check format
(:mod:`snapline.store.ledger.check_format`: snapshot number and id, time, exit code,
command, session); its message names the record as the ledger named its file
(``snapline check: 20261123T054811Z-<id>.check``), so an outcome keeps its name when a
ledger's checks move onto the refs (``snapline upgrade``). The first parent is the
line's check before it. Reading refuses what snapline would not have written.
"""

from __future__ import annotations

from collections.abc import Sequence

from snapline.store.ledger.check_format import CheckRecord, parse_check, parse_check_name
from snapline.store.ledger.lines import LedgerFormatError
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.layout import CHECKS, RECORD, line_ref
from snapline.store.refs.reading import DamagedLineError
from snapline.store.refs.values import Entry

__all__ = ["add_checks", "checks_ref", "read_checks"]

_SUBJECT = "snapline check: "
# A check's time in whole seconds, for its commit: the record holds the exact time.
_TIME_DIGITS = 15


def checks_ref(line: str) -> str:
    """The ref of the check records of the line whose first snapshot has id ``line``.

    Raises:
        ValueError: If ``line`` is not a snapshot id.
    """
    return CHECKS + line_ref(line).rsplit("/", 1)[1]


def read_checks(repo: GitRepository, line: str) -> list[tuple[str, CheckRecord]]:
    """The line's check records with their names, oldest first; empty without the ref.

    Raises:
        DamagedLineError: If a commit is not a check record snapline would write.
    """
    ref = checks_ref(line)
    found: list[tuple[str, CheckRecord]] = []
    commit = repo.ref(ref)
    while commit is not None:
        try:
            read = repo.read_commit(commit)
            names = repo.names(read.tree)
            entry = names.get(RECORD)
            if set(names) != {RECORD} or entry is None or entry.mode != 0o100644:
                raise DamagedLineError(ref, commit, f"its tree holds {sorted(names)[:4]}")
            subject = read.message.split("\n", 1)[0]
            name = subject.removeprefix(_SUBJECT)
            parse_check_name(name)
            if not subject.startswith(_SUBJECT) or len(read.parents) > 1:
                raise DamagedLineError(ref, commit, f"not a check record: {subject!r:.80}")
            found.append((name, parse_check(repo.read_blob(entry.id))))
        except MissingObjectError as error:
            raise DamagedLineError(ref, commit, str(error)) from None
        except LedgerFormatError as error:
            raise DamagedLineError(ref, commit, f"its {RECORD}: {error}") from None
        commit = read.parents[0] if read.parents else None
    found.reverse()
    return found


def add_checks(
    repo: GitRepository, line: str, records: Sequence[tuple[str, bytes]], *, dry_run: bool
) -> int:
    """Append the check records the line's ref lacks (by name), in name order; how many.

    Args:
        repo: The repository.
        line: The line's id.
        records: Each record's name and bytes (a ledger's ``checks/`` files).
        dry_run: Count only.

    Raises:
        DamagedLineError: If the ref holds what snapline would not write.
        RefConflictError: If another writer moved the ref meanwhile.
    """
    from datetime import datetime

    held = {name for name, _ in read_checks(repo, line)}
    new = sorted((name, data) for name, data in records if name not in held)
    if dry_run or not new:
        return len(new)
    ref = checks_ref(line)
    before = tip = repo.ref(ref)
    for name, data in new:
        stamp = name[: _TIME_DIGITS + 1]
        when = int(datetime.strptime(stamp + "+0000", "%Y%m%dT%H%M%SZ%z").timestamp())
        root = repo.tree({RECORD: Entry(repo.write_blob(data), 0o100644)})
        tip = repo.write_commit(root, [] if tip is None else [tip], f"{_SUBJECT}{name}\n", when)
    assert tip is not None
    repo.set_ref(ref, tip, before, "snapline upgrade")
    return len(new)
