"""The public API is one table, and importing it stays cheap."""

from __future__ import annotations

import ast
import enum
import functools
import importlib
import inspect
import pkgutil
import subprocess
import sys
import typing
from collections.abc import Callable, Iterator

import snapline


def test_every_export_is_listed_and_importable() -> None:
    assert set(snapline.__all__) == {*snapline._EXPORTS, "__version__"}
    for name in snapline._EXPORTS:
        assert getattr(snapline, name).__name__ == name


def test_every_error_is_a_snapline_error_with_an_exit_code() -> None:
    errors = [getattr(snapline, n) for n in snapline._EXPORTS if n.endswith("Error")]
    assert errors
    for error in errors:
        assert issubclass(error, snapline.SnaplineError)
        # `run` says what a shell says of a command it cannot start (126, 127).
        codes = (126, 127) if error is snapline.CommandError else (1, 2, 3, 4)
        assert error.exit_code in codes


def test_importing_the_package_loads_no_engine() -> None:
    code = "import sys, snapline; print(sorted(m for m in ('pydantic', 'sqlite3', "
    code += "'diff_match_patch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_version_is_the_installed_distributions() -> None:
    # pyproject.toml and snapline.__version__ name the release twice; they must agree.
    from importlib.metadata import version

    assert snapline.__version__ == version("snapline")


# --- Every type the public API takes or hands out is exported too ---------------------
#
# A user who gets a `GuardResult` from `ws.guard(...)` must be able to name every type its
# fields and methods mention (to annotate their own code, to `isinstance` a value) with
# `from snapline import ...`, never from an internal module. The types are found from the
# code, not from a list: the annotations of every public method, property and field of
# every exported class, then of every snapline class those mention, and so on.

# Types the public API mentions that are internal on purpose, each with why. Keep it short:
# the default for a type a public call takes or returns is to export it.
_STORE_ROW = (
    "a row of the store's index (snapline/store/rows.py), shaped by its schema; a public "
    "error carries it as data, and the public models mirror it (Snapshot, SideSnapshot, "
    "Milestone): exporting it would make the index's columns part of the API"
)
INTERNAL: dict[str, str] = {
    "snapline.store.rows.MilestoneRow": _STORE_ROW,  # OtherMilestone.row
    "snapline.store.rows.SideRow": _STORE_ROW,  # SideSnapshotError.side, Line.head
    "snapline.store.rows.SnapshotRow": _STORE_ROW,  # DivergedHistoryError.latest
    # Only in LineCounts.add(owners, origins), the summary's own builder (blame/summary.py's
    # summarize calls it); an Origins is a per-read cache made from the internal StoreReader.
    "snapline.blame.origins.Origins": "a per-read cache over the store, built on StoreReader",
}


