"""A command that finds the refs where the index left them does not load the git library.

``status`` and ``verify`` compare the refs with the index's marks by reading git's ref
files (``store/refs/reffiles.py``); libgit2 (pygit2, tens of milliseconds to load) is
not loaded by a record either, which reads and writes git's files itself
(``store/refs/filedb.py``, issue 39). Each command runs as a whole process reporting
what it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.history_refs.gitrepo import ENV, new_repo

_DRIVER = """
import json, sys
from snapline.cli import main
sys.argv = ["snapline", *json.loads(sys.argv[1])]
code = 0
try:
    main()
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "pygit2": "pygit2" in sys.modules}))
"""


def _run(root: Path, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, json.dumps(args)],
        cwd=root,
        capture_output=True,
        text=True,
        env=ENV,
        check=True,
    )
    report: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return report


def test_record_status_and_verify_of_a_caught_up_index_leave_libgit2_unloaded(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("a2\n")
    assert _run(repo.path, "record", "a.txt") == {"code": 0, "pygit2": False}
    assert _run(repo.path, "status") == {"code": 0, "pygit2": False}
    assert _run(repo.path, "verify") == {"code": 0, "pygit2": False}
    # After `git pack-refs` the refs are read from packed-refs, the same way.
    repo.git("pack-refs", "--all")
    loose = [p for p in (repo.path / ".git" / "refs" / "snapline").rglob("*") if p.is_file()]
    assert loose == []
    assert _run(repo.path, "status") == {"code": 0, "pygit2": False}
    assert "in sync" in repo.ok("status")
    (repo.path / "a.txt").write_text("a3\n")  # a ref moved from packed-refs: still files
    assert _run(repo.path, "record", "a.txt") == {"code": 0, "pygit2": False}
    assert repo.git("fsck", "--strict").strip() == ""
    assert _run(repo.path, "verify") == {"code": 0, "pygit2": False}
