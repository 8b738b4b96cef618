"""Check the README's side-by-side table against the peers themselves.

Installs stepback 0.2.0, rewind-ai 1.1.0 and ai-agent-vcr 1.5.4 from the package index
into a throwaway virtual environment (or uses ``--venv PATH``), then checks every claim
the table makes about them, from their own ``--help`` and, where help cannot say, by
running them in a scratch git repository. Prints one line per claim and exits 1 if any
claim does not hold. The snapline column is checked by the tests the README names.

    python scripts/peers_table.py             # needs the network (pip)
    python scripts/peers_table.py --venv DIR  # peers already installed in DIR
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

PEERS = ("stepback==0.2.0", "rewind-ai==1.1.0", "ai-agent-vcr==1.5.4")
_GIT = {
    "GIT_AUTHOR_NAME": "peers",
    "GIT_AUTHOR_EMAIL": "peers@snapline.invalid",
    "GIT_COMMITTER_NAME": "peers",
    "GIT_COMMITTER_EMAIL": "peers@snapline.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


class Peers:
    """The peers' commands in one virtual environment."""

    def __init__(self, venv: Path) -> None:
        self.bin = venv / "bin"
        self.env = {**os.environ, **_GIT, "NO_COLOR": "1", "COLUMNS": "200", "TERM": "dumb"}

    def run(self, *args: str, cwd: Path | None = None) -> str:
        done = subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return done.stdout + done.stderr

    def commands(self, tool: str) -> set[str]:
        """The subcommands ``TOOL --help`` lists."""
        text = self.run(tool, "--help")
        if tool == "vcr":  # argparse: {init,tui,...}
            match = re.search(r"\{([a-z,-]+)\}", text)
            return set(match[1].split(",")) if match else set()
        # click and typer list a command at the start of a line, then its help.
        return set(re.findall(r"^[\s│]*([a-z][a-z-]+)\s{2,}\S", text, re.MULTILINE))


def _repo(where: Path) -> Path:
    where.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=where, env={**os.environ, **_GIT}, check=True)
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "init"],
        cwd=where,
        env={**os.environ, **_GIT},
        check=True,
    )
    (where / "f.txt").write_text("one\n")
    return where


def _git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=where, env={**os.environ, **_GIT}, capture_output=True, text=True
    )
    return done.stdout


