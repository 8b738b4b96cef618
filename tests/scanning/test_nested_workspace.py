"""A workspace inside another is left alone by the outer one, as git leaves a nested repository."""

from __future__ import annotations

from pathlib import Path

from snapline import Workspace
from snapline.scanning import IgnoreRules, scan


def _store_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "sub" / ".snapline").rglob("*"))
        if p.is_file()
    }


def test_the_outer_workspace_never_records_a_nested_store(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "inner.txt").write_text("inner v0\n")
    (root / "top.txt").write_text("top v0\n")
    inner = Workspace.init(root / "sub")
    inner.write_file("inner.txt", "inner v1\n")
    with Workspace.init(root) as outer:
        assert sorted(outer.tracked()) == ["sub/inner.txt", "top.txt"]
        inner.write_file("inner.txt", "inner v2\n")  # the inner store changes meanwhile
        assert [p.path for p in outer.check_sync().problems] == ["sub/inner.txt"]
        snapshot = outer.record()
        assert snapshot is not None
        assert [f.path for f in snapshot.files] == ["sub/inner.txt"]
        outer.write_file("top.txt", "top v1\n")
        inner.close()
        before = _store_files(root)
        outer.rollback(to=0)  # the inner store is not the outer's to put back
        assert _store_files(root) == before
        assert sorted(outer.tracked()) == ["sub/inner.txt", "top.txt"]
    with Workspace.open(root / "sub") as reopened:
        assert reopened.validate().ok and reopened.latest == 2


def test_any_entry_named_like_the_store_is_left_out_at_any_depth(tmp_path: Path) -> None:
    for rel in ["a/.snapline/store.db", "a/b/.snapline/lock", "c/.snapline"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / "a" / "kept.txt").write_text("x")
    found = scan(tmp_path, IgnoreRules(tmp_path), keep_stats=False)
    assert found.names == ["a/kept.txt"]
    assert found.ignored == []  # built-in, like .git: not worth reporting
    rules = IgnoreRules(tmp_path)
    assert rules.is_ignored("a/b/.snapline/lock") and rules.is_ignored("c/.snapline")
