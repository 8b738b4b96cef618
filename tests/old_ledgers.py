"""Old in-tree ledgers to read: checkouts of the stores the code of their time wrote.

Today's code writes no in-tree ledger (issue 37); a branch that still carries one is read
(``log``, ``verify``, ``blame``, a merge with a moved line) and moved by ``snapline
upgrade``. Tests of that reading take their ledger from ``tests/fixtures/`` (ledger-1
written by d7fdcca, ledger-2 by c82d55b; their manifests say what each holds), never
from today's writers.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.history_refs.gitrepo import Repo
from tests.history_refs.upgrading import clone_fixture

__all__ = ["LEDGER", "ledger_checkout"]

LEDGER = Path(".snapline") / "ledger"


def ledger_checkout(path: Path, name: str = "ledger-2", *, git: bool = True) -> Repo:
    """A checkout at ``path`` of fixture ``NAME``'s ``main``, its ledger in the tree.

    Args:
        path: Where the checkout goes (it must not exist).
        name: ``ledger-1`` or ``ledger-2``.
        git: ``False``: the checkout's ``.git`` removed, its files (the ledger's too)
            left as a workspace outside git.
    """
    repo = clone_fixture(name, path)
    if not git:
        shutil.rmtree(path / ".git")
    return repo
