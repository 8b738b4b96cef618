"""A clone's checkout behind its line's tip is held to its own snapshot, path by path.

tests/history_refs/test_fresh_clone.py checks CI's clone checked out at the commit before
the tip (snapshot 0's files): clean, a racy entry, a deletion and a new file. Here the
paths snapshots/check/explained.py's ``held_to_checkout`` takes from the latest state
rather than the disk's drift: a file that a later snapshot changed, put back by hand to
that later version, matches the latest snapshot (so it is no drift) yet differs from the
checkout's snapshot 0, and must be named against it; and a library check of some paths
names only those. Git is the oracle of snapshot 0's files: its ``HEAD~1`` tree.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import Workspace
from tests.history_refs.gitrepo import new_repo
from tests.history_refs.test_fresh_clone import FILES, _checkout_older, _ci, _settle, _verify


def _against_zero(path: str, kind: str) -> str:
    return (
        f"{path} is {kind} on disk compared with snapshot 0, whose state this checkout is "
        "(its line goes on past it)"
    )


def test_a_file_put_back_to_the_latest_version_differs_from_the_checkout_s_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _checkout_older(tmp_path)
    assert ci.git("show", "HEAD:app.py") == "print('v0')\n"  # snapshot 0's, by git
    (ci.path / "app.py").write_text("print('v1')\n")  # the latest snapshot's version
    (ci.path / "lib.py").unlink()  # a drift, which is what asks for the hold
    code, output, _ = _verify(ci, monkeypatch)
    assert code == 1, output
    assert _against_zero("app.py", "modified") in output, output
    assert _against_zero("lib.py", "deleted") in output, output


def test_a_file_put_back_to_its_checkout_version_after_an_edit_is_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _checkout_older(tmp_path)
    (ci.path / "new.py").write_text("made here\n")
    code, output, _ = _verify(ci, monkeypatch)
    assert code == 1, output
    # Only what differs from snapshot 0: app.py is v0 on disk, as snapshot 0 has it.
    assert _against_zero("new.py", "untracked") in output, output
    assert "app.py" not in output, output


def test_a_check_of_some_paths_names_only_those(tmp_path: Path) -> None:
    # Snapshot 1 changes a file at the top and one in a folder; the checkout is snapshot 0.
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", FILES)
    work.ok("init")
    for path in ("app.py", "docs/guide.md"):
        (work.path / path).write_text("v1\n")
    work.ok("record", "app.py", "docs/guide.md", "-m", "v1")
    work.git("commit", "-qam", "v1")
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    work.ok("push", str(origin))
    ci = _ci(tmp_path, origin)
    ci.git("checkout", "-q", "HEAD~1")
    _settle(ci)
    # Both put back by hand to snapshot 1's version: no drift against the latest state.
    for path in ("app.py", "docs/guide.md"):
        (ci.path / path).write_text("v1\n")
    (ci.path / "lib.py").unlink()
    with Workspace.open(ci.path) as ws:
        found = {(p.kind, p.path) for p in ws.check_sync(["docs", "lib.py"]).problems}
        every = {(p.kind, p.path) for p in ws.check_sync().problems}
    assert found == {("deleted", "lib.py"), ("modified", "docs/guide.md")}
    assert every == found | {("modified", "app.py")}
