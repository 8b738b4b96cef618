"""A clone's own line, forked from a line that another clone's forget rewrote, keeps working.

Clone ``a`` forgets a secret on the main line and publishes the rewrite; clone ``b``
recorded on a line of its own forked from the main line's old tip. A fetch of the
forget (``snapline fetch``, or git's forced fetch of every history ref as docs/ci.md
shows) rewrites ``b``'s line onto the rewritten main line, as the forget rewrote the
lines it knew. Fetched before its forget (git's fetch of the lines alone), the
rewritten line still holds ``b``'s fork, rewritten: ``b``'s line is read on it, not
"forks from a commit on no line" (exit 3), and ``b``'s index, which read the old
commits, is rebuilt as the line it forked from no longer holds its fork. Every answer is
that of an index rebuilt from the refs, no secret readable. Real git, a bare remote, the
``snapline`` script.
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import Repo
from tests.history_refs.test_rewritten_line import (
    SECRET,
    _as_rebuilt,
    _forget_published,
    _two_clones,
)


def _b_records(b: Repo) -> str:
    """``b`` records one edit on a line of its own; its line's ref."""
    (b.path / "a.txt").write_text("b's edit\n")
    b.ok("record", "a.txt", "-m", "edit a in b")
    mine = (b.path / ".git" / "snapline" / "line").read_text(encoding="ascii").strip()
    return "refs/snapline/lines/" + mine


def _check(b: Repo, name: str) -> None:
    answers = _as_rebuilt(b, name)
    for args, (code, text) in answers.items():
        assert code == 0, (args, text)
        assert SECRET.decode() not in text, args
    assert "Content forgotten" in answers["show 1"][1]
    assert "edit a in b" in answers["log"][1]
    assert "phase one" in answers["milestone list"][1]


def _main_line(a: Repo) -> str:
    return (a.path / ".git" / "snapline" / "line").read_text(encoding="ascii").strip()


def test_a_line_forked_before_a_forget_keeps_working_when_the_lines_come_first(
    tmp_path: Path,
) -> None:
    a, b = _two_clones(tmp_path)
    line = _b_records(b)
    _forget_published(a)
    # git's fetch of the lines alone: the main line rewritten, its forget not here yet.
    b.git("fetch", "-q", "origin", "+refs/snapline/lines/*:refs/snapline/lines/*")
    before = _as_rebuilt(b, "oracle-lines")
    for args, (_, text) in before.items():
        assert SECRET.decode() not in text, args
    # Its line is read on the rewritten one: no "forks from a commit on no line".
    assert before["log"][0] == 0 and "edit a in b" in before["log"][1]
    assert before["show 3"][0] == 0 and before["milestone list"][0] == 0
    b.git("fetch", "-q", "origin", "+refs/snapline/*:refs/snapline/*")
    _check(b, "oracle-all")
    assert (
        b.git("rev-parse", f"{line}~1").strip()
        == a.git("rev-parse", "refs/snapline/lines/" + _main_line(a)).strip()
    )
