"""A pull before the history's fetch, file by file: which drifted paths git put there.

tests/history_refs/test_history_missing.py holds the advice for a pulled edit of a
regular file. A pull also deletes files, brings symbolic links and gives them new
targets; and beside what git pulled, a person may delete a file, retarget a link, put
a folder where a file was or a file where a folder was. snapshots/check/unfetched.py
claims a drifted path for ``snapline fetch`` only when the disk holds what the
checked-out commit holds there (both absent counts); every other drift keeps the usual
``resync`` advice, so that a person's change is never passed off as a colleague's
recorded work. Git is the oracle of what the commit holds: each case is made by git
itself, on the colleague's side.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo
from tests.nogit import no_git_path

FILES = {
    "a.txt": "a\n",
    "gone.txt": "gone\n",
    "mine.txt": "mine\n",
    "dir.txt": "dir\n",
    "sub/x.txt": "x\n",
}


def _pulled(tmp_path: Path) -> Repo:
    """A clone of ``upstream`` that pulled a deletion and a new link, not their history."""
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", FILES)
    os.symlink("a.txt", work.path / "old-link")
    work.git("add", "old-link")
    work.git("commit", "-qm", "old-link")
    work.ok("init")
    work.git("init", "-q", "--bare", str(origin))
    work.git("remote", "add", "upstream", str(origin))
    work.git("push", "-q", "upstream", "main")
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", "-o", "upstream", str(origin), str(clone.path))
    clone.ok("fetch", "upstream")
    (work.path / "gone.txt").unlink()
    os.symlink("a.txt", work.path / "link")
    work.ok("record", "gone.txt", "link", "-m", "the colleague's recorded work")
    work.git("add", "-A")
    work.git("commit", "-qm", "delete gone.txt, link to a.txt")
    work.git("push", "-q", "upstream", "main")
    clone.git("pull", "-q", "--ff-only")
    return clone


def _advised(clone: Repo, env: dict[str, str] | None = None) -> dict[str, tuple[str, bool]]:
    """Each drifted path's kind, and whether its advice is the fetch (else a resync)."""
    done = clone.snap("status", "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    found = {}
    for problem in json.loads(done.stdout)["drift"]:
        message = problem["message"]
        fetch = "bring their snapshots with `snapline fetch upstream` first" in message
        assert fetch or "snapline fetch" not in message, message
        found[problem["path"]] = (problem["kind"], fetch)
    return found


def test_a_pulled_deletion_and_a_pulled_link_are_named_for_the_fetch(tmp_path: Path) -> None:
    clone = _pulled(tmp_path)
    assert _advised(clone) == {"gone.txt": ("deleted", True), "link": ("untracked", True)}
    status = clone.ok("status")
    assert "gone.txt, link came with commits git fetched from upstream" in status, status
    clone.ok("fetch", "upstream")
    assert "in sync" in clone.ok("status")


def test_a_person_s_changes_beside_the_pull_keep_the_resync_advice(tmp_path: Path) -> None:
    clone = _pulled(tmp_path)
    (clone.path / "mine.txt").unlink()  # deleted by hand: the commit still has it
    os.unlink(clone.path / "link")
    os.symlink("mine.txt", clone.path / "link")  # the pulled link, pointed elsewhere
    (clone.path / "dir.txt").unlink()
    (clone.path / "dir.txt").mkdir()  # a folder where the commit has a file
    (clone.path / "dir.txt" / "inner").write_text("x\n")
    (clone.path / "sub" / "x.txt").unlink()
    (clone.path / "sub").rmdir()
    (clone.path / "sub").write_text("a file where the commit has a folder\n")
    assert _advised(clone) == {
        "gone.txt": ("deleted", True),
        "mine.txt": ("deleted", False),
        "link": ("untracked", False),
        "dir.txt": ("deleted", False),
        "dir.txt/inner": ("untracked", False),
        "sub/x.txt": ("deleted", False),  # not a folder on disk: no file of the commit's
        "sub": ("untracked", False),
    }


def test_a_link_the_pull_did_not_touch_retargeted_by_hand_is_no_pulled_file(
    tmp_path: Path,
) -> None:
    clone = _pulled(tmp_path)
    os.unlink(clone.path / "old-link")
    os.symlink("mine.txt", clone.path / "old-link")
    advised = _advised(clone)
    assert advised.pop("old-link") == ("modified", False)
    assert advised == {"gone.txt": ("deleted", True), "link": ("untracked", True)}


def test_without_git_the_remote_tracking_refs_still_tell_and_the_remote_goes_unnamed(
    tmp_path: Path,
) -> None:
    # No git to list which refs reach HEAD, or the remotes' names: the refs themselves
    # (read with the git library) still hold each pulled version, so the paths are
    # claimed, from "a remote", and the fetch picks its own.
    clone = _pulled(tmp_path)
    done = clone.snap("status", "--json", env={"PATH": no_git_path(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    drift = json.loads(done.stdout)["drift"]
    assert [(p["path"], p["kind"]) for p in drift] == [
        ("gone.txt", "deleted"),
        ("link", "untracked"),
    ]
    for problem in drift:
        assert problem["message"] == (
            f"{problem['path']} came with commits git fetched from a remote after the history "
            "was last fetched: bring their snapshots with `snapline fetch` first; if it still "
            "differs, record it with `snapline resync`"
        )


def test_a_pipe_where_the_commit_has_a_file_is_never_opened(tmp_path: Path) -> None:
    # Opening a FIFO for reading waits for a writer: the check must not read one.
    clone = _pulled(tmp_path)
    (clone.path / "mine.txt").unlink()
    os.mkfifo(clone.path / "mine.txt")
    advised = _advised(clone)
    assert advised.pop("mine.txt") == ("deleted", False)  # no file snapline records
    assert advised == {"gone.txt": ("deleted", True), "link": ("untracked", True)}


def _merged_pull(tmp_path: Path) -> Repo:
    """A clone whose pull merged a colleague's recorded edit of a.txt into a commit of its
    own, before the history's fetch; remotes origin and backup both hold the pulled commit."""
    bare = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", FILES)
    work.ok("init")
    work.git("init", "-q", "--bare", "--initial-branch=main", str(bare))
    work.git("remote", "add", "origin", str(bare))
    work.git("push", "-q", "origin", "main")
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", str(bare), str(clone.path))
    # As a real remote's clone has: origin/HEAD, a symbolic ref, which holds no tree of
    # its own and sorts between backup's refs and origin/main.
    assert (
        clone.git("symbolic-ref", "refs/remotes/origin/HEAD").strip() == "refs/remotes/origin/main"
    )
    clone.git("remote", "add", "backup", str(bare))
    clone.ok("fetch", "origin")
    (work.path / "a.txt").write_text("edited\n")
    work.ok("record", "a.txt", "-m", "the colleague's recorded work")
    work.git("commit", "-qam", "edit a.txt")
    work.git("push", "-q", "origin", "main")
    clone.git("fetch", "-q", "backup")
    # A commit of the clone's own first: the pull merges, and checks out a commit that
    # no remote has, each pulled file the version the remotes' refs hold.
    (clone.path / "mine.txt").write_text("the clone's own\n")
    clone.ok("record", "mine.txt", "-m", "the clone's recorded work")
    clone.git("commit", "-qam", "edit mine.txt")
    clone.git("pull", "-q", "--no-rebase", "--no-edit")
    assert clone.git("rev-parse", "HEAD^2") == clone.git("rev-parse", "backup/main")
    return clone


def _pulled_a_txt(clone: Repo) -> dict[str, str]:
    """``status``'s one drifted path, a.txt, as ``--json`` gives it."""
    done = clone.snap("status", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    (drift,) = json.loads(done.stdout)["drift"]
    assert drift["path"] == "a.txt", drift
    return dict(drift)


def test_origin_is_the_remote_named_when_another_holds_the_pull_too(tmp_path: Path) -> None:
    """Of the remotes whose refs hold what a merging pull brought, ``origin`` (git's own
    default) is the one the advice names, though ``backup`` sorts before it and holds the
    same commit."""
    drift = _pulled_a_txt(_merged_pull(tmp_path))
    assert "bring their snapshots with `snapline fetch origin` first" in drift["message"], drift


def test_refs_of_a_remote_no_longer_configured_still_claim_the_pull(tmp_path: Path) -> None:
    """``git config --remove-section`` drops a remote and keeps its remote-tracking refs:
    they still hold what was pulled, which comes "from a remote" no configured name says."""
    clone = _merged_pull(tmp_path)
    for name in ("origin", "backup"):
        clone.git("config", "--remove-section", f"remote.{name}")
    assert clone.git("remote").strip() == ""
    drift = _pulled_a_txt(clone)
    assert "a.txt came with commits git fetched from a remote after" in drift["message"], drift


def test_a_revert_pushed_and_fetched_keeps_the_resync_advice(tmp_path: Path) -> None:
    """``git revert`` puts back an older snapshot's files, and the commit is pushed and
    fetched after the history's last fetch: git wrote the file, and a remote has the
    commit, but its files are a snapshot's state here, so nothing waits to be fetched and
    the drift keeps the resync advice. The state holds a file its rules came to ignore,
    recorded before the rule: the commit's tree in scope holds it too, as git keeps it."""
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", {"a.txt": "a\n", "notes.log": "kept\n"})
    work.ok("init")
    (work.path / ".gitignore").write_text("*.log\n")
    work.ok("record", ".gitignore", "-m", "ignore logs")
    for text in ("b\n", "c\n"):
        (work.path / "a.txt").write_text(text)
        work.ok("record", "a.txt", "-m", text.strip())
        work.git("add", "-A")
        work.git("commit", "-qm", text.strip())
    work.git("revert", "--no-edit", "HEAD")
    assert (work.path / "a.txt").read_text() == "b\n"
    work.git("init", "-q", "--bare", str(origin))
    work.git("remote", "add", "origin", str(origin))
    work.git("push", "-q", "origin", "main")
    work.git("fetch", "-q", "origin")
    (drift,) = json.loads(work.ok("status", "--json"))["drift"]
    assert (drift["path"], drift["kind"]) == ("a.txt", "modified")
    assert "snapline fetch" not in drift["message"], drift
    assert "snapline resync" in drift["message"], drift


def test_origin_is_named_when_other_remotes_reach_the_checked_out_commit_too(
    tmp_path: Path,
) -> None:
    """A fast-forward pull checks out a commit the remotes have: of those whose refs
    reach it, ``origin`` is named, though ``backup`` sorts before it."""
    clone = _pulled(tmp_path)
    for name in ("origin", "backup"):
        clone.git("remote", "add", name, str(tmp_path / "origin.git"))
        clone.git("fetch", "-q", name)
    assert {"backup", "origin", "upstream"} == set(clone.git("remote").split())
    done = clone.snap("status", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    drift = json.loads(done.stdout)["drift"]
    assert [p["path"] for p in drift] == ["gone.txt", "link"]
    for problem in drift:
        assert "bring their snapshots with `snapline fetch origin` first" in problem["message"]


def _moved_past(tmp_path: Path) -> Repo:
    """``_pulled``'s clone, after a fetch of a newer commit that points the link elsewhere."""
    clone = _pulled(tmp_path)
    work = Repo(tmp_path / "work")
    os.unlink(work.path / "link")
    os.symlink("mine.txt", work.path / "link")
    work.ok("record", "link", "-m", "the colleague's next recorded work")
    work.git("add", "-A")
    work.git("commit", "-qm", "link to mine.txt")
    work.git("push", "-q", "upstream", "main")
    clone.git("fetch", "-q", "upstream")
    return clone


def test_a_later_fetch_keeps_the_claim_of_what_the_pull_checked_out(tmp_path: Path) -> None:
    """After the pull, ``git fetch`` brings a newer commit that points the link elsewhere:
    the checked-out commit is still on the remote's line, so what it put on disk is
    still named for the fetch, though the remote's tip now holds another link."""
    clone = _moved_past(tmp_path)
    assert os.readlink(clone.path / "link") == "a.txt"  # the pull's, not the tip's
    assert _advised(clone) == {"gone.txt": ("deleted", True), "link": ("untracked", True)}


def test_a_removed_remote_s_refs_still_reach_the_checked_out_commit(tmp_path: Path) -> None:
    """``_moved_past`` with its remote's section removed: its refs still reach the
    checked-out commit, so the link is still claimed, from "a remote"."""
    clone = _moved_past(tmp_path)
    clone.git("config", "--remove-section", "remote.upstream")
    done = clone.snap("status", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    drift = {p["path"]: p["message"] for p in json.loads(done.stdout)["drift"]}
    assert drift.keys() == {"gone.txt", "link"}
    for path, message in drift.items():
        assert f"{path} came with commits git fetched from a remote after" in message


def test_without_git_a_hand_edit_committed_here_keeps_the_resync_advice(tmp_path: Path) -> None:
    """No git to tell which refs reach ``HEAD``: each path is held to the remote refs'
    versions. A person's edit committed here is in none of them; what the pull brought is."""
    clone = _pulled(tmp_path)
    (clone.path / "mine.txt").write_text("by hand, then committed\n")
    clone.git("commit", "-qam", "a hand edit")
    done = clone.snap("status", "--json", env={"PATH": no_git_path(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    drift = {p["path"]: p["message"] for p in json.loads(done.stdout)["drift"]}
    assert drift.keys() == {"gone.txt", "link", "mine.txt"}
    assert "snapline fetch" not in drift.pop("mine.txt")
    assert all("`snapline fetch` first" in message for message in drift.values()), drift
