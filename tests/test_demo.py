"""``make demo``'s stories run as a test: every step behaves as the story says.

scripts/demo.py drives the real ``snapline`` console script through every story (the
greeter in git, its two lines in two work trees and their merge, a clone, the team's two
squash-merged pull requests and CI, the guard) and exits 1 at the first step whose exit
code or output is not the one the story expects. The first test runs it as ``make demo``
does, its throwaway workspace under ``tmp_path``; the second shows that a step that does
not print what the story expects fails the demo, and names the step.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "demo.py"


def test_make_demo_tells_every_story_and_writes_the_review_page(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    # TMPDIR: the demo's throwaway workspace (tempfile.TemporaryDirectory) goes here too.
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--report", str(report)],
        cwd=SCRIPT.parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    assert "every one behaved as described" in done.stdout
    assert "demo FAILED" not in done.stderr
    # The stories the demo must tell (issue 37's team story among them).
    for said in (
        "`snapline merge` records the merge snapshot",
        "squash-merges both pull requests",
        "CI checks out main",
        "`snapline guard -- CMD`",
    ):
        assert said in " ".join(done.stdout.split()), said
    assert "Milestone 1: greeter works" in report.read_text(encoding="utf-8")


def _demo_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("snapline_demo_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_step_that_does_not_print_what_the_story_says_fails_the_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A `snapline` that exits 0 and says nothing: the demo's `init` step expects
    # "snapshot 0 holds 3 files", so the demo stops there with exit status 1.
    silent = tmp_path / "bin" / "snapline"
    silent.parent.mkdir()
    silent.write_text("#!/bin/sh\nexit 0\n")
    silent.chmod(0o755)
    demo = _demo_module()
    monkeypatch.setattr(demo, "SNAPLINE", str(silent))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again

    assert demo.main(["--report", str(tmp_path / "report.html")]) == 1

    err = capsys.readouterr().err
    assert "demo FAILED at step 2" in err
    assert "did not print 'snapshot 0 holds 3 files'" in err
    assert not (tmp_path / "report.html").exists()
