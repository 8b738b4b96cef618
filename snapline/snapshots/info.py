"""What a caller says about a snapshot: tool, description, session and metadata.

One value object travels from the public API down to the row that is committed, so the
four fields are validated once, in one place.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, model_validator

from snapline.errors import SnaplineError
from snapline.values import FrozenModel

__all__ = ["EXTERNAL_TOOL", "MetadataError", "SnapshotInfo", "info_from", "storable_text"]

EXTERNAL_TOOL = "external"
"""The tool name of a snapshot that adopts changes made outside snapline."""

_METADATA_LIMIT = 16 * 1024


class MetadataError(SnaplineError):
    """Snapshot metadata or tool name that is not small, JSON-serialisable data."""

    exit_code = 2


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


class SnapshotInfo(FrozenModel):
    """Who recorded a snapshot and why: accepted by every recording call as ``info=``.

    Attributes:
        tool: The tool that made the change (for example ``"edit"`` or ``"shell"``).
        description: Free text.
        session: The agent session or person recording, to tell writers apart.
        metadata: Small JSON data (under 16 KiB encoded).

    Raises:
        MetadataError: On construction, if the tool name is empty or the metadata is
            not small JSON.
    """

    tool: str
    description: str = ""
    session: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _checked(cls, data: Any) -> Any:
        # Runs before pydantic's own checks, so a bad value is a MetadataError with
        # snapline's message (exit code 2), not a pydantic ValidationError.
        if not isinstance(data, dict):
            return data
        return _checked_fields(data)

    def with_metadata(self, **extra: Any) -> SnapshotInfo:
        """This info with ``extra`` added to its metadata.

        Args:
            **extra: Keys to add or replace.

        Returns:
            A new :class:`SnapshotInfo`.
        """
        return SnapshotInfo(
            tool=self.tool,
            description=self.description,
            session=self.session,
            metadata={**self.metadata, **extra},
        )


def _checked_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The four fields of ``data`` checked and made storable, as the model receives them.

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
    fields: dict[str, Any] = {
        "tool": tool,
        "description": description,
        "session": session,
        "metadata": metadata,
    }
    checked = _checked_fields(fields)
    if all(type(key) is str for key in checked["metadata"]):
        # Every field is what pydantic would check it to be (text, and a fresh dict with
        # text keys): the same model, without building a validator for one call.
        return SnapshotInfo.model_construct(**checked)
    return SnapshotInfo(**fields)  # pydantic names what is wrong with the keys
