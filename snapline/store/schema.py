"""The SQLite schema of ``.snapline/store.db`` and its format version.

Indexes are kept to what the hot paths need: every index costs bytes on every snapshot
(measured: the unique index on ``id`` 45 B, indexes on tool and session 29 B of about
650 B a snapshot). Nothing looks a snapshot up by id, and filtering the header table by
tool or session is a scan of small rows. ``validate()`` checks that ids are unique.

Format 2 is the local index beside the ledger (``ledger_files``: the ledger files it
holds; ``side_snapshots``: snapshots of lines other than the main one; ``forgotten``:
versions whose content was forgotten; ``verified``: the stamps of the ledger files
the last full ``verify`` found sound, with its head in ``meta``). Format 1 is the whole
store of 0.1, which is upgraded on first open. See docs/format.md. A reader refuses a store whose
``format_version`` is newer than :data:`FORMAT_VERSION`; every snapshot and milestone row
also carries its own version.
"""

from __future__ import annotations

__all__ = ["FORMAT_VERSION", "SCHEMA"]

FORMAT_VERSION = 2

SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE snapshots (
    number      INTEGER PRIMARY KEY,
    id          TEXT NOT NULL,
    parent_id   TEXT,
    time        TEXT NOT NULL,
    tool        TEXT NOT NULL,
    description TEXT NOT NULL,
    session     TEXT,
    metadata    TEXT NOT NULL,
    skipped     TEXT NOT NULL,
    version     INTEGER NOT NULL,
    chain_hash  TEXT NOT NULL,
    merges      TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE changes (
    snapshot    INTEGER NOT NULL REFERENCES snapshots(number),
    path        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    old_path    TEXT,
    base_hash   TEXT,
    result_hash TEXT,
    base_mode   INTEGER,
    result_mode INTEGER,
    size        INTEGER,
    storage     TEXT NOT NULL,
    forward     BLOB,
    reverse     BLOB,
    content     TEXT,
    chain       INTEGER NOT NULL,
    chain_bytes INTEGER NOT NULL,
    PRIMARY KEY (snapshot, path)
) WITHOUT ROWID;
CREATE INDEX changes_by_path ON changes(path, snapshot);
CREATE INDEX changes_by_old_path ON changes(old_path, snapshot) WHERE old_path IS NOT NULL;

CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
);

CREATE TABLE state (
    path     TEXT PRIMARY KEY,
    hash     TEXT NOT NULL,
    mode     INTEGER NOT NULL,
    size     INTEGER NOT NULL,
    snapshot INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE stat_cache (
    path       TEXT PRIMARY KEY,
    size       INTEGER NOT NULL,
    mtime_ns   INTEGER NOT NULL,
    ino        INTEGER NOT NULL,
    ctime_ns   INTEGER NOT NULL,
    mode       INTEGER NOT NULL,
    hash       TEXT NOT NULL,
    checked_ns INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE milestones (
    number      INTEGER PRIMARY KEY,
    title       TEXT NOT NULL,
    description TEXT NOT NULL,
    tags        TEXT NOT NULL,
    time        TEXT NOT NULL,
    first       INTEGER NOT NULL,
    last        INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    chain_hash  TEXT NOT NULL
);

CREATE TABLE ledger_files (
    name TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TABLE side_snapshots (
    id          TEXT PRIMARY KEY,
    number      INTEGER NOT NULL,
    parent_id   TEXT,
    time        TEXT NOT NULL,
    tool        TEXT NOT NULL,
    description TEXT NOT NULL,
    session     TEXT,
    merged_into INTEGER
) WITHOUT ROWID;

CREATE TABLE forgotten (
    path     TEXT NOT NULL,
    hash     TEXT NOT NULL,
    snapshot INTEGER NOT NULL,
    time     TEXT NOT NULL,
    reason   TEXT NOT NULL,
    PRIMARY KEY (path, hash)
) WITHOUT ROWID;

CREATE TABLE verified (
    name     TEXT PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    ino      INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE journal (
    id      INTEGER PRIMARY KEY,
    op      TEXT NOT NULL,
    created TEXT NOT NULL,
    payload TEXT NOT NULL
);
"""
