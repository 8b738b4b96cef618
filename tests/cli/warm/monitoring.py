"""What the monitor's tests share: a check served warm, the same check walked whole."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, local


def token(root: Path) -> dict[str, Any]:
    """The workspace's monitor token (``.snapline/monitor.json``)."""
    data: dict[str, Any] = json.loads((root / ".snapline" / "monitor.json").read_text())
    return data


def drift(done: Any) -> list[tuple[str, str | None, str | None, str | None]]:
    """The drift of a ``status --json`` run, as comparable tuples."""
    assert done.returncode == 0, done.stderr
    return [
        (p["kind"], p["path"], p.get("expected"), p.get("actual"))
        for p in json.loads(done.stdout)["drift"]
    ]


def warm_status(root: Path, server: Warm) -> list[tuple[str, str | None, str | None, str | None]]:
    """``status --json`` served by ``server`` (its count says it was)."""
    before = server.served()
    done = run_script("status", "--json", cwd=root)
    assert server.served() == before + 1
    return drift(done)


def walked_status(root: Path) -> list[tuple[str, str | None, str | None, str | None]]:
    """``status --json`` without a server: the whole walk, the oracle."""
    return drift(local("status", "--json", cwd=root))


Drift = list[tuple[str, str | None, str | None, str | None]]


def same_as_walk(root: Path, server: Warm) -> tuple[Drift, bool]:
    """Check warm, then walked: ``status`` and ``verify`` say the same.

    Returns:
        The warm drift, and whether the warm ``status`` (the first check here) walked
        the whole tree (its token says).
    """
    warm = warm_status(root, server)
    walked = bool(token(root)["walked"])
    assert warm == walked_status(root)
    # Verify's history checkpoint first, so that both runs below start from it.
    local("verify", cwd=root)
    served, alone = run_script("verify", cwd=root), local("verify", cwd=root)
    assert (served.returncode, served.stdout, served.stderr) == (
        alone.returncode,
        alone.stdout,
        alone.stderr,
    )
    return warm, walked


@contextlib.contextmanager
def stopped(pid: int) -> Iterator[None]:
    """The server's process stopped (SIGSTOP): its queues fill and nothing drains them."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)
