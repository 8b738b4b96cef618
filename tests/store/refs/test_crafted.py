"""A line is data from elsewhere: what snapline would not write is refused, with its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline.hashing import hash_bytes
from snapline.store.ledger.format import render_snapshot
from snapline.store.ledger.milestone_format import render_milestone
from snapline.store.refs.layout import line_ref, milestones_ref
from snapline.store.refs.reading import DamagedLineError, read_line, read_milestones
from snapline.store.refs.values import EMPTY_TREE, TREE_MODE, Entry
from snapline.store.rows import MilestoneRow
from tests.store.refs.lines import Line, git, make_repo

FILES = {"src/app.py": b"x = 1\n", "README.md": b"# r\n"}


@pytest.fixture
def line(tmp_path: Path) -> Line:
    made = Line.at(make_repo(tmp_path / "repo", FILES))
    made.snapshot(dict(FILES), tool="init")
    made.snapshot({"src/app.py": b"x = 2\n"})
    return made


def _craft(line: Line, *, record: bytes, state: str, parents: list[str]) -> None:
    """Point the line's ref at a commit built by hand on ``parents``."""
    repo = line.repo
    tree = repo.tree(
        {"record": Entry(repo.write_blob(record), 0o100644), "state": Entry(state, TREE_MODE)}
    )
    commit = repo.write_commit(tree, parents, "crafted\n", 0)
    assert line.line is not None
    git(Path(repo.git_dir).parent, "update-ref", line_ref(line.line), commit)


def _next_record(line: Line, path: str = "src/app.py", data: bytes = b"x = 3\n") -> bytes:
    """The record of a third snapshot changing ``path``, as a writer on the line would make it."""
    probe = Line(line.repo, line.line, line.tip)
    probe.rows, probe.changes, probe.files = list(line.rows), list(line.changes), dict(line.files)
    probe.snapshot({path: data})
    git(Path(line.repo.git_dir).parent, "update-ref", line_ref(probe.line or ""), line.tip or "")
    return render_snapshot(probe.rows[-1], probe.changes[-1])


def _state(line: Line, edits: dict[str, Entry | None]) -> str:
    repo = line.repo
    base = repo.names(repo.read_commit(line.tip or "").tree)["state"].id
    return repo.update_tree(base, edits)


def _refused(line: Line, *words: str) -> str:
    assert line.line is not None
    with pytest.raises(DamagedLineError) as caught:
        read_line(line.repo, line.line)
    message = str(caught.value)
    assert caught.value.exit_code == 3
    assert line_ref(line.line) in message
    for word in words:
        assert word in message
    return message


def test_the_honest_line_reads(line: Line) -> None:
    assert line.line is not None
    assert len(read_line(line.repo, line.line)) == 2


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("..", "stay inside the root"),
        ("src/../../etc/passwd", "stay inside the root"),
        (".git/config", ".git"),
        ("src/.git/hooks/pre-commit", ".git"),
        (".snapline/index.db", ".snapline"),
    ],
)
def test_a_state_with_an_unsafe_path_is_refused(line: Line, path: str, reason: str) -> None:
    blob = line.repo.write_blob(b"evil\n")
    state = _state(
        line,
        {
            "src/app.py": Entry(line.repo.write_blob(b"x = 3\n"), 0o100644),
            path: Entry(blob, 0o100644),
        },
    )
    _craft(line, record=_next_record(line), state=state, parents=[line.tip or ""])
    _refused(line, repr(path)[:20], reason)


def test_a_state_with_a_submodule_or_odd_mode_is_refused(line: Line) -> None:
    state = _state(line, {"src/app.py": Entry(line.repo.write_blob(b"x = 3\n"), 0o160000)})
    _craft(line, record=_next_record(line), state=state, parents=[line.tip or ""])
    _refused(line, "mode 160000")


def test_a_state_that_differs_from_its_record_is_refused(line: Line) -> None:
    state = _state(line, {"README.md": Entry(line.repo.write_blob(b"changed quietly\n"), 0o100644)})
    _craft(line, record=_next_record(line), state=state, parents=[line.tip or ""])
    _refused(line, "disagree", "README.md")


def test_a_record_with_an_unsafe_path_is_refused(line: Line) -> None:
    record = _next_record(line).replace(b'"src/app.py"', b'"../app.py"')
    state = _state(line, {"src/app.py": Entry(line.repo.write_blob(b"x = 3\n"), 0o100644)})
    _craft(line, record=record, state=state, parents=[line.tip or ""])
    _refused(line, "record", "unsafe")


