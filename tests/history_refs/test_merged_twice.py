"""A branch merged twice into one work tree: on ``side``, then on ``main`` after a switch back.

Found by the git machine (tests/history_refs/test_git_machine.py at 8 programs of 15
steps): the main work tree records on ``main``, switches to ``side`` and merges an
agent's branch ``b1`` there (``snapline merge`` joins b1's line: a merge snapshot on the
work tree's line), then switches back to ``main`` with plain git (the work tree follows
``main``'s snapshot, pinned behind its line's tip: store/refs/switching.py) and merges
``b1`` again. Git's merge is clean and the files are what the merge on ``side``
recorded: a snapshot of the line the work tree followed, past its pin. That snapshot is
no work of this work tree's line (its next write starts a line of its own from the
pin), yet ``verify`` named ``modified d/a.txt`` and ``snapline merge`` said "nothing to
merge". Now it is another line's recorded work, joined like any other (docs/ci.md).

Git is the oracle: the plain merge's tree is the files, and the merge snapshot records
them.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo


def _edit(repo: Repo, path: str, line: int, word: str) -> None:
    lines = (repo.path / path).read_text().splitlines()
    lines[line] = word
    (repo.path / path).write_text("\n".join(lines) + "\n")
    repo.ok("record", path, "-m", f"{path}:{line}={word}")
    repo.git("commit", "-qam", f"{path}:{line}={word}")


def _verify(repo: Repo) -> tuple[int, list[tuple[str, str]]]:
    done = repo.snap("verify", "--json")
    problems = json.loads(done.stdout)["problems"]
    return done.returncode, [(p["kind"], p["path"]) for p in problems]


def _merged_on_side(tmp_path: Path) -> tuple[Repo, Repo, str]:
    """``b1`` merged into ``side`` and joined; the main work tree back on ``main``.

    Returns:
        The main work tree, ``b1``'s, and the id of the merge snapshot made on ``side``.
    """
    six = "".join(f"line {i}\n" for i in range(6))
    main = new_repo(tmp_path / "main", {"a.txt": six, "d/a.txt": six})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "b1"))
    b1 = Repo(tmp_path / "b1")
    _edit(main, "a.txt", 2, "green")
    _edit(b1, "d/a.txt", 1, "red")
    main.git("switch", "-q", "-c", "side")
    main.git("merge", "-q", "--no-edit", "b1")
    assert _verify(main) == (1, [("unmerged", "d/a.txt")])
    joined = json.loads(main.ok("merge", "--json"))
    assert _verify(main) == (0, [])
    main.git("switch", "-q", "main")
    assert _verify(main) == (0, [])
    return main, b1, joined["id"]


def test_a_branch_merged_again_after_a_switch_back_is_joined(tmp_path: Path) -> None:
    main, _, on_side = _merged_on_side(tmp_path)
    main.git("merge", "-q", "--no-edit", "b1")
    # The files are what the merge on side recorded: that line's work, to join.
    assert main.git("rev-parse", "HEAD^{tree}") == main.git("rev-parse", "side^{tree}")
    assert _verify(main) == (1, [("unmerged", "d/a.txt")])
    merged = json.loads(main.ok("merge", "--json"))
    assert merged["merges"] == [on_side]
    assert _verify(main) == (0, [])
    numbers = [s["number"] for s in json.loads(main.ok("log", "--json"))]
    assert numbers == list(range(len(numbers) - 1, -1, -1))
    assert main.git("status", "--porcelain") == ""


def test_a_branch_that_recorded_on_merged_again_after_a_switch_back(tmp_path: Path) -> None:
    main, b1, _ = _merged_on_side(tmp_path)
    _edit(b1, "d/a.txt", 3, "blue")
    main.git("merge", "-q", "--no-edit", "b1")
    assert _verify(main) == (1, [("unmerged", "d/a.txt")])
    main.ok("merge")
    assert _verify(main) == (0, [])
    assert main.git("status", "--porcelain") == ""
