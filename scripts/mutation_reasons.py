"""Why each surviving mutant survives (scripts/mutation_reasons.toml), and whether it still fits.

A reason names its mutants by mutmut's numbers (``…x_walk__mutmut_7``), and a number
names one change only in one version of its function: an edit above it renumbers the
function's later mutants, and a reason written for one change would then be shown beside
another, unnoticed. So each entry says which version of each function it was written for
(``written_for``: mutmut's hash of the function's source, as its verdicts carry it), and
a survivor whose function is no longer that version counts as one without a reason: read
the reason again, mend its numbers, then stamp it (`scripts/mutation.py --stamp NAME`).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

import tomllib

MISSING = "**no reason recorded yet: kill it or explain it in scripts/mutation_reasons.toml**"
STALE = (
    "**reason written for another version of `{function}`: read it again, mend its numbers,"
    " then `scripts/mutation.py --stamp {package}`**"
)


@dataclass(frozen=True)
class Reason:
    """One ``[[survivor]]`` entry: the mutants it explains, why, and for which code."""

    patterns: tuple[str, ...]
    text: str
    written_for: dict[str, str]  # function (its mutants' name before ``__mutmut_``) -> hash

    def matches(self, key: str) -> bool:
        return any(fnmatch.fnmatchcase(key, pattern) for pattern in self.patterns)


def load(path: Path) -> list[Reason]:
    """The entries of ``path``, in order (none when it does not exist)."""
    if not path.exists():
        return []
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    return [
        Reason(_patterns(entry["mutants"]), entry["reason"], dict(entry.get("written_for", {})))
        for entry in table.get("survivor", [])
    ]


def explain(key: str, reasons: list[Reason], hashes: dict[str, str], package: str) -> str:
    """Why mutant ``key`` survives, while its function is at ``hashes``' version.

    The first entry whose patterns match it, when written for that version; the stale
    mark when written for another (or for none: an entry not stamped yet).
    """
    for reason in reasons:
        if reason.matches(key):
            function = function_of(key)
            written_for = reason.written_for.get(function)
            if written_for is None or written_for != hashes.get(function):
                return STALE.format(function=function, package=package)
            return reason.text
    return MISSING


def stamp(path: Path, keys: list[str], hashes: dict[str, str]) -> int:
    """Say in ``path`` which version each entry matching ``keys`` was written for; how many.

    ``keys``: a package's mutants; ``hashes``: its functions' hashes, from its verdicts.
    Only entries not stamped yet are written, each after its own lines; comments and
    layout stay as they are.
    """
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    starts = [n for n, line in enumerate(lines) if line.strip() == "[[survivor]]"]
    stamped = 0
    for start, reason in reversed(list(zip(starts, load(path), strict=True))):
        if reason.written_for:
            continue
        functions = sorted({function_of(key) for key in keys if reason.matches(key)})
        if not functions or any(f not in hashes for f in functions):
            continue  # another package's entry, or a function these verdicts lack
        end = start + 1
        while end < len(lines) and lines[end].strip() and not lines[end].startswith(("[", "#")):
            end += 1
        pairs = ", ".join(f'"{f}" = "{hashes[f]}"' for f in functions)
        lines.insert(end, f"written_for = {{ {pairs} }}\n")
        stamped += 1
    text = "".join(lines)
    tomllib.loads(text)  # never leave the file unreadable
    path.write_text(text, encoding="utf-8")
    return stamped


def function_of(key: str) -> str:
    """The function of mutant ``key``: its name before ``__mutmut_``."""
    return key.rpartition("__mutmut_")[0]


def _patterns(mutants: str | list[str]) -> tuple[str, ...]:
    """One ``fnmatch`` pattern, or a list of them sharing one reason."""
    return (mutants,) if isinstance(mutants, str) else tuple(mutants)
