"""The root of snapline's exception hierarchy.

Each concrete error lives next to the code that raises it and carries data (``path``,
``expected``, ``actual``, ``number``), not just a message. Every message says what
happened, where, and what to do about it, so the CLI can print it as one line.
"""

from __future__ import annotations

__all__ = ["SnaplineError"]


class SnaplineError(Exception):
    """Base class of every error snapline raises on purpose.

    Attributes:
        exit_code: The CLI exit code this error maps to (1: a validation or sync
            failure, 2: a usage error, 3: a corrupt or unreadable store, 4: busy,
            5: git could not push or fetch the history at all).
            Anything else that reaches the command line is a bug in snapline: exit 70.
    """

    exit_code: int = 1
