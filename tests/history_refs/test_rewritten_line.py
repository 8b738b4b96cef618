"""A line rewritten under an index answers as an index rebuilt from the refs.

The index is a cache of the refs: whatever moved them (a forget made in another clone
and fetched, its record before its rewritten line or after it, a forced fetch that
rewound a line's milestones, a crafted rewrite keeping the snapshot ids), its answers
(``log``, ``show``, ``diff``, ``verify --full``, ``milestone list``) are those of an
index built afresh from the same refs: the oracle is a copy of the repository whose
index is deleted. Real git, a bare remote, the ``snapline`` script.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, SNAPLINE, Repo, new_repo
from tests.store.test_read_only_store import _drop_bypass, _readonly, _writable

SECRET = b"AKIA-SECRET-TOKEN-7f3e9c"
_ASKED = (
    ("log",),
    ("show", "1"),
    ("show", "3"),
    ("diff", "0", "3"),
    ("verify", "--full"),
    ("milestone", "list"),
)


def _answers(repo: Repo) -> dict[str, tuple[int, str]]:
    """What each reading command says here: its exit code and output, the path left out."""
    found = {}
    for args in _ASKED:
        done = repo.snap(*args)
        text = (done.stdout + done.stderr).replace(str(repo.path), "ROOT")
        found[" ".join(args)] = (done.returncode, text)
    return found


def _rebuilt(repo: Repo, name: str) -> Repo:
    """A copy of ``repo`` whose index is deleted: the next command builds it from the refs."""
    copy = Repo(repo.path.parent / name)
    shutil.copytree(repo.path, copy.path, symlinks=True)
    for index in (copy.path / ".git" / "snapline").glob("index.db*"):
        index.unlink()
    return copy


def _as_rebuilt(repo: Repo, name: str) -> dict[str, tuple[int, str]]:
    """The answers of ``repo``'s index, checked equal to a rebuilt one's (the oracle)."""
    oracle = _answers(_rebuilt(repo, name))
    mine = _answers(repo)
    assert mine == oracle
    return mine


def _two_clones(tmp_path: Path) -> tuple[Repo, Repo]:
    """Clone ``a`` with a secret recorded (snapshot 1), two after it, a milestone, pushed;
    clone ``b`` of the remote with the history fetched and read once (its index built).
    """
    a = new_repo(tmp_path / "a", {"a.txt": "one\n"})
    remote = tmp_path / "remote.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(remote)], env=ENV, check=True)
    a.git("remote", "add", "origin", str(remote))
    a.ok("init")
    (a.path / "config.env").write_bytes(b"TOKEN=" + SECRET + b"\nMODE=dev\n")
    a.ok("record", "config.env", "-m", "add the config")
    (a.path / "config.env").write_bytes(b"TOKEN=\nMODE=dev\n")
    a.ok("record", "config.env", "-m", "drop the token")
    (a.path / "a.txt").write_text("two\n")
    a.ok("record", "a.txt", "-m", "edit a")
    a.ok("milestone", "create", "-m", "phase one")
    a.git("add", "-A")
    a.git("commit", "-q", "-m", "the work")
    a.git("push", "-q", "origin", "main", "refs/snapline/*:refs/snapline/*")
    b = Repo(tmp_path / "b")
    subprocess.run([*GIT, "clone", "-q", str(remote), str(b.path)], env=ENV, check=True)
    b.ok("fetch", "origin")
    assert SECRET.decode() in b.ok("show", "1")
    return a, b


def _forget_published(a: Repo) -> None:
    a.ok("forget", "config.env", "--snapshot", "1", "-m", "leaked token")
    a.ok("forget", "--publish", "origin")


def test_a_forget_fetched_by_snapline_fetch_is_taken_in_by_a_reading_command(
    tmp_path: Path,
) -> None:
    a, b = _two_clones(tmp_path)
    _forget_published(a)
    # The forget's ref comes, and the line it rewrote with it: the fetched forget names
    # that rewrite and it loses no snapshot here (travel/rewrites.py).
    fetched = b.snap("fetch", "origin")
    assert fetched.returncode == 0, fetched.stderr
    answers = _as_rebuilt(b, "oracle")
    assert "Content forgotten" in answers["show 1"][1]
    assert SECRET.decode() not in answers["show 1"][1]
    assert answers["verify --full"][0] == 0


def test_a_rewritten_line_fetched_before_its_forget_is_read_again(tmp_path: Path) -> None:
    a, b = _two_clones(tmp_path)
    _forget_published(a)
    b.git("fetch", "-q", "origin", "+refs/snapline/lines/*:refs/snapline/lines/*")
    # The index no longer holds the rows read from the old commits.
    before = _as_rebuilt(b, "oracle-lines")
    assert SECRET.decode() not in before["show 1"][1]
    b.git("fetch", "-q", "origin", "+refs/snapline/*:refs/snapline/*")
    after = _as_rebuilt(b, "oracle-all")
    assert "Content forgotten" in after["show 1"][1]
    assert after["verify --full"][0] == 0
    assert "edit a" in after["log"][1]


def test_a_forget_fetched_before_its_rewritten_line(tmp_path: Path) -> None:
    a, b = _two_clones(tmp_path)
    _forget_published(a)
    b.git("fetch", "-q", "origin", "+refs/snapline/forgets/*:refs/snapline/forgets/*")
    first = _as_rebuilt(b, "oracle-forget")
    assert "Content forgotten" in first["show 1"][1]
    b.git("fetch", "-q", "origin", "+refs/snapline/*:refs/snapline/*")
    then = _as_rebuilt(b, "oracle-all")
    assert "Content forgotten" in then["show 1"][1]
    assert then["verify --full"][0] == 0
    # The clone records on a line of its own, forked from the rewritten one.
    (b.path / "a.txt").write_text("three\n")
    b.ok("record", "a.txt", "-m", "edit a again")
    assert "edit a again" in _as_rebuilt(b, "oracle-recorded")["log"][1]


def test_milestones_rewound_by_a_forced_fetch_are_the_refs_ones(tmp_path: Path) -> None:
    a, b = _two_clones(tmp_path)
    before = a.git("rev-parse", "refs/snapline/milestones/" + _line(a)).strip()
    (a.path / "a.txt").write_text("four\n")
    a.ok("record", "a.txt", "-m", "edit a, four")
    a.ok("milestone", "create", "-m", "phase two")
    a.git("push", "-q", "origin", "refs/snapline/*:refs/snapline/*")
    b.ok("fetch", "origin")
    assert "phase two" in b.ok("milestone", "list")
    # Someone pushes the milestones back to phase one, forced; b fetches, forced.
    a.git("push", "-q", "--force", "origin", f"{before}:refs/snapline/milestones/{_line(a)}")
    b.git("fetch", "-q", "origin", "+refs/snapline/*:refs/snapline/*")
    answers = _as_rebuilt(b, "oracle")
    assert "phase two" not in answers["milestone list"][1]
    assert "phase one" in answers["milestone list"][1]


def _line(repo: Repo) -> str:
    refs = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()
    assert len(refs) == 1, refs
    return refs[0].removeprefix("refs/snapline/lines/")


def _craft_tip(repo: Repo, old: str, new: str) -> None:
    """Rewrite the tip commit of the line: its record's ``old`` text made ``new``.

    The snapshot's id, number, chain field and state stay: only its diff differs.
    """
    ref = "refs/snapline/lines/" + _line(repo)
    tip = repo.git("rev-parse", ref).strip()
    record = repo.git("cat-file", "-p", f"{tip}:record")
    assert old in record
    blob = subprocess.run(
        [*GIT, "hash-object", "-w", "--stdin"],
        input=record.replace(old, new),
        cwd=repo.path,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    state = repo.git("rev-parse", f"{tip}:state").strip()
    listing = f"100644 blob {blob}\trecord\n040000 tree {state}\tstate\n"
    tree = subprocess.run(
        [*GIT, "mktree"],
        input=listing,
        cwd=repo.path,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    message = repo.git("log", "-1", "--format=%B", tip)
    commit = repo.git("commit-tree", tree, "-p", f"{tip}~1", "-m", message).strip()
    repo.git("update-ref", ref, commit, tip)


def test_a_crafted_rewrite_keeping_the_ids_is_damage(tmp_path: Path) -> None:
    _, b = _two_clones(tmp_path)
    b.ok("verify", "--full")
    _craft_tip(b, "\n    +two\n", "\n    +TWO\n")
    answers = _as_rebuilt(b, "oracle")
    assert answers["verify --full"][0] == 3
    assert b.snap("verify").returncode == 3


def test_a_linked_work_tree_pinned_behind_the_line_stays_pinned_after_a_forget(
    tmp_path: Path,
) -> None:
    main = new_repo(tmp_path / "main", {"a.txt": "one\n"})
    main.ok("init")
    (main.path / "config.env").write_bytes(b"TOKEN=" + SECRET + b"\nMODE=dev\n")
    main.ok("record", "config.env", "-m", "add the config")
    (main.path / "config.env").write_bytes(b"TOKEN=\nMODE=dev\n")
    main.ok("record", "config.env", "-m", "drop the token")
    main.git("add", "-A")
    main.git("commit", "-q", "-m", "snapshot 2's files")
    (main.path / "a.txt").write_text("two\n")
    main.ok("record", "a.txt", "-m", "edit a")
    # A linked work tree of snapshot 2's commit: its index stops there (.pinning).
    main.git("worktree", "add", "-q", str(tmp_path / "linked"), "HEAD")
    linked = Repo(tmp_path / "linked")
    assert "edit a" not in linked.ok("log")
    main.ok("forget", "config.env", "--snapshot", "1", "-m", "leaked token")
    mine = _answers(linked)
    git_dir = Path(linked.git("rev-parse", "--absolute-git-dir").strip())
    for index in (git_dir / "snapline").glob("index.db*"):
        index.unlink()
    assert mine == _answers(linked)
    assert "edit a" not in mine["log"][1] and "drop the token" in mine["log"][1]
    assert "Content forgotten" in mine["show 1"][1]


def _read_only_answers(repo: Repo) -> dict[str, tuple[int, str]]:
    """:func:`_answers` by a reader who cannot write the repository (its ``.git``)."""
    _readonly(repo.path / ".git")
    try:
        found = {}
        for args in _ASKED:
            done = subprocess.run(
                [SNAPLINE, *args],
                cwd=repo.path, capture_output=True, text=True, env=ENV, timeout=120, check=False,
                preexec_fn=_drop_bypass,
            )  # fmt: skip
            text = (done.stdout + done.stderr).replace(str(repo.path), "ROOT")
            found[" ".join(args)] = (done.returncode, text)
        return found
    finally:
        _writable(repo.path / ".git")


def test_a_reader_who_cannot_write_takes_a_fetched_forget_in(tmp_path: Path) -> None:
    a, b = _two_clones(tmp_path)
    _forget_published(a)
    # The forget's ref alone (its rewritten line not fetched): this index takes it in.
    b.git("fetch", "-q", "origin", "+refs/snapline/forgets/*:refs/snapline/forgets/*")
    oracle = _read_only_answers(_rebuilt(b, "oracle"))
    mine = _read_only_answers(b)
    assert mine == oracle
    assert mine["show 1"][0] == 0 and "Content forgotten" in mine["show 1"][1]
    assert mine["verify --full"][0] == 0
    # Nothing was written: the lines are as fetched, the forget still to take in.
    assert "Content forgotten" in b.ok("show", "1")
