"""A linked work tree checked out at an older commit forks its line from that commit's snapshot.

``git worktree add`` of a commit that an older snapshot of the main line explains: the
new work tree's history is the main line up to that snapshot (its files are what that
snapshot recorded), not the main work tree's latest snapshot, and its first record
starts a line forked there (issue 37, point 5: "Lines stay lines").
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo


def test_a_linked_work_tree_forks_from_the_snapshot_of_its_checkout(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "main", {"app.py": "v0\n", "lib.py": "x = 0\n"})
    main.ok("init")
    ids = []
    for text in ("v1\n", "v2\n", "v3\n"):
        (main.path / "app.py").write_text(text)
        main.ok("record", "app.py", "-m", text.strip())
        main.git("commit", "-qam", text.strip())
        ids.append(json.loads(main.ok("log", "--json"))[0]["id"])
    main.ok("milestone", "create", "--title", "up to v3")
    # Checked out at snapshot 1's commit (v1), while the main line is at snapshot 3.
    main.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "old", "HEAD~2")
    linked = Repo(tmp_path / "linked")
    status = linked.snap("status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "app.py" not in status.stdout
    assert [s["id"] for s in json.loads(linked.ok("log", "--json"))][:1] == [ids[0]]
    assert linked.snap("verify").returncode == 0
    # No milestone before its own line starts: the main line's go on past its checkout.
    milestones = main.git("for-each-ref", "refs/snapline/milestones/")
    refused = linked.snap("milestone", "create", "--title", "too early")
    assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert main.git("for-each-ref", "refs/snapline/milestones/") == milestones
    (linked.path / "lib.py").write_text("x = 'linked'\n")
    made = json.loads(linked.ok("record", "lib.py", "-m", "linked edit", "--json"))
    assert (made["number"], made["parent_id"]) == (2, ids[0])
    assert [f["path"] for f in made["files"]] == ["lib.py"]
    log = json.loads(linked.ok("log", "--json"))
    assert [s["number"] for s in log] == [2, 1, 0]
    assert linked.ok("milestone", "list").count("up to v3") == 0  # it ends past the fork
    made_milestone = json.loads(linked.ok("milestone", "create", "--title", "linked", "--json"))
    assert (made_milestone["number"], made_milestone["first"]) == (1, 1)
    assert linked.snap("verify").returncode == 0
    # The main work tree goes on on its own line, untouched.
    (main.path / "app.py").write_text("v4\n")
    assert main.ok("record", "app.py", "-m", "v4").startswith("recorded snapshot 4:")
    assert main.snap("verify").returncode == 0
    # Rebuilt from the refs, the linked work tree's index follows its line through the fork.
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (main.path / ".git/worktrees/linked/snapline" / name).unlink(missing_ok=True)
    assert [s["id"] for s in json.loads(linked.ok("log", "--json"))] == [
        made["id"],
        ids[0],
        log[-1]["id"],
    ]
