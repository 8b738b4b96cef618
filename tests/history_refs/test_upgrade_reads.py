"""After ``snapline upgrade``, reading commands read: no ref moves.

The fixture ledgers (written by the code of d7fdcca and c82d55b) hold a forgotten
secret. The upgrade writes its tombstone into the states itself, so the forget records
it puts on the refs find nothing left to rewrite: ``log``, ``status``, ``verify`` after
it leave every ref under ``refs/snapline/`` where the upgrade set it (plain
``git for-each-ref``). Stores an older upgrade moved hold a placeholder there instead;
they are read as forgotten, and reading them rewrites nothing either.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, GIT, Repo
from tests.history_refs.upgrading import clone_fixture, objects_under_refs, upgrade

SECRET = b"hunter2"  # what make_ledger_stores.py recorded, then forgot


def _refs(repo: Repo) -> str:
    return repo.git("for-each-ref", "refs/snapline/")


def _reads(repo: Repo) -> None:
    """``log``, ``status`` and ``verify``, each of which must exit 0."""
    for args in (["log"], ["status"], ["verify"]):
        done = repo.snap(*args)
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"


def _forgotten_said(repo: Repo) -> None:
    """``show`` of the snapshot whose ``secret.env`` was forgotten says so."""
    listed = repo.git("log", "--format=%H", "--glob=refs/snapline/lines/*").split()
    records = [repo.git("cat-file", "blob", f"{c}:record") for c in listed]
    number = next(
        r.split("\nnumber ", 1)[1].split("\n", 1)[0] for r in records if 'added "secret.env"' in r
    )
    done = repo.snap("show", number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Content forgotten (snapline forget): b/secret.env" in done.stdout, done.stdout


def _lines_only_clone(repo: Repo, path: Path) -> None:
    """A clone that fetched the lines, not the forget records: the secret still forgotten."""
    Repo(path.parent).git("clone", "-q", str(repo.path), path.name)
    clone = Repo(path)
    clone.git("fetch", "-q", "origin", "+refs/snapline/lines/*:refs/snapline/lines/*")
    assert clone.git("for-each-ref", "refs/snapline/forgets/") == ""
    _forgotten_said(clone)
    done = clone.snap("verify", "--full")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", ["ledger-1", "ledger-2"])
def test_the_first_reads_after_an_upgrade_move_no_ref(name: str, tmp_path: Path) -> None:
    repo = clone_fixture(name, tmp_path / "repo")
    assert upgrade(repo).returncode == 0
    moved = _refs(repo)

    _reads(repo)
    assert _refs(repo) == moved
    _forgotten_said(repo)
    assert _refs(repo) == moved
    assert SECRET not in objects_under_refs(repo)
    _lines_only_clone(repo, tmp_path / "clone")


def _placeholder(digest: str) -> bytes:
    """The bytes the upgrade of 0985dc9 wrote in a state for a version with no content."""
    return (
        "snapline: the in-tree store kept no content of this version (forgotten, or kept "
        f"by its hash only); its recorded hash is sha256:{digest}\n"
    ).encode()


def _as_an_older_upgrade_left_them(repo: Repo) -> None:
    """Every line rewritten with plain git: each tombstone blob in a state a placeholder.

    (The upgrade of 0985dc9 wrote placeholders itself: there, nothing changes.)
    """
    tips = dict(
        line.split(" ", 1)[::-1]
        for line in repo.git(
            "for-each-ref", "--format=%(objectname) %(refname)", "refs/snapline/lines/"
        ).splitlines()
    )
    commits = repo.git("rev-list", "--reverse", "--topo-order", *tips.values()).split()
    trees: dict[str, str] = {}
    new: dict[str, str] = {}
    for commit in commits:
        raw = _git_out(repo, ["cat-file", "commit", commit])
        head, message = raw.split(b"\n\n", 1)
        lines = []
        for line in head.split(b"\n"):
            kind, _, value = line.partition(b" ")
            if kind == b"tree":
                line = b"tree " + _rewritten(repo, value.decode(), trees).encode()
            elif kind == b"parent":
                line = b"parent " + new.get(value.decode(), value.decode()).encode()
            lines.append(line)
        data = b"\n".join(lines) + b"\n\n" + message
        made = _git_out(repo, ["hash-object", "-t", "commit", "-w", "--stdin"], data)
        new[commit] = made.decode().strip()
    for ref, tip in tips.items():
        repo.git("update-ref", ref, new[tip], tip)


def _rewritten(repo: Repo, tree: str, done: dict[str, str]) -> str:
    if tree in done:
        return done[tree]
    entries = []
    for line in repo.git("ls-tree", "-l", tree).splitlines():
        info, name = line.split("\t", 1)
        mode, kind, oid, size = info.split()
        if kind == "tree":
            oid = _rewritten(repo, oid, done)
        elif size == "65":
            data = _git_out(repo, ["cat-file", "blob", oid])
            if data.startswith(b"f"):
                stand_in = _placeholder(data[1:].decode())
                oid = _git_out(repo, ["hash-object", "-w", "--stdin"], stand_in).decode().strip()
        entries.append(f"{mode} {kind} {oid}\t{name}")
    made = _git_out(repo, ["mktree"], ("\n".join(entries) + "\n").encode()).decode().strip()
    done[tree] = made
    return made


def _git_out(repo: Repo, args: list[str], data: bytes | None = None) -> bytes:
    return subprocess.run(
        [*GIT, *args], cwd=repo.path, env=ENV, input=data, capture_output=True, check=True
    ).stdout


def test_placeholders_an_older_upgrade_wrote_read_as_forgotten_and_stay(tmp_path: Path) -> None:
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    assert upgrade(repo).returncode == 0
    _as_an_older_upgrade_left_them(repo)
    assert b"kept no content of this version" in objects_under_refs(repo)
    # Its index is built from the refs, the forget records taken in (as the first
    # command after that upgrade did).
    (repo.path / ".git" / "snapline" / "index.db").unlink()
    held = _refs(repo)

    _reads(repo)
    assert _refs(repo) == held
    _forgotten_said(repo)
    assert repo.snap("verify", "--full").returncode == 0
    assert _refs(repo) == held
    assert SECRET not in objects_under_refs(repo)
    _lines_only_clone(repo, tmp_path / "clone")
