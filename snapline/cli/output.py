"""Rendering for the command line: plain text, colour on a terminal, JSON, GitHub annotations.

Colour (through rich) is used only when the stream is a terminal and ``NO_COLOR`` is not
set, so piped output is byte-for-byte plain. rich is imported on first coloured write,
never for ``--help``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from snapline import Problem

__all__ = [
    "ProgressBar",
    "Segment",
    "color_enabled",
    "echo",
    "echo_diff",
    "echo_json",
    "format_time",
    "github_annotation",
    "plural",
    "stderr_console",
]

Segment = str | tuple[str, str]
"""Plain text, or ``(text, rich_style)``: the style applies only when colour is on."""

_SURROGATE = re.compile("[\udc80-\udcff]")

_DIFF_STYLES = (
    ("+++", "bold"),
    ("---", "bold"),
    ("diff ", "bold"),
    ("@@", "cyan"),
    ("+", "green"),
    ("-", "red"),
)


def color_enabled(stream: IO[str]) -> bool:
    """Whether to colour ``stream``: a terminal, and ``NO_COLOR`` unset (no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty: Callable[[], bool] | None = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _console(stream: IO[str]) -> Console:
    from rich.console import Console

    # Only ever used on a terminal; soft_wrap keeps long paths on one line.
    return Console(
        file=stream, force_terminal=True, highlight=False, soft_wrap=True, emoji=False, markup=False
    )


def stderr_console() -> Console | None:
    """A rich console on stderr for progress bars, or ``None`` when stderr is not a terminal."""
    return _console(sys.stderr) if color_enabled(sys.stderr) else None


def echo(*segments: Segment, err: bool = False) -> None:
    """Write one line made of ``segments`` to stdout (or stderr), styled only on a terminal."""
    stream = sys.stderr if err else sys.stdout
    if not color_enabled(stream):
        stream.write("".join(s if isinstance(s, str) else s[0] for s in segments) + "\n")
        return
    from rich.text import Text

    text = Text()
    for segment in segments:
        if isinstance(segment, str):
            text.append(segment)
        else:
            text.append(segment[0], style=segment[1])
    _console(stream).print(text)


def echo_json(data: Any) -> None:
    r"""Write ``data`` as indented JSON on stdout (the documented ``--json`` shapes).

    A name that is not UTF-8 reaches here with surrogate escapes (``bad\udcff``):
    those are written as JSON ``\udcff`` escapes, so the output is valid UTF-8 and
    ``json.loads`` gives back the exact name (``os.fsencode`` its exact bytes).
    """
    text = json.dumps(data, indent=2, ensure_ascii=False)
    sys.stdout.write(_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def echo_diff(text: str) -> None:
    """Write a unified diff: verbatim when piped (so ``git apply`` takes it), coloured on a tty."""
    stream = sys.stdout
    if not color_enabled(stream):
        stream.write(text)
        return
    from rich.text import Text

    console = _console(stream)
    for line in text.splitlines():
        style = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), None)
        console.print(Text(line, style=style or ""))


def github_annotation(problem: Problem) -> str:
    """One GitHub Actions workflow command for ``problem``: ``::error file=PATH::message``."""
    message = _escape_data(f"{problem.kind}: {problem.message}")
    if problem.path:
        return f"::error file={_escape_property(problem.path)}::{message}"
    return f"::error::{message}"


def _escape_data(text: str) -> str:
    # GitHub's workflow-command escaping: a raw newline would end the annotation.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_time(moment: datetime) -> str:
    """A recorded time in local time, to the second."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def plural(count: int, word: str, words: str | None = None) -> str:
    """``plural(1, "file")`` → ``"1 file"``; ``plural(2, "file")`` → ``"2 files"``."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


class ProgressBar:
    """``progress(done, total)`` for long library work: a bar on a terminal, for big jobs.

    Args:
        label: What the bar says is happening.
        minimum: Below this total the work is quick enough that a bar would only flicker.
    """

    def __init__(self, label: str, *, minimum: int) -> None:
        self._label = label
        self._minimum = minimum
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._decided = False

    def __call__(self, done: int, total: int) -> None:
        """Show ``done`` of ``total``."""
        if not self._decided:
            self._decided = True
            console = stderr_console() if total >= self._minimum else None
            if console is not None:
                from rich.progress import Progress

                self._bar = Progress(console=console, transient=True)
                self._bar.start()
                self._task = self._bar.add_task(self._label, total=total)
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done)

    def close(self) -> None:
        """Remove the bar, if one was shown."""
        if self._bar is not None:
            self._bar.stop()
