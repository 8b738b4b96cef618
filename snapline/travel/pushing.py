"""``snapline push``: the history's refs to a remote, fast-forward only, with the user's git.

One ``git push`` of ``refs/snapline/*:refs/snapline/*`` (no ``+``: git refuses to
rewind a ref on the remote), run with ``--no-verify`` (so the pre-push hook that calls
this never runs again inside it), ``--no-follow-tags`` and ``--no-recurse-submodules``
(so the user's tags and submodules stay where they are, whatever ``push.followTags``
says). Its ``--porcelain`` report says, ref by ref, what moved and what was refused.

git's push leaves out what the remote holds only through the edges of what it sends
(the parents of sent commits): a baseline without a parent (a repository that was
never published when ``init`` ran) brought its whole tree again, though the remote's
branches hold those files (40 files: 168 objects sent for 116 it lacked). git leaves
out every file of the remote's branch tips when the repository is shallow (pack-objects
``--shallow``: "aggressive" edges), so a repository that is not is pushed from with an
empty shallow file (``GIT_SHALLOW_FILE``, which cuts no commit): then the history's
push sends only what the remote lacks.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from snapline.store.refs.layout import REFS
from snapline.travel.gitrun import GitFailedError, git, git_line
from snapline.travel.localrefs import history_refs
from snapline.travel.outcome import Moved, Refusal, Refused, Travel

__all__ = ["REFSPEC", "push"]

REFSPEC = f"{REFS}*:{REFS}*"
"""The history's refs, each to the same name: never forced (no ``+``)."""


def push(root: Path, remote: str, *, dry_run: bool = False, timeout: float | None = None) -> Travel:
    """Push every ref under ``refs/snapline/`` to ``remote``; never force one.

    Args:
        root: A directory in the work tree.
        remote: A remote's name, or a URL.
        dry_run: Ask the remote what would move, and move nothing (``git push --dry-run``).
        timeout: Seconds after which git is stopped (the pre-push hook's bound).

    Returns:
        The refs moved (or that would be), the ones refused with their lines, and how
        many were already there.

    Raises:
        GitFailedError: If git could not push at all (the remote unreachable, access
            refused); nothing moved.
    """
    local = history_refs(root)
    if not local:
        return Travel(remote, "push", dry_run=dry_run)
    args = ["-c", "core.abbrev=no", "push", "--porcelain", "--no-verify", "--no-follow-tags"]
    args += ["--no-recurse-submodules", *(["--dry-run"] if dry_run else []), remote, REFSPEC]
    with _tips_left_out(root) as env:
        ran = git(root, *args, env=env, timeout=timeout, name=f"git push {remote}")
    moved: list[Moved] = []
    refused: list[Refusal] = []
    same = 0
    for line in ran.out.splitlines():
        flag, spec, summary = _fields(line)
        ref = spec.partition(":")[2]
        if not flag or not ref.startswith(REFS):
            continue
        if flag == "=":
            same += 1
        elif flag in "*+ ":
            old = summary.partition("..")[0] if ".." in summary else None
            moved.append(Moved(ref, old, local.get(ref)))
        elif flag == "!":
            refused.append(_refusal(remote, ref, summary))
    if ran.code != 0 and not refused:
        raise GitFailedError(f"git push {remote}", git_line(ran), _ADVICE)
    return Travel(remote, "push", tuple(moved), tuple(refused), same, dry_run=dry_run)


_ADVICE = "nothing was pushed; check that the remote exists and that `git push` to it works"


@contextlib.contextmanager
def _tips_left_out(root: Path) -> Iterator[dict[str, str] | None]:
    """The environment in which git's push leaves out every object the remote's tips hold.

    Yields this process's environment with ``GIT_SHALLOW_FILE`` naming an empty file for
    a repository that is not shallow (no commit cut, and git's push then leaves out the
    trees of every tip the remote has; the variable, unlike ``--shallow-file``, reaches
    the ``send-pack`` that an https remote's helper starts); ``None`` (unchanged) for a
    shallow one, whose push already does, or when no empty file can be made.
    """
    said = git(root, "rev-parse", "--git-path", "shallow")
    shallow = root / said.out.strip()
    if said.code != 0 or shallow.exists() or "GIT_SHALLOW_FILE" in os.environ:
        yield None
        return
    try:
        fd, empty = tempfile.mkstemp(prefix="snapline-shallow.")
    except OSError:
        yield None
        return
    os.close(fd)
    try:
        yield {**os.environ, "GIT_SHALLOW_FILE": empty}
    finally:
        with contextlib.suppress(OSError):
            os.unlink(empty)


def _fields(line: str) -> tuple[str, str, str]:
    # "<flag>\t<from>:<to>\t<summary>": the flag is one character, a space included.
    parts = line.split("\t")
    if len(parts) < 3 or len(parts[0]) != 1:
        return "", "", ""
    return parts[0], parts[1], parts[2]


def _refusal(remote: str, ref: str, summary: str) -> Refusal:
    """The refusal git reported for ``ref`` (``[rejected] (fetch first)``...), with its line."""
    why = summary.partition("(")[2].rstrip(")").strip() or summary
    if summary.startswith("[rejected]") and why == "fetch first":
        return Refusal(
            ref,
            Refused.behind,
            f"{ref} was not pushed: {remote} has snapshots on it that this repository "
            f"lacks; run `snapline fetch {remote}`, then push again (nothing was lost)",
        )
    if summary.startswith("[rejected]"):
        return Refusal(
            ref,
            Refused.diverged,
            f"{ref} was not pushed: {remote}'s line and this repository's have diverged "
            "(each has snapshots the other lacks) and a line is never rewound; nothing "
            f"changed on either side; compare them after `snapline fetch {remote}` "
            "(docs/cli.md, `snapline push`)",
        )
    return Refusal(
        ref,
        Refused.rejected,
        f"{ref} was not pushed: {remote} refused it ({why}): the remote's own rule "
        "(a protected ref, a server hook, access); nothing was lost",
    )
