"""Two processes recording at once get consecutive numbers, never the same one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from snapline import Workspace

_WRITER = textwrap.dedent(
    """
    import sys
    from snapline import Workspace
    root, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Workspace.open(root) as ws:
        for i in range(count):
            ws.write_file(f"{name}.txt", f"{name} {i}\\n", tool=name)
    """
)


def test_concurrent_writers_get_contiguous_numbers(root: Path) -> None:
    (root / "seed.txt").write_text("seed\n")
    Workspace.init(root).close()
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(root), name, "25"])
        for name in ("alpha", "beta")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    with Workspace.open(root) as ws:
        numbers = [s.number for s in ws.snapshots()]
        assert numbers == list(range(51))
        assert sum(1 for s in ws.snapshots(tool="alpha")) == 25
        assert sum(1 for s in ws.snapshots(tool="beta")) == 25
        assert ws.validate(deep=True).ok and ws.check_sync().ok
        assert ws.content_at("alpha.txt") == b"alpha 24\n"
