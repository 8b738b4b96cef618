"""``snapline blame`` against ``git blame`` on a twin repository, over random histories.

Hypothesis draws histories of agent edits (sessions ``s1``, ``s2``), outside changes
recorded by ``resync`` (a person), recorded moves, moves with an edit (a deletion and
an addition), whole-file rewrites, CRLF lines, files without a final newline, blocks
of repeated lines (where a diff must choose which copy changed) and edits left
unrecorded on disk. At every K-th snapshot every text file is blamed through the
workspace; the twin (tests/blame/twin.py) is built at the end and ``git blame
--line-porcelain`` of each file at that snapshot's commit (``--contents`` for a file
changed on disk) must give, line by line, the same snapshot and the same author.
``make test`` runs a few histories; ``SNAPLINE_STRESS=1`` (``make test-deep``) many.
"""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapline import Workspace
from snapline.blame import BinaryFileError
from tests.blame.twin import Twin, snapline_lines
from tests.scanning.git_reference import GIT

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

STRESS = os.environ.get("SNAPLINE_STRESS") == "1"
EVERY = 3
_LINES = [b"{", b"}", b"", b"  x = 1", b"  return x", b"def f():", b"a", b"b", b"# note"]
_NAMES = ["a.txt", "src/b.py", "src/c.py", "docs/d.md", "e.txt", "src/util.py", "lib/util.py"]
_counter = itertools.count()


def _text(rng: random.Random, count: int) -> list[bytes]:
    return [rng.choice(_LINES) + (b"\r\n" if rng.random() < 0.1 else b"\n") for _ in range(count)]


def _edit(rng: random.Random, data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        at = rng.randint(0, len(lines))
        if choice < 0.3:
            lines[at:at] = _text(rng, rng.randint(1, 4))
        elif choice < 0.5 and lines:
            del lines[at : at + rng.randint(1, 3)]
        elif choice < 0.65 and lines:
            lines[at : at + 2] = _text(rng, rng.randint(1, 3))
        elif choice < 0.8 and lines:
            block = lines[at : at + rng.randint(1, 4)]
            lines[at:at] = block  # a repeated block: which copy is new is the diff's choice
        elif choice < 0.9:
            lines = _text(rng, rng.randint(0, 8))  # a whole-file rewrite
        elif lines:
            last = lines[-1]
            lines[-1] = last.rstrip(b"\r\n") if last.endswith(b"\n") else last + b"\n"
    return b"".join(lines)


def _step(rng: random.Random, ws: Workspace) -> None:
    root = ws.root
    present = sorted(n for n in _NAMES if (root / n).is_file())
    session = rng.choice(["s1", "s2"])
    choice = rng.random()
    if not present or choice < 0.15:
        name = rng.choice(_NAMES)
        ws.write_file(name, b"".join(_text(rng, rng.randint(0, 6))), session=session)
        return
    name = rng.choice(present)
    data = (root / name).read_bytes()
    free = [n for n in _NAMES if not (root / n).exists()]
    if choice < 0.55:
        ws.write_file(name, _edit(rng, data), tool="edit", session=session)
    elif choice < 0.7:
        (root / name).write_bytes(_edit(rng, data))
        ws.resync(paths=[name], description="by hand")
    elif choice < 0.78 and free:
        ws.move_file(name, rng.choice(free), session=session)
    elif choice < 0.86 and free:
        # Moved with an edit: recorded as a deletion and an addition.
        target = root / rng.choice(free)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_edit(rng, data))
        (root / name).unlink()
        ws.record(tool="shell", session=session)
    elif choice < 0.92 and len(present) > 1:
        ws.delete_file(name, session=session)
    else:
        ws.write_file(name, _edit(rng, _edit(rng, data)), tool="edit", session=session)