def _path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _in_snapline(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "snapline"


@functools.cache
def _namespace(module_name: str) -> dict[str, object]:
    """A module's namespace as type checkers see it: with its ``if TYPE_CHECKING:`` blocks.

    Under ``from __future__ import annotations`` an annotation is a string, evaluated in
    the defining module's namespace, and a name imported (or a type alias defined) only
    for type checkers is missing there: snapline keeps those imports out of the running
    program to start fast. This runs exactly those blocks, read from the module's own
    source, over a copy of its namespace, so each annotation resolves to the very object a
    type checker sees (no guessing by name across snapline's modules).
    """
    module = sys.modules[module_name]
    namespace = dict(vars(module))
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            block = ast.Module(body=node.body, type_ignores=[])
            exec(compile(block, module.__file__ or module_name, "exec"), namespace)
    return namespace


def _hints(owner: object, module_name: str) -> dict[str, object]:
    """``typing.get_type_hints`` of ``owner`` in ``module_name``'s type-checking namespace."""
    return typing.get_type_hints(owner, globalns=_namespace(module_name), include_extras=True)


def _snapline_classes(annotation: object) -> Iterator[type]:
    """Every class defined in snapline inside an annotation, generics unwrapped."""
    if isinstance(annotation, (list, tuple)):  # Callable[[A, B], R]'s parameters
        for item in annotation:
            yield from _snapline_classes(item)
    elif isinstance(annotation, typing.ForwardRef):
        raise AssertionError(f"unresolved annotation {annotation!r}")
    elif isinstance(annotation, typing.TypeVar):
        for bound in (annotation.__bound__, *annotation.__constraints__):
            yield from _snapline_classes(bound)
    elif hasattr(annotation, "__supertype__"):  # a NewType
        yield from _snapline_classes(annotation.__supertype__)
    elif typing.get_origin(annotation) is typing.Annotated:
        yield from _snapline_classes(typing.get_args(annotation)[0])
    elif typing.get_origin(annotation) is typing.Literal:  # an enum member names its enum
        for value in typing.get_args(annotation):
            if isinstance(value, enum.Enum):
                yield from _snapline_classes(type(value))
    elif typing.get_origin(annotation) is not None:
        # list[X], X | None, Callable[..., R], Iterator[X], type[X], Unpack[TypedDict]...
        yield from _snapline_classes(typing.get_origin(annotation))
        yield from _snapline_classes(typing.get_args(annotation))
    elif isinstance(annotation, type) and _in_snapline(annotation):
        yield annotation


def _signatures(attribute: object) -> Iterator[tuple[Callable[..., object], bool]]:
    """The functions behind a class attribute, each with whether it is bound.

    A bound one (a method, a classmethod, a property's accessors) is called without its
    first parameter, so that parameter's annotation is no type a caller names:
    ``Workspace.report`` declares ``self: PageReader`` for mypy, not for its callers.
    """
    if isinstance(attribute, staticmethod):
        yield attribute.__func__, False
    elif isinstance(attribute, classmethod):
        yield attribute.__func__, True
    elif isinstance(attribute, property):
        yield from ((f, True) for f in (attribute.fget, attribute.fset) if f is not None)
    elif isinstance(attribute, functools.cached_property):
        yield attribute.func, True
    elif inspect.isfunction(attribute):
        yield attribute, True


def _parameters_and_return(function: Callable[..., object], bound: bool) -> dict[str, object]:
    hints = _hints(function, function.__module__)
    if bound:
        hints.pop(next(iter(inspect.signature(function).parameters), ""), None)
    return hints


def _fields(owner: type) -> dict[str, object]:
    """The public fields ``owner`` itself declares, resolved: its annotated names.

    Pydantic models, dataclasses, NamedTuples, TypedDicts, and an error's data (its
    constructor is made from its annotated fields, as a dataclass's is); and a plain
    class's ``__slots__`` set from the same-named parameters of its ``__init__``
    (``Tracking.paths``, ``Tracking.snapshot``).
    """
    declared = {
        # A TypedDict's are ForwardRefs bound to their module, which would skip the
        # type-checking names: give back the string, evaluated as any other.
        name: kind.__forward_arg__ if isinstance(kind, typing.ForwardRef) else kind
        for name, kind in vars(owner).get("__annotations__", {}).items()
    }
    holder = type("Fields", (), {"__annotations__": declared})
    fields = _hints(holder, owner.__module__)
    slots = vars(owner).get("__slots__", ())
    init = vars(owner).get("__init__")
    if slots and inspect.isfunction(init):
        given = _parameters_and_return(init, bound=True)
        fields.update({name: given[name] for name in slots if name in given})
    return {name: hint for name, hint in fields.items() if not name.startswith("_")}


def _mentions(cls: type) -> Iterator[tuple[str, type]]:
    """``(where, class)`` for every snapline class a public member of ``cls`` mentions.

    Members inherited from outside snapline (pydantic's ``model_dump``, ``Exception``'s
    ``args``, ``Enum``'s ``name``) are not snapline's API, and are skipped.
    """
    seen: set[str] = set()  # a name a subclass declares hides its bases' one
    for owner in filter(_in_snapline, cls.__mro__):
        members = {n: a for n, a in vars(owner).items() if not n.startswith("_") and n not in seen}
        fields = {n: hint for n, hint in _fields(owner).items() if n not in seen}
        for name, attribute in members.items():
            for function, bound in _signatures(attribute):
                for hint in _parameters_and_return(function, bound).values():
                    yield from ((f"{cls.__name__}.{name}()", c) for c in _snapline_classes(hint))
        for name, hint in fields.items():
            yield from ((f"{cls.__name__}.{name}", c) for c in _snapline_classes(hint))
        seen.update(members, fields)


def _unexported_types() -> dict[type, set[str]]:
    """Each snapline class the public API mentions that ``snapline`` does not export.

    Walked to a fixed point: a type reached through an unexported one is reached too.
    """
    exported = {getattr(snapline, name) for name in snapline._EXPORTS}
    todo = [value for value in exported if isinstance(value, type)]
    walked: set[type] = set()
    missing: dict[type, set[str]] = {}
    while todo:
        cls = todo.pop()
        if cls in walked:
            continue
        walked.add(cls)
        for where, found in _mentions(cls):
            if found not in exported:
                missing.setdefault(found, set()).add(where)
                if _path(found) not in INTERNAL:
                    todo.append(found)
    return missing


def test_every_type_the_public_api_mentions_is_exported() -> None:
    problems = sorted(
        f"{cls.__name__} (used by {', '.join(sorted(uses))}): export it from {cls.__module__} "
        "in snapline/__init__.py (_EXPORTS, __all__, TYPE_CHECKING), or say in INTERNAL why not"
        for cls, uses in _unexported_types().items()
        if _path(cls) not in INTERNAL
    )
    assert problems == [], "\n".join(
        ["the public API uses types snapline does not export:", *problems]
    )


def test_every_internal_type_is_still_reached_and_not_exported() -> None:
    # An entry that nothing public reaches any more, or that became public, goes.
    reached = {_path(cls) for cls in _unexported_types()}
    assert sorted(set(INTERNAL) - reached) == []
    exported = {_path(getattr(snapline, name)) for name in snapline._EXPORTS}
    assert sorted(set(INTERNAL) & exported) == []


# --- Every error a library call can raise is exported too ------------------------------
#
# A user who calls `ws.blame(path)` must be able to `except` each error it raises by a name
# from `snapline`. The errors are found from the code, not from a list: every module of the
# package is imported, then every subclass of SnaplineError defined in snapline is walked.

# Optional extras (pyproject.toml): a module that needs one that is not installed is
# skipped, and only when its import fails for that very package. The dev extra (make's
# venv, CI) installs both, so there every module is imported.
_EXTRAS = {"mcp", "watchdog"}

# Errors that never reach a caller of the library (Workspace, Milestones and what they
# return), each with why; checked by reading where each is raised and caught. Keep it
# short: the default for an error a public call can raise is to export it.
_CLI = "imported only by snapline.cli, which says every SnaplineError as one line"
_TRAVEL = f"push, fetch and the pre-push hook (snapline.travel): {_CLI}"
_UPGRADE = f"`snapline upgrade` (snapline.moving*): {_CLI}"
_NOT_REFS = (
    "raised for a store not on git's refs, which a Workspace never writes: its other store, "
    "the in-tree ledger, has opening.py's refusal (InTreeLedgerError), which "
    "Recorder.writing raises first"
)
UNREACHABLE_ERRORS: dict[str, str] = {
    "snapline.cli.warm.control.ServerError": f"the warm server (snapline.cli.warm): {_CLI}",
    "snapline.hosts.integrate.SettingsError": f"`snapline integrate`: {_CLI}",
    "snapline.hosts.watch.WatchUnavailableError": f"`snapline watch`: {_CLI}",
    # Not blame's NotAFileError (exported): the MCP server's read_file tool's, which its
    # tool_errors (hosts/mcp_shapes.py) turns into the tool's error.
    "snapline.hosts.mcp_files.NotAFileError": f"the MCP server's read_file tool: {_CLI}",
    "snapline.moving.StagedChangesError": _UPGRADE,
    "snapline.moving_git.GitCommandError": _UPGRADE,
    "snapline.moving_merged.NoWholeLedgerError": _UPGRADE,
    "snapline.travel.hook.ChainTakenError": _TRAVEL,
    "snapline.travel.hook.HookInWorkTreeError": _TRAVEL,
    "snapline.travel.remotes.NoRemoteError": _TRAVEL,
    "snapline.travel.remotes.NotAGitRepositoryError": _TRAVEL,
    # Exit 5, push's and fetch's alone: blame's commit range (the one library call that
    # runs travel's git) says a git that cannot run as its own CommitRangeError.
    "snapline.travel.gitrun.GitFailedError": _TRAVEL,
    "snapline.git_binary.GitNotRunError": (
        "run_git's; every library caller catches it and says it its own way (BranchError, "
        "PublishRefusedError, OSError, an answer without git)"
    ),
    "snapline.store.refs.git_errors.NotAGitRepositoryError": (
        "open_repository's for a path where snapline.state_dir finds no repository; the "
        "library opens one only where state_dir found it, or passes the open one on"
    ),
    "snapline.guard.records.NoCheckLogError": f"add_outcome's, under Workspace.guard: {_NOT_REFS}",
    "snapline.snapshots.record.forget.NoLedgerError": f"under Workspace.forget: {_NOT_REFS}",
    "snapline.snapshots.record.plan.ConflictsError": (
        "a base class never raised itself: RollbackConflictError and RevertConflictError are"
    ),
    "snapline.snapshots.restore.undo._NothingWaitingError": (
        "a private base class never raised itself: NothingToUndoError and NothingToRedoError are"
    ),
}


def _import_every_module() -> None:
    for info in pkgutil.walk_packages(snapline.__path__, "snapline."):
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] not in _EXTRAS:
                raise


