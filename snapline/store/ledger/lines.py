"""How every ledger file is read: its error, its lines, a reader and the canonical check.

(Snapshot files, the large ones, are parsed strictly instead of rendered back: see
:func:`snapline.store.ledger.format.parse_snapshot`.)

Each ledger file is UTF-8 text, split on LF only (never ``str.splitlines``: U+2028 and
friends may stand raw inside a JSON string), with one ``key value`` field per line.
Every value has exactly one spelling (canonical numbers, canonical JSON strings), so a
file that parses renders back to the same bytes, and an edit anywhere shows.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

__all__ = [
    "LedgerFormatError",
    "LineReader",
    "check_canonical",
    "decode_lines",
    "encode_lines",
    "read_record",
    "split_lines",
]

_T = TypeVar("_T")


class LedgerFormatError(ValueError):
    """A ledger file that is not in the ledger format.

    Attributes:
        line: The 1-based number of the offending line, or ``None`` for the whole file.
        what: What is wrong, in a few words.
    """

    def __init__(self, line: int | None, what: str) -> None:
        self.line = line
        self.what = what
        super().__init__(what if line is None else f"line {line}: {what}")


def split_lines(data: bytes) -> list[str]:
    """Decode a ledger file into its lines, without their LF.

    Args:
        data: The whole file.

    Returns:
        Its lines.

    Raises:
        LedgerFormatError: If a line is not UTF-8 or the file lacks its final LF.
    """
    if data and not data.endswith(b"\n"):
        raise LedgerFormatError(data.count(b"\n") + 1, "the file does not end with a line end")
    try:
        # LF never occurs inside a UTF-8 sequence: the whole decodes iff every line does.
        return data.decode("utf-8").split("\n")[:-1]
    except UnicodeDecodeError:
        pass  # find the line, for the message
    raw = data.split(b"\n")
    lines = []
    for number, line in enumerate(raw[:-1], start=1):
        try:
            lines.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            raise LedgerFormatError(number, "not UTF-8") from None
    return lines


def decode_lines(raw: Iterable[bytes], limit: int) -> Iterator[str]:
    """Decode a ledger file's lines as they are read, without their LF.

    What :func:`split_lines` does for a file read whole, for one read line by line (a
    baseline's file is tens of megabytes; its lines are never all held at once).

    Args:
        raw: The file's lines, each with its LF (a binary file object).
        limit: The most bytes the file may have.

    Raises:
        LedgerFormatError: If a line is not UTF-8, the file lacks its final LF, or it
            is larger than ``limit``.
    """
    size = 0
    for number, line in enumerate(raw, start=1):
        size += len(line)
        if size > limit:
            raise LedgerFormatError(number, f"the file is larger than {limit} bytes")
        if not line.endswith(b"\n"):
            raise LedgerFormatError(number, "the file does not end with a line end")
        try:
            yield line[:-1].decode("utf-8")
        except UnicodeDecodeError:
            raise LedgerFormatError(number, "not UTF-8") from None


def encode_lines(lines: Iterable[str]) -> bytes:
    """A ledger file's bytes: each line UTF-8 and ended by its LF."""
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def read_record(data: bytes, magic: str, version: int, what: str) -> tuple[list[str], LineReader]:
    """A small ledger file's lines, and a reader past its first line (:meth:`LineReader.header`).

    Raises:
        LedgerFormatError: If the file is not UTF-8 lines, or not of this format's version.
    """
    lines = split_lines(data)
    reader = LineReader(lines)
    reader.header(magic, version, what)
    return lines, reader


class LineReader:
    """Reads a file's lines in order, each parsed where it is read.

    Args:
        lines: The lines, without their LF: a list, or an iterator read as the parse
            goes (:func:`decode_lines`), a few lines ahead at most.
    """

    def __init__(self, lines: Iterable[str]) -> None:
        self._source = iter(lines)
        self._ahead: deque[str] = deque()
        self._next = 0

    def _fill(self, count: int) -> None:
        while len(self._ahead) < count:
            line = next(self._source, None)
            if line is None:
                return
            self._ahead.append(line)

    @property
    def number(self) -> int:
        """The 1-based number of the line last read."""
        return self._next

    def peek(self) -> str | None:
        """The next line without reading it, or ``None`` at the end of the file."""
        if not self._ahead:
            self._fill(1)
        return self._ahead[0] if self._ahead else None

    def read(self, expected: str) -> str:
        """Read the next line.

        Args:
            expected: What it should be, for the message when there is none.

        Raises:
            LedgerFormatError: At the end of the file.
        """
        if not self._ahead:
            self._fill(1)
            if not self._ahead:
                raise LedgerFormatError(self._next + 1, f"expected `{expected}`, found the end")
        self._next += 1
        return self._ahead.popleft()

    def field(self, key: str, parse: Callable[[str, int], _T], shape: str = "...") -> _T:
        """Read a ``key value`` line and parse its value.

        Args:
            key: The key the line must start with (then one space).
            parse: Turns the value and its line number into the field.
            shape: How the value reads, for the message (``"N"``).

        Raises:
            LedgerFormatError: If the line is missing, has another key or a bad value.
        """
        line = self.read(f"{key} {shape}")
        if not line.startswith(key + " "):
            raise LedgerFormatError(self._next, f"expected `{key} {shape}`, found {line!r:.80}")
        return parse(line[len(key) + 1 :], self._next)

    def ahead(self, count: int) -> list[str]:
        """The next ``count`` lines (fewer at the end of the file), without reading them."""
        self._fill(count)
        return list(itertools.islice(self._ahead, count))

    def skip(self, count: int) -> None:
        """Read ``count`` lines known to be there (seen through :meth:`ahead`)."""
        for _ in range(count):
            self._ahead.popleft()
        self._next += count

    def header(self, magic: str, version: int, what: str) -> None:
        """Read a file's first line, ``<magic><version>``: the format this snapline reads.

        Args:
            magic: The line without the version (``snapline snapshot ``).
            version: The version this snapline reads.
            what: What the version is of (``snapshot format``), for the message.

        Raises:
            LedgerFormatError: If the line is another version (upgrade snapline), or not
                this header at all.
        """
        expected = f"{magic}{version}"
        line = self.read(expected)
        if line == expected:
            return
        found = line[len(magic) :]
        if line.startswith(magic) and found.isascii() and found.isdigit():
            raise self.fail(
                f"{what} version {found:.20} is not known to this snapline, "
                f"which reads version {version}: upgrade snapline"
            )
        raise self.fail(f"expected `{expected}`, found {line!r:.80}")

    def fail(self, what: str) -> LedgerFormatError:
        """An error at the line last read."""
        return LedgerFormatError(self._next, what)

    def end(self) -> None:
        """Check that every line was read.

        Raises:
            LedgerFormatError: If lines are left.
        """
        line = self.peek()
        if line is not None:
            raise LedgerFormatError(self._next + 1, f"unexpected line {line!r:.80}")


def check_canonical(lines: list[str], render: Callable[[], bytes]) -> None:
    """Check that a parsed file renders back to the lines it was read from.

    Every field is checked where it is read; this is the net under those checks, so
    that one spelling per value holds for the file as a whole.

    Args:
        lines: The file's lines.
        render: Renders what was parsed from them.

    Raises:
        LedgerFormatError: At the first line that differs.
    """
    try:
        again = render().decode("utf-8").split("\n")[:-1]
    except ValueError as error:
        raise LedgerFormatError(None, f"not in canonical form: {error}") from None
    if again == lines:
        return
    for number, (line, expected) in enumerate(zip(lines, again, strict=False), start=1):
        if line != expected:
            raise LedgerFormatError(number, f"not in canonical form: expected {expected!r:.80}")
    if len(lines) != len(again):
        raise LedgerFormatError(min(len(lines), len(again)) + 1, "not in canonical form")
