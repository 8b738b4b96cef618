"""The pre-push hook: a plain ``git push`` of a branch also carries the history's refs.

git has no setting that adds refs to a push without changing the user's own push
configuration (``remote.<name>.push`` would replace the default of pushing the current
branch), so snapline adds a ``pre-push`` hook in the hooks directory git uses
(``core.hooksPath`` respected; a linked work tree shares its repository's). The hook:

- keeps git's ref lines, runs the hook that was there before (renamed
  ``pre-push.snapline-chained``) with the same arguments and lines, and stops the push
  when that one fails, as it would have alone;
- then runs ``snapline push --pre-push REMOTE`` (with the interpreter that installed it,
  else ``snapline`` on PATH), which pushes ``refs/snapline/*`` to the same remote when a
  branch is pushed, with ``--no-verify`` so that the nested push runs no hook again;
- stops the user's push when the history did not go (a ref refused, git failing,
  snapline missing), with one line on stderr saying why and how to push without it,
  unless ``git config snapline.prePush warn``: then that is said and the push goes on.

Installing again rewrites only snapline's own hook (idempotent); uninstalling removes it
and puts the chained hook back under its own name. A hook an older snapline wrote (its
exact text: :mod:`.old_hooks`) is rewritten to today's the next time it runs
(:func:`upgrade_old_hook`), so that its ``|| true`` stops letting a push go on without
the history; a hook anyone edited is left as it is. A hooks directory inside the work
tree (a ``core.hooksPath`` of committed hooks) is refused: snapline writes nothing into
the work tree; the user adds the one line to their own hook instead (docs/cli.md).
Entire's CLI chains a user's hook the same way (``<hook>.pre-entire``).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.travel.gitrun import git
from snapline.travel.old_hooks import is_old_hook
from snapline.travel.pre_push import PRE_PUSH_CONFIG, STOPPED
from snapline.travel.remotes import work_tree

__all__ = [
    "CHAINED",
    "HOOK",
    "MARKER",
    "ChainTakenError",
    "HookInWorkTreeError",
    "HookState",
    "hook_script",
    "hooks_dir",
    "install_push_hook",
    "uninstall_push_hook",
    "upgrade_old_hook",
]

HOOK = "pre-push"
CHAINED = "pre-push.snapline-chained"
"""The name a hook that was there before snapline's is kept under, and run by it."""
MARKER = "# snapline pre-push hook"
"""The line that tells snapline's hook from a user's (never remove a file without it)."""