def _snapline_errors() -> list[type]:
    """Every subclass of SnaplineError that snapline defines, by its path."""
    _import_every_module()
    found: dict[str, type] = {}
    todo = [snapline.SnaplineError]
    while todo:
        for sub in todo.pop().__subclasses__():
            if _in_snapline(sub) and _path(sub) not in found:
                found[_path(sub)] = sub
                todo.append(sub)
    return [found[path] for path in sorted(found)]


def test_every_error_a_library_call_can_raise_is_exported() -> None:
    exported = {getattr(snapline, name) for name in snapline._EXPORTS}
    missing = [
        f"{error.__name__} (defined in {error.__module__})"
        for error in _snapline_errors()
        if error not in exported and _path(error) not in UNREACHABLE_ERRORS
    ]
    assert missing == [], "\n".join(
        [
            "snapline does not export these errors: export each that a library call can "
            "raise in snapline/__init__.py (_EXPORTS, __all__, TYPE_CHECKING), or say in "
            "UNREACHABLE_ERRORS why it never reaches a library caller",
            *missing,
        ]
    )


def test_every_unexported_error_listed_still_exists_and_is_not_exported() -> None:
    # An entry whose class is gone (renamed, moved) or became public goes.
    listed = set(UNREACHABLE_ERRORS)
    assert sorted(listed - {_path(error) for error in _snapline_errors()}) == []
    exported = {_path(getattr(snapline, name)) for name in snapline._EXPORTS}
    assert sorted(listed & exported) == []
