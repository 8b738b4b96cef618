"""What the warm server loads once, so that no worker loads it again.

A worker is a fork of the server: whatever the server imported or built before it
listens, every worker has for free; whatever a command loads on first use, each worker
loads again, for every command.
"""

from __future__ import annotations

import importlib

__all__ = ["PRELOAD", "preload"]

PRELOAD = (
    "snapline.cli.warm.worker",
    "snapline.cli.app",
    "snapline.cli.dispatch",
    "snapline.cli.fast",
    "snapline.cli.checking",
    "snapline.cli.hook",
    "snapline.cli.render",
    "snapline.cli.preview",
    "snapline.hosts.claude_code",
    "snapline.workspace.rows",
    "snapline.snapshots.snapshot",
    "snapline.snapshots.read.headers",
    # A history on git's refs, what `init` makes in a git work tree: the store, its
    # catch-up and libgit2 (pygit2), which every command there loaded again, 70 to 90 ms
    # of CPU a worker (measured: a warm rollback, row R5), and the rollback's resume line.
    "pygit2",
    "snapline.opening_refs",
    "snapline.store.refs.store",
    "snapline.store.refs.catchup",
    "snapline.store.refs.opening",
    "snapline.store.refs.read_only",
    "snapline.snapshots.restore.rollback",
    "snapline.snapshots.record.journal",
    "snapline.hosts.claude_sessions",
    "snapline.snapshots.read.convert",
    "snapline.store.refs.sides",
    "concurrent.futures.thread",  # the pool of overlap.py, started by a worker, never here
    # verify's check of the ledger files.
    "snapline.store.ledger.check",
    "snapline.store.ledger.forgotten",
    "snapline.validation",
    "rich.console",
    # Codecs load on first use: the store's token and ledger files are read as ASCII.
    "encodings.ascii",
    "encodings.latin_1",
)
"""What the server imports before it serves: what the commands people run use."""


def preload() -> None:
    """Import :data:`PRELOAD` and the public API, build its models and the command line."""
    for name in PRELOAD:
        importlib.import_module(name)
    import snapline
    from snapline.cli.app import prepare

    for name in snapline.__all__:
        value = getattr(snapline, name)
        if isinstance(value, type) and hasattr(value, "model_rebuild"):
            # The models build their validators on first use (defer_build), and the
            # first one loads pydantic's plugins (importlib.metadata): 50 ms a worker.
            value.model_rebuild(force=True)
    prepare()
