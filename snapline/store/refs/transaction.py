"""Several refs moved together, in one libgit2 transaction: all of them, or none.

libgit2 locks every ref of a transaction (git's own ``NAME.lock`` files, so a writer
using git itself is excluded too) before it moves any; each is compared with what the
caller expects under its lock. A process killed before the transaction commits leaves
every ref where it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from snapline.store.refs.git import GitRepository, RefConflictError

__all__ = ["set_refs"]


def set_refs(
    repo: GitRepository, moves: Sequence[tuple[str, str, str | None]], message: str
) -> None:
    """Move each ref ``(name, new, expected)`` to ``new``, if every one is at ``expected``.

    Args:
        repo: The repository.
        moves: The refs, each with its new target and the target it must have now
            (``None``: it must not exist).
        message: The reflog message.

    Raises:
        RefConflictError: If a ref is elsewhere, or another writer holds its lock;
            then no ref moved.
    """
    import pygit2

    library = repo._repo
    with library.transaction() as transaction:
        for name, _, expected in moves:
            try:
                transaction.lock_ref(name)
            except pygit2.GitError:
                raise RefConflictError(name, expected, None) from None
            actual = repo.ref(name)
            if actual != expected:
                raise RefConflictError(name, expected, actual)
        for name, new, _ in moves:
            transaction.set_target(name, pygit2.Oid(hex=new), message=message)
