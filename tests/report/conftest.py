"""A small history with hostile names, milestones, sessions, a binary file and a rename."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from snapline import Workspace

# The command-line fixtures (``cli``, ``project``) are shared with tests/cli.
from tests.cli.conftest import cli, project  # noqa: F401

HOSTILE_PATH = "<script>alert(1)</script>.py"
HOSTILE_DESCRIPTION = "<img src=x onerror=alert(2)> & more"
HOSTILE_SESSION = 'agent-2"><script>alert(4)</script>'
MILESTONE_TITLE = "<i>phase</i> one"
MILESTONE_DESCRIPTION = "<script>alert(3)</script>\nsecond line"
MILESTONE_TAG = "a<b"


@pytest.fixture
def history(ws: Workspace) -> Iterator[Workspace]:
    """``ws`` (src/app.py and README.md in the baseline) with this history:

    ====  ===========  ==========  =======================  ===========
    snap  tool         session     change                   +/-
    ====  ===========  ==========  =======================  ===========
    1     edit         agent-1     src/app.py: a line more  +1 -0
    2     write        agent-1     HOSTILE_PATH added       +1 -0
    3     write        HOSTILE     logo.png added (binary)  0
    4     delete       HOSTILE     README.md deleted        -1
    5     move         (none)      src/app.py -> src/main   0
    6     edit         agent-1     src/main.py: a line      +1 -1
    ====  ===========  ==========  =======================  ===========

    Milestone 1 is 1..3 (hostile title, description and tag), milestone 2 is 4..5,
    snapshot 6 is open.
    """
    ws.write_file(
        "src/app.py", "print('hello')\nprint('bye')\n", tool="edit", session="agent-1",
        description="say bye",
    )  # fmt: skip
    ws.write_file(
        HOSTILE_PATH, "x = '<b>&amp;</b>'\n", tool="write", session="agent-1",
        description=HOSTILE_DESCRIPTION,
    )  # fmt: skip
    ws.write_file(
        "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00binary", tool="write", session=HOSTILE_SESSION,
        description="a logo",
    )  # fmt: skip
    ws.milestones.create(MILESTONE_TITLE, MILESTONE_DESCRIPTION, tags=[MILESTONE_TAG])
    ws.delete_file("README.md", tool="delete", session=HOSTILE_SESSION)
    ws.move_file("src/app.py", "src/main.py", tool="move")
    ws.milestones.create("moved")
    ws.write_file(
        "src/main.py", "print('hi')\nprint('bye')\n", tool="edit", session="agent-1",
        description="say hi",
    )  # fmt: skip
    yield ws
