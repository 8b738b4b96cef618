"""Milestones closed on another branch beside the main line's, in a 0.2 in-tree ledger.

tests/fixtures/ledger-beside.bundle (make_ledger_beside.py, written by the code that still
wrote the in-tree ledger): snapshots 1 and 2 shared; branch ``feature`` closed milestone 1
'feature one' on 1..1 and milestone 2 'feature two' on 2..2 without recording; ``main``
closed milestone 1 'main done' on 1..2; git merged ``feature`` into ``main``. A clean
git merge, so no damage (DESIGN.md, "Git-native"): the main line holds 'main done' (its
first parent's), and both of the feature's files are milestones closed on another branch,
the first beside the main line's milestone 1, the second of a number the main line has
none of. Reading commands name them, and ``verify`` says what settles them, in one line.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, GIT
from tests.history_refs.gitrepo import Repo as UpgradeRepo
from tests.history_refs.upgrading import IDENTITY, upgrade
from tests.ledger.conftest import FIXTURES, Repo, output


def _clone(tmp_path: Path) -> tuple[Repo, list[str]]:
    Repo(tmp_path).git("clone", "-q", str(FIXTURES / "ledger-beside.bundle"), "repo")
    repo = Repo(tmp_path / "repo")
    files = sorted(path.name for path in repo.milestone_files())
    assert [name[:9] for name in files] == ["00000001-", "00000001-", "00000002-"]
    return repo, files


def test_verify_names_each_milestone_closed_beside_the_main_line_and_what_settles_them(
    tmp_path: Path,
) -> None:
    repo, _ = _clone(tmp_path)
    listed = repo.json("milestone", "list")
    assert [(m["number"], m["first"], m["last"], m["title"]) for m in listed] == [
        (1, 1, 2, "main done")
    ]
    by_title = {
        title: path.name
        for path in repo.milestone_files()
        for title in ("feature one", "feature two", "main done")
        if f'title "{title}"' in path.read_text()
    }
    feature_one, feature_two = by_title["feature one"], by_title["feature two"]
    verified = repo.snap("verify")
    assert verified.returncode == 1, output(verified)
    assert verified.stdout.splitlines() == [
        "verification failed: 1 problem",
        "  milestones     milestone 1 'feature one' (snapshots 1..1, "
        f"{feature_one}) was closed on another branch beside the main line's 'main done'; "
        f"milestone 2 'feature two' (snapshots 2..2, {feature_two}) was closed on another "
        f"branch; run `snapline upgrade`: it moves this checkout's history (its in-tree "
        "ledger, which is only read) onto git's refs, and joins them as `snapline merge` "
        "would",
    ]
    # Both are listed as closed on another line, by number, not joined yet.
    text = repo.ok("milestone", "list").stdout.splitlines()
    at = text.index("closed on other lines:")
    starts = ["   1  snapshots 1..1  ", "   2  snapshots 2..2  "]
    assert [line[:22] for line in text[at + 1 :]] == starts
    assert text[at + 1].endswith(
        f"  feature one  (not joined yet: run `snapline merge`; {feature_one})"
    )
    assert text[at + 2].endswith(
        f"  feature two  (not joined yet: run `snapline merge`; {feature_two})"
    )


@pytest.mark.parametrize("from_folder", [False, True], ids=["at-root", "in-a-folder"])
def test_a_milestone_file_edited_and_renamed_to_its_digest_is_named_with_how_to_restore_it(
    from_folder: bool, tmp_path: Path
) -> None:
    # A crafted edit: the title changed and the file renamed to the digest of its new
    # bytes, so only its seal (the chain hash it carries) can tell. Its path is named
    # from the workspace's root wherever verify runs, as every problem's path is.
    from snapline.store.ledger.format import milestone_name

    repo, _ = _clone(tmp_path)
    folder = repo.path / "docs"
    folder.mkdir()
    (path,) = [p for p in repo.milestone_files() if 'title "feature two"' in p.read_text()]
    data = path.read_bytes().replace(b'title "feature two"', b'title "feature 2"')
    path.unlink()
    crafted = path.with_name(milestone_name(2, data))
    crafted.write_bytes(data)
    where = crafted.relative_to(repo.path).as_posix()
    result = repo.snap("verify", "--json", cwd=folder if from_folder else None)
    assert result.returncode == 3, output(result)
    problems = [p for p in json.loads(result.stdout)["problems"] if p["kind"] == "ledger"]
    assert problems == [
        {
            "kind": "ledger",
            "message": f"{where}: milestone 2 does not match its chain hash: it was edited "
            f"after it was written; restore it from git in the workspace's root "
            f"(`git checkout -- {where}`) or from a copy",
            "path": where,
            "number": 2,
            "expected": None,
            "actual": None,
            "severity": "corrupt",
        }
    ]


def test_milestone_files_deleted_before_another_are_named_as_the_damage(tmp_path: Path) -> None:
    # Both files of number 1 deleted (before any command built the index): milestone 2's
    # seal names a number-1 seal nothing holds. Said as what it is (the files before it
    # are missing), not as an edit of an intact file, and never a crash.
    repo, files = _clone(tmp_path)
    for name in files[:2]:
        (repo.path / ".snapline" / "ledger" / "milestones" / name).unlink()
    where = f".snapline/ledger/milestones/{files[2]}"
    result = repo.snap("verify", "--json")
    assert result.returncode == 3, output(result)
    problems = json.loads(result.stdout)["problems"]
    assert [(p["kind"], p["number"]) for p in problems] == [
        ("milestone-sequence", 2),
        ("milestone-start", 2),
        ("milestone-chain-mismatch", 2),
        ("ledger", 2),
    ]
    assert problems[1]["message"] == (
        "milestone 2 starts at snapshot 2, not 1: the first milestone must start right "
        "after the baseline"
    )
    assert (problems[3]["path"], problems[3]["message"]) == (
        where,
        f"{where}: milestone 2 cannot be held to its chain hash: no milestone 1 is left "
        "before it; restore the ledger's milestone files from git in the workspace's root "
        "(`git checkout -- .snapline/ledger/milestones`) or from a copy",
    )


# -- snapline upgrade: the refs hold one milestone of each number on a line ---------------


def _upgraded_clone(tmp_path: Path) -> tuple[UpgradeRepo, dict[str, str]]:
    subprocess.run(
        [*GIT, "clone", "-q", str(FIXTURES / "ledger-beside.bundle"), str(tmp_path / "repo")],
        env=ENV,
        check=True,
    )
    repo = UpgradeRepo(tmp_path / "repo")
    names = {
        title: path.name
        for path in (repo.path / ".snapline" / "ledger" / "milestones").iterdir()
        for title in ("feature one", "feature two")
        if f'title "{title}"' in path.read_text()
    }
    return repo, names


def _joined_as_merge_would(repo: UpgradeRepo, names: dict[str, str]) -> None:
    # docs/format.md, "Milestones across lines", rule 3: one merge snapshot naming the
    # files, and one main-line milestone after the last, to the merge, with their titles.
    listed = json.loads(repo.ok("milestone", "list", "--json"))
    assert [(m["number"], m["first"], m["last"], m["title"], m["tags"]) for m in listed] == [
        (1, 1, 2, "main done", []),
        (2, 3, 3, "feature one + feature two", ["feat"]),
    ]
    one, two = names["feature one"], names["feature two"]
    assert listed[1]["description"] == (
        f"joins milestone 1 'feature one' (snapshots 1..1, {one}), closed on another branch\n"
        f"joins milestone 2 'feature two' (snapshots 2..2, {two}), closed on another branch"
    )
    log = json.loads(repo.ok("log", "--json"))
    assert [s["number"] for s in log] == [3, 2, 1, 0]  # one merge, never two
    merge = json.loads(repo.ok("show", "3", "--json"))
    assert (merge["tool"], merge["description"], merge["files"]) == (
        "merge",
        "merge milestones closed on another branch",
        [],
    )
    assert merge["metadata"] == {"joined_milestones": sorted([one, two])}
    assert repo.snap("verify").returncode == 0
    assert not (repo.path / ".git" / "snapline" / "upgrade-joins.json").exists()


def _would_join(names: dict[str, str]) -> list[str]:
    """What the dry run of the upgrade says it joins: the feature's two milestones."""
    return [
        "would join the milestones closed on another branch beside the main line's, as "
        "`snapline merge` does (a merge snapshot, and one milestone that closes it):",
        f"  milestone 1 'feature one' (snapshots 1..1, {names['feature one']})",
        f"  milestone 2 'feature two' (snapshots 2..2, {names['feature two']})",
    ]


