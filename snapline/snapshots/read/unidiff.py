r"""Rendering one file's change as a git-style unified diff that ``git apply`` accepts.

The output follows ``git diff --full-index``: ``diff --git`` headers, ``new file mode`` /
``deleted file mode`` / ``old mode``/``new mode``, ``rename from``/``rename to``, full
``index`` lines with git blob ids, ``/dev/null`` for a missing side, and ``\ No newline at
end of file``. Lines are split on ``\n`` only, so CRLF endings and a missing final newline
survive the round trip. Binary content (a NUL byte, or not UTF-8) is named, never dumped;
git can still apply such a section when it has the new blob, thanks to the full index.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from snapline.content import decode_text

__all__ = ["Side", "changed_lines", "quote_name", "render_file_diff"]

_SYMLINK = 0o120000
_NULL_ID = "0" * 40
_CONTEXT = 3
_NO_NEWLINE = "\\ No newline at end of file\n"
_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


@dataclass(frozen=True)
class Side:
    """One side of a file diff: its path, git mode and content (``None``: unavailable).

    ``forgotten``: the content is unavailable because it was forgotten (``snapline
    forget``), which the diff says instead of "Binary files differ".
    """

    path: str
    mode: int
    content: bytes | None
    forgotten: bool = False


def render_file_diff(old: Side | None, new: Side | None) -> str:
    """The ``git diff`` section(s) turning ``old`` into ``new`` (``None``: absent).

    A change between a symlink and a regular file is rendered as a deletion followed by
    an addition, as git does. Returns ``""`` when both sides are the same.
    """
    if old is not None and new is not None:
        if _is_link(old.mode) != _is_link(new.mode):
            return render_file_diff(old, None) + render_file_diff(None, new)
        if old == new and not old.forgotten:
            return ""
        a_path, b_path = old.path, new.path
    elif old is not None:
        a_path = b_path = old.path
    elif new is not None:
        a_path = b_path = new.path
    else:
        return ""
    same_content = (
        old is not None
        and new is not None
        and old.content == new.content
        and not (old.forgotten or new.forgotten)
    )
    out = [f"diff --git {_quote('a/', a_path)} {_quote('b/', b_path)}\n"]
    if old is None:
        assert new is not None
        out.append(f"new file mode {new.mode:o}\n")
    elif new is None:
        out.append(f"deleted file mode {old.mode:o}\n")
    elif old.mode != new.mode:
        out.append(f"old mode {old.mode:o}\nnew mode {new.mode:o}\n")
    if a_path != b_path:
        if same_content:
            out.append("similarity index 100%\n")
        out.append(f"rename from {_quote('', a_path)}\nrename to {_quote('', b_path)}\n")
    if same_content:
        return "".join(out)
    old_data = b"" if old is None else old.content
    new_data = b"" if new is None else new.content
    if old_data is not None and new_data is not None:
        shared = old.mode if old is not None and new is not None and old.mode == new.mode else 0
        mode_tail = f" {shared:o}" if shared else ""
        old_id = _NULL_ID if old is None else _git_blob_id(old_data)
        new_id = _NULL_ID if new is None else _git_blob_id(new_data)
        out.append(f"index {old_id}..{new_id}{mode_tail}\n")
    old_text = _text(old_data)
    new_text = _text(new_data)
    a_name = "/dev/null" if old is None else _quote("a/", a_path)
    b_name = "/dev/null" if new is None else _quote("b/", b_path)
    gone = [name for side, name in ((old, a_name), (new, b_name)) if side and side.forgotten]
    if gone:
        out.append(f"Content forgotten (snapline forget): {' and '.join(gone)}\n")
        return "".join(out)
    if old_text is None or new_text is None:
        out.append(f"Binary files {a_name} and {b_name} differ\n")
        return "".join(out)
    hunks = list(_hunks(_lines(old_text), _lines(new_text)))
    if hunks:
        out.append(f"--- {a_name}{_tab(a_name)}\n+++ {b_name}{_tab(b_name)}\n")
        out.extend(hunks)
    return "".join(out)


def changed_lines(old: Side | None, new: Side | None) -> tuple[int, int] | None:
    """The lines :func:`render_file_diff` adds and removes, ``(added, removed)``.

    None when either side is binary, or its content is unavailable (hash only,
    forgotten): the diff names such a file instead of showing lines.
    """
    if (old is not None and old.forgotten) or (new is not None and new.forgotten):
        return None
    old_text = _text(b"" if old is None else old.content)
    new_text = _text(b"" if new is None else new.content)
    if old_text is None or new_text is None:
        return None
    a, b = _lines(old_text), _lines(new_text)
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def quote_name(path: str) -> str:
    """``path`` as git writes a name: C-quoted when it holds a control or non-UTF-8 byte."""
    return _quote("", path)


def _is_link(mode: int) -> bool:
    return mode == _SYMLINK


def _text(data: bytes | None) -> str | None:
    return None if data is None else decode_text(data)


def _git_blob_id(data: bytes) -> str:
    # git names content by the SHA-1 of a "blob <size>\0" header plus the bytes; this is
    # only for interoperability with git apply, never a snapline content hash.
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def _lines(text: str) -> list[str]:
    # str.splitlines would also split on \r, \x0b, \x1c, \u2028…; git splits on \n only.
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _hunks(a: list[str], b: list[str]) -> Iterator[str]:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(_CONTEXT):
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2])
        new_range = _range(first[3], last[4])
        lines = [f"@@ -{old_range} +{new_range} @@\n"]
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(_line(" ", line) for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                lines.extend(_line("-", line) for line in a[i1:i2])
            if tag in ("replace", "insert"):
                lines.extend(_line("+", line) for line in b[j1:j2])
        yield "".join(lines)


def _line(sign: str, line: str) -> str:
    if line.endswith("\n"):
        return sign + line
    return sign + line + "\n" + _NO_NEWLINE


def _range(start: int, stop: int) -> str:
    # As difflib and git write it: a one-line range omits its length, an empty one
    # names the line before it.
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if length == 0:
        beginning -= 1
    return f"{beginning},{length}"


def _quote(prefix: str, path: str) -> str:
    name = prefix + path
    if not any(ch in _ESCAPES or _octal(ch) for ch in name):
        return name
    out = []
    for ch in name:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif _octal(ch):
            # A byte that is not UTF-8 comes back from os.fsdecode as a lone surrogate
            # (U+DC80..U+DCFF); git writes the byte itself, in octal.
            byte = ord(ch) - 0xDC00 if 0xDC80 <= ord(ch) <= 0xDCFF else ord(ch)
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _octal(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or code == 0x7F or 0xDC80 <= code <= 0xDCFF


def _tab(name: str) -> str:
    # git ends a ---/+++ name containing a space with a tab, so that a reader can tell
    # where the name stops.
    return "\t" if " " in name else ""
