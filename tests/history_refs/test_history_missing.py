"""Issue 37, point 3: when the history is missing, the first command names `snapline fetch`.

tests/history_refs/test_finding.py checks `status` in a fresh clone with no history.
Here: (1) every first command a CI job or a person runs in a fresh clone (verify, its
--json, log, report) says it in one line, exit 2, never "ok"/"in sync"; (2) a clone that
has the history but pulled commits whose snapshots it has not fetched yet (the remote
holds them: the other side's pre-push hook pushed them) must not call the pulled files
an outside change to `resync` (that would file a colleague's recorded work as a person's
edit): it names `snapline fetch`.

(2) failed on main 2b58039: `status` said "drift ... modified a.txt ... Keep the outside
change with `snapline resync -m TEXT`" (exit 0) and `verify` "unexplained ... record it
where it was changed (`snapline resync`), then `snapline push`" (exit 1); neither named
`snapline fetch`, which makes both clean. Now snapshots/check/unfetched.py tells the
pulled files apart, with no network call: git fetched after the history's last
`snapline fetch` (FETCH_HEAD against its mark), the file is the checked-out commit's, a
remote-tracking ref reaches that commit, and no snapshot here has its files. (3) A hand
edit keeps the resync advice, and once the history is fetched the advice is as before.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tests.history_refs.gitrepo import Repo, new_repo


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _unexplained(advice: str) -> dict[str, Any]:
    """``verify --json``'s problem for a.txt in a checkout that no snapshot explains."""
    return {
        "kind": "unexplained",
        "message": "a.txt in the checked-out commit is no file that a snapshot recorded, nor "
        f"git's clean merge of recorded states; {advice}",
        "path": "a.txt",
        "number": None,
        "expected": None,
        "actual": None,
        "severity": "error",
    }


def _origin(tmp_path: Path) -> tuple[Repo, Path]:
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    work.ok("init")
    work.git("init", "-q", "--bare", str(origin))
    work.git("remote", "add", "origin", str(origin))
    (work.path / "a.txt").write_text("b\n")
    work.ok("record", "a.txt", "-m", "b")
    work.git("commit", "-qam", "b")
    work.git("push", "-q", "origin", "main")  # the pre-push hook carries the history
    return work, origin


def test_a_fresh_clone_s_first_command_names_the_fetch(tmp_path: Path) -> None:
    _, origin = _origin(tmp_path)
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", str(origin), str(clone.path))
    for command in (("verify",), ("verify", "--format", "github"), ("log",), ("report",)):
        done = clone.snap(*command)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1, (command, done.stderr)
        assert "`snapline fetch`" in done.stderr, (command, done.stderr)
        said = (done.stdout + done.stderr).lower()
        assert "in sync" not in said and "ok:" not in said, (command, said)
    assert clone.git("status", "--porcelain", "--ignored") == ""


def test_a_pull_without_the_history_s_fetch_names_the_fetch_not_resync(tmp_path: Path) -> None:
    work, origin = _origin(tmp_path)
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", str(origin), str(clone.path))
    clone.ok("fetch", "origin")
    assert "in sync" in clone.ok("status")
    # The colleague records and pushes again; the clone pulls the code only.
    (work.path / "a.txt").write_text("c\n")
    work.ok("record", "a.txt", "-m", "c")
    work.git("commit", "-qam", "c")
    work.git("push", "-q", "origin", "main")
    clone.git("pull", "-q", "--ff-only")

    status = clone.snap("status")
    verify = clone.snap("verify")
    for done in (status, verify):
        said = done.stdout + done.stderr
        assert "in sync" not in said
        assert "snapline fetch" in said, said  # FAILS on main: it says resync
    assert verify.returncode == 1
    # Word for word, and which digests: the drift keeps its kind, its advice is the fetch.
    assert (
        "a.txt came with commits git fetched from origin after the history was last fetched: "
        "bring their snapshots with `snapline fetch origin` first (recorded elsewhere, they "
        "are no outside change); then, for what still differs:\n"
    ) in status.stdout
    drift = json.loads(clone.snap("status", "--json").stdout)["drift"]
    assert drift == [
        {
            "kind": "modified",
            "message": "a.txt came with commits git fetched from origin after the history was "
            "last fetched: bring their snapshots with `snapline fetch origin` first; if it "
            "still differs, record it with `snapline resync`",
            "path": "a.txt",
            "number": None,
            "expected": _digest("b\n"),
            "actual": _digest("c\n"),
            "severity": "error",
        }
    ]
    assert json.loads(clone.snap("verify", "--json").stdout)["problems"] == [
        _unexplained(
            "git fetched it from origin after the history was last fetched: bring the history "
            "with `snapline fetch origin` first; if it still differs, record it where it was "
            "changed (`snapline resync`), then `snapline push`"
        )
    ]
    # What the advice would have done: fetch, and all is well.
    clone.ok("fetch", "origin")
    assert "in sync" in clone.ok("status")
    assert clone.snap("verify").returncode == 0


def test_the_fetch_advice_is_for_pulled_files_only(tmp_path: Path) -> None:
    """A hand edit keeps its resync advice; a writer's refusal names the fetch; CI's
    checkout fetched after the history names none once the history is fetched."""
    work, origin = _origin(tmp_path)
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", str(origin), str(clone.path))
    clone.ok("fetch", "origin")
    (work.path / "a.txt").write_text("c\n")
    work.ok("record", "a.txt", "-m", "c")
    work.git("commit", "-qam", "c")
    work.git("push", "-q", "origin", "main")
    clone.git("pull", "-q", "--ff-only")

    # Edited by hand on top of the pulled commit: git did not put it there.
    (clone.path / "a.txt").write_text("by hand\n")
    said = clone.ok("status")
    assert "snapline fetch" not in said and "snapline resync -m TEXT" in said, said
    clone.git("checkout", "--", "a.txt")
    # A writer's refusal over the pulled file names the fetch first, in one line.
    run = clone.snap("run", "--", "true")
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    assert "`snapline fetch origin` first" in run.stderr, run.stderr

    # A person's edit committed and pushed unrecorded: the remote has no snapshot of it.
    (work.path / "a.txt").write_text("d\n")
    work.git("commit", "-qam", "d")
    work.git("push", "-q", "origin", "main")
    clone.git("pull", "-q", "--ff-only")
    assert "`snapline fetch origin` first" in clone.snap("verify").stdout
    clone.ok("fetch", "origin")  # as CI does after its checkout: now nothing to fetch
    verify = clone.snap("verify")
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert "unexplained" in verify.stdout and "a.txt" in verify.stdout, verify.stdout
    assert "snapline fetch" not in verify.stdout + verify.stderr, verify.stdout
    assert json.loads(clone.snap("verify", "--json").stdout)["problems"] == [
        _unexplained("record it where it was changed (`snapline resync`), then `snapline push`")
    ]
    status = clone.ok("status")
    assert "snapline fetch" not in status and "snapline resync -m TEXT" in status, status
