"""A rollback reuses what the store has: swapped deltas, versions stored in full."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import Workspace
from snapline.snapshots.record import build
from snapline.snapshots.snapshot import Storage

# Version i edits the first i lines of sixty: every change is small, stored as a delta.
_VERSIONS = [
    "".join(f"line {j}{' edited' if j < i else ''}\n" for j in range(60)) for i in range(4)
]


@pytest.fixture
def diffs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the diffs computed (the files they were computed for, by new content)."""
    computed: list[str] = []
    real = build.compute_deltas

    def counting(base: str, new: str, **kwargs: float) -> object:
        computed.append(new)
        return real(base, new, **kwargs)

    monkeypatch.setattr(build, "compute_deltas", counting)
    return computed


@pytest.fixture
def edited(root: Path) -> Workspace:
    """``a.txt`` and ``b.txt`` at version 0 in the baseline, then edited to 1, 2 and 3."""
    for name in ("a.txt", "b.txt"):
        (root / name).write_text(_VERSIONS[0])
    workspace = Workspace.init(root)
    for version in _VERSIONS[1:]:
        for name in ("a.txt", "b.txt"):
            workspace.write_file(name, version)
    return workspace


def _blobs(ws: Workspace) -> int:
    return len(ws._store.blobs.hashes())


def test_going_back_to_a_version_stored_in_full_references_it(
    edited: Workspace, diffs: list[str]
) -> None:
    with edited:
        blobs = _blobs(edited)
        snapshot = edited.rollback(to=0).snapshot
        assert snapshot is not None
        assert diffs == [] and _blobs(edited) == blobs  # nothing diffed, nothing stored
        for change in snapshot.files:
            assert change.storage == Storage.FULL and change.content_ref == change.result_hash
        assert (edited.root / "a.txt").read_text() == _VERSIONS[0]
        assert edited.validate().ok and edited.verify().ok


def test_undoing_a_change_takes_its_deltas_swapped(edited: Workspace, diffs: list[str]) -> None:
    with edited:
        last = edited.snapshot(edited.latest)
        snapshot = edited.rollback(to=edited.latest - 1, paths=["b.txt"]).snapshot
        assert snapshot is not None and diffs == []
        (undone,) = [c for c in last.files if c.path == "b.txt"]
        (change,) = snapshot.files
        assert change.storage == Storage.DELTA
        assert (change.forward, change.reverse) == (undone.reverse, undone.forward)
        # And rolling that rollback back swaps them again.
        again = edited.rollback(to=edited.latest - 1).snapshot
        assert again is not None and diffs == []
        assert (again.files[0].forward, again.files[0].reverse) == (undone.forward, undone.reverse)
        assert (edited.root / "b.txt").read_text() == _VERSIONS[3]
        edited._reconstructor.cache = type(edited._reconstructor.cache)()
        for number in range(edited.latest + 1):
            for path in ("a.txt", "b.txt"):
                edited._reconstructor.content_at(path, number)  # hash-checked rebuilds
        assert edited.validate().ok and edited.verify().ok


def test_a_version_stored_only_as_a_delta_is_diffed_once_then_swapped(
    edited: Workspace, diffs: list[str]
) -> None:
    with edited:
        tip = edited.latest
        edited.rollback(to=0)  # references the baseline's versions
        edited.rollback(to=tip)  # version 3 exists only as a delta: one diff per file
        assert sorted(diffs) == [_VERSIONS[3]] * 2
        edited.rollback(to=0)
        edited.rollback(to=tip)
        assert len(diffs) == 2  # every later round trip swaps the deltas it has
        assert (edited.root / "a.txt").read_text() == _VERSIONS[3]
        assert edited.validate().ok and edited.verify().ok


def test_the_versions_a_rollback_replaces_are_read_from_the_disk_not_rebuilt(
    edited: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The journal keeps each replaced file's known version (to put it back on failure):
    # the disk holds that very version, checked by its hash, so no delta is replayed.
    from snapline.snapshots.read import reconstruct

    root = edited.root
    edited.close()
    applied: list[str] = []
    real = reconstruct.apply_delta

    def counting(text: str, delta: str) -> str:
        applied.append(delta)
        return real(text, delta)

    monkeypatch.setattr(reconstruct, "apply_delta", counting)
    with Workspace.open(root) as fresh:  # nothing cached: what a command sees
        assert fresh.rollback(to=0).restored == ("a.txt", "b.txt")
        assert applied == []
        assert (root / "a.txt").read_text() == _VERSIONS[0]
        fresh.rollback(to=fresh.latest - 1)  # back to version 3, a delta on the baseline
        assert (root / "b.txt").read_text() == _VERSIONS[3]
        assert fresh.validate().ok and fresh.verify().ok