def claims(peers: Peers, scratch: Path) -> list[tuple[str, Callable[[], bool]]]:
    """Each claim of the table about a peer, with the check that shows it."""
    stepback, rewind, vcr = (peers.commands(t) for t in ("stepback", "rewind", "vcr"))
    restore_words = {"rollback", "rewind", "restore", "undo", "jump", "revert", "checkout"}

    def stepback_keeps_in_git() -> bool:
        repo = _repo(scratch / "stepback")
        peers.run("stepback", "run", "--", "sh", "-c", "echo two > f.txt; sleep 1", cwd=repo)
        refs = _git(repo, "for-each-ref", "refs/checkpoints/")
        # Nothing of stepback's in the work tree: only the edited file is new to git.
        return bool(refs) and _git(repo, "status", "--porcelain", "--ignored") == "?? f.txt\n"

    def stepback_takes_an_outside_edit() -> bool:
        repo = scratch / "stepback"
        (repo / "f.txt").write_text("edited by hand\n")
        before = _git(repo, "for-each-ref", "refs/checkpoints/").count("\n")
        peers.run("stepback", "run", "--", "sh", "-c", "sleep 1", cwd=repo)
        return _git(repo, "for-each-ref", "refs/checkpoints/").count("\n") > before

    def rewind_keeps_in_git() -> bool:
        repo = _repo(scratch / "rewind")
        peers.run("rewind", "snap", "-m", "one", cwd=repo)
        refs = _git(repo, "for-each-ref", "refs/rewind/")
        return bool(refs) and _git(repo, "status", "--porcelain", "--ignored") == "?? f.txt\n"

    def rewind_takes_an_outside_edit() -> bool:
        repo = scratch / "rewind"
        (repo / "f.txt").write_text("edited by hand\n")
        before = _git(repo, "for-each-ref", "refs/rewind/").count("\n")
        peers.run("rewind", "snap", "-m", "two", cwd=repo)
        return _git(repo, "for-each-ref", "refs/rewind/").count("\n") > before

    def serves_no_mcp(package: str) -> Callable[[], bool]:
        def check() -> bool:
            site = next((peers.bin.parent / "lib").glob("python*/site-packages"))
            pattern = re.compile(r"FastMCP|mcp\.server|MCPServer|stdio_server")
            return not any(
                pattern.search(path.read_text(errors="replace"))
                for path in (site / package).rglob("*.py")
            )

        return check

    def vcr_keeps_files_in_the_tree() -> bool:
        # Its recordings are .vcr files in a folder of the project: `.vcr/` unless told.
        code = (
            "import inspect; from agent_vcr.recorder import VCRRecorder; "
            "print(inspect.signature(VCRRecorder).parameters['output_dir'].default)"
        )
        return peers.run("python", "-c", code).strip() == ".vcr"

    rewind_help = peers.run("rewind", "guard", "--help")
    return [
        (
            "stepback: `rewind` previews and asks (--dry-run, --yes)",
            lambda: all(
                w in peers.run("stepback", "rewind", "--help")
                for w in ("Preview", "--dry-run", "--yes")
            ),
        ),
        (
            "rewind-ai: `jump` asks first (--yes skips)",
            lambda: "--yes" in peers.run("rewind", "jump", "--help"),
        ),
        ("ai-agent-vcr: no command restores files", lambda: bool(vcr) and not vcr & restore_words),
        ("stepback: no test guard command", lambda: bool(stepback) and "guard" not in stepback),
        (
            "rewind-ai: `guard TEST_CMD` rolls back when the tests fail",
            lambda: "auto-rollback if TEST_CMD fails" in rewind_help,
        ),
        ("ai-agent-vcr: no test guard command", lambda: "guard" not in vcr),
        ("stepback: no branch command", lambda: "branch" not in stepback),
        ("rewind-ai: `branch INDEX`", lambda: "branch" in rewind),
        ("ai-agent-vcr: no branch command", lambda: "branch" not in vcr),
        ("stepback: no verify command", lambda: "verify" not in stepback),
        ("rewind-ai: no verify command", lambda: bool(rewind) and "verify" not in rewind),
        ("ai-agent-vcr: no verify command", lambda: "verify" not in vcr),
        ("stepback: checkpoints are git refs, nothing to commit", stepback_keeps_in_git),
        ("rewind-ai: checkpoints are git refs, nothing to commit", rewind_keeps_in_git),
        ("ai-agent-vcr: recordings are .vcr files in `.vcr/`", vcr_keeps_files_in_the_tree),
        ("stepback: serves no MCP", serves_no_mcp("stepback")),
        ("rewind-ai: serves no MCP", serves_no_mcp("rewind")),
        ("ai-agent-vcr: serves no MCP", serves_no_mcp("agent_vcr")),
        ("stepback: a hand edit is checkpointed, not refused", stepback_takes_an_outside_edit),
        ("rewind-ai: a hand edit is checkpointed, not refused", rewind_takes_an_outside_edit),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, help="peers already installed here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="snapline-peers-") as tmp:
        venv = args.venv
        if venv is None:
            venv = Path(tmp) / "venv"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
            subprocess.run([*pip, *PEERS], check=True)
        peers = Peers(venv)
        failed = 0
        for what, check in claims(peers, Path(tmp)):
            held = check()
            failed += not held
            print(f"{'ok   ' if held else 'FALSE'} {what}")
    print(f"{failed} claim(s) do not hold" if failed else "every claim holds")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
