"""A checkout whose history is the 0.2 in-tree ledger: read as before, written never.

The ledger is ``tests/fixtures/ledger-2.bundle``, written by the code of c82d55b (its
``main`` carries ``.snapline/ledger/``). Every command that would write it refuses
before changing anything, exit 1 and one line that says what (the 0.2 in-tree ledger)
and what to do (``snapline upgrade``); the hook, which never blocks the agent, says the
same line as its warning. The oracle is git (``git status``) and the bytes on disk:
nothing in the work tree, the ledger included, changes. Reading commands still answer.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, Repo, new_repo
from tests.history_refs.upgrading import clone_fixture, git_status

REFUSAL = (
    "snapline: error: this checkout's history is the 0.2 in-tree ledger, .snapline/ledger/, "
    "which this snapline reads but no longer writes: run `snapline upgrade` to move it onto "
    "git's refs, then try again; nothing was changed"
)

WRITERS = [
    ("record", "-m", "edit"),
    ("record",),
    ("run", "--", "sh", "-c", "echo ran > ran.txt"),
    ("resync", "-m", "outside"),
    ("milestone", "create", "--title", "more", "--to", "latest"),
    ("forget", "README.md", "-m", "a secret"),
    ("rollback", "--to", "1", "--force"),
    ("revert", "2", "--yes"),
    ("undo", "--force", "--yes"),
    ("redo", "--yes"),
    ("guard", "--", "sh", "-c", "echo ran > guarded.txt"),
    ("merge",),
]

READERS = [
    ("log",),
    ("show", "1"),
    ("diff", "1", "2"),
    ("status",),
    ("milestone", "list"),
    ("blame", "src/app.py"),
]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """A fresh clone of ledger-2 on ``main``, its index built, ``src/app.py`` edited."""
    repo = clone_fixture("ledger-2", tmp_path_factory.mktemp("inread") / "repo")
    assert (repo.path / ".snapline" / "ledger" / "FORMAT").is_file()
    repo.ok("log")  # the local index, built from the ledger (a cache, never committed)
    (repo.path / "src" / "app.py").write_text("def main():\n    return 42\n")
    return repo


def _disk(repo: Repo) -> dict[str, str]:
    """SHA-256 of every file of the work tree (the ledger's too), git's and the index left out."""
    found = {}
    for path in sorted(repo.path.rglob("*")):
        rel = path.relative_to(repo.path).as_posix()
        if rel.startswith(".git/") or not path.is_file():
            continue
        if rel.startswith(".snapline/") and not rel.startswith(".snapline/ledger/"):
            continue  # the local index and lock: snapline's cache, ignored by git
        found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.mark.parametrize("argv", WRITERS, ids=" ".join)
def test_a_writing_command_refuses_and_changes_nothing(checkout: Repo, argv: tuple[str]) -> None:
    before, status = _disk(checkout), git_status(checkout)
    done = checkout.snap(*argv)
    assert (done.returncode, done.stderr.splitlines()) == (1, [REFUSAL]), done
    assert (_disk(checkout), git_status(checkout)) == (before, status)


def test_json_errors_name_the_refusal(checkout: Repo) -> None:
    done = checkout.snap("record", "--json")
    said = json.loads(done.stdout)
    assert (done.returncode, said["kind"], said["exit_code"]) == (1, "InTreeLedgerError", 1)
    assert said["error"] == REFUSAL.removeprefix("snapline: error: ")


def test_the_hook_records_nothing_and_says_why(checkout: Repo) -> None:
    target = checkout.path / "src" / "app.py"
    event = {
        "session_id": "sess-1",
        "transcript_path": str(checkout.path.parent / "transcript.jsonl"),
        "cwd": str(checkout.path),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_use_id": "toolu_01",
        "tool_input": {"file_path": str(target), "content": target.read_text()},
        "tool_response": {"filePath": str(target), "success": True},
    }
    before, status = _disk(checkout), git_status(checkout)
    done = subprocess.run(
        [sys.executable, "-m", "snapline", "hook", "claude-code"],
        input=json.dumps(event),
        cwd=checkout.path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # A hook never blocks the agent (exit 0); its warning is the refusal's line, shown
    # to the person (systemMessage) and told to the model (its Write not recorded).
    warning = REFUSAL.replace("error:", "warning:") + "; this change was not recorded"
    assert (done.returncode, done.stderr.splitlines()) == (0, [warning])
    said = json.loads(done.stdout)
    assert said["systemMessage"] == warning
    assert said["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert (
        f"did not record your Write of {target}"
        in (said["hookSpecificOutput"]["additionalContext"])
    )
    assert (_disk(checkout), git_status(checkout)) == (before, status)


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_reading_commands_still_answer(checkout: Repo, argv: tuple[str]) -> None:
    done = checkout.snap(*argv)
    assert done.returncode == 0, done
    assert done.stdout


def test_verify_reads_the_ledger_and_names_the_drift(checkout: Repo) -> None:
    done = checkout.snap("verify", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 1, done  # src/app.py was edited outside snapline
    assert [p["path"] for p in report["problems"]] == ["src/app.py"]


def test_upgrade_moves_the_refused_history(checkout: Repo, tmp_path: Path) -> None:
    import shutil

    moved = Repo(tmp_path / "moved")
    shutil.copytree(checkout.path, moved.path, symlinks=True)
    (moved.path / "src" / "app.py").write_text(
        moved.git("show", "HEAD:src/app.py"), encoding="utf-8"
    )
    from tests.history_refs.upgrading import upgrade

    assert upgrade(moved).returncode == 0
    assert moved.snap("record", "-m", "after the upgrade").returncode == 0


def test_init_makes_no_in_tree_ledger(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", {"app.py": "print(1)\n"})
    done = repo.snap("init", "--in-tree")
    assert done.returncode == 2 and "--in-tree" in done.stderr, done
    assert not (repo.path / ".snapline").exists()
    # A .snapline/ an old checkout left (its local files, no ledger) is no store: the
    # history goes onto the refs, as in any work tree.
    (repo.path / ".snapline").mkdir()
    (repo.path / ".snapline" / "lock").write_text("")
    repo.ok("init")
    assert repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").strip()
    assert not (repo.path / ".snapline" / "ledger").exists()
    assert repo.ok("log", "--json").count('"number"') == 1


def test_init_refuses_a_checkout_that_carries_a_ledger(checkout: Repo) -> None:
    before = _disk(checkout)
    done = checkout.snap("init")
    assert done.returncode == 2 and "already" in done.stderr, done
    assert _disk(checkout) == before
