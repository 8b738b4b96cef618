"""Colouring unified diffs as HTML with pygments' ``DiffLexer``.

The lexer's tokens are written as ``<span class=…>`` with pygments' own short class
names and stylesheet, but without ``HtmlFormatter.format``: for a page of a thousand
small diffs its per-line bookkeeping cost more than lexing itself. Every token's text
is escaped here, so a diff of hostile content comes out as text.
"""

from __future__ import annotations

import html
from functools import cache, lru_cache
from typing import Any

__all__ = ["highlight_diff", "stylesheet"]

_SCOPE = ".diff"


def highlight_diff(text: str) -> str:
    """``text`` as HTML: escaped, each coloured token in a ``<span class=…>``, no wrapper."""
    out = []
    for ttype, value in _lexer().get_tokens(text):
        css = _css_class(ttype)
        escaped = html.escape(value, quote=False)
        out.append(f'<span class="{css}">{escaped}</span>' if css else escaped)
    return "".join(out)


def stylesheet() -> str:
    """The CSS for :func:`highlight_diff`'s classes, scoped to elements of class ``diff``."""
    from pygments.formatters import HtmlFormatter

    return str(HtmlFormatter(style="default").get_style_defs(_SCOPE))


@lru_cache(maxsize=1)
def _lexer() -> Any:
    from pygments.lexers import DiffLexer

    # stripnl=False keeps a diff's leading blank context lines.
    return DiffLexer(stripnl=False)


@cache
def _css_class(ttype: Any) -> str:
    from pygments.token import STANDARD_TYPES, Text

    # Plain text and whitespace get no span: most of a diff is context lines.
    if ttype in Text:
        return ""
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return str(STANDARD_TYPES[ttype])
