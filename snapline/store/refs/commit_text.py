"""A git commit's bytes: made as libgit2 makes snapline's, and read back.

``tree ID``, a ``parent ID`` line per parent, ``author`` and ``committer`` lines (``NAME
<EMAIL> SECONDS +0000``), an empty line and the message as given (libgit2 adds no
newline). :mod:`snapline.store.refs.git` writes every commit with these bytes, through
libgit2 or without it, so both make the same id (``tests/store/refs`` holds them to
``git cat-file``).
"""

from __future__ import annotations

from snapline.store.refs.values import Commit

__all__ = ["commit_bytes", "parse_commit"]


def commit_bytes(
    tree: str, parents: list[str], message: str, time: int, identity: tuple[str, str]
) -> bytes:
    """The bytes of a commit of ``tree`` by ``identity`` (author and committer) at ``time``."""
    person = f"{identity[0]} <{identity[1]}> {time} +0000"
    lines = [f"tree {tree}", *(f"parent {parent}" for parent in parents)]
    lines += [f"author {person}", f"committer {person}", "", message]
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def parse_commit(id_: str, data: bytes) -> Commit:
    """The commit ``id_`` whose bytes are ``data``.

    The message is decoded as pygit2 decodes it: by the commit's ``encoding`` header,
    else UTF-8, a byte that does not decode replaced.

    Raises:
        ValueError: If the bytes are not a commit's (no tree line first).
    """
    head, _, message = data.partition(b"\n\n")
    tree = None
    parents: list[str] = []
    encoding = "utf-8"
    for line in head.split(b"\n"):
        key, _, value = line.partition(b" ")
        if key == b"tree" and tree is None and not parents:
            tree = value.decode("ascii")
        elif key == b"parent":
            parents.append(value.decode("ascii"))
        elif key == b"encoding":
            encoding = value.decode("ascii", "replace")
    if tree is None or len(tree) != 40:
        raise ValueError(f"commit {id_} names no tree")
    try:
        text = message.decode(encoding, "replace")
    except LookupError:
        text = message.decode("utf-8", "replace")
    return Commit(id_, tree, tuple(parents), text)
