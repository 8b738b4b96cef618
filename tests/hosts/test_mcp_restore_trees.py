"""The MCP restore tools cross changes of type exactly, with git as the oracle (issue 25).

``snapline mcp`` in a real subprocess, driven by the SDK's own client as
``test_mcp_server.py`` drives it: ``rollback`` (a dry run, then ``apply``), ``undo``,
``redo`` and ``revert``, each asked for its dry run first, between a state with
directory trees and one where a flat directory is emptied, a nested tree removed, a
directory replaced by a file and by a symlink, a file by a directory and by a symlink, a
symlink by a directory, and a file renamed by case only — and back. Git must see the
committed tree after each. On 615ec5a the first ``rollback`` with ``apply`` failed
("No such file or directory"), as did ``undo`` and ``revert``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from tests.hosts.test_mcp_server import Client, serve
from tests.snapshots.gitoracle import AFTER, BEFORE, Oracle, is_exact, materialise

_CHANGES = ("restored", "deleted", "recreated", "moved")


def _same_changes(promised: dict[str, Any], done: dict[str, Any]) -> None:
    assert promised["dry_run"] is True and promised["conflicts"] == [], promised
    assert done["snapshot"] is not None, done
    assert {k: done.get(k) for k in _CHANGES} == {k: promised.get(k) for k in _CHANGES}


@pytest.mark.parametrize("forward", [True, False], ids=["forward", "backward"])
def test_the_restore_tools_cross_every_change_of_type(
    root: Path, tmp_path: Path, forward: bool
) -> None:
    before, after = (BEFORE, AFTER) if forward else (AFTER, BEFORE)
    Workspace.init(root).close()  # an empty baseline: ``before`` is snapshot 1
    oracle = Oracle(root, tmp_path / "oracle.git")
    with Workspace.open(root) as ws:
        materialise(root, before)
        ws.record(description="before")
        then = oracle.commit("before")
        materialise(root, after)
        ws.record(description="after")
        now = oracle.commit("after")

    def exact(tree: str) -> None:
        problem = is_exact(oracle, tree)
        assert problem is None, problem

    async def script(client: Client) -> None:
        # rollback: a dry run unless apply is true
        _same_changes(
            await client.call("rollback", to=1), await client.call("rollback", to=1, apply=True)
        )
        exact(then)
        _same_changes(
            await client.call("rollback", to=2), await client.call("rollback", to=2, apply=True)
        )
        exact(now)
        for tool, arguments, tree in (
            ("undo", {}, then),
            ("redo", {}, now),
            ("revert", {"snapshot": "latest"}, then),
            ("revert", {"snapshot": "latest"}, now),
        ):
            promised = await client.call(tool, dry_run=True, **arguments)
            _same_changes(promised, await client.call(tool, **arguments))
            exact(tree)
        assert (await client.call("verify"))["ok"] is True

    serve(root, script)
