"""One ``Workspace`` used from many threads at once, and from asyncio through threads.

Agent hosts (MCP servers, agent frameworks) run tools in thread pools: every call must
work from any thread, writers must get consecutive numbers, readers must see whole
snapshots, and a thread mistake must never be reported as a corrupt store.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from snapline import Snapshot, StoreCorruptError, StoreUsageError, Workspace
from snapline.store.errors import translate

THREADS = 8
WRITES = 8


def _hammer(ws: Workspace) -> tuple[list[int], list[BaseException]]:
    """Eight threads writing at once (four to their own file, four to one shared file)
    while two threads read; the numbers acknowledged and every exception raised."""
    numbers: list[int] = []
    errors: list[BaseException] = []
    done = threading.Event()
    start = threading.Barrier(THREADS + 2)

    def writer(index: int) -> None:
        path = f"own/{index}.txt" if index < THREADS // 2 else "shared.txt"
        start.wait()
        try:
            for i in range(WRITES):
                snapshot = ws.write_file(path, f"writer {index} write {i}\n", tool=f"t{index}")
                assert snapshot is not None
                numbers.append(snapshot.number)
        except BaseException as error:  # every failure is the finding
            errors.append(error)

    def reader() -> None:
        start.wait()
        try:
            while not done.is_set():
                for listed in ws.snapshots(newest_first=True, limit=3):
                    if listed.number == 0:
                        continue
                    whole = ws.snapshot(listed.number)
                    # A snapshot is never seen half recorded: it has its one file.
                    assert len(whole.files) == 1, whole
                    assert whole.id == listed.id
                assert ws.content_at("README.md") == b"# demo\n"
        except BaseException as error:
            errors.append(error)

    writers = [threading.Thread(target=writer, args=(i,)) for i in range(THREADS)]
    readers = [threading.Thread(target=reader) for _ in range(2)]
    for thread in writers + readers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    for thread in readers:
        thread.join()
    return numbers, errors


def test_eight_threads_get_consecutive_numbers_and_whole_snapshots(ws: Workspace) -> None:
    numbers, errors = _hammer(ws)

    assert errors == []
    assert sorted(numbers) == list(range(1, THREADS * WRITES + 1))
    assert ws.latest == THREADS * WRITES
    assert ws.verify(deep=True).ok
    shared = [s for s in ws.snapshots(file="shared.txt")]
    assert len(shared) == (THREADS // 2) * WRITES


def test_threads_of_two_workspaces_on_one_root_share_the_writer_lock(
    ws: Workspace, root: Path
) -> None:
    # A second Workspace object in the same process: its own connection and lock
    # object, the same lock file; the writers still take turns.
    with Workspace.open(root) as other:
        results: list[int] = []
        errors: list[BaseException] = []

        def write(target: Workspace, index: int) -> None:
            try:
                for i in range(WRITES):
                    snapshot = target.write_file(f"w{index}.txt", f"{i}\n")
                    assert snapshot is not None
                    results.append(snapshot.number)
            except BaseException as error:
                errors.append(error)

        threads = [
            threading.Thread(target=write, args=(ws if i % 2 else other, i)) for i in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert errors == []
    assert sorted(results) == list(range(1, 4 * WRITES + 1))
    assert ws.verify().ok


def test_asyncio_gather_through_to_thread(ws: Workspace) -> None:
    async def main() -> list[Snapshot]:
        writes = [asyncio.to_thread(ws.write_file, f"a/{i}.txt", f"{i}\n") for i in range(24)]
        reads = [asyncio.to_thread(ws.verify) for _ in range(4)]
        results = await asyncio.gather(*writes, *reads)
        return [r for r in results if isinstance(r, Snapshot)]

    snapshots = asyncio.run(main())

    assert sorted(s.number for s in snapshots) == list(range(1, 25))
    assert ws.verify(deep=True).ok


def test_a_workspace_made_in_one_thread_works_in_another(root: Path) -> None:
    (root / "f.txt").write_text("one\n")
    made: list[Workspace] = []
    thread = threading.Thread(target=lambda: made.append(Workspace.init(root)))
    thread.start()
    thread.join()

    with made[0] as ws:
        snapshot = ws.write_file("f.txt", "two\n")
        assert snapshot is not None
        assert snapshot.number == 1
        assert ws.content_at("f.txt", 0) == b"one\n"


def test_using_a_closed_workspace_is_misuse_not_corruption(root: Path) -> None:
    ws = Workspace.init(root)
    ws.close()

    with pytest.raises(StoreUsageError) as caught:
        _ = ws.latest

    assert not isinstance(caught.value, StoreCorruptError)
    assert "move it aside" not in str(caught.value)
    assert caught.value.exit_code == 2


def test_a_thread_mistake_from_sqlite_is_misuse_not_corruption() -> None:
    error = sqlite3.ProgrammingError(
        "SQLite objects created in a thread can only be used in that same thread."
    )

    translated = translate(error, "store.db", 1.0)

    assert isinstance(translated, StoreUsageError)
    assert "snapline init" not in str(translated)
