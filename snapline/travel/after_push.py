"""The history's push that the pre-push hook defers until git's own push has ended.

Started by :func:`snapline.travel.pre_push.pre_push` (to a remote that held no ref) in
a session of its own, with a pidfd of git's push process. It waits until that process
has ended (the pidfd turns readable), then runs the hook's command again, ``python -m
snapline push --pre-push REMOTE``, marked :data:`~snapline.travel.pre_push.DEFERRED` so
that it pushes at once (the hook's run judged git's lines): the remote now holds what
git's push sent, and the history's push sends only what it lacks.
"""

from __future__ import annotations

import os
import select
import sys

from snapline.travel.pre_push import DEFERRED, REMOTE, WATCHED

__all__ = ["main"]


def main() -> None:
    """Wait for the process the pidfd in ``$SNAPLINE_AFTER_PUSH_FD`` names to end, then push.

    The remote is ``$SNAPLINE_AFTER_PUSH_REMOTE`` (the environment, not the command line:
    only the lean parser reads one).
    """
    watched, remote = int(os.environ.pop(WATCHED)), os.environ.pop(REMOTE)
    select.select([watched], [], [])
    os.close(watched)
    os.environ[DEFERRED] = "1"
    os.execv(sys.executable, [sys.executable, "-m", "snapline", "push", "--pre-push", remote])


if __name__ == "__main__":
    main()
