"""Models of rows this process made are built without validating: the same models."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from snapline import Snapshot, SnapshotInfo, Workspace
from snapline.snapshots.info import info_from


def _same(made: Any, validated: Any) -> None:
    # Equal, and indistinguishable when printed or dumped: the time's tzinfo included.
    assert made == validated
    assert repr(made) == repr(validated)
    assert made.model_dump(mode="json") == validated.model_dump(mode="json")
    assert made.model_dump() == validated.model_dump()
    assert made.model_fields_set == validated.model_fields_set


def test_a_recorded_snapshot_is_the_model_validation_builds(ws: Workspace, root: Path) -> None:
    (root / "src" / "app.py").write_text("print('bye')\n")
    (root / "new.bin").write_bytes(b"\x00\x01" * 40)
    os.mkfifo(root / "pipe")  # skipped: not a file
    (root / "README.md").unlink()
    made = ws.record(tool="edit", description="three", session="s", metadata={"k": [1]})
    assert made is not None and made.skipped and len(made.files) == 3
    validated = Snapshot.model_validate(made.model_dump())
    _same(made, validated)
    # and read back from the store, validated from its rows
    read = ws.snapshot(made.number)
    assert read.model_dump(mode="json") == made.model_dump(mode="json")
    assert repr(read) == repr(made)


def test_a_written_snapshot_is_the_model_validation_builds(ws: Workspace) -> None:
    made = ws.write_file("src/app.py", b"x = 1\n")
    _same(made, Snapshot.model_validate(made.model_dump()))


def test_info_from_keywords_is_the_model_validation_builds() -> None:
    arguments: dict[str, Any] = {
        "tool": "edit",
        "description": "bad \udcff name",
        "session": None,
        "metadata": {"a": {"b": [1, 2]}},
    }
    _same(info_from(None, **arguments), SnapshotInfo(**arguments))
    arguments["metadata"] = None
    _same(info_from(None, **arguments), SnapshotInfo(**arguments))


def test_info_from_refuses_what_validation_refuses() -> None:
    with pytest.raises(ValidationError):
        info_from(None, "edit", "", None, {1: "not a text key"})  # type: ignore[dict-item]
    with pytest.raises(ValidationError):
        SnapshotInfo(tool="edit", metadata={1: "not a text key"})  # type: ignore[dict-item]
