"""`make mutation`: how strong the tests are, as a mutation score, package by package.

mutmut (a development tool, never a dependency of snapline) changes one package at a
time, one small edit at a time, and runs the tests that reach each changed function. A
mutant the tests notice is killed; one they do not survives. The packages
(:data:`PACKAGES`): the restore path (`atomic.py`, `snapshots/record/plan.py`,
`snapshots/record/journal.py`, `snapshots/restore/`; `[tool.mutmut]` in pyproject.toml,
results in `mutants/`), then `snapshots/check/`, `scanning/`, `milestones/` and
`cli/warm/`, each with the narrowest tests that can kill its mutants (mutmut runs every
test of the selection that reaches a mutant, and nearly every test reaches the walk), in
a work folder of its own, `mutation-work/NAME/` (its `pyproject.toml` is the project's
with that package's `[tool.mutmut]`; results in its `mutants/`).

mutmut gets a venv of its own, `.venv-mutation`, so that its dependencies (click 8.4,
chosen below) never change the project's `.venv`; it holds snapline's dependencies, and
snapline itself is not installed there (mutmut runs the copy it mutates,
in `mutants/`), only a console script that imports that copy, for the tests that run
snapline as a user does. Every process a test starts (the console script, the warm server
and its workers) runs the mutant under test, and while mutmut maps tests to functions it
counts what those processes reach too (the venv's `sitecustomize`, written here), so a
mutant of code that runs only there gets the tests that reach it. Not part of `make test`
or CI: a run takes hours on two cores; it runs under `nice -n 19`, one package at a time.

    python scripts/mutation.py                    # every package, then the summary
    python scripts/mutation.py --package check    # one package, then the summary
    python scripts/mutation.py --summary          # only the summary of the last runs
    python scripts/mutation.py --stamp scanning   # reasons written: mark for which code

The summary (score per package and module, and every surviving mutant with the reason
it survives, from scripts/mutation_reasons.toml, as long as it was written for the
function as it is: scripts/mutation_reasons.py) goes to scripts/mutation-report.md:
committed, beside the tool and the reasons it reads, because a run takes hours and the
last one's result is worth keeping. A package with no results here keeps its section of
the report as its last run wrote it. It is a maintainer's list, not a user's document,
so it stays out of docs/.

A package's run outlasts a working session, and the next may be on another machine: each
run and each summary copies the verdicts into scripts/mutation-verdicts/NAME.json
(committed), and a run on a machine that has none goes on from them
(scripts/mutation_verdicts.py says when a verdict still holds).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import mutation_reasons
import mutation_verdicts
import tomllib

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-mutation"
MUTANTS = ROOT / "mutants"
WORK = ROOT / "mutation-work"
REPORT = ROOT / "scripts" / "mutation-report.md"
REASONS = ROOT / "scripts" / "mutation_reasons.toml"
VERDICTS = ROOT / "scripts" / "mutation-verdicts"
MUTMUT = "mutmut==3.8.1"

PACKAGES: dict[str, tuple[str, list[str], list[str]]] = {
    # name: (title, files mutated, the tests that can kill their mutants)
    "restore": ("the restore path", [], []),  # [tool.mutmut] in pyproject.toml
    "check": (
        "snapshots/check/ (what verify checks)",
        ["snapline/snapshots/check/*"],
        [
            "tests/snapshots/check",
            "tests/ledger/test_tamper.py",
            "tests/ledger/test_checkpoint.py",
            "tests/ledger/test_crafted.py",
            "tests/store/ledger/test_checkpoint.py",
            "tests/reliability/test_hostile_store.py",
            "tests/reliability/test_damaged_rows.py",
            "tests/cli/test_verify.py",
            "tests/cli/test_fast_verify.py",
            "tests/reliability/test_resealed_history.py",
            # The ledger's problems word for word, and the field of each.
            "tests/ledger/test_verify_ledger_problems.py",
            # Drift that another line's merged work explains (check/merged.py).
            "tests/history_refs/test_merge_advice.py",
            # A clone that pulled commits before their history: unfetched.py's `pulled`
            # and its advice, and explained.py's `explain_checkout` naming each path no
            # snapshot explains (`_unexplained`), word for word in `--json`.
            "tests/history_refs/test_history_missing.py",
            # unfetched.py's `_checked_out` for each kind of path: a pulled deletion and
            # link, a person's deletion, link, folder and pipe beside them, and no git.
            "tests/history_refs/test_pulled_kinds.py",
            # A reading checkout explained by the refs: a squash merge of two lines
            # (`explain_checkout`'s explanation) and an older commit of the line.
            "tests/history_refs/test_verify_explained.py",
            # A clone whose index was built at a commit behind its line's tip:
            # explained.py's `held_to_checkout`, clean and with a modified file.
            "tests/history_refs/test_fresh_clone.py::"
            "test_a_checkout_that_is_not_the_tip_is_explained_without_reading_what_git_wrote",
            "tests/history_refs/test_fresh_clone.py::"
            "test_a_racily_clean_entry_of_an_older_checkout_is_read",
            "tests/history_refs/test_fresh_clone.py::"
            "test_an_older_checkout_s_deleted_and_untracked_files_are_named_against_its_snapshot",
            # explained.py's `held_to_checkout` for a path no drift names (the latest
            # state's) and for a check of some paths.
            "tests/history_refs/test_older_checkout_held.py",
            # Advice where every write refuses (upgrade_first.py): an old branch's
            # in-tree ledger, and a git merge that brought a branch's ledger back.
            "tests/ledger/test_read_only_advice.py",
            "tests/history_refs/test_merged_ledger_refusal.py::"
            "test_status_and_verify_advise_the_upgrade_never_a_resync",
            # A damaged guard check record on the refs: records.py's problem, in full.
            "tests/history_refs/test_verify_checks.py",
            # A pull that merged local commits: unfetched.py's `_carried` (the pulled
            # file is a remote-tracking ref's version, a local commit's is not).
            "tests/history_refs/test_pull_record.py::"
            "test_a_pull_that_merges_local_commits_is_refused_and_a_local_commit_is_not",
            # The only test that checks a 0.1 store's chain hashes (version 1): the
            # upgrade refuses a store whose chain does not verify.
            "tests/test_upgrade.py::test_first_open_upgrades_and_keeps_the_whole_history",
            # Milestones closed beside the main line, which `snapline upgrade` joins
            # itself: upgrade_first.py's advice for them (_JOIN_BESIDE, _UPGRADE_JOINS).
            "tests/milestones/test_closed_beside.py::"
            "test_verify_names_each_milestone_closed_beside_the_main_line_and_what_settles_them",
            # A deletion while git's merge waits for its commit (merged._merge_waiting's
            # MERGE_HEAD and SQUASH_MSG): another line's recorded work, never filed here.
            "tests/history_refs/test_record_merged.py::"
            "test_record_refuses_a_deletion_another_line_recorded",
        ],
    ),
    "scanning": (
        "scanning/ (the walk, ignore rules, fingerprints, the monitor)",
        ["snapline/scanning/*"],
        [
            "tests/scanning",
            # The monitor runs in the warm server; these hold its answers to the walk's.
            "tests/cli/warm/test_monitor.py",
            "tests/cli/warm/test_monitor_truth.py",
            "tests/cli/warm/test_global_excludes_warm.py",
        ],
    ),
    "milestones": (
        "milestones/",
        ["snapline/milestones/*"],
        [
            "tests/milestones",
            "tests/cli/test_milestones.py",
            # Lines on git's refs joined by `snapline merge`, with a milestone closed on
            # each side (milestones/join.py) and `milestone list`'s lines (lines.py).
            "tests/history_refs/test_merge_lines.py",
            # Two milestones closed on the joined line joined as one (join._carried, merge
            # -m), a line joined with no milestone, and `milestone list`'s lines word for
            # word (lines.other_lines); about a minute each (two clones and a push).
            "tests/history_refs/test_merge_milestones.py",
        ],
    ),
    "warm": (
        "cli/warm/ (the warm server)",
        ["snapline/cli/warm/*"],
        # Not the two state machines (test_monitor_machine, test_monitor_oracle): minutes
        # each, per mutant of the server's loop, and they walk the paths the others pin.
        [
            "tests/cli/warm",
            "--deselect=tests/cli/warm/test_monitor_machine.py",
            "--deselect=tests/cli/warm/test_monitor_oracle.py",
            # Counts the modules the client imports: under mutmut every mutated module
            # imports mutmut too, so it fails on the mapping run itself.
            "--deselect=tests/cli/warm/test_lean_client.py",
        ],
    ),
}
"""Each package's files and tests; ``restore`` is the one in pyproject.toml."""
_PYTEST_ARGS = ["-p", "no:cacheprovider", "-q"]
_DESELECT = [
    # Peak memory, which mutmut's tracing of every call adds to.
    "--deselect",
    "tests/reliability/test_damaged_rows.py::test_a_decompression_bomb_is_refused_without_inflating_it",
]

