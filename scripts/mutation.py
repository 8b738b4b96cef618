"""`make mutation`: how strong the tests of the restore path are, as a mutation score.

mutmut (a development tool, never a dependency of snapline) changes the restore path one
small edit at a time (`atomic.py`, `snapshots/record/plan.py`, `snapshots/record/journal.py`,
`snapshots/restore/`; `[tool.mutmut]` in pyproject.toml) and runs the tests that reach each
changed function. A mutant the tests notice is killed; one they do not survives.

mutmut needs click 8.4 or later, which snapline's own pin (below 8.3, for start-up time)
excludes, so it gets a venv of its own, `.venv-mutation`, holding snapline's dependencies
without the pins; snapline itself is not installed there (mutmut runs the copy it mutates,
in `mutants/`). Not part of `make test` or CI: a run takes about two hours on two idle cores.

    python scripts/mutation.py            # run, then write the summary
    python scripts/mutation.py --summary  # only the summary of the last run

The summary (score per module, and every surviving mutant with its diff and the reason
it survives, from scripts/mutation_reasons.toml) goes to scripts/mutation-report.md:
committed, beside the tool and the reasons it reads, because a run takes hours and the
last one's result is worth keeping; it is a maintainer's list, not a user's document,
so it stays out of docs/.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-mutation"
MUTANTS = ROOT / "mutants"
REPORT = ROOT / "scripts" / "mutation-report.md"
REASONS = ROOT / "scripts" / "mutation_reasons.toml"
MUTMUT = "mutmut==3.8.1"

# mutmut's exit codes (mutmut/stats.py): what each says about one mutant.
_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
           34: "skipped", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
           255: "timeout", -11: "segfault", -9: "segfault", None: "not checked"}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary", action="store_true", help="Only summarise the last run.")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if not args.summary:
        _ensure_venv()
        run = [str(VENV / "bin" / "mutmut"), "run", "--max-children", str(args.jobs)]
        subprocess.run(run, cwd=ROOT, check=False)
    results = _results()
    if not results:
        print("no mutation results: run `make mutation` first", file=sys.stderr)
        return 1
    REPORT.write_text(_summary(results), encoding="utf-8")
    counts = Counter(results.values())
    print(f"score {_score(counts)} ({dict(counts)}); wrote {REPORT.relative_to(ROOT)}")
    return 0


def _ensure_venv() -> None:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    # Names only: mutmut's click (>= 8.4) and snapline's pin (< 8.3) cannot both hold.
    names = [_name(requirement) for requirement in wanted]
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", MUTMUT, *names], check=True)


def _name(requirement: str) -> str:
    for stop in "<>=!~;[ ":
        requirement = requirement.split(stop, 1)[0]
    return requirement


def _results() -> dict[str, str]:
    results: dict[str, str] = {}
    for meta in sorted(MUTANTS.glob("snapline/**/*.py.meta")):
        data = json.loads(meta.read_text())
        for key, code in data["exit_code_by_key"].items():
            results[key] = _STATUS.get(code, "suspicious")
    return results


def _score(counts: Counter[str]) -> str:
    # Timeouts are noticed (the test run never ended); mutants no test reaches count
    # against the score, as survivors do.
    total = sum(n for status, n in counts.items() if status not in ("skipped", "not checked"))
    caught = counts["killed"] + counts["timeout"] + counts["segfault"]
    return f"{100 * caught / total:.1f}% ({caught} of {total})" if total else "n/a"


def _module(key: str) -> str:
    return key.split(".x", 1)[0].split(".xǁ", 1)[0]


def _reasons() -> list[tuple[str, str]]:
    if not REASONS.exists():
        return []
    table = tomllib.loads(REASONS.read_text(encoding="utf-8"))
    return [(entry["mutants"], entry["reason"]) for entry in table.get("survivor", [])]


def _reason(key: str, reasons: list[tuple[str, str]]) -> str:
    for pattern, reason in reasons:
        if fnmatch.fnmatchcase(key, pattern):
            return reason
    return "**no reason recorded yet: kill it or explain it in scripts/mutation_reasons.toml**"


def _summary(results: dict[str, str]) -> str:
    by_module: dict[str, Counter[str]] = {}
    for key, status in results.items():
        by_module.setdefault(_module(key), Counter())[status] += 1
    total = Counter(results.values())
    out = [
        "# Mutation score of the restore path",
        "",
        "Written by `make mutation` (scripts/mutation.py, mutmut 3.8.1); see",
        "[guarantees.md](../docs/guarantees.md#how-strong-the-tests-are) for what it measures.",
        "",
        f"**Score: {_score(total)}** — killed {total['killed']}, timeout {total['timeout']},"
        f" survived {total['survived']}, no tests {total['no tests']}.",
        "",
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
    reasons = _reasons()
    survivors = sorted(k for k, s in results.items() if s in ("survived", "no tests"))
    out += ["", f"## Every survivor ({len(survivors)}), with why it survives", ""]
    grouped: dict[str, list[str]] = {}
    for key in survivors:
        grouped.setdefault(_reason(key, reasons), []).append(key)
    for reason, keys in sorted(grouped.items(), key=lambda item: -len(item[1])):
        out += [f"### {reason}", ""]
        for key in keys:
            out.append(f"- `{key}` ({results[key]})")
        out.append("")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
