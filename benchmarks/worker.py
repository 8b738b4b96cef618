"""The library side of a measurement: one process driving one snapline ``Workspace``.

Library figures are taken in their own process so that memory is attributable and a
long-lived ``Workspace`` behaves as it does inside an agent (its caches stay warm). The
harness talks to it in JSON lines (``python -m benchmarks.worker``), or runs a list of
requests in a fresh process (``--once '[{...}, ...]'``) when the process's birth is part
of what is measured.

Every timed operation reports its wall ``seconds``, the resident set before it
(``idle_rss``), the peak during it (``peak_rss``, after resetting the kernel's
high-water mark, so the peak belongs to this operation alone) and the process's peak
so far (``process_peak``); with ``"profile": true`` a cProfile summary of the call, and
with ``"trace": true`` where Python memory was allocated at the peak.
"""

from __future__ import annotations

import contextlib
import cProfile
import inspect
import json
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.timing import profile_summary
from benchmarks.workspace_gen import history_versions, one_line_edit

if TYPE_CHECKING:
    from snapline import Workspace

__all__ = ["WorkerClient", "main", "memory_status", "store_size"]

Reply = dict[str, Any]


def memory_status() -> tuple[int, int]:
    """This process's current and peak resident set, in bytes (``VmRSS``, ``VmHWM``)."""
    values = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) * 1024
    return values["VmRSS"], values["VmHWM"]


def store_size(root: Path) -> int:
    """Bytes of the local index ``.snapline/index.db`` after folding its WAL back in.

    ``PRAGMA wal_checkpoint(TRUNCATE)`` copies every committed page into the database
    file and empties the WAL, so the file size is what the history occupies.
    """
    db = root / ".snapline" / "index.db"
    connection = sqlite3.connect(db)
    try:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise RuntimeError(f"could not checkpoint {db}: a reader or writer is active")
    finally:
        connection.close()
    wal = db.with_name(db.name + "-wal")
    return db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


class _Session:
    """The open workspace and the current text of the files this worker edits."""

    def __init__(self) -> None:
        # Imported here, not at the top, so the harness can use WorkerClient without
        # loading snapline into its own process.
        from snapline import Workspace

        self._workspace_class = Workspace
        self.ws: Workspace | None = None
        self.texts: dict[str, str] = {}

    @property
    def workspace(self) -> Workspace:
        if self.ws is None:
            raise RuntimeError("no workspace is open: send 'open' or 'init' first")
        return self.ws

    def text(self, path: str) -> str:
        if path not in self.texts:
            self.texts[path] = (self.workspace.root / path).read_text(encoding="utf-8")
        return self.texts[path]

    def handle(self, request: dict[str, Any]) -> Reply:
        op = request["op"]
        profile = bool(request.get("profile"))
        trace = bool(request.get("trace"))
        if op == "init":
            limit = request.get("large_file_limit")

            # The default layout (issue 37): at the top of a git work tree the history
            # goes onto its refs, elsewhere onto a private repository, `.snapline/repo`.
            def init() -> Workspace:
                return self._workspace_class.init(request["root"], large_file_limit=limit)

            reply = _timed(init, profile, trace)
            self.ws = reply.pop("result")
            reply["latest"] = self.workspace.latest
            return reply
        if op == "open":
            reply = _timed(lambda: self._workspace_class.open(request["root"]), profile)
            self.ws = reply.pop("result")
            reply["latest"] = self.workspace.latest
            return reply
        if op == "write_edit":
            path = request["path"]
            new = one_line_edit(self.text(path), request["index"])
            data = new.encode("utf-8")
            reply = _timed(lambda: self.workspace.write_file(path, data), profile)
            self.texts[path] = new
            return _snapshot_reply(reply)
        if op == "disk_edit_record":
            path = request["path"]
            new = one_line_edit(self.text(path), request["index"])
            (self.workspace.root / path).write_text(new, encoding="utf-8")
            self.texts[path] = new
            return _snapshot_reply(_timed(lambda: self.workspace.record([path]), profile))
        if op == "record":
            paths = request.get("paths")
            return _snapshot_reply(_timed(lambda: self.workspace.record(paths), profile, trace))
        if op == "check_sync":
            reply = _timed(self.workspace.check_sync, profile)
            report = reply.pop("result")
            reply["ok"] = report.ok
            reply["problems"] = [p.message for p in report.problems[:5]]
            return reply
        if op == "history":
            return self._history(request["paths"], request["count"])
        if op == "page_history":
            return self._page_history(
                request["paths"], request["count"], request["milestone_every"]
            )
        if op == "report":
            reply = _timed(lambda: self.workspace.report(request["path"]), profile)
            reply["bytes"] = len(reply.pop("result").encode("utf-8"))
            return reply
        if op == "rollback":
            return _snapshot_reply(
                _timed(lambda: _rollback(self.workspace, request["to"]), profile)
            )
        if op == "latest":
            return {"latest": self.workspace.latest}
        if op == "store_size":
            return {"bytes": store_size(self.workspace.root)}
        if op == "gc":
            self.workspace.gc()
            return {"bytes": store_size(self.workspace.root)}
        if op == "close":
            self.workspace.close()
            self.ws = None
            return {}
        raise ValueError(f"unknown op {op!r}")

    def _history(self, paths: list[str], count: int) -> Reply:
        ws = self.workspace
        start = time.perf_counter()
        for path, data in history_versions(ws.root, paths, count):
            ws.write_file(path, data)
        self.texts.clear()
        return {"seconds": time.perf_counter() - start, "latest": ws.latest}

    def _page_history(self, paths: list[str], count: int, every: int) -> Reply:
        """One-line edits by three sessions and tools, closed into a milestone every ``every``."""
        ws = self.workspace
        start = time.perf_counter()
        tools = ("edit", "write", "shell")
        versions = history_versions(ws.root, paths, count)
        for index, (path, data) in enumerate(versions, start=1):
            ws.write_file(
                path,
                data,
                tool=tools[index % 3],
                session=f"agent-{index * 3 // (count + 1)}",
                description=f"edit {index} of {path}",
            )
            if index % every == 0:
                ws.milestones.create(f"step {index // every}", tags=["bench"])
        self.texts.clear()
        return {"seconds": time.perf_counter() - start, "latest": ws.latest}


