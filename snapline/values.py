"""The one base of snapline's public value objects."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["FrozenModel"]


class FrozenModel(BaseModel):
    """An immutable record with an explicit, stable JSON shape (``model_dump(mode="json")``).

    Unknown fields are refused, so a typo in a field name is an error rather than a
    silently dropped value.
    """

    # defer_build: a model's validator and serializer are built on its first use, not
    # at import. A command-line process uses few models, often none validated: records
    # snapline itself made are built with ``model_construct`` (``read/convert.py``), and
    # building every model at import cost about a tenth of a `snapline record` process.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
