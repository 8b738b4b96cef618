"""An end-to-end snapline story on a throwaway workspace (``make demo``).

It runs the real ``snapline`` console script, shows every command with its output, and
checks that each step behaves as described, so it doubles as a smoke test: the exit
status is non-zero as soon as one step does not. It ends by writing the story's review
page (``snapline report``) outside the throwaway workspace, and says where:
``--report PATH`` chooses the place (``make screenshot`` uses it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

PYTHON = sys.executable


def _snapline() -> str:
    # The console script next to this interpreter (the venv's), else the one on PATH.
    beside = Path(sys.executable).with_name("snapline")
    if beside.exists():
        return str(beside)
    found = shutil.which("snapline")
    if found is None:
        sys.exit("demo: the `snapline` command is not installed; run `make demo`")
    return found


SNAPLINE = _snapline()


class DemoFailed(Exception):
    """A step did not behave as the story says."""


class Demo:
    def __init__(self, root: Path) -> None:
        self.root = root
        # SNAPLINE_SERVER=0: `integrate claude-code` would start the warm server, which
        # would outlive this throwaway story by an hour; the demo leaves nothing running.
        self.env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "SNAPLINE_SERVER": "0"}
        # git as a fresh machine has it: the user's own settings (signing, hooks, a
        # default branch) are not read, and nothing is written outside the demo.
        self.git_env = {
            **self.env,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
        }
        self.steps = 0

    def say(self, text: str) -> None:
        self.steps += 1
        print()
        print(f"== {self.steps}. " + textwrap.fill(text, 88, subsequent_indent="   "))

    def note(self, text: str) -> None:
        print(textwrap.fill(text, 88, initial_indent="   # ", subsequent_indent="   # "))

    def write(self, path: str, text: str, *, outside: bool = False) -> None:
        """Change a file as an agent tool (or, with ``outside``, a person) would."""
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        who = "a person edits" if outside else "the agent writes"
        print(f"   ({who} {path})")

    def snapline(
        self,
        *args: str,
        expect: int = 0,
        shows: tuple[str, ...] = (),
        stdin: str | None = None,
        cwd: Path | None = None,
    ) -> str:
        """Run ``snapline ARGS``, print it like a terminal, check its exit code and output."""
        shown = " ".join(shlex.quote("python" if a == PYTHON else a) for a in args)
        redirect = " < event.json" if stdin is not None else ""
        print(f"{self._prompt(cwd)}snapline {shown}{redirect}")
        done = subprocess.run(
            [SNAPLINE, *args],
            cwd=cwd or self.root,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        output = done.stdout + done.stderr
        for line in output.rstrip("\n").splitlines():
            print(f"  {line}")
        if done.returncode != expect:
            raise DemoFailed(f"`snapline {shown}` exited {done.returncode}, expected {expect}")
        if done.returncode:
            print(f"  [exit code {done.returncode}, as expected]")
        for text in shows:
            if text not in output:
                raise DemoFailed(f"`snapline {shown}` did not print {text!r}")
        return done.stdout

    def git(
        self,
        *args: str,
        cwd: Path | None = None,
        shows: tuple[str, ...] = (),
        echo: bool = True,
    ) -> str:
        """Run ``git ARGS`` as a person would, print it (unless not ``echo``), require success."""
        shown = " ".join(shlex.quote(a) for a in args)
        if echo:
            print(f"{self._prompt(cwd)}git {shown}")
        done = subprocess.run(
            ["git", *args],
            cwd=cwd or self.root,
            env=self.git_env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        output = done.stdout + done.stderr
        for line in output.rstrip("\n").splitlines() if echo else ():
            print(f"  {line}")
        if done.returncode:
            raise DemoFailed(f"`git {shown}` exited {done.returncode}: {output.strip()}")
        for text in shows:
            if text not in output:
                raise DemoFailed(f"`git {shown}` did not print {text!r}")
        return done.stdout

    def latest(self) -> int:
        """The latest snapshot's number, read quietly (``snapline log -n 1 --json``)."""
        done = subprocess.run(
            [SNAPLINE, "log", "-n", "1", "--json"],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return int(json.loads(done.stdout)[0]["number"])

    def _prompt(self, cwd: Path | None) -> str:
        # Commands run in the workspace unless another directory (a clone) is named.
        return "$ " if cwd is None or cwd == self.root else f"[{cwd.name}]$ "

    def hook(
        self,
        name: str,
        tool: str,
        tool_input: dict[str, str],
        *,
        shows: tuple[str, ...] = (),
    ) -> str:
        """Feed one event to ``snapline hook claude-code`` on stdin, as Claude Code does."""
        event = self._event(name)
        event.update(tool_name=tool, tool_input=tool_input, tool_use_id=f"toolu_{self.steps}")
        target = os.path.relpath(tool_input["file_path"], self.root)
        print(f"   (Claude Code sends {name} {tool} {target})")
        return self.snapline("hook", "claude-code", stdin=json.dumps(event), shows=shows)

    def prompt(self, text: str) -> str:
        """Feed a ``UserPromptSubmit`` event, as Claude Code does when the person asks."""
        event = self._event("UserPromptSubmit")
        event["prompt"] = text
        print(f"   (the person asks Claude Code: {text!r})")
        return self.snapline("hook", "claude-code", stdin=json.dumps(event))

    def _event(self, name: str) -> dict[str, Any]:
        # The common fields of every Claude Code hook event.
        return {
            "session_id": "claude-1",
            "transcript_path": str(self.root / ".claude-transcript.jsonl"),
            "cwd": str(self.root),
            "permission_mode": "default",
            "hook_event_name": name,
        }

    def check(self, condition: bool, what: str) -> None:
        if not condition:
            raise DemoFailed(what)
        print(f"   ok: {what}")


def story(demo: Demo, report: Path) -> None:
    root = demo.root
    print(f"A throwaway project in {root}, driven by the real `snapline` command.")

    demo.say("A small project, in git, exists before snapline is involved.")
    demo.write("greet.py", "def greet():\n    return 'hello'\n")
    demo.write("README.md", "# greeter\n")
    demo.write(".gitignore", "*.log\n")
    demo.write("build.log", "noise\n")

    demo.git("init", "-q")
    demo.git("symbolic-ref", "HEAD", "refs/heads/main")
    demo.git("config", "user.name", "Demo Team")  # this repository's own config only
    demo.git("config", "user.email", "team@example.invalid")
    demo.git("add", ".")
    demo.git("commit", "-q", "-m", "the greeter")

    demo.say(
        "`init` captures the workspace as the baseline, snapshot 0. Ignored files "
        "(.gitignore rules) are counted, not stored. In a git repository the history "
        "goes onto the repository's own refs (refs/snapline/), the local state under "
        ".git/snapline/, and nothing into the work tree; outside git, `init` makes a "
        "private repository, .snapline/repo, instead."
    )
    demo.snapline("init", shows=("snapshot 0 holds 3 files", "1 ignored", "refs/snapline/lines/"))
    demo.check(
        demo.git("status", "--porcelain", echo=False) == "" and not (root / ".snapline").exists(),
        "`git status` is clean and there is no .snapline/ in the work tree",
    )

    demo.say(
        "An agent edits a file and records the change. Each snapshot gets the next "
        "number, the tool, a description and the agent session."
    )
    demo.write("greet.py", "def greet(name):\n    return f'hello {name}'\n")
    demo.snapline(
        "record", "greet.py", "--tool", "edit", "--session", "agent-1",
        "-m", "greet by name", shows=("recorded snapshot 1",),
    )  # fmt: skip
    demo.write("test_greet.py", "from greet import greet\n\nassert greet('ada') == 'hello ada'\n")
    demo.snapline(
        "record", "--tool", "write", "--session", "agent-1", "-m", "add a test",
        shows=("recorded snapshot 2", "A test_greet.py"),
    )  # fmt: skip

    demo.say(
        "A shell command's side effects are unknown in advance: `snapline run` checks "
        "the workspace is in sync, runs it, and records whatever it changed as one "
        "snapshot. snapline exits with the command's own exit code."
    )
    code = "import pathlib; pathlib.Path('VERSION').write_text('1.0\\n')"
    demo.snapline(
        "run", "--tool", "shell", "-m", "write the VERSION file", "--", PYTHON, "-c", code,
        shows=("snapshot 3",),
    )  # fmt: skip
    demo.snapline("log", shows=("add a test",))

    demo.say("The work so far becomes milestone 1: it closes snapshots 1..latest.")
    demo.snapline(
        "milestone", "create", "--title", "greeter works", "--to", "latest", "--tag", "v1",
        shows=("created milestone 1: greeter works (snapshots 1..3",),
    )  # fmt: skip

    demo.say(
        "Someone edits README.md outside snapline. `verify`, the CI check, catches it "
        "and fails (exit 1); `--format github` turns it into a PR annotation."
    )
    demo.write("README.md", "# greeter\n\nSay hello to anyone.\n", outside=True)
    demo.snapline("status", shows=("modified   README.md",))
    demo.snapline("verify", expect=1, shows=("README.md is modified",))
    demo.snapline("verify", "--format", "github", expect=1, shows=("::error file=README.md::",))
    demo.note("Recording on top of that change is refused too, until it is resynced:")
    demo.snapline("run", "--", PYTHON, "-c", "pass", expect=1, shows=("snapline resync",))

    demo.say("`resync` records the outside change as its own snapshot; the history is whole again.")
    demo.snapline("resync", "-m", "README edited by hand", shows=("recorded snapshot 4",))
    demo.snapline("verify", shows=("ok",))

    demo.say("The agent then breaks greet.py. `show` displays the snapshot and its diff.")
    demo.write("greet.py", "def greet(name):\n    return None  # oops\n")
    demo.snapline("record", "--tool", "edit", "-m", "refactor greet", shows=("snapshot 5",))
    demo.snapline("show", "5", shows=("-    return f'hello {name}'", "+    return None  # oops"))

    demo.say(
        "Roll greet.py back to how it was after snapshot 4. The rollback is itself "
        "snapshot 6, so it could be rolled back too."
    )
    demo.snapline("rollback", "--to", "4", "greet.py", "--dry-run", shows=("would change 1 path",))
    demo.snapline("rollback", "--to", "4", "greet.py", shows=("as snapshot 6",))
    demo.check(
        (root / "greet.py").read_text() == "def greet(name):\n    return f'hello {name}'\n",
        "greet.py is back to the version of snapshot 4",
    )

    demo.say("A second milestone starts where the first ended: snapshots 4..6.")
    demo.snapline(
        "milestone", "create", "--title", "docs and a reverted experiment",
        shows=("created milestone 2", "snapshots 4..6"),
    )  # fmt: skip
    demo.snapline("milestone", "list", shows=("greeter works",))

    demo.say("Everything holds: the sequence, the chain hashes, the milestones and the disk.")
    demo.snapline("verify", shows=("ok: snapshots 0..6 verified",))
    demo.snapline("diff", "3", "6", shows=("Say hello to anyone.",))

    mcp_and_undo(demo)

    demo.say(
        "Claude Code: `integrate claude-code` writes snapline's hooks into the project's "
        ".claude/settings.json (merged with what is there), running this snapline by its "
        "absolute path, and records that change itself: the workspace stays in sync."
    )
    demo.snapline("integrate", "claude-code", shows=("installed snapline's hooks",))
    demo.snapline("log", "-n", "1", shows=("integrate", "hooks installed"))
    demo.snapline("status", shows=("in sync",))

    demo.say(
        "Before each Edit, Claude Code runs the hook with the PreToolUse event: greet.py "
        "is as the history says, so it exits 0 and the edit goes ahead. After the edit, "
        "the PostToolUse event records that file as one snapshot, with the tool, the "
        "session and a description."
    )
    edit = {"file_path": str(root / "greet.py"), "old_string": "hello", "new_string": "hi"}
    demo.hook("PreToolUse", "Edit", edit)
    demo.write("greet.py", "def greet(name):\n    return f'hi {name}'\n")
    demo.hook("PostToolUse", "Edit", edit)
    demo.snapline("log", "-n", "1", shows=("Edit", "@claude-1", "Edit greet.py"))

    demo.say(
        "A person edits README.md while the agent works. The next Edit of README.md is "
        "refused: the hook answers Claude Code's `permissionDecision: deny`, and the reason "
        "goes to the model. Resync, and it can go ahead."
    )
    demo.write("README.md", "# greeter\n\nSay hi to anyone.\n", outside=True)
    readme = {"file_path": str(root / "README.md"), "old_string": "hi", "new_string": "hello"}
    demo.hook("PreToolUse", "Edit", readme, shows=('"deny"', "README.md (modified)"))
    demo.snapline("resync", "-m", "README edited by hand again")
    demo.hook("PreToolUse", "Edit", readme)

    conversation(demo)

    branches_and_clone(demo)

    team(demo)

    guard(demo)

    demo.say(
        "For the person reviewing the agent's work: `report` writes one HTML page with the "
        "verification result, the milestones, every snapshot and its diff. It opens from "
        "disk; CI can publish it with `snapline verify --report FILE`."
    )
    demo.snapline("report", "-o", str(report), shows=("wrote the review page",))
    page = report.read_text(encoding="utf-8")
    demo.check(
        "Milestone 1: greeter works" in page and "refactor greet" in page,
        "the page has the milestones and the snapshots",
    )
    demo.check(
        '<span class="check pass"' in page and '<span class="check fail"' in page,
        "the page shows which snapshots passed their check and which failed",
    )


def guard(demo: Demo) -> None:
    """A test guard: the outcome kept per snapshot, a failing change rolled back, undo."""
    root = demo.root
    demo.say(
        "`snapline guard -- CMD` runs a check (here the test) on the latest snapshot and "
        "records whether it passed, in the committed history: `log`, `show` and the review "
        "page show it. The test's own output passes through."
    )
    test = "from greet import greet\n\nassert 'ada' in greet('ada'), greet('ada')\nprint('ok')\n"
    demo.write("test_greet.py", test)
    demo.snapline("record", "-m", "the test checks the name only", shows=("recorded snapshot",))
    good = demo.latest()
    # -B: the test writes no __pycache__/, which the next command would see as drift.
    check = ("--", PYTHON, "-B", "test_greet.py")
    demo.snapline("guard", *check, shows=(f"snapshot {good} passed",))

    demo.say(
        "The agent breaks greet.py again. `guard --rollback` finds the test failing "
        "(exit 1), and rolls back to the last snapshot that passed: an ordinary rollback, "
        "recorded as a snapshot, so `snapline undo` brings the failing change back."
    )
    kept = (root / "greet.py").read_text()
    demo.write("greet.py", "def greet(name):\n    return None  # oops again\n")
    demo.snapline("record", "--tool", "edit", "-m", "simplify greet", shows=("recorded snapshot",))
    bad = demo.latest()
    demo.snapline(
        "guard", "--rollback", *check, expect=1,
        shows=(f"snapshot {bad} failed", f"rolled back to snapshot {good}, the last that passed"),
    )  # fmt: skip
    demo.check(
        (root / "greet.py").read_text() == kept, "greet.py is back to the version that passed"
    )
    demo.snapline("log", "-n", "3", shows=("FAILED", "passed"))
    demo.snapline("undo", shows=(f"rolled back to snapshot {bad} as snapshot {bad + 2}",))
    demo.check(
        "oops again" in (root / "greet.py").read_text(), "undo brought the failing change back"
    )
    demo.snapline("redo")
    demo.check((root / "greet.py").read_text() == kept, "redo rolled it back again")


def conversation(demo: Demo) -> None:
    """Checkpoints bound to the conversation: back to before a prompt, and its resume line."""
    root = demo.root
    demo.say(
        "Each prompt the person sends is numbered in its session by the UserPromptSubmit "
        "hook, and every snapshot made while answering it carries that prompt. Prompt 1 "
        "asks for a farewell; prompt 2 for shouting, which the person then regrets."
    )
    demo.prompt("Add a farewell function")
    farewell = {"file_path": str(root / "greet.py"), "old_string": "", "new_string": "bye"}
    demo.write("greet.py", (root / "greet.py").read_text() + "\n\ndef bye():\n    return 'bye'\n")
    demo.hook("PostToolUse", "Edit", farewell)
    before_second = (root / "greet.py").read_text()
    demo.prompt("Make everything SHOUT")
    demo.write("greet.py", before_second.upper())
    demo.hook("PostToolUse", "Edit", farewell)
    demo.snapline("show", "latest", "--json", shows=('"n": 2', "Make everything SHOUT"))

    demo.say(
        '"Take the code back to before I asked for shouting": `before-prompt:2@claude-1` '
        "names that state in `show`, `diff` and `rollback` (a prefix of the session id "
        "does too). The rollback is a snapshot like any other, and ends with the line "
        "that resumes the conversation."
    )
    demo.snapline("diff", "before-prompt:2@claude", "latest", shows=("+DEF BYE():",))
    demo.snapline(
        "rollback", "--to", "before-prompt:2@claude-1",
        shows=("resume that conversation: claude --resume claude-1",),
    )  # fmt: skip
    demo.check((root / "greet.py").read_text() == before_second, "greet.py is as before prompt 2")


def mcp_and_undo(demo: Demo) -> None:
    """An MCP client's call (when the SDK is installed), then undo and redo."""
    root = demo.root
    try:
        import mcp  # noqa: F401  (only to know whether the optional SDK is there)
    except ModuleNotFoundError:
        demo.say("(The MCP step is skipped: pip install 'snapline[mcp]' to see it.)")
    else:
        demo.say(
            "An MCP client (Claude, an editor, an agent runtime) drives `snapline mcp` over "
            "stdio; here the SDK's own client calls its edit_file tool. The server keeps one "
            "workspace open, and the edit becomes a snapshot like any other."
        )
        result = asyncio.run(_mcp_edit(root))
        snapshot = result["snapshot"]
        print(f"   edit_file -> snapshot {snapshot['number']}: {snapshot['description']!r}")
        print(f"   metadata {snapshot['metadata']}")
        demo.check(
            "hello there" in (root / "greet.py").read_text(), "the MCP edit is on disk and recorded"
        )
    before = (root / "greet.py").read_text()
    demo.write("greet.py", before + "\n\ndef shout(name):\n    return greet(name).upper()\n")
    demo.snapline("record", "--tool", "edit", "-m", "add shout", shows=("recorded snapshot",))

    demo.say(
        "`undo` rolls back what the latest change did, as a new snapshot; again to go "
        "further back, like an editor. `redo` puts it back. `latest` and `latest~N` work "
        "wherever a snapshot number does."
    )
    demo.snapline("undo", shows=("rolled back",))
    demo.check("shout" not in (root / "greet.py").read_text(), "undo took `shout` out")
    demo.snapline("redo", shows=("rolled back",))
    demo.check("shout" in (root / "greet.py").read_text(), "redo put it back")
    demo.snapline("show", "latest", shows=("redo_of",))
    demo.snapline("verify", shows=("ok",))


def branches_and_clone(demo: Demo) -> None:
    """The history in git: two lines recorded in two work trees, merged, joined, cloned."""
    root = demo.root
    demo.say(
        "The history is on the repository's refs, not in its files: committing the work "
        "takes the code and nothing of snapline's, and `git for-each-ref` lists the "
        "history's refs (its line, its milestones, its settings)."
    )
    demo.git("add", ".")
    demo.git("commit", "-q", "-m", "greeter, tested")
    listed = demo.git("ls-files", echo=False).splitlines()
    demo.check(
        not any(name.startswith(".snapline") for name in listed),
        f"{len(listed)} files committed, none of them snapline's",
    )
    demo.git(
        "for-each-ref", "--format=%(refname)", "refs/snapline/", shows=("refs/snapline/lines/",)
    )
    latest = demo.latest()

    feature = root.parent / "greeter-feature"
    demo.say(
        f"Two lines record from snapshot {latest}: in a second work tree (`git worktree "
        "add`), on branch `feature`, an agent edits greet.py; meanwhile in the first one, "
        "on `main`, someone updates README.md. Each work tree records on a line of its "
        f"own, so neither waits for the other, and each has its own snapshot {latest + 1}."
    )
    demo.git("worktree", "add", "-q", "-b", "feature", str(feature))
    text = (feature / "greet.py").read_text()
    demo.check("hi {name}" in text, "greet.py says hi")
    (feature / "greet.py").write_text(text.replace("hi {name}", "hi {name}!"))
    print(f"   (the agent in {feature.name} writes greet.py)")
    demo.snapline(
        "record", "--tool", "edit", "-m", "shout louder",
        shows=(f"snapshot {latest + 1}",), cwd=feature,
    )  # fmt: skip
    demo.say("Each line closes its work as a milestone: both are milestone 3.")
    demo.snapline(
        "milestone", "create", "--title", "louder", shows=("created milestone 3",), cwd=feature
    )
    demo.git("commit", "-q", "-am", "shout louder", cwd=feature)
    demo.write("README.md", (root / "README.md").read_text() + "\nRun `python greet.py`.\n")
    demo.snapline("record", "--tool", "edit", "-m", "how to run", shows=(f"snapshot {latest + 1}",))
    demo.snapline("milestone", "create", "--title", "documented", shows=("created milestone 3",))
    demo.git("commit", "-q", "-am", "how to run")

    demo.say(
        "`git merge` brings the feature's greet.py into main. `verify` (the CI check) then "
        "fails with exit 1: greet.py is another line's recorded work that git merged, and "
        "it names the command that joins that line."
    )
    demo.git("merge", "--no-edit", "-q", "feature")
    demo.snapline("verify", expect=1, shows=("unmerged", "greet.py", "snapline merge"))

    demo.say(
        "`snapline merge` records the merge snapshot: it continues the main line with no "
        "gap, names the line it joins, and records the merged workspace. `log` shows the "
        "joined snapshot under it. Nothing is left to commit: the history is whole again."
    )
    demo.snapline("merge", shows=(f"recorded snapshot {latest + 2}",))
    demo.snapline("verify", shows=(f"ok: snapshots 0..{latest + 2} verified",))
    demo.snapline("log", "-n", "3", shows=("merge line", "shout louder", "how to run"))
    demo.say(
        "Both milestones 3 are kept. The main line's stays milestone 3; the feature's is "
        "numbered anew by the merge (milestone 4, closing the merge snapshot), and is "
        "listed under the line it was closed on."
    )
    demo.snapline(
        "milestone", "list",
        shows=("documented", f"snapshots {latest + 2}..{latest + 2}", "louder",
               "closed on other lines", f"joined by snapshot {latest + 2}"),
    )  # fmt: skip
    demo.check(
        demo.git("status", "--porcelain", echo=False) == "",
        "`git status` is clean: nothing to commit",
    )

    demo.say(
        "A fresh clone brings the code; its first command says the one command that brings "
        "the history. After `snapline fetch`, verify passes, and `git status` stays clean: "
        "reading writes nothing into the work tree."
    )
    clone = root.parent / "greeter-clone"
    demo.git("clone", "-q", ".", "../greeter-clone")
    demo.snapline("status", cwd=clone, expect=2, shows=("snapline fetch",))
    demo.snapline("fetch", cwd=clone, shows=("history ref",))
    demo.snapline("verify", cwd=clone, shows=(f"ok: snapshots 0..{latest + 2} verified",))
    status = demo.git("status", "--porcelain", cwd=clone)
    demo.check(status == "", "`git status` in the clone is clean after verify")

    demo.say(
        "To look at an old state in git terms, `snapline branch N` makes a git branch whose "
        "files are snapshot N's: one commit on top of HEAD, made with git's own plumbing. "
        "The checkout, HEAD and git's index are not touched."
    )
    head = demo.git("rev-parse", "HEAD", echo=False)
    demo.snapline("branch", "1", "greeter-at-1", shows=("made branch greeter-at-1",))
    demo.git("show", "greeter-at-1:greet.py")
    old = demo.git("show", "greeter-at-1:greet.py", echo=False)
    demo.check(
        "hello" in old and "hi {name}" not in old
        and demo.git("rev-parse", "HEAD", echo=False) == head
        and demo.git("status", "--porcelain", echo=False) == "",
        "the branch holds snapshot 1's greet.py; HEAD and the checkout are as they were",
    )  # fmt: skip


def team(demo: Demo) -> None:
    """The team story: two agents on two branches, two pull requests squash-merged, CI green."""
    base = demo.root.parent / "team"
    base.mkdir()
    origin, lead, agent_a, agent_b, ci = (
        base / name for name in ("origin.git", "lead", "agent-a", "agent-b", "ci")
    )

    def put(where: Path, path: str, text: str) -> None:
        (where / path).write_text(text)
        print(f"   (the agent in {where.name} writes {path})")

    demo.say(
        "A team's repository. The lead puts the project in git and runs `snapline init` at "
        "its top: the history goes onto the repository's own refs (refs/snapline/), the "
        "local state under .git/snapline/, and nothing into the work tree."
    )
    demo.git("init", "-q", "--bare", "-b", "main", str(origin), cwd=base)
    demo.git("init", "-q", "-b", "main", str(lead), cwd=base)
    for name, value in (("user.name", "Demo Team"), ("user.email", "team@example.invalid")):
        demo.git("config", name, value, cwd=lead, echo=False)
    (lead / "app.py").write_text("def app():\n    return 'v1'\n")
    (lead / "util.py").write_text("def util():\n    return 1\n")
    demo.git("add", ".", cwd=lead)
    demo.git("commit", "-q", "-m", "the project", cwd=lead)
    demo.snapline("init", cwd=lead, shows=("refs/snapline/lines/", "`git push` of a branch"))
    demo.check(
        demo.git("status", "--porcelain", "--ignored", cwd=lead, echo=False) == "",
        "`git status --ignored` shows nothing of snapline's",
    )
    demo.git("remote", "add", "origin", str(origin), cwd=lead, echo=False)
    demo.git("push", "-q", "-u", "origin", "main", cwd=lead)
    demo.check(
        "refs/snapline/lines/" in demo.git("ls-remote", "origin", cwd=lead, echo=False),
        "the plain `git push` carried the history too (the pre-push hook init installed)",
    )

    demo.say(
        "Two agents, each in a clone of its own, on a branch of its own. A clone brings the "
        "code; one `snapline fetch` brings the history. Each records its edits on a line of "
        "its own, so neither ever waits for the other."
    )
    for clone, branch, path, text in (
        (agent_a, "feature-a", "app.py", "def app():\n    return 'v2'\n"),
        (agent_b, "feature-b", "util.py", "def util():\n    return 2\n"),
    ):
        demo.git("clone", "-q", str(origin), clone.name, cwd=base)
        for name, value in (("user.name", clone.name), ("user.email", "agent@example.invalid")):
            demo.git("config", name, value, cwd=clone, echo=False)
        demo.snapline("fetch", cwd=clone, shows=("history ref",))
        demo.snapline("push", "--install-hook", cwd=clone)
        demo.git("checkout", "-q", "-b", branch, cwd=clone)
        put(clone, path, text)
        demo.snapline("record", path, "--tool", "edit", "-m", f"{branch}: {path}", cwd=clone)
        demo.git("commit", "-q", "-am", f"{branch}: {path}", cwd=clone)
        demo.git("push", "-q", "-u", "origin", branch, cwd=clone)

    demo.say(
        "Each pull request's diff is the code alone: the history is on the refs, not in "
        "the commits."
    )
    for clone, branch in ((agent_a, "feature-a"), (agent_b, "feature-b")):
        stat = demo.git("diff", "--stat", f"origin/main...{branch}", cwd=clone)
        demo.check(
            ".snapline" not in stat and "1 file changed" in stat,
            f"the pull request of {branch} changes one code file, nothing else",
        )

    demo.say(
        "The lead squash-merges both pull requests onto main, one after the other, and "
        "pushes: no `snapline merge`, no extra commit."
    )
    demo.git("fetch", "-q", "origin", cwd=lead)
    for branch in ("feature-a", "feature-b"):
        demo.git("merge", "-q", "--squash", f"origin/{branch}", cwd=lead)
        demo.git("commit", "-q", "-m", f"{branch} (squashed)", cwd=lead)
    demo.git("push", "-q", "origin", "main", cwd=lead)

    demo.say(
        "CI checks out main, fetches the history once and runs `verify`: main's files are "
        "git's clean merge of the two agents' recorded states, so it passes."
    )
    demo.git("clone", "-q", "--depth", "1", f"file://{origin}", ci.name, cwd=base)
    demo.snapline("fetch", "origin", cwd=ci)
    demo.snapline("verify", cwd=ci, shows=("ok",))

    demo.say(
        "A line nobody recorded, committed on main by hand, is named by CI's `verify` "
        "(exit 1): only what the agents recorded is explained."
    )
    (lead / "app.py").write_text("def app():\n    return 'v2, by hand'\n")
    print("   (a person edits app.py in the lead's checkout and commits it)")
    demo.git("commit", "-q", "-am", "a hand edit", cwd=lead)
    demo.git("push", "-q", "origin", "main", cwd=lead)
    again = base / "ci-again"
    demo.git("clone", "-q", "--depth", "1", f"file://{origin}", again.name, cwd=base)
    demo.snapline("fetch", "origin", cwd=again)
    demo.snapline("verify", cwd=again, expect=1, shows=("app.py",))


async def _mcp_edit(root: Path) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=SNAPLINE, args=["--root", str(root), "mcp"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(
            "edit_file",
            {
                "path": "greet.py",
                "old_text": "f'hello {name}'",
                "new_text": "f'hello there, {name}'",
            },
        )
        if result.is_error:
            raise DemoFailed(f"the MCP call failed: {result.content}")
        text = result.content[0].text  # type: ignore[union-attr]
        return dict(json.loads(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="snapline's end-to-end story")
    parser.add_argument(
        "--report",
        type=Path,
        default=Path(tempfile.gettempdir()) / "snapline-demo-report.html",
        help="where to write the story's review page (default: in the temp directory)",
    )
    report = parser.parse_args(argv).report.resolve()
    with tempfile.TemporaryDirectory(prefix="snapline-demo-") as tmp:
        root = Path(tmp) / "greeter"
        root.mkdir()
        demo = Demo(root)
        try:
            story(demo, report)
        except DemoFailed as failure:
            print(f"\ndemo FAILED at step {demo.steps}: {failure}", file=sys.stderr)
            return 1
    print(f"\ndemo finished: {demo.steps} steps, every one behaved as described.")
    print(f"The review page of this story: {report}")
    print(f"Open it in a browser: file://{report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
