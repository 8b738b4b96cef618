"""The content settings of a history on git's refs, kept beside its main line.

The settings chosen at ``init`` (``--large-file-limit``, and the diff limit, chain length
and diff deadline: what the in-tree ledger keeps in ``config.json``) shape how every
snapshot keeps its content, so they belong to the history, not to one checkout's index.
``init`` writes them once, as ``refs/snapline/settings/<main line id>``: a commit whose
tree holds ``config.json``, in the ledger's text (sorted keys, two-space indent, final
newline). The ref travels with the others (``refs/snapline/*``); an index built from the
refs (a fresh clone after a fetch, a deleted or damaged cache) reads them. A history
written before they were kept there has no such ref, and keeps the defaults.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.opening import config_text
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.layout import REFS, commit_time, line_ref
from snapline.store.refs.values import Entry

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = [
    "CONFIG_NAME",
    "SETTINGS",
    "adopt_settings",
    "keep_settings",
    "read_settings",
    "settings_ref",
    "write_settings",
]

SETTINGS = REFS + "settings/"
CONFIG_NAME = "config.json"
"""The name of the settings' blob in the settings commit's tree."""
_LIMIT = 1 << 16  # a handful of numbers: anything larger is not ours


def settings_ref(line: str) -> str:
    """The ref of the settings of the history whose main line has id ``line``.

    Raises:
        ValueError: If ``line`` is not a snapshot id.
    """
    return SETTINGS + line_ref(line).rpartition("/")[2]


def write_settings(repo: GitRepository, line: str, config: dict[str, Any], time: int) -> None:
    """Keep ``config`` as the settings of the history whose main line is ``line``.

    Written once, at ``init``: the ref is created, never moved.

    Raises:
        RefConflictError: If the history has settings already.
    """
    blob = repo.write_blob(config_text(config))
    tree = repo.tree({CONFIG_NAME: Entry(blob, 0o100644)})
    commit = repo.write_commit(tree, [], "snapline settings\n", time)
    repo.set_ref(settings_ref(line), commit, None, "snapline settings")


def read_settings(repo: GitRepository, line: str) -> dict[str, Any] | None:
    """The settings of the history whose main line is ``line``; ``None`` when it has none.

    Raises:
        StoreCorruptError: If the settings ref does not hold a JSON object (damaged or
            crafted: a history fetched from elsewhere is data).
    """
    ref = settings_ref(line)
    commit = repo.ref(ref)
    if commit is None:
        return None
    try:
        data = repo.read_path(repo.read_commit(commit).tree, CONFIG_NAME)
        value = json.loads(data) if data is not None and len(data) <= _LIMIT else None
    except (MissingObjectError, ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise StoreCorruptError(ref, f"its {CONFIG_NAME} is not a JSON object of settings")
    return value


def keep_settings(store: RefsStore, config: dict[str, Any]) -> None:
    """Write ``config`` as the settings of ``store``'s history, once its baseline is on a line.

    Raises:
        RefConflictError: If the history has settings already.
    """
    baseline = store.index.snapshots.get(0)
    if baseline is not None:
        write_settings(store.repo, baseline.id, config, commit_time(baseline))


def adopt_settings(store: RefsStore) -> None:
    """Give an index just built from the refs its history's settings, when it has them.

    Raises:
        StoreCorruptError: If the settings ref is damaged.
    """
    line = store.main_line()
    found = None if line is None else read_settings(store.repo, line)
    if found is None:
        return  # a history from before the settings were kept: the defaults
    connection = store.index.connection
    with connection.write():
        connection.db.execute(
            "UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(found),)
        )
