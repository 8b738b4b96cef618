"""Disk waits overlapped: one small thread pool per process for fsyncs and renames.

A batch of writes spends its time waiting on the disk (an fsync, a rename that frees
synced blocks); run together, those waits overlap, as git's ``core.fsyncMethod=batch``
lets them. The pool is made on first use, so a process that writes one file (a record)
never loads ``concurrent.futures`` (which loads ``logging``) nor starts a thread.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["in_parallel"]

_T = TypeVar("_T")


def in_parallel(call: Callable[[_T], None], items: Sequence[_T]) -> None:
    """``call(item)`` for every item, several at a time when there are a few.

    Raises:
        Exception: The first exception a call raised.
    """
    if len(items) < 3:
        for item in items:
            call(item)
        return
    for _ in _pool(os.getpid()).map(call, items):
        pass


@functools.cache
def _pool(pid: int) -> ThreadPoolExecutor:
    # One per process id: a forked child has none of its parent's threads.
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(8, thread_name_prefix="snapline-io")
