"""A review page parsed with the standard library's ``html.parser``, for assertions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Node", "parse"]

_VOID = {"meta", "link", "input", "br", "hr", "img", "wbr", "source", "area", "base", "col"}


@dataclass
class Node:
    """An element: its tag, attributes, children and the text directly inside it."""

    tag: str
    attrs: dict[str, str | None]
    children: list[Node] = field(default_factory=list)
    parts: list[str | Node] = field(default_factory=list)

    def iter(self) -> Iterator[Node]:
        """This element and every element inside it, in document order."""
        yield self
        for child in self.children:
            yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        """Elements (below this one) with ``tag`` and/or the class ``cls``."""
        return [
            node
            for node in self.iter()
            if node is not self
            and (tag is None or node.tag == tag)
            and (cls is None or cls in (node.attrs.get("class") or "").split())
        ]

    def find(self, tag: str | None = None, cls: str | None = None) -> Node:
        """The first element with ``tag`` and/or class ``cls`` (it must exist)."""
        found = self.find_all(tag, cls)
        assert found, f"no <{tag} class={cls}> in <{self.tag}>"
        return found[0]

    def by_id(self, ident: str) -> Node | None:
        """The element with ``id`` ``ident``, if any."""
        return next((n for n in self.iter() if n.attrs.get("id") == ident), None)

    @property
    def text(self) -> str:
        """All the text inside this element, entities decoded."""
        return "".join(p if isinstance(p, str) else p.text for p in self.parts)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        parent = self.stack[-1]
        parent.children.append(node)
        parent.parts.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        # The page must be well formed: every end tag closes the innermost open element.
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].parts.append(data)


def parse(text: str) -> Node:
    """The document tree of ``text``; fails on a mismatched end tag or an unclosed element."""
    builder = _Builder()
    builder.feed(text)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements at the end of the page"
    return builder.root
