"""`verify`'s checkpoint on git's refs: the next `verify` checks only what came after it.

A `verify` that finds the history sound keeps, in the local index under `.git/snapline/`,
the latest snapshot it checked (store/refs/verified.py). The next one checks the
snapshots after it; `--full` checks everything again. Damage the check covers after the
checkpoint is still found (exit 3); what the default trusts before it (a blob of the
baseline gone) is found by `--full`. `verify` runs in this process (the real command
line) with the chain-hash computations counted.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from snapline.cli.app import app
from snapline.snapshots.check import sequence
from tests.cli_runner import CliRunner
from tests.history_refs.gitrepo import ENV, Repo, new_repo

FILES = {"app.py": "print('v0')\n", "docs/guide.md": "# a guide\n"}


def _origin(tmp_path: Path) -> tuple[Repo, Path]:
    """The agent's work tree and a remote holding its branch and history (0 and 1)."""
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", FILES)
    work.ok("init")
    (work.path / "app.py").write_text("print('v1')\n")
    work.ok("record", "app.py", "-m", "v1")
    work.git("commit", "-qam", "v1")
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    work.ok("push", str(origin))
    return work, origin


def _ci(tmp_path: Path, origin: Path) -> Repo:
    ci = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", str(origin), str(ci.path))
    ci.ok("fetch", "origin")
    return ci


def _verify(ci: Repo, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, dict, int]:
    """`snapline verify --json ARGS`: the exit code, the answer, the chain hashes computed.

    The baseline's chain is computed in its streamed pass, each later snapshot's by
    ``chain_hash``: both are counted, one a snapshot.
    """
    computed = []
    chain, streamed = sequence.chain_hash, sequence.streamed_pass

    def counted_chain(*given: object, **named: object) -> object:
        computed.append("chain")
        return chain(*given, **named)  # type: ignore[arg-type]

    def counted_stream(*given: object, **named: object) -> object:
        computed.append("baseline")
        return streamed(*given, **named)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(sequence, "chain_hash", counted_chain)
        patched.setattr(sequence, "streamed_pass", counted_stream)
        done = CliRunner().invoke(app, ["--root", str(ci.path), "verify", "--json", *args], env=ENV)
    return done.exit_code, json.loads(done.stdout), len(computed)


def _publish_a_new_file(work: Repo, origin: Path) -> None:
    """Snapshot 2, which adds docs/notes.md (kept whole), onto the remote."""
    (work.path / "docs" / "notes.md").write_text("# notes\n")
    work.ok("record", "docs/notes.md", "-m", "notes")
    work.git("add", "docs/notes.md")
    work.git("commit", "-qm", "notes")
    work.git("push", "-q", str(origin), "main")
    work.ok("push", str(origin))


def _loose(ci: Repo, blob: str) -> Path:
    """The loose object file of ``blob`` in the clone (its packs unpacked first)."""
    objects = ci.path / ".git" / "objects"
    for pack in (objects / "pack").glob("*.pack"):
        moved = pack.with_suffix(".moved")
        pack.rename(moved)
        pack.with_suffix(".idx").unlink()
        with open(moved, "rb") as stream:
            subprocess.run(
                ["git", "unpack-objects", "-q"], cwd=ci.path, stdin=stream, env=ENV, check=True
            )
        moved.unlink()
    return objects / blob[:2] / blob[2:]


def _state_blob(ci: Repo, path: str) -> str:
    line = ci.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()[0]
    return ci.git("rev-parse", f"{line}:state/{path}").strip()


def test_the_next_verify_checks_only_what_came_after_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, _ = _origin(tmp_path)
    code, answer, computed = _verify(work, monkeypatch)
    assert (code, answer.get("since"), computed) == (0, None, 2), answer
    # Nothing new: nothing of the history is checked again.
    code, answer, computed = _verify(work, monkeypatch)
    assert (code, answer.get("since"), computed) == (0, 1, 0), answer
    (work.path / "app.py").write_text("print('v2')\n")
    work.ok("record", "app.py", "-m", "v2")
    code, answer, computed = _verify(work, monkeypatch)
    assert (code, answer.get("since"), computed) == (0, 1, 1), answer
    # --full checks the whole history, whatever the checkpoint says.
    code, answer, computed = _verify(work, monkeypatch, "--full")
    assert (code, answer.get("since"), computed) == (0, None, 3), answer


def test_a_fresh_clone_checks_all_once_then_what_it_fetches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, origin = _origin(tmp_path)
    ci = _ci(tmp_path, origin)
    code, answer, computed = _verify(ci, monkeypatch)
    assert (code, answer.get("since"), computed) == (0, None, 2), answer
    _publish_a_new_file(work, origin)
    ci.ok("fetch", "origin")
    code, answer, computed = _verify(ci, monkeypatch)
    assert (code, answer.get("since"), computed) == (0, 1, 1), answer


def test_damage_after_the_checkpoint_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, origin = _origin(tmp_path)
    ci = _ci(tmp_path, origin)
    assert _verify(ci, monkeypatch)[0] == 0
    _publish_a_new_file(work, origin)
    ci.ok("fetch", "origin")
    # Snapshot 2 keeps docs/notes.md whole: its content is the state's blob, now gone.
    _loose(ci, _state_blob(ci, "docs/notes.md")).unlink()
    for args in ((), ("--full",)):
        code, answer, _ = _verify(ci, monkeypatch, *args)
        assert code == 3, (args, answer)
        assert any(p["kind"] == "missing-content" for p in answer["problems"]), answer


def test_damage_before_the_checkpoint_is_trusted_by_default_and_found_with_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, origin = _origin(tmp_path)
    ci = _ci(tmp_path, origin)
    assert _verify(ci, monkeypatch)[0] == 0
    # The baseline's docs/guide.md, checked present by the first verify, gone since.
    _loose(ci, _state_blob(ci, "docs/guide.md")).unlink()
    code, answer, computed = _verify(ci, monkeypatch)
    assert (code, answer.get("since"), computed) == (0, 1, 0), answer
    code, answer, _ = _verify(ci, monkeypatch, "--full")
    assert code == 3, answer
    assert any(p["kind"] == "missing-content" for p in answer["problems"]), answer


def test_a_forget_empties_the_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work, _ = _origin(tmp_path)
    assert _verify(work, monkeypatch)[0] == 0
    assert _verify(work, monkeypatch)[1].get("since") == 1
    # The lines are rewritten with a tombstone and the index rebuilt: checked whole again.
    work.ok("forget", "app.py", "--snapshot", "1", "-m", "leaked")
    code, answer, computed = _verify(work, monkeypatch)
    assert (code, answer.get("since"), computed) == (0, None, 2), answer