# mutmut's exit codes (mutmut/stats.py): what each says about one mutant.
_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
           34: "skipped", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
           255: "timeout", -11: "segfault", -9: "segfault", None: "not checked"}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary", action="store_true", help="Only summarise the last runs.")
    parser.add_argument("--package", choices=sorted(PACKAGES), action="append",
                        help="Run only this package (again for more); default: all.")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--stamp", choices=sorted(PACKAGES), metavar="NAME",
                        help="Mark the reasons of package NAME's survivors as written for "
                        "its functions as they are now; nothing is run.")  # fmt: skip
    args = parser.parse_args()
    if args.stamp:
        return _stamp(args.stamp)
    if not args.summary:
        _ensure_venv()
        for name in args.package or list(PACKAGES):
            where = _workdir(name)
            carried = mutation_verdicts.seed(_mutants(name), _table(name), _verdicts(name))
            if carried:
                print(f"{name}: {carried} verdicts carried from {_shown(_verdicts(name))}")
            run = ["nice", "-n", "19", str(VENV / "bin" / "mutmut"), "run"]
            try:
                _run_aside([*run, "--max-children", str(args.jobs)], where)
            finally:
                _keep(name)
    for name in PACKAGES:
        _keep(name)
    results = {name: _results(name) for name in PACKAGES}
    if not any(results.values()):
        print("no mutation results: run `make mutation` first", file=sys.stderr)
        return 1
    previous = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    REPORT.write_text(_report(results, _sections(previous)), encoding="utf-8")
    for name, found in results.items():
        if found:
            print(f"{name}: score {_score(Counter(found.values()))}")
    print(f"wrote {_shown(REPORT)}")
    return 0


