"""A file tool's change the hook could not record, noted and recorded at the next tool call.

When the ``PostToolUse`` hook of Edit, Write, MultiEdit or NotebookEdit cannot record
the agent's change (the store busy past its wait, any other failure), the change is on
disk and not in the history: left so, the next check would take it for a change made
outside snapline and refuse it as not the agent's, and the agent's own work would be
filed by a person or not at all. So the hook notes it, in the local state
(``claude-code-unrecorded.json`` beside the index, never in a git work tree; written
atomically, under a lock of its own, never the store's, which may be the busy one): the
path, the SHA-256 of the content the tool left, and the tool, description, session and
metadata the record would have had. Every later ``PreToolUse`` or ``PostToolUse`` hook in
that work tree first records each noted path whose content still hashes to the noted
one, as that tool's change (:func:`settle`); a path changed since, or gone, is someone
else's doing too: its note is dropped unrecorded, and the drift is refused as any other.
While the store stays busy the notes stay, and the hook says so rather than calling
the agent's own change an outside one (:func:`pending_reason`).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, NamedTuple

from snapline.state_dir import read_state_file, state_dir

if TYPE_CHECKING:
    from snapline.snapshots.info_fields import PlainInfo
    from snapline.workspace import Workspace

__all__ = [
    "NOTES_FILE",
    "NOTES_VERSION",
    "Note",
    "Settled",
    "drop",
    "pending_reason",
    "record_command",
    "remember",
    "settle",
    "still_pending",
]

NOTES_FILE = "claude-code-unrecorded.json"
"""In the local state: the file tools' changes the hook could not record, by path."""

NOTES_VERSION = 1
"""The notes file's format; a file of another version is left alone, and taken as empty."""

_LOCK = "claude-code-unrecorded.lock"
_LOCK_WAIT = 5.0  # seconds; the lock guards one small read and write, never a record
_MAX_NOTES = 64


class Note(NamedTuple):
    """One change a file tool made that the hook could not record.

    Attributes:
        path: The file, relative to the root (POSIX).
        digest: ``sha256:…`` of the content the tool left.
        tool: The tool (``Edit``, ``Write``, ...).
        description: The snapshot's description, as the record would have had it.
        session: The agent session's id.
        metadata: The snapshot's metadata, as the record would have had it.
        reason: Why it was not recorded (the error's line).
    """

    path: str
    digest: str
    tool: str
    description: str
    session: str | None
    metadata: dict[str, Any]
    reason: str


class Settled(NamedTuple):
    """What :func:`settle` did with the notes.

    Attributes:
        kept: The notes still pending (their content unchanged), by path.
        touched: The paths whose note was dropped because their content changed or went.
        failure: Why a noted change could not be recorded at this call, if one could not.
        recorded: The snapshots recorded from notes.
    """

    kept: dict[str, Note]
    touched: tuple[str, ...] = ()
    failure: str | None = None
    recorded: tuple[int, ...] = ()


def remember(root: Path, path: str, info: PlainInfo, reason: str) -> bool:
    """Note the change a file tool left at ``path``, which could not be recorded.

    Args:
        root: The workspace root.
        path: The file, relative to ``root``.
        info: The tool, description, session and metadata its record would have had.
        reason: Why it was not recorded.

    Returns:
        Whether it is noted (not when the file is not a regular file, or the note could
        not be written: then the model is told to record it itself).
    """
    try:
        digest = _digest(root / path)
        if digest is None:
            return False
        note = Note(
            path, digest, info.tool, info.description, info.session, dict(info.metadata), reason
        )
        with _locked(root):
            notes = _read(root)
            if notes is None:
                return False  # another snapline's format: not ours to rewrite
            notes.pop(path, None)
            notes[path] = note
            _write(root, dict(list(notes.items())[-_MAX_NOTES:]))
    except Exception:
        return False  # unnoted, the model is told to record it itself
    return True


def drop(root: Path, path: str) -> None:
    """Forget the note of ``path``, if any: its change was just recorded with a later one."""
    if not os.path.exists(state_dir(root) / NOTES_FILE):
        return
    # Left, the note finds its change recorded at the next call, and goes then.
    with contextlib.suppress(OSError), _locked(root):
        notes = _read(root)
        if notes is not None and notes.pop(path, None) is not None:
            _write(root, notes)


def settle(ws: Workspace, skip: str | None = None) -> Settled:
    """Record each noted change whose content is still the one noted, as its tool's.

    Args:
        ws: The open workspace.
        skip: A path to leave as it is (the one this ``PostToolUse`` records itself).

    Returns:
        What was recorded, dropped and kept. A note whose file changed or went is
        dropped unrecorded; a record that fails (a busy store) keeps its note and the
        ones after it, and says why.
    """
    if not os.path.exists(state_dir(ws.root) / NOTES_FILE):
        return Settled({})  # the usual case: one stat, nothing loaded
    from snapline.errors import SnaplineError
    from snapline.hosts.claude_output import failure_line
    from snapline.paths import UnsafePathError
    from snapline.snapshots.info_fields import PlainInfo
    from snapline.workspace.rows import record_rows

    notes = _read(ws.root) or {}
    done: list[Note] = []
    touched: list[str] = []
    recorded: list[int] = []
    failure = None
    for path, note in notes.items():
        if path == skip:
            continue
        if _outside(path) or _digest(ws.root / path) != note.digest:
            done.append(note)
            touched.append(path)
            continue
        try:
            info = PlainInfo.checked(note.tool, note.description, note.session, note.metadata)
        except SnaplineError:
            done.append(note)  # a damaged note: nothing it says can be recorded
            continue
        try:
            number = record_rows(ws, [path], info).number
        except UnsafePathError:
            done.append(note)  # no longer a file snapline tracks
            continue
        except Exception as error:
            # A busy store stays busy for the next note too: all wait for the next call.
            failure = failure_line(error)
            break
        done.append(note)
        if number is not None:
            recorded.append(number)
    if done:
        # Left, a recorded change's note finds it in sync at the next call, and goes then.
        with contextlib.suppress(OSError):
            _forget(ws.root, done)
    gone = {note.path for note in done}
    kept = {path: note for path, note in notes.items() if path not in gone and path != skip}
    return Settled(kept, tuple(touched), failure, tuple(recorded))


