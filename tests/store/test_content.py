"""Content-addressed blobs: deduplication, lookups, references and deletion."""

from __future__ import annotations

from snapline.content import pack
from snapline.hashing import hash_bytes
from snapline.store import Store
from tests.store.builders import change, record


def test_put_stores_once_and_says_whether_it_was_new(store: Store) -> None:
    with store.write():
        assert store.blobs.put("sha256:a", 5, b"packed-a")
        assert not store.blobs.put("sha256:a", 5, b"other bytes")
    assert store.blobs.get("sha256:a") == b"packed-a"
    assert store.blobs.hashes() == ["sha256:a"]


def test_lookups(store: Store) -> None:
    with store.write():
        store.blobs.put("sha256:a", 5, b"packed-a")
        store.blobs.put("sha256:empty", 0, b"")
    assert store.blobs.has("sha256:a")
    assert store.blobs.has("sha256:empty")
    assert not store.blobs.has("sha256:b")
    assert store.blobs.kept("sha256:a") and store.blobs.kept("sha256:empty")
    assert not store.blobs.kept("sha256:b")
    assert store.blobs.get("sha256:empty") == b""
    assert store.blobs.get("sha256:b") is None
    assert sorted(store.blobs.hashes()) == ["sha256:a", "sha256:empty"]
    assert sorted(store.blobs.iter()) == [("sha256:a", 5, b"packed-a"), ("sha256:empty", 0, b"")]


def test_put_many_skips_those_present(store: Store) -> None:
    with store.write():
        store.blobs.put("sha256:a", 5, b"first")
        store.blobs.put_many([("sha256:a", 5, b"second"), ("sha256:b", 2, b"bb")])
    assert sorted(store.blobs.iter()) == [("sha256:a", 5, b"first"), ("sha256:b", 2, b"bb")]


def test_referenced_are_the_blobs_changes_point_at(store: Store) -> None:
    with store.write():
        store.blobs.put(hash_bytes(b"x"), 1, pack(b"x"))  # no change points at it
    one, two = change(0, "one"), change(0, "two")
    record(store, 0, one, two)
    same = {"content": one.content, "result_hash": one.result_hash, "size": one.size}
    gone, twice = change(1, "one", kind="deleted"), change(1, "three", kind="added", **same)
    record(store, 1, gone, twice, change(1, "two"))
    assert store.blobs.referenced() == {one.content, two.content, change(1, "two").content}


def test_delete_frees_the_packed_bytes_and_ignores_absent_blobs(store: Store) -> None:
    with store.write():
        store.blobs.put_many([("sha256:a", 100, b"aaaa"), ("sha256:b", 100, b"bbbbbb")])
    with store.write():
        assert store.blobs.delete(["sha256:a", "sha256:missing"]) == 4
    assert store.blobs.hashes() == ["sha256:b"]
    assert store.blobs.get("sha256:a") is None
    with store.write():
        assert store.blobs.delete([]) == 0
        assert store.blobs.delete(["sha256:b", "sha256:b"]) == 6
    assert store.blobs.hashes() == []


def test_present_says_which_hashes_are_stored_in_any_number(store: Store) -> None:
    stored = [f"sha256:{n:064x}" for n in range(0, 1200, 2)]
    with store.write():
        store.blobs.put_many([(h, 1, b"rx") for h in stored])
    asked = [f"sha256:{n:064x}" for n in range(1200)] + stored[:3]
    assert store.blobs.present(asked) == set(stored)
    assert store.blobs.present([]) == set()
