"""What the pre-push hook runs: push the history when the push carries a branch.

git gives the hook the remote and, on stdin, one line per ref it is about to push:
``<local ref> <local oid> <remote ref> <remote oid>``. The history goes along when a
branch is pushed (a remote ref under ``refs/heads/`` and not a deletion), and not when
the push already names ``refs/snapline/`` itself, or pushes only tags or deletions.

``git push --dry-run`` runs the hook too, and does not tell it: the hook's parent (git)
is asked for its command line, and a dry run pushes the history dry too.

To a remote that holds no ref at all (a new, empty repository), the history goes once
git's own push has ended, not before it. git reads the remote's refs before it runs
the hook and sends everything the branch reaches minus those; a history pushed there
and then carried the files of its baseline, and the user's commits below it, and git's
push sent them all again (40 files, 20 edits: 187 KiB sent, now 121). So the hook
asks the remote for its refs (``git ls-remote``, only when every pushed ref is new
there and no remote-tracking ref says it holds any), and when there are none starts a
process of a session of its own that waits for git's push process to end (a pidfd:
no polling, no pid reused) and pushes then (:mod:`.after_push`), when only what the
remote lacks goes. That history can no longer stop the push it follows: a remote
reachable and empty takes every ref as new, and what may still refuse it (the server's
own rule, the network) is said in one line after git's, naming ``snapline push``.
Everywhere else the history goes first and stops the push when it does not go; where
git's process cannot be watched (no ``/proc``, no pidfd) it goes first too.

The nested push has no time limit, as the user's own ``git push`` has none: a limit
dropped the history of a large repository on a loaded machine while the branch went.
When the history does not go (a ref refused, git failing), the hook stops the user's
push with one line, unless ``git config snapline.prePush warn`` says to let it go on
without the history (:func:`history_required`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from snapline.store.refs.layout import REFS
from snapline.travel.gitrun import GitFailedError, git, git_line
from snapline.travel.outcome import Travel
from snapline.travel.pushing import push

__all__ = [
    "DEFERRED",
    "PRE_PUSH_CONFIG",
    "REMOTE",
    "STOPPED",
    "WATCHED",
    "carries_a_branch",
    "deferred_run",
    "history_required",
    "pre_push",
]

DEFERRED = "SNAPLINE_PUSH_DEFERRED"
"""Set in the environment of the hook's run that follows git's push: it pushes at once."""
WATCHED = "SNAPLINE_AFTER_PUSH_FD"
"""For :mod:`.after_push`: the inherited pidfd of git's push process."""
REMOTE = "SNAPLINE_AFTER_PUSH_REMOTE"
"""For :mod:`.after_push`: the remote to push the history to."""

PRE_PUSH_CONFIG = "snapline.prePush"
"""git's setting for a history that does not go: ``refuse`` (the default) or ``warn``."""

STOPPED = (
    "so your push stopped (`git push --no-verify` pushes without the history once, "
    f"`git config {PRE_PUSH_CONFIG} warn` always)"
)
"""The end of the one line that says why the hook stopped the user's push."""


def carries_a_branch(lines: str) -> bool:
    """Whether git's pre-push lines push a branch, and not the history's refs already."""
    branch = False
    for line in lines.splitlines():
        words = line.split()
        if len(words) != 4:
            continue
        local_oid, remote_ref = words[1], words[2]
        if remote_ref.startswith(REFS):
            return False
        if remote_ref.startswith("refs/heads/") and local_oid.strip("0"):
            branch = True
    return branch


def pre_push(root: Path, remote: str, lines: str) -> Travel | None:
    """Push the history to ``remote`` if git's ``lines`` push a branch.

    Args:
        root: A directory in the work tree (the hook runs at its top).
        remote: The remote git pushes to (its name, or the URL).
        lines: git's pre-push lines (the hook's stdin).

    Returns:
        What the push did; ``None`` when nothing had to go.

    Raises:
        GitFailedError: If git could not push at all.
    """
    if deferred_run():
        return push(root, remote)  # git's push has ended; the hook's run judged its lines
    if not carries_a_branch(lines):
        return None
    found = _git_push_process()
    dry_run = found is not None and _dry_run(found[1])
    if (
        found is not None
        and not dry_run
        and _to_an_empty_remote(root, remote, lines)
        and _defer(root, remote, found[0])
    ):
        return None
    return push(root, remote, dry_run=dry_run)


