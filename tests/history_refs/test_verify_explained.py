"""``verify`` of a checkout explained by the refs says what explained it, as git says what it did.

A checkout that only reads the history (CI's clone) passes when its files are a recorded
state or git's clean merge of such states (issue 37, point 4). The "ok" line used to say
"the workspace matches the latest snapshot" then too, which was not what was checked:
it names the snapshot (or the snapshots merged) now, and ``--json`` carries them under a
new key, ``explained``, the other keys unchanged.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from snapline.hashing import hash_bytes
from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo
from tests.history_refs.test_team import _agent, _ci


def _origin(tmp_path: Path) -> tuple[Path, Repo]:
    origin = tmp_path / "origin.git"
    maintainer = new_repo(tmp_path / "maintainer", {"app.py": "print('v0')\n", "lib.py": "x = 0\n"})
    maintainer.ok("init")
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")
    return origin, maintainer


def _latest_id(repo: Repo) -> str:
    return str(json.loads(repo.ok("log", "--json"))[0]["id"])


def test_verify_of_a_squash_merge_names_the_snapshots_git_merged(tmp_path: Path) -> None:
    origin, maintainer = _origin(tmp_path)
    a = _agent(tmp_path, origin, "a", "app.py", "print('a')\n")
    b = _agent(tmp_path, origin, "b", "lib.py", "x = 'b'\n")
    ids = {_latest_id(a), _latest_id(b)}
    maintainer.git("fetch", "-q", "origin")
    for name in ("a", "b"):
        maintainer.git("merge", "-q", "--squash", f"origin/{name}")
        maintainer.git("commit", "-qm", f"merge {name} (squashed)")
    maintainer.git("push", "-q", "origin", "main")

    ci = _ci(tmp_path, origin, "ci")
    verified = ci.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    said = verified.stdout
    assert "git's clean merge of" in said, said
    assert "matches the latest snapshot" not in said
    assert all(f"id:{id_[:8]}" in said for id_ in ids), said
    shape = json.loads(ci.ok("verify", "--json"))
    assert (shape["ok"], shape["problems"]) == (True, [])
    assert shape["explained"]["merge"] is True
    assert {s["id"] for s in shape["explained"]["snapshots"]} == ids


def test_verify_of_an_older_commit_names_the_snapshot_it_is(tmp_path: Path) -> None:
    origin, maintainer = _origin(tmp_path)
    ids = []
    for text in ("print('v1')\n", "print('v2')\n"):
        (maintainer.path / "app.py").write_text(text)
        maintainer.ok("record", "app.py", "-m", text.strip())
        maintainer.git("commit", "-qam", text.strip())
        ids.append(_latest_id(maintainer))
    maintainer.git("push", "-q", "origin", "main")

    ci = _ci(tmp_path, origin, "ci")
    ci.git("checkout", "-q", "HEAD~1")
    verified = ci.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"the state recorded by snapshot 1 (id:{ids[0][:8]})" in verified.stdout
    explained = json.loads(ci.ok("verify", "--json"))["explained"]
    assert explained["merge"] is False
    (line,) = ci.git("for-each-ref", "--format=%(refname:lstrip=3)", "refs/snapline/lines/").split()
    assert [(s["line"], s["number"], s["id"]) for s in explained["snapshots"]] == [
        (line, 1, ids[0])
    ]
    # At the tip the files are the latest snapshot's: said as before, no new key.
    ci.git("checkout", "-q", "main")
    assert "the workspace matches the latest snapshot" in ci.ok("verify")
    assert "explained" not in json.loads(ci.ok("verify", "--json"))


def test_verify_of_an_older_commit_names_its_file_a_later_snapshot_renamed(
    tmp_path: Path,
) -> None:
    """Snapshot 1 renamed lib.py: on a checkout of snapshot 0's commit, lib.py deleted by
    hand is no drift from the latest state (which lacks it too), yet snapshot 0 has it."""
    origin, maintainer = _origin(tmp_path)
    maintainer.git("mv", "lib.py", "util.py")
    maintainer.ok("record", "lib.py", "util.py", "-m", "move")
    assert json.loads(maintainer.ok("show", "1", "--json"))["files"][0]["old_path"] == "lib.py"
    maintainer.git("commit", "-qm", "move")
    maintainer.git("push", "-q", "origin", "main")

    ci = _ci(tmp_path, origin, "ci")
    ci.git("checkout", "-q", "HEAD~1")
    assert ci.snap("verify").returncode == 0
    (ci.path / "lib.py").unlink()
    verified = ci.snap("verify")
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert (
        "lib.py is deleted on disk compared with snapshot 0, whose state this checkout is"
    ) in verified.stdout, verified.stdout
    # Each problem carries the digests it was found with: snapshot 0's and the disk's.
    (ci.path / "app.py").write_text("by hand\n")
    problems = json.loads(ci.snap("verify", "--json").stdout)["problems"]
    assert [(p["kind"], p["path"], p["expected"], p["actual"]) for p in problems] == [
        ("modified", "app.py", hash_bytes(b"print('v0')\n"), hash_bytes(b"by hand\n")),
        ("deleted", "lib.py", hash_bytes(b"x = 0\n"), None),
    ]


def test_verify_of_a_conflict_resolved_by_hand_says_to_record_it_with_merge(
    tmp_path: Path,
) -> None:
    origin, maintainer = _origin(tmp_path)
    _agent(tmp_path, origin, "a", "app.py", "print('a')\n")
    _agent(tmp_path, origin, "b", "app.py", "print('b')\n")
    maintainer.git("fetch", "-q", "origin")
    maintainer.git("merge", "-q", "--squash", "origin/a")
    maintainer.git("commit", "-qm", "merge a (squashed)")
    conflict = subprocess.run(
        [*GIT, "merge", "-q", "--squash", "origin/b"],
        cwd=maintainer.path, env=ENV, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "CONFLICT (content): Merge conflict in app.py" in conflict.stdout, conflict
    (maintainer.path / "app.py").write_text("print('a and b')\n")
    maintainer.git("add", "app.py")
    maintainer.git("commit", "-qm", "merge b (squashed), resolved by hand")
    maintainer.git("push", "-q", "origin", "main")

    ci = _ci(tmp_path, origin, "ci")
    verified = ci.snap("verify", "--json")
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["problems"] == [
        {
            "kind": "unexplained",
            "message": "app.py in the checked-out commit is no file that a snapshot recorded, "
            "nor git's clean merge of recorded states; it is a conflict of git's merge of "
            "recorded lines, resolved by hand: on a checkout of this commit, record the "
            "resolution with `snapline merge`, then `snapline push`",
            "path": "app.py",
            "number": None,
            "expected": None,
            "actual": None,
            "severity": "error",
        }
    ]


def test_verify_of_a_squash_merge_holds_a_tracked_file_its_rules_came_to_ignore(
    tmp_path: Path,
) -> None:
    """A file recorded before a rule covered it stays tracked, as git keeps it: HEAD's
    tree in scope and the disk's are both read with it, and the squash merge is explained."""
    origin = tmp_path / "origin.git"
    files = {"app.py": "print('v0')\n", "lib.py": "x = 0\n", "notes.log": "kept\n"}
    maintainer = new_repo(tmp_path / "maintainer", files)
    maintainer.ok("init")
    (maintainer.path / ".gitignore").write_text("*.log\n")
    maintainer.ok("record", ".gitignore", "-m", "ignore logs")
    maintainer.git("add", ".gitignore")
    maintainer.git("commit", "-qm", "ignore logs")
    assert "notes.log" in maintainer.git("ls-files").split()  # git keeps it tracked
    maintainer.git("init", "-q", "--bare", str(origin))
    maintainer.git("remote", "add", "origin", str(origin))
    maintainer.git("push", "-q", "origin", "main")
    _agent(tmp_path, origin, "a", "app.py", "print('a')\n")
    _agent(tmp_path, origin, "b", "notes.log", "b's note\n")
    maintainer.git("fetch", "-q", "origin")
    for name in ("a", "b"):
        maintainer.git("merge", "-q", "--squash", f"origin/{name}")
        maintainer.git("commit", "-qm", f"merge {name} (squashed)")
    maintainer.git("push", "-q", "origin", "main")

    ci = _ci(tmp_path, origin, "ci")
    assert (ci.path / "notes.log").read_text() == "b's note\n"
    verified = ci.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "git's clean merge of" in verified.stdout, verified.stdout
