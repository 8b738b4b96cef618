"""A plain ``git push`` of a branch carries the history: snapline's pre-push hook."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from snapline.store.refs.layout import line_ref
from snapline.travel import pre_push
from snapline.travel.hook import hook_script
from tests.store.refs.lines import GIT_ENV, Line, git
from tests.travel.repos import bare, clone, continued, history, refs, run, snapline, work

USER_HOOK = """#!/bin/sh
# the user's own pre-push hook: it logs what git gave it, and refuses a branch named "wip"
cat > "$(dirname "$0")/../user-hook-saw"
echo "$@" >> "$(dirname "$0")/../user-hook-saw"
grep -q refs/heads/wip "$(dirname "$0")/../user-hook-saw" && exit 7
exit 0
"""


LINES: dict[Path, Line] = {}


def _repo(tmp_path: Path) -> tuple[Path, Path, str]:
    root = work(tmp_path / "work")
    remote = bare(tmp_path / "remote.git")
    git(root, "remote", "add", "origin", str(remote))
    line = history(root)
    assert line.line is not None
    LINES[root] = line
    return root, remote, line_ref(line.line)


def _install(root: Path) -> dict[str, object]:
    done = snapline(root, "push", "--install-hook", "--json")
    assert done.exit_code == 0, done.output
    shape: dict[str, object] = json.loads(done.stdout)
    return shape


def test_a_plain_git_push_of_a_branch_carries_the_history(tmp_path: Path) -> None:
    root, remote, ref = _repo(tmp_path)
    first = _install(root)
    assert first["changed"] is True
    assert first["hook"] == str(root / ".git/hooks/pre-push")
    hook = (root / ".git/hooks/pre-push").read_text()
    assert _install(root) == {**first, "changed": False}  # idempotent
    assert (root / ".git/hooks/pre-push").read_text() == hook
    # The user's push settings are left alone: no push refspec added.
    assert run(root, "config", "--get-regexp", r"^remote\..*\.push$").stdout == ""

    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "snapline: pushed 1 history ref to origin" in pushed.stderr
    assert refs(remote) == refs(root)
    assert ref in refs(remote)
    # A fresh clone: the branch, then the history with one fetch.
    other = clone(remote, tmp_path / "clone")
    assert snapline(other, "fetch").exit_code == 0
    assert refs(other) == refs(root)
    assert git(root, "status", "--porcelain") == ""


def test_the_hook_moves_nothing_for_a_dry_run_a_tag_or_a_deletion(tmp_path: Path) -> None:
    root, remote, _ = _repo(tmp_path)
    _install(root)
    dry = run(root, "push", "--dry-run", "origin", "main")
    assert dry.returncode == 0, dry.stderr
    assert "snapline: would have pushed 1 history ref to origin (dry run)" in dry.stderr
    assert git(remote, "for-each-ref") == ""
    git(root, "tag", "v1")
    assert run(root, "push", "origin", "v1").returncode == 0
    assert refs(remote) == ""
    git(root, "push", "-q", "--no-verify", "origin", "main:gone")
    assert run(root, "push", "origin", ":gone").returncode == 0
    assert refs(remote) == ""


def test_the_user_s_hook_still_runs_and_its_failure_still_fails_the_push(
    tmp_path: Path,
) -> None:
    root, remote, ref = _repo(tmp_path)
    theirs = root / ".git/hooks/pre-push"
    theirs.write_text(USER_HOOK)
    theirs.chmod(0o755)
    installed = _install(root)
    assert installed["chained"] == str(root / ".git/hooks/pre-push.snapline-chained")
    assert (root / ".git/hooks/pre-push.snapline-chained").read_text() == USER_HOOK

    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    head = git(root, "rev-parse", "HEAD").strip()
    saw = (root / ".git/user-hook-saw").read_text()
    # The user's hook got git's own ref lines on stdin and git's arguments.
    assert saw == f"refs/heads/main {head} refs/heads/main {'0' * 40}\norigin {remote}\n"
    assert ref in refs(remote)

    git(root, "branch", "wip")
    history(root)  # a new line, so that there is something for the hook to push
    before = refs(remote)
    refused = run(root, "push", "origin", "wip")
    assert refused.returncode != 0
    assert "wip" not in git(remote, "branch", "--list")
    assert refs(remote) == before  # the push stopped before the history went


def test_uninstall_removes_only_snapline_s_hook_and_puts_the_user_s_back(tmp_path: Path) -> None:
    root, _, _ = _repo(tmp_path)
    hooks = root / ".git/hooks"
    (hooks / "pre-push").write_text(USER_HOOK)
    (hooks / "pre-push").chmod(0o755)
    _install(root)
    done = snapline(root, "push", "--uninstall-hook")
    assert done.exit_code == 0
    assert (hooks / "pre-push").read_text() == USER_HOOK
    assert not (hooks / "pre-push.snapline-chained").exists()
    assert stat.S_IMODE((hooks / "pre-push").stat().st_mode) == 0o755
    # Again: the user's hook is not snapline's, so it stays.
    again = snapline(root, "push", "--uninstall-hook")
    assert again.exit_code == 0
    assert again.stdout.startswith("no snapline pre-push hook at ")
    assert (hooks / "pre-push").read_text() == USER_HOOK
    # Without a user's hook, uninstalling leaves no hook at all.
    (hooks / "pre-push").unlink()
    _install(root)
    assert snapline(root, "push", "--uninstall-hook").exit_code == 0
    assert sorted(p.name for p in hooks.iterdir() if p.name.startswith("pre-push")) == [
        "pre-push.sample"
    ]


def test_core_hooks_path_is_respected_and_never_the_work_tree(tmp_path: Path) -> None:
    root, remote, ref = _repo(tmp_path)
    shared = tmp_path / "shared-hooks"
    git(root, "config", "core.hooksPath", str(shared))
    assert _install(root)["hook"] == str(shared / "pre-push")
    assert not (root / ".git/hooks/pre-push").exists()
    assert run(root, "push", "origin", "main").returncode == 0
    assert ref in refs(remote)

    git(root, "config", "core.hooksPath", ".githooks")
    done = snapline(root, "push", "--install-hook")
    assert done.exit_code == 1
    assert done.stderr.startswith(
        f"snapline: error: git's hooks directory {root / '.githooks'} (core.hooksPath) "
        "is inside the work tree, where snapline writes nothing; "
    )
    assert not (root / ".githooks").exists()
    assert git(root, "status", "--porcelain") == ""


def test_a_refused_history_ref_stops_the_user_s_push_unless_told_to_warn(
    tmp_path: Path,
) -> None:
    root, remote, ref = _repo(tmp_path)
    line = LINES[root]
    git(root, "push", "-q", "origin", "main")
    assert snapline(root, "push").exit_code == 0
    # Another clone continues the line and pushes it; this one continues it too.
    other = clone(remote, tmp_path / "clone")
    assert snapline(other, "fetch").exit_code == 0
    history(other, 2, continued(other, line))
    assert snapline(other, "push").exit_code == 0
    history(root, 1, line)
    theirs, mine = refs(remote), refs(root)
    _install(root)
    (root / "src/app.py").write_bytes(b"more\n")
    git(root, "commit", "-q", "-am", "more")
    before = git(remote, "rev-parse", "main")

    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode != 0, pushed.stderr
    assert git(remote, "rev-parse", "main") == before  # the branch did not go without it
    said = [line for line in pushed.stderr.splitlines() if line.startswith("snapline: ")]
    assert said == [
        f"snapline: {ref} was not pushed: origin has snapshots on it that this repository "
        "lacks; run `snapline fetch origin`, then push again (nothing was lost); so your "
        "push stopped (`git push --no-verify` pushes without the history once, `git config "
        "snapline.prePush warn` always)"
    ], pushed.stderr
    assert (refs(remote), refs(root)) == (theirs, mine)

    git(root, "config", "snapline.prePush", "warn")
    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert git(remote, "rev-parse", "main") == git(root, "rev-parse", "main")
    assert f"snapline: {ref} was not pushed: origin has snapshots on it" in pushed.stderr
    assert "snapline: your push goes on without the history refs above" in pushed.stderr
    assert (refs(remote), refs(root)) == (theirs, mine)


def test_the_remote_refusing_the_history_stops_the_push_in_one_line(tmp_path: Path) -> None:
    root, remote, _ = _repo(tmp_path)
    _install(root)
    # A remote that holds a branch already (to an empty one the history goes after git's
    # push, and cannot stop it: tests/history_refs/test_push_once.py).
    git(root, "push", "-q", "--no-verify", "origin", "main:base")
    (root / "new.txt").write_text("new\n")
    git(root, "add", "new.txt")
    git(root, "commit", "-q", "-m", "new")
    # The branch may go, the history may not: the remote's own hook refuses every push
    # that carries a history ref, and says so on its way out (the nested push fails).
    refusing = remote / "hooks" / "pre-receive"
    refusing.write_text(
        "#!/bin/sh\nif grep -q refs/snapline/; then echo no history here >&2; exit 1; fi\n"
    )
    refusing.chmod(0o755)
    before = refs(remote)
    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode != 0, pushed.stderr
    assert "main" not in git(remote, "branch", "--list")
    said = [line for line in pushed.stderr.splitlines() if line.startswith("snapline: ")]
    assert len(said) == 1, pushed.stderr
    assert said[0].startswith("snapline: refs/snapline/lines/"), said
    assert said[0].endswith(
        "so your push stopped (`git push --no-verify` pushes without the "
        "history once, `git config snapline.prePush warn` always)"
    ), said
    assert refs(remote) == before


def test_the_hooks_history_push_has_no_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's own `git push` runs with no bound; the history's push inside it has none
    # either: a bound would drop the history of a large repository on a loaded machine.
    root, remote, ref = _repo(tmp_path)
    head = git(root, "rev-parse", "HEAD").strip()
    bounds: list[object] = []
    real = subprocess.run

    def spy(*args: Any, **kwargs: Any) -> Any:
        bounds.append(kwargs.get("timeout"))
        return real(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    done = pre_push(root, "origin", f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")
    assert done is not None and not done.refused
    assert ref in refs(remote)
    assert bounds and all(bound is None for bound in bounds), bounds


def _push_without_snapline(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**GIT_ENV, "PATH": "/usr/bin:/bin"}  # git and sh, and no snapline
    return subprocess.run(
        ["git", "push", "origin", "main"], cwd=root, capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize("setting", ["warn", "after"])
def test_without_snapline_the_hook_stops_the_push_unless_told_to_warn(
    tmp_path: Path, setting: str
) -> None:
    root, remote, _ = _repo(tmp_path)
    hook = root / ".git/hooks/pre-push"
    hook.write_text(hook_script(str(tmp_path / "gone/python")))
    hook.chmod(0o755)
    pushed = _push_without_snapline(root)
    assert pushed.returncode != 0, pushed.stderr
    assert "main" not in git(remote, "branch", "--list")
    said = [line for line in pushed.stderr.splitlines() if line.startswith("snapline: ")]
    assert said == [
        "snapline: not found, so the history (refs/snapline/*) cannot go to origin; so "
        "your push stopped (`git push --no-verify` pushes without the history once, `git "
        "config snapline.prePush warn` always)"
    ], pushed.stderr
    git(root, "config", "snapline.prePush", setting)
    pushed = _push_without_snapline(root)
    assert pushed.returncode == 0, pushed.stderr
    assert "snapline: not found; the history (refs/snapline/*) was not pushed to origin" in (
        pushed.stderr
    )
    assert "main" in git(remote, "branch", "--list")


def test_a_linked_work_tree_shares_the_hook_and_its_push_carries_the_history(
    tmp_path: Path,
) -> None:
    root, remote, ref = _repo(tmp_path)
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", "-b", "agent-2", str(linked))
    installed = _install(linked)
    assert installed["hook"] == str(root / ".git/hooks/pre-push")
    assert _install(root)["changed"] is False  # the same hook, seen from either tree
    pushed = run(linked, "push", "origin", "agent-2")
    assert pushed.returncode == 0, pushed.stderr
    assert ref in refs(remote)
    assert git(linked, "status", "--porcelain") == ""


def test_a_second_user_hook_beside_a_chained_one_is_refused_and_both_kept(
    tmp_path: Path,
) -> None:
    root, _, _ = _repo(tmp_path)
    hooks = root / ".git/hooks"
    (hooks / "pre-push").write_text(USER_HOOK)
    (hooks / "pre-push").chmod(0o755)
    _install(root)
    # The user (or another tool) puts a hook of their own back over snapline's.
    (hooks / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    done = snapline(root, "push", "--install-hook")
    assert done.exit_code == 1
    assert done.stderr == (
        f"snapline: error: {hooks / 'pre-push'} is not snapline's and "
        f"{hooks / 'pre-push.snapline-chained'} already exists: installing would lose one "
        "of them; move one away (or merge them into one), then try again\n"
    )
    assert (hooks / "pre-push").read_text() == "#!/bin/sh\nexit 0\n"
    assert (hooks / "pre-push.snapline-chained").read_text() == USER_HOOK
    assert sorted(p.name for p in hooks.iterdir() if p.name.startswith(".pre-push")) == []
