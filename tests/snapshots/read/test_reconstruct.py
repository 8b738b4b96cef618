"""Exact reconstruction: any recorded version rebuilt byte for byte, chains bounded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snapline import StoreCorruptError, Workspace
from snapline.store import Store

_line = st.sampled_from(["alpha\n", "beta\r\n", "gamma", "\n", "δ\n", "\x00\xff", "😀\n"])
_content = st.lists(_line, max_size=12).map(lambda parts: "".join(parts).encode("utf-8"))
_names = st.sampled_from(["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.bin"])
_step = st.one_of(
    st.tuples(st.just("write"), _names, _content),
    st.tuples(st.just("delete"), _names, st.just(b"")),
    st.tuples(st.just("move"), _names, _names.map(str.encode)),
    st.tuples(st.just("shell"), _names, _content),
)


@given(steps=st.lists(_step, min_size=1, max_size=15))
def test_content_at_equals_the_disk_at_every_step(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str, bytes]]
) -> None:
    root = tmp_path_factory.mktemp("ws")
    (root / "a.txt").write_bytes(b"base\n")
    history: list[dict[str, bytes]] = []
    with Workspace.init(root) as ws:
        history.append(_disk(root))
        for action, name, data in steps:
            present = (root / name).exists()
            if action == "write":
                ws.write_file(name, data)
            elif action == "delete" and present:
                ws.delete_file(name)
            elif action == "move" and present and data.decode() != name:
                target = data.decode()
                if (root / target).exists():
                    continue
                ws.move_file(name, target)
            elif action == "shell":
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_bytes(data + b"!")
                ws.record(tool="shell")
            else:
                continue
            if ws.latest == len(history):
                history.append(_disk(root))
        assert ws.latest == len(history) - 1
        for number, files in enumerate(history):
            for name in ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.bin"]:
                if name in files:
                    assert ws.content_at(name, number) == files[name]
                else:
                    with pytest.raises(Exception, match="does not exist"):
                        ws.content_at(name, number)
        assert ws.validate(deep=True).ok


def _disk(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".snapline" not in p.parts
    }


def test_delta_chains_are_bounded_by_full_versions(root: Path) -> None:
    lines = [f"line {i}\n" for i in range(200)]
    (root / "f.txt").write_text("".join(lines))
    with Workspace.init(root) as ws:
        store = ws._store
        config = store.config() | {"max_chain": 5}
        with store.write():
            store.index.connection.db.execute(
                "UPDATE meta SET value = ? WHERE key = 'config'",
                (__import__("json").dumps(config),),
            )
    with Workspace.open(root) as ws:
        for i in range(12):
            lines[i] = f"edited {i}\n"
            ws.write_file("f.txt", "".join(lines))
        storages = [s.files[0].storage.value for s in list(ws.snapshots())[1:]]
        assert storages == ["delta"] * 5 + ["full"] + ["delta"] * 5 + ["full"]
    # A fresh process (empty cache) rebuilds every version from the store alone.
    with Workspace.open(root) as ws:
        for number in range(13):
            expected = [f"edited {i}\n" if i < number else f"line {i}\n" for i in range(200)]
            assert ws.content_at("f.txt", number) == "".join(expected).encode()


def test_a_damaged_delta_is_caught_before_use(ws: Workspace) -> None:
    ws.write_file("src/app.py", "print('hello')\nprint('two')\n")
    db = sqlite3.connect(ws.root / ".snapline" / "index.db")
    with db:
        db.execute("UPDATE changes SET forward = ? WHERE snapshot = 1", (b"r=15\t+evil%0A",))
    db.close()
    with Workspace.open(ws.root) as fresh, pytest.raises(StoreCorruptError) as caught:
        fresh.content_at("src/app.py", 1)
    assert "src/app.py" in str(caught.value)


def test_store_rows_keep_raw_bytes_paths(root: Path) -> None:
    name = b"caf\xe9.txt"  # not valid UTF-8
    with open(bytes(root) + b"/" + name, "wb") as handle:
        handle.write(b"latin-1 name\n")
    with Workspace.init(root) as ws:
        path = name.decode("utf-8", "surrogateescape")
        assert path in ws.tracked()
        assert ws.content_at(path, 0) == b"latin-1 name\n"
        assert isinstance(Store, type)


def test_an_empty_version_in_the_middle_of_a_delta_chain(root: Path) -> None:
    # Found by the property test: an empty file's cached content is b"" (falsy), which
    # once sent the rebuild down the full-content path of a delta row.
    (root / "a.txt").write_bytes(b"base\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", b"")
        ws.write_file("a.txt", b"alpha\n")
        assert ws.validate(deep=True).ok
        assert ws.content_at("a.txt", 1) == b"" and ws.content_at("a.txt", 2) == b"alpha\n"
