"""Advice for a history that refuses writes: ``snapline upgrade`` first, in one place.

``status`` and ``verify`` word their advice for a history that is written (``snapline
resync``, ``rollback``, ``merge``, ``milestone create``...). Two workspaces refuse every
such write (:class:`~snapline.store.InTreeLedgerError`): an old branch's checkout, whose
history is the 0.2 in-tree ledger, and a work tree whose history is on git's refs while a
git merge brought an old branch's ledger back (:class:`~snapline.store.MergedLedgerError`).
There the advice would send the user to a refusal, or worse: a resync of a merged branch's
files would file its agent's recorded work as a person's edit. This module rewrites the
advice for such a workspace, so that no message decides it on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from snapline.errors import SnaplineError
from snapline.snapshots.snapshot import Problem
from snapline.store.errors import InTreeLedgerError, MergedLedgerError

__all__ = ["upgrade_first", "upgrade_first_problems"]

# A command that writes the history, as advice names it (`snapline resync -m TEXT`...).
_WRITES = re.compile(
    r"`snapline (?:resync|rollback|revert|merge|milestone create|milestone rollback|"
    r"forget|record|undo|redo)\b"
)

_IN_TREE = (
    "run `snapline upgrade` to move this checkout's history (its in-tree ledger, "
    "which is only read) onto git's refs, then "
)
_MERGED = (
    "run `snapline upgrade` to move the snapshots of the branch a git merge brought "
    "back in .snapline/ledger/ onto git's refs, then "
)
# milestones.lines.pending_message's advice for milestones closed beside the main
# line's, which `snapline upgrade` joins itself (snapline/moving_join.py).
_JOIN_BESIDE = "run `snapline merge` to join and number it"
_UPGRADE_JOINS = (
    "run `snapline upgrade`: it moves this checkout's history (its in-tree ledger, which "
    "is only read) onto git's refs, and joins them as `snapline merge` would"
)
# For a merged branch's files, resync would file its agent's recorded work as an edit.
_MERGED_DRIFT = (
    "a git merge brought back the ledger of a branch whose history is still in "
    ".snapline/ledger/, so this may be that branch's recorded work: run `snapline "
    "upgrade` to move its snapshots onto git's refs, then `snapline merge` to join "
    "that line (do not resync it before)"
)


def upgrade_first(advice: str, refusal: SnaplineError | None) -> str:
    """``advice`` as a workspace that refuses writes must give it: ``snapline upgrade`` first.

    Args:
        advice: A message or a line of advice, worded for a history that is written.
        refusal: The open workspace's refusal of every write (its recorder's), or ``None``.

    Returns:
        ``advice`` itself when the workspace writes or it names no writing command;
        else the same advice after ``snapline upgrade``, except that, beside a merged
        branch's ledger, the advice to resync drift becomes ``snapline upgrade`` then
        ``snapline merge`` (what is said before the advice, the paths, is kept).
    """
    command = _WRITES.search(advice)
    if not isinstance(refusal, InTreeLedgerError) or command is None:
        return advice
    if "`snapline upgrade`" in advice:
        return advice  # said already (verify words the drift that status words too)
    merged = isinstance(refusal, MergedLedgerError)
    first = _MERGED if merged else _IN_TREE
    # The advice is the clause naming the command: what comes before it may have
    # clauses of its own (verify names each milestone closed on another branch).
    cut = advice.rfind("; ", 0, command.start())
    what, rest = (advice[:cut], advice[cut + 2 :]) if cut >= 0 else (advice, "")
    if merged and "`snapline resync" in advice:
        return f"{what}; {_MERGED_DRIFT}" if rest else _sentence(_MERGED_DRIFT) + "."
    if not merged and rest == _JOIN_BESIDE:
        return f"{what}; {_UPGRADE_JOINS}"
    if rest:
        return f"{what}; {first}{rest}"
    if advice[:1].isupper():  # a sentence of its own: the advice follows the upgrade
        return _sentence(first) + advice[0].lower() + advice[1:]
    return first + advice


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:]


def upgrade_first_problems(
    problems: Iterable[Problem], refusal: SnaplineError | None
) -> list[Problem]:
    """Each problem with its message's advice given by :func:`upgrade_first`.

    Args:
        problems: What ``status`` or ``verify`` found.
        refusal: The open workspace's refusal of every write, or ``None``.

    Returns:
        The problems, in order; a problem whose message changed is a copy.
    """
    found = list(problems)
    if not isinstance(refusal, InTreeLedgerError):
        return found
    return [
        problem.model_copy(update={"message": upgrade_first(problem.message, refusal)})
        for problem in found
    ]
