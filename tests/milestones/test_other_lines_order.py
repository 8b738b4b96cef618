"""`milestone list`'s other lines: by the merge that joined each, the lines nobody joined last.

tests/fixtures/ledger-1.bundle (a 0.2 in-tree ledger, read only): agents a, b and c each
recorded snapshots 5 and 6 from snapshot 4 on a branch of their own; `main` merged a
and b in git and joined them with `snapline merge` (snapshots 13 and 14). Here c's
branch is merged in git too, and never joined: three lines beside the main one, one of
them not joined. The fixture's manifest (ledger-1.json) names each branch's snapshots.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT
from tests.history_refs.gitrepo import Repo as GitRepo
from tests.ledger.conftest import FIXTURES


def test_the_lines_come_by_the_merge_that_joined_them_and_unjoined_ones_last(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "repo"
    subprocess.run([*GIT, "clone", "-q", str(FIXTURES / "ledger-1.bundle"), str(clone)],
                   env=ENV, check=True)  # fmt: skip
    repo = GitRepo(clone)
    repo.git("merge", "-q", "--no-edit", "origin/agent-c")
    branches = json.loads((FIXTURES / "ledger-1.json").read_text())["branches"]
    heads = {
        name: branches[name]["log"][0]["id"][:12] for name in ("agent-a", "agent-b", "agent-c")
    }

    text = repo.ok("milestone", "list").splitlines()
    said = [line.strip() for line in text if line.strip().startswith("line ")]
    assert said == [
        f"line {heads['agent-a']}: snapshots 5..6 from snapshot 4, joined by snapshot 13",
        f"line {heads['agent-b']}: snapshots 5..6 from snapshot 4, joined by snapshot 14",
        f"line {heads['agent-c']}: snapshots 5..6 from snapshot 4, not joined yet: run "
        "`snapline merge`",
    ]
    # a's line is listed under the milestone that closed its merge; the others after.
    assert text.index("other lines, not in a milestone yet:") == text.index(f"      {said[1]}") - 1
