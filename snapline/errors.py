"""The root of snapline's exception hierarchy.

Each concrete error lives next to the code that raises it and carries data (``path``,
``expected``, ``actual``, ``number``), not just a message. Every message says what
happened, where, and what to do about it, so the CLI can print it as one line.

An error declares its data as annotated fields and says its message from them::

    class SnapshotNotFoundError(SnaplineError):
        number: int
        latest: int

        def _message(self) -> str:
            return f"there is no snapshot {self.number}; the history runs from 0 to {self.latest}"

and is raised as ``SnapshotNotFoundError(12, 9)`` or ``SnapshotNotFoundError(number=12,
latest=9)``: its constructor is made from its fields (a subclass's follow its parent's),
as a dataclass's would be, and type checkers are told so. An error whose data is
converted or computed on the way in has an ``__init__`` of its own that passes the
fields (or, with none declared, its message) to this one.
"""

from __future__ import annotations

# `typing` (and `dataclasses`) cost milliseconds every command would pay for its
# errors: the annotations are strings, read by type checkers and by field names only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from typing_extensions import dataclass_transform
else:

    def dataclass_transform() -> Any:
        return lambda cls: cls


__all__ = ["SnaplineError"]

# How an annotation that is not a field starts (a string under `from __future__`).
_CLASS_VARIABLE = ("ClassVar[", "typing.ClassVar[")


@dataclass_transform()
class SnaplineError(Exception):
    """Base class of every error snapline raises on purpose.

    Attributes:
        exit_code: The CLI exit code this error maps to (1: a validation or sync
            failure, 2: a usage error, 3: a corrupt or unreadable store, 4: busy,
            5: git could not push or fetch the history at all).
            Anything else that reaches the command line is a bug in snapline: exit 70.
    """

    exit_code: int = 1
    _fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = cls.__annotations__.items()
        own = (name for name, kind in declared if not str(kind).startswith(_CLASS_VARIABLE))
        cls._fields = (*cls._fields, *own)

    def __init__(self, *values: object, **named: object) -> None:
        """Keep the declared fields, given in order or by name, and say the message.

        Args:
            *values: The fields' values in their order; for an error that declares
                none, its message.
            **named: Fields' values by name.

        Raises:
            TypeError: If a field is missing, given twice, or not declared.
        """
        if not self._fields:
            super().__init__(*values)
            return
        if len(values) > len(self._fields):
            raise TypeError(f"{type(self).__name__} takes {len(self._fields)} fields")
        given = dict(zip(self._fields, values, strict=False))
        for name, value in named.items():
            if name not in self._fields or name in given:
                raise TypeError(f"{type(self).__name__}: unexpected or repeated field {name!r}")
            given[name] = value
        missing = [name for name in self._fields if name not in given]
        if missing:
            raise TypeError(f"{type(self).__name__}: missing {', '.join(missing)}")
        vars(self).update(given)
        super().__init__(self._message())

    def _message(self) -> str:
        """The one line the CLI prints, said from the fields (each error says its own)."""
        raise NotImplementedError(type(self).__name__)
