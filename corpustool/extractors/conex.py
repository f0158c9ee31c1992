"""Page-level ConEx, main-content extraction on the DOM tree (seed 002, Ch. 6).

1. Rated nodes (Sect. 6.2.2): elements below the body with children, except
   A, BODY, BR, EM, H1-H5, HEADER, HR, IFRAME, NAV, SPAN, SCRIPT (and the
   other non-visible elements the segmentation drops with their content).
2. Four features (Definition 6.2.1): word ratio (words outside links, each
   divided by its distance to the node), hyperlink ratio (1 / links in the
   subtree, 1 without links), children ratio (more than two child nodes) and
   position ratio (depth, mirrored around half the page's maximal depth).
3. Standardisation to z-scores (Definition 6.2.2, Eq. 6.1), the centroid
   (Algorithm 3) and the c = 3 nodes farthest from it by Euclidean distance
   (Eq. 6.2, Algorithm 4; c = 3 is Table 6.1's best).
4. Algorithm 5 removes a c-SET node whose c-SET ancestor holds exactly the
   same text nodes; Algorithm 6 takes the node with the highest ratio of
   words to tags (all nodes tied for it) and its c-SET siblings.
5. Algorithm 7 removes groups of link-only siblings (a link with fewer than
   ``max_words`` = 3 words, Table 6.2's best, alone in its parent, with
   same-tag siblings of that parent that also hold a single link).
6. Wide-page rule (Sect. 6.2.2 iii): when the body has at least as many
   (rated-tag) element children as the page is deep counted over the same
   elements, the main content is all of the body's children.

No browser rendering: the WebExtension's ``innerText`` (which depends on CSS)
is replaced by the DOM text outside dropped elements, and "same text nodes"
of Algorithm 5 is compared as the same range of DOM text nodes. Text inside
``<select>``/``<datalist>`` is not rendered (a closed drop-down), so it is not
counted and those elements are not rated. Child-node counts include non-blank
text nodes but not whitespace-only ones.
Paragraphs (jusText-style blocks) inside the main content are good.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..document import Paragraph
from ..errors import OptionError
from .base import Extractor, Page, register
from .segment import Segmentation, cached_segmentation, make_paragraph, pieces, segment

EXCLUDED_TAGS = frozenset({
    "a", "body", "br", "em", "h1", "h2", "h3", "h4", "h5", "header", "hr", "iframe", "nav",
    "span", "script", "undefined",
})
# Rendering proxy: a closed drop-down shows none of its options' text, so
# text inside these elements is not counted and they are not rated.
UNRENDERED_TAGS = frozenset({"select", "datalist"})
C_SET_SIZE = 3
MAX_WORDS = 3


@dataclass
class ContentResult:
    roots: list[int]               # main content roots (after Algorithm 6)
    content: set[int]              # node indices in the main content (after Algorithm 7)
    c_set: list[int]               # Algorithm 4 (before reduction)
    reduced: list[int]             # after Algorithm 5
    wide_page: bool
    features: dict[int, tuple[float, float, float, float]]
    distance: dict[int, float]


def _std(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    return mean, math.sqrt(var)


def main_content(source: Any, c: int = C_SET_SIZE, max_words: int = MAX_WORDS) -> ContentResult:
    """Page-level ConEx on a tree or a :class:`Segmentation`."""
    seg = source if isinstance(source, Segmentation) else segment(source)
    nodes = seg.nodes
    n = len(nodes)
    empty = ContentResult([], set(), [], [], False, {}, {})
    if not n:
        return empty

    unrendered = [False] * n
    for node in nodes:
        if node.tag in UNRENDERED_TAGS or (node.parent >= 0 and unrendered[node.parent]):
            unrendered[node.index] = True

    # -- per-node aggregates (one bottom-up pass) --------------------------
    words = [0] * n                # words in the subtree (all text, for Algorithm 6)
    links = [0] * n                # <a> elements in subtree(n)
    first_run = [-1] * n           # range of word-bearing text nodes in the subtree
    last_run = [-1] * n
    word_ratio = [0.0] * n
    text_depth = 0
    for k, run in enumerate(seg.runs):
        if not run.words or unrendered[run.node]:
            continue
        owner = run.node
        words[owner] += run.words
        if first_run[owner] < 0:
            first_run[owner] = k
        last_run[owner] = k
        leaf_depth = nodes[owner].depth + 1     # the text node is one below its element
        text_depth = max(text_depth, leaf_depth)
        if run.in_link:
            continue
        # wordRatio(n) = sum over text leaves k of words(k) / distance(k, n)
        a = owner
        while a >= 0:
            word_ratio[a] += run.words / (leaf_depth - nodes[a].depth)
            a = nodes[a].parent
    for node in reversed(nodes):
        i, p = node.index, node.parent
        links[i] += node.tag == "a"
        if p >= 0:
            words[p] += words[i]
            links[p] += links[i]
            if first_run[i] >= 0:
                if first_run[p] < 0 or first_run[i] < first_run[p]:
                    first_run[p] = first_run[i]
                last_run[p] = max(last_run[p], last_run[i])
    max_depth = max(text_depth, max(node.depth for node in nodes))

    # -- wide-page rule (Sect. 6.2.2 iii) --------------------------------
    counted_depth = [0] * n        # depth counting only elements with rated tags
    deepest = 0
    for node in nodes[1:]:
        d = counted_depth[node.parent] + (node.tag not in EXCLUDED_TAGS)
        counted_depth[node.index] = d
        deepest = max(deepest, d)
    body_children = sum(1 for ch in nodes[0].children if nodes[ch].tag not in EXCLUDED_TAGS)
    if nodes[0].tag == "body" and body_children and body_children >= deepest:
        return ContentResult([0], set(range(n)), [], [], True, {}, {})

    # -- Definition 6.2.1 on the rated nodes -----------------------------
    rated = [node.index for node in nodes[1:]
             if node.tag not in EXCLUDED_TAGS and not unrendered[node.index]
             and (node.children or node.text_nodes)]
    if not rated:
        return empty
    feats: dict[int, tuple[float, float, float, float]] = {}
    for i in rated:
        node = nodes[i]
        d = node.depth
        feats[i] = (
            word_ratio[i],
            1.0 if links[i] == 0 else 1.0 / links[i],
            1.0 if len(node.children) + node.text_nodes > 2 else 0.0,
            float(d) if d <= max_depth / 2 else float(max_depth - d),
        )
    # Eq. 6.1: z-scores; a constant feature carries no information (0)
    columns = list(zip(*feats.values()))
    stats = [_std(list(col)) for col in columns]
    z = {i: tuple((v - m) / s if s > 0 else 0.0 for v, (m, s) in zip(f, stats)) for i, f in feats.items()}
    # Algorithm 3: centroid; Algorithm 4: the c nodes farthest from it (ties: document order)
    centroid = [sum(col) / len(rated) for col in zip(*z.values())]
    dist = {i: math.sqrt(sum((a - b) ** 2 for a, b in zip(z[i], centroid))) for i in rated}
    c_set = sorted(sorted(rated, key=lambda i: (-dist[i], i))[:c])

    # Algorithm 5: drop a node whose c-SET ancestor holds the same text nodes
    def same_text(a: int, b: int) -> bool:
        return first_run[a] == first_run[b] and last_run[a] == last_run[b]

    reduced = [m for m in c_set
               if not any(o != m and nodes[o].contains(m) and same_text(o, m) for o in c_set)]

    # Algorithm 6: highest words/tags ratio (ties all selected) plus its c-SET siblings
    def text_pond(i: int) -> float:
        return words[i] / (nodes[i].end - i + 1)

    best = max(text_pond(i) for i in reduced)
    top = [i for i in reduced if text_pond(i) == best]
    selected = set(top)
    for t in top:
        parent = nodes[t].parent
        selected.update(i for i in reduced if i != t and nodes[i].parent == parent)
    roots = sorted(selected)

    content: set[int] = set()
    for r in roots:
        content.update(range(r, nodes[r].end + 1))
    content = _post_process(seg, content, words, max_words)
    return ContentResult(roots, content, c_set, reduced, False, feats, dist)


def _post_process(seg: Segmentation, content: set[int], words: list[int], max_words: int) -> set[int]:
    """Algorithm 7: remove groups of sibling elements that each hold one short link."""
    nodes = seg.nodes

    def remove(i: int) -> None:
        content.difference_update(range(i, nodes[i].end + 1))

    for i in sorted(content):
        node = nodes[i]
        if i not in content or node.tag != "a" or node.parent < 0:
            continue
        parent = nodes[node.parent]
        if words[i] >= max_words or len(parent.children) != 1:
            continue
        found = False
        if parent.parent >= 0:
            for s in nodes[parent.parent].children:
                if s == parent.index or s not in content:
                    continue
                sib = nodes[s]
                if len(sib.children) == 1 and sib.tag == parent.tag and nodes[sib.children[0]].tag == "a":
                    found = True
                    remove(s)
        if found:
            remove(parent.index)
    return content


def _positive_int(name: str, value: Any) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise OptionError(f"{name} must be a positive integer, not {value!r}") from None
    if isinstance(value, bool) or v < 1 or (isinstance(value, float) and value != v):
        raise OptionError(f"{name} must be a positive integer, not {value!r}")
    return v


@register("conex")
class ConexExtractor(Extractor):
    description = "page-level ConEx: DOM nodes far from the centroid in R^4 (Alarte's thesis, Ch. 6)"

    def __init__(self, c: Any = C_SET_SIZE, max_words: Any = MAX_WORDS, **options: Any) -> None:
        if options:
            raise OptionError(f"unknown conex option(s): {', '.join(sorted(options))}; known: c, max_words")
        self.c = _positive_int("c", c)
        self.max_words = _positive_int("max_words", max_words)

    def extract(self, page: Page) -> list[Paragraph]:
        if page.tree is None:
            return []
        seg = cached_segmentation(page)
        result = main_content(seg, self.c, self.max_words)
        owner = [-1] * len(seg.nodes)
        for r in result.roots:
            for i in range(r, seg.nodes[r].end + 1):
                owner[i] = r

        def label(run: Any) -> bool:
            return run.node in result.content

        out = []
        for piece in pieces(seg, "block", label):
            root = owner[piece.runs[0].node]
            feats: dict[str, Any] = {
                "words": sum(r.words for r in piece.runs),
                "in_main_content": bool(piece.label),
            }
            if root >= 0:
                feats["content_root"] = seg.nodes[root].xpath
            if result.wide_page:
                feats["wide_page"] = True
            out.append(make_paragraph(seg, piece, bool(piece.label), feats))
        return out