def test_upgrade_joins_the_milestones_closed_beside_the_main_line_as_merge_would(
    tmp_path: Path,
) -> None:
    # Before, the upgrade left them out: on the refs, `milestone list` held 'main done'
    # alone, and `snapline merge`, which verify's advice names, had nothing to join.
    repo, names = _upgraded_clone(tmp_path)
    said = _would_join(names)
    planned = upgrade(repo, "--dry-run")
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert planned.stdout.splitlines()[-4:] == [
        *said,
        "then would remove .snapline/ from the tree in one commit; nothing was changed",
    ]
    app = repo.path / "app.py"
    recorded = app.read_bytes()
    app.write_text("a person's edit, never the merge's\n")
    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-3:] == [said[0].replace("would join", "joined"), *said[1:]]
    drift = json.loads(repo.snap("status", "--json").stdout)["drift"]
    assert [(p["kind"], p["path"]) for p in drift] == [("modified", "app.py")]
    app.write_bytes(recorded)  # in sync again: the merge recorded no file
    _joined_as_merge_would(repo, names)


@pytest.mark.parametrize("step", ["upgrade-tree-moved", "upgrade-committed", "upgrade-joined"])
def test_an_upgrade_killed_before_it_joined_them_joins_them_once_when_run_again(
    step: str, tmp_path: Path
) -> None:
    repo, names = _upgraded_clone(tmp_path)
    killed = upgrade(repo, env={"SNAPLINE_CRASH_AT": step})
    assert killed.returncode == -9, killed.stdout + killed.stderr
    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert upgrade(repo).stdout == (
        "nothing to upgrade: the work tree holds no in-tree history (.snapline/)\n"
    )
    _joined_as_merge_would(repo, names)


