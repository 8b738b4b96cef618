"""The processes an agent or CI starts on every edit load only what they use (issue 16).

``snapline record F``, the Claude Code hook (a PreToolUse check, then a PostToolUse
record) and a ``snapline verify`` that finds nothing wrong run as whole processes, as
agents and CI run them; each reports what it imported.
Costs are not timed here (no timing in unit tests): what a process must not load is
named, so a new import cannot slip in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# Not needed by these commands: the CLI framework, coloured output (not a terminal),
# the filelock package (snapline's own lock replaces it), pydantic (they answer from
# the rows they commit: workspace/rows.py), the code of other commands, and the parts
# of recording that only writes, recovery and a catch-up with the ledger use.
NOT_NEEDED = (
    "typer",
    "click",
    "rich",
    "filelock",
    "pydantic",
    "pydantic_core",
    "importlib.metadata",
    "snapline.snapshots.snapshot",
    "snapline.snapshots.info",
    "snapline.snapshots.read.convert",
    "snapline.cli.app",
    "snapline.milestones",
    "snapline.snapshots.restore",
    "snapline.snapshots.check.sequence",
    "snapline.validation",
    "snapline.report",
    "snapline.upgrade",
    "snapline.snapshots.record.journal",
    "snapline.snapshots.record.plan",
    "snapline.snapshots.read.unidiff",
    "snapline.store.ledger.importing",
    "snapline.store.ledger.forgotten",
    "snapline.store.ledger.forget_format",
    "logging",  # imported when there is a warning to log
    # The standard library's heavier modules, not needed to record (issue 29): uuid
    # imports platform, secrets imports random, shutil imports lzma and bz2.
    "uuid",
    "platform",
    "secrets",
    "shutil",
    "lzma",
    # dataclasses and what it loads (inspect, and through it ast, dis, tokenize): the
    # records a command passes around are named tuples or plain classes, as a frozen
    # dataclass costs a cold process several times more to build (issue 39).
    "dataclasses",
    "inspect",
    # signal's and subprocess's enums and selectors: only a crash point that fires, the
    # warm client talking to a server, and a look at git (a baseline version, another
    # branch's ledger) need them (issue 39).
    "signal",
    "subprocess",
    # An inotify watch of the ledger (and ctypes, which it speaks through) is for a
    # process that checks it more than a one-shot command does.
    "ctypes",
    "snapline.store.ledger.watch",
    "snapline.scanning.inotify",
    # libgit2: a record reads and writes git's files itself (store/refs/filedb.py); the
    # library is for what only it does (merges, a repository those files do not cover).
    "pygit2",
    "snapline.store.refs",
    # The history's queries (references, ids, the history's reads): the workspace's
    # reading, diffing and restoring methods import them when they run (issue 39).
    "snapline.snapshots.read.history",
    "snapline.snapshots.read.refs",
    "snapline.snapshots.read.ids",
    "snapline.snapshots.read.snapshots",
    # The store's protocols are types: they build sixteen Protocol classes at import.
    "snapline.store.protocol",
    "snapline.store.protocol_changes",
)

# verify checks what recording leaves alone (the sequence, the milestones, the ledger
# files), and builds the public models only for the problems it finds.
VERIFY_NOT_NEEDED = (
    *(
        name
        for name in NOT_NEEDED
        if name
        not in {
            "snapline.milestones",
            "snapline.snapshots.check.sequence",
            "snapline.validation",
            "snapline.store.ledger.forgotten",
            "snapline.store.ledger.forget_format",
            # verify's checks still build dataclasses of their own.
            "dataclasses",
            "inspect",
            # and read the history's snapshots, some through the store's protocols.
            "snapline.snapshots.read.history",
            "snapline.snapshots.read.snapshots",
            "snapline.store.protocol",
            "snapline.store.protocol_changes",
        }
    ),
    "snapline.milestones.milestone",
    "snapline.milestones.manager",
    "snapline.milestones.read",
)

# What every process loads on its way in: the warm server's client (cli/warm/client.py),
# the standard library's smallest pieces, and the command line it runs when no server
# answers.
CLIENT = {
    "snapline.cli.warm",
    "snapline.cli.warm.client",
    "snapline.cli.warm.protocol",
    "snapline.cli.dispatch",
    "snapline.cli.lean",
    "snapline.cli.commands",
    "_socket",
    "zlib",
}

# A history on git's refs reads and writes no in-tree ledger (issue 39): its store and
# the catch-up with it stay unloaded.
REFS_NOT_NEEDED = (
    "snapline.store.ledger.store",
    "snapline.store.ledger.sync",
    "snapline.store.ledger.baseline",
    "snapline.store.ledger.agreement",
)

# What the default store (git's refs; outside git its private repository) must not load:
# it reads and writes git's files itself (store/refs/filedb.py), so of the refs store only
# what a command uses, and no libgit2.
ON_REFS = (*(name for name in NOT_NEEDED if name != "snapline.store.refs"), *REFS_NOT_NEEDED)
# What an edit recorded on the refs (`record F`, the hook) never runs, loaded where it is
# used (issue 39): the content settings (read when an index is built), a baseline's
# parent (the git binary), a file kept by hash only, tree comparisons, the ledger's
# change-block readers (a record only renders), the in-tree ledger's opening and files.
RECORD_ON_REFS = (
    *ON_REFS,
    "snapline.store.refs.settings",
    "snapline.store.refs.based",
    "snapline.git_binary",
    "snapline.store.refs.large_files",
    "snapline.store.refs.streamed",
    "snapline.store.refs.treediff",
    "snapline.store.ledger.change_block",
    "snapline.store.ledger.spellings",
    "snapline.store.ledger.opening",
    "snapline.store.ledger.stray",
    "snapline.store.ledger.files",
    "snapline.store.ledger.objects",
    "snapline.store.ledger.listed",
    "snapline.store.ledger.checkpoint",
)
VERIFY_ON_REFS = (
    *(name for name in VERIFY_NOT_NEEDED if name != "snapline.store.refs"),
    *REFS_NOT_NEEDED,
)

_DRIVER = """
import json, sys
from snapline.cli import main

