"""Where timed CLI processes run snapline from: an environment laid out like an install.

The checkout's virtual environment has snapline installed in editable mode. There,
setuptools' editable finder is imported by every Python that starts (its ``.pth`` file
runs ``import __editable___snapline_…_finder``), which costs about 25 ms of CPU per
process on this machine's class of hardware. Nobody who installs snapline from a wheel
pays that. So whole-process rows run from an environment of the run's own: a
virtual environment whose site-packages has one ``.pth`` file naming the checkout and
the development environment's site-packages (plain paths: no hook runs), and whose
``bin/snapline`` is the launcher pip wrote, with its first line pointing at this
environment's Python.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sysconfig
import venv
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CliEnvironment", "cli_environment"]


@dataclass(frozen=True)
class CliEnvironment:
    """The Python that timed processes run, and the ``snapline`` launcher (if installed)."""

    python: Path
    snapline: Path


def cli_environment(workdir: Path, repo_root: Path, development_python: str) -> CliEnvironment:
    """Create ``workdir/cli-venv``, running snapline from ``repo_root`` as installed.

    Args:
        workdir: The run's working directory.
        repo_root: The checkout whose ``snapline`` package is measured.
        development_python: The development environment's Python, whose site-packages
            hold the dependencies and whose ``bin/snapline`` is pip's launcher.

    Returns:
        The environment's Python and the path of its ``snapline`` launcher, which does
        not exist when the development environment has none (snapline not installed).
    """
    target = workdir / "cli-venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt", clear=True).create(target)
    scripts = Path(sysconfig.get_path("scripts", vars={"base": str(target)}))
    python = scripts / Path(development_python).name
    if not python.exists():
        python = scripts / "python"
    own = _site_packages(python)
    paths = [str(repo_root), *_site_packages_of(development_python)]
    (own / "snapline-checkout.pth").write_text("\n".join(paths) + "\n", encoding="utf-8")
    launcher = scripts / "snapline"
    installed = Path(development_python).parent / "snapline"
    if installed.exists():
        first, _, rest = installed.read_text(encoding="utf-8").partition("\n")
        if first.startswith("#!"):
            launcher.write_text(f"#!{python}\n{rest}", encoding="utf-8")
            launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return CliEnvironment(python=python, snapline=launcher)


def _site_packages(python: Path) -> Path:
    return Path(_site_packages_of(str(python))[0])


def _site_packages_of(python: str) -> list[str]:
    # purelib first; platlib too where it differs (lib64 on some systems).
    code = "import sysconfig as s; print(s.get_path('purelib'), s.get_path('platlib'), sep='\\n')"
    output = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True)
    return list(dict.fromkeys(output.stdout.splitlines()))
