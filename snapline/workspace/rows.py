"""Recording and checking without the public models, for the processes of every edit.

``snapline record`` and the Claude Code hook run after (and before) every edit an agent
makes; building their answers as pydantic models (:class:`~snapline.Snapshot`,
:class:`~snapline.Report`) would cost each process the import of pydantic, about a
fifth of its time. They read the rows committed instead, and build models only to say
what is wrong or for ``--json``. Internal: the public API is ``Workspace.record`` and
``Workspace.check_sync``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from snapline.paths import UnsafeRecordError
from snapline.workspace.base import PathArg, WorkspaceBase

if TYPE_CHECKING:
    from snapline.snapshots.check.unfetched import Pulled
    from snapline.snapshots.info_fields import InfoFields
    from snapline.snapshots.read.headers import SnapshotHeader
    from snapline.snapshots.record.monitored import Changes
    from snapline.snapshots.record.recorded import Recorded
    from snapline.snapshots.snapshot import Explained, Problem, Snapshot
    from snapline.workspace.reading import Reading
    from snapline.workspace.recording import Recording

__all__ = [
    "baseline_id",
    "baseline_totals",
    "latest_header",
    "log_headers",
    "record_rows",
    "stamped_snapshots",
    "sync_problems",
    "sync_state",
    "verify_problems",
]


def record_rows(
    ws: Recording, paths: Iterable[PathArg] | PathArg | None, info: InfoFields
) -> Recorded:
    """:meth:`Recording.record <snapline.Workspace.record>`, returning the committed rows.

    Args:
        ws: The open workspace.
        paths: As ``Workspace.record`` takes them.
        info: The checked info.

    Returns:
        The rows committed (``recorded.snapshot()`` builds the model) and the notes.

    Raises:
        UnknownPathError: If a path given is neither on disk nor tracked.
        StateMismatchError: If a path to record is another line's recorded work that
            git merged in (on git's refs): its way in is ``snapline merge``.
    """
    rels = ws._scope(paths)
    with ws._recorder.writing():
        ws._refuse_unknown(rels)
        return ws._recorder.record(rels, info, refuse_merged=True)


def sync_problems(
    ws: WorkspaceBase,
    paths: Iterable[PathArg] | PathArg | None,
    changes: Changes | None = None,
) -> list[Problem]:
    """``ws.check_sync(paths).problems``, with models built only when there are problems.

    Args:
        ws: The open workspace.
        paths: As ``Workspace.check_sync`` takes them.
        changes: A file-system monitor's view (the warm server's): a check of the whole
            workspace then looks only at what may have changed since its last one
            (``snapshots/record/monitored.py``), with the same answer.

    Returns:
        The problems; on git's refs, drift that another line recorded and git merged
        into the files is ``unmerged`` (``snapshots/check/merged.py``); in a clone whose
        checkout is an older snapshot of its line, what differs from that snapshot
        (``snapshots/check/explained.py``).

    Raises:
        UnsafePathError: If a path is outside the root or inside ``.snapline/``.
    """
    return sync_state(ws, paths, changes)[0]


def sync_state(
    ws: WorkspaceBase,
    paths: Iterable[PathArg] | PathArg | None,
    changes: Changes | None = None,
) -> tuple[list[Problem], Explained | None, Pulled | None]:
    """:func:`sync_problems`, and what the files were held to when not the latest snapshot.

    Returns:
        The problems; the snapshot a clone's checkout behind its line is (the state
        ``status`` and ``verify`` compared the files with), or ``None`` for the latest;
        and the drifted paths that commits git fetched brought before their history
        (``snapshots/check/unfetched.py``: their advice is ``snapline fetch``), or
        ``None``.
    """
    from snapline.snapshots.record.detect import sync_problems as problems_of

    scope = ws._scope(paths)
    if changes is not None and paths is None:
        from snapline.snapshots.record.monitored import compare_watched

        found = problems_of(compare_watched(ws._recorder, changes))
    else:
        detection = ws._recorder.compare(scope)
        if paths is None and (detection.drifts or detection.skipped):
            from snapline.snapshots.record.monitored import note_walk

            # A drift a warm check's token would hide (what its monitor could not see).
            note_walk(ws.root, detection)
        found = problems_of(detection)
    if not found:
        return found, None, None  # the clean path asks nothing more
    from snapline.snapshots.check.explained import DRIFT_KINDS, held_to_checkout
    from snapline.snapshots.check.merged import mark_merged
    from snapline.snapshots.check.unfetched import mark_pulled, pulled

    found, explained = held_to_checkout(ws.root, ws._store, found, scope)
    # Drift that git merged from another line on the refs: for `snapline merge`.
    found = mark_merged(ws.root, ws._store, found)
    # Drift that pulled commits brought before their history: for `snapline fetch`.
    drifted = [p.path for p in found if p.kind in DRIFT_KINDS and p.path]
    came = pulled(ws.root, ws._store, drifted)
    return _upgrade_first(ws, mark_pulled(found, came)), explained, came


def _upgrade_first(ws: WorkspaceBase, problems: list[Problem]) -> list[Problem]:
    """``problems`` with their advice worded for a history that refuses writes, if it does."""
    refusal = ws._recorder.refusal
    if refusal is None or not problems:
        return problems
    from snapline.snapshots.check.upgrade_first import upgrade_first_problems

    return upgrade_first_problems(problems, refusal)


def verify_problems(
    ws: Reading, *, full: bool, deep: bool, changes: Changes | None = None
) -> tuple[list[Problem], int | None, Explained | None]:
    """:meth:`Reading.verify <snapline.Workspace.verify>`'s problems, where it started, and why ok.

    ``snapline verify`` runs in CI and in hooks, and mostly finds nothing: models are
    built only for the problems found.

    Args:
        ws: The open workspace.
        full: Check the whole history.
        deep: Also rebuild every recorded version.
        changes: A file-system monitor's view, as :func:`sync_problems` takes it.

    Returns:
        The problems of the history, then of the workspace; ``since``, the
        checkpoint's snapshot when only what came after it was checked, else ``None``;
        and, for a checkout that reads a history on refs whose files are not the latest
        snapshot's state, what explained them (``snapshots/check/explained.py``).
    """
    from snapline.validation import check_history

    checked = check_history(ws._store, full=full, deep=deep)
    try:
        sync, explained, came = sync_state(ws, None, changes)
    except UnsafeRecordError as error:
        # The disk cannot be compared with a known state that names a path outside
        # the root; say so once, next to what validation found.
        if any(p.kind == "unsafe-path" and p.path == error.path for p in checked.problems):
            return checked.problems, checked.since, None
        from snapline.snapshots.found import make_problem

        unsafe = make_problem(
            kind="unsafe-path", path=error.path, severity="corrupt", message=str(error)
        )
        return [*checked.problems, unsafe], checked.since, None
    if sync and explained is None:
        from snapline.snapshots.check.explained import explain_checkout

        # A checkout of a commit git merged (CI): its files against every line's states.
        sync, explained = explain_checkout(ws.root, ws._store, sync, came)
    return _upgrade_first(ws, checked.problems + sync), checked.since, explained


def log_headers(
    ws: Reading,
    *,
    file: PathArg | None,
    tool: str | None,
    session: str | None,
    limit: int | None,
    newest_first: bool,
) -> list[SnapshotHeader]:
    """What ``snapline log`` lists: :meth:`Reading.snapshots`'s selection, as headers.

    Returns:
        Each snapshot's header and how many files it changed, building no model.
    """
    from snapline.snapshots.read.headers import headers_of

    store = ws._store
    with store.read():
        rows = store.snapshots.select(
            path=None if file is None else ws._relpath(file),
            tool=tool,
            session=session,
            descending=newest_first,
            limit=limit,
        )
        return headers_of(store, rows)


def latest_header(ws: Reading) -> SnapshotHeader:
    """What the text of ``snapline status`` shows of the latest snapshot: its header only.

    Its changes are neither read nor counted (``files`` is -1): a baseline has one per
    file of the workspace.
    """
    from snapline.snapshots.read.headers import header_of

    store = ws._store
    with store.read():
        rows = store.snapshots.select(descending=True, limit=1)
        return header_of(store, rows[0])


def baseline_totals(ws: Reading) -> tuple[int, int, list[tuple[str, str]]]:
    """What ``snapline init`` reports of snapshot 0, building no model of it.

    Returns:
        How many files it holds, the sum of their sizes, and each path it left out with
        the reason, as recorded. Loading the baseline as a :class:`~snapline.Snapshot`
        held a model per file: most of init's peak memory at 100,000 files (issue 30).
    """
    import json

    store = ws._store
    with store.read():
        row = store.snapshots.get(0)
        files, size = store.changes.totals(0)
    skipped = [] if row is None else [(str(p), str(r)) for p, r in json.loads(row.skipped)]
    return files, size, skipped


def baseline_id(ws: Reading) -> str:
    """The id of snapshot 0, which names the first line (``refs/snapline/lines/<id>``)."""
    store = ws._store
    with store.read():
        row = store.snapshots.get(0)
    return "" if row is None else row.id


def stamped_snapshots(ws: Reading, first: int, last: int, via: str) -> list[Snapshot]:
    """The snapshots ``first`` to ``last`` that a host stamped ``metadata["via"] == via``.

    What :meth:`Reading.snapshots` lists from ``first`` to ``last``, only those, with
    their files: the headers are filtered before any model is built (a rollback across
    a thousand snapshots built a thousand, most of its command's time, row R5).

    Args:
        ws: The open workspace.
        first: The lowest number.
        last: The highest number.
        via: The host's stamp (``claude-code``).
    """
    import json

    from snapline.snapshots.read.convert import to_snapshot

    def stamped(metadata: str) -> bool:
        # The stamp's text is in the JSON of every stamped row: most rows are not parsed.
        if via not in metadata:
            return False
        parsed = json.loads(metadata)
        return isinstance(parsed, dict) and parsed.get("via") == via

    store = ws._store
    with store.read():
        rows = [
            row for row in store.snapshots.select(first=first, last=last) if stamped(row.metadata)
        ]
        return [
            to_snapshot(row, store.changes.of(row.number, deltas=False), store.path) for row in rows
        ]
