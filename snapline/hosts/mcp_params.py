"""What the MCP tools tell a model about themselves: parameter descriptions and hints.

Each parameter type carries its description into the tool's JSON schema (``Annotated``
with a pydantic ``Field``), so a model reads what a value means and where a path may
point. The annotations follow the MCP specification's tool hints: ``readOnlyHint``
(changes nothing), ``destructiveHint`` (may replace or remove what is there, rather
than only add), ``idempotentHint`` (the same call again changes nothing more) and
``openWorldHint`` (false everywhere but ``guard``, which runs a command: the others act
on this workspace only). Every change
is recorded, so even a destructive one can be rolled back; the hint still tells a
client which calls deserve a person's confirmation.
"""

from __future__ import annotations

from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from snapline.hosts.mcp_files import DEFAULT_LIST_LIMIT, DEFAULT_READ_BYTES

__all__ = [
    "ADD",
    "APPEND",
    "CHANGE",
    "GUARD",
    "LIST_LIMIT",
    "OVERWRITE",
    "READ",
    "READ_BYTES",
    "Apply",
    "AtSnapshot",
    "Content",
    "Deep",
    "Description",
    "Destination",
    "DryRun",
    "File",
    "FilePath",
    "Force",
    "From",
    "Full",
    "GuardCommand",
    "GuardRollback",
    "Limit",
    "LogLimit",
    "MaxBytes",
    "MilestoneDescription",
    "NewText",
    "OldText",
    "Overwrite",
    "Ref",
    "Scope",
    "Session",
    "SessionFilter",
    "Source",
    "Tags",
    "Target",
    "Title",
    "Under",
    "UpTo",
]


def _hints(*, read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


READ = _hints(read_only=True, destructive=False, idempotent=True)
"""Reads the history or the disk; changes nothing."""
ADD = _hints(read_only=False, destructive=False, idempotent=True)
"""Adds a snapshot of what is on disk; the same call again finds nothing new."""
APPEND = _hints(read_only=False, destructive=False, idempotent=False)
"""Adds to the history each time (a milestone)."""
OVERWRITE = _hints(read_only=False, destructive=True, idempotent=True)
"""Replaces or removes a file; the same call again changes nothing more."""
CHANGE = _hints(read_only=False, destructive=True, idempotent=False)
"""Changes files, and the same call again may change them again."""
GUARD = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
)
"""``guard``: runs a command the model names (which may reach beyond the workspace), adds
its outcome to the history each time, and may roll files back."""

READ_BYTES = DEFAULT_READ_BYTES
LIST_LIMIT = DEFAULT_LIST_LIMIT

_SNAPSHOT = (
    "a number, 'latest', 'latest~N' (N snapshots before the latest), "
    "'before-prompt:N@SESSION' (the state before prompt N of an agent session), or "
    "'id:PREFIX' (4 or more hex digits of a snapshot's id: also a snapshot of a branch "
    "merged in git, which `log` lists under side_snapshots)"
)
_INSIDE = "relative to the workspace root (or absolute inside it); never inside .git/ or .snapline/"

FilePath = Annotated[str, Field(description=f"The file, {_INSIDE}.")]
Source = Annotated[str, Field(description="The tracked file to move, relative to the root.")]
Destination = Annotated[str, Field(description=f"Where the file goes, {_INSIDE}.")]
Scope = Annotated[
    list[str] | None,
    Field(description="Files or directories to limit this to, relative to the root; omit for all."),
]
Under = Annotated[
    str, Field(description="A directory to list, relative to the root; empty for the whole root.")
]
Content = Annotated[str, Field(description="The file's whole new content (written as UTF-8).")]
OldText = Annotated[
    str,
    Field(
        description="The exact text to replace, copied from the file; it must occur exactly "
        "once (include surrounding lines to make it unique)."
    ),
]
NewText = Annotated[str, Field(description="The text that replaces old_text.")]
Overwrite = Annotated[
    bool, Field(description="Replace a file already at the destination (it stays in the history).")
]
Description = Annotated[
    str, Field(description="Why, in a few words; kept with the snapshot and shown by log.")
]
Session = Annotated[
    str | None,
    Field(description="Your agent session's id; snapshots carry it so log can tell yours apart."),
]
SessionFilter = Annotated[
    str | None, Field(description="Only snapshots recorded with this session id.")
]
File = Annotated[str | None, Field(description="Only snapshots that changed this file.")]
LogLimit = Annotated[int, Field(ge=0, description="How many snapshots to return, newest first.")]
Limit = Annotated[
    int, Field(ge=0, description="At most this many files (`truncated` says when there are more).")
]
MaxBytes = Annotated[
    int, Field(ge=0, description="At most this many bytes (`truncated` says when cut).")
]
Ref = Annotated[int | str, Field(description=f"The snapshot: {_SNAPSHOT}.")]
AtSnapshot = Annotated[
    int | str | None,
    Field(
        description=f"Read the version recorded after this snapshot ({_SNAPSHOT}), not the disk."
    ),
]
From = Annotated[int | str, Field(description=f"The older snapshot: {_SNAPSHOT}.")]
To = Annotated[int | str, Field(description=f"The newer snapshot: {_SNAPSHOT}.")]
Target = Annotated[
    int | str, Field(description=f"The snapshot whose state to restore: {_SNAPSHOT}.")
]
UpTo = Annotated[
    int | str, Field(description=f"The last snapshot the milestone closes: {_SNAPSHOT}.")
]
Apply = Annotated[
    bool, Field(description="Write the files; false (the default) only reports what would change.")
]
Force = Annotated[
    bool,
    Field(
        description="Go on over files changed outside snapline: they are recorded first, as "
        "their own snapshot, so nothing is lost."
    ),
]
DryRun = Annotated[bool, Field(description="Only report what would change; write nothing.")]
Title = Annotated[str, Field(description="The milestone's title: one line, such as 'parser done'.")]
MilestoneDescription = Annotated[str, Field(description="What the milestone achieved.")]
Tags = Annotated[list[str] | None, Field(description="Labels for the milestone.")]
Full = Annotated[
    bool, Field(description="Reread the whole history, not only what is new since the last check.")
]
Deep = Annotated[
    bool, Field(description="Also rebuild every recorded version and check its hash (slower).")
]
GuardCommand = Annotated[
    list[str],
    Field(
        min_length=1,
        description="The check to run at the workspace root, one string per argument (no "
        "shell), e.g. ['python', '-m', 'pytest', '-q']; it passes when it exits 0.",
    ),
]
GuardRollback = Annotated[
    bool,
    Field(
        description="If the check fails, roll the files back to the last snapshot that "
        "passed (recorded as a snapshot; undo brings the failing change back)."
    ),
]
