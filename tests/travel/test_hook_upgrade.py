"""A pre-push hook an older snapline wrote becomes today's the next time it runs.

The first hook of 0.3 (a312519) ran the history's push with ``|| true``: a history that
did not go never stopped the user's push, until ``snapline push --install-hook`` ran
again. Its exact text (for the interpreter it names) is kept in tests/fixtures/hooks.
Real git, a bare remote whose own hook refuses the history, a real ``git push``.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from snapline.travel.hook import hook_script
from tests.store.refs.lines import git
from tests.travel.repos import bare, history, refs, run, work

_OLD = Path(__file__).parent.parent / "fixtures" / "hooks" / "pre-push-a312519.sh"


def _old_hook() -> str:
    return _OLD.read_text(encoding="utf-8").replace("@PYTHON@", shlex.quote(sys.executable))


def _refusing_remote(tmp_path: Path) -> Path:
    """A bare remote that takes branches and refuses every push carrying a history ref."""
    remote = bare(tmp_path / "remote.git")
    refusing = remote / "hooks" / "pre-receive"
    refusing.write_text(
        "#!/bin/sh\nif grep -q refs/snapline/; then echo no history here >&2; exit 1; fi\n"
    )
    refusing.chmod(0o755)
    return remote


def _repo(tmp_path: Path, hook_text: str) -> tuple[Path, Path, Path]:
    root = work(tmp_path / "work")
    remote = _refusing_remote(tmp_path)
    git(root, "remote", "add", "origin", str(remote))
    history(root)
    hook = root / ".git/hooks/pre-push"
    hook.write_text(hook_text)
    hook.chmod(0o755)
    return root, remote, hook


def _new_branch(root: Path, name: str) -> None:
    """A branch with a commit of a file no snapshot holds (git's push and the history's
    push share no object)."""
    git(root, "checkout", "-q", "-b", name)
    (root / f"{name}.txt").write_text(f"{name}\n")
    git(root, "add", f"{name}.txt")
    git(root, "commit", "-q", "-m", name)


def test_an_old_hook_is_upgraded_as_it_runs_and_then_stops_a_push_without_history(
    tmp_path: Path,
) -> None:
    root, remote, hook = _repo(tmp_path, _old_hook())
    # This push still runs the old text: the history is refused and the branch goes on.
    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "main" in git(remote, "branch", "--list")
    assert refs(remote) == ""
    # ...and the hook that ran is today's now, with the same mode.
    assert hook.read_text(encoding="utf-8") == hook_script(sys.executable)
    assert hook.stat().st_mode & 0o777 == 0o755
    assert sorted(
        p.name for p in hook.parent.iterdir() if p.name.startswith(("pre-push", "."))
    ) == [
        "pre-push",
        "pre-push.sample",
    ]

    _new_branch(root, "next")
    stopped = run(root, "push", "origin", "next")
    assert stopped.returncode != 0, stopped.stderr
    assert "next" not in git(remote, "branch", "--list")
    said = [line for line in stopped.stderr.splitlines() if line.startswith("snapline: ")]
    assert len(said) == 1 and said[0].endswith(
        "so your push stopped (`git push --no-verify` "
        "pushes without the history once, `git config snapline.prePush warn` always)"
    ), said


def test_an_old_hook_someone_edited_is_never_rewritten(tmp_path: Path) -> None:
    edited = _old_hook().replace("exit 0\n", "# mine: keep going\nexit 0\n")
    assert edited != _old_hook()
    root, remote, hook = _repo(tmp_path, edited)
    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert hook.read_text(encoding="utf-8") == edited
    _new_branch(root, "next")
    assert (
        run(root, "push", "origin", "next").returncode == 0
    )  # its `|| true`, as its owner left it
    assert hook.read_text(encoding="utf-8") == edited
    assert refs(remote) == ""


def test_an_old_hook_text_committed_in_the_work_tree_is_never_rewritten(tmp_path: Path) -> None:
    # core.hooksPath inside the work tree: the hooks are the user's committed files, and
    # snapline writes nothing into the work tree, an old text of its own included.
    root, remote, _ = _repo(tmp_path, "#!/bin/sh\nexit 0\n")
    hooks = root / ".githooks"
    hooks.mkdir()
    (hooks / "pre-push").write_text(_old_hook())
    (hooks / "pre-push").chmod(0o755)
    git(root, "add", ".githooks/pre-push")
    git(root, "commit", "-q", "-m", "our hooks")
    git(root, "config", "core.hooksPath", ".githooks")
    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr  # the old text's `|| true`, as committed
    assert "main" in git(remote, "branch", "--list")
    assert (hooks / "pre-push").read_text(encoding="utf-8") == _old_hook()
    assert git(root, "status", "--porcelain") == ""
