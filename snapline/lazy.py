"""Names a package exports but loads on first use (PEP 562).

A process imports a package on its way to any module inside it: ``snapline --help``
imports ``snapline``, and ``snapline verify`` imports ``snapline.milestones`` to check
them. A package whose ``__init__`` imported what it re-exports would load the models
(and pydantic) into every such process; one that uses :func:`lazy_exports` loads each
name the first time it is asked for.
"""

from __future__ import annotations

import sys

# `typing` costs a few milliseconds to import, and `snapline --version` imports nothing
# but this package (the annotations are strings: only type checkers read them).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package with lazily loaded names.

    Use as ``__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)``, with the names in
    a ``TYPE_CHECKING`` block too, for type checkers.

    Args:
        package: The package's ``__name__``.
        exports: Each exported name, and the module that defines it.

    Returns:
        ``(__getattr__, __dir__)`` for the package's namespace.
    """

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(module)  # not importlib's: the package itself costs `--version` a module
        value = getattr(sys.modules[module], name)
        setattr(sys.modules[package], name, value)  # later lookups find it directly
        return value

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return getattr_, dir_
