"""A plain ``git push`` with snapline's hook sends each object once, to an empty remote too.

git reads the remote's refs before it runs the pre-push hook and sends everything the
branch reaches minus those. A hook that pushed ``refs/snapline/*`` there and then sent
the baseline's files (the user's files at ``init``), and git's push sent them again: to
a new, empty remote, the user's whole tree twice. Real git, bare remotes reached by a
``file://`` URL and by a path, the real ``snapline`` script and ``git push``; what each
push sent is counted on the wire by a ``receive-pack`` that keeps a copy of it.
"""

from __future__ import annotations

import random
import struct
import subprocess
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo

_FILES = 12


def _tree() -> dict[str, str]:
    """Files that compress little (hex of random bytes), so that bytes count too."""
    rng = random.Random(37)
    return {f"src/m{n:02}.py": rng.randbytes(1024).hex() + "\n" for n in range(_FILES)}


def _remote(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """An empty bare remote, and a ``receive-pack`` that keeps what each push sent."""
    bare = tmp_path / f"{name}.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(bare)], env=ENV, check=True)
    sent = tmp_path / f"{name}-sent"
    sent.mkdir()
    script = tmp_path / f"{name}-receive-pack.sh"
    script.write_text(
        f'#!/bin/sh\nout=$(mktemp "{sent}/push.XXXXXX") || exit 1\n'
        'tee "$out" | git receive-pack "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return bare, sent


def _objects_sent(sent: Path) -> list[int]:
    """The objects in the pack of each push the remote received (none: no pack)."""
    counts = []
    for push in sorted(sent.iterdir()):
        data = push.read_bytes()
        at = data.find(b"PACK\x00\x00\x00")
        counts.append(struct.unpack(">I", data[at + 8 : at + 12])[0] if at >= 0 else 0)
    return counts


def _held(bare: Path) -> int:
    """The distinct objects the remote holds."""
    listed = subprocess.run(
        [*GIT, "--git-dir", str(bare), "cat-file", "--batch-all-objects", "--batch-check"],
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    return len(listed.stdout.splitlines())


def _session(tmp_path: Path, url: str, *, published: bool = False) -> tuple[Repo, Path, Path]:
    """``init``, three recorded edits committed on a branch ``agent``, an empty remote.

    ``published``: the branch was on another remote (``upstream``) when ``init`` ran, so
    the baseline's parent is the user's commit (and the history reaches their commits).
    """
    repo = new_repo(tmp_path / "work", _tree())
    for n in range(3):  # the user's own history below the baseline
        (repo.path / f"doc{n}.txt").write_text(f"{n}\n" + _tree()["src/m11.py"][n:])
        repo.git("add", f"doc{n}.txt")
        repo.git("commit", "-q", "-m", f"doc {n}")
    if published:
        upstream, _ = _remote(tmp_path, "upstream")
        repo.git("remote", "add", "upstream", str(upstream))
        repo.git("push", "-q", "upstream", "main")
    bare, sent = _remote(tmp_path, "remote")
    repo.git("remote", "add", "origin", url.format(bare))
    repo.git("config", "remote.origin.receivepack", str(tmp_path / "remote-receive-pack.sh"))
    assert "`git push` of a branch carries it" in repo.ok("init")
    repo.git("checkout", "-q", "-b", "agent")
    for n in range(3):
        path = f"src/m{n:02}.py"
        (repo.path / path).write_text(f"edit {n}\n" + _tree()[path])
        repo.ok("record", path, "-m", f"edit {n}")
    repo.git("commit", "-q", "-am", "the session's code")
    return repo, bare, sent


def _refs(git_dir: Path) -> str:
    return subprocess.run(
        [*GIT, "--git-dir", str(git_dir), "for-each-ref", "refs/snapline/"],
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _git_push(repo: Repo, *refs: str) -> subprocess.CompletedProcess[str]:
    """A plain ``git push origin REFS``, the hook and all; its output read to its end."""
    return subprocess.run(
        [*GIT, "push", "origin", *refs], cwd=repo.path, env=ENV, capture_output=True, text=True
    )


@pytest.mark.parametrize("url", ["file://{}", "{}"], ids=["file-url", "path"])
def test_a_git_push_to_an_empty_remote_sends_the_user_s_commits_once(
    tmp_path: Path, url: str
) -> None:
    # The baseline's parent is the user's commit: the history reaches their whole
    # history, which a push of it before git's own sent to the empty remote, and git's
    # push (reading the remote's refs before the hook) sent again.
    repo, bare, sent = _session(tmp_path, url, published=True)
    pushed = _git_push(repo, "agent")
    assert pushed.returncode == 0, pushed.stderr
    counts = _objects_sent(sent)
    assert sum(counts) == _held(bare), f"{counts} objects sent for {_held(bare)} held"
    # The history is there, every ref of it: it went once git's push had ended.
    assert _refs(bare) and _refs(bare) == _refs(repo.path / ".git")
    assert "agent -> agent" in pushed.stderr.split("snapline: pushed 2 history refs")[0]


def test_a_first_push_of_a_repository_never_published_sends_the_baseline_s_files_once(
    tmp_path: Path,
) -> None:
    # No parent: the baseline's files are the user's files at init (main's tip here).
    repo, bare, sent = _session(tmp_path, "{}")
    pushed = _git_push(repo, "main", "agent")
    assert pushed.returncode == 0, pushed.stderr
    assert _refs(bare) == _refs(repo.path / ".git")
    counts = _objects_sent(sent)
    assert sum(counts) == _held(bare), f"{counts} objects sent for {_held(bare)} held"


def test_the_history_s_own_push_leaves_out_the_files_the_remote_s_branches_hold(
    tmp_path: Path,
) -> None:
    # The branches go first without the hook, then `snapline push`: the baseline has no
    # parent (nothing was published at init), and only what the remote lacks may go.
    repo, bare, sent = _session(tmp_path, "{}")
    repo.git("push", "-q", "--no-verify", "origin", "main", "agent")
    done = repo.snap("push")
    assert done.returncode == 0, done.stderr
    assert _refs(bare) == _refs(repo.path / ".git")
    counts = _objects_sent(sent)
    assert sum(counts) == _held(bare), f"{counts} objects sent for {_held(bare)} held"


def test_an_empty_remote_refusing_the_history_after_the_branch_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    # To an empty remote the history follows git's push, so it can no longer stop it:
    # what the remote's own rule refuses then is said once, with the command to run.
    repo, bare, _ = _session(tmp_path, "{}")
    refusing = bare / "hooks" / "pre-receive"
    refusing.write_text(
        "#!/bin/sh\nif grep -q refs/snapline/; then echo no history here >&2; exit 1; fi\n"
    )
    refusing.chmod(0o755)
    pushed = _git_push(repo, "agent")
    assert pushed.returncode == 0, pushed.stderr
    assert (
        "agent"
        in subprocess.run(
            [*GIT, "--git-dir", str(bare), "branch"], env=ENV, capture_output=True, text=True
        ).stdout
    )
    assert _refs(bare) == ""
    said = [line for line in pushed.stderr.splitlines() if line.startswith("snapline: ")]
    assert len(said) == 2 and all("was not pushed: origin refused it" in s for s in said), said
    assert said[-1].endswith("; your push went first; run `snapline push origin`"), said
