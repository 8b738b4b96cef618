"""The temporary names the atomic writes use, and how to recognise them after a crash."""

from __future__ import annotations

import hashlib
import os

__all__ = ["TEMP_MARKER", "is_temp_name", "temp_name", "temp_prefix"]

TEMP_MARKER = ".snapline-tmp-"
"""What every temporary name holds; see :func:`temp_name` for the whole pattern."""

# A temporary name is ".<head>.snapline-tmp-<check><random>": <head> is the target's name
# (or, past _HEAD_MAX bytes, its start and a hash of the whole name, so that any legal
# name, up to NAME_MAX = 255 bytes, gives a temporary name that fits too), <check> is 8 hex
# digits of SHA-256 of <head> and <random> 8 more. The check is what makes the pattern
# exact: a user's file that merely looks like one ("notes.snapline-tmp-x.txt",
# ".a.snapline-tmp-0123456789abcdef") is not one of ours, and is tracked like any file.
_HEAD_MAX = 200
_NAME_HASH = 8
_CHECK = 8
_RANDOM = 8
_TAIL = len(TEMP_MARKER) + _CHECK + _RANDOM
_HEX = frozenset("0123456789abcdef")


def is_temp_name(name: str) -> bool:
    """Whether a directory entry is one of our temporary files (left by a crash).

    Args:
        name: A file name, or a path (its last component is checked).

    Returns:
        True only for a name :func:`temp_name` can produce.
    """
    name = name.rpartition("/")[2]
    if (
        len(name) < _TAIL + 2
        or name[0] != "."
        or name[-_TAIL : -_TAIL + len(TEMP_MARKER)] != (TEMP_MARKER)
    ):
        return False
    digits = name[-_CHECK - _RANDOM :]
    return _HEX.issuperset(digits) and digits[:_CHECK] == _check(name[1:-_TAIL])


def temp_prefix(name: str) -> str:
    """The start shared by every temporary name :func:`temp_name` makes for ``name``.

    Only our temporary files for ``name`` start with it (it holds a hash of ``name``),
    so leftovers of a crash can be found by prefix.

    Args:
        name: The target's file name (its last component).

    Returns:
        ``.<head>.snapline-tmp-<check>``.
    """
    head = _head(name)
    return f".{head}{TEMP_MARKER}{_check(head)}"


def temp_name(name: str) -> str:
    """A fresh temporary name, in the same directory, for writing the file ``name``.

    Args:
        name: The target's file name (its last component).

    Returns:
        A name of at most 1 + 200 + 30 bytes that :func:`is_temp_name` recognises.
    """
    return (
        temp_prefix(name) + os.urandom(_RANDOM // 2).hex()
    )  # secrets.token_hex, without importing random


def _head(name: str) -> str:
    raw = os.fsencode(name)
    if len(raw) <= _HEAD_MAX:
        return name
    cut = _HEAD_MAX - _NAME_HASH - 1
    while cut and raw[cut] & 0xC0 == 0x80:
        cut -= 1  # not inside a UTF-8 sequence
    digest = hashlib.sha256(raw).hexdigest()[:_NAME_HASH]
    return f"{os.fsdecode(raw[:cut])}~{digest}"


def _check(head: str) -> str:
    return hashlib.sha256(os.fsencode(head)).hexdigest()[:_CHECK]