def _stamp(name: str) -> int:
    """Stamp the reasons of package ``name``'s mutants with its verdicts' function hashes."""
    _keep(name)
    keys = sorted(mutation_verdicts.results(_verdicts(name), _table(name)))
    if not keys:
        print(f"{name}: no verdicts to stamp reasons against: run it first", file=sys.stderr)
        return 1
    hashes = mutation_verdicts.functions(_verdicts(name), _table(name))
    stamped = mutation_reasons.stamp(REASONS, keys, hashes)
    print(f"{name}: {stamped} reasons stamped in {_shown(REASONS)}")
    return 0


_CHILDREN = "mutmut_children"
_DOCS = ("docs", "README.md")
_CHILDREN_PLUGIN = '''"""What a test starts runs the mutant too, and counts in mutmut's mapping.

Many tests drive snapline as a user does, through the console script, and the warm
server runs in processes of its own: a mutant must reach them, and mutmut must know
which tests reach which functions there too, or it never runs those tests for a
mutant (its mapping run, "stats", sees only the test process). So children import
the mutated copy (PYTHONPATH), and while mutmut maps, the venv's ``sitecustomize``
(written by scripts/mutation.py) makes each child append the functions it reaches to
a file, which this plugin hands to mutmut at the end of each test, before mutmut's
own hook reads the functions of that test. It also runs a mutant's tests fastest first.
"""

import contextlib
import importlib.util
import os
import tempfile

import pytest

_HITS = "SNAPLINE_MUTMUT_HITS"


def pytest_addoption(parser):
    # The folder mutmut's mutated copy of snapline is imported from (its `mutants/`).
    spec = importlib.util.find_spec("snapline")
    package = os.path.dirname(spec.origin)
    paths = [os.path.dirname(package), os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    if os.environ.get("MUTANT_UNDER_TEST") == "stats" and _HITS not in os.environ:
        fd, path = tempfile.mkstemp(prefix="mutmut-hits-")
        os.close(fd)
        os.environ[_HITS] = path
        _made.append(path)


_made = []


def pytest_unconfigure(config):
    for path in _made:
        with contextlib.suppress(OSError):
            os.unlink(path)


def pytest_collection_modifyitems(session, config, items):
    # A mutant's tests, fastest first. mutmut hands them over as a set, in no order, and
    # pytest stops at the first that fails (-x): a mutant a quick test kills would wait
    # for the minute-long merge tests listed before it. The order changes no verdict.
    if os.environ.get("MUTANT_UNDER_TEST", "stats") == "stats":
        return
    durations = _durations()
    if durations:
        items.sort(key=lambda item: durations.get(item.nodeid, float("inf")))


def _durations():
    """mutmut's time of each test in its mapping run (mutmut-stats.json, beside this file)."""
    import json

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutmut-stats.json")
    try:
        with open(path, encoding="utf-8") as stats:
            return json.load(stats).get("duration_by_test", {})
    except (OSError, ValueError):
        return {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    path = os.environ.get(_HITS)
    if path is None or os.environ.get("MUTANT_UNDER_TEST") != "stats":
        return
    from mutmut.state import state

    with open(path, "r+", encoding="utf-8") as hits:
        names = hits.read().split()
        hits.truncate(0)
    state()._stats.update(names)
'''
_SITECUSTOMIZE = '''"""Written by snapline's scripts/mutation.py into the mutation venv only.

While mutmut maps tests to functions ("stats"), a process started by a test records
each mutated function it reaches in the file the test process names (mutmut's own
recording reads a configuration that a process started elsewhere cannot find), once
per function and process.
"""

import os

if os.environ.get("MUTANT_UNDER_TEST") == "stats":
    import mutmut.mutation.trampoline as _trampoline

    _seen = set()

    def _record(name, caller=None):
        path = os.environ.get("SNAPLINE_MUTMUT_HITS")
        if path is None or name in _seen:
            return
        _seen.add(name)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, name.encode() + b"\\n")
        finally:
            os.close(fd)

    _trampoline.record_trampoline_hit = _record
'''
_CONSOLE_SCRIPT = """#!{python}
# snapline's console script in the mutation venv: the tests that run it as a user does
# import the mutated copy (PYTHONPATH, set by the mutmut_children plugin).
import sys

from snapline.cli import main

sys.exit(main())
"""