def _blame_all(ws: Workspace) -> dict[str, list[tuple[int | None, str]]]:
    found = {}
    for name in _NAMES:
        if (ws.root / name).is_file():
            try:
                found[name] = snapline_lines(ws, name)
            except BinaryFileError:
                continue
    return found


def _history(rng: random.Random, root: Path, steps: int) -> tuple[Twin, list[str]]:
    """Play a history; returns the twin and every disagreement with git's blame."""
    root.mkdir()
    for name in rng.sample(_NAMES, 2):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"".join(_text(rng, rng.randint(1, 6))))
    seen: dict[int, dict[str, list[tuple[int | None, str]]]] = {}
    unrecorded: dict[int, tuple[str, bytes, list[tuple[int | None, str]]]] = {}
    with Workspace.init(root) as ws:
        for step in range(steps):
            _step(rng, ws)
            if step % EVERY == EVERY - 1:
                seen[ws.latest] = _blame_all(ws)
                present = sorted(n for n in _NAMES if (root / n).is_file())
                if present:
                    # A change left on disk, then recorded by the next steps.
                    name = rng.choice(present)
                    changed = _edit(rng, (root / name).read_bytes())
                    (root / name).write_bytes(changed)
                    unrecorded[ws.latest] = (name, changed, snapline_lines(ws, name))
                    ws.record(tool="edit", session="s1")
        twin = Twin.build(ws, root.parent / f"{root.name}.git")
    wrong = []
    for number, files in seen.items():
        for name, lines in files.items():
            expected = twin.blame(name, number)
            if lines != expected:
                wrong.append(f"{name} at snapshot {number}: snapline {lines} git {expected}")
    for number, (name, data, lines) in unrecorded.items():
        expected = twin.blame(name, number, contents=data)
        if lines != expected:
            wrong.append(f"{name} on disk after {number}: snapline {lines} git {expected}")
    return twin, wrong


@settings(max_examples=300 if STRESS else 12)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(3, 40 if STRESS else 18))
def test_blame_agrees_with_git_on_random_histories(tmp_path: Path, seed: int, steps: int) -> None:
    _, wrong = _history(random.Random(seed), tmp_path / f"ws{next(_counter)}", steps)
    assert wrong == []


def _difflib_hunks(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    """A plausible line diff that is not git's (difflib's matching blocks)."""
    import difflib

    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    hunks = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            hunks.append((i1 + (i2 > i1), i2 - i1, j1 + (j2 > j1), j2 - j1))
    return hunks


def test_the_oracle_catches_a_mapping_that_is_not_gits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same histories, with lines carried between versions by difflib: on repeated
    # lines it chooses other copies than git does, and the oracle must say so.
    import snapline.blame.gitdiff

    monkeypatch.setattr(snapline.blame.gitdiff, "line_diff", lambda: _difflib_hunks)
    wrong = []
    for seed in range(6):
        wrong += _history(random.Random(seed), tmp_path / f"ws{seed}", 18)[1]
    assert wrong, "difflib's mapping agreed with git's blame on every line"


def test_a_file_edited_more_often_than_one_page_of_versions(tmp_path: Path) -> None:
    # The walk reads a file's versions a page (64) at a time, newest first, across a
    # rename in the middle: 150 edits, every line written at a different depth.
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("".join(f"line {n}\n" for n in range(40)))
    rng = random.Random(7)
    with Workspace.init(root) as ws:
        for step in range(150):
            if step == 75:
                ws.move_file("a.txt", "b.txt", session="s2")
            name = "a.txt" if step < 75 else "b.txt"
            lines = (root / name).read_text().splitlines(keepends=True)
            lines[rng.randrange(len(lines))] = f"edit {step}\n"
            ws.write_file(name, "".join(lines), session=f"s{step % 3}")
        found = snapline_lines(ws, "b.txt")
        twin = Twin.build(ws, tmp_path / "twin.git")
        assert found == twin.blame("b.txt", ws.latest)
    assert len({number for number, _ in found}) > 20
