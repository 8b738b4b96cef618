"""The client behind benchmark row 13 drives a real ``snapline mcp`` server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from benchmarks.mcp import _Client
from snapline import Workspace


def test_the_row_client_writes_through_a_running_server(root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    Workspace.init(root).close()
    command = str(Path(sys.executable).with_name("snapline"))
    client = _Client(command, ["--root", str(root), "mcp"], dict(os.environ))
    try:
        for index in range(3):
            result = client.call("write_file", {"path": "a.txt", "content": f"{index}\n"})
            reply = json.loads(result.content[0].text)
            assert reply["snapshot"]["number"] == index + 1
    finally:
        client.close()
    assert (root / "a.txt").read_text() == "2\n"
    with Workspace.open(root) as ws:
        assert ws.latest == 3 and ws.verify().ok
