"""A ref of snapline's read from git's own files, without the git library.

Every command compares the refs with the index's marks (``RefsStore.stale``); reading
two refs must not cost loading libgit2 (tens of milliseconds) when nothing changed. git's
files backend keeps a ref as a loose file (``<common dir>/<name>``, the id and a
newline) or as a line of ``packed-refs`` (``<id> <name>``); git reads the loose file
first, and ``git pack-refs`` writes ``packed-refs`` before it deletes a loose file, so
reading in that order never misses a ref. Only snapline's own refs (``refs/snapline/``,
never symbolic) are read here; a repository with another ref backend (reftable) is left
to the library.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["UNKNOWN", "only_ref", "read_ref"]

UNKNOWN = "?"
"""What :func:`read_ref` answers when only the library can tell."""

_ID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_LIMIT = 4096


def read_ref(common_dir: Path, name: str) -> str | None:
    """The id ref ``name`` points at, ``None`` if there is none, or :data:`UNKNOWN`.

    Args:
        common_dir: The repository's common directory (objects and refs).
        name: A ref under ``refs/snapline/``.
    """
    if not name.startswith("refs/snapline/") or ".." in name:
        return UNKNOWN
    if (common_dir / "reftable").exists():
        return UNKNOWN
    try:
        with open(common_dir / name, "rb") as loose:
            text = loose.read(_LIMIT).decode("ascii", "replace").strip()
    except FileNotFoundError:
        return _packed(common_dir, name)
    except OSError:
        return UNKNOWN
    return text if _ID.fullmatch(text) else UNKNOWN


def _packed(common_dir: Path, name: str) -> str | None:
    try:
        with open(common_dir / "packed-refs", "rb") as packed:
            lines = packed.read().decode("utf-8", "surrogateescape").splitlines()
    except FileNotFoundError:
        return None
    except OSError:
        return UNKNOWN
    for line in lines:
        if line.startswith(("#", "^")):
            continue
        id_, _, ref = line.partition(" ")
        if ref == name:
            return id_ if _ID.fullmatch(id_) else UNKNOWN
    return None


def only_ref(common_dir: Path, prefix: str, name: str | None) -> bool:
    """Whether git's files certainly hold no ref under ``prefix`` but ``name`` (or none).

    A folder listed and ``packed-refs`` searched, no ref read: ``record`` asks it of
    every edit (``snapshots/check/merged.py``). ``False`` whenever unsure (another ref
    backend, a folder or file that cannot be read, a nested or locked name): the caller
    then lists the refs.

    Args:
        common_dir: The repository's common directory (objects and refs).
        prefix: A folder of refs under ``refs/snapline/``, ending in ``/``.
        name: The one ref allowed there.
    """
    if not prefix.startswith("refs/snapline/") or not prefix.endswith("/"):
        return False
    common = os.fspath(common_dir)
    if os.path.exists(common + "/reftable"):
        return False
    try:
        loose = os.listdir(common + "/" + prefix)
    except FileNotFoundError:
        loose = []
    except OSError:
        return False
    if any(prefix + entry != name for entry in loose):
        return False
    try:
        with open(common + "/packed-refs", "rb") as packed:
            text = packed.read()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    allowed = b"" if name is None else os.fsencode(name)
    # Each packed ref is a line "<id> <name>": the names under the prefix, found in C.
    start = text.find(b" " + os.fsencode(prefix))
    while start >= 0:
        end = text.find(b"\n", start)
        if text[start + 1 : len(text) if end < 0 else end].rstrip(b"\r") != allowed:
            return False
        start = text.find(b" " + os.fsencode(prefix), start + 1)
    return True
