"""The one base of snapline's public value objects."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["FrozenModel"]


class FrozenModel(BaseModel):
    """An immutable record with an explicit, stable JSON shape (``model_dump(mode="json")``).

    Unknown fields are refused, so a typo in a field name is an error rather than a
    silently dropped value.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
