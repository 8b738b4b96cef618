"""Which paths a branch made from a snapshot takes over from HEAD, and which it settles."""

from __future__ import annotations

from snapline.store.protocol import StoreReader

__all__ = ["ever_recorded"]


def ever_recorded(*stores: StoreReader) -> set[str]:
    """Every path any snapshot of these histories recorded, and every path tracked now.

    A branch of snapshot N settles each of them (as N had it, or absent) and leaves any
    other path as HEAD has it. Not only what is tracked now: HEAD's tree can hold a file
    that a snapshot deleted long ago, and the branch of a later snapshot must not.

    Args:
        stores: The main line's store first (its known state is what is tracked now),
            then any other line read (a ``LineView``).

    Returns:
        The paths, each as recorded (a change's path and a rename's old path).
    """
    paths = set(stores[0].state.get())
    for store in stores:
        for _, path, old_path in store.changes.paths(0, store.snapshots.latest_number() or 0):
            paths.add(path)
            if old_path is not None:
                paths.add(old_path)
    return paths