def _mutants(name: str) -> Path:
    return MUTANTS if name == "restore" else WORK / name / "mutants"


def _workdir(name: str) -> Path:
    """Where mutmut runs for package ``name``: its config, and links to the code and tests."""
    if name == "restore":
        return ROOT
    where = WORK / name
    where.mkdir(parents=True, exist_ok=True)
    # The docs and the README too: a test that holds them to the code reads them beside
    # its checkout (tests/reliability/test_resealed_history.py), and the mapping run
    # stops at the first test that fails.
    for entry in ("snapline", "tests", *_DOCS):
        link = where / entry
        if not link.is_symlink():
            link.symlink_to(ROOT / entry)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    start = text.index("[tool.mutmut]")
    end = text.index("\n[", start + 1)
    (where / f"{_CHILDREN}.py").write_text(_CHILDREN_PLUGIN, encoding="utf-8")
    config = text[:start] + _table(name) + text[end:]
    (where / "pyproject.toml").write_text(config, encoding="utf-8")
    return where


def _table(name: str) -> str:
    """The ``[tool.mutmut]`` table package ``name`` runs with (its verdicts depend on it)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    start = text.index("[tool.mutmut]")
    if name == "restore":
        return text[start : text.index("\n[", start + 1)]
    _, files, tests = PACKAGES[name]
    table = [
        "[tool.mutmut]",
        'source_paths = ["snapline"]',
        f"only_mutate = {json.dumps(files)}",
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        f"also_copy = {json.dumps([f'{_CHILDREN}.py', *_DOCS])}",
        # Tests are imported after the mutant is chosen, never before: a test module
        # that copies the environment when imported (tests/history_refs/gitrepo.py's
        # ENV) would otherwise hand the commands it runs no mutant at all, and every
        # mutant only those commands reach would survive. mutmut's default isolation
        # ("fork") forks each mutant's worker from the process that imported the tests
        # for its mapping run, whatever the warm-up says: its fork server imports
        # nothing before a worker chose its mutant ("none").
        'process_isolation = "forkserver"',
        'forkserver_warmup = "none"',
        # A mutant that loops for ever holds a worker until its CPU limit, by default 30
        # times its tests' time plus one second (2 x 15 x (t + 1)): an hour or more for
        # the selections of minutes. The worker is also stopped, with the same signal, at
        # half that limit in wall time, and that is the bound a busy machine reaches:
        # at 3 x (t + 1) the tests of `_same_changes` (21 s alone) ran out of wall time
        # under a CI run beside them while the mutant behaved exactly like the code. The
        # constant also pays for what a worker does before its tests, since it imports
        # them only after choosing its mutant (above). 5 x (t + 3) of wall time leaves
        # room for both, and a loop still costs minutes, not an hour.
        "timeout_multiplier = 5.0",
        "timeout_constant = 3.0",
        f"pytest_add_cli_args = {json.dumps([*_PYTEST_ARGS, '-p', _CHILDREN, *_DESELECT])}",
        "",
    ]
    return "\n".join(table)


def _verdicts(name: str) -> Path:
    return VERDICTS / f"{name}.json"


def _keep(name: str) -> None:
    """Copy package ``name``'s verdicts on this machine into the repository's file."""
    mutation_verdicts.keep(_mutants(name), _table(name), _verdicts(name))


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _ensure_venv() -> None:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    # `watch` and `mcp` too: tests of the selections run `snapline watch` (watchdog), as
    # the project's own venv (the `dev` extra) does.
    wanted = [*project["dependencies"], *extras["test"], *extras["watch"], *extras["mcp"]]
    # mutmut needs click 8.4 or later; 8.4 is the one these runs were measured with
    # (snapline itself takes any click from 8.2.1 and any typer from 0.21.1, issue 39).
    names = [r if _name(r) != "click" else "click>=8.4,<8.5" for r in wanted]
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", MUTMUT, *names], check=True)
    script = VENV / "bin" / "snapline"
    script.write_text(_CONSOLE_SCRIPT.format(python=python), encoding="utf-8")
    script.chmod(0o755)
    where = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(where) / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")


def _run_aside(command: list[str], where: Path) -> None:
    """Run ``command`` in a session of its own whose CPU share is nice 19 too (Linux).

    With the kernel's autogroups (``kernel.sched_autogroup_enabled``) CPU time is shared
    first between sessions, and a nice value counts only inside its own: a run beside a
    test suite in another terminal took as much CPU as the whole suite. Its own session
    is made nice 19 as a group; the caller's session is left as it is. Ctrl-C here stops
    the run, which a terminal no longer reaches.
    """

    def _nice_group() -> None:  # in the child, after its setsid
        with contextlib.suppress(OSError):
            Path("/proc/self/autogroup").write_text("19")

    process = subprocess.Popen(command, cwd=where, start_new_session=True, preexec_fn=_nice_group)
    try:
        process.wait()
    except KeyboardInterrupt:
        os.killpg(process.pid, signal.SIGINT)
        process.wait()
        raise


def _name(requirement: str) -> str:
    for stop in "<>=!~;[ ":
        requirement = requirement.split(stop, 1)[0]
    return requirement


def _results(name: str) -> dict[str, str]:
    """Package ``name``'s verdicts, as kept (this machine's, once `_keep` copied them)."""
    codes = mutation_verdicts.results(_verdicts(name), _table(name))
    return {key: _STATUS.get(code, "suspicious") for key, code in codes.items()}


def _score(counts: Counter[str]) -> str:
    # Timeouts are noticed (the test run never ended); mutants no test reaches count
    # against the score, as survivors do.
    total = sum(n for status, n in counts.items() if status not in ("skipped", "not checked"))
    caught = counts["killed"] + counts["timeout"] + counts["segfault"]
    return f"{100 * caught / total:.1f}% ({caught} of {total})" if total else "n/a"


def _module(key: str) -> str:
    return key.split(".x", 1)[0].split(".xǁ", 1)[0]


_START, _END = "<!-- package: {} -->", "<!-- end of package: {} -->"


def _sections(previous: str) -> dict[str, str]:
    """The report's section of each package, as its last run wrote it."""
    sections: dict[str, str] = {}
    for name in PACKAGES:
        start, end = _START.format(name), _END.format(name)
        if start in previous and end in previous:
            sections[name] = previous[previous.index(start) : previous.index(end) + len(end)]
    return sections


