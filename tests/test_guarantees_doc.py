"""docs/guarantees.md cites only tests that exist (issues 37 and 39).

Each guarantee names the tests that show it. A cited test file (`dir/test_x.py`,
relative to tests/, `R/` for tests/reliability/) must be a file under tests/, and each
cited test (`dir/test_x.py::test_name`, or `::test_name` after a file in the same
paragraph or row) a function of that name in it, so a test deleted or moved cannot
leave the doc citing it.
"""

from __future__ import annotations

import re
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
TESTS = CHECKOUT / "tests"
DOC = CHECKOUT / "docs" / "guarantees.md"

# A code span naming a test file (with an optional test), or a test of the file before.
_FILE = re.compile(r"^(?:tests/)?((?:[\w.]+/)*test_\w+\.py)(?:::(\w+))?$")
_TEST = re.compile(r"^::(\w+)$")


def citations(text: str) -> list[tuple[str, str | None]]:
    """List the tests a guarantees page cites, in order.

    Args:
        text: the page's markdown.

    Returns:
        (file relative to tests/, test name or None) for each citation; a `::name`
        belongs to the last file cited before it in the same paragraph or table row.
    """
    cited: list[tuple[str, str | None]] = []
    for block in re.split(r"\n\s*\n|\n(?=\|)", text):
        current: str | None = None
        for span in re.findall(r"`([^`\n]+)`", block):
            found = _FILE.match(span)
            if found is not None:
                current = re.sub(r"^R/", "reliability/", found.group(1))
                cited.append((current, found.group(2)))
                continue
            named = _TEST.match(span)
            if named is not None:
                assert current is not None, f"`{span}` follows no test file in: {block[:80]}"
                cited.append((current, named.group(1)))
    return cited


def missing(cited: list[tuple[str, str | None]]) -> list[str]:
    """Name each citation whose file or test does not exist under tests/.

    Args:
        cited: what `citations` found.

    Returns:
        `path` or `path::name` for each missing one, in the page's order, once each.
    """
    gone: list[str] = []
    for path, name in cited:
        where = TESTS / path
        if not where.is_file() or (name is not None and not _defines(where, name)):
            gone.append(path if name is None else f"{path}::{name}")
    return list(dict.fromkeys(gone))


def _defines(where: Path, name: str) -> bool:
    """Whether the test file ``where`` defines a function ``name`` (a method too)."""
    pattern = rf"^\s*(?:async\s+)?def {re.escape(name)}\("
    return re.search(pattern, where.read_text(encoding="utf-8"), re.M) is not None


def test_the_parser_reads_the_page_s_citations() -> None:
    text = (
        "| x | `R/test_a.py::test_b`, `::test_c`; `tests/cli/test_d.py` |\n"
        "| y | `history_refs/` and `snapline/x.py` are not tests |\n"
    )
    assert citations(text) == [
        ("reliability/test_a.py", "test_b"),
        ("reliability/test_a.py", "test_c"),
        ("cli/test_d.py", None),
    ]


def test_every_cited_test_exists() -> None:
    cited = citations(DOC.read_text(encoding="utf-8"))
    assert len(cited) >= 100, "the page cites fewer tests than it does: is the parser broken?"
    gone = missing(cited)
    assert gone == [], "docs/guarantees.md cites tests that do not exist:\n" + "\n".join(gone)
