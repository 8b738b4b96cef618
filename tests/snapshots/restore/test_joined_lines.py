"""Restores to and of a joined line's snapshots, with git as the oracle.

The joined line is tests/history_refs/joined.py's, on git's refs: a rollback to a side
snapshot must give the tree of the side commit that recorded it, a revert of one must
equal ``git revert --no-commit`` of that commit, and a dry run must promise what the run
does. Every other line here is recorded as joined's side is, in a linked work tree of
its own after ``snapline upgrade``, and joined by ``git merge`` and ``snapline merge``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import Workspace
from tests.history_refs.joined import (
    Joined,
    joined,
    line,
    record_and_commit,
    reverted_by_git,
    tree_listing,
    upgraded,
    workspace_listing,
)
from tests.ledger.conftest import APP_V3, NOTES, Repo, copy, origin, output
from tests.snapshots.gitoracle import empty_dirs

# The fixtures this module uses, defined elsewhere (pytest finds them here by this import).
__all__ = ["joined", "origin"]


@pytest.mark.parametrize("number", [4, 5, 6])
def test_rollback_to_a_joined_snapshot_gives_the_tree_git_committed(
    joined: Joined, tmp_path: Path, number: int
) -> None:
    repo = copy(joined.repo, tmp_path / "copy")
    id_ = joined.side[number]
    result = repo.json("rollback", "--to", f"id:{id_[:8]}")
    assert result["target"] == number
    assert result["target_id"] == id_
    assert result["snapshot"]["metadata"]["rollback_to_id"] == id_
    assert workspace_listing(repo) == tree_listing(repo, joined.side_commits[number])
    assert empty_dirs(repo.path) == []
    verify = repo.snap("verify")
    assert verify.returncode == 0, output(verify)
    # And back to the main line's merge, by number.
    repo.ok("rollback", "--to", str(joined.merge_number))
    assert workspace_listing(repo) == tree_listing(repo, joined.merge_commit)


def test_a_dry_run_to_a_joined_snapshot_promises_what_the_run_does(
    joined: Joined, tmp_path: Path
) -> None:
    repo = copy(joined.repo, tmp_path / "copy")
    ref = f"id:{joined.side[5][:10]}"
    promised = repo.json("rollback", "--to", ref, "--dry-run")
    done = repo.json("rollback", "--to", ref)
    for key in ("restored", "deleted", "recreated"):
        assert promised[key] == done[key]
    # From the merge: the main line's two files go, app.py goes back to the side's 5.
    assert (done["restored"], done["deleted"]) == (["README.md", "app.py"], ["main.txt"])


def test_the_library_reads_and_restores_a_joined_snapshot(joined: Joined, tmp_path: Path) -> None:
    repo = copy(joined.repo, tmp_path / "copy")
    ref = f"id:{joined.side[6][:8]}"
    committed = repo.git("show", f"{joined.side_commits[6]}:app.py").stdout.encode()
    with Workspace.open(repo.path) as ws:
        side = ws.side_snapshot(ref)
        assert side is not None and (side.number, side.id) == (6, joined.side[6])
        assert ws.side_snapshot("6") is None
        assert ws.snapshot(ref).id == joined.side[6]
        assert ws.content_at("app.py", ref) == committed
        changed = {f.path: f.status.value for f in ws.modified_files(ref)}
        assert changed == {"README.md": "modified", "main.txt": "added"}
        result = ws.rollback(ref)
        assert (result.target, result.target_id) == (6, joined.side[6])
        assert result.snapshot is not None
        assert result.snapshot.metadata["rollback_to_id"] == joined.side[6]
        assert (repo.path / "app.py").read_bytes() == committed
        # Back to the merge, a main-line snapshot: named by its number alone.
        back = ws.rollback(joined.merge_number)
        assert (back.target, back.target_id) == (joined.merge_number, None)
        assert back.snapshot is not None and "rollback_to_id" not in back.snapshot.metadata


def _revert(repo: Repo, ref: str, via: str) -> tuple[int, str | None, dict[str, object]]:
    """Revert ``ref`` through the command line or the library: reverted, its id, metadata."""
    if via == "cli":
        done = repo.json("revert", ref)
        return done["reverted"], done["reverted_id"], done["snapshot"]["metadata"]
    # In this process, where make mutation's mutant is the code that runs.
    with Workspace.open(repo.path) as ws:
        result = ws.revert(ref)
    assert result.snapshot is not None
    return result.reverted, result.reverted_id, dict(result.snapshot.metadata)


VIAS = pytest.mark.parametrize("via", ["cli", "library"])


@VIAS
@pytest.mark.parametrize("number", [5, 6])
def test_revert_a_joined_snapshot_as_git_reverts_its_commit(
    joined: Joined, tmp_path: Path, number: int, via: str
) -> None:
    oracle = reverted_by_git(joined.repo, joined.side_commits[number], tmp_path / "oracle")
    repo = copy(joined.repo, tmp_path / "copy")
    reverted, reverted_id, metadata = _revert(repo, f"id:{joined.side[number][:8]}", via)
    assert (reverted, reverted_id) == (number, joined.side[number])
    assert metadata["reverts_id"] == joined.side[number]
    assert workspace_listing(repo) == workspace_listing(oracle)
    verify = repo.snap("verify")
    assert verify.returncode == 0, output(verify)


@VIAS
def test_a_main_line_revert_names_no_other_line(joined: Joined, tmp_path: Path, via: str) -> None:
    repo = copy(joined.repo, tmp_path / "copy")
    number = joined.merge_number - 1  # main.txt, added on main
    reverted, reverted_id, metadata = _revert(repo, str(number), via)
    assert (reverted, reverted_id) == (number, None)
    assert "reverts_id" not in metadata
    assert metadata["reverts"] == number
    assert not (repo.path / "main.txt").exists()


@VIAS
def test_rollback_to_a_line_snapshot_whose_change_the_merge_does_not_carry(
    origin: Repo, tmp_path: Path, via: str
) -> None:
    # The side adds scratch.txt and deletes it again before the merge: the merge changes
    # nothing there, so only the line's own changes say that snapshot 4 had the file.
    repo = upgraded(origin, tmp_path / "repo")
    side = line(repo, "side", tmp_path / "side")
    side.write("scratch.txt", "a scratch file\n")
    number, id_, commit = record_and_commit(side, "scratch")
    (side.path / "scratch.txt").unlink()
    record_and_commit(side, "scratch gone")
    repo.write("main.txt", "main only\n")
    repo.ok("record", "-m", "main file")
    repo.commit("main work")
    repo.git("merge", "--no-edit", "side")
    repo.ok("merge")
    if via == "cli":
        done = repo.json("rollback", "--to", f"id:{id_[:8]}")
        assert (done["target"], done["target_id"]) == (number, id_)
    else:
        with Workspace.open(repo.path) as ws:
            result = ws.rollback(f"id:{id_[:8]}")
        assert (result.target, result.target_id) == (number, id_)
    assert workspace_listing(repo) == tree_listing(repo, commit)
    assert (repo.path / "scratch.txt").read_text() == "a scratch file\n"


@VIAS
def test_revert_a_joined_snapshot_follows_a_rename_made_after_the_merge(
    joined: Joined, tmp_path: Path, via: str
) -> None:
    # Snapshot 5 of the side edited side.txt; after the merge the main line moves it.
    repo = copy(joined.repo, tmp_path / "copy")
    (repo.path / "moved").mkdir()
    (repo.path / "side.txt").rename(repo.path / "moved" / "side.txt")
    repo.ok("record", "-m", "move side.txt")
    repo.commit("move side.txt")
    oracle = reverted_by_git(repo, joined.side_commits[5], tmp_path / "oracle")
    reverted, reverted_id, _ = _revert(repo, f"id:{joined.side[5][:8]}", via)
    assert (reverted, reverted_id) == (5, joined.side[5])
    assert workspace_listing(repo) == workspace_listing(oracle)
    assert (repo.path / "moved" / "side.txt").read_text() == "side one\n"


def test_revert_on_the_second_of_two_joined_lines_follows_the_main_lines_moves(
    origin: Repo, tmp_path: Path
) -> None:
    # Two lines leave the main line at snapshot 3: `first` adds first.txt; `second` adds
    # second.txt and edits app.py and notes.txt. The main line moves those two right
    # after the fork, joins both lines (two merges), then moves second.txt. A revert of
    # the second line's snapshot follows each file: through the moves before the merges,
    # past the merge that joined that line (and not the other's), through the move after.
    repo = upgraded(origin, tmp_path / "repo")
    first = line(repo, "first", tmp_path / "first")
    first.write("first.txt", "first line\n")
    record_and_commit(first, "first")
    second = line(repo, "second", tmp_path / "second")
    second.write("second.txt", "second line\n")
    second.write("app.py", "def answer():\n    return 30\n")
    second.write("notes.txt", NOTES + "third note\n")  # added by snapshot 2, before the fork
    number, id_, commit = record_and_commit(second, "second")
    (repo.path / "src").mkdir()
    for name in ("app.py", "notes.txt"):
        (repo.path / name).rename(repo.path / "src" / name)
    record_and_commit(repo, "move app.py and notes.txt")
    for branch in ("first", "second"):
        repo.git("merge", "--no-edit", branch)
        repo.ok("merge")
    # git's revert refuses a file added by the commit and renamed since (rename/delete):
    # its oracle is the revert before the move, where the file is simply deleted.
    joined = repo.git("rev-parse", "HEAD").stdout.strip()
    oracle = reverted_by_git(repo, commit, tmp_path / "oracle", head=joined)
    (repo.path / "moved").mkdir()
    (repo.path / "second.txt").rename(repo.path / "moved" / "second.txt")
    record_and_commit(repo, "move second.txt")
    reverted, reverted_id, _ = _revert(repo, f"id:{id_[:8]}", "library")
    assert (reverted, reverted_id) == (number, id_)
    assert workspace_listing(repo) == workspace_listing(oracle)
    assert not (repo.path / "moved" / "second.txt").exists()
    assert (repo.path / "src" / "app.py").read_text() == APP_V3
    assert (repo.path / "src" / "notes.txt").read_text() == NOTES


def test_revert_a_line_snapshot_numbered_past_the_main_lines_latest(
    origin: Repo, tmp_path: Path
) -> None:
    # The side records three snapshots (4, 5, 6), the main line one (4) and the merge (5):
    # the side's last number is past the main line's latest, and is still its to revert.
    repo = upgraded(origin, tmp_path / "repo")
    side = line(repo, "side", tmp_path / "side")
    for index in range(3):
        side.write("side.txt", "".join(f"side {n}\n" for n in range(index + 1)))
        number, id_, commit = record_and_commit(side, f"side {index}")
    repo.write("main.txt", "main only\n")
    record_and_commit(repo, "main")
    repo.git("merge", "--no-edit", "side")
    repo.ok("merge")
    assert number > repo.json("log")[0]["number"]
    with Workspace.open(repo.path) as ws:  # a rollback to it is planned too
        promised = ws.rollback(f"id:{id_[:8]}", dry_run=True)
    # The side's last state is the merge's but for main.txt, which the side never had.
    assert (promised.target, promised.target_id) == (number, id_)
    assert (promised.restored, promised.deleted) == ((), ("main.txt",))
    oracle = reverted_by_git(repo, commit, tmp_path / "oracle")
    reverted, reverted_id, _ = _revert(repo, f"id:{id_[:8]}", "library")
    assert (reverted, reverted_id) == (number, id_)
    assert workspace_listing(repo) == workspace_listing(oracle)
    assert (repo.path / "side.txt").read_text() == "side 0\nside 1\n"


def test_revert_follows_a_file_the_line_itself_moved_later(origin: Repo, tmp_path: Path) -> None:
    # The side adds side.txt, edits it, then moves it to lib/; a revert of the edit
    # follows the file through the line's own later move.
    repo = upgraded(origin, tmp_path / "repo")
    side = line(repo, "side", tmp_path / "side")
    side.write("side.txt", "side one\n")
    record_and_commit(side, "add side.txt")
    side.write("side.txt", "side one\nside two\n")
    number, id_, commit = record_and_commit(side, "edit side.txt")
    (side.path / "lib").mkdir()
    (side.path / "side.txt").rename(side.path / "lib" / "side.txt")
    record_and_commit(side, "move side.txt")
    repo.write("main.txt", "main only\n")
    record_and_commit(repo, "main")
    repo.git("merge", "--no-edit", "side")
    repo.ok("merge")
    oracle = reverted_by_git(repo, commit, tmp_path / "oracle")
    reverted, reverted_id, _ = _revert(repo, f"id:{id_[:8]}", "library")
    assert (reverted, reverted_id) == (number, id_)
    assert workspace_listing(repo) == workspace_listing(oracle)
    assert (repo.path / "lib" / "side.txt").read_text() == "side one\n"
