"""Snapshot ids are version 4 UUIDs, made without importing ``uuid`` (issue 29, lean path)."""

from __future__ import annotations

import uuid

from snapline.snapshots.record.commit import new_id
from snapline.store.ledger.fields import is_id


def test_new_ids_are_random_version_4_uuids_as_uuid4_hex_spells_them() -> None:
    ids = [new_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(hex=text)  # the standard library is the oracle
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
        assert parsed.hex == text
        assert is_id(text)
    # Every bit outside the version and variant varies, as uuid4's do.
    fixed = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
    seen_ones = 0
    seen_zeros = 0
    for text in ids:
        seen_ones |= int(text, 16)
        seen_zeros |= ~int(text, 16)
    assert seen_ones & fixed == fixed
    assert seen_zeros & fixed == fixed
