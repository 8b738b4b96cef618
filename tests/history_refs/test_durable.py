"""A record on git's refs makes its objects and its ref durable before the index counts it.

The index (SQLite, fsynced) is what says a snapshot was recorded; the snapshot itself is
a commit, its trees and blobs, and the line's ref. libgit2 fsyncs none of them unless
told to, so a power cut after the index committed could leave a row naming a commit or
a ref move that never reached the disk. The system calls are watched with strace, the
way a power cut's window is seen: every fsync of the process, in order, with its path.

The index built from the refs (a fresh clone's first command) is a cache under a name no
reader opens: it is synced once, whole, before it gets its name, not at each of its
transactions.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, SNAPLINE, Repo, new_repo

# A call on another thread while one is under way shows as ``fsync(8</path> <unfinished ...>``.
_CALL = re.compile(r"^(?:\d+ +)?(fsync|fdatasync)\(\d+<(?P<path>[^>]*)>(?:\)| <unfinished)")
_RENAME = re.compile(r'^(?:\d+ +)?rename(?:at2?)?\(.*"(?P<path>[^"]*)"(?:, \w+)?\) = 0')


def _synced(cwd: Path, *args: str, renames: bool = False) -> list[str]:
    """The paths the command fsynced (or fdatasynced), in order.

    With ``renames``, each rename's new name too, as ``"rename " + path``.
    """
    strace = shutil.which("strace")
    assert strace, "this test watches fsync with strace: install it (apt-get install strace)"
    log = cwd.parent / "strace.log"
    calls = "trace=fsync,fdatasync" + (",rename,renameat,renameat2" if renames else "")
    done = subprocess.run(
        [strace, "-f", "-qq", "-y", "-e", calls, "-o", str(log), SNAPLINE, *args],
        cwd=cwd,
        env={**ENV, "SNAPLINE_SERVER": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    seen = []
    for line in log.read_text().splitlines():
        if found := _CALL.match(line):
            seen.append(found["path"])
        elif found := _RENAME.match(line):
            seen.append("rename " + found["path"])
    return seen


# A file of 64 KiB or more has its blob compressed and synced on a thread (loose.Ahead).
_LARGE = "".join(f"line {n} of a file written on a thread\n" for n in range(6000))


@pytest.mark.parametrize("text", ["one\n", _LARGE], ids=["small", "large"])
def test_a_record_syncs_its_objects_and_its_ref_before_the_index_commits(
    tmp_path: Path, text: str
) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": text})
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n" + text)
    paths = _synced(repo.path, "record", "a.txt", "-m", "edit", renames=True)
    git_dir = os.path.realpath(repo.path / ".git")
    objects = [i for i, path in enumerate(paths) if path.startswith(f"{git_dir}/objects/")]
    refs = [i for i, path in enumerate(paths) if path.startswith(f"{git_dir}/refs/snapline/")]
    lines = f"rename {git_dir}/refs/snapline/lines/"
    moved = [i for i, path in enumerate(paths) if path.startswith(lines)]
    index = [i for i, path in enumerate(paths) if path.startswith(f"{git_dir}/snapline/index")]
    # blob, record, the tree, state's tree, the commit: each object file and its folder
    assert len(objects) >= 5, paths
    assert len(moved) == 1, paths
    assert refs, paths
    assert index, paths
    # The ref's lock file may be synced with the objects (their waits at once); the ref
    # moves (its lock renamed onto it) only once they are all durable.
    assert max(objects) < moved[0], "an object was synced after the ref that names it moved"
    assert max(refs) > moved[0], "the ref's folder was not synced after it moved"
    assert max(refs) < max(index), "the index committed before the ref was synced"


def test_an_index_built_from_the_refs_is_synced_once_before_it_gets_its_name(
    tmp_path: Path,
) -> None:
    work = new_repo(tmp_path / "work", {"a.txt": "one\n", "b.txt": "b\n"})
    work.ok("init")
    for text in ("two\n", "three\n"):
        (work.path / "a.txt").write_text(text)
        work.ok("record", "a.txt", "-m", "edit")
    work.git("commit", "-qam", "work")
    origin = tmp_path / "origin.git"
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    work.ok("push", str(origin))
    clone = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", str(origin), str(clone.path))
    clone.ok("fetch", "origin")

    calls = _synced(clone.path, "verify", renames=True)
    state = os.path.realpath(clone.path / ".git" / "snapline")
    staged = [i for i, call in enumerate(calls) if call.startswith(f"{state}/index.db.init")]
    named = calls.index(f"rename {state}/index.db")
    # One sync of the whole file (not its log at each transaction), before its name.
    assert [calls[i] for i in staged] == [f"{state}/index.db.init"], calls
    assert staged[0] < named, calls
    assert state in calls[named + 1 :], "the folder was not synced after the rename"
    assert "ok: snapshots 0..2 verified" in clone.ok("verify")
