"""What a caller says about a snapshot: tool, description, session and metadata.

One value object travels from the public API down to the row that is committed, so the
four fields are validated once, in one place (``info_fields.checked_fields``, which the
command line's ``PlainInfo`` goes through too).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from snapline.snapshots.info_fields import (
    EXTERNAL_TOOL,
    MetadataError,
    checked_fields,
    info_from,
    storable_text,
)
from snapline.values import FrozenModel

__all__ = ["EXTERNAL_TOOL", "MetadataError", "SnapshotInfo", "info_from", "storable_text"]


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
        return checked_fields(data)

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
