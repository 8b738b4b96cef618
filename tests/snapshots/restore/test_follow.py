"""``located``: where the file a snapshot left at a path is after later changes.

The oracle is a model of the files themselves: each file has an identity that a rename
carries to its new path and an edit keeps, and that a deletion ends; a file added later
at a path is another file. ``located`` must give the path that holds the followed
file's identity after the changes, or ``None`` when no path does.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from snapline.snapshots.kinds import ChangeKind
from snapline.snapshots.restore.follow import located
from snapline.store import ChangeRow

_PATHS = ("a", "b", "c", "d")


@dataclass(frozen=True)
class _History:
    followed: str
    rows: list[ChangeRow]
    now_at: str | None  # the model's answer


def _row(kind: ChangeKind, path: str, old_path: str | None = None) -> ChangeRow:
    present = kind != ChangeKind.DELETED
    return ChangeRow(
        snapshot=1,
        path=path,
        kind=kind.value,
        old_path=old_path,
        base_hash=None if kind == ChangeKind.ADDED else "0" * 64,
        result_hash="1" * 64 if present else None,
        base_mode=None,
        result_mode=0o100644 if present else None,
        size=None,
        storage="hash",
        forward=None,
        reverse=None,
        content=None,
        chain=0,
        chain_bytes=0,
    )


@st.composite
def _histories(draw: st.DrawFn) -> _History:
    """A file followed through valid changes of a few paths, and where the model has it."""
    start = sorted(draw(st.sets(st.sampled_from(_PATHS), min_size=1)))
    files = {path: identity for identity, path in enumerate(start)}  # path -> identity
    followed = draw(st.sampled_from(start))
    born = len(start)
    rows = []
    for _ in range(draw(st.integers(0, 8))):
        free = [p for p in _PATHS if p not in files]
        kinds = ([ChangeKind.ADDED] if free else []) + (
            [ChangeKind.MODIFIED, ChangeKind.DELETED] + ([ChangeKind.RENAMED] if free else [])
            if files
            else []
        )
        kind = draw(st.sampled_from(kinds))
        if kind == ChangeKind.ADDED:
            path = draw(st.sampled_from(free))
            files[path], born = born, born + 1
            rows.append(_row(kind, path))
        elif kind == ChangeKind.RENAMED:
            old, path = draw(st.sampled_from(sorted(files))), draw(st.sampled_from(free))
            files[path] = files.pop(old)
            rows.append(_row(kind, path, old))
        else:
            path = draw(st.sampled_from(sorted(files)))
            if kind == ChangeKind.DELETED:
                del files[path]
            rows.append(_row(kind, path))
    where = [path for path, identity in files.items() if identity == start.index(followed)]
    return _History(followed, rows, where[0] if where else None)


@given(_histories())
def test_located_follows_the_file_as_the_model_does(history: _History) -> None:
    assert located(history.followed, history.rows) == history.now_at


def test_each_kind_of_change_as_the_model_has_it() -> None:
    # The cases the model reaches, named: a minimal history for each.
    renamed, deleted = ChangeKind.RENAMED, ChangeKind.DELETED
    assert located("a", [_row(renamed, "b", "a")]) == "b"
    assert located("a", [_row(renamed, "c", "b")]) == "a"  # another file's rename
    assert located("a", [_row(deleted, "a")]) is None
    assert located("a", [_row(deleted, "b")]) == "a"  # another file's deletion
    assert located("a", [_row(ChangeKind.MODIFIED, "a")]) == "a"
    assert located("a", [_row(deleted, "a"), _row(ChangeKind.ADDED, "a")]) is None
    assert located("a", [_row(renamed, "b", "a"), _row(renamed, "a", "c")]) == "b"
