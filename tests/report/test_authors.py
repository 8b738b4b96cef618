"""Each section of the page counts its files' lines by who wrote them, as ``blame --summary``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke, as_json
from tests.report.page import Node, parse


def _history(root: Path) -> None:
    """Two agent sessions and a person, over two milestones and an open range.

    ==========  ===========  ================================================
    section     who          change
    ==========  ===========  ================================================
    M1 (1..2)   agent-a      src/app.py: two lines more
                agent-b      notes.txt added (three lines)
    M2 (3..4)   alice        src/app.py: a line more by hand (resync)
                agent-b      logo.png added (binary)
    open (5..)  agent-a      README.md deleted
                agent-a      notes.txt: its second line rewritten
    (disk)                   src/app.py: a line more, not recorded
    ==========  ===========  ================================================
    """
    with Workspace.open(root) as ws:
        ws.write_file("src/app.py", "print('hello')\na1\na2\n", session="agent-a")
        ws.write_file("notes.txt", "n1\nn2\nn3\n", session="agent-b")
        ws.milestones.create("first")
    with open(root / "src" / "app.py", "a") as handle:
        handle.write("by hand\n")
    with Workspace.open(root) as ws:
        ws.resync(description="by hand", session="alice")
        ws.write_file("logo.png", b"\x89PNG\r\n\x1a\n\x00binary", session="agent-b")
        ws.milestones.create("second")
        ws.delete_file("README.md", session="agent-a")
        ws.write_file("notes.txt", "n1\nby a\nn3\n", session="agent-a")
    with open(root / "src" / "app.py", "a") as handle:
        handle.write("not yet\n")


def _authors(section: Node) -> dict[str, Any]:
    """A section's counts, in the shape of ``blame --summary --json``'s total."""
    box = section.find("div", "authors")
    kinds = {
        str(div.attrs["data-kind"]): int(str(div.find("dd").attrs["data-value"]))
        for div in box.find("dl", "authors-kinds").find_all("div")
    }
    who: dict[str, dict[str, int]] = {"agent": {}, "person": {}}
    for li in box.find_all("li"):
        if li.attrs.get("data-who") is not None:
            who[str(li.attrs["data-kind"])][str(li.attrs["data-who"])] = int(
                str(li.attrs["data-value"])
            )
    return {
        "lines": int(str(box.attrs["data-lines"])),
        **kinds,
        "sessions": who["agent"],
        "people": who["person"],
    }


def _skipped(section: Node) -> dict[str, str]:
    return {
        str(li.attrs["data-path"]): li.find("span", "note").text
        for li in section.find_all("li")
        if li.attrs.get("data-path") is not None
    }


def test_each_section_counts_the_lines_of_its_files_by_who_wrote_them(
    project: Path, cli: Invoke, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _history(project)
    page = tmp_path_factory.mktemp("out") / "review.html"
    assert cli("report", "-o", str(page)).exit_code == 0
    doc = parse(page.read_text(encoding="utf-8"))
    sections = {str(s.attrs["id"]): s for s in doc.find_all("section", "range")}
    assert list(sections) == ["m-1", "m-2", "open"]

    # The oracle: `blame --summary --json` of the files each section's snapshots touched.
    for ident, files in {
        "m-1": ["notes.txt", "src/app.py"],
        "m-2": ["logo.png", "src/app.py"],
        "open": ["notes.txt"],
    }.items():
        oracle = as_json(cli("blame", "--summary", "--json", *files))
        assert _authors(sections[ident]) == oracle["total"], ident
        expected = {s["path"]: s["reason"] for s in oracle["skipped"]}
        if ident == "open":
            expected["README.md"] = "not tracked now (deleted, or moved away)"
        assert _skipped(sections[ident]) == expected, ident

    # And in numbers: lines written in one milestone are counted by whoever wrote them.
    assert _authors(sections["m-1"]) == {
        "lines": 8,
        "agent": 5,
        "person": 1,
        "baseline": 1,
        "unrecorded": 1,
        "sessions": {"agent-a": 3, "agent-b": 2},
        "people": {"alice": 1},
    }
    assert _authors(sections["m-2"])["sessions"] == {"agent-a": 2}
    assert "binary" in _skipped(sections["m-2"])["logo.png"]
    assert _authors(sections["open"]) == {
        "lines": 3,
        "agent": 3,
        "person": 0,
        "baseline": 0,
        "unrecorded": 0,
        "sessions": {"agent-b": 2, "agent-a": 1},
        "people": {},
    }
    assert list(_skipped(sections["open"])) == ["README.md"]


def test_a_file_deleted_on_disk_is_named_with_why_and_the_page_still_drawn(
    project: Path, cli: Invoke, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with Workspace.open(project) as ws:
        ws.write_file("notes.txt", "n1\n", session="agent-a")
        ws.write_file("src/app.py", "print('hi')\n", session="agent-a")
    (project / "notes.txt").unlink()  # drift: tracked, gone from disk
    page = tmp_path_factory.mktemp("out") / "review.html"
    done = cli("report", "-o", str(page))
    assert done.exit_code == 0, done.output
    section = parse(page.read_text(encoding="utf-8")).find("section", "range")
    assert _authors(section)["sessions"] == {"agent-a": 1}
    oracle = as_json(cli("blame", "--summary", "--json", "notes.txt", "src/app.py"))
    assert _skipped(section) == {s["path"]: s["reason"] for s in oracle["skipped"]}
    assert "deleted on disk" in _skipped(section)["notes.txt"]
