"""verify after its checkpoint: what is new since is checked against what the history held.

The check of what came after a verify checkpoint starts from the state the history held
at the checkpoint for the paths changed since. A path that did not exist then (a new
file), or that had been deleted by then (a file made again), or the old name of a file
renamed since, holds nothing there: a sound history must verify from the checkpoint, and
an outside change of such a path must still be found.
"""

from __future__ import annotations

from snapline import Workspace


def _history(ws: Workspace) -> int:
    # Before the checkpoint: gone.txt is made, then deleted.
    ws.write_file("gone.txt", "first life\n")
    ws.delete_file("gone.txt")
    first = ws.verify()
    assert first.ok and first.since is None, first
    return ws.latest


def test_new_remade_and_renamed_paths_after_a_checkpoint_verify(ws: Workspace) -> None:
    checkpoint = _history(ws)
    ws.write_file("new.txt", "made after the checkpoint\n")
    ws.write_file("gone.txt", "second life\n")
    ws.move_file("README.md", "READ.md")

    report = ws.verify()

    assert report.problems == () and report.since == checkpoint


def test_an_outside_edit_of_a_remade_file_after_a_checkpoint_is_found(ws: Workspace) -> None:
    checkpoint = _history(ws)
    ws.write_file("gone.txt", "second life\n")
    (ws.root / "gone.txt").write_text("edited behind snapline's back\n")

    report = ws.verify()

    assert report.since == checkpoint
    assert [(p.kind, p.path) for p in report.problems] == [("modified", "gone.txt")], report
