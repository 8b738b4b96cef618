"""How values cross into SQLite: paths as TEXT or raw bytes, numbers within 64 bits."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["bounded", "decode_path", "encode_path"]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def encode_path(path: str) -> str | bytes:
    """A path as the store keeps it: text, or raw bytes when it is not valid UTF-8.

    Args:
        path: A path, with surrogate escapes for bytes that are not UTF-8.

    Returns:
        ``path`` itself, or its bytes when SQLite could not store it as TEXT.
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape")
    return path


def decode_path(value: str | bytes | None) -> Any:
    """The path that :func:`encode_path` stored as ``value`` (``None`` stays ``None``).

    Args:
        value: A path column as SQLite returns it.

    Returns:
        The path as ``str`` (with surrogate escapes where it was bytes), or ``None``.
    """
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return value


def bounded(params: Iterable[Any]) -> tuple[Any, ...]:
    """Query parameters with every integer brought within SQLite's 64-bit range.

    Args:
        params: The parameters of one statement.

    Returns:
        The same parameters, integers clamped.
    """
    # A number a caller typed (`show 2**70`) can exceed SQLite's 64-bit INTEGER, which
    # raises OverflowError. Nothing stored can be outside that range, so the nearest
    # bound compares the same way: such a snapshot or milestone is simply not found,
    # and a limit that large means no limit.
    return tuple(
        min(max(value, _INT64_MIN), _INT64_MAX)
        if isinstance(value, int) and not isinstance(value, bool)
        else value
        for value in params
    )
