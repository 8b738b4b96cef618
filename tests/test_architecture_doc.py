"""docs/architecture.md stays a map a newcomer can use (issue 39, point 6).

One page (at most 150 lines), a line for every folder of snapline/, and every file it
names for the newcomer's tasks present in the checkout.
"""

from __future__ import annotations

import re
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
DOC = CHECKOUT / "docs" / "architecture.md"


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_map_is_one_page() -> None:
    assert len(_text().splitlines()) <= 150


def test_every_folder_of_the_package_has_its_line() -> None:
    rows = {line.split("|")[1].strip() for line in _text().splitlines() if line.startswith("| `")}
    folders = sorted(
        path.relative_to(CHECKOUT).as_posix()
        for path in (CHECKOUT / "snapline").rglob("*")
        if path.is_dir() and path.name != "__pycache__"
    )
    assert folders, "no folder found under snapline/"
    missing = [folder for folder in folders if f"`{folder}/`" not in rows]
    assert missing == []


def test_the_files_the_tasks_name_exist() -> None:
    tasks = _text().split("## A newcomer's tasks", 1)[1]
    # Paths with a folder: from the checkout (tests/, docs/, snapline/) or from snapline/.
    named = set(re.findall(r"`([\w.]+(?:/[\w.]+)+\.(?:py|md))`", tasks))
    assert len(named) >= 20
    missing = [
        path
        for path in sorted(named)
        if not (CHECKOUT / path).is_file() and not (CHECKOUT / "snapline" / path).is_file()
    ]
    assert missing == []
