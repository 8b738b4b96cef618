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
    "15": (
        "Since issue 37 the history is on the refs of the private repository "
        "(`.snapline/repo`), not in the ledger: a rebuild reads every snapshot's record "
        "back from git's objects and builds the index's rows in Python. Not profiled "
        "again on this layout. `git reset` rebuilds an index of names and hashes."
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
        "On the history's refs (issue 37) the clone holds the code alone; one `snapline "
        "fetch` (outside the timing) brings the refs, and the first verify builds the "
        "index from them and checks the files against the baseline's state. Measured "
        "at 2,000 files on a loaded machine: 1.11 s against the walk's 228 ms (4.85). "
        "Not profiled again on this layout: the notes of the in-tree ledger's first "
        "verify (each ledger file parsed once, each workspace file hashed once, the "
        "history checked row by row in Python, plus the interpreter's start) no longer "
        "describe where its time goes."
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
        "init and the first verify are under the goal (on the refs since issue 37: 74 "
        "MiB at 2,000 files). What the first verify holds grows with the tree, not the "
        "history: the replay of the known state (one entry per tracked file) and the "
        "baseline's record."
    ),
    "G6": (
        "On the history's refs (issue 37) the baseline's blobs are the commit's own, "
        "and the local index names them: each whole version is written into git's "
        "objects as the index stores it, the index keeping only the blob's id "
        "(`store/refs/otherlines.py`, `SideBlobs`), as a clone's index does. What "
        "remains is the refs' pack (the baseline's record, its commit, the trees) and "
        "the index's rows (changes, known state, stat cache): at 10,000 files 9.2 MiB "
        "against 32.7 MiB, 0.28 (before: 45.9 MiB, 1.40, the index holding a zlib copy "
        "of every file)."
    ),
    "R4": (
        "The first command in a fresh clone builds the local index from the line "
        "(`store/refs/catchup.py`; it copies no content and reads no file git's "
        "checkout wrote from the state's blobs), then `verify` checks the whole "
        "history. CPU time of that verify by part (2026-11-29, 10,000 files, 1,000 "
        "snapshots, one process, 1.87 s in all under load 7): reading the line 0.71 s "
        "(each snapshot's commit, tree and record parsed, 0.35 s; the tree diff "
        "between consecutive states, 0.27 s), inserting it into the index 0.32 s "
        "(the baseline's 10,000 changes and blob references), the whole check of the "
        "history 0.39 s (the baseline's rows shape-checked and chain-hashed, each "
        "later snapshot's chain, the blobs present), the stat cache seeded from "
        "git's index 0.13 s, the work tree's lstat walk 0.08 s, and the process "
        "start with pygit2's import. Each is work in proportion to the history or to "
        "the files, in Python, where `git status` is C; no one of them is most of "
        "it. What would remove most of it is a design choice, not a trim: a fresh "
        "clone trusting what the catch-up just read and checked instead of checking "
        "the index again (the chain hashes computed from the parsed records), or a "
        "verified tip kept on the refs, which a clone cannot trust without a "
        "signature. Since 2026-11-29 every later `verify` in the same work tree "
        "starts from a checkpoint the first one keeps in the index "
        "(`store/refs/verified.py`): the second verify of a clone took 0.22-0.32 s of "
        "CPU against 0.61-0.74 s before (4 rounds each, alternated, 10,000 files, "
        "1,000 snapshots; 3,000 files and 300 snapshots: 0.15-0.23 s against "
        "0.36-0.45 s), the first one unchanged (1.48-2.07 s against 1.57-1.99 s). "
        "The first verify's wall time beyond its CPU time is not waiting on the disk: "
        "`/proc/PID/schedstat` of it in a fresh clone (10,000 files, 1,000 snapshots, "
        "2026-11-29) shows 0.02-0.05 s blocked in all (the index's fsyncs, about 0.06 s "
        "under strace; no sleep, lock wait or subprocess) and the rest of the gap "
        "waiting for a CPU on the loaded machine. The index built from the refs is now "
        "synced once before its rename instead of at each transaction, and the pack "
        "reader keeps the objects it rebuilt from deltas (git's delta base cache): "
        "reading the clone's 11,367 state trees applied 75,274 deltas, now 6,888. CPU "
        "of the first verify, 5 rounds alternated with 0376c24 in fresh clones, load "
        "3.9-5.2: 2.20-3.13 s (median 2.99) against 3.48-4.67 s (median 3.88). "
        "A process that has read 64 objects from packs through git's files (the cold "
        "record's own reader, `store/refs/filedb.py`) then leaves the rest to libgit2, "
        "whose pack reading is C: CPU of the first verify, 3 rounds alternated at load "
        "3.9-4.0, 1.66-1.89 s (median 1.71) against 2.04-2.61 s (median 2.22)."
    ),
    "R5": (
        "The rollback itself; the server saves the process start and the imports. "
        "Served warm, the check for outside changes reads only what the server's "
        "monitor named, but still `lstat`s every tracked file against its stat-cache "
        "entry, as git's index does (10,000 `lstat` calls and 10,000 stat-cache rows "
        "joined with the known state: about a quarter of the worker's CPU). That stat "
        "is what shows a write through a hard link from outside the tree, which no "
        "event in the tree reports (docs/guarantees.md); only a watch on every file, "
        "or stamps the server keeps between commands, would spare it. Writing the "
        "rollback's snapshot onto the refs (100 blobs, the trees along their paths, a "
        "commit, the ref moved with compare-and-swap) takes about a fifth; rebuilding "
        "and hash-checking the 100 target versions, diffing them against the replaced "
        "ones, and staging, fsyncing and renaming the 100 files most of the rest. "
        "`git checkout REV -- .` overwrites the files from its object store without "
        "fsync and checks nothing beyond its index's stats."
    ),
    "R6": (
        "What the history is, not how it travels. The baseline's commit has the user's "
        "commit as its parent, so git's push leaves the tree's files home; what goes is "
        "its record, one entry a file with the file's SHA-256 (the hash a fresh clone's "
        "`verify` checks the files against without reading every blob): about 57 bytes "
        "a file packed, 574 KiB at 10,000 files, of which the hashes alone are 32 bytes "
        "a file that no compression removes. Each of the 500 snapshots then costs about "
        "1.3 KiB packed: its commit (tree, parent, `Snapline-Id`), its record (the two "
        "SHA-256 of the file, both directions' diffs, the chain hash, the time), the "
        "file's version and the trees on its path as deltas. The hashes a snapshot must "
        "carry (the two SHA-256 the design asks for, and git's ids of its commit, trees "
        "and blob) are about 200 incompressible bytes, 98 KiB for 500 snapshots, about 3x "
        "this row's code push (31.4 KiB) before any diff or metadata: a session of "
        "many small edits is the worst case for the ratio, and 1.2x holds only where the "
        "code work is large against the number of snapshots."
    ),
    "R8": (
        "git stores each version whole until a pack deltas it: the record writes F's "
        "new version (a 10,000-line file, 442 KB) as a loose object, compressed whole "
        "(libgit2's `Odb.write` of F: 7.9 ms of the 19.7 ms a record took under "
        "cProfile at load 2; the six other objects, the record, the trees on F's path "
        "and the root tree, 2.2 ms). The diff of F and the record's rows (3.1 ms), "
        "the index transaction (SQLite) and SHA-256 of F three times (read, then the "
        "two checks before it enters a tree) take most of the rest. Since dda87c8 "
        "every object, its folder and the ref are fsynced (18 fsyncs a record, none "
        "before): about 2 ms on a quiet disk (fsync on and off alternated in one "
        "process: 23.8 and 21.7 ms), most of the record under load, where each fsync "
        "is a 4-8 ms flush of the disk's cache. Issuing the syncs together halves "
        "the record under load but costs more than it saves on a quiet machine "
        "(reverted); fewer flushes would need the objects in one file (a pack per "
        "snapshot, merged as git's geometric repack does). The whole-object write "
        "is git's format."
    ),
    "R9": (
        "Imports. A record on refs loads no libgit2 binding (`store/refs/filedb.py`, "
        "issue 39), nor the history's queries (`snapshots/read/history`, `refs`, `ids`: "
        "the workspace's methods import them when they run), nor the store's protocols "
        "(types only). Counted with callgrind (instructions, install-like venv): a "
        "cold record is about 295M, `import "
        "sqlite3` 57M, so the goal is 171M. The standard library the record loads, "
        "imported alone, is already 136M (2.4x): a bare interpreter 36M, `pathlib` "
        "with `re`, `enum`, `urllib.parse` and `ipaddress` 43M, `typing` (the named "
        "tuples and protocols of every row type) 16M, `hashlib` 11M, `sqlite3` 10M, "
        "`json`, `datetime`, `threading` about 5M each. The rest is some 130 modules of "
        "snapline's own (the store, the ledger's text formats the record blob is "
        "written in, the recorder, the workspace), the cyclic garbage collector "
        "walking what they allocate (about 13M: a record with `gc.disable()` counts "
        "287M), and the record's work (about 40M). The warm server (row W1) removes "
        "all of it; 3x would need the record's path without `pathlib` and `typing`."
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
