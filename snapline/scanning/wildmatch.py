r"""Git's ignore-file syntax, translated to regular expressions that match as git does.

A line of a ``.gitignore`` becomes a :class:`GitPattern` by the steps of git's ``dir.c``
(``add_patterns_from_buffer``, ``trim_trailing_spaces``, ``parse_path_pattern``), and its
glob becomes a regular expression with the meaning ``wildmatch.c`` gives it: ``*`` and
``?`` never match ``/`` in a pattern that holds one, ``**`` only between slashes (or at
either end) spans directories, a bracket expression is parsed character by character as
git parses it (``[]]``, ``[\]]``, ``[!…]``, ``[^…]``, ranges, reversed ranges that match
nothing, the POSIX classes of git's own ``ctype``), and a pattern git could never match
(a trailing backslash, an unclosed bracket, an unknown ``[:class:]``) matches nothing.

Git compares bytes, not characters: ``?`` matches one byte of a UTF-8 name. Patterns and
paths are therefore compared in a *byte view*: each byte as the character of the same
code (``latin-1``). ASCII text is its own byte view, so the common case costs nothing.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import NamedTuple

__all__ = ["GitPattern", "byte_view", "parse_ignore_file", "parse_pattern"]

_BOM = b"\xef\xbb\xbf"
_GLOB_SPECIAL = frozenset("*?[\\")

# git's ctype (ctype.c, git-compat-util.h): ASCII only, and narrower than C's in places
# (no \v or \f in "space"). Bytes above 0x7f belong to no class.
_ALPHA = frozenset(range(0x41, 0x5B)) | frozenset(range(0x61, 0x7B))
_DIGIT = frozenset(range(0x30, 0x3A))
_PUNCT = (
    frozenset(range(0x21, 0x30))
    | frozenset(range(0x3A, 0x41))
    | frozenset(range(0x5B, 0x61))
    | frozenset(range(0x7B, 0x7F))
)
_CLASSES: dict[str, frozenset[int]] = {
    "alnum": _ALPHA | _DIGIT,
    "alpha": _ALPHA,
    "blank": frozenset({0x09, 0x20}),
    "cntrl": frozenset(range(0x20)) | {0x7F},
    "digit": _DIGIT,
    "graph": frozenset(range(0x21, 0x7F)),
    "lower": frozenset(range(0x61, 0x7B)),
    "print": frozenset(range(0x20, 0x7F)),
    "punct": _PUNCT,
    "space": frozenset({0x09, 0x0A, 0x0D, 0x20}),
    "upper": frozenset(range(0x41, 0x5B)),
    "xdigit": _DIGIT | frozenset(range(0x41, 0x47)) | frozenset(range(0x61, 0x67)),
}
_BYTES = frozenset(range(256))
_SLASH = ord("/")


class GitPattern(NamedTuple):
    """One line of an ignore file, ready to match.

    Attributes:
        negative: A ``!`` pattern: a match re-includes.
        dir_only: A pattern ending in ``/``: it matches directories only.
        basename: A pattern without a ``/`` (other than a trailing one): it matches the
            last component of a path, at any depth below its file's directory.
        regex: What the pattern matches, in full, in the byte view: the last component
            for a ``basename`` pattern, else the path from the workspace root.
        literal: For a basename pattern without wildcards, the one name it matches.
        suffix: For a basename pattern ``*literal``, the literal ending it matches.
    """

    negative: bool
    dir_only: bool
    basename: bool
    regex: str
    literal: str | None = None
    suffix: str | None = None


def byte_view(text: str) -> str:
    """``text`` as git sees it: each byte of its file-system encoding as one character.

    Args:
        text: A path or a name, as ``os`` returns it (undecodable bytes escaped).

    Returns:
        ``text`` itself when it is ASCII, else its bytes decoded as latin-1.
    """
    return text if text.isascii() else os.fsencode(text).decode("latin-1")


def parse_ignore_file(data: bytes) -> list[str]:
    """The pattern lines of an ignore file, as git reads them.

    A UTF-8 byte-order mark at the start is skipped, one carriage return before each line
    feed is dropped, empty lines and lines starting with ``#`` are skipped, and trailing
    spaces are trimmed unless escaped (a tab is not a space). A NUL ends its line, as it
    ends git's C string.

    Args:
        data: The file's bytes.

    Returns:
        The lines in the byte view, in order.
    """
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    lines = []
    for raw in data.split(b"\n"):
        if not raw or raw.startswith(b"#"):
            continue
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        line = _trim_trailing_spaces(raw.partition(b"\0")[0].decode("latin-1"))
        if line:
            lines.append(line)
    return lines


def parse_pattern(line: str, base: str) -> GitPattern | None:
    """Compile one pattern line of the ignore file in directory ``base``.

    Args:
        line: A line from :func:`parse_ignore_file` (byte view).
        base: The directory of the ignore file, relative to the root ("" for the root),
            in the byte view.

    Returns:
        The pattern, or None when git could never match it (an empty pattern such as a
        lone ``!``, a trailing backslash, a malformed bracket expression).
    """
    negative = line.startswith("!")
    body = line[1:] if negative else line
    dir_only = body.endswith("/")
    if dir_only:
        body = body[:-1]
    basename = "/" not in body
    if basename:
        regex = _translate(body, pathname=False, start=0)
        if regex is None or not body:
            return None
        literal = body if not _GLOB_SPECIAL.intersection(body) else None
        tail = body[1:]
        suffix = tail if body.startswith("*") and not _GLOB_SPECIAL.intersection(tail) else None
        return GitPattern(negative, dir_only, True, regex, literal, suffix)
    # A pattern with a slash is matched against the path below its file's directory; a
    # leading slash only anchors it there.
    if body.startswith("/"):
        body = body[1:]
    if not body:
        return None
    # git compares the literal run before the first wildcard on its own, then matches
    # the rest as a pattern of its own: a "**" right after that run counts as leading
    # ("foo**/bar" matches "foo/x/bar"). Translating from the same cut keeps that.
    start = next((i for i, c in enumerate(body) if c in _GLOB_SPECIAL), len(body))
    regex = _translate(body, pathname=True, start=start)
    if regex is None:
        return None
    prefix = re.escape(base + "/") if base else ""
    return GitPattern(negative, dir_only, False, prefix + regex)


def _trim_trailing_spaces(line: str) -> str:
    # dir.c trim_trailing_spaces: a run of spaces at the end goes, unless the first of
    # them is escaped by a backslash; a trailing lone backslash stops the trimming.
    last_space = -1
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == " ":
            if last_space < 0:
                last_space = i
        elif c == "\\":
            i += 1
            if i == n:
                return line
            last_space = -1
        else:
            last_space = -1
        i += 1
    return line[:last_space] if last_space >= 0 else line


# Tokens of a translated pattern: a one-character regex, "*" within a component, "/",
# and the two spans that cross directories: "**/" (zero or more whole directories) and
# a "**" that matches anything (trailing, or before an escaped slash).
_STAR = "*"
_SEP = "/"
_DIRS = "**/"
_ANY = "**"
_Token = tuple[str, str]  # (kind, regex of one character for "char")
_CHAR = "char"
_group_names = itertools.count()


def _translate(pattern: str, *, pathname: bool, start: int) -> str | None:
    tokens = _tokenize(pattern, pathname=pathname, start=start)
    return None if tokens is None else _emit(tokens)


def _tokenize(pattern: str, *, pathname: bool, start: int) -> list[_Token] | None:
    # Both modes forbid "/" in "*", "?" and classes: a basename is matched alone and
    # holds no slash, so that is exact there too.
    tokens: list[_Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 == n:
                return None  # wildmatch compares the terminating NUL: never a match
            escaped = pattern[i + 1]
            tokens.append((_SEP, "/") if escaped == "/" else (_CHAR, re.escape(escaped)))
            i += 2
        elif c == "?":
            tokens.append((_CHAR, "[^/]"))
            i += 1
        elif c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            leading = i == start or pattern[i - 1] == "/"
            rest = pattern[j:]
            if pathname and j - i > 1 and leading and not rest:
                tokens.append((_ANY, ""))
            elif pathname and j - i > 1 and leading and rest.startswith("/"):
                tokens.append((_DIRS, ""))
                j += 1
            elif pathname and j - i > 1 and leading and rest.startswith("\\/"):
                tokens.append((_ANY, ""))  # spans directories, but "\/" still needs a slash
            elif not tokens or tokens[-1][0] != _STAR:
                tokens.append((_STAR, ""))
            i = j
        elif c == "[":
            parsed = _bracket(pattern, i + 1)
            if parsed is None:
                return None
            members, i = parsed
            members = members - {_SLASH}
            if not members:
                return None
            tokens.append((_CHAR, _class_regex(members)))
        elif c == "/":
            tokens.append((_SEP, "/"))
            i += 1
        else:
            tokens.append((_CHAR, re.escape(c)))
            i += 1
    return tokens


def _emit(tokens: list[_Token]) -> str:
    """The regex of a token list, written so that matching stays linear.

    Python's regex engine backtracks: "*a*a*a*b" against a long name of "a"s, or several
    "**/" against a deep path, would take time exponential in the number of stars, where
    git's wildmatch answers at once. Both kinds of star are safe to match lazily and
    commit: in "*S1*S2", any match with S1 later also works with S1 at its leftmost place
    (the next star absorbs the difference), and the same holds for whole directories
    between two "**/". So every star but the last of its kind is written as an atomic
    leftmost search, ``(?=(?P<g>[^/]*?S1))(?P=g)`` (a lookahead is never backtracked into);
    only the last one of a component, and the last span, backtrack.
    """
    # Split at the spans: segment, span, segment, span, ..., segment.
    segments: list[list[_Token]] = [[]]
    spans: list[str] = []
    for kind, regex in tokens:
        if kind in (_DIRS, _ANY):
            spans.append(kind)
            segments.append([])
        else:
            segments[-1].append((kind, regex))
    out = [_emit_segment(segments[0])]
    for index, span in enumerate(spans):
        segment = _emit_segment(segments[index + 1])
        if index + 1 < len(spans):
            lazy = "(?:.*?/)??" if span == _DIRS else ".*?"
            out.append(_atomic(lazy + segment))
        else:
            out.append(("(?:.*/)?" if span == _DIRS else ".*") + segment)
    return "".join(out)


def _emit_segment(tokens: list[_Token]) -> str:
    out: list[str] = []
    component: list[_Token] = []
    for kind, regex in [*tokens, (_SEP, "")]:
        if kind != _SEP:
            component.append((kind, regex))
            continue
        # One component: fixed-width runs between stars.
        runs: list[str] = [""]
        for part_kind, part in component:
            if part_kind == _STAR:
                runs.append("")
            else:
                runs[-1] += part
        out.append(runs[0])
        for index, run in enumerate(runs[1:], start=1):
            if index + 1 < len(runs):
                out.append(_atomic("[^/]*?" + run))
            else:
                out.append("[^/]*" + run)
        out.append(regex)
        component = []
    return "".join(out)


def _atomic(regex: str) -> str:
    name = f"g{next(_group_names)}"
    return f"(?=(?P<{name}>{regex}))(?P={name})"


def _bracket(pattern: str, i: int) -> tuple[frozenset[int], int] | None:
    """Parse the bracket expression after the ``[`` at ``i - 1`` as wildmatch does.

    Returns the byte values it matches and the index after its ``]``, or None when git
    would abort the match (no closing ``]``, an unknown ``[:class:]``).
    """
    n = len(pattern)

    def at(k: int) -> str:
        return pattern[k] if k < n else ""

    ch = at(i)
    negated = ch in ("!", "^")
    if negated:
        i += 1
        ch = at(i)
    members: set[int] = set()
    prev = ""
    while True:
        if not ch:
            return None
        if ch == "\\":
            i += 1
            ch = at(i)
            if not ch:
                return None
            members.add(ord(ch))
        elif ch == "-" and prev and at(i + 1) not in ("", "]"):
            i += 1
            ch = at(i)
            if ch == "\\":
                i += 1
                ch = at(i)
                if not ch:
                    return None
            members.update(range(ord(prev), ord(ch) + 1))  # reversed: nothing
            ch = ""
        elif ch == "[" and at(i + 1) == ":":
            close = pattern.find("]", i + 2)
            if close < 0:
                return None
            name = pattern[i + 2 : close - 1]
            if close - (i + 2) < 1 or pattern[close - 1] != ":":
                members.add(ord("["))  # no ":]": the "[" is an ordinary member
            else:
                table = _CLASSES.get(name)
                if table is None:
                    return None
                members.update(table)
                i = close
                ch = ""
        else:
            members.add(ord(ch))
        prev = ch
        i += 1
        ch = at(i)
        if ch == "]":
            break
    result = _BYTES - members if negated else frozenset(members)
    return result, i + 1


def _class_regex(members: frozenset[int]) -> str:
    # Only characters 0-255 ever reach these expressions (the byte view), so a negated
    # class of the complement is exact; the shorter of the two is used.
    def ranges(values: frozenset[int]) -> str:
        parts = []
        ordered = sorted(values)
        k = 0
        while k < len(ordered):
            low = ordered[k]
            while k + 1 < len(ordered) and ordered[k + 1] == ordered[k] + 1:
                k += 1
            high = ordered[k]
            parts.append(f"\\x{low:02x}" if low == high else f"\\x{low:02x}-\\x{high:02x}")
            k += 1
        return "".join(parts)

    positive = ranges(members)
    negative = ranges(_BYTES - members)
    if len(negative) < len(positive):
        return f"[^{negative}]"
    return f"[{positive}]"
