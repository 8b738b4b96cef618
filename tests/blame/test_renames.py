"""git's rename similarity, ported for blame, against git's own score (``git diff -M``)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.blame.renames import MAX_SCORE, similarity
from tests.blame.twin import Twin, git_env, snapline_lines
from tests.scanning.git_reference import GIT

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

_LINES = [b"alpha\n", b"beta\n", b"gamma\r\n", b"x" * 70 + b"\n", b"  return 1\n", b"tail"]
_LINES += [bytes(random.Random(n).choices(b"abcdefgh", k=150)) + b"\n" for n in range(3)]


def _git_score(tmp: Path, old: bytes, new: bytes) -> int | None:
    """The similarity git reports renaming ``a`` (``old``) to ``b`` (``new``), in percent."""
    assert GIT is not None
    env = git_env(tmp)
    repo = tmp / "r"
    git = [GIT, "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([GIT, "init", "-q", str(repo)], env=env, check=True)
    (repo / "a").write_bytes(old)
    subprocess.run([*git, "add", "a"], env=env, check=True)
    subprocess.run([*git, "commit", "-qm", "1"], env=env, check=True)
    (repo / "a").unlink()
    (repo / "b").write_bytes(new)
    subprocess.run([*git, "add", "-A"], env=env, check=True)
    subprocess.run([*git, "commit", "-qm", "2"], env=env, check=True)
    out = subprocess.run(
        [*git, "diff", "-M1%", "--raw", "HEAD~", "HEAD"], env=env, capture_output=True, check=True
    ).stdout.decode()
    for line in out.splitlines():
        status = line.split("\t")[0].split()[-1]
        if status.startswith("R"):
            return int(status[1:])
    return None


@pytest.mark.parametrize("seed", range(40))
def test_similarity_is_gits(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    old = b"".join(rng.choice(_LINES) for _ in range(rng.randint(1, 8)))
    lines = old.splitlines(keepends=True)
    for _ in range(rng.randint(0, 8)):
        at = rng.randint(0, len(lines))
        if rng.random() < 0.5 and lines[at:]:
            del lines[at]
        else:
            lines.insert(at, rng.choice(_LINES))
    new = bytearray(b"".join(lines) or b"x\n")
    for _ in range(rng.randint(0, 3)):
        new[rng.randrange(len(new))] = rng.choice(b"abq")  # inside a chunk: where chunks end counts
    new = bytes(new)
    score = similarity(old, new, minimum=MAX_SCORE // 100)
    ours = score * 100 // MAX_SCORE if score >= MAX_SCORE // 100 else None
    if old == new:
        ours = 100
    assert ours == _git_score(tmp_path, old, new)


def _twin_agrees(
    tmp_path: Path, steps: list[dict[str, str | None]]
) -> list[tuple[int | None, str]]:
    """Record each step's writes (``None``: delete) as one snapshot of session ``sN``; blame
    every file at the end with snapline and git (the twin); both answers must be equal."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "seed.txt").write_text("seed\n")
    found = []
    with Workspace.init(root) as ws:
        for number, step in enumerate(steps, 1):
            for name, text in step.items():
                target = root / name
                if text is None:
                    target.unlink()
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text)
            ws.record(tool="shell", session=f"s{number}")
        twin = Twin.build(ws, tmp_path / "twin.git")
        for name in ws.tracked():
            found.append((name, snapline_lines(ws, name), twin.blame(name, ws.latest)))
    for name, ours, git in found:
        assert ours == git, name
    return [line for name, ours, _ in found if name != "seed.txt" for line in ours]


_TEXT = "".join(f"line {n} of a file long enough to be compared\n" for n in range(20))


def _changed(text: str, lines: int) -> str:
    out = text.splitlines(keepends=True)
    for n in range(lines):
        out[n * 3] = f"changed {n}\n"
    return "".join(out)


def test_the_removed_file_of_the_same_name_wins_at_75_percent(tmp_path: Path) -> None:
    # other.py is closer (one line changed), lib/util.py has the added file's name and
    # is 80% alike: git's blame follows lib/util.py, so must snapline.
    lines = _twin_agrees(
        tmp_path,
        [
            {"lib/util.py": _changed(_TEXT, 4)},
            {"other.py": _changed(_TEXT, 1)},
            {"lib/util.py": None, "other.py": None, "src/util.py": _TEXT},
        ],
    )
    assert {session for _, session in lines} == {"s1", "s3"}


def test_of_identical_removed_files_the_one_with_the_same_name_wins(tmp_path: Path) -> None:
    lines = _twin_agrees(
        tmp_path,
        [
            {"a/x.txt": _TEXT},
            {"b/util.txt": _TEXT},
            {"a/x.txt": None, "b/util.txt": None, "c/util.txt": _TEXT},
        ],
    )
    assert {session for _, session in lines} == {"s2"}
