"""``blame --summary``: how many lines of each file each agent session, person, baseline wrote."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from snapline.blame.file import NotBlamableError, line_owners
from snapline.blame.lines import Hunks
from snapline.blame.model import UNRECORDED, LineKind, Origin
from snapline.blame.origins import Origins
from snapline.snapshots.read.reconstruct import ContentUnavailableError, Reconstructor
from snapline.store import StoreReader

if TYPE_CHECKING:
    from snapline.blame.elsewhere import Elsewhere

__all__ = ["BlameSummary", "LineCounts", "summarize"]


@dataclass
class LineCounts:
    """Lines counted by who wrote them.

    Attributes:
        kinds: Lines per kind (``agent``, ``person``, ``baseline``, ``unrecorded``).
        sessions: An agent's lines per session (its tool when it had none).
        people: A person's lines per session (``person`` when none was given).
    """

    kinds: Counter[str] = field(default_factory=Counter)
    sessions: Counter[str] = field(default_factory=Counter)
    people: Counter[str] = field(default_factory=Counter)

    @property
    def lines(self) -> int:
        """Every line counted."""
        return sum(self.kinds.values())

    def add(self, owners: Iterable[int | None], origins: Origins) -> None:
        """Count the lines of one file, given the snapshot that wrote each (``None``: disk)."""
        for owner, count in Counter(owners).items():
            self._count(UNRECORDED if owner is None else origins.of(owner), count)

    def add_origins(self, found: list[Origin]) -> None:
        """Count the lines of one file, given who wrote each."""
        # Origins are shared per snapshot: counted by identity, not by value (cheaper).
        by_id = {id(origin): origin for origin in found}
        for key, count in Counter(map(id, found)).items():
            self._count(by_id[key], count)

    def _count(self, origin: Origin, count: int) -> None:
        self.kinds[origin.kind.value] += count
        if origin.kind == LineKind.AGENT:
            self.sessions[origin.author] += count
        elif origin.kind == LineKind.PERSON:
            self.people[origin.session or "person"] += count

    def merge(self, other: LineCounts) -> None:
        """Add another count to this one."""
        self.kinds.update(other.kinds)
        self.sessions.update(other.sessions)
        self.people.update(other.people)

    def to_json(self) -> dict[str, Any]:
        """The counts as JSON (docs/cli.md, ``blame --summary --json``)."""
        return {
            "lines": self.lines,
            **{kind.value: self.kinds[kind.value] for kind in LineKind},
            "sessions": dict(self.sessions.most_common()),
            "people": dict(self.people.most_common()),
        }


@dataclass
class BlameSummary:
    """Line counts per file and in total.

    Attributes:
        files: Each blamed file's counts, by path.
        total: All of them together.
        skipped: Files not counted, with why (binary, tracked by hash only...).
    """

    files: dict[str, LineCounts] = field(default_factory=dict)
    total: LineCounts = field(default_factory=LineCounts)
    skipped: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The answer of ``blame --summary --json``."""
        return {
            "total": self.total.to_json(),
            "files": [{"path": path, **counts.to_json()} for path, counts in self.files.items()],
            "skipped": [{"path": path, "reason": why} for path, why in self.skipped.items()],
        }


def summarize(
    store: StoreReader,
    reconstructor: Reconstructor,
    files: Iterable[tuple[str, bytes | None]],
    hunks: Hunks | None = None,
    elsewhere: Elsewhere | None = None,
) -> BlameSummary:
    """Blame each file and count its lines (read inside one ``store.read()``).

    Args:
        store: The history.
        reconstructor: Rebuilds each recorded version.
        files: ``(path, bytes on disk or None)`` of each file, in the order to list them.
        hunks: The line diff; git's own by default.
        elsewhere: The other lines, in a checkout that only reads a history on git's
            refs (:mod:`snapline.blame.elsewhere`).

    Returns:
        The counts; a file that cannot be blamed (binary, deleted on disk, a version
        tracked by hash only or forgotten) is listed in ``skipped`` with the reason.
    """
    from snapline.blame.batch import groups
    from snapline.blame.gitdiff import line_diff

    summary = BlameSummary()
    origins = Origins(store)
    # The line diffs of a group of files are done ahead in one git process, not one each.
    for group, diff in groups(store, reconstructor, files, hunks or line_diff()):
        for path, disk in group:
            try:
                _, owners, _ = line_owners(store, reconstructor, path, disk, diff)
                found = None
                if elsewhere is not None and disk is not None and None in owners:
                    found = elsewhere.owners(path, disk)
            except (NotBlamableError, ContentUnavailableError) as error:
                summary.skipped[path] = str(error)
                continue
            counts = LineCounts()
            if found is None:
                counts.add(owners, origins)
            else:
                counts.add_origins(found)
            summary.files[path] = counts
            summary.total.merge(counts)
    return summary
