"""Every snapshot is reachable: a joined branch's snapshots by ``id:PREFIX``.

Two branches record from snapshot 3 of ``origin``. ``side`` records three snapshots
(4, 5, 6: a new file, an edit of app.py, a deletion, a new directory, and app.py edited
again, so its delta chain runs across the fork), committing each in git; ``main``
records two (README.md, main.txt). ``git merge side`` and ``snapline merge`` join the
lines: the side's snapshots keep numbers the main line also uses, and only their ids
tell them apart. Git is the oracle: a rollback to a side snapshot must give the tree of
the side commit that recorded it, and a diff must turn one commit's tree into the other's
under ``git apply``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapline import Workspace
from tests.ledger.conftest import Repo, clone, copy, output
from tests.ledger.joined import Joined, joined, tree_listing, workspace_listing

__all__ = ["joined"]  # the fixture this module uses, defined in tests/ledger/joined.py


def _applied(repo: Repo, commit: str, patch: str, tmp: Path) -> str:
    """The tree git makes of ``commit`` with ``patch`` applied (``git apply``)."""
    other = clone(repo, tmp)
    other.git("checkout", "-q", "--detach", commit)
    (tmp / "change.patch").write_text(patch)
    other.git("apply", "--allow-empty", str(tmp / "change.patch"))
    (tmp / "change.patch").unlink()
    return workspace_listing(other)


def test_the_joined_snapshots_share_numbers_with_the_main_line(joined: Joined) -> None:
    # What makes an id the only way to name them.
    for number in joined.side:
        assert joined.main[number] != joined.side[number]


@pytest.mark.parametrize("number", [4, 5, 6])
def test_show_a_joined_snapshot_with_its_own_diff(
    joined: Joined, tmp_path: Path, number: int
) -> None:
    repo = joined.repo
    id_ = joined.side[number]
    shown = repo.json("show", f"id:{id_[:6].upper()}")
    assert (shown["number"], shown["id"]) == (number, id_)
    assert shown["line"] == joined.side[6]
    assert shown["joined_by"] == joined.merge_number
    text = repo.ok("show", f"id:{id_}").stdout
    assert f"ref:       id:{id_[:12]}" in text
    assert f"joined by snapshot {joined.merge_number}" in text
    patch = text[text.index("diff --git") :]
    # Snapshot 4's parent is the main line's 3, where the branches parted.
    before = joined.side_commits.get(number - 1, joined.fork_commit)
    assert _applied(repo, before, patch, tmp_path / "apply") == tree_listing(
        repo, joined.side_commits[number]
    )


def test_diff_along_the_joined_line(joined: Joined, tmp_path: Path) -> None:
    repo = joined.repo
    patch = repo.ok("diff", f"id:{joined.side[4]}", f"id:{joined.side[6]}").stdout
    assert "renamed" not in patch
    assert _applied(repo, joined.side_commits[4], patch, tmp_path / "apply") == tree_listing(
        repo, joined.side_commits[6]
    )
    # From the main line's snapshot 3, before the fork, to the side's 6.
    patch = repo.ok("diff", "3", f"id:{joined.side[6]}").stdout
    assert _applied(repo, joined.fork_commit, patch, tmp_path / "apply2") == tree_listing(
        repo, joined.side_commits[6]
    )


def test_diff_across_lines_turns_one_tree_into_the_other(joined: Joined, tmp_path: Path) -> None:
    repo = joined.repo
    side_5 = f"id:{joined.side[5]}"
    patch = repo.ok("diff", side_5, "latest").stdout
    assert _applied(repo, joined.side_commits[5], patch, tmp_path / "a") == tree_listing(
        repo, joined.merge_commit
    )
    # The main line's 5 (before the merge) against the side's 5: two trees.
    patch = repo.ok("diff", "5", side_5).stdout
    assert _applied(repo, joined.main_commit, patch, tmp_path / "b") == tree_listing(
        repo, joined.side_commits[5]
    )
    data = repo.json("diff", side_5, "latest")
    assert (data["from"], data["from_id"]) == (5, joined.side[5])
    assert (data["to"], data["to_id"]) == (joined.merge_number, None)


@pytest.mark.parametrize(
    ("ref", "code", "words"),
    [
        ("id:0123456789abcdef0123456789abcdef", 1, "names no snapshot"),
        ("id:xyz1", 2, "is not a snapshot"),
        ("id:abc", 2, "is not a snapshot"),
    ],
    ids=["unknown", "not-hex", "too-short"],
)
def test_a_bad_id_is_one_line(joined: Joined, ref: str, code: int, words: str) -> None:
    for command in (("show", ref), ("diff", ref, "latest"), ("rollback", "--to", ref)):
        result = joined.repo.snap(*command)
        assert result.returncode == code, output(result)
        assert words in result.stderr
        assert len(result.stderr.splitlines()) == 1
        assert "Traceback" not in output(result)


@pytest.mark.parametrize("option", ["--to", "--from"])
def test_a_milestone_refuses_a_joined_snapshot_by_name(
    joined: Joined, tmp_path: Path, option: str
) -> None:
    repo = copy(joined.repo, tmp_path / "copy")
    ref = f"id:{joined.side[5][:8]}"
    result = repo.snap("milestone", "create", "--title", "x", option, ref)
    assert result.returncode == 1, output(result)
    assert len(result.stderr.splitlines()) == 1
    assert f"snapshot 5 of another line (joined by snapshot {joined.merge_number})" in (
        result.stderr
    )
    assert repo.status() == []


def test_a_main_line_snapshot_by_id_is_its_number(joined: Joined, tmp_path: Path) -> None:
    repo = copy(joined.repo, tmp_path / "copy")
    ref = f"id:{joined.main[5][:8]}"
    assert repo.json("show", ref)["number"] == 5
    assert repo.json("show", ref)["line"] == "main"
    assert repo.ok("diff", "4", ref).stdout == repo.ok("diff", "4", "5").stdout
    made = repo.json("milestone", "create", "--title", "upto 5", "--to", ref)
    assert (made["first"], made["last"]) == (3, 5)


def test_log_names_each_joined_snapshot_by_its_id(joined: Joined) -> None:
    text = joined.repo.ok("log").stdout
    for id_ in joined.side.values():
        assert f"id:{id_[:12]}" in text


def test_an_unjoined_line_is_readable_by_id_before_snapshot_merge(
    origin: Repo, tmp_path: Path
) -> None:
    repo = clone(origin, tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("f.txt", "feature\n")
    made = repo.json("record", "-m", "feature")
    repo.commit("feature")
    repo.git("checkout", "-q", "main")
    repo.write("README.md", "# main\n")
    repo.ok("record", "-m", "main")
    repo.commit("main")
    repo.git("merge", "--no-edit", "feature")
    ref = f"id:{made['id'][:8]}"
    shown = repo.json("show", ref)
    assert (shown["id"], shown["joined_by"]) == (made["id"], None)
    assert "+feature" in repo.ok("show", ref).stdout
    # Restoring writes: refused until the lines are joined, as every write is.
    result = repo.snap("rollback", "--to", ref)
    assert result.returncode == 1 and "snapline merge" in result.stderr
    assert repo.status() == []


def test_json_errors_for_an_id(joined: Joined) -> None:
    result = joined.repo.snap("show", "id:0000ffff0000", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["kind"] == "SnapshotIdError"


def test_the_mcp_tools_reach_a_joined_snapshot(joined: Joined, tmp_path: Path) -> None:
    from tests.hosts.test_mcp_server import Client, serve

    repo = copy(joined.repo, tmp_path / "copy")
    ref = f"id:{joined.side[5][:8]}"

    async def script(client: Client) -> None:
        log = await client.call("log", limit=3)
        assert {s["id"] for s in log["side_snapshots"]} == set(joined.side.values())
        shown = await client.call("show", snapshot=ref)
        assert shown["snapshot"]["id"] == joined.side[5]
        assert (shown["line"], shown["joined_by"]) == (joined.side[6], joined.merge_number)
        assert "+side two" in shown["diff"] and "+main only" not in shown["diff"]
        files = await client.call("modified_files", from_snapshot=ref)
        assert {f["path"] for f in files["files"]} == {"README.md", "app.py", "main.txt"}
        diff = await client.call("file_diff", path="app.py", from_snapshot=ref)
        assert "+    return 6" in diff["diff"]
        missing = await client.error("show", snapshot="id:0123456789ab")
        assert "names no snapshot" in missing and "call `log`" in missing
        done = await client.call("rollback", to=ref, apply=True)
        assert (done["target"], done["target_id"]) == (5, joined.side[5])

    serve(repo.path, script)
    assert workspace_listing(repo) == tree_listing(repo, joined.side_commits[5])


def test_milestone_list_shows_joined_lines_with_their_snapshots_and_milestones(
    origin: Repo, tmp_path: Path
) -> None:
    repo = clone(origin, tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "feature")
    ids = []
    for text in ("one\n", "one\ntwo\n"):
        repo.write("feature.txt", text)
        ids.append(repo.json("record", "-m", f"feature {len(ids) + 1}")["id"])
    repo.ok("milestone", "create", "--title", "feature done")
    repo.commit("feature")
    repo.git("checkout", "-q", "main")
    repo.write("README.md", "# main\n")
    repo.ok("record", "-m", "main")
    repo.commit("main")
    repo.git("merge", "--no-edit", "feature")

    before = repo.ok("milestone", "list").stdout
    assert "other lines, not in a milestone yet:" in before
    assert f"line {ids[1][:12]}: snapshots 4..5 from snapshot 3, not joined yet" in before
    merge = repo.json("merge")
    listed = repo.json("milestone", "list")
    assert [m["lines"] for m in listed[:-1]] == [[]]
    (line,) = listed[-1]["lines"]
    assert (line["line"], line["fork"], line["joined_by"]) == (ids[1], 3, merge["number"])
    assert [(s["number"], s["id"], s["ref"]) for s in line["snapshots"]] == [
        (4, ids[0], f"id:{ids[0][:12]}"),
        (5, ids[1], f"id:{ids[1][:12]}"),
    ]
    assert [(m["number"], m["title"], m["first"], m["last"]) for m in line["milestones"]] == [
        (2, "feature done", 3, 5)
    ]
    text = repo.ok("milestone", "list").stdout
    assert f"line {ids[1][:12]}: snapshots 4..5 from snapshot 3, joined by snapshot 5" in text
    for id_ in ids:
        assert f"id:{id_[:12]}" in text
    assert "milestone 2 feature done (snapshots 3..5)" in text
    assert "not in a milestone yet" not in text
    # Each snapshot listed is reachable by the reference shown.
    assert repo.json("show", line["snapshots"][0]["ref"])["id"] == ids[0]


def test_the_review_page_shows_the_joined_line_under_its_merge(
    joined: Joined, tmp_path: Path
) -> None:
    repo = joined.repo
    page_path = tmp_path / "page.html"
    repo.ok("report", "-o", str(page_path))
    raw = page_path.read_text()
    page = _text(raw)
    assert f"Joins line {joined.side[6][:12]}: snapshots 4..6 from snapshot 3" in page
    # In the merge snapshot's article, each joined snapshot with its own diff.
    merge_at = raw.index(f'id="s-{joined.merge_number}"')
    joins_at = raw.index('<section class="joined"')
    assert merge_at < joins_at
    for number, added in ((4, "+side one"), (5, "+side two"), (6, "+    return 6")):
        id_ = joined.side[number]
        at = raw.index(f'id="s-{id_[:12]}"')
        assert joins_at < at
        assert f"#{number} id:{id_[:12]}" in _text(raw[at:])
        assert added in _text(raw[at:])
    assert "side three" in page
    for number in (4, 5, joined.merge_number):  # the main line's, under their numbers
        assert f'id="s-{number}"' in raw
    # A joined snapshot as an end of the range stands for the merge that joined it.
    scoped = tmp_path / "scoped.html"
    repo.ok("report", "-o", str(scoped), "--from", f"id:{joined.side[4][:8]}")
    raw = scoped.read_text()
    assert f'id="s-{joined.merge_number}"' in raw and "+side one" in _text(raw)
    assert 'id="s-4"' not in raw


def _text(page: str) -> str:
    """The page's text: its tags taken out, its entities read."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_an_id_prefix_two_lines_share_is_ambiguous_and_names_both(
    origin: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids are random: two whose first digits agree are made so by choosing them."""
    from snapline.snapshots.record import commit

    repo = clone(origin, tmp_path / "repo")
    chosen = iter(["abcd" + "0" * 27 + "1", "abcd" + "0" * 27 + "2"])

    def record(name: str) -> str:
        repo.write(name, f"{name}\n")
        with Workspace.open(repo.path) as ws, monkeypatch.context() as patched:
            ws.tracked()  # opened, its index caught up: the next id is the snapshot's
            patched.setattr(commit, "new_id", lambda: next(chosen))
            made = ws.record(description=name)
        assert made is not None
        repo.commit(name)
        return made.id

    repo.git("checkout", "-q", "-b", "feature")
    side = record("feature.txt")
    repo.git("checkout", "-q", "main")
    main = record("main.txt")
    assert side[:4] == main[:4] == "abcd"
    repo.git("merge", "--no-edit", "feature")
    for command in (("show", "id:abcd"), ("diff", "id:ABCD0000", "latest")):
        result = repo.snap(*command)
        assert result.returncode == 1, output(result)
        (line,) = result.stderr.splitlines()
        assert "is ambiguous" in line and "give more digits" in line
        assert f"snapshot 4 (id:{main[:12]}, main line)" in line
        assert f"snapshot 4 (id:{side[:12]}, another line)" in line
    assert repo.json("show", f"id:{side}")["line"] == side
    assert repo.json("show", f"id:{main}")["line"] == "main"


def test_a_git_branch_from_a_joined_snapshot_has_that_branchs_tree(
    joined: Joined, tmp_path: Path
) -> None:
    repo = copy(joined.repo, tmp_path / "copy")
    id_ = joined.side[5]
    made = repo.json("branch", f"id:{id_[:8]}")
    assert (made["branch"], made["snapshot"]) == (f"snapline/5-{id_[:8]}", 5)
    assert tree_listing(repo, made["commit"]) == tree_listing(repo, joined.side_commits[5])
    assert repo.status() == []


def test_the_terminal_preview_shows_a_joined_snapshots_files(
    joined: Joined, tmp_path: Path
) -> None:
    from tests.cli.test_preview import _terminal

    repo = copy(joined.repo, tmp_path / "copy")
    side_5, side_6 = (f"id:{joined.side[n][:12]}" for n in (5, 6))
    output, code = _terminal(repo.path, ["rollback", "--to", side_5, "--diff"], ["n"])
    assert code == 0, output
    assert f"Roll back to snapshot 5 ({side_5}, another line)? [y/N]" in output
    assert "-    return 6\n" in output and "+    return 4\n" in output
    assert "cancelled: nothing changed" in output
    output, code = _terminal(repo.path, ["revert", side_6, "--diff"], ["y"])
    assert code == 0, output
    assert f"Revert snapshot 6 ({side_6}, another line)? [y/N]" in output
    assert "+    return 4\n" in output and "+def more" not in output
    assert f"reverted snapshot 6 ({side_6}, another line) as snapshot" in output
    assert (repo.path / "app.py").read_text() == "def answer():\n    return 4\n"
