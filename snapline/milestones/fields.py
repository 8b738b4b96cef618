"""What a milestone row's fields hold: the format version and the tags' JSON text.

Kept apart from the models (``milestone.py``) so that checking milestones needs no
pydantic: a ``snapline verify`` that finds nothing wrong builds no model.
"""

from __future__ import annotations

import json

__all__ = ["MILESTONE_VERSION", "parse_tags"]

MILESTONE_VERSION = 1


def parse_tags(text: str) -> tuple[str, ...] | None:
    """The tags stored as JSON text, or ``None`` when they are not a list of strings."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        return None
    return tuple(value)
