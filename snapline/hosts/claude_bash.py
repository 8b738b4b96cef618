"""Claude Code's Bash tool: asked about before it runs over an outside change, recorded after.

A shell command's effects are known only after it ran, so everything it changed is
recorded as one snapshot, keeping the exact command (in the description when it is one
short line, always in ``metadata["command"]``). When files were changed outside snapline
before it (a person's autosave), refusing every command — ``ls``, ``pytest`` — until
someone runs ``resync`` stops the agent for nothing; so the ``PreToolUse`` hook answers
``ask``, naming the files, and the person decides. If they allow it, the outside change
must not be recorded as the command's doing: ``PreToolUse`` notes each drifted file's
content hash (in ``.snapline/claude-code-pending.json``, keyed by ``tool_use_id``), and
``PostToolUse`` first records, as their own snapshot (tool ``external``), the files the
command left as they were, then the command's effects. A file changed both outside and
by the command cannot be told apart: it goes with the command, named in
``metadata["outside_changes"]``. On git's refs, files that are another line's recorded
work that git merged in (``unmerged``) are neither: merged before the command (a
person's ``git pull``), they are left for ``snapline merge``; merged by the command
itself (the agent's ``git merge``), the command's other changes are recorded, then that
line is joined by a merge snapshot as ``snapline merge`` joins it. Files that commits
git fetched brought before their history (``snapshots/check/unfetched.py``) are asked
about apart, naming ``snapline fetch``: every record refuses them until then, so the
``PostToolUse`` after such a command warns and records nothing. Before either, a file
tool's change the hook could not record is recorded as that tool's
(:mod:`snapline.hosts.claude_unrecorded`); one still waiting (a busy store) is the
agent's own, not asked about.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapline.hosts.claude_code import (
    DRIFT_KINDS,
    HookOutcome,
    Verdict,
    cwd_of,
    event_metadata,
    named,
    open_workspace,
    pulled_message,
    session_of,
    unmerged_message,
)
from snapline.state_dir import read_state_file, state_dir

if TYPE_CHECKING:
    from snapline.snapshots.info_fields import PlainInfo
    from snapline.workspace import Workspace

__all__ = ["MAX_COMMAND", "PENDING_FILE", "bash", "describe_command"]

PENDING_FILE = "claude-code-pending.json"
"""In ``.snapline/``: the outside changes a Bash call was asked about, by ``tool_use_id``."""

MAX_COMMAND = 8 * 1024
"""Characters of a command kept in metadata (longer ones: this much and their digest)."""

_MAX_DESCRIPTION = 200
# What a Bash call is asked about and compared after: drift, and another line's merged work.
_UNMERGED = "unmerged"  # snapshots/check/merged.py's kind, not imported by every hook
_PENDING_KINDS = (*DRIFT_KINDS, _UNMERGED)
_MAX_PENDING = 32


def bash(event: Mapping[str, Any], *, pre: bool, timeout: float) -> HookOutcome:
    """The ``PreToolUse`` or ``PostToolUse`` hook of one Bash call.

    Args:
        event: The hook event.
        pre: Before the command (``PreToolUse``) rather than after.
        timeout: Seconds to wait for another process holding the store.

    Returns:
        Before: ``ask`` with the drifted files, or allow. After: the snapshot recorded.
    """
    from snapline.hosts.claude_unrecorded import settle
    from snapline.workspace.rows import sync_state

    tool_use = event.get("tool_use_id") if isinstance(event.get("tool_use_id"), str) else ""
    with open_workspace(cwd_of(event), timeout) as ws:
        if ws is None:
            return HookOutcome()
        store = state_dir(ws.root)  # local: .snapline/, or .git/snapline/
        # The changes a file tool left unrecorded first, as that tool's: not the command's.
        kept = settle(ws).kept
        if pre:
            problems, _, came = sync_state(ws, None)
            # A tool's change still waiting to be recorded (a busy store) is no outside
            # change: the person is not asked about it, and it is not filed as external.
            drifted = [
                p
                for p in problems
                if p.kind in _PENDING_KINDS
                and not (p.path in kept and p.actual == kept[p.path].digest)
            ]
            if not drifted:
                return HookOutcome()
            _remember(store, str(tool_use), {str(p.path): p.actual for p in drifted})
            unmerged = [p for p in drifted if p.kind == _UNMERGED]
            fetch_first = () if came is None else came.paths
            pulled = [p for p in drifted if p.kind != _UNMERGED and p.path in fetch_first]
            outside = [p for p in drifted if p.kind != _UNMERGED and p.path not in fetch_first]
            said = []
            if unmerged:
                # Another line's work git merged (refs): `snapline merge`, never resync.
                said.append(unmerged_message(unmerged))
            if came is not None and pulled:
                # Pulled before its history (refs): `snapline fetch`; the record after
                # the command would refuse it (mismatch.refuse_unfetched).
                said.append(pulled_message(pulled, came))
            if outside and _records_itself(event):
                # The agent doing what a failed PostToolUse told it (claude_output):
                # recording a command's changes as its own. The person judges that claim.
                said.append(
                    f"snapline: changed outside snapline since the last snapshot: "
                    f"{named(outside)}. This command records files as the agent's own "
                    "(`snapline record`), as snapline tells it to when it could not record "
                    "what one of its commands changed: allow it only if that change is the "
                    "agent's; else deny, and run `snapline resync` (keep the change) or "
                    "`snapline rollback` (drop it)"
                )
            elif outside:
                said.append(
                    f"snapline: changed outside snapline since the last snapshot: "
                    f"{named(outside)}. If you allow this command, snapline records that "
                    "change first as its own snapshot (tool external), then the command's "
                    "effects apart from it; or deny, and run `snapline resync` (keep the "
                    "change) or `snapline rollback` (drop it)"
                )
            return HookOutcome(Verdict.ASK, "\n".join(said))
        return _record(ws, event, _take(store, str(tool_use)))


def _records_itself(event: Mapping[str, Any]) -> bool:
    """Whether the Bash call is ``snapline record ...`` (a path to it, root options first).

    Read as snapline reads its own command line: a root option's value
    (``--root DIR``) is not the command.
    """
    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if not isinstance(command, str):
        return False
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words or os.path.basename(words[0]) != "snapline":
        return False
    from snapline.cli.commands import command_of

    return command_of(words[1:])[0] == "record"


def describe_command(command: str) -> str:
    """The description of a Bash snapshot: the command itself when it is one short line.

    Nothing inside the line is changed (two spaces stay two spaces); a longer or
    multi-line command is cut at its first line break or at 200 characters, with ``…``.
    """
    line = command.strip("\n").split("\n", 1)[0]
    if line == command and len(line) <= _MAX_DESCRIPTION:
        return command
    return line[: _MAX_DESCRIPTION - 1] + "…"


def _record(ws: Workspace, event: Mapping[str, Any], pending: dict[str, str | None]) -> HookOutcome:
    from snapline.snapshots.info_fields import EXTERNAL_TOOL, PlainInfo
    from snapline.snapshots.record.mismatch import StateMismatchError
    from snapline.workspace.rows import record_rows, sync_problems

    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    command = command if isinstance(command, str) else ""
    session = session_of(event)
    extra = _command_metadata(command, tool_input)
    mixed: list[str] = []
    scope: list[str] | None = None  # the whole workspace
    asked = set(pending)  # drifted before the command, merged work included
    if pending:
        problems = sync_problems(ws, sorted(pending))
        now = {str(p.path): p.actual for p in problems if p.kind in _PENDING_KINDS}
        if any(p.kind == _UNMERGED for p in problems):
            # Another line's recorded work that git merged in, left as it was: neither an
            # outside change nor the command's, but that line's, for `snapline merge`.
            held = {str(p.path) for p in problems if p.kind == _UNMERGED}
            now = {path: digest for path, digest in now.items() if path not in held}
            pending = {path: digest for path, digest in pending.items() if path not in held}
            scope = sorted(
                {str(p.path) for p in sync_problems(ws, None) if p.path and p.kind != _UNMERGED}
            )
        untouched = sorted(path for path, digest in pending.items() if now.get(path, 0) == digest)
        mixed = sorted(path for path in pending if path in now and path not in untouched)
        if untouched:
            before = PlainInfo.checked(
                EXTERNAL_TOOL,
                f"outside changes, before Bash: {describe_command(command)}",
                session,
                event_metadata(event, ws.root, allowed_by="the person, asked before the command"),
            )
            record_rows(ws, untouched, before)
    if mixed:
        extra["outside_changes"] = mixed
    metadata = event_metadata(event, ws.root, **extra)
    info = PlainInfo.checked("Bash", describe_command(command), session, metadata)
    if scope == []:
        return HookOutcome()  # the command changed nothing; the merged work waits
    try:
        return HookOutcome(snapshot=record_rows(ws, scope, info).number)
    except StateMismatchError as refused:
        if not refused.unmerged:
            raise
        # The command itself merged (`git merge`, `git pull`): its other changes are
        # the command's, the merged paths that other line's, joined as `merge` would.
        return _merged_by_the_command(ws, info, asked, refused.unmerged)


def _merged_by_the_command(
    ws: Workspace, info: PlainInfo, asked: Collection[str], unmerged: Sequence[str]
) -> HookOutcome:
    """Record what the command changed beside another line's merged work, then join it.

    The command's own changes (a conflict's markers among them) go into its Bash
    snapshot first, so that none is filed as the other line's; then the merged paths
    are joined by a merge snapshot, as ``snapline merge`` joins them, keeping the
    command (its description, session and metadata). Joined while git's merge still
    waits for its commit, an aborted merge is the next call's change, recorded as any
    other: nothing is lost. Merged work that was there before the command (a
    person's ``git pull``, asked about before it) is the person's to join.

    Returns:
        The merge snapshot, else the command's.
    """
    from snapline.workspace.rows import record_rows, sync_problems

    problems = sync_problems(ws, None)
    held = set(unmerged) | {str(p.path) for p in problems if p.kind == _UNMERGED}
    rest = sorted({str(p.path) for p in problems if p.path and str(p.path) not in held})
    number = record_rows(ws, rest, info).number if rest else None
    if held & set(asked):
        return HookOutcome(snapshot=number)
    metadata = {key: value for key, value in info.metadata.items() if key != "outside_changes"}
    merged = ws.merge(description=info.description, session=info.session, metadata=metadata)
    return HookOutcome(snapshot=number if merged is None else merged.number)


def _command_metadata(command: str, tool_input: object) -> dict[str, Any]:
    extra: dict[str, Any] = {"command": command[:MAX_COMMAND]}
    if len(command) > MAX_COMMAND:
        extra["command_truncated"] = True
        digest = hashlib.sha256(command.encode("utf-8", "surrogatepass")).hexdigest()
        extra["command_sha256"] = f"sha256:{digest}"
    said = tool_input.get("description") if isinstance(tool_input, Mapping) else None
    if isinstance(said, str) and said:
        extra["command_description"] = said[:_MAX_DESCRIPTION]
    return extra


def _remember(store: Path, tool_use: str, drifted: dict[str, str | None]) -> None:
    from snapline import atomic

    pending = read_state_file(store / PENDING_FILE)
    pending.pop(tool_use, None)
    pending[tool_use] = drifted
    # Bounded: an allowed call whose PostToolUse never came (interrupted) is dropped in time.
    kept = dict(list(pending.items())[-_MAX_PENDING:])
    atomic.write_file(store / PENDING_FILE, json.dumps(kept).encode("utf-8"), 0o100644)


def _take(store: Path, tool_use: str) -> dict[str, str | None]:
    pending = read_state_file(store / PENDING_FILE)
    taken = pending.pop(tool_use, None)
    if taken is None:
        return {}
    from snapline import atomic

    atomic.write_file(store / PENDING_FILE, json.dumps(pending).encode("utf-8"), 0o100644)
    if not isinstance(taken, dict):
        return {}
    return {
        str(path): digest
        for path, digest in taken.items()
        if digest is None or isinstance(digest, str)
    }
