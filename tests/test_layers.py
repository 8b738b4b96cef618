"""The house: dependencies point one way, and the store stays behind its seam.

cli -> the public API (workspace, opening) -> the review page (report) -> milestones ->
snapshots (restore -> record -> check -> read -> shared values) -> the primitives. A
module may import its own layer and the layers below it, never one above; only the
store speaks SQL.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "snapline"

LAYERS: list[tuple[str, ...]] = [
    ("snapline.cli", "snapline.__main__"),
    ("snapline.hosts",),
    # The table of commands imports nothing; the hook reads a Bash call's words by it.
    ("snapline.cli.commands",),
    (
        "snapline.workspace",
        "snapline.opening",
        "snapline.opening_errors",
        "snapline.opening_refs",
        "snapline.upgrade",
        "snapline.moving",
        "snapline.moving_git",
        "snapline.moving_join",
        "snapline.moving_notes",
        "snapline.moving_plan",
        "snapline.moving_private",
        "snapline.moving_merged",
        "snapline.validation",
        "snapline",
    ),
    # The page reads the history through what the facade hands it, never the facade.
    ("snapline.report",),
    ("snapline.milestones", "snapline.branching", "snapline.guard", "snapline.blame"),
    ("snapline.snapshots.restore",),
    ("snapline.snapshots.record",),
    ("snapline.snapshots.check",),
    ("snapline.snapshots.read",),
    (
        "snapline.snapshots",
        "snapline.snapshots.snapshot",
        "snapline.snapshots.info",
        "snapline.snapshots.info_fields",
        "snapline.snapshots.kinds",
        "snapline.snapshots.found",
        "snapline.snapshots.results",
        "snapline.values",
    ),
    (
        "snapline.store",
        "snapline.travel",
        "snapline.scanning",
        "snapline.atomic",
        "snapline.overlap",
        "snapline.temp_names",
        "snapline.content",
        "snapline.diffing",
        "snapline.hashing",
        "snapline.paths",
        "snapline.sizes",
        "snapline.state_dir",
        "snapline.unknown_path",
        "snapline.crashpoints",
        "snapline.errors",
        "snapline.git_binary",
        "snapline.lazy",
    ),
]

# Facades that only re-export names from below them.
REEXPORTS = {"snapline", "snapline.snapshots"}


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _rank(module: str) -> int:
    best = None
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module == prefix or (prefix != "snapline" and module.startswith(prefix + "."))
            if inside and (best is None or len(prefix) > best[1]):
                best = (rank, len(prefix))
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[0]


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module == "snapline":
                # `from snapline import atomic` names a module, not the public API.
                found.update(
                    f"snapline.{alias.name}"
                    for alias in node.names
                    if (PACKAGE / f"{alias.name}.py").exists()
                )
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: _module(p))
def test_imports_point_down(path: Path) -> None:
    module = _module(path)
    if module in REEXPORTS:
        return
    own = _rank(module)
    upward = sorted(
        name
        for name in _imports(path)
        if name.startswith("snapline") and name not in REEXPORTS and _rank(name) < own
    )
    assert upward == [], f"{module} imports from a layer above it: {upward}"


def test_the_page_reads_what_it_is_handed_not_the_facade() -> None:
    # `from snapline import X` is exempt above (a re-export); for the page it is the
    # facade itself, so only modules may be named that way.
    paths = sorted((PACKAGE / "report").rglob("*.py"))
    assert paths
    facade = {
        f"{_module(path)}: {name}"
        for path in paths
        for name in _public_names(path)
        if not (PACKAGE / f"{name}.py").exists()
    }
    upward = {
        f"{_module(path)}: {name}"
        for path in paths
        for name in _imports(path)
        if name.startswith(("snapline.workspace", "snapline.opening", "snapline.cli"))
    }
    assert sorted(facade | upward) == []
    # And the other way: the facade may call the page (it is below it).
    assert _rank("snapline.workspace") < _rank("snapline.report")


def _public_names(path: Path) -> set[str]:
    """Names imported from the ``snapline`` package itself (its public API)."""
    return {
        alias.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == "snapline" and node.level == 0
        for alias in node.names
    }


def test_only_the_store_speaks_sql() -> None:
    speaking = sorted(
        _module(path)
        for path in SOURCES
        if "sqlite3" in _imports(path) and not _module(path).startswith("snapline.store")
    )
    assert speaking == []


@pytest.mark.parametrize("facade", ["workspace", "cli"])
def test_the_facade_and_the_cli_never_import_the_store(facade: str) -> None:
    paths = sorted((PACKAGE / facade).rglob("*.py"))
    assert paths
    for path in paths:
        assert not any(name.startswith("snapline.store") for name in _imports(path)), path


def test_no_module_is_over_400_lines() -> None:
    long = {_module(p): n for p in SOURCES if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}
