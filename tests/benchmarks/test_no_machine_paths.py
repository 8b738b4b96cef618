"""docs/benchmarks.md names no path of the machine a run was made on (issue 39, point 6)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.report import shown_path
from benchmarks.timing import _short_function

CHECKOUT = Path(__file__).resolve().parents[2]


def test_a_profiled_launcher_is_named_by_its_name_only() -> None:
    launcher = "/work/main/bench-work/run-20261123-202924/cli-venv/bin/snapline"
    assert _short_function(launcher, 1, "<module>") == "snapline:1(<module>)"
    module = "/anywhere/snapline/workspace/rows.py"
    assert (
        _short_function(module, 30, "record_rows") == "snapline/workspace/rows.py:30(record_rows)"
    )


def test_paths_are_shown_relative_to_the_checkout_or_by_name() -> None:
    assert shown_path(CHECKOUT / ".venv" / "bin" / "python") == ".venv/bin/python"
    assert shown_path("/work/.mirror/pallets+click/repo") == "pallets+click"
    assert shown_path("/srv/histories/click.git") == "click.git"


def test_the_committed_page_names_no_machine_path() -> None:
    page = (CHECKOUT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for root in ("/work/", "/tmp/", "/root/", "/home/"):
        assert root not in page, root
