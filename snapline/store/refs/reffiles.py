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

import re
from pathlib import Path

__all__ = ["UNKNOWN", "read_ref"]

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
