"""The four fields a caller says about a snapshot, checked without building a model.

:class:`~snapline.SnapshotInfo` (``info.py``) is the public value object; what the
recording code reads of it is :data:`InfoFields` (either). A command-line
recording uses :class:`PlainInfo`, the same fields checked by the same
:func:`checked_fields`, so that a ``snapline record`` process never imports pydantic.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias, TypedDict

from snapline.errors import SnaplineError

if TYPE_CHECKING:
    from snapline.snapshots.info import SnapshotInfo

__all__ = [
    "EXTERNAL_TOOL",
    "InfoFields",
    "MetadataError",
    "PlainInfo",
    "Who",
    "checked_fields",
    "info_from",
    "info_of",
    "storable_text",
]

EXTERNAL_TOOL = "external"
"""The tool name of a snapshot that adopts changes made outside snapline."""

_METADATA_LIMIT = 16 * 1024


class MetadataError(SnaplineError):
    """Snapshot metadata or tool name that is not small, JSON-serialisable data."""

    exit_code = 2


class PlainInfo(NamedTuple):
    """Info checked by :func:`checked_fields`, for a process that builds no model."""

    tool: str
    description: str
    session: str | None
    metadata: dict[str, Any]

    @classmethod
    def checked(
        cls,
        tool: str,
        description: str,
        session: str | None,
        metadata: dict[str, Any] | None = None,
    ) -> PlainInfo:
        """The info of a command-line or hook recording, checked as ``SnapshotInfo`` checks it.

        Raises:
            MetadataError: If the tool name is empty, or the metadata is not small JSON.
        """
        fields = {"tool": tool, "description": description, "session": session}
        return cls(**checked_fields({**fields, "metadata": metadata}))


InfoFields: TypeAlias = "SnapshotInfo | PlainInfo"
"""What a recording reads of the info it is given: the public model or the plain one."""


def storable_text(text: str) -> str:
    r"""``text`` with anything UTF-8 cannot hold written as a ``\udcXX`` escape.

    A non-UTF-8 file name reaches Python as lone surrogates (and so does such a command
    line argument); a description like ``write <that name>`` must still be storable as
    TEXT, and readable, rather than fail the recording.

    Args:
        text: Any string.

    Returns:
        The same text, encodable as UTF-8.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def checked_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The four fields of ``data`` checked and made storable, as the model receives them.

    Args:
        data: ``tool``, and optionally ``description``, ``session`` and ``metadata``.

    Returns:
        The four fields, the text made storable and the metadata a fresh dict.

    Raises:
        MetadataError: If the tool name is empty or a field is not what it must be.
    """
    tool = data.get("tool")
    if not tool or not isinstance(tool, str):
        raise MetadataError("a snapshot needs a tool name (for example 'edit' or 'shell')")
    description = data.get("description", "")
    session = data.get("session")
    if not isinstance(description, str) or not (session is None or isinstance(session, str)):
        raise MetadataError("a snapshot's description and session must be text")
    metadata = dict(data.get("metadata") or {})
    try:
        encoded = json.dumps(metadata, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise MetadataError(f"metadata must be JSON-serialisable: {error}") from None
    if len(encoded) > _METADATA_LIMIT:
        raise MetadataError(
            f"metadata is {len(encoded)} bytes as JSON; keep it under {_METADATA_LIMIT}"
        )
    return {
        "tool": storable_text(tool),
        "description": storable_text(description),
        "session": None if session is None else storable_text(session),
        "metadata": metadata,
    }


class Who(TypedDict, total=False):
    """Who made a change and why: the keyword arguments of every write method of ``Workspace``.

    Each method names its own defaults (``write_file``: tool ``write``, description
    ``write PATH``); :func:`info_of` turns what the caller gave into one info, in one place.

    Attributes:
        tool: The tool that made the change.
        description: Why (free text).
        session: The agent session or person recording.
        metadata: Small JSON data kept with the snapshot.
        info: The four above as one :class:`~snapline.SnapshotInfo` (it replaces them).
    """

    tool: str
    description: str | None
    session: str | None
    metadata: dict[str, Any] | None
    info: SnapshotInfo | None


def info_of(who: Who, tool: str, description: str = "") -> SnapshotInfo:
    """The info of one write call: what the caller said, with the method's defaults.

    Args:
        who: The keyword arguments the caller gave (any of :class:`Who`'s).
        tool: The method's tool, when the caller named none.
        description: The method's description, when the caller gave none (or an empty one).

    Returns:
        ``who["info"]`` when given, else the validated info of the other keys.

    Raises:
        TypeError: If ``who`` holds a key no write method takes (as Python says of an
            unknown keyword argument).
        MetadataError: If the keyword arguments do not make valid info.
    """
    unknown = sorted(set(who) - set(Who.__annotations__))
    if unknown:
        raise TypeError(
            f"unexpected keyword argument {unknown[0]!r} (who and why: "
            f"{', '.join(Who.__annotations__)})"
        )
    return info_from(
        who.get("info"),
        who.get("tool", tool),
        who.get("description") or description,
        who.get("session"),
        who.get("metadata"),
    )


def info_from(
    info: SnapshotInfo | None,
    tool: str,
    description: str,
    session: str | None,
    metadata: dict[str, Any] | None,
) -> SnapshotInfo:
    """The info of one call: ``info`` when given, else one made from the keyword arguments.

    Args:
        info: What the caller passed as ``info=`` (it replaces the other four).
        tool: The ``tool=`` keyword argument.
        description: The ``description=`` keyword argument.
        session: The ``session=`` keyword argument.
        metadata: The ``metadata=`` keyword argument.

    Returns:
        The validated info.

    Raises:
        MetadataError: If the keyword arguments do not make valid info.
    """
    if info is not None:
        return info
    from snapline.snapshots.info import SnapshotInfo  # the public model, for a library call

    fields: dict[str, Any] = {
        "tool": tool,
        "description": description,
        "session": session,
        "metadata": metadata,
    }
    checked = checked_fields(fields)
    if all(type(key) is str for key in checked["metadata"]):
        # Every field is what pydantic would check it to be (text, and a fresh dict with
        # text keys): the same model, without building a validator for one call.
        return SnapshotInfo.model_construct(**checked)
    return SnapshotInfo(**fields)  # pydantic names what is wrong with the keys
