"""validate(deep=True): every damaged stored content is named, each as damage, none hidden.

A deep check reads every stored blob and rebuilds every recorded version. One damaged
blob must not hide the next: each unreadable or wrong blob, and each version that can no
longer be rebuilt, is its own problem, with what was expected and what was found, and
each is damage (``corrupt``: exit 3), never a mere sync problem. A deletion (nothing
stored) and a version forgotten on purpose (``forget``) come first in the walk and must
not end it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from snapline import Workspace

_FILES = {name: b"\x00" + name.encode() * 3 for name in ("a.bin", "b.bin", "c.bin", "d.bin")}


def _blob(db: sqlite3.Connection, hash_: str) -> bytes:
    (data,) = db.execute("SELECT data FROM blobs WHERE hash = ?", (hash_,)).fetchone()
    return bytes(data)


def test_every_damaged_blob_and_version_is_named_as_damage(root: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    (root / "gone.txt").write_text("bye\n")
    ws = Workspace.init(root)
    try:
        ws.write_file("secret.txt", "hunter2\n")
        ws.write_file("secret.txt", "rotated\n")
        ws.delete_file("gone.txt")  # snapshot 3: a deletion stores nothing
        ws.forget("secret.txt", snapshot=1)  # snapshot 1's version: gone on purpose
        refs: dict[str, str] = {}
        for name, data in _FILES.items():
            ws.write_file(name, data)
            ref = ws.snapshot("latest").files[0].content_ref
            assert ref is not None
            refs[name] = ref
        numbers = {name: 4 + i for i, name in enumerate(_FILES)}
        assert ws.validate(deep=True).ok

        db = sqlite3.connect(root / ".snapline" / "index.db")
        with db:
            right = {name: _blob(db, ref) for name, ref in refs.items()}
            damage = {
                "a.bin": b"qunknown codec",  # unreadable
                "b.bin": right["c.bin"],  # readable, but another content
                "c.bin": b"qunknown codec",
                "d.bin": right["a.bin"],
            }
            for name, data in damage.items():
                db.execute("UPDATE blobs SET data = ? WHERE hash = ?", (data, refs[name]))
        db.close()

        problems = ws.validate(deep=True).problems
    finally:
        ws.close()

    found = sorted(
        ((p.kind, p.severity, p.path, p.number, p.expected, p.actual, p.message) for p in problems),
        key=str,
    )
    unreadable = "stored content {} cannot be read: "
    blobs = [
        ("corrupt-content", "corrupt", None, None, refs["a.bin"], None, unreadable),
        ("corrupt-content", "corrupt", None, None, refs["b.bin"], refs["c.bin"], None),
        ("corrupt-content", "corrupt", None, None, refs["c.bin"], None, unreadable),
        ("corrupt-content", "corrupt", None, None, refs["d.bin"], refs["a.bin"], None),
    ]
    versions = [("corrupt-content", "corrupt", name, numbers[name], None, None) for name in _FILES]
    assert len(found) == len(blobs) + len(versions), found
    assert [f[:6] for f in found if f[2] is None] == sorted((b[:6] for b in blobs), key=str)
    for _kind, _severity, path, _number, expected, actual, message in found:
        if path is None:  # a blob: its message names it, and what it hashes to
            assert expected is not None
            if actual is None:
                assert message.startswith(unreadable.format(expected)), message
            else:
                assert message == f"stored content {expected} hashes to {actual}"
    assert [f[:6] for f in found if f[2] is not None] == versions
    # A version is named with the error rebuilding it gave, which names the file.
    assert all(f[6] for f in found if f[2] is not None)


def test_a_version_after_an_unsafe_recorded_path_is_still_rebuilt(root: Path) -> None:
    (root / "README.md").write_text("# demo\n")
    ws = Workspace.init(root)
    try:
        ws.write_file("x.bin", b"\x00x")
        ws.write_file("y.bin", b"\x00y")
        ref = ws.snapshot(2).files[0].content_ref
        db = sqlite3.connect(root / ".snapline" / "index.db")
        with db:
            # Snapshot 1's path made unsafe (it would write outside the root), and the
            # content of snapshot 2 damaged: the first must not hide the second.
            db.execute("UPDATE changes SET path = '../x.bin' WHERE snapshot = 1")
            db.execute("UPDATE blobs SET data = ? WHERE hash = ?", (b"qunknown codec", ref))
        db.close()
        problems = ws.validate(deep=True).problems
    finally:
        ws.close()
    kinds = {(p.kind, p.path, p.number) for p in problems}
    assert ("unsafe-path", "../x.bin", 1) in kinds, problems
    assert ("corrupt-content", "y.bin", 2) in kinds, problems
