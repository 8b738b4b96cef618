"""check/ledger.py's ``_indexed``: the index's headers for the ledger files read back.

Beyond a few hundred files it reads every header at once instead of one at a time (a
whole check of a long history); both ways must give the same headers and chain hashes.
The oracle is the index read one header at a time, as a check after a verify checkpoint
(a few files) does. The files are the index's own rows, some with a number the index
does not hold (a file from another branch), as the ledger's files are read back.
"""

from __future__ import annotations

from pathlib import Path

from snapline import Workspace
from snapline.snapshots.check import ledger


def test_the_headers_are_the_same_read_at_once_or_one_at_a_time(root: Path) -> None:
    (root / "a.txt").write_text("0\n")
    with Workspace.init(root) as ws:
        for number in range(1, ledger._BULK + 10):
            ws.write_file("a.txt", f"{number}\n")
        store = ws._store
        with store.read():
            rows = store.snapshots.select()
        last = rows[-1]
        elsewhere = last._replace(number=last.number + 5, id="f" * 32, parent_id=last.id)
        for files in (rows[: ledger._BULK - 1], rows[: ledger._BULK], [*rows, elsewhere]):
            with store.read():
                indexed, chains = ledger._indexed(store, files)
                one_by_one = {
                    row.number: found
                    for row in files
                    if (found := store.snapshots.get(row.number)) is not None
                }
            assert indexed == one_by_one
            assert set(indexed) == {row.number for row in files} - {elsewhere.number}
            by_id = {row.id: row.chain_hash for row in [*rows, elsewhere]}
            for row in files:
                assert chains[row.id] == row.chain_hash
                if row.parent_id is not None:
                    assert chains[row.parent_id] == by_id[row.parent_id]
