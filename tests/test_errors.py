"""SnaplineError makes an error's constructor from its declared fields (snapline/errors.py)."""

from __future__ import annotations

import pytest

from snapline.errors import SnaplineError


class _RangeError(SnaplineError):
    exit_code = 2
    first: int
    last: int

    def _message(self) -> str:
        return f"the range {self.first}..{self.last} runs backwards"


class _NamedRangeError(_RangeError):
    name: str

    def _message(self) -> str:
        return f"{self.name}: {super()._message()}"


class _ConvertingError(SnaplineError):
    path: str

    def __init__(self, path: object) -> None:
        super().__init__(str(path))

    def _message(self) -> str:
        return f"cannot use {self.path}"


class _MessageError(SnaplineError):
    """An error that says its message itself, with no fields declared."""


def test_fields_in_order_or_by_name_become_attributes_and_the_message() -> None:
    for error in (_RangeError(9, 3), _RangeError(9, last=3), _RangeError(last=3, first=9)):
        assert (error.first, error.last, error.exit_code) == (9, 3, 2)
        assert str(error) == "the range 9..3 runs backwards"
        assert error.args == ("the range 9..3 runs backwards",)


def test_a_subclass_fields_follow_its_parents() -> None:
    error = _NamedRangeError(9, 3, "log")
    assert (error.first, error.last, error.name) == (9, 3, "log")
    assert str(error) == "log: the range 9..3 runs backwards"
    assert isinstance(error, _RangeError)


def test_an_init_of_its_own_converts_then_passes_the_fields() -> None:
    error = _ConvertingError(42)
    assert error.path == "42"
    assert str(error) == "cannot use 42"


def test_an_error_without_fields_keeps_the_message_it_is_given() -> None:
    error = _MessageError("the one line")
    assert str(error) == "the one line"
    assert error.exit_code == 1


@pytest.mark.parametrize(
    ("args", "kwargs", "says"),
    [
        ((9,), {}, "missing last"),
        ((9, 3, 1), {}, "takes 2 fields"),
        ((9,), {"first": 3}, "repeated field 'first'"),
        ((9, 3), {"lats": 3}, "unexpected or repeated field 'lats'"),
    ],
)
def test_a_wrong_set_of_fields_is_a_type_error(
    args: tuple[object, ...], kwargs: dict[str, object], says: str
) -> None:
    with pytest.raises(TypeError, match=says):
        _RangeError(*args, **kwargs)  # type: ignore[arg-type]
