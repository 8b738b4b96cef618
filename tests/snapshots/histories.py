"""Random edit histories for property tests: generated operations applied through the library."""

from __future__ import annotations

import os

from hypothesis import strategies as st

from snapline import Workspace
from tests.snapshots.trees import files

PATHS = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.bin", "f", "f/g.txt", "link"]
CONTENTS = st.one_of(
    st.sampled_from(
        [
            b"",
            b"one\n",
            b"one\r\ntwo\r\n",
            b"no final newline",
            "café\n".encode("latin-1"),
            bytes(range(256)),
        ]
    ),
    st.binary(max_size=48),
    st.lists(st.sampled_from(["x\n", "y\r\n", "z", "\n"]), max_size=6).map(
        lambda parts: "".join(parts).encode()
    ),
)
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.sampled_from(PATHS), CONTENTS, st.booleans()),
        st.tuples(st.just("delete"), st.sampled_from(PATHS)),
        st.tuples(st.just("move"), st.sampled_from(PATHS), st.sampled_from(PATHS)),
        st.tuples(st.just("outside"), st.sampled_from(PATHS), CONTENTS, st.booleans()),
        st.tuples(
            st.just("symlink"), st.sampled_from(PATHS), st.sampled_from(["a.txt", "dir", "../x"])
        ),
    ),
    min_size=1,
    max_size=8,
)


class Session:
    """Applies generated operations through the library, remembering every snapshot's tree."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.states = {0: files(ws.root)}

    def done(self) -> None:
        self.states[self.ws.latest] = files(self.ws.root)

    def make_room(self, path: str, keep: str | None = None) -> None:
        """Delete (recorded) whatever tracked file or directory stands in ``path``'s way."""
        parts = path.split("/")
        for depth in range(1, len(parts)):
            prefix = "/".join(parts[:depth])
            if prefix in self.ws.tracked() and prefix != keep:
                self.ws.delete_file(prefix)
                self.done()
        for tracked in list(self.ws.tracked()):
            if tracked.startswith(path + "/") and tracked != keep:
                self.ws.delete_file(tracked)
                self.done()

    def apply(self, op: tuple) -> None:  # type: ignore[type-arg]
        kind, path = op[0], op[1]
        root = self.ws.root
        if kind == "write":
            self.make_room(path)
            self.ws.write_file(path, op[2], executable=op[3])
        elif kind == "delete":
            if path not in self.ws.tracked():
                return
            self.ws.delete_file(path)
        elif kind == "move":
            target = op[2]
            related = path == target or target.startswith(path + "/")
            if path not in self.ws.tracked() or related or path.startswith(target + "/"):
                return
            self.make_room(target, keep=path)
            self.ws.move_file(path, target, overwrite=True)
        elif kind in ("outside", "symlink"):
            self.make_room(path)
            location = root / path
            location.parent.mkdir(parents=True, exist_ok=True)
            if location.is_symlink() or location.exists():
                location.unlink()
            if kind == "symlink":
                os.symlink(op[2], location)
            else:
                location.write_bytes(op[2])
                os.chmod(location, 0o755 if op[3] else 0o644)
            self.ws.record([path], tool="shell")
        self.done()