class HookInWorkTreeError(SnaplineError):
    """git's hooks directory is inside the work tree, where snapline writes nothing.

    Attributes:
        directory: The hooks directory (``core.hooksPath``).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        super().__init__(
            f"git's hooks directory {directory} (core.hooksPath) is inside the work tree, "
            'where snapline writes nothing; add `snapline push --pre-push "$1"` (with '
            "git's ref lines on its stdin) to your own pre-push hook there instead "
            "(docs/cli.md, `snapline push`)"
        )


class ChainTakenError(SnaplineError):
    """A user's hook stands where snapline's was, and the chained one is also there.

    Attributes:
        hook: The user's ``pre-push``.
        chained: The ``pre-push.snapline-chained`` already there.
    """

    def __init__(self, hook: Path, chained: Path) -> None:
        self.hook = hook
        self.chained = chained
        super().__init__(
            f"{hook} is not snapline's and {chained} already exists: installing would "
            "lose one of them; move one away (or merge them into one), then try again"
        )


@dataclass(frozen=True)
class HookState:
    """What installing or uninstalling did.

    Attributes:
        path: The hook (``<hooks>/pre-push``).
        changed: Whether a file was written, renamed or removed.
        chained: The user's hook that snapline's runs first (install), or that was put
            back (uninstall); ``None`` when there is none.
    """

    path: Path
    changed: bool
    chained: Path | None = None


def hooks_dir(root: Path) -> Path:
    """The hooks directory git uses for the repository holding ``root``.

    ``git rev-parse --git-path hooks`` says it: ``core.hooksPath`` when set, the common
    directory's ``hooks`` for a linked work tree.

    Raises:
        NotAGitRepositoryError: If ``root`` is not in a git work tree.
    """
    top = work_tree(root)
    said = git(top, "rev-parse", "--git-path", "hooks").out.strip()
    return (top / said).resolve()


def hook_script(python: str) -> str:
    """The text of snapline's pre-push hook.

    Args:
        python: The interpreter that runs snapline (``python -m snapline``); when it is
            gone, the hook runs ``snapline`` from PATH.

    Returns:
        A POSIX shell script.
    """
    python = shlex.quote(python)
    stopped = STOPPED.replace("`", "\\`")  # inside the shell's double quotes
    return f"""#!/bin/sh
{MARKER}: a branch pushed also carries the history (refs/snapline/*) to the
# same remote. Installed by `snapline push --install-hook`; `snapline push
# --uninstall-hook` removes it and puts back the hook it chains ({CHAINED}).
# A history that does not go stops the push, with one line saying why, unless
# `git config {PRE_PUSH_CONFIG} warn` (or `after`): then the push goes on without it.
snapline_chained="$(dirname "$0")/{CHAINED}"
if ! snapline_lines=$(mktemp "${{TMPDIR:-/tmp}}/snapline-pre-push.XXXXXX"); then
    # Without a place to keep git's ref lines for two readers, the chained hook gets them.
    if [ -x "$snapline_chained" ]; then exec "$snapline_chained" "$@"; fi
    exit 0
fi
trap 'rm -f "$snapline_lines"' EXIT
cat >"$snapline_lines"
if [ -x "$snapline_chained" ]; then
    "$snapline_chained" "$@" <"$snapline_lines" || exit $?
fi
if [ -x {python} ]; then
    {python} -m snapline push --pre-push "$1" <"$snapline_lines" || exit $?
elif command -v snapline >/dev/null 2>&1; then
    snapline push --pre-push "$1" <"$snapline_lines" || exit $?
else
    case "$(git config --get {PRE_PUSH_CONFIG})" in
    warn | after)
        echo "snapline: not found; the history (refs/snapline/*) was not pushed to $1" >&2
        ;;
    *)
        echo "snapline: not found, so the history (refs/snapline/*) cannot go to $1; {stopped}" >&2
        exit 1
        ;;
    esac
fi
exit 0
"""


def install_push_hook(repo: Path) -> HookState:
    """Install snapline's pre-push hook in the repository holding ``repo``.

    A hook already there that is not snapline's is kept as ``pre-push.snapline-chained``
    and run first (its failure still fails the push). Installing again only rewrites
    snapline's hook when its text changed.

    Args:
        repo: A directory in the git work tree.

    Returns:
        The hook's path, whether anything changed, and the chained hook (if any).

    Raises:
        NotAGitRepositoryError: If ``repo`` is not in a git work tree.
        HookInWorkTreeError: If git's hooks directory is inside the work tree.
        ChainTakenError: If a user's hook and a chained one are both there.
        OSError: If the hooks directory cannot be written.
    """
    directory = _own_hooks_dir(repo)
    hook, chained = directory / HOOK, directory / CHAINED
    # The interpreter that runs snapline now: a hook run by a GUI client or a cron job
    # may not have the user's PATH (Entire's hooks embed their binary's path likewise).
    text = hook_script(sys.executable)
    theirs = _is_file(hook) and not _ours(hook)
    if theirs and _is_file(chained):
        raise ChainTakenError(hook, chained)
    if not theirs and _is_file(hook) and hook.read_text(encoding="utf-8") == text:
        return HookState(hook, False, chained if _is_file(chained) else None)
    # Written whole first, so that the user's hook is moved aside only when snapline's
    # is ready to take its place in one rename.
    temp = _written(directory, text)
    try:
        if theirs:
            os.rename(hook, chained)
        os.replace(temp, hook)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return HookState(hook, True, chained if _is_file(chained) else None)


def upgrade_old_hook(repo: Path) -> bool:
    """Rewrite snapline's pre-push hook to today's text if an older snapline wrote it.

    Only a hook whose whole text is one an older snapline wrote (:func:`is_old_hook`) is
    rewritten, in one rename; any other file, snapline's current hook included, is left
    alone. The hook running now keeps reading the file it opened.

    Args:
        repo: A directory in the git work tree.

    Returns:
        Whether the hook was rewritten.

    Raises:
        NotAGitRepositoryError: If ``repo`` is not in a git work tree.
        HookInWorkTreeError: If git's hooks directory is inside the work tree (a copy of
            the old text committed there is the user's file: never rewritten).
        OSError: If the hook cannot be read or the hooks directory written.
    """
    hook = _own_hooks_dir(repo) / HOOK
    try:
        text = hook.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return False
    if hook.is_symlink() or not is_old_hook(text):
        return False
    os.replace(_written(hook.parent, hook_script(sys.executable)), hook)
    return True


def uninstall_push_hook(repo: Path) -> HookState:
    """Remove snapline's pre-push hook, and put back the hook it chained.

    Only a file carrying snapline's marker is removed; a user's hook is left alone.

    Args:
        repo: A directory in the git work tree.

    Returns:
        The hook's path, whether anything changed, and the hook put back (if any).

    Raises:
        NotAGitRepositoryError: If ``repo`` is not in a git work tree.
        OSError: If the hooks directory cannot be written.
    """
    directory = hooks_dir(repo)
    hook, chained = directory / HOOK, directory / CHAINED
    if not _ours(hook):
        return HookState(hook, False)
    if _is_file(chained):
        os.replace(chained, hook)
        return HookState(hook, True, hook)
    hook.unlink()
    return HookState(hook, True)


def _own_hooks_dir(repo: Path) -> Path:
    """The hooks directory, made if missing; refused when inside a work tree."""
    directory = hooks_dir(repo)
    top = work_tree(repo)
    common = Path(git(top, "rev-parse", "--git-common-dir").out.strip())
    common = (top / common).resolve()
    listed = git(top, "worktree", "list", "--porcelain").out.splitlines()
    trees = {top.resolve()} | {
        Path(line.removeprefix("worktree ")).resolve()
        for line in listed
        if line.startswith("worktree ")
    }
    if not _within(directory, common) and any(_within(directory, tree) for tree in trees):
        raise HookInWorkTreeError(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def _is_file(path: Path) -> bool:
    return path.is_symlink() or path.exists()


def _ours(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError:
        return False
    return MARKER.encode() in head


def _written(directory: Path, text: str) -> Path:
    """A new executable file in ``directory`` holding ``text``, fsynced (mode 755)."""
    fd, temp = tempfile.mkstemp(prefix=f".{HOOK}.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fchmod(file.fileno(), 0o755)
            os.fsync(file.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return Path(temp)
