"""The page's structure, totals and escaping, parsed with the standard library."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import (
    MilestoneNotFoundError,
    Problem,
    Report,
    SnapshotNotFoundError,
    SnapshotRangeError,
    Workspace,
)
from snapline.report import ReportOutputError, ReportScopeError, Scope
from snapline.report.assets import SCRIPT
from snapline.report.collect import collect
from snapline.report.diffs import Budget
from snapline.report.render import render_page
from tests.report.conftest import (
    HOSTILE_DESCRIPTION,
    HOSTILE_PATH,
    HOSTILE_SESSION,
    MILESTONE_DESCRIPTION,
    MILESTONE_TAG,
    MILESTONE_TITLE,
)
from tests.report.page import Node, parse


def _numbers(doc: Node) -> list[int]:
    return [int(str(a.attrs["id"])[2:]) for a in doc.find_all("article", "snapshot")]


def _totals(dl: Node) -> dict[str, int]:
    return {
        str(div.attrs["data-total"]): int(str(div.find("dd").attrs["data-value"]))
        for div in dl.find_all("div")
    }


def _article(doc: Node, number: int) -> Node:
    node = doc.by_id(f"s-{number}")
    assert node is not None, f"no snapshot {number} on the page"
    return node


def test_sections_per_milestone_then_open(history: Workspace) -> None:
    doc = parse(history.report())

    sections = doc.find_all("section", "range")
    assert [s.attrs["id"] for s in sections] == ["m-1", "m-2", "open"]
    assert [_numbers(s) for s in sections] == [[1, 2, 3], [4, 5], [6]]
    assert "Milestone 2: moved" in sections[1].find("h2").text
    assert "snapshots 4..5" in sections[1].find("p", "meta").text
    assert "snapshots 6..6" in sections[2].find("p", "meta").text
    # Each snapshot with a diff has it folded in a <details> holding a <pre class=diff>.
    for number in (1, 2, 3, 4, 5, 6):
        details = _article(doc, number).find_all("details")
        assert len(details) == 1
        assert details[0].find("summary").text.startswith("diff")
        assert details[0].find("pre", "diff").text.startswith("diff --git ")


def test_snapshot_entries_list_time_tool_session_description_and_files(
    history: Workspace,
) -> None:
    doc = parse(history.report())

    first = _article(doc, 1)
    assert first.find("span", "tool").text == "edit"
    assert first.find("span", "session").text == "@agent-1"
    assert first.find("span", "what").text == "say bye"
    assert str(history.snapshot(1).time.year) in first.find("span", "when").text
    assert [(li.attrs["data-kind"], li.find("span", "path").text) for li in
            first.find_all("li", "file")] == [("modified", "src/app.py")]  # fmt: skip
    moved = _article(doc, 5)
    paths = [p.text for p in moved.find_all("span", "path")]
    assert paths == ["src/app.py", "src/main.py"]
    assert moved.find("li", "file").attrs["data-kind"] == "renamed"
    assert _article(doc, 4).find("li", "file").attrs["data-kind"] == "deleted"


def test_binary_files_are_named_with_their_size(history: Workspace) -> None:
    doc = parse(history.report())

    logo = _article(doc, 3).find("li", "file")
    assert logo.find("span", "path").text == "logo.png"
    assert logo.find("span", "note").text == "binary, 16 bytes"
    assert "Binary files /dev/null and b/logo.png differ" in _article(doc, 3).text
    # A text file gets no such note.
    assert not _article(doc, 1).find_all("span", "note")


def test_totals_match_the_history(history: Workspace) -> None:
    doc = parse(history.report())

    assert _totals(doc.find("dl", "totals")) == {
        "snapshots": 6,
        "milestones": 2,
        "files-touched": 5,  # app.py, the hostile file, logo.png, README.md, main.py
        "lines-added": 3,
        "lines-removed": 2,
        "sessions": 2,  # agent-1 and the hostile one; snapshot 5 has none
        "tools": 4,  # edit, write, delete, move
    }
    sections = doc.find_all("section", "range")
    first = _totals(sections[0].find("dl", "totals"))
    assert first == {
        "snapshots": 3,
        "files-touched": 3,
        "lines-added": 2,
        "lines-removed": 0,
        "sessions": 2,
        "tools": 2,
    }
    assert _totals(sections[2].find("dl", "totals"))["lines-removed"] == 1
    stats = [a.find("span", "stat").text for a in doc.find_all("article", "snapshot")]
    minus = "\u2212"
    expected = ["+1 -0", "+1 -0", "+0 -0", "+0 -1", "+0 -0", "+1 -1"]
    assert stats == [stat.replace("-", minus) for stat in expected]


def test_everything_from_the_history_is_text_not_markup(history: Workspace) -> None:
    page = history.report()
    doc = parse(page)

    scripts = doc.find_all("script")
    assert len(scripts) == 1
    assert scripts[0].text == SCRIPT
    assert not doc.find_all("img")
    assert not doc.find_all("i")
    assert not doc.find_all("b")
    assert all(not name.startswith("on") for node in doc.iter() for name in node.attrs), (
        "an event handler attribute came from the history"
    )
    # The hostile texts are on the page, as text.
    hostile = _article(doc, 2)
    assert hostile.find("span", "path").text == HOSTILE_PATH
    assert hostile.find("span", "what").text == HOSTILE_DESCRIPTION
    assert "x = '<b>&amp;</b>'" in hostile.find("pre", "diff").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.py" in page
    session = _article(doc, 3)
    assert session.attrs["data-session"] == "s:" + HOSTILE_SESSION
    assert session.find("span", "session").text == "@" + HOSTILE_SESSION
    milestone = doc.by_id("m-1")
    assert milestone is not None
    assert MILESTONE_TITLE in milestone.find("h2").text
    assert milestone.find("span", "tag").text == MILESTONE_TAG
    assert milestone.find("p", "description").text == MILESTONE_DESCRIPTION
    options = [o.text for o in doc.by_id("f-session").find_all("option")]  # type: ignore[union-attr]
    assert options == ["all", "agent-1", HOSTILE_SESSION, "(no session)"]


def test_no_network_and_only_its_own_script(history: Workspace) -> None:
    doc = parse(history.report())

    for node in doc.iter():
        for name in ("src", "href"):
            value = node.attrs.get(name)
            assert value is None or value.startswith("#"), f"<{node.tag} {name}={value}>"
    policy = next(
        m.attrs["content"]
        for m in doc.find_all("meta")
        if m.attrs.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None
    assert "default-src 'none'" in policy
    assert "script-src 'sha256-" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1]


def test_timeline_and_filters_name_every_session_and_tool(history: Workspace) -> None:
    doc = parse(history.report())

    lanes = doc.find("section", "timeline").find_all("div", "lane")
    marks = {
        str(lane.attrs["data-session"]): [m.attrs["href"] for m in lane.find_all("a", "mark")]
        for lane in lanes
    }
    assert marks == {
        "s:agent-1": ["#s-1", "#s-2", "#s-6"],
        "s:" + HOSTILE_SESSION: ["#s-3", "#s-4"],
        "n:": ["#s-5"],
    }
    tools = [o.attrs["value"] for o in doc.by_id("f-tool").find_all("option")]  # type: ignore[union-attr]
    assert tools == ["", "delete", "edit", "move", "write"]
    assert doc.by_id("f-path") is not None
    assert {a.attrs["data-tool"] for a in doc.find_all("article", "snapshot")} == {
        "edit", "write", "delete", "move",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("scope", "sections", "numbers"),
    [
        ({"milestone": 1}, ["m-1"], [1, 2, 3]),
        ({"milestone": 2}, ["m-2"], [4, 5]),
        ({"start": 2, "end": 4}, ["m-1", "m-2"], [2, 3, 4]),
        ({"start": 5}, ["m-2", "open"], [5, 6]),
        ({"session": "agent-1"}, ["m-1", "open"], [1, 2, 6]),
        ({"session": HOSTILE_SESSION, "end": 3}, ["m-1"], [3]),
    ],
)
def test_scope_narrows_the_page(
    history: Workspace, scope: dict[str, object], sections: list[str], numbers: list[int]
) -> None:
    doc = parse(history.report(**scope))  # type: ignore[arg-type]

    assert [s.attrs["id"] for s in doc.find_all("section", "range")] == sections
    assert _numbers(doc) == numbers
    assert _totals(doc.find("dl", "totals"))["snapshots"] == len(numbers)


def test_scope_errors(history: Workspace) -> None:
    with pytest.raises(ReportScopeError):
        history.report(milestone=1, start=2)
    with pytest.raises(MilestoneNotFoundError):
        history.report(milestone=9)
    with pytest.raises(SnapshotNotFoundError):
        history.report(start=99)
    with pytest.raises(SnapshotRangeError):
        history.report(start=4, end=2)


def test_open_section_is_there_even_when_empty_and_absent_without_milestones(
    ws: Workspace,
) -> None:
    assert parse(ws.report()).find_all("section", "range") == []
    ws.write_file("a.txt", "a\n")
    doc = parse(ws.report())
    assert [s.attrs["id"] for s in doc.find_all("section", "range")] == ["open"]
    ws.milestones.create("all of it")
    doc = parse(ws.report())
    assert [s.attrs["id"] for s in doc.find_all("section", "range")] == ["m-1", "open"]
    assert doc.find("section", "open").find("p", "empty").text.startswith("Nothing recorded")


def test_verdicts(history: Workspace) -> None:
    def verdict(page: str) -> str:
        return str(parse(page).find("p", "verdict").attrs["data-verdict"])

    assert verdict(history.report()) == "ok"
    (history.root / "src" / "main.py").write_text("changed outside\n")
    page = history.report()
    assert verdict(page) == "drift"
    assert "src/main.py" in parse(page).find("ul", "problems").text
    corrupt = Problem(kind="chain", message="<b>forged</b>", number=2, severity="corrupt")
    page = history.report(verification=Report(problems=(corrupt,)))
    assert verdict(page) == "damaged"
    assert parse(page).find("ul", "problems").find("li").text == "chain<b>forged</b>"
    gap = Problem(kind="milestone-gap", message="a gap", number=2)
    assert verdict(history.report(verification=Report(problems=(gap,)))) == "problems"


def test_large_diffs_are_cut_with_the_command_that_shows_them(ws: Workspace) -> None:
    ws.write_file("big.txt", "".join(f"line {i}\n" for i in range(1000)))
    ws.write_file("wide.js", "x" * 5000 + "\n")
    doc = parse(ws.report())

    big = _article(doc, 1)
    assert len(big.find("pre", "diff").text.splitlines()) == 400
    note = big.find("p", "cut").text
    assert "400 of 1,006 lines" in note  # six header lines and a thousand added
    assert "snapline show 1" in note
    assert _totals(doc.find("dl", "totals"))["lines-added"] == 1001
    wide = _article(doc, 2)
    assert "4,601 more characters"  # "+" and 5,000 x, 400 shown in wide.find("pre", "diff").text
    assert "long lines shortened" in wide.find("p", "cut").text


def test_when_the_page_is_full_later_diffs_are_left_out(ws: Workspace) -> None:
    for index in range(3):
        ws.write_file(f"f{index}.txt", "".join(f"{index} {i}\n" for i in range(100)))
    page = render_page(collect(ws, Scope(), budget=Budget(chars_left=100)))
    doc = parse(page)

    assert _article(doc, 1).find_all("pre", "diff")
    for number in (2, 3):
        article = _article(doc, number)
        assert not article.find_all("pre", "diff")
        assert f"snapline show {number}" in article.find("p", "cut").text
    # The counts still cover the whole history.
    assert _totals(doc.find("dl", "totals"))["lines-added"] == 300


def test_hash_only_files_are_named_with_their_size(root: Path) -> None:
    (root / "small.txt").write_text("small\n")
    with Workspace.init(root, large_file_limit=100) as ws:
        (root / "big.bin").write_bytes(b"z" * 300)
        ws.record()
        doc = parse(ws.report())

    item = _article(doc, 1).find("li", "file")
    assert item.find("span", "note").text == "hash only (above the large-file limit), 300 bytes"


def test_report_writes_the_file_atomically_and_refuses_the_store(
    history: Workspace, tmp_path: Path
) -> None:
    target = tmp_path / "out" / "page.html"
    page = history.report(target)
    assert target.read_text(encoding="utf-8") == page
    assert not [p for p in target.parent.iterdir() if p != target]

    store = history.root / ".snapline"
    with pytest.raises(ReportOutputError) as caught:
        history.report(store / "page.html")
    assert caught.value.path == str(store / "page.html")
    link = tmp_path / "link"
    link.symlink_to(store)
    with pytest.raises(ReportOutputError):
        history.report(link / "page.html")
    assert not (store / "page.html").exists()


def test_a_prompt_is_shown_only_when_its_reference_resolves(ws: Workspace) -> None:
    # The page offers `before-prompt:N@S` for each prompt: only for a stamp that
    # `before-prompt:` itself reads (a crafted `n` of -1 or true is no prompt).
    stamps = [
        {"session": "s1", "n": 1, "at": 0, "text": "make it greet"},
        {"session": "s1", "n": -1, "at": 1},
        {"session": "s1", "n": True, "at": 2},
    ]
    for count, stamp in enumerate(stamps, 1):
        (ws.root / "src" / "app.py").write_text(f"print({count})\n")
        ws.record(["src/app.py"], metadata={"prompt": stamp})

    doc = parse(ws.report())

    prompts = doc.find_all("p", "prompt")
    assert [p.find("code").text for p in prompts] == ["before-prompt:1@s1"]
    assert "make it greet" in prompts[0].text
