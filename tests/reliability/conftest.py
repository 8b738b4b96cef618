"""Print (and optionally save) what the reliability suite did, at the end of the run."""

from __future__ import annotations

import pytest

from tests.reliability import figures


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    counts = figures.totals()
    if not counts:
        return
    figures.write()
    terminalreporter.write_sep("-", "reliability figures")
    for name, value in counts.items():
        terminalreporter.write_line(f"{name}: {value}")