def test_a_commit_with_more_than_record_and_state_is_refused(line: Line) -> None:
    repo = line.repo
    names = repo.names(repo.read_commit(line.tip or "").tree)
    tree = repo.tree({**names, "extra": Entry(repo.write_blob(b"?"), 0o100644)})
    commit = repo.write_commit(tree, [line.tip or ""], "crafted\n", 0)
    git(Path(repo.git_dir).parent, "update-ref", line_ref(line.line or ""), commit)
    _refused(line, "extra")


def test_a_gap_in_the_numbers_is_refused(line: Line) -> None:
    record = _next_record(line).replace(b"\nnumber 2\n", b"\nnumber 7\n")
    state = _state(line, {"src/app.py": Entry(line.repo.write_blob(b"x = 3\n"), 0o100644)})
    _craft(line, record=record, state=state, parents=[line.tip or ""])
    _refused(line, "snapshot 7", "does not follow snapshot 1")


def test_a_line_that_never_reaches_its_first_snapshot_is_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    one, two = Line.at(root), Line.at(root)
    one.snapshot(dict(FILES), tool="init")
    two.snapshot(dict(FILES), tool="init", description="another baseline")
    git(root, "update-ref", line_ref(one.line or ""), two.tip or "")
    _refused(one, "never reaches its first snapshot")


def test_a_ref_at_something_that_is_not_a_commit_is_refused(line: Line) -> None:
    blob = line.repo.write_blob(b"not a commit")
    git(Path(line.repo.git_dir).parent, "update-ref", line_ref(line.line or ""), blob)
    _refused(line, "no commit")


def test_a_version_read_for_use_is_checked_against_its_hash(line: Line) -> None:
    from snapline.store.refs.reading import read_version

    repo = line.repo
    good = read_line(repo, line.line or "")[-1]
    change = line.changes[-1][0]
    assert read_version(repo, good, "src/app.py", change.result_hash or "") == b"x = 2\n"
    # Other bytes under the recorded path: the line's shape is fine, the content is not.
    record = _next_record(line)
    state = _state(line, {"src/app.py": Entry(repo.write_blob(b"x = 666\n"), 0o100644)})
    _craft(line, record=record, state=state, parents=[line.tip or ""])
    crafted = read_line(repo, line.line or "")[-1]
    recorded = crafted.record.changes[0].result_hash or ""
    with pytest.raises(DamagedLineError, match="hashes to") as caught:
        read_version(repo, crafted, "src/app.py", recorded)
    assert caught.value.exit_code == 3
    # Read by its snapshot, not its ref: the commit alone names where (no "at at").
    assert str(caught.value).startswith(f"the store at commit {crafted.commit[:12]} is corrupt")
    with pytest.raises(DamagedLineError, match="is missing"):
        read_version(repo, crafted, "src/gone.py", recorded)


def _milestone_row(number: int) -> MilestoneRow:
    return MilestoneRow(
        number, f"m{number}", "", "[]", "2026-11-28T17:00:00.000000+00:00", 0, 1, 1,
        hash_bytes(f"m{number}".encode()),
    )  # fmt: skip


def _milestones(line: Line, numbers: list[int], extra: dict[str, Entry] | None = None) -> str:
    """Milestone commits with ``numbers``, the last one's tree with ``extra`` entries."""
    repo, tip = line.repo, None
    last_id = line.rows[1].id
    for at, number in enumerate(numbers):
        record = repo.write_blob(render_milestone(_milestone_row(number), last_id))
        entries = {"record": Entry(record, 0o100644)}
        if at == len(numbers) - 1:
            entries.update(extra or {})
        tip = repo.write_commit(repo.tree(entries), [] if tip is None else [tip], "m\n", 0)
    assert tip is not None and line.line is not None
    git(Path(repo.git_dir).parent, "update-ref", milestones_ref(line.line), tip)
    return line.line


def test_milestones_written_as_snapline_writes_them_are_read(line: Line) -> None:
    read = read_milestones(line.repo, _milestones(line, [1, 2]))
    assert [m.row for m in read] == [_milestone_row(1), _milestone_row(2)]


@pytest.mark.parametrize(
    ("numbers", "extra", "words"),
    [
        ([1, 3], None, "milestone 1 before 3"),
        ([2, 1], None, "milestone 2 before 1"),
        ([1, 2], {"state": Entry(EMPTY_TREE, TREE_MODE)}, "its tree holds"),
    ],
)
def test_crafted_milestones_are_refused(
    line: Line, numbers: list[int], extra: dict[str, Entry] | None, words: str
) -> None:
    with pytest.raises(DamagedLineError) as caught:
        read_milestones(line.repo, _milestones(line, numbers, extra))
    assert caught.value.exit_code == 3
    assert words in str(caught.value)
    assert "refs/snapline/milestones/" in str(caught.value)
