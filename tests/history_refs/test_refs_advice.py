"""Advice over a damaged or vanished store fits a history on git's refs: there is no .snapline/.

The generic advice of ``StoreCorruptError`` and ``StoreVanishedError`` said to restore
``.snapline/`` (and, for a deleted store, to start a new history with ``snapline init``)
also in a git work tree, whose history is whole on its refs and whose index is a cache
under the git directory. Each advice here is followed as written, and must work.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo


def _recorded(tmp_path: Path) -> Repo:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit")
    return repo


def test_a_damaged_object_on_the_refs_names_gits_way_to_a_sound_copy(tmp_path: Path) -> None:
    repo = _recorded(tmp_path)
    Repo(tmp_path).git("init", "-q", "--bare", "remote.git")
    repo.git("remote", "add", "origin", str(tmp_path / "remote.git"))
    repo.ok("push", "origin")
    before = repo.ok("log", "--json")
    # The latest snapshot's record is lost from the object database (a disk's damage);
    # the index, a cache, is built again from the refs and meets it.
    (line,) = repo.git("for-each-ref", "--format=%(objectname)", "refs/snapline/lines/").split()
    (record,) = [
        row.split()[2] for row in repo.git("ls-tree", line).splitlines() if row.endswith("\trecord")
    ]
    (repo.path / ".git" / "objects" / record[:2] / record[2:]).unlink()
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (repo.path / ".git" / "snapline" / name).unlink(missing_ok=True)

    done = repo.snap("log")
    assert done.returncode == 3, done.stdout + done.stderr
    (said,) = done.stderr.strip().splitlines()
    assert record in said and "Traceback" not in done.stderr
    assert ".snapline" not in said and "snapline init" not in said, said
    assert "`git fsck` names the damaged objects" in said
    fetch = said.split("and `", 1)[1].split("`", 1)[0]
    assert fetch == "git fetch --refetch REMOTE 'refs/snapline/*:refs/snapline/*'"
    # The advice, followed as written, brings the history back whole.
    repo.git(*shlex.split(fetch.replace("REMOTE", "origin"))[1:])
    assert repo.ok("log", "--json") == before
    assert repo.snap("verify").returncode == 0


def test_an_index_deleted_under_a_run_leaves_the_history_on_the_refs_whole(
    tmp_path: Path,
) -> None:
    repo = _recorded(tmp_path)
    before = repo.ok("log", "--json")
    done = repo.snap("run", "--", "sh", "-c", "rm -rf .git/snapline; echo x > out.txt")
    assert done.returncode == 3, done.stdout + done.stderr
    (said,) = done.stderr.strip().splitlines()
    assert "was deleted during the operation" in said and "nothing was recorded" in said
    assert ".snapline/" not in said and "snapline init" not in said, said
    assert said.endswith(
        "the history on git's refs (refs/snapline/) is untouched and the next command builds "
        "the index again from it; `snapline status` then names the changes on disk and how "
        "to keep them"
    )
    assert repo.ok("log", "--json") == before
    status = repo.snap("status")
    assert "untracked  out.txt" in status.stdout, status.stdout + status.stderr