sys.argv = ["snapline", *json.loads(sys.argv[1])]
code = 0
try:
    main()
except SystemExit as exit:
    code = exit.code

report = {"code": code, "modules": sorted(sys.modules)}
with open(REPORT, "w") as out:
    json.dump(report, out)
"""


def _run(
    root: Path, args: list[str], stdin: str = "", env: dict[str, str] | None = None
) -> dict[str, Any]:
    report = root.parent / "report.json"
    driver = _DRIVER.replace("REPORT", repr(str(report)))
    done = subprocess.run(
        [sys.executable, "-c", driver, json.dumps(args)],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert report.is_file(), done.stderr
    result: dict[str, Any] = json.loads(report.read_text())
    result["stdout"], result["stderr"] = done.stdout, done.stderr
    return result


def _lean(result: dict[str, Any], not_needed: tuple[str, ...] = NOT_NEEDED) -> None:
    loaded = set(result["modules"])
    assert "snapline.workspace" in loaded  # sanity: the command did its work
    assert not loaded & set(not_needed), sorted(loaded & set(not_needed))
    below = tuple(f"{name}." for name in not_needed)
    assert not any(name.startswith(below) for name in loaded)


def test_record_loads_only_what_it_uses(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    result = _run(project, ["record", "src/app.py", "-m", "edit"])
    assert result["code"] == 0 and "recorded snapshot 1" in result["stdout"]
    _lean(result, RECORD_ON_REFS)


def _event(root: Path, name: str) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(root),
            "hook_event_name": name,
            "tool_name": "Edit",
            "tool_input": {"file_path": str(root / "src" / "app.py")},
        }
    )


def test_the_hook_round_trip_loads_only_what_it_uses(project: Path) -> None:
    before = _run(project, ["hook", "claude-code"], _event(project, "PreToolUse"))
    assert before["code"] == 0 and before["stderr"] == ""
    _lean(before, RECORD_ON_REFS)
    (project / "src" / "app.py").write_text("print('bye')\n")
    after = _run(project, ["hook", "claude-code"], _event(project, "PostToolUse"))
    assert after["code"] == 0 and after["stderr"] == ""
    _lean(after, RECORD_ON_REFS)
    assert "snapline: " not in after["stderr"]


def test_a_verify_that_finds_nothing_loads_only_what_it_uses(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    assert _run(project, ["record", "src/app.py"])["code"] == 0
    made = _run(project, ["milestone", "create", "--to", "latest", "--title", "first"])
    assert made["code"] == 0, made["stderr"]
    first = _run(project, ["verify"])  # the whole history: no checkpoint yet
    assert first["code"] == 0 and "snapshots 0..1 verified," in first["stdout"]
    _lean(first, VERIFY_ON_REFS)
    (project / "README.md").write_text("# renamed demo\n")
    assert _run(project, ["record", "README.md"])["code"] == 0
    since = _run(project, ["verify", "--format", "github"])  # what is new since then
    assert since["code"] == 0 and "0..1 by an earlier check" in since["stdout"]
    _lean(since, VERIFY_ON_REFS)


def test_a_verify_that_finds_a_problem_still_names_it(project: Path) -> None:
    (project / "README.md").write_text("# changed outside snapline\n")
    found = _run(project, ["verify"])
    assert found["code"] == 1
    assert "verification failed: 1 problem" in found["stdout"]
    assert "README.md" in found["stdout"]


def _typer_needs_pydantic() -> bool:
    # From 0.26 typer checks every option's value with a pydantic TypeAdapter: there
    # pydantic loads with any typer command, though snapline builds none of its models.
    from importlib.metadata import requires

    needs = [line.split(";")[0].strip() for line in requires("typer") or []]
    return any(need.startswith("pydantic") for need in needs)


def test_log_builds_no_model(project: Path) -> None:
    (project / "src" / "app.py").write_text("print('bye')\n")
    assert _run(project, ["record", "src/app.py", "-m", "edit"])["code"] == 0
    listed = _run(project, ["log"])
    assert listed["code"] == 0 and "edit  [1 file]" in listed["stdout"]
    assert "baseline  [2 files]" in listed["stdout"]
    models = {"snapline.snapshots.snapshot", "snapline.snapshots.read.convert"}
    if not _typer_needs_pydantic():
        models.add("pydantic")
    assert not models & set(listed["modules"]), sorted(models & set(listed["modules"]))


def test_version_loads_nothing_but_the_package(tmp_path: Path) -> None:
    # Hosts and installers run `snapline --version` to see what is installed: the
    # interpreter's start and the answer, nothing else (issue 16, row 5b).
    here = tmp_path / "here"
    here.mkdir()
    idle_report = tmp_path / "idle.json"
    idle_script = (
        "import json, sys\n"
        f"with open({str(idle_report)!r}, 'w') as out:\n"
        "    json.dump(sorted(sys.modules), out)\n"
    )
    subprocess.run([sys.executable, "-c", idle_script], cwd=here, check=True)
    idle = set(json.loads(idle_report.read_text()))

    version = _run(here, ["--version"])

    assert version["code"] == 0 and version["stdout"].startswith("snapline ")
    added = set(version["modules"]) - idle
    assert added <= {"snapline", "snapline.lazy", "snapline.cli", *CLIENT}, sorted(added)


# Run without `site`, the checkout on the path: reports the modules loaded, as text (json
# would load re, enum and more itself).
_BARE_DRIVER = """
import sys
sys.path.insert(0, CHECKOUT)
sys.argv = ["snapline", "--version"]
if ARGV:
    from snapline.cli import main
    try:
        main()
    except SystemExit:
        pass
