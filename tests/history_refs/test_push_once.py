"""A plain ``git push`` with snapline's hook sends each object once, to an empty remote too.

git reads the remote's refs before it runs the pre-push hook and sends everything the
branch reaches minus those. A hook that pushed ``refs/snapline/*`` there and then sent
the baseline's files (the user's files at ``init``), and git's push sent them again: to
a new, empty remote, the user's whole tree twice. Real git, bare remotes reached by a
``file://`` URL and by a path, the real ``snapline`` script and ``git push``; what each
push sent is counted on the wire by a ``receive-pack`` that keeps a copy of it.
"""

from __future__ import annotations

import http.server
import os
import random
import struct
import subprocess
import threading
from collections.abc import Iterator
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


def _in_pack(index: Path) -> int:
    """The objects in the pack of ``index`` (one push's, kept as it came)."""
    shown = subprocess.run(
        [*GIT, "show-index"], input=index.read_bytes(), capture_output=True, env=ENV, check=True
    )
    return len(shown.stdout.splitlines())


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


class _SmartHttp(http.server.BaseHTTPRequestHandler):
    """git's smart HTTP protocol: each request handed to ``git http-backend`` (CGI)."""

    root = ""

    def _backend(self) -> None:
        path, _, query = self.path.partition("?")
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        env = {
            "PATH": os.environ["PATH"],
            "GIT_PROJECT_ROOT": self.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_USER": "tests",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            "HTTP_GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
        }
        done = subprocess.run([*GIT, "http-backend"], input=body, env=env, capture_output=True)
        head, _, rest = done.stdout.partition(b"\r\n\r\n")
        fields = [line.decode().partition(": ") for line in head.split(b"\r\n") if line]
        status = [int(v.split()[0]) for k, _, v in fields if k.lower() == "status"]
        self.send_response(status[0] if status else 200)
        for key, _, value in fields:
            if key.lower() != "status":
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    do_GET = do_POST = _backend

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def http_root(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A directory served over git's smart HTTP on localhost, and its URL."""
    root = tmp_path / "served"
    root.mkdir()
    handler = type("Handler", (_SmartHttp,), {"root": str(root)})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_over_https_helper_too_the_history_leaves_out_what_the_remote_s_tips_hold(
    tmp_path: Path, http_root: tuple[Path, str]
) -> None:
    # An http(s) remote's helper starts a send-pack of its own: what makes git leave out
    # the remote's tips must reach it (an environment variable does, an option does not).
    served, url = http_root
    repo, _, _ = _session(tmp_path, "{}")
    bare = served / "r.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(bare)], env=ENV, check=True)
    for key, value in (("http.receivepack", "true"), ("receive.unpackLimit", "1")):
        subprocess.run([*GIT, "--git-dir", str(bare), "config", key, value], env=ENV, check=True)
    repo.git("remote", "set-url", "origin", f"{url}/r.git")
    repo.git("push", "-q", "--no-verify", "origin", "main", "agent")
    done = repo.snap("push")
    assert done.returncode == 0, done.stderr
    assert _refs(bare) == _refs(repo.path / ".git")
    packs = bare / "objects" / "pack"
    counts = [_in_pack(idx) for idx in sorted(packs.glob("*.idx"))]
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


def test_a_push_of_many_branches_to_an_empty_remote_is_not_held_by_the_hook(
    tmp_path: Path,
) -> None:
    # 800 branches: git's lines to the hook are past a pipe's 64 KiB. The history's push
    # that follows git's must not wait for them on a pipe nobody reads until git ends
    # (git waits for the hook: neither would end). The bound only ends a hang.
    repo, bare, _ = _session(tmp_path, "{}")
    head = repo.git("rev-parse", "HEAD").strip()
    made = "".join(f"create refs/heads/many/{n:04} {head}\n" for n in range(800))
    subprocess.run(
        [*GIT, "update-ref", "--stdin"], cwd=repo.path, input=made, text=True, env=ENV, check=True
    )
    pushed = subprocess.run(
        [*GIT, "push", "origin", "--all"],
        cwd=repo.path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pushed.returncode == 0, pushed.stderr
    branches = subprocess.run(
        [*GIT, "--git-dir", str(bare), "for-each-ref", "refs/heads/"],
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(branches.stdout.splitlines()) == 802
    assert _refs(bare) == _refs(repo.path / ".git")


def _shared(repo: Path) -> set[str]:
    """The objects both the branch ``agent`` and the history reach, and ``main`` does not."""

    def reached(*tips: str) -> set[str]:
        listed = subprocess.run(
            [*GIT, "rev-list", "--objects", *tips, "--not", "main"],
            cwd=repo,
            env=ENV,
            capture_output=True,
            text=True,
            check=True,
        )
        return {row.split()[0] for row in listed.stdout.splitlines()}

    return reached("agent") & reached("--glob=refs/snapline/")


@pytest.mark.parametrize("url", ["file://{}", "{}"], ids=["file-url", "path"])
@pytest.mark.parametrize("setting", ["refuse", "after"])
def test_to_a_remote_holding_main_only_refuse_sends_what_both_reach_twice(
    tmp_path: Path, url: str, setting: str
) -> None:
    # git's pack is fixed before the hook runs, and a history that may stop the push must
    # land, whole, before the hook ends: what the branch and the history both reach then
    # goes in both packs. `snapline.prePush after` lets the history follow git's push.
    repo, bare, sent = _session(tmp_path, url)
    repo.git("push", "-q", "--no-verify", "origin", "main")
    for earlier in sent.iterdir():
        earlier.unlink()
    held = _held(bare)
    repo.git("config", "snapline.prePush", setting)
    pushed = _git_push(repo, "agent")
    assert pushed.returncode == 0, pushed.stderr
    assert _refs(bare) == _refs(repo.path / ".git")
    counts = _objects_sent(sent)
    assert len(counts) == 2, counts  # the branch's push and the history's
    twice = {"refuse": len(_shared(repo.path)), "after": 0}[setting]
    assert twice > 0 or setting == "after"  # the session's files, and the trees above them
    assert sum(counts) - (_held(bare) - held) == twice, f"{counts}: {_held(bare) - held} new"
    branch_first = pushed.stderr.index("agent -> agent") < pushed.stderr.index("snapline: pushed")
    assert branch_first == (setting == "after"), pushed.stderr


def test_after_a_history_the_remote_refuses_is_said_once_the_branch_went(
    tmp_path: Path,
) -> None:
    repo, bare, _ = _session(tmp_path, "{}")
    repo.git("push", "-q", "--no-verify", "origin", "main")
    repo.git("config", "snapline.prePush", "after")
    refusing = bare / "hooks" / "pre-receive"
    refusing.write_text(
        "#!/bin/sh\nif grep -q refs/snapline/; then echo no history here >&2; exit 1; fi\n"
    )
    refusing.chmod(0o755)
    pushed = _git_push(repo, "agent")
    assert pushed.returncode == 0, pushed.stderr
    assert (
        repo.git("rev-parse", "agent")
        == subprocess.run(
            [*GIT, "--git-dir", str(bare), "rev-parse", "agent"],
            env=ENV,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert _refs(bare) == ""
    said = [line for line in pushed.stderr.splitlines() if line.startswith("snapline: ")]
    assert said and all("was not pushed: origin refused it" in s for s in said), said
    assert said[-1].endswith("; your push went first; run `snapline push origin`"), said
