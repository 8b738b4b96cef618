"""Exporting a milestone as a patch that takes the state at `first - 1` to `last`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from snapline import OutputInStoreError, Workspace
from tests.conftest import tree

_GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}

_DESCRIPTION = """Adds the parser.

A description can hold anything, even a pasted diff:
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-# demo
+# pwned
"""


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, env=_GIT_ENV, capture_output=True, text=True, check=check
    )


def _repo_at(path: Path, files: dict[str, bytes], executable: set[str]) -> Path:
    """A git repository whose committed tree is ``files``."""
    path.mkdir()
    _git(path, "init", "-q", ".")
    for rel, data in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if rel in executable:
            target.chmod(0o755)
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "--allow-empty", "-m", "base")
    return path


def _executable(root: Path) -> set[str]:
    return {rel for rel in tree(root) if os.access(root / rel, os.X_OK)}


@pytest.fixture
def exported(ws: Workspace) -> dict[str, object]:
    """Milestone 1 sets up text files; milestone 2 changes them in every way git can apply."""
    ws.write_file("crlf.txt", b"one\r\ntwo\r\nthree\r\n")
    ws.write_file("tool.sh", "#!/bin/sh\necho 1\n")
    ws.write_file("old name.txt", "\n".join(f"line {i}" for i in range(20)) + "\n")
    ws.milestones.create("setup")
    before = tree(ws.root)
    before_x = _executable(ws.root)
    ws.write_file("crlf.txt", b"one\r\nTWO\r\nthree\r\n")
    ws.write_file("src/app.py", "print('hello')\nprint('no newline at end')")
    ws.write_file("empty.txt", b"")
    ws.write_file("ünïcode.txt", "naïve café\n")
    ws.write_file("tool.sh", "#!/bin/sh\necho 2\n", executable=True)
    ws.move_file("old name.txt", "new name.txt")
    ws.write_file("new name.txt", "\n".join(f"line {i}" for i in range(1, 21)) + "\n")
    ws.delete_file("README.md")
    ws.write_file("later.txt", "temporary\n")
    ws.delete_file("later.txt")
    milestone = ws.milestones.create("parser", _DESCRIPTION, tags=["parser", "v1"])
    after = tree(ws.root)
    after_x = _executable(ws.root)
    ws.write_file("open.txt", "after the milestone\n")
    return {
        "ws": ws,
        "milestone": milestone,
        "before": (before, before_x),
        "after": (after, after_x),
    }


def test_the_patch_applies_at_the_base_and_yields_the_end_state(
    exported: dict[str, object], tmp_path: Path
) -> None:
    ws = exported["ws"]
    assert isinstance(ws, Workspace)
    before, before_x = exported["before"]  # type: ignore[misc]
    after, after_x = exported["after"]  # type: ignore[misc]
    patch = tmp_path / "m2.patch"
    text = ws.milestones.export(2, patch)
    assert patch.read_bytes() == text.encode("utf-8")
    repo = _repo_at(tmp_path / "repo", before, before_x)
    applied = _git(repo, "apply", "--whitespace=nowarn", str(patch), check=False)
    assert applied.returncode == 0, applied.stderr
    assert tree(repo) == after
    assert _executable(repo) == after_x


def test_the_patch_does_not_apply_at_the_wrong_base(
    exported: dict[str, object], tmp_path: Path
) -> None:
    ws = exported["ws"]
    assert isinstance(ws, Workspace)
    after, after_x = exported["after"]  # type: ignore[misc]
    patch = tmp_path / "m2.patch"
    ws.milestones.export(2, patch)
    repo = _repo_at(tmp_path / "repo", after, after_x)
    assert _git(repo, "apply", "--check", str(patch), check=False).returncode != 0


def test_the_header_carries_title_and_description_before_the_diff(
    exported: dict[str, object],
) -> None:
    ws = exported["ws"]
    assert isinstance(ws, Workspace)
    text = ws.milestones.export(2)
    header, _, diff = text.partition("\ndiff --git ")
    assert header.startswith("Milestone 2: parser\n")
    assert "    Adds the parser.\n" in header
    assert "    diff --git a/README.md b/README.md\n" in header  # indented: inert
    assert "Snapshots: 4..13 (10 snapshots; apply on top of snapshot 3)" in header
    assert "Tags: parser, v1" in header
    assert "diff --git " + diff == ws.milestones.diff(2)
    assert "open.txt" not in text and "later.txt" not in text


def test_export_of_the_first_milestone_applies_on_the_baseline(
    ws: Workspace, tmp_path: Path
) -> None:
    baseline = tree(ws.root)
    ws.write_file("src/app.py", "print('changed')\n")
    ws.write_file("new.txt", "new\n")
    ws.milestones.create("first")
    repo = _repo_at(tmp_path / "repo", baseline, set())
    patch = tmp_path / "m1.patch"
    ws.milestones.export(1, str(patch))
    result = _git(repo, "apply", str(patch), check=False)
    assert result.returncode == 0, result.stderr
    assert tree(repo) == tree(ws.root)


def test_the_header_of_a_one_snapshot_milestone_line_by_line(ws: Workspace) -> None:
    ws.write_file("src/app.py", "print('one')\n")
    description = "\n  Indented, as written.\n\nThe second paragraph, by X\n\n"
    milestone = ws.milestones.create("A   spaced\ttitle", description, tags=["two  words", "x"])
    header = ws.milestones.export(milestone.number).split("diff --git", 1)[0]
    assert header.splitlines() == [
        f"Milestone {milestone.number}: A spaced title",
        "",
        "      Indented, as written.",
        "",
        "    The second paragraph, by X",
        "",
        "Snapshots: 1..1 (1 snapshot; apply on top of snapshot 0)",
        "Tags: two words, x",
        f"Created: {milestone.time.isoformat()}",
        f"Chain: {milestone.chain_hash}",
        "",
    ]


def test_a_patch_is_never_written_into_the_store(ws: Workspace) -> None:
    ws.write_file("src/app.py", "print('one')\n")
    ws.milestones.create("one")
    target = ws.root / ".snapline" / "one.patch"
    with pytest.raises(OutputInStoreError) as caught:
        ws.milestones.export(1, target)
    assert "write the patch to" in str(caught.value)
    assert not target.exists()
