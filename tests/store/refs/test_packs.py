"""Versions of a file delta against each other in git's packs, as the user's own commits do.

A byte count, not a time: 20 versions of a 2 MiB binary, each differing from the one
before in a few KiB, written as 20 snapshots on a line and as 20 plain git commits,
each repository packed by ``git gc``; the line may take at most 1.5 times git's pack
(issue 37, point 9). The 0.2 ledger's keyed objects took about 18 times.
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.store.refs.lines import Line, git, make_repo

SIZE = 2 * 1024 * 1024
VERSIONS = 20
GOAL = 1.5


def _versions() -> list[bytes]:
    chance = random.Random(37)
    data = bytearray(chance.randbytes(SIZE))
    found = [bytes(data)]
    for _ in range(VERSIONS - 1):
        at = chance.randrange(SIZE - 4096)
        data[at : at + 4096] = chance.randbytes(4096)
        found.append(bytes(data))
    return found


def _packed_kib(root: Path) -> int:
    git(root, "gc", "-q")
    counts = dict(line.split(": ") for line in git(root, "count-objects", "-v").splitlines())
    assert counts["count"] == "0", counts  # every object is in the pack
    return int(counts["size-pack"])


def test_twenty_versions_of_a_binary_pack_like_gits_own(tmp_path: Path) -> None:
    versions = _versions()
    plain = make_repo(tmp_path / "plain")
    for n, data in enumerate(versions):
        (plain / "big.bin").write_bytes(data)
        git(plain, "add", "big.bin")
        git(plain, "commit", "-q", "-m", f"version {n}")
    ours = make_repo(tmp_path / "snapline")
    line = Line.at(ours)
    line.snapshot({"big.bin": versions[0]}, tool="init")
    for data in versions[1:]:
        line.snapshot({"big.bin": data})
    assert git(ours, "count-objects", "-v").count("count: 0") == 0  # loose before gc
    git_kib, line_kib = _packed_kib(plain), _packed_kib(ours)
    # Without deltas the 20 versions would take 40 MiB; both packs hold about one.
    assert git_kib < 4 * 1024
    assert line_kib <= GOAL * git_kib, (line_kib, git_kib)