sys.stderr.write(" ".join(sorted(sys.modules)))
"""


def _bare(here: Path, run_main: bool) -> set[str]:
    checkout = Path(__file__).resolve().parents[2]
    driver = _BARE_DRIVER.replace("CHECKOUT", repr(str(checkout))).replace("ARGV", str(run_main))
    done = subprocess.run(
        [sys.executable, "-S", "-c", driver], cwd=here, capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("snapline ") if run_main else done.stdout == ""
    return set(done.stderr.split())


def test_version_loads_no_more_of_the_standard_library_than_python_itself(
    tmp_path: Path,
) -> None:
    # This venv's editable install loads its finder (and enum, re, importlib...) into
    # every interpreter, which hides them from the test above; an installed snapline
    # has no finder. Without `site`, what `--version` adds to the interpreter shows.
    here = tmp_path / "here"
    here.mkdir()
    added = _bare(here, True) - _bare(here, False)
    assert "snapline.cli.warm.client" in added  # sanity: it ran the command line
    # `site` loads os (and what it imports) into every interpreter anyway.
    site = {"os", "os.path", "posixpath", "genericpath", "stat", "_stat", "_collections_abc"}
    ours = {name for name in added if name.split(".")[0] != "snapline"}
    assert ours <= {"__future__", "errno", "_socket", "zlib", *site}, sorted(ours - site)


@pytest.mark.parametrize("layout", ["git", "private"])
def test_on_git_refs_record_and_a_caught_up_verify_load_no_git_library(
    root: Path, layout: str
) -> None:
    # A history on git's refs (init at a git work tree's top, or outside git on its
    # private repository): record reads and writes git's files itself
    # (store/refs/filedb.py, issue 39), and loads the refs store but nothing else of
    # NOT_NEEDED; a verify whose index is where the refs are reads them from git's files.
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    if layout == "git":
        subprocess.run(["git", "init", "-q", str(root)], check=True, env={**os.environ, **env})
    (root / "app.py").write_text("print('hello')\n")
    assert _run(root, ["init"])["code"] == 0
    state = root / (".git/snapline" if layout == "git" else ".snapline")
    assert (state / "index.db").is_file()
    (root / "app.py").write_text("print('bye')\n")
    recorded = _run(root, ["record", "app.py"])
    assert recorded["code"] == 0 and "recorded snapshot 1" in recorded["stdout"]
    assert "snapline.store.refs.filedb" in recorded["modules"]  # it wrote git's objects
    _lean(recorded, ON_REFS)
    (root / "app.py").write_text("print('hooked')\n")
    event = json.loads(_event(root, "PostToolUse"))
    event["tool_input"]["file_path"] = str(root / "app.py")
    hooked = _run(root, ["hook", "claude-code"], json.dumps(event))
    assert hooked["code"] == 0 and hooked["stderr"] == "", hooked["stderr"]
    assert "snapline.store.refs.filedb" in hooked["modules"]  # it recorded
    _lean(hooked, ON_REFS)
    checked = _run(root, ["verify"])
    assert checked["code"] == 0 and "snapshots 0..2 verified," in checked["stdout"]
    _lean(checked, VERIFY_ON_REFS)


def test_record_after_git_fetched_asks_about_pulled_files_cheaply(root: Path) -> None:
    # After a `git fetch` newer than the history's last `snapline fetch` (an IDE's
    # autofetch does it every few minutes), record asks whether a drift came with the
    # fetched commits (snapshots/record/mismatch.refuse_unfetched): two stats, then one
    # lookup of each new content's blob. An agent's fresh edit is no blob git holds, so
    # the whole question (git processes, libgit2, the lines read) is never asked.
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid"]

    def run_git(*args: str) -> None:
        subprocess.run([*git, *args], cwd=root, check=True, env={**os.environ, **env})

    run_git("init", "-q", "-b", "main")
    (root / "app.py").write_text("print('hello')\n")
    run_git("add", "app.py")
    run_git("commit", "-qm", "start")
    assert _run(root, ["init"])["code"] == 0
    run_git("init", "-q", "--bare", str(root.parent / "origin.git"))
    run_git("remote", "add", "origin", str(root.parent / "origin.git"))
    run_git("push", "-q", "--no-verify", "origin", "main")
    run_git("fetch", "-q", "origin")
    assert (root / ".git" / "FETCH_HEAD").is_file()

    (root / "app.py").write_text("print('bye')\n")
    recorded = _run(root, ["record", "app.py"])
    assert recorded["code"] == 0 and "recorded snapshot 1" in recorded["stdout"]
    (root / "app.py").write_text("print('hooked')\n")
    event = json.loads(_event(root, "PostToolUse"))
    event["tool_input"]["file_path"] = str(root / "app.py")
    hooked = _run(root, ["hook", "claude-code"], json.dumps(event))
    assert hooked["code"] == 0 and hooked["stderr"] == "", hooked["stderr"]
    for done in (recorded, hooked):
        assert "snapline.store.refs.fetched" in done["modules"]  # the question was asked
        assert "snapline.snapshots.check.unfetched" not in done["modules"]
        _lean(done, ON_REFS)
