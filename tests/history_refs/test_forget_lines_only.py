"""Lines fetched without their forget's record: the forgotten content reads as forgotten.

Real git and a bare remote: secrets are recorded (a new file, kept whole; an edit, kept
as a delta), forgotten, and everything is pushed. A clone fetches only the lines
(``git fetch origin '+refs/snapline/lines/*:refs/snapline/lines/*'``, a clean git
operation), not ``refs/snapline/forgets/*``. Its ``show``, ``diff`` and ``verify
--full`` must say the content was forgotten, as they do with the record, never that the
history is corrupt (exit 3); a blob that is not the version's tombstone stays damage.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo

SECRET = "AKIA-SECRET-TOKEN-7f3e9c"
NOTES = "".join(f"line {n} of the notes\n" for n in range(40))


def _pushed(tmp_path: Path) -> Path:
    """A remote whose history holds two forgotten secrets; its path.

    Snapshot 1 adds ``notes.txt``, 2 puts a secret in it (a delta), 3 takes it out;
    4 edits ``a.txt``, 5 adds ``key.pem`` (whole, the line's tip). Forgotten:
    ``notes.txt`` after 2, ``key.pem`` after 5.
    """
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    remote = tmp_path / "remote.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(remote)], env=ENV, check=True)
    repo.git("remote", "add", "origin", str(remote))
    repo.ok("init")
    notes = repo.path / "notes.txt"
    notes.write_text(NOTES)
    repo.ok("record", "notes.txt", "-m", "notes")
    notes.write_text(NOTES.replace("line 20 ", f"token {SECRET} line 20 "))
    repo.ok("record", "notes.txt", "-m", "a token in the notes")
    notes.write_text(NOTES.replace("line 20 ", "line twenty "))
    repo.ok("record", "notes.txt", "-m", "the token out")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit a")
    (repo.path / "key.pem").write_text(f"KEY {SECRET}\n")
    repo.ok("record", "key.pem", "-m", "a key")
    shown = json.loads(repo.ok("show", "2", "--json"))
    assert [f["storage"] for f in shown["files"]] == ["delta"], shown["files"]
    repo.ok("forget", "notes.txt", "--snapshot", "2", "-m", "a token")
    repo.ok("forget", "key.pem", "-m", "a key")
    repo.git("push", "-q", "origin", "main", "refs/snapline/*:refs/snapline/*")
    return remote


def _lines_only(tmp_path: Path, remote: Path) -> Repo:
    """A clone that fetched the lines, not the forgets."""
    Repo(tmp_path).git("clone", "-q", "-b", "main", str(remote), "clone")
    clone = Repo(tmp_path / "clone")
    clone.git("fetch", "-q", "origin", "+refs/snapline/lines/*:refs/snapline/lines/*")
    assert clone.git("for-each-ref", "refs/snapline/forgets/") == ""
    return clone


def _forgotten_said(clone: Repo, number: str, path: str) -> None:
    done = clone.snap("show", number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Content forgotten (snapline forget): b/{path}" in done.stdout, done.stdout
    assert SECRET not in done.stdout


def _answers(clone: Repo) -> dict[str, tuple[int, str]]:
    """What every snapshot's ``show``, a ``diff`` across a forget, and ``verify`` say."""
    said = {}
    for args in (*(["show", str(n)] for n in range(6)), ["diff", "1", "3"], ["verify", "--full"]):
        done = clone.snap(*args)
        said[" ".join(args)] = (done.returncode, done.stdout + done.stderr)
    return said


def test_lines_without_their_forget_say_forgotten_and_verify(tmp_path: Path) -> None:
    clone = _lines_only(tmp_path, _pushed(tmp_path))
    refs = clone.git("for-each-ref", "refs/snapline/")

    _forgotten_said(clone, "2", "notes.txt")
    _forgotten_said(clone, "5", "key.pem")
    # The version after the forgotten one still rebuilds (kept whole in its state).
    diff = clone.snap("diff", "1", "3")
    assert diff.returncode == 0, diff.stdout + diff.stderr
    assert "+line twenty of the notes" in diff.stdout and SECRET not in diff.stdout
    for args in (["verify"], ["verify", "--full"], ["status"], ["log"]):
        done = clone.snap(*args)
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    without = _answers(clone)
    assert all(code == 0 for code, _ in without.values()), without
    assert clone.git("for-each-ref", "refs/snapline/") == refs  # reading moved no ref

    # The oracle: the same clone once the forgets' records are fetched says the same.
    clone.git("fetch", "-q", "origin", "refs/snapline/forgets/*:refs/snapline/forgets/*")
    assert _answers(clone) == without


def _replace_in_tip(clone: Repo, path: str, data: bytes) -> None:
    """The main line's tip rewritten (plain git) with ``path`` in its state holding ``data``."""
    ref = clone.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()[0]
    tip = clone.git("rev-parse", ref).strip()
    blob = _git_in(clone, ["hash-object", "-w", "--stdin"], data).strip()
    state_tree = _tree_with(clone, f"{tip}:state", path, f"100644 blob {blob}")
    root = _tree_with(clone, f"{tip}:", "state", f"040000 tree {state_tree}")
    commit = subprocess.run(
        [*GIT, "cat-file", "commit", tip], cwd=clone.path, env=ENV, capture_output=True, check=True
    ).stdout
    header, rest = commit.split(b"\n", 1)
    assert header.startswith(b"tree ")
    new = _git_in(
        clone,
        ["hash-object", "-t", "commit", "-w", "--stdin"],
        b"tree " + root.encode() + b"\n" + rest,
    )
    clone.git("update-ref", ref, new.strip(), tip)


def _tree_with(clone: Repo, tree: str, name: str, entry: str) -> str:
    listed = [
        line for line in clone.git("ls-tree", tree).splitlines() if line.split("\t", 1)[1] != name
    ]
    return _git_in(
        clone, ["mktree"], "\n".join([*listed, f"{entry}\t{name}"]).encode() + b"\n"
    ).strip()


def _git_in(clone: Repo, args: list[str], data: bytes) -> str:
    return subprocess.run(
        [*GIT, *args], cwd=clone.path, env=ENV, input=data, capture_output=True, check=True
    ).stdout.decode()


def test_a_blob_that_is_not_the_versions_tombstone_is_damage(tmp_path: Path) -> None:
    clone = _lines_only(tmp_path, _pushed(tmp_path))
    # A tombstone of other content (a crafted stand-in) in place of key.pem's.
    _replace_in_tip(clone, "key.pem", b"f" + b"0" * 64)

    for args in (["show", "5"], ["verify", "--full"]):
        done = clone.snap(*args)
        assert done.returncode == 3, f"{args}: {done.stdout}{done.stderr}"
    # The one error line names where the damage is (the index naming the blob, under
    # git's directory), never an empty place, and git's way to a sound copy.
    (said,) = clone.snap("show", "5").stderr.strip().splitlines()
    index = clone.path / ".git" / "snapline" / "index.db"
    assert said.startswith(f"snapline: error: the store at {index} is corrupt"), said
    assert "`git fsck` names the damaged objects" in said and ".snapline/" not in said, said
