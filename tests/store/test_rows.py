"""A row's shape: the verdict on its values' types, the same after sound rows were seen."""

from __future__ import annotations

import itertools
import types

from snapline.store import ChangeRow, SnapshotRow, shape_problem
from tests.store.builders import change

_VALUES: tuple[object, ...] = (None, 0, 7, True, "text", b"bytes", 1.5)


def _model(row: tuple[object, ...]) -> bool:
    """Sound by the declared types, field by field (bool is never an int here)."""
    for name, value in zip(type(row).__annotations__, row, strict=True):
        annotation = type(row).__annotations__[name]
        allowed = annotation.__args__ if isinstance(annotation, types.UnionType) else (annotation,)
        if not isinstance(value, allowed) or isinstance(value, bool):
            return False
    return True


def test_a_row_of_sound_types_then_a_bad_one_of_the_same_kind_is_still_refused() -> None:
    sound = change(1, "a.txt")
    assert shape_problem(sound) is None
    assert shape_problem(sound) is None  # asked again: the same answer
    assert shape_problem(sound._replace(size=True)) == ("its size is the bool True, not int | None")
    assert shape_problem(sound._replace(size="big")) == (
        "its size is the text 'big', not int | None"
    )
    assert shape_problem(sound._replace(path=None)) is not None


def test_every_field_and_value_type_is_judged_as_the_declared_types_say() -> None:
    # Each field of each record given each kind of value, in an order that sees sound
    # rows of the same record type before and after every bad one.
    base = change(2, "b/c.txt")
    for field, value in itertools.product(ChangeRow._fields, _VALUES):
        row = base._replace(**{field: value})
        assert (shape_problem(row) is None) == _model(row), (field, value)
        assert shape_problem(base) is None
    header = SnapshotRow._fields
    assert header  # the snapshot's row is held to its own declared types too
    sound_header = _snapshot_row()
    for field, value in itertools.product(header, _VALUES):
        row = sound_header._replace(**{field: value})
        assert (shape_problem(row) is None) == _model(row), (field, value)


def _snapshot_row() -> SnapshotRow:
    values: list[object] = []
    for annotation in SnapshotRow.__annotations__.values():
        allowed = annotation.__args__ if isinstance(annotation, types.UnionType) else (annotation,)
        kind = allowed[0]
        values.append({int: 1, str: "x", bytes: b"x"}.get(kind))
    row = SnapshotRow(*values)
    assert shape_problem(row) is None
    return row
