"""Making a :class:`~snapline.Problem` only once one is found.

The checks run in every ``snapline verify`` and hook process, and most of them find
nothing: importing the model (and with it pydantic) up front would cost each such
process about a fifth of its time. The checks call :func:`problem`, which loads the
model on its first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["Severity", "make_problem"]

Severity = Literal["error", "corrupt"]


def make_problem(
    *,
    kind: str,
    message: str,
    path: str | None = None,
    number: int | None = None,
    expected: str | None = None,
    actual: str | None = None,
    severity: Severity = "error",
) -> Problem:
    """A :class:`~snapline.Problem` with these fields (see its docstring)."""
    from snapline.snapshots.snapshot import Problem

    return Problem(
        kind=kind,
        message=message,
        path=path,
        number=number,
        expected=expected,
        actual=actual,
        severity=severity,
    )