def _rollback(ws: Workspace, number: int) -> Any:
    rollback = getattr(ws, "rollback", None)
    if rollback is None:
        raise NotImplementedError("Workspace.rollback does not exist yet")
    if "to" in inspect.signature(rollback).parameters:
        return rollback(to=number)
    return rollback(number)


def _timed(call: Callable[[], Any], profile: bool, trace: bool = False) -> Reply:
    idle, before = memory_status()
    reset = _reset_peak()
    profiler = cProfile.Profile() if profile else None
    watcher = _PeakWatcher() if trace else None
    start = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    try:
        result = call()
    finally:
        if profiler is not None:
            profiler.disable()
    seconds = time.perf_counter() - start
    _, peak = memory_status()
    reply: Reply = {
        "seconds": seconds,
        "idle_rss": idle,
        "peak_rss": peak if reset else None,
        # The whole process's peak so far: imports and earlier work included.
        "process_peak": max(before, peak),
        "result": result,
    }
    if profiler is not None:
        reply["profile"] = profile_summary(profiler)
    if watcher is not None:
        reply["allocations"] = watcher.stop()
    return reply


class _PeakWatcher:
    """Traces Python allocations and snapshots them whenever the traced total peaks.

    tracemalloc only remembers the peak's size, not who held it; polling from a thread
    and keeping the snapshot taken nearest the peak tells where the memory was.
    """

    def __init__(self, interval: float = 0.02) -> None:
        tracemalloc.start(6)
        self._interval = interval
        self._best = 0
        self._snapshot: tracemalloc.Snapshot | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(self._interval):
            current, _ = tracemalloc.get_traced_memory()
            if current > self._best * 1.1 + (1 << 20):
                self._best = current
                self._snapshot = tracemalloc.take_snapshot()

    def stop(self) -> dict[str, Any]:
        self._done.set()
        self._thread.join()
        _, peak = tracemalloc.get_traced_memory()
        snapshot = self._snapshot or tracemalloc.take_snapshot()
        tracemalloc.stop()
        return {
            "traced_peak": peak,
            "snapshot_total": sum(stat.size for stat in snapshot.statistics("filename")),
            "top": [
                {
                    "size": stat.size,
                    "count": stat.count,
                    "where": " <- ".join(
                        f"{_short_path(frame.filename)}:{frame.lineno}"
                        for frame in reversed(stat.traceback[-4:])
                    ),
                }
                for stat in snapshot.statistics("traceback")[:8]
            ],
        }


def _short_path(filename: str) -> str:
    for marker in ("/snapline/", "/benchmarks/", "/site-packages/", "/lib/python3"):
        if marker in filename:
            return filename[filename.index(marker) + 1 :]
    return filename


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux ≥ 4.0); ``False`` when the kernel refuses."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


def _snapshot_reply(reply: Reply) -> Reply:
    snapshot = reply.pop("result")
    if hasattr(snapshot, "target") and hasattr(snapshot, "snapshot"):
        # A RollbackResult: what it changed, and the snapshot it recorded.
        reply["changed"] = len(getattr(snapshot, "changed", ()))
        snapshot = snapshot.snapshot
    if snapshot is None:
        reply["number"] = None
        reply["storage"] = []
        return reply
    files = getattr(snapshot, "files", ())
    reply["number"] = getattr(snapshot, "number", None)
    reply["storage"] = [str(getattr(f.storage, "value", f.storage)) for f in files]
    reply["files"] = len(files)
    return reply


def _serve(session: _Session, request: dict[str, Any]) -> Reply:
    try:
        return session.handle(request)
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}


def main(argv: list[str] | None = None) -> None:
    """Serve JSON-line requests on stdin, or run ``--once '[...]'`` and print the replies."""
    args = sys.argv[1:] if argv is None else argv
    session = _Session()
    if args and args[0] == "--once":
        replies = [_serve(session, request) for request in json.loads(args[1])]
        sys.stdout.write(json.dumps(replies) + "\n")
        return
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(_serve(session, json.loads(line))) + "\n")
            sys.stdout.flush()


class WorkerClient:
    """The harness's end of a long-lived worker process."""

    def __init__(self, python: str, env: dict[str, str], cwd: Path) -> None:
        self._process = subprocess.Popen(
            [python, "-m", "benchmarks.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=cwd,
            text=True,
        )

    def call(self, op: str, **arguments: Any) -> Reply:
        """Send one request and wait for its reply.

        Raises:
            RuntimeError: If the worker reports an error or has died.
        """
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps({"op": op, **arguments}) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the worker died during {op!r} (exit {self._process.wait()})")
        reply: Reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"worker {op!r}: {reply['error']}\n{reply.get('traceback', '')}")
        return reply

    def close(self) -> None:
        """Close the workspace and end the process."""
        if self._process.poll() is None:
            with contextlib.suppress(RuntimeError, BrokenPipeError):
                self.call("close")
            assert self._process.stdin is not None
            self._process.stdin.close()
            self._process.wait(timeout=60)
        if self._process.stdout is not None:
            self._process.stdout.close()

    def __enter__(self) -> WorkerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    main()
