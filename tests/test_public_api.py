"""The public API is one table, and importing it stays cheap."""

from __future__ import annotations

import subprocess
import sys

import snapline


def test_every_export_is_listed_and_importable() -> None:
    assert set(snapline.__all__) == {*snapline._EXPORTS, "__version__"}
    for name in snapline._EXPORTS:
        assert getattr(snapline, name).__name__ == name


def test_every_error_is_a_snapline_error_with_an_exit_code() -> None:
    errors = [getattr(snapline, n) for n in snapline._EXPORTS if n.endswith("Error")]
    assert errors
    for error in errors:
        assert issubclass(error, snapline.SnaplineError)
        # `run` says what a shell says of a command it cannot start (126, 127).
        codes = (126, 127) if error is snapline.CommandError else (1, 2, 3, 4)
        assert error.exit_code in codes


def test_importing_the_package_loads_no_engine() -> None:
    code = "import sys, snapline; print(sorted(m for m in ('pydantic', 'sqlite3', "
    code += "'diff_match_patch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_version_is_the_installed_distributions() -> None:
    # pyproject.toml and snapline.__version__ name the release twice; they must agree.
    from importlib.metadata import version

    assert snapline.__version__ == version("snapline")
