"""What the MCP tools hand back: snapshots as JSON objects, and errors as tool errors.

Results are built from the library's models (``model_dump(mode="json")``); a snapline
error (or an OS error) becomes an MCP tool error carrying one line, whose advice names
the tool that settles it (:mod:`snapline.hosts.mcp_errors`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from snapline.errors import SnaplineError
from snapline.guard import CheckOutcome, GuardResult
from snapline.hosts.mcp_errors import tool_message
from snapline.snapshots.snapshot import Snapshot

__all__ = ["checked", "guard_json", "snapshot_json", "tool_errors"]


@contextlib.contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a snapline error (or an OS error) into an MCP tool error with one line."""
    try:
        yield
    except SnaplineError as error:
        raise ToolError(tool_message(error)) from error
    except OSError as error:
        raise ToolError(f"{error.strerror or error}: {error.filename or ''}".strip()) from error


def snapshot_json(snapshot: Snapshot | None, *, deltas: bool = False) -> dict[str, Any] | None:
    """A snapshot as the tools give it, without its diffs unless ``deltas``.

    Args:
        snapshot: The snapshot, or ``None``.
        deltas: Keep the files' stored deltas.

    Returns:
        Its JSON object, or ``None``.
    """
    if snapshot is None:
        return None
    exclude = None if deltas else {"files": {"__all__": {"forward", "reverse"}}}
    return snapshot.model_dump(mode="json", exclude=exclude)


def checked(data: dict[str, Any] | None, checks: dict[int, CheckOutcome]) -> dict[str, Any]:
    """A snapshot's JSON object with its latest check (``guard``), or null.

    Args:
        data: The snapshot's JSON object (from :func:`snapshot_json`).
        checks: The latest check of each main-line snapshot, by number.

    Returns:
        ``data`` with a ``check`` key.
    """
    assert data is not None
    check = checks.get(data["number"])
    return {**data, "check": None if check is None else check.model_dump(mode="json")}


def guard_json(result: GuardResult) -> dict[str, Any]:
    """What the ``guard`` tool answers: the keys of ``snapline guard --json``, and ``output``.

    ``held`` is there so that a ``rollback`` of null beside a ``last_pass`` has its
    reason: the snapshots (a person's edit, another session's work) the rollback would
    have taken out.

    Args:
        result: The guard's result.

    Returns:
        ``passed``, ``check``, ``last_pass``, ``rollback``, ``held`` and ``output``.
    """
    return {
        "passed": result.passed,
        "check": result.check.model_dump(mode="json"),
        "last_pass": result.last_pass,
        "rollback": None if result.rollback is None else result.rollback.model_dump(mode="json"),
        "held": [held.model_dump(mode="json") for held in result.held],
        "output": result.output,
    }
