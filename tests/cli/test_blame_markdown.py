"""``snapline blame --summary --markdown A..B``: a pull request's review as plain Markdown."""

from __future__ import annotations

import re
from pathlib import Path

from snapline import Workspace
from tests.cli.conftest import Invoke


def _branch_work(root: Path) -> None:
    """Snapshot 1 before the pull request; 2-4 in it (an agent's prompts, a person, a guard)."""
    with Workspace.open(root) as ws:
        ws.write_file("README.md", "# demo\nbefore\n", session="old")
        prompt = {"prompt": {"session": "s1", "n": 2, "at": 1}}
        ws.write_file("README.md", "# demo\nbefore\nagent\n", session="s1", metadata=prompt)
        ws.milestones.create("parser | done")
        (root / "README.md").write_text("# demo\nbefore\nagent\nby hand\n")
        ws.resync(session="alice")
        ws.write_file("src/new.py", "x = 1\n", session="s1", metadata=prompt)
        ws.guard(["true"])


def test_the_review_of_a_range_names_its_snapshots_prompts_lines_and_checks(
    project: Path, cli: Invoke
) -> None:
    _branch_work(project)
    done = cli("blame", "--summary", "--markdown", "1..latest")
    assert done.exit_code == 0, done.output
    text = done.stdout
    assert text.startswith("## snapline: snapshots 2-4\n")
    assert "| snapshots | 3 (2-4) |\n| verify | passed |" in text
    assert "| prompts | 1 in 1 sessions |" in text
    assert "| M1 | parser \\| done | 1-2 |" in text
    assert "| s1 | 2 |" in text
    assert "| agent s1 | 2 |\n| person alice | 1 |\n| before snapshot 2 | 2 |" in text
    assert "| README.md | 4 | 1 | 1 | 2 | 0 |" in text
    assert "| src/new.py | 1 | 1 | 0 | 0 | 0 |" in text
    assert "| 4 | true | passed |" in text
    # Link-free: no Markdown link, image, autolink or HTML.
    assert not re.search(r"\]\(|<[a-z]|https?://", text)


def test_a_range_that_is_not_one_is_a_usage_error(project: Path, cli: Invoke) -> None:
    assert cli("blame", "--markdown", "3").exit_code == 2
    missing = cli("blame", "--markdown", "7..")
    assert missing.exit_code == 1
    assert "no snapshot 7" in missing.output


def test_the_review_says_what_verify_found(project: Path, cli: Invoke) -> None:
    _branch_work(project)
    (project / "README.md").write_text("changed behind snapline's back\n")
    text = cli("blame", "--summary", "--markdown", "1..").stdout
    assert "| verify | failed, 1 problems: modified README.md |" in text
