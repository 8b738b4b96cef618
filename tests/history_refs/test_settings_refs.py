"""The content settings chosen at ``init`` travel with a history on git's refs.

``init --large-file-limit N`` is a setting of the history, as the in-tree ledger's
``config.json`` is: a fresh clone that fetches the history, and an index rebuilt from
the refs, use it, never the defaults. A history written before the settings were kept
on the refs (no settings ref) keeps the defaults. Observed in the index the first
command of each checkout builds (``meta.config``), through the installed script.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo
from tests.history_refs.upgrading import upgrade
from tests.old_ledgers import LEDGER, ledger_checkout

_LIMIT = 4096
_DEFAULT = 64 << 20


def _limit(repo: Repo) -> int:
    """The large-file limit of the index the work tree's last command used."""
    db = sqlite3.connect(f"file:{repo.path / '.git' / 'snapline' / 'index.db'}?mode=ro", uri=True)
    try:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
    finally:
        db.close()
    return int(json.loads(text)["large_file_limit"])


def _published(tmp_path: Path) -> tuple[Repo, Path]:
    origin = tmp_path / "origin.git"
    first = new_repo(tmp_path / "first", {"app.py": "print(1)\n"})
    first.ok("init", "--large-file-limit", str(_LIMIT))
    first.git("init", "-q", "--bare", str(origin))
    first.git("remote", "add", "origin", str(origin))
    first.ok("push", "origin")
    first.git("push", "-q", "origin", "main")
    return first, origin


def test_a_fresh_clone_and_a_rebuilt_index_keep_the_settings(tmp_path: Path) -> None:
    first, origin = _published(tmp_path)
    assert _limit(first) == _LIMIT
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", str(origin), str(clone.path))
    clone.ok("fetch", "origin")
    clone.ok("verify")
    assert _limit(clone) == _LIMIT
    (first.path / ".git" / "snapline" / "index.db").unlink()
    first.ok("log")  # the index rebuilt from the refs
    assert _limit(first) == _LIMIT


def test_a_history_without_settings_on_its_refs_keeps_the_defaults(tmp_path: Path) -> None:
    first, _ = _published(tmp_path)
    for ref in first.git("for-each-ref", "--format=%(refname)", "refs/snapline/").split():
        if not ref.startswith(("refs/snapline/lines/", "refs/snapline/milestones/")):
            first.git("update-ref", "-d", ref)  # as a snapline before them wrote it
    (first.path / ".git" / "snapline" / "index.db").unlink()
    first.ok("verify")
    assert _limit(first) == _DEFAULT


def test_an_upgraded_ledger_takes_its_settings_onto_the_refs(tmp_path: Path) -> None:
    # An old branch's in-tree ledger (ledger-2, written with the defaults), its committed
    # config.json given another limit, as `--large-file-limit` wrote it at its init.
    repo = ledger_checkout(tmp_path / "work")
    config = repo.path / LEDGER / "config.json"
    settings = json.loads(config.read_text())
    assert settings["large_file_limit"] == _DEFAULT
    config.write_text(json.dumps({**settings, "large_file_limit": _LIMIT}, indent=2) + "\n")
    repo.git("commit", "-qam", "the history's settings, in the tree")
    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    (repo.path / ".git" / "snapline" / "index.db").unlink()
    repo.ok("verify")
    assert _limit(repo) == _LIMIT
