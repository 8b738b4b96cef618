"""What ``blame`` answers: per line of a file, the snapshot that wrote it and who that was.

Plain frozen records with explicit JSON shapes (docs/cli.md, "blame"), so that a
command line answering many files loads no pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = ["BlameLine", "FileBlame", "LineKind", "Origin"]


class LineKind(str, Enum):
    """Who wrote a line."""

    AGENT = "agent"  # a snapshot recorded by a tool (an agent's edit, a rollback...)
    PERSON = "person"  # an outside change recorded as such (tool ``external``: resync)
    BASELINE = "baseline"  # snapshot 0: the line predates snapline
    UNRECORDED = "unrecorded"  # changed on disk and not recorded yet


@dataclass(frozen=True, slots=True)
class Origin:
    """The snapshot that wrote a line (``number`` ``None``: not recorded yet).

    Attributes:
        kind: Who wrote it.
        number: The snapshot's number.
        id: The snapshot's id.
        tool: The tool that recorded it.
        session: The agent session or person that recorded it, if known.
        prompt: The prompt number it answered (Claude Code's hook stamps it), if any.
        milestone: The milestone that holds it, if it is closed in one.
        time: When it was recorded (ISO 8601, UTC).
    """

    kind: LineKind
    number: int | None = None
    id: str | None = None
    tool: str | None = None
    session: str | None = None
    prompt: int | None = None
    milestone: int | None = None
    time: str | None = None

    @property
    def author(self) -> str:
        """Who wrote it, in short: ``baseline``, ``person``, ``unrecorded``, else the session.

        An agent's snapshot without a session is named by its tool.
        """
        if self.kind != LineKind.AGENT:
            return str(self.kind.value)
        return str(self.session or self.tool)

    def to_json(self) -> dict[str, Any]:
        """This origin as a JSON object (docs/cli.md)."""
        return {
            "snapshot": self.number,
            "id": self.id,
            "kind": self.kind.value,
            "tool": self.tool,
            "session": self.session,
            "prompt": self.prompt,
            "milestone": self.milestone,
            "time": self.time,
        }


UNRECORDED = Origin(LineKind.UNRECORDED)


@dataclass(frozen=True, slots=True)
class BlameLine:
    """One line of the file on disk and the snapshot that wrote it.

    Attributes:
        number: The line's number, from 1.
        text: Its bytes, line end included.
        origin: Who wrote it.
    """

    number: int
    text: bytes
    origin: Origin

    def shown(self) -> str:
        """Its text without the line end, undecodable bytes replaced."""
        return self.text.rstrip(b"\n").removesuffix(b"\r").decode("utf-8", "replace")

    def to_json(self) -> dict[str, Any]:
        """This line as a JSON object: its number and text, and its origin's fields."""
        return {"line": self.number, "text": self.shown(), **self.origin.to_json()}


@dataclass(frozen=True, slots=True)
class FileBlame:
    """A file as it is on disk, line by line, with who wrote each line.

    Attributes:
        path: The file, relative to the root.
        lines: Every line (or those of the range asked for), in order.
        latest: The snapshot whose recorded version the disk was compared with.
    """

    path: str
    lines: tuple[BlameLine, ...]
    latest: int | None

    def to_json(self) -> dict[str, Any]:
        """The answer of ``blame --json``."""
        return {
            "path": self.path,
            "latest": self.latest,
            "lines": [line.to_json() for line in self.lines],
        }