def deferred_run() -> bool:
    """Whether this run is the one that follows git's push (:mod:`.after_push`)."""
    return bool(os.environ.get(DEFERRED))


def history_required(root: Path) -> bool:
    """Whether a history that did not go stops the user's push (``snapline.prePush``).

    Args:
        root: A directory in the work tree.

    Returns:
        ``False`` only when git's config says ``warn``; any other value (or none, or
        git failing to say) keeps the history required, so it is never dropped unsaid.
    """
    try:
        said = git(root, "config", "--get", PRE_PUSH_CONFIG)
    except GitFailedError:
        return True
    return said.out.strip() != "warn"


def _to_an_empty_remote(root: Path, remote: str, lines: str) -> bool:
    """Whether ``remote`` holds no ref at all: git's push sends the branches' whole history.

    Raises:
        GitFailedError: If git cannot reach the remote (the history could not go either).
    """
    for line in lines.splitlines():
        words = line.split()
        if len(words) == 4 and words[3].strip("0"):
            return False  # a ref pushed is there already
    tracked = git(root, "for-each-ref", "--count=1", "--format=x", f"refs/remotes/{remote}/")
    if tracked.code == 0 and tracked.out.strip():
        return False  # the remote held refs when last fetched or pushed to: no question asked
    said = git(root, "ls-remote", remote, name=f"git ls-remote {remote}")
    if said.code != 0:
        raise GitFailedError(f"git ls-remote {remote}", git_line(said), _UNREACHED)
    return not said.out.strip()


_UNREACHED = "nothing was pushed; check that the remote exists and that `git push` to it works"


def _defer(root: Path, remote: str, git_pid: int) -> bool:
    """Start the push that waits for git's process ``git_pid`` to end; whether it started."""
    try:
        # Opened while git surely runs (it waits for this hook): the fd names that process.
        watched = os.pidfd_open(git_pid)
    except (AttributeError, OSError):
        return False  # not Linux, or a kernel before 5.3
    try:
        # No stdin: git's lines were judged here (a pipe of them, unread until git ends,
        # would block this hook, and so git, past the pipe's 64 KiB: a push of many refs).
        # Its two values go in the environment: only the lean parser reads a command line.
        subprocess.Popen(
            [sys.executable, "-m", "snapline.travel.after_push"],
            cwd=root,
            env={**os.environ, WATCHED: str(watched), REMOTE: remote},
            stdin=subprocess.DEVNULL,
            pass_fds=(watched,),
            start_new_session=True,  # git's end, or a ^C at the terminal, must not stop it
        )
    except OSError:
        return False
    finally:
        os.close(watched)
    return True


def _git_push_process() -> tuple[int, list[str]] | None:
    """The ``git push`` running this hook: its pid and command line; ``None`` if not found."""
    # This process's parent is the hook's shell; the shell's parent is git.
    try:
        shell_stat = Path(f"/proc/{os.getppid()}/stat").read_text(encoding="ascii")
        git_pid = int(shell_stat.rpartition(")")[2].split()[1])
        argv = Path(f"/proc/{git_pid}/cmdline").read_bytes().split(b"\0")
        program = Path(f"/proc/{git_pid}/comm").read_text(errors="replace").strip()
    except (OSError, ValueError, IndexError):
        return None  # no /proc (not Linux): a dry run is not detected
    words = [word.decode(errors="replace") for word in argv if word]
    # git itself, under any alias of push; not a shell that ran the hook by hand.
    return (git_pid, words) if program.startswith("git") else None


def _dry_run(words: list[str]) -> bool:
    """Whether the ``git push`` command line ``words`` is a ``--dry-run`` (``-n``)."""
    if "push" not in words:
        return False  # an alias: a dry run is not detected
    for word in words[words.index("push") + 1 :]:
        if word == "--":
            break
        if word == "--dry-run":
            return True
        if word.startswith("-") and not word.startswith("--") and "n" in word[1:]:
            return True
    return False