def test_upgrade_joins_them_while_a_line_waits_for_snapline_merge(tmp_path: Path) -> None:
    # tests/fixtures/ledger-beside-line.bundle (make_ledger_beside.py --with-line): the
    # same milestones, and a line recorded on branch `side` that git merged and no
    # `snapline merge` joined. The upgrade joins the milestone without joining the line
    # (two lines: every other writer refuses), and `snapline merge` joins the line after.
    subprocess.run(
        [*GIT, "clone", "-q", str(FIXTURES / "ledger-beside-line.bundle"), str(tmp_path / "r")],
        env=ENV,
        check=True,
    )
    repo = UpgradeRepo(tmp_path / "r")
    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = json.loads(repo.ok("milestone", "list", "--json"))
    assert [(m["number"], m["first"], m["last"], m["title"]) for m in listed] == [
        (1, 1, 1, "feature one"),
        (2, 2, 2, "feature two"),
        (3, 3, 4, "main done"),
    ]
    joined = json.loads(repo.ok("show", "4", "--json"))
    assert (joined["tool"], joined["files"], joined["merges"]) == ("merge", [], [])
    verified = repo.snap("verify", "--json")
    assert verified.returncode == 1
    problems = json.loads(verified.stdout)["problems"]
    assert [(p["kind"], p["path"]) for p in problems] == [("unmerged", "side.txt")]
    merged = json.loads(repo.ok("merge", "--json"))
    assert (merged["number"], [f["path"] for f in merged["files"]]) == (5, ["side.txt"])
    assert repo.snap("verify").returncode == 0


@pytest.mark.parametrize("waiting", [False, True], ids=["merged", "merge-waits"])
def test_upgrade_after_git_merged_a_branch_whose_ledger_closed_them_joins_them(
    waiting: bool, tmp_path: Path
) -> None:
    # The main line moved onto the refs before git merged `feature` (HEAD^1 upgraded);
    # then git merges the branch that did merge it, still carrying its in-tree ledger
    # (committed, or waiting for its commit). `snapline upgrade` moves that merged ledger
    # (moving_merged.py). Before, read from a bare copy of the tree with no git to say
    # which parent came first, it took 'feature one' and 'feature two' for the main
    # line's: it wrote 'feature two' onto the refs as milestone 2, and dropped 'feature
    # one' (the refs held a number 1) without a word.
    repo, names = _upgraded_clone(tmp_path)
    repo.git("branch", "merged", "HEAD")
    repo.git("reset", "-q", "--hard", "HEAD^1")
    first = upgrade(repo)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "join" not in first.stdout  # this ledger held none beside its main line
    merged = subprocess.run(
        [*GIT, "merge", "-q", "--no-edit", *(["--no-commit"] if waiting else []), "merged"],
        cwd=repo.path,
        env={**ENV, **IDENTITY},
        capture_output=True,
        text=True,
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    said = _would_join(names)
    planned = upgrade(repo, "--dry-run")
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert planned.stdout.splitlines()[-4:-1] == said, planned.stdout
    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-3:] == [said[0].replace("would join", "joined"), *said[1:]]
    if waiting:
        repo.git("commit", "-q", "--no-edit")
    assert upgrade(repo).stdout == (
        "nothing to upgrade: the work tree holds no in-tree history (.snapline/)\n"
    )
    _joined_as_merge_would(repo, names)


def test_an_old_branch_upgraded_after_them_joins_them_no_second_time(tmp_path: Path) -> None:
    # The same ledger upgraded again from an old branch (the merge commit, checked out
    # after the move): the refs' merge names both files already, so nothing is joined.
    repo, names = _upgraded_clone(tmp_path)
    assert upgrade(repo).returncode == 0
    repo.git("checkout", "-q", "-b", "old", "HEAD~1")
    planned = upgrade(repo, "--dry-run")
    assert planned.returncode == 0 and "join" not in planned.stdout, planned.stdout
    done = upgrade(repo)
    assert done.returncode == 0 and "join" not in done.stdout, done.stdout + done.stderr
    _joined_as_merge_would(repo, names)
