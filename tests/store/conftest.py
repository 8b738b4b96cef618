"""Fixtures of the store contract suite: every test runs once per backend."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from snapline.store import Store
from tests.store.backends import BACKENDS, Backend

CONFIG = {"large_file_limit": 1024, "max_chain": 5}
"""The configuration every fresh store of the suite is created with."""

BUSY = 0.2
"""A short busy timeout, so a test of a held store does not wait for long."""


@pytest.fixture(params=BACKENDS, ids=lambda backend: backend.name)
def backend(request: pytest.FixtureRequest) -> Backend:
    """The implementation under test."""
    chosen: Backend = request.param
    return chosen


@pytest.fixture
def location(backend: Backend, tmp_path: Path) -> Path:
    """Where the store of a test lives."""
    return backend.location(tmp_path)


@pytest.fixture
def connect(backend: Backend, location: Path) -> Iterator[Callable[[], Store]]:
    """Open one more store on ``location`` (another process, as far as the store knows)."""
    opened: list[Store] = []

    def _open() -> Store:
        other = backend.open(location, BUSY)
        opened.append(other)
        return other

    yield _open
    for other in opened:
        other.close()


@pytest.fixture
def store(backend: Backend, location: Path) -> Iterator[Store]:
    """A new, empty store, closed after the test."""
    created = backend.create(location, CONFIG, BUSY)
    yield created
    created.close()
