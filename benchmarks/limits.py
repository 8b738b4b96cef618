"""What limits each row that misses its goal, in words (docs/benchmarks.md).

A missed row's profile (cases.py takes one) shows where that run's time went; the note
here says what that time is for, and what removing it would take. The report prints
the note under *What limits it*, and lists the notes of the rows a full run missed
under its summary, which a quick run carries over. A note is written from profiles
taken on this code: when a change moves a row's time, its note changes with it.
"""

from __future__ import annotations

__all__ = ["LIMITS", "limit_of"]

LIMITS: dict[str, str] = {
    "3a": (
        "A record in a process that keeps its workspace open no longer lists the "
        "ledger's folders of records: from its second check on, an inotify watch of "
        "the folders says nothing but its own files arrived (issue 30, "
        "`store/ledger/watch.py`; where inotify is missing, every record lists, about "
        "5 ms per 10,000 names). What remains differs little between the histories: "
        "the index's B-trees are deeper, and the snapshot's fsyncs dominate both. A "
        "command-line record, a new process each time, still lists once (the folder "
        "changed under the previous record, so no kept stamp can stand for the "
        "listing: see docs/format.md); only snapshot files sharded into subfolders, a "
        "ledger format change, would remove that."
    ),
    "4": (
        "The fixed cost of a Python process, against git's whole command in C: the "
        "interpreter's start (row 5b) and about 200 modules for the store, the ledger "
        "and the recorder (`python -X importtime`: about 110 ms). The record itself is "
        "row 2b's. At 100,000 files git's own work grows with its index, and the row "
        "is met."
    ),
    "5": (
        "`--help` lists the commands from their table (`cli/commands.py`) and imports "
        "or builds none of them: what remains is importing typer and click (about "
        "50 ms) on top of the interpreter's start (row 5b). Every command, and a "
        "command's own `--help`, imports and builds only itself (the lazy group of "
        "`cli/app.py`)."
    ),
    "6a": (
        "A walk of the workspace that compares every file's `stat` with the stat cache. "
        "git makes the same `stat` calls, but snapline does its per-entry work in "
        "Python: the ignore rules of the walk, loading the cache's rows into a tree, "
        "and the comparison. At 10,000 files the ratio sits at the goal (1.7 to 2.1 "
        "across runs); at 100,000 files it is met."
    ),
    "6c": (
        "Row 6b's whole-workspace check, plus the process (interpreter start, imports, "
        "opening the store, the history since the checkpoint). At 100,000 files the "
        "check itself is the limit: under cProfile, 0.87 s walking and `stat`-ing "
        "101,000 entries and 0.47 s loading 100,000 stat-cache rows into a tree, "
        "against git's loop over its index in C with threaded `lstat` "
        "(`core.preloadIndex`). Listing directories ahead on two threads, as git does, "
        "was tried: each `lstat` is too short for the GIL to be handed over cheaply, and "
        "the check took 30% more CPU (65 to 88 ms at 10,000 files), so it was not kept. "
        "Reaching 1.5x git needs that loop out of Python."
    ),
    "6d": (
        "`verify --full` re-reads every ledger file, rebuilds every version of every "
        "file from the baseline and checks it against its recorded hash. That is the "
        "job: it is the check a fresh clone and CI rely on. `git fsck` checks objects "
        "that are named by their hash."
    ),
    "6e": (
        "A fresh clone has no index. Its first command parses every ledger file once "
        "(strictly, no render back), builds the index's rows, hashes every workspace "
        "file once into the stat cache (the baseline's content stays in the "
        "workspace, not copied), then checks the history's rows and chain hashes in "
        "Python. git's `status` with an all-stale index only hashes the files."
    ),
    "7": (
        "A rollback first checks the whole workspace for changes made outside snapline "
        "(the walk of row 6b), which is what makes it refuse rather than lose work. It "
        "then rebuilds the 100 files' versions, writes them as one fsynced batch, "
        "records the rollback as a snapshot, and renders that snapshot's ledger record "
        "(about 190 deltas as op lines). The process also loads pydantic for its "
        "result models (about 60 ms). git's `checkout REV -- .` overwrites without "
        "checking."
    ),
    "8": (
        "Each snapshot also costs bookkeeping in the index: the snapshot row (id, "
        "parent, time, chain hash, fields) and the change row (path, two 71-byte "
        "`sha256:` hashes), with their SQLite indexes. Together these weigh more than "
        "the deltas, which are about a fifth of the total (146 B per edit for both "
        "directions). git stores each version as one zlib'd object."
    ),
    "12": (
        "Two processes per edit (the PreToolUse check and the PostToolUse record). "
        "Each pays the interpreter's start and the hook's imports (the "
        "`python -X importtime` above), against git's two commands in C. At 100,000 "
        "files git's commands grow with its index, and the row is met."
    ),
    "13": (
        "An MCP call is the library's `write_file` (row 2a) plus the SDK's round trip, "
        "about 9 ms (row 13's median less row 2a's): the whole file (430 KB, 10,000 "
        "lines) goes over stdio as a JSON string, is parsed and validated by the SDK, "
        "and the call runs in a worker thread. At 10,000 files git's commit is cheap "
        "enough for that to show; at 100,000 files the row is met."
    ),
    "14a": (
        "A line that a later commit replaces is in the ledger twice: in the forward "
        "delta that wrote it, and in the reverse delta of the change that replaced it. "
        "Both directions are what a snapshot is: each reads on its own, and undoing a "
        "change reuses them swapped. Every change also carries its base and result "
        "SHA-256 "
        "in hex, which zlib barely shrinks. git holds each version once, packed as "
        "deltas of the others."
    ),
    "15": (
        "A rebuild parses every ledger file once, builds the index's rows in Python "
        "and hashes the baseline's files still in the workspace for the stat cache "
        "(their content is no longer copied into the index). `git reset` rebuilds an "
        "index of names and hashes."
    ),
    "G1": (
        "See row 3a: the watch takes the listing out of every record of an open "
        "workspace; the rest of a record does not read the history."
    ),
    "G2": (
        "What still grows with the history is the checkpoint's promise: every ledger "
        "file is `lstat`-ed (11,101 at 10,000 snapshots: most of the 70 ms the process "
        "gains between 100 snapshots, 150 ms, and 10,000, 220 ms), because an edit "
        "of an old ledger file in place changes only that file's ctime, no folder's, "
        "and the default verify "
        "promises to catch it (docs/format.md, the checkpoint). Kept on purpose: "
        "editors that save in place (VS Code), `cat >` and `echo >>` edit a file "
        "that way, and a hand-edited snapshot file is what verify exists to catch. "
        "Only a watch kept across commands (the warm server's monitor over the "
        "ledger) could stand in for the stamps exactly; not built."
    ),
    "G3": (
        "Since issue 30's second round: each ledger file parsed once (a baseline's "
        "block in one regular expression, no render back), each workspace file hashed "
        "once, no baseline content copied into the index. What remains is Python's "
        "per-row work: the index's rows built and inserted, the stat cache written, "
        "then the history checked row by row (shape, continuity, chain hash) and the "
        "file compared with the index, plus the interpreter's start; the walk it is "
        "measured against does nothing but read and hash."
    ),
    "G4a": (
        "`verify --full` reads every ledger file back (parse, in Python) and checks "
        "the index's history row by row; since issue 30's second round each "
        "snapshot's chain hash is computed once (a file holding exactly an index "
        "snapshot whose chain was recomputed is not hashed again) and the changes are "
        "streamed. What remains is the Python parse of every delta's op lines and the "
        "per-row checks, against `git fsck`'s checks of objects named by their hash, "
        "in C."
    ),
    "G5": (
        "init and the first verify are under the goal. The first verify's whole check "
        "streams the ledger's files line by line, the index's changes one snapshot at "
        "a time (a baseline's in two streamed passes), and the known state against the "
        "history's replay; what it still holds grows with the tree, not the history: "
        "the replay (one entry per tracked file) and, while the ledger is compared "
        "with the index, the parsed baseline file."
    ),
    "G6": (
        "At 10,000 files: the index is 47.5 MB, of which the baseline's content is "
        "39.8 MB (its only copy besides the workspace, in a tree that is not a git "
        "work tree, so that a rollback to snapshot 0 works after an outside edit): "
        "31.1 MiB of zlib at level 1 (chosen for init's speed; level 6 would be "
        "28.2 MiB) and about 7 MiB of SQLite pages around it. Then the changes "
        "(2.6 MB), the stat cache (1.9 MB) and the known state (1.6 MB), and the "
        "ledger's baseline record (2.6 MB). git's loose objects hold the same content "
        "zlib-compressed once (the row turns git's automatic gc off; a packed `.git` "
        "is smaller still). Content kept outside SQLite, in a file of its own, would "
        "bring the row to about 1.1; not built."
    ),
    "R4": (
        "The first command in a fresh clone builds the local index from the line "
        "(`store/refs/catchup.py`). For every snapshot it diffs the snapshot's state "
        "tree with its parent's (`GitRepository.changes`, pygit2 `diff_to_tree`: 2,104 "
        "calls, 7.9 s of the 37 s profiled at 10,000 files and 1,052 snapshots) and "
        "reads its record; it copies every whole version into the index, the "
        "baseline's 10,000 files first, each read back from git's objects (`read_blob` "
        "and the object lookups: 4.6 s) and zlib-compressed into SQLite "
        "(`content.pack`: 16,763 calls, 6.9 s). Only then does it check the work tree. "
        "git's `status` after a clone trusts the index its checkout wrote. What would "
        "remove most of it: not copying into the index content that git's object store "
        "already holds (read a version from the object store when it is needed), "
        "`pack_raw` instead of zlib where a copy is kept (as the in-tree rebuild does), "
        "and each snapshot's changed paths taken from its record instead of a tree "
        "diff; all are changes of `store/refs/`, not made here."
    ),
    "R5": (
        "The rollback itself; the server saves the process start and the imports "
        "(about a fifth of the cold profile). A rollback checks the whole work tree "
        "for outside changes first (the walk, 10,000 `stat` calls), rebuilds the 100 "
        "files' versions from the index across the history (about 2,000 SQLite "
        "fetches) with the rows checked as they are read (`store/rows.shape_problem`), "
        "writes each file under a temporary name, fsyncs and renames it, and records "
        "the rollback as a snapshot on the line (100 blobs, the trees on their paths, "
        "a commit, the ref moved with compare-and-swap) and in the index. "
        "`git checkout REV -- .` overwrites the files from its object store and "
        "checks nothing."
    ),
    "R6": (
        "Two things. The history push carries the baseline snapshot, the whole tree "
        "at `init`, although the remote already holds those files through the user's "
        "branch: the line's first commit has no parent among the user's commits, and "
        "git's push leaves out only what the boundary commits of what it sends reach "
        "(pack-objects marks the trees of those commits, not of every ref the remote "
        "has). That is most of the bytes (the row's notes split them). A baseline "
        "commit whose parent is the user's commit it was taken from would be such a "
        "boundary, and its files would stay home; a format change of `store/refs/`, "
        "not made here. Then each snapshot costs about a "
        "kilobyte packed: a commit with its `Snapline-Id` trailer, a record blob "
        "(both directions' diffs, two SHA-256 a file, the chain hash), the file's "
        "version and the trees on its path as deltas. A session of small edits is the "
        "worst case for this ratio: its code work is 100 small deltas, so the history "
        "weighs against almost nothing; the goal of 1.2x holds only where the code "
        "work is large against the number of snapshots."
    ),
    "R8": (
        "git stores each version whole until a pack deltas it: the record writes F's "
        "new version (a 10,000-line file) as a loose object, compressing all of it "
        "(pygit2 `create_blob`: 28 ms of the 97 ms profiled under load), and reads F's "
        "previous version back from the object store to compute the record's deltas "
        "(`read_blob` with its lookups: 28 ms). The in-tree layout's record (row 2b) "
        "stores the delta alone and has F's base in its own index. The index "
        "transaction (SQLite, fsynced) and the record's rendering take most of the "
        "rest. Keeping the previous version from the index instead of the object store "
        "would remove the read; the whole-object write is git's format."
    ),
    "R9": (
        "Imports. A record on refs no longer loads libgit2's binding: it reads and "
        "writes git's files itself (`store/refs/filedb.py`, issue 39), which took a "
        "cold record from 594M to 326M instructions (callgrind, `import sqlite3` 57M). "
        "What remains is what every cold command imports: about 92M instructions of "
        "the standard library over a bare interpreter (`typing`, `pathlib` with "
        "`urllib.parse` and `ipaddress`, `re`, `enum`, `json`, `datetime`, `hashlib`, "
        "`sqlite3`, `threading`, diff-match-patch), and some 136 modules of snapline's "
        "own, about 155M (the store, the ledger's text formats the record blob is "
        "written in, the recorder, `snapline.workspace` with all its parts for "
        "`workspace.rows`), besides the record's work (about 40M). The warm server "
        "(row W1) removes all of it; a cold process would need fewer, smaller modules "
        "on its path (the row types as plain classes, the workspace's parts loaded "
        "per command)."
    ),
    "5b": (
        "The console script imports the warm server's client (`snapline.cli.warm.client`, "
        "with `signal` and `_socket`) before it answers, to hand any command to a "
        "running server; `--version` could be answered before that import."
    ),
}
LIMITS["R10"] = LIMITS["R9"]
LIMITS["3b"] = LIMITS["3a"]
LIMITS["G4b"] = LIMITS["G4a"]
LIMITS["6b"] = LIMITS["6a"]


def limit_of(number: str) -> str | None:
    """What limits row ``number``, or ``None`` when no note is written for it."""
    return LIMITS.get(number)
