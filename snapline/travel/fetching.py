"""``snapline fetch``: the history's refs from a remote, fast-forward only, never forced.

git's own ``fetch`` would refuse a non-fast-forward too, but says so only in prose on
stderr (its ``--porcelain`` came in git 2.41). So the remote's refs are fetched first
under a staging name of this run's own (``refs/snapline-incoming/<run>/…``, which no
local commit is on, so forcing there loses nothing), then each history ref is moved
here by compare-and-swap only when that is a fast-forward (or the ref is new), or the
rewrite of a forget the remote published that holds every snapshot here
(:mod:`snapline.travel.rewrites`); a line that has snapshots here the remote lacks is
never moved. The staging refs are deleted before returning, whatever happened. A fetch
that reached the remote touches a mark in the git directory
(:mod:`snapline.store.refs.fetched`): commits that ``git pull`` brings after it may have
snapshots still on the remote, and ``status`` says so.

``--no-prune`` (a ``fetch.prune`` setting would delete local lines the remote lacks:
lines recorded here and not pushed yet), ``--no-tags``, ``--no-write-fetch-head`` and
``--no-recurse-submodules`` leave the rest of the repository as it was.

A line's baseline has the user's commit it was taken at as its parent (docs/format.md).
In a shallow clone (CI's ``actions/checkout``) a plain fetch of the lines would bring
that commit and every commit below it; ``--shallow-exclude=HEAD`` stops at the commits
the remote's default branch reaches, so the clone gets the snapshots and stays shallow
(the baselines are added to ``.git/shallow``; ``git fetch --unshallow`` fetches the
rest, as for any shallow clone). A remote that cannot do that gets the plain fetch.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from snapline.store.refs.fetched import note_fetched
from snapline.store.refs.layout import REFS
from snapline.travel.gitrun import GitFailedError, git, git_line
from snapline.travel.localrefs import contains, delete_refs, history_refs, update_refs
from snapline.travel.outcome import Moved, Refusal, Refused, Travel
from snapline.travel.rewrites import forget_naming, forget_rewriting

__all__ = ["STAGING", "fetch"]

STAGING = "refs/snapline-incoming/"
"""Where one fetch puts the remote's refs before moving the history's: outside
``refs/snapline/``, so nothing reads or pushes them; deleted by the same run."""


def fetch(root: Path, remote: str) -> Travel:
    """Fetch every ref under ``refs/snapline/`` from ``remote``; never rewind a local one.

    Args:
        root: A directory in the work tree.
        remote: A remote's name, or a URL.

    Returns:
        The refs moved here, the ones refused with their lines, how many were already
        the same, and those this repository is ahead on.

    Raises:
        GitFailedError: If git could not fetch at all; nothing local moved.
    """
    staging = f"{STAGING}{os.getpid()}-{uuid.uuid4().hex[:12]}/"
    args = ["fetch", "--quiet", "--no-tags", "--no-prune", "--no-write-fetch-head"]
    args += ["--no-recurse-submodules", remote, f"+{REFS}*:{staging}*"]
    try:
        ran = git(root, *args[:1], "--shallow-exclude=HEAD", *args[1:]) if _shallow(root) else None
        if ran is None or ran.code != 0:
            ran = git(root, *args)
        if ran.code != 0:
            raise GitFailedError(
                f"git fetch {remote}",
                git_line(ran),
                "nothing was fetched; check that the remote exists and that "
                "`git fetch` from it works",
            )
        # Commits git fetched before this are no longer newer than the history (status,
        # verify: store/refs/fetched.py): nothing at run time asks the remote.
        common = git(root, "rev-parse", "--git-common-dir").out.strip()
        if common:
            note_fetched(root / common)
        incoming = {
            REFS + name.removeprefix(staging): oid
            for name, oid in history_refs(root, staging).items()
        }
        return _settle(root, remote, incoming)
    finally:
        delete_refs(root, history_refs(root, staging))


def _shallow(root: Path) -> bool:
    """Whether the repository is a shallow clone (``git rev-parse``'s own answer)."""
    return git(root, "rev-parse", "--is-shallow-repository").out.strip() == "true"


def _settle(root: Path, remote: str, incoming: dict[str, str]) -> Travel:
    """Move each local ref that ``incoming`` fast-forwards; refuse the diverged ones."""
    local = history_refs(root)
    updates: list[tuple[str, str, str | None]] = []
    refused: list[Refusal] = []
    ahead: list[str] = []
    same = 0
    for ref, theirs in sorted(incoming.items()):
        ours = local.get(ref)
        if ours == theirs:
            same += 1
        elif ours is None or contains(root, theirs, ours):
            updates.append((ref, theirs, ours))
        elif contains(root, ours, theirs):
            ahead.append(ref)
        elif forget_rewriting(root, incoming, ref, ours, theirs) is not None:
            # A published forget's rewrite, holding every snapshot here: taken by
            # compare-and-swap on the tip read, with the forget record it came with.
            updates.append((ref, theirs, ours))
        else:
            refused.append(_diverged(remote, ref, forget_naming(root, incoming, ref)))
    moved = [Moved(ref, old, new) for ref, new, old in updates]
    if not update_refs(root, updates, f"snapline fetch {remote}"):
        # One of them moved meanwhile (a snapshot recorded as we fetched): move the
        # others one by one, and say which could not be.
        moved = []
        for ref, new, old in updates:
            if update_refs(root, [(ref, new, old)], f"snapline fetch {remote}"):
                moved.append(Moved(ref, old, new))
            else:
                refused.append(_moved(remote, ref))
    return Travel(remote, "fetch", tuple(moved), tuple(refused), same, tuple(ahead))


def _diverged(remote: str, ref: str, forget: str | None) -> Refusal:
    if forget is not None:
        # The remote's forget says it rewrote this line, yet its line lacks snapshots
        # held here: the one command that takes it anyway drops them, so it is named
        # with that cost, never run.
        return Refusal(
            ref,
            Refused.diverged,
            f"{ref} was not fetched: {remote}'s {forget} rewrote the line, but this "
            "repository has snapshots on it that the rewrite lacks, and a line is never "
            f"rewound; nothing here changed; compare them with `git log {ref}` and "
            f"`git ls-remote {remote} {ref}`; `git fetch {remote} '+{ref}:{ref}'` takes "
            "the rewrite and drops them (docs/cli.md, `snapline forget`)",
        )
    return Refusal(
        ref,
        Refused.diverged,
        f"{ref} was not fetched: {remote}'s line and this repository's have diverged "
        "(each has snapshots the other lacks) and a line is never rewound; nothing here "
        f"changed; compare them with `git log {ref}` and `git ls-remote {remote} {ref}` "
        "(docs/cli.md, `snapline fetch`)",
    )


def _moved(remote: str, ref: str) -> Refusal:
    return Refusal(
        ref,
        Refused.moved,
        f"{ref} was not fetched: it moved here while fetching from {remote} (a snapshot "
        f"was recorded); nothing was lost; run `snapline fetch {remote}` again",
    )
