r"""Paths in human-readable output, quoted as git quotes them (``core.quotePath``).

A file may be named ``x.txt\n  D README.md``: printed raw, it would add a fake line to
``record`` or ``status``. Every path the command line shows a person goes through
:func:`quote_path`, which does what git does by default: a name with a control
character, a double quote, a backslash or a byte outside ASCII is shown in double
quotes with C-style escapes (``\n``, ``\t``, ``\"``, ``\\``, octal ``\303\251``
for bytes); any other name is shown as it is. JSON output carries the exact names.
"""

from __future__ import annotations

__all__ = ["quote_path", "quote_text"]

# git's cq_lookup: letters for the usual control escapes, octal for the other ones.
_LETTERS = {
    0x07: "a",
    0x08: "b",
    0x09: "t",
    0x0A: "n",
    0x0B: "v",
    0x0C: "f",
    0x0D: "r",
    0x22: '"',
    0x5C: "\\",
}


def _escape(byte: int, *, non_ascii: bool) -> str | None:
    """The escape for ``byte``, or ``None`` when it is shown as it is."""
    letter = _LETTERS.get(byte)
    if letter is not None:
        return "\\" + letter
    if byte < 0x20 or byte == 0x7F or (non_ascii and byte >= 0x80):
        return f"\\{byte:03o}"
    return None


def quote_path(path: str) -> str:
    r"""``path`` as git shows it with ``core.quotePath`` on (its default).

    Args:
        path: A path, with surrogate escapes for bytes that are not UTF-8 (as the
            store returns it).

    Returns:
        ``path`` unchanged when every byte is printable ASCII other than ``"`` and
        ``\``; else ``"…"`` with C-style escapes and non-ASCII bytes in octal.
    """
    # Printable ASCII (a surrogate escape is not ASCII) without `"` or `\`: every other
    # name has a byte to escape. Checked without a call per byte (a rollback lists 100).
    if path.isascii() and path.isprintable() and '"' not in path and "\\" not in path:
        return path
    raw = path.encode("utf-8", "surrogateescape")
    parts = []
    for byte in raw:
        escape = _escape(byte, non_ascii=True)
        parts.append(chr(byte) if escape is None else escape)
    return '"' + "".join(parts) + '"'


def quote_text(text: str) -> str:
    r"""Free text (a message naming paths) made safe for one line of a terminal.

    Control characters are escaped as in :func:`quote_path` (so a name inside a
    message cannot start a line of its own or send terminal escapes); everything else,
    non-ASCII letters included, is kept so the message stays readable.

    Args:
        text: The message, with surrogate escapes for bytes that are not UTF-8.

    Returns:
        The text with ``\n``, ``\t``, ``\033`` and the like written as escapes.
    """
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (surrogateescape)
            out.append(f"\\{code - 0xDC00:03o}")
        elif code < 0x20 or code == 0x7F:
            out.append(_escape(code, non_ascii=False) or char)
        else:
            out.append(char)
    return "".join(out)
