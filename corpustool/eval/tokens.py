"""Words, text nodes and snippet normalisation shared by the gold readers and the metrics.

Evaluation words are runs of word characters, case-folded: punctuation and
spacing differ between extractors (and between an extractor and a human
annotator) without changing the text, so they must not cost points. The
length of a word in characters is its weight for the character-weighted
scores of seed 003 (Sect. 2.9.1).
"""
from __future__ import annotations

import re
from typing import Iterator

from lxml import etree

_WORD = re.compile(r"\w+")
_NON_WORD = re.compile(r"\W+")

# Never visible text; seed 003 (Sect. 2.9) removes head, style, script and
# select before building the gold standard and running the algorithms.
SKIPPED_TAGS = frozenset({"head", "script", "style", "noscript", "template", "select", "title"})


def words(text: str | None) -> list[str]:
    """Evaluation words of a text: case-folded runs of word characters."""
    if not text:
        return []
    return _WORD.findall(text.casefold())


def normalize_snippet(text: str) -> str:
    """The snippet normalisation of the data README: lower-case, every run of
    non-word characters collapsed to one space (leading/trailing space dropped)."""
    return _NON_WORD.sub(" ", text.lower()).strip()


def _tag(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def text_nodes(root: etree._Element | None) -> Iterator[tuple[str, etree._Element]]:
    """(text, owner element) for every DOM text node in document order.

    An element's ``.text`` belongs to the element, its ``.tail`` to the parent;
    text inside :data:`SKIPPED_TAGS` and comments is not visible and skipped.
    Whitespace-only nodes are left out.
    """
    if root is None:
        return
    # iterative walk (pages can nest deeper than Python's recursion limit);
    # comments are children too: their tails are visible text
    if not (_tag(root) and _tag(root) not in SKIPPED_TAGS):
        return
    if root.text and root.text.strip():
        yield root.text, root
    stack = [(root, iter(root))]
    while stack:
        parent, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if stack and parent.tail and parent.tail.strip():
                yield parent.tail, stack[-1][0]
            continue
        tag = _tag(child)
        if tag and tag not in SKIPPED_TAGS:
            if child.text and child.text.strip():
                yield child.text, child
            stack.append((child, iter(child)))
        elif child.tail and child.tail.strip():
            yield child.tail, parent


def visible_text(root: etree._Element | None) -> str:
    """All visible text of a parsed page, one text node per line."""
    return "\n".join(t.strip() for t, _ in text_nodes(root))
