"""The public, immutable records: snapshots, file changes and reports.

Their JSON shapes (``model_dump(mode="json")``) are stable and documented in
docs/format.md; new fields are only ever added, and ``version`` says which shape a
record was written with. The enums they use (``ChangeKind``, ``Storage``) are defined in
``kinds.py``, which recording imports without pydantic.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from snapline.snapshots.kinds import SNAPSHOT_VERSION, ChangeKind, Storage
from snapline.values import FrozenModel

_MAX_NAMED = 3

__all__ = [
    "SNAPSHOT_VERSION",
    "ChangeKind",
    "Explained",
    "ExplainingSnapshot",
    "FileChange",
    "Problem",
    "Report",
    "SideSnapshot",
    "SkippedPath",
    "Snapshot",
    "Storage",
]


class FileChange(FrozenModel):
    """One file's change in a snapshot.

    ``forward``/``reverse`` are diff-match-patch deltas for text (``None`` when the
    version is stored in full, or when the snapshot was listed without its diffs);
    ``content_ref`` names the stored full content, when there is one.
    """

    path: str
    kind: ChangeKind
    old_path: str | None = None
    base_hash: str | None = None
    result_hash: str | None = None
    base_mode: int | None = None
    result_mode: int | None = None
    size: int | None = None
    storage: Storage
    forward: str | None = None
    reverse: str | None = None
    content_ref: str | None = None


class SkippedPath(FrozenModel):
    """A path a recording did not capture (or captured by hash only), and why."""

    path: str
    reason: str


class Snapshot(FrozenModel):
    """One recorded change set, number ``number`` in the workspace's history.

    Snapshot 0 is the baseline captured by ``init``.
    """

    number: int = Field(ge=0)
    id: str
    parent_id: str | None
    time: datetime
    tool: str
    description: str
    session: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    version: int = SNAPSHOT_VERSION
    chain_hash: str
    files: tuple[FileChange, ...] = ()
    skipped: tuple[SkippedPath, ...] = ()
    merges: tuple[str, ...] = ()
    """The ids of the heads of the other lines this snapshot joined (a merge)."""

    def file(self, path: str) -> FileChange | None:
        """The change of ``path`` in this snapshot, if any."""
        return next((f for f in self.files if f.path == path), None)


class SideSnapshot(FrozenModel):
    """A snapshot recorded on another line (a branch merged in git), outside the main line.

    Its number is its number on its own line; ``line`` names that line by the id of its
    latest snapshot, and ``joined_by`` is the main-line merge snapshot that joined it
    (``None`` until ``snapline merge`` joins it).
    """

    number: int
    id: str
    parent_id: str | None
    time: datetime
    tool: str
    description: str
    session: str | None = None
    line: str
    joined_by: int | None = None


class Problem(FrozenModel):
    """One thing wrong: in the store (validation) or between the store and the disk (sync)."""

    kind: str
    message: str
    path: str | None = None
    number: int | None = None
    expected: str | None = None
    actual: str | None = None
    severity: Literal["error", "corrupt"] = "error"


class ExplainingSnapshot(FrozenModel):
    """A snapshot that explains a checkout: its line's id, its number there, its id."""

    line: str
    number: int
    id: str


class Explained(FrozenModel):
    """What explained a checkout whose files are not the latest snapshot's state.

    ``merge``: the files are git's clean merge of the ``snapshots``' states (in merge
    order); otherwise they are the state that each of the ``snapshots`` recorded.
    """

    merge: bool
    snapshots: tuple[ExplainingSnapshot, ...]

    def describe(self) -> str:
        """``the checkout is git's clean merge of snapshot 2 (id:…) on line … and …``."""
        named = [
            f"snapshot {s.number} (id:{s.id[:8]}) on line {s.line[:8]}"
            for s in self.snapshots[:_MAX_NAMED]
        ]
        if len(self.snapshots) > _MAX_NAMED:
            named.append(f"{len(self.snapshots) - _MAX_NAMED} more")
        if self.merge and len(named) > 1:
            listed = ", ".join(named[:-1]) + f" and {named[-1]}"
            return f"the checkout is git's clean merge of {listed}"
        return "the checkout is the state recorded by " + ", or ".join(named)


class Report(FrozenModel):
    """The result of ``validate()``, ``verify()`` or ``check_sync()``: ``ok`` without problems.

    ``since`` is set by a ``verify()`` that checked only the history after its
    checkpoint (the snapshot numbered ``since`` and those before it were checked by an
    earlier full check); ``None`` when the whole history was checked.
    """

    problems: tuple[Problem, ...] = ()
    since: int | None = None
    explained: Explained | None = None
    """A ``verify()`` of a checkout that reads a history on git's refs whose files are not
    the latest snapshot's state: the recorded state (or git's clean merge of states) that
    they are."""

    @property
    def ok(self) -> bool:
        """Whether no problem was found."""
        return not self.problems

    @property
    def corrupt(self) -> bool:
        """Whether any problem means the store itself is damaged (exit code 3)."""
        return any(p.severity == "corrupt" for p in self.problems)

    def to_json(self) -> dict[str, Any]:
        """The report's stable JSON shape: ``ok``, the problems, and when set ``since``.

        And ``explained`` (``{"merge", "snapshots": [{"line", "number", "id"}]}``) when set.
        """
        shape: dict[str, Any] = {
            "ok": self.ok,
            "problems": [p.model_dump(mode="json") for p in self.problems],
        }
        if self.since is not None:
            shape["since"] = self.since
        if self.explained is not None:
            shape["explained"] = self.explained.model_dump(mode="json")
        return shape
