"""A byte count as people read it, the same on the command line and on the review page."""

from __future__ import annotations

__all__ = ["format_bytes"]


def format_bytes(size: int) -> str:
    """``1234567`` → ``"1.2 MiB"``; below 1 KiB the count itself (``"1,023 bytes"``)."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{size:,} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