def pending_reason(note: Note, session: str | None, failure: str | None, root: Path) -> str:
    """The ``PreToolUse`` refusal of a file whose change is a tool's, not recorded yet.

    Never "not yours": it is the agent's own change (or another session's), which
    snapline will record, not an outside one for the person to keep or drop.

    Args:
        note: The pending note of the file.
        session: The session of the tool call refused.
        failure: Why it could not be recorded at this call (else the note's reason).
        root: The workspace root (the command names the file by its absolute path, which
            holds from any directory the agent's shell is in).
    """
    why = failure or note.reason
    if note.session == session:
        return (
            f"snapline: not yet: your own {note.tool} of {note.path} is not recorded yet, "
            f"and snapline could not record it at this call either ({why}). It is your "
            "change: do not undo it. Record it as yours now (a Bash call): "
            f"`{record_command(root / note.path, note.tool, note.session)}`, then retry; if that "
            "fails too, tell the user what it said"
        )
    return (
        f"snapline: not yet: {note.path} holds a {note.tool} of another Claude Code "
        f"session ({note.session or 'without an id'}) that snapline could not record yet "
        f"({why}); it records it at the next tool call. It is that session's change, not "
        "an outside one: do not record or undo it yourself; retry later, and tell the "
        "user if this repeats"
    )


def still_pending(settled: Settled, session: str | None, root: Path) -> str:
    """Said to the model after its tool ran: an earlier change of its own is still unrecorded.

    Returns:
        Empty unless a noted change of ``session``'s could not be recorded at this call.
    """
    if settled.failure is None:
        return ""
    return " ".join(
        f"snapline still could not record your earlier {note.tool} of {note.path} "
        f"({settled.failure}). It is your own change: do not undo it. Record it as yours "
        f"now (a Bash call): `{record_command(root / note.path, note.tool, note.session)}`; "
        "if that fails too, tell the user what it said."
        for note in settled.kept.values()
        if note.session == session
    )


def record_command(path: Path, tool: str, session: str | None) -> str:
    """``snapline record PATH --tool T --session S``: an agent's change recorded as its own."""
    import shlex  # only when something went wrong: the hook's start-up stays lean

    command = f"snapline record {shlex.quote(str(path))} --tool {shlex.quote(tool)}"
    return command + (f" --session {shlex.quote(session)}" if session else "")


def _outside(path: str) -> bool:
    """A note's path that is not a plain relative path (a damaged or planted note)."""
    parts = PurePosixPath(path).parts
    return not parts or parts[0] == "/" or ".." in parts


def _digest(path: Path) -> str | None:
    from snapline.hashing import hash_stream

    try:
        # O_NOFOLLOW: a symlink put in the file's place is not the content the tool left.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return hash_stream(stream)[0]


class _locked:
    """The notes' own lock: never the store's, which is the one that may be busy."""

    def __init__(self, root: Path) -> None:
        from snapline.store.lockfile import FileLock

        self._lock = FileLock(str(state_dir(root) / _LOCK), _LOCK_WAIT)

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def _read(root: Path) -> dict[str, Note] | None:
    """The notes by path; ``None`` for a file of another format version."""
    data = read_state_file(state_dir(root) / NOTES_FILE)
    if not data:
        return {}
    if data.get("version") != NOTES_VERSION:
        return None
    notes: dict[str, Note] = {}
    for entry in data.get("notes", []):
        note = _note(entry)
        if note is not None:
            notes[note.path] = note
    return notes


def _note(entry: object) -> Note | None:
    if not isinstance(entry, Mapping):
        return None
    path, digest, tool, description, session, metadata, reason = (
        entry.get(name) for name in Note._fields
    )
    if not (isinstance(path, str) and isinstance(digest, str) and isinstance(tool, str)):
        return None
    if not (path and digest and tool) or not isinstance(metadata, dict):
        return None
    if not (isinstance(description, str) and isinstance(reason, str)):
        return None
    if session is not None and not isinstance(session, str):
        return None
    return Note(path, digest, tool, description, session, metadata, reason)


def _forget(root: Path, done: list[Note]) -> None:
    with _locked(root):
        notes = _read(root)
        if notes is None:
            return
        # A note written again since (the same path, a newer change) is not this one.
        settled = {(note.path, note.digest) for note in done}
        left = {path: note for path, note in notes.items() if (path, note.digest) not in settled}
        if len(left) != len(notes):
            _write(root, left)


def _write(root: Path, notes: dict[str, Note]) -> None:
    from snapline import atomic

    target = state_dir(root) / NOTES_FILE
    if not notes:
        target.unlink(missing_ok=True)
        return
    data = {"version": NOTES_VERSION, "notes": [note._asdict() for note in notes.values()]}
    atomic.write_file(target, json.dumps(data).encode("utf-8"), 0o100644)
