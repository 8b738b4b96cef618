"""Each ignore file counts on its own: a folder's ``.snaplineignore`` needs no ``.gitignore``.

The walk skips trying to open ignore files in a folder whose listing holds none of them;
a shortcut that looked for ``.gitignore`` only would let a secret named in a lone
``.snaplineignore`` into the baseline. Driven through the console script.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import run_script


def _baseline_paths(root: Path) -> set[str]:
    shown = run_script("show", "0", "--json", cwd=root)
    assert shown.returncode == 0, shown.stderr
    return {change["path"] for change in json.loads(shown.stdout)["files"]}


def test_a_snaplineignore_alone_in_a_folder_keeps_its_secret_out_of_the_baseline(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    (root / "config" / "deep").mkdir(parents=True)
    (root / "app.py").write_text("print('hi')\n")
    (root / "config" / ".snaplineignore").write_text("secret.env\n")
    (root / "config" / "secret.env").write_text("TOKEN=hunter2\n")
    (root / "config" / "deep" / "secret.env").write_text("TOKEN=deeper\n")
    (root / "config" / "settings.toml").write_text("x = 1\n")
    made = run_script("init", cwd=root)
    assert made.returncode == 0, made.stderr
    assert _baseline_paths(root) == {
        "app.py",
        "config/.snaplineignore",
        "config/settings.toml",
    }
    # A secret written later is no drift either.
    (root / "config" / "deep" / "secret.env").write_text("TOKEN=changed\n")
    checked = run_script("verify", cwd=root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