def _report(results: dict[str, dict[str, str]], kept: dict[str, str]) -> str:
    out = [
        "# Mutation score, package by package",
        "",
        "Written by `make mutation` (scripts/mutation.py, mutmut 3.8.1); see",
        "[guarantees.md](../docs/guarantees.md#how-strong-the-tests-are) for what it measures.",
        "Each package's section is its last run's; a package not run yet says so.",
        "",
        "| package | score |",
        "|---|---|",
    ]
    for name, found in results.items():
        score = _score(Counter(found.values())) if found else _kept_score(kept.get(name))
        unchecked = sum(1 for status in found.values() if status == "not checked")
        if unchecked:  # a score of the mutants checked so far is no package's score
            score = f"partial: {len(found) - unchecked} of {len(found)} checked, {score}"
        out.append(f"| {PACKAGES[name][0]} | {score} |")
    for name, found in results.items():
        out.append("")
        if found:
            out.append(_summary(name, found))
        elif name in kept:
            out.append(kept[name])
        else:
            out += [_START.format(name), f"## {PACKAGES[name][0].capitalize()}", "",
                    "Not run yet.", _END.format(name)]  # fmt: skip
    return "\n".join(out) + "\n"


def _kept_score(section: str | None) -> str:
    if section is None or "**Score: " not in section:
        return "not run yet"
    return section.split("**Score: ", 1)[1].split("**", 1)[0]


