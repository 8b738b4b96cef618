"""Why a path was seen and not captured: the fixed set of reasons, as stored.

The values are the text stored with each snapshot (``skipped``) and shown to users;
they are part of the store format, so a value never changes. Compare reasons with
these members, never by matching words in the text.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["SkipReason"]


class SkipReason(str, Enum):
    """Why a path was left out of a snapshot."""

    IGNORED = "ignored"
    UNREADABLE = "unreadable (permission denied)"
    UNREADABLE_DIRECTORY = "unreadable directory"
    CHANGING = "kept changing while being read"
    NOT_A_FILE = "not a regular file or symlink"
    HASH_ONLY = "above the large-file limit: tracked by hash only"
    WRITTEN_NOT_RECORDED = "ignored: written but not recorded"
    UNREACHABLE = "unreachable: the path is too long for the operating system"
    """ENAMETOOLONG or ELOOP: deeper than PATH_MAX; git warns about it and goes on."""
