"""The history travels: ``refs/snapline/*`` pushed and fetched with the user's own git.

- :mod:`~snapline.travel.pushing` and :mod:`~snapline.travel.fetching`: ``snapline
  push`` and ``snapline fetch``, fast-forward only (a line is append-only, so a ref
  that would be rewound is refused with its line, never forced);
- :mod:`~snapline.travel.hook` and :mod:`~snapline.travel.pre_push`: the pre-push hook
  that makes a plain ``git push`` of a branch carry the refs too;
- :mod:`~snapline.travel.remotes`: which remote, when none is named;
- :mod:`~snapline.travel.localrefs`, :mod:`~snapline.travel.gitrun`,
  :mod:`~snapline.travel.outcome`: the local refs, the git process, the result.
"""

from __future__ import annotations

from snapline.travel.fetching import fetch
from snapline.travel.gitrun import EXIT_GIT, GitFailedError
from snapline.travel.hook import (
    ChainTakenError,
    HookInWorkTreeError,
    HookState,
    install_push_hook,
    uninstall_push_hook,
    upgrade_old_hook,
)
from snapline.travel.outcome import Moved, Refusal, Refused, Travel
from snapline.travel.pre_push import STOPPED, history_required, pre_push
from snapline.travel.pushing import push
from snapline.travel.remotes import (
    Direction,
    NoRemoteError,
    NotAGitRepositoryError,
    default_remote,
    work_tree,
)

__all__ = [
    "EXIT_GIT",
    "STOPPED",
    "ChainTakenError",
    "Direction",
    "GitFailedError",
    "HookInWorkTreeError",
    "HookState",
    "Moved",
    "NoRemoteError",
    "NotAGitRepositoryError",
    "Refusal",
    "Refused",
    "Travel",
    "default_remote",
    "fetch",
    "history_required",
    "install_push_hook",
    "pre_push",
    "push",
    "uninstall_push_hook",
    "upgrade_old_hook",
    "work_tree",
]