def _summary(name: str, results: dict[str, str]) -> str:
    by_module: dict[str, Counter[str]] = {}
    for key, status in results.items():
        by_module.setdefault(_module(key), Counter())[status] += 1
    total = Counter(results.values())
    _, _, tests = PACKAGES[name]
    out = [
        _START.format(name),
        f"## {PACKAGES[name][0].capitalize()}",
        "",
        f"**Score: {_score(total)}** — killed {total['killed']}, timeout {total['timeout']},"
        f" survived {total['survived']}, no tests {total['no tests']}.",
        "",
        *([f"Tests: {', '.join(f'`{t}`' for t in tests)}.", ""] if tests else []),
        *(
            [
                f"**A partial run**: {len(results) - total['not checked']} of {len(results)} "
                "mutants were checked before the run was stopped; the score is of those.",
                "",
            ]
            if total["not checked"]
            else []
        ),
        "| module | score | killed | timeout | survived | no tests |",
        "|---|---|---|---|---|---|",
    ]
    for module, counts in sorted(by_module.items()):
        out.append(
            f"| `{module}` | {_score(counts)} | {counts['killed']} | {counts['timeout']} |"
            f" {counts['survived']} | {counts['no tests']} |"
        )
    reasons = mutation_reasons.load(REASONS)
    hashes = mutation_verdicts.functions(_verdicts(name), _table(name))
    survivors = sorted(k for k, s in results.items() if s in ("survived", "no tests"))
    out += ["", f"### Every survivor ({len(survivors)}), with why it survives", ""]
    grouped: dict[str, list[str]] = {}
    for key in survivors:
        grouped.setdefault(mutation_reasons.explain(key, reasons, hashes, name), []).append(key)
    for reason, keys in sorted(grouped.items(), key=lambda item: -len(item[1])):
        out += [f"#### {reason}", ""]
        for key in keys:
            out.append(f"- `{key}` ({results[key]})")
        out.append("")
    out.append(_END.format(name))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
