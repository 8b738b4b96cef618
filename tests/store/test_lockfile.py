"""The lock file: exclusive across processes and threads, re-entrant per thread."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import filelock
import pytest

from snapline.store.lockfile import FileLock, LockTimeout


def _try_in_thread(lock: FileLock) -> bool:
    taken: list[bool] = []

    def attempt() -> None:
        try:
            with lock.acquire(timeout=0):
                taken.append(True)
        except LockTimeout:
            taken.append(False)

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join()
    return taken[0]


def test_reentry_is_counted_per_thread_and_other_threads_wait(tmp_path: Path) -> None:
    lock = FileLock(str(tmp_path / "store" / "lock"), timeout=5)
    with lock.acquire():
        assert (tmp_path / "store" / "lock").is_file()  # created with its directory
        with lock.acquire(timeout=0):
            assert lock.lock_counter == 2
        assert lock.lock_counter == 1 and lock.is_locked
        assert not _try_in_thread(lock)
    assert lock.lock_counter == 0 and not lock.is_locked
    assert _try_in_thread(lock)
    assert (tmp_path / "store" / "lock").is_file()  # left in place


def test_two_locks_on_one_file_exclude_each_other_in_one_thread(tmp_path: Path) -> None:
    first, second = FileLock(str(tmp_path / "lock"), 5), FileLock(str(tmp_path / "lock"), 0)
    with first:
        with pytest.raises(LockTimeout) as caught:
            second.acquire()
        assert caught.value.lock_file == str(tmp_path / "lock")
    with second:
        assert second.is_locked


def test_it_excludes_the_filelock_package_both_ways(tmp_path: Path) -> None:
    path = str(tmp_path / "lock")
    with filelock.FileLock(path), pytest.raises(LockTimeout):
        FileLock(path, 0).acquire()
    with FileLock(path, 5), pytest.raises(filelock.Timeout):
        filelock.FileLock(path, timeout=0).acquire()


def test_a_holding_process_excludes_until_it_dies(tmp_path: Path) -> None:
    path = str(tmp_path / "lock")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from snapline.store.lockfile import FileLock; "
            f"lock = FileLock({path!r}, 5); lock.acquire(); print('held', flush=True); "
            "sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(LockTimeout):
            FileLock(path, 0.1).acquire()
    finally:
        holder.kill()
        holder.communicate()
    with FileLock(path, 5):  # released by the operating system
        pass


def test_a_directory_in_its_place_is_an_os_error(tmp_path: Path) -> None:
    (tmp_path / "lock").mkdir()
    with pytest.raises(IsADirectoryError):
        FileLock(str(tmp_path / "lock"), 0).acquire()
