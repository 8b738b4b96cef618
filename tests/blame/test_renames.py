"""git's rename similarity, ported for blame, against git's own score (``git diff -M``)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from snapline.blame.renames import MAX_SCORE, similarity
from tests.blame.twin import git_env
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
