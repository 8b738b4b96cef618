"""scanning/gitconfig.py's parser against git's own, entry by entry, broken files too.

tests/scanning/test_global_excludes.py compares the one value snapline needs with
``git config --get`` on configs git accepts. Here every entry the parser yields is
compared with ``git config --file F --list -z``, and a file git refuses is compared too:
git names the line of the syntax error (``bad config line N``), and the parser, which
ends the file there (gitconfig.py: git refuses the whole config then), must have read
exactly what git reads of the lines before it. Git is the oracle in both cases.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from snapline.scanning.gitconfig import _parse
from tests.scanning.git_reference import GIT
from tests.scanning.test_global_excludes import _random_config

_SEEDS = 600 if os.environ.get("SNAPLINE_STRESS") != "1" else 6000
_BAD_LINE = re.compile(rb"bad config line (\d+) in file ")

# Lines that are or hold a syntax error, or hold what a parser easily gets wrong: headers
# with subsections and their escapes, keys git refuses, values with escapes and quotes.
_TRICKY = [
    '[core "a\\"b"]', '[core "a\\\\b"]', '[core "\\x"]', '[core "x" ]', '[core  "x"]',
    '[core\t"x"]', '[core "x"]extra', '[core "x"_key = v', '[core "x', '[core "x\\',
    '[core x"]', "[core.X]",
    "[a-b.c-d]", "[a_b]", "[1a]", "[a b]", "ex_cludes = v", "1key = v", "key: v", "-key = v",
    "key-2 = v", "key = a\\qb", 'key = "open', "key = a\\", 'key = "a" b "c"', "key = a\\nb",
    "key = \\t\\b\\\\", "key =", "key", "key  ", "key = ;", 'key = "#"', "  [core]",
]  # fmt: skip


def _config(rng: random.Random) -> str:
    text = _random_config(rng)
    lines = text.split("\n")
    for _ in range(rng.randint(0, 3)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(_TRICKY))
    return "\n".join(lines)


def _continued(line: bytes) -> bool:
    """Whether ``line`` ends in a backslash that continues a value on the next line."""
    body = line.rstrip(b"\r\n")
    return (len(body) - len(body.rstrip(b"\\"))) % 2 == 1


def _git_list(path: Path) -> tuple[list[tuple[str, str | None]] | None, int | None]:
    """git's entries of the file at ``path``, or None and the line git refuses."""
    assert GIT is not None, "git is needed to compare config parsing with git's"
    done = subprocess.run(
        [GIT, "config", "--file", str(path), "--list", "-z"],
        capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1"},
        check=False,
    )
    if done.returncode != 0:
        bad = _BAD_LINE.search(done.stderr)
        assert bad is not None, done.stderr
        return None, int(bad.group(1))
    entries: list[tuple[str, str | None]] = []
    for item in done.stdout.split(b"\0")[:-1]:
        key, newline, value = item.partition(b"\n")
        entries.append((key.decode(), os.fsdecode(value) if newline else None))
    return entries, None


_Entries = list[tuple[str, str | None]]


def _git_reads(config: Path, data: bytes) -> tuple[_Entries | None, bool]:
    """What git reads of ``data``, and whether it refused a line of it.

    For a file git refuses, what it reads before that line: the file cut before it,
    unless a value continued from the line before runs into it (git names the line where
    it found the error, not where the entry began). None when that cannot be told.
    """
    config.write_bytes(data)
    entries, bad = _git_list(config)
    if entries is not None:
        return entries, False
    assert bad is not None
    lines = data.splitlines(keepends=True)[: bad - 1]
    if lines and _continued(lines[-1]):
        return None, True
    config.write_bytes(b"".join(lines))
    entries, _ = _git_list(config)
    return entries, True  # None: the cut itself broke a value continued over lines


def test_every_entry_is_git_s_and_a_syntax_error_ends_the_file_where_git_says(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    accepted = refused = 0
    for seed in range(_SEEDS):
        text = _config(random.Random(seed))
        data = text.encode()
        entries, bad = _git_reads(config, data)
        if entries is None:
            continue
        refused += bad
        accepted += not bad
        assert list(_parse(data)) == entries, f"seed {seed}: {text!r}"
    assert accepted > _SEEDS // 4 and refused > _SEEDS // 4, (accepted, refused)


@pytest.mark.parametrize("text", ["[s]\nk", "[s]\n\tk", "[s] k", "[s]\nk=v", '[s]\nk = "v"'])
def test_a_last_line_without_its_newline_is_read_as_git_reads_it(tmp_path: Path, text: str) -> None:
    """A file whose last line has no newline, down to a key of one byte at its very end."""
    entries, bad = _git_reads(tmp_path / "config", text.encode())
    assert entries is not None and not bad, f"git refuses {text!r}"
    assert list(_parse(text.encode())) == entries


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("[s]k = v", False),  # a key right after the header, on its line
        ("[s]#c\nk = v", False),
        ('[s "t"]k = v', False),
        ("[s.t]k", False),
        ('[a]\nk\n[s"t"]\nk = v', True),  # a subsection's quote right after the name
        ("[a]\nk\n[s]]\nk", True),
        ('[a]\nk\n[s \n"t"]\nk = v', True),  # a newline between name and subsection
        ('[a]\nk\n[s "t\n"]\nk', True),  # a newline inside the subsection's quotes
        ('[a]\nk\n[s "t\\\n"]\nk', True),  # and one escaped there
    ],
)
def test_what_follows_a_section_name_is_read_as_git_reads_it(
    tmp_path: Path, text: str, refused: bool
) -> None:
    entries, bad = _git_reads(tmp_path / "config", text.encode())
    assert entries is not None and bad == refused, (text, entries, bad)
    assert list(_parse(text.encode())) == entries
