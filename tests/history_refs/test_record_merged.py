"""``snapline record`` refuses another line's merged work, as every other writer does.

The maintainer git-merges (or squash-merges) an agent's branch whose snapshots are the
agent's own line on the refs (test_merge_lines.py's team, pushed and fetched through a
bare remote). Before ``snapline merge`` the merged ``lib.py`` is the agent's recorded
work: a ``record`` that filed it into the maintainer's own snapshot would make that
line's work the maintainer's edit, and leave ``snapline merge`` nothing to join. Record
(the CLI, cold and warm, the library, the MCP tool) refuses it with the merge advice,
exit 1, nothing written; a path that is not another line's work still records; after
``snapline merge`` a record of ``lib.py`` works again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapline import StateMismatchError, Workspace
from tests.cli.warm.conftest import Warm, runtime, warm
from tests.history_refs.gitrepo import Repo, new_repo
from tests.history_refs.test_merge_lines import _clone, _commit, _team
from tests.history_refs.test_merge_refusals import _mcp, _numbers, _pulled, _says_merge_only

__all__ = ["runtime", "warm"]  # the warm server's fixtures, used by name


def _log_of(repo: Repo) -> list[tuple[int, str, list[str]]]:
    logged = json.loads(repo.ok("log", "--json"))
    return [(s["number"], s["tool"], [f["path"] for f in s["files"]]) for s in logged]


@pytest.mark.parametrize("merging", ["merge", "squash"])
def test_record_refuses_another_lines_merged_file(tmp_path: Path, merging: str) -> None:
    repo = _team(tmp_path, "refs", merging).maintainer
    before = _log_of(repo)
    refusing = (
        ("record", "lib.py"),
        ("record",),
        ("record", "lib.py", "--json"),
        ("resync", "-m", "taken in", "lib.py"),
    )
    for args in refusing:
        refused = repo.snap(*args)
        assert refused.returncode == 1, refused
        said = refused.stdout if "--json" in args else refused.stderr
        _says_merge_only(said)
        assert "Traceback" not in refused.stderr
        assert len(refused.stderr.strip().splitlines()) <= 1, refused.stderr
    assert _log_of(repo) == before  # nothing written
    status = json.loads(repo.ok("status", "--json"))
    assert [(p["kind"], p["path"]) for p in status["drift"]] == [("unmerged", "lib.py")]

    # A path that is not another line's work still records.
    (repo.path / "app.py").write_text("v3\n")
    repo.ok("record", "app.py", "-m", "v3")
    assert _log_of(repo)[0][1:] == ("record", ["app.py"])

    repo.ok("merge")
    assert repo.snap("verify").returncode == 0
    (repo.path / "lib.py").write_text("x = 3\n")
    repo.ok("record", "lib.py", "-m", "after the merge")
    assert _log_of(repo)[0][1:] == ("record", ["lib.py"])
    # Content git already holds (the baseline's) is asked the whole question: no line
    # left to join, so it records.
    (repo.path / "app.py").write_text("v0\n")
    repo.ok("record", "app.py", "-m", "back to v0")
    assert _log_of(repo)[0][1:] == ("record", ["app.py"])


def test_record_refuses_merged_work_beside_a_hand_deletion(tmp_path: Path) -> None:
    """A deletion is asked about in the same record as the merged file: both are looked
    at, and the merged file still refuses the record, nothing written."""
    repo = _team(tmp_path, "refs").maintainer
    before = _log_of(repo)
    (repo.path / "app.py").unlink()
    refused = repo.snap("record")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "lib.py" in refused.stderr and "snapline merge" in refused.stderr, refused.stderr
    assert _log_of(repo) == before


def test_record_refuses_git_merged_content_and_the_library_says_which(tmp_path: Path) -> None:
    # lib.py holds both clones' edits: git's merge of two lines' states, a blob no line
    # recorded.
    a = _pulled(tmp_path)
    refused = a.snap("record", "lib.py")
    assert refused.returncode == 1
    _says_merge_only(refused.stderr)
    with Workspace.open(a.path) as ws, pytest.raises(StateMismatchError) as error:
        ws.record(["lib.py"])
    assert error.value.unmerged == ["lib.py"]
    assert error.value.path == "lib.py"
    _says_merge_only(str(error.value))
    assert _numbers(a) == [2, 1, 0]
    a.ok("merge")
    assert a.snap("verify").returncode == 0


@pytest.mark.parametrize("merging", ["squash", "squash, not committed", "merge, not committed"])
def test_record_refuses_a_deletion_another_line_recorded(tmp_path: Path, merging: str) -> None:
    # Before git's commit (`--squash`, `--no-commit`) HEAD still holds old.py: the first
    # check knows the deletion for git's by the merge that waits (SQUASH_MSG, MERGE_HEAD).
    origin = tmp_path / "origin.git"
    seed = new_repo(tmp_path / "seed", {"app.py": "v0\n", "old.py": "old\n"})
    seed.ok("init")
    seed.git("init", "-q", "--bare", str(origin))
    seed.git("remote", "add", "origin", str(origin))
    seed.git("push", "-q", "origin", "main")
    a = _clone(tmp_path, origin, "a", "refs")
    b = _clone(tmp_path, origin, "b", "refs")
    b.git("switch", "-q", "-c", "feature")
    (b.path / "old.py").unlink()
    b.ok("record", "old.py", "-m", "B drops old.py")
    _commit(b, "drop old.py")
    b.git("push", "-q", "origin", "feature")  # the pre-push hook pushes B's line

    (a.path / "app.py").write_text("v1\n")
    a.ok("record", "app.py", "-m", "A's app")  # A records on a line of its own
    _commit(a, "A's app")
    a.git("fetch", "-q", "origin")
    a.ok("fetch", "origin")  # B's line
    if merging.startswith("squash"):
        a.git("merge", "-q", "--squash", "origin/feature")
    else:
        a.git("merge", "-q", "--no-commit", "origin/feature")
    if "not committed" not in merging:
        a.git("commit", "-qm", "feature (squashed)")
    assert not (a.path / "old.py").exists()
    before = _log_of(a)
    refused = a.snap("record", "old.py")
    assert refused.returncode == 1, refused
    _says_merge_only(refused.stderr.replace("old.py", "lib.py"))
    assert "old.py" in refused.stderr
    assert _log_of(a) == before
    a.ok("merge")
    assert a.snap("verify").returncode == 0


def test_the_mcp_record_tool_names_the_merge_tool(tmp_path: Path) -> None:
    repo = _team(tmp_path, "refs").maintainer
    before = _log_of(repo)
    (message,) = _mcp(repo.path, [("record", {"paths": ["lib.py"]})])
    assert "lib.py" in message and "the `merge` tool" in message, message
    assert "`resync`" not in message and "`snapline " not in message
    assert _log_of(repo) == before


def test_a_warm_record_refuses_as_the_cold_one(tmp_path: Path, runtime: Path, warm: Warm) -> None:
    repo = _team(tmp_path, "refs").maintainer
    before = _log_of(repo)
    served = warm.served()
    env = {"SNAPLINE_RUNTIME_DIR": str(runtime), "SNAPLINE_SERVER": "1"}
    refused = repo.snap("record", "lib.py", env=env)
    assert warm.served() == served + 1  # the server's worker ran it
    assert refused.returncode == 1, refused
    _says_merge_only(refused.stderr)
    assert _log_of(repo) == before
