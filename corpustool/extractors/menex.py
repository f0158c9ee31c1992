"""MenEx, page-level menu detection (seed 002, Ch. 5).

1. Rating (Sect. 5.2.1, Definition 5.2.1): every element with children gets
   a weight, the weighted sum of six features with the weights of Table 5.1's
   selected row: node amplitude 0.30, link ratio 0.05, text ratio 0.10,
   UL ratio 0.15, representative tag 0.15, node position 0.25.
2. Candidates (Sect. 5.2.2): nodes weighing more than the menu threshold
   (0.85) times the page's largest weight.
3. Root nodes (Algorithm 1): from each candidate, climb while more than half
   of the parent's children weigh more than the root threshold (0.90) times the
   candidate's weight; the last such ancestor with more than one child is the
   menu root.
4. Menu node (Algorithm 2): the root whose heavy nodes (weight above the menu
   threshold times the largest weight) have the highest average weight.

Interpretations (the thesis runs in a browser on the live DOM):

* childNodes / descendants count element nodes and non-blank text nodes
  (browsers also count whitespace-only text nodes, which depend on source
  formatting, not on the page's structure).
* characters(n) counts text outside links (Sect. 5.2.1: "the text of the
  hyperlinks is not considered"); text ratio may be negative for text-heavy
  nodes, as the formula allows.
* Link ratio is (|hyperlinks(n)| + |descendants(n)|) / (2 |descendants(n)|)
  for nodes with at least two links, reading the formula's "/2 * d" as
  "/ (2 d)" (otherwise it is not a ratio).
* Node position uses depth-first order over elements: the DOM proxy for
  "menus sit at the top left" that needs no rendering.
* Algorithm 2's pseudo-code averages heavy *children*, but a menu's children
  (list items) never reach the threshold, which leaves the average undefined;
  the prose says "descendants", so heavy nodes are taken from subtree(n). The
  candidate a root was climbed from is in it, so the average is defined.
* A menu holds at least two hyperlinks (Definition 4.3.1); candidates with
  fewer are not menus.

:func:`detect_menus` returns the main menu first (Algorithm 2's choice), then
the other detected roots, none nested in another: all of them are evidence of
boilerplate for other extractors.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..document import Paragraph
from ..errors import OptionError
from .base import Extractor, Page, register
from .segment import Segmentation, cached_segmentation, make_paragraph, normalize, pieces, segment

WEIGHTS = {
    "amplitude": 0.30,
    "link_ratio": 0.05,
    "text_ratio": 0.10,
    "ul_ratio": 0.15,
    "representative_tag": 0.15,
    "position": 0.25,
}
MENU_THRESHOLD = 0.85
ROOT_THRESHOLD = 0.90
MENU_WORDS = frozenset({"menu", "nav"})


@dataclass
class Menu:
    """One detected menu root."""

    node: int
    element: Any
    xpath: str
    weight: float                  # the root's own weight
    score: float                   # Algorithm 2: average weight of heavy nodes in the subtree
    features: dict[str, float]
    links: int
    text: str
    main: bool = False
    candidates: list[int] = field(default_factory=list)   # candidate nodes climbed from


@dataclass
class Rating:
    weights: list[float]
    features: list[dict[str, float] | None]
    links: list[int]               # hyperlinks in descendants(n)


def _is_representative(node_el: Any, tag: str) -> bool:
    if tag == "nav":
        return True
    get = getattr(node_el, "get", None)
    if get is None:
        return False
    ident = (get("id") or "").strip().lower()
    if ident in MENU_WORDS:
        return True
    classes = (get("class") or "").lower().split()
    return any(c in MENU_WORDS for c in classes)


def rate_nodes(seg: Segmentation) -> Rating:
    """Definition 5.2.1 for every node with children; leaves weigh 0."""
    nodes = seg.nodes
    n = len(nodes)
    sub_text_nodes = [node.text_nodes for node in nodes]
    links = [0] * n                 # <a> elements strictly below
    chars = [0] * n                 # characters outside links in the subtree
    for run in seg.runs:
        if run.words and not run.in_link:
            chars[run.node] += len(normalize(run.text))
    for node in reversed(nodes):    # children come after parents: one bottom-up pass
        p = node.parent
        if p >= 0:
            sub_text_nodes[p] += sub_text_nodes[node.index]
            links[p] += links[node.index] + (node.tag == "a")
            chars[p] += chars[node.index]
    total_chars = chars[0] if n else 0
    sqrt_total = math.sqrt(total_chars)
    weights = [0.0] * n
    feats: list[dict[str, float] | None] = [None] * n
    for node in nodes:
        i = node.index
        child_nodes = len(node.children) + node.text_nodes
        if child_nodes == 0:
            continue                # a leaf: not rated
        descendants = (node.end - i) + sub_text_nodes[i]
        h = links[i]
        f = {
            "amplitude": 1.0 - 1.0 / child_nodes,
            "link_ratio": (h + descendants) / (2.0 * descendants) if h >= 2 else 0.0,
            "text_ratio": 1.0 - chars[i] / sqrt_total if sqrt_total else 1.0,
            "ul_ratio": 1.0 if node.tag == "ul" else 0.0,
            "representative_tag": 1.0 if _is_representative(node.element, node.tag) else 0.0,
            "position": 1.0 - i / n,
        }
        feats[i] = f
        weights[i] = sum(WEIGHTS[k] * v for k, v in f.items())
    return Rating(weights, feats, links)


def select_root(seg: Segmentation, weights: list[float], candidate: int, root_threshold: float) -> int:
    """Algorithm 1: climb from a candidate to the node holding the whole menu."""
    nodes = seg.nodes
    menu = current = candidate
    base = weights[candidate]
    while nodes[current].parent >= 0:
        parent = nodes[nodes[current].parent]
        kids = parent.children
        heavy = sum(1 for c in kids if weights[c] > root_threshold * base)
        if 2 * heavy > len(kids):
            current = parent.index
            if len(kids) > 1:
                menu = parent.index
        else:
            break
    return menu


def analyse_menus(source: Any, root_threshold: float = ROOT_THRESHOLD,
                  menu_threshold: float = MENU_THRESHOLD) -> list[Menu]:
    """All detected menu roots, the main menu (Algorithm 2) first. ``source``: tree or Segmentation."""
    seg = source if isinstance(source, Segmentation) else segment(source)
    if not seg.nodes:
        return []
    rating = rate_nodes(seg)
    weights = rating.weights
    top = max(weights)
    if top <= 0:
        return []
    cut = menu_threshold * top
    candidates = [i for i, w in enumerate(weights) if w > cut and rating.links[i] >= 2]
    if not candidates:                     # menu_threshold 1.0: only the heaviest node
        best = weights.index(top)
        candidates = [best] if rating.links[best] >= 2 else []
    roots: dict[int, list[int]] = {}
    for c in candidates:
        roots.setdefault(select_root(seg, weights, c, root_threshold), []).append(c)
    nodes = seg.nodes
    menus = []
    for r, cands in roots.items():
        node = nodes[r]
        climbed = set(cands)
        heavy = [weights[i] for i in range(node.index, node.end + 1) if weights[i] > cut or i in climbed]
        score = sum(heavy) / len(heavy)     # never empty: the candidates are heavy and inside
        text = normalize(" ".join(run.text for run in seg.runs if node.contains(run.node)))
        feats = rating.features[r] or {}
        menus.append(Menu(r, node.element, node.xpath, round(weights[r], 6), round(score, 6),
                          {k: round(v, 4) for k, v in feats.items()}, rating.links[r], text,
                          candidates=sorted(cands)))
    # Algorithm 2: the best average is the main menu; ties keep document order
    menus.sort(key=lambda m: (-m.score, m.node))
    kept: list[Menu] = []
    for m in menus:                        # drop roots nested in an already kept one
        if not any(nodes[k.node].contains(m.node) or nodes[m.node].contains(k.node) for k in kept):
            kept.append(m)
    if kept:
        kept[0].main = True
    return kept


def detect_menus(tree: Any, root_threshold: float = ROOT_THRESHOLD,
                 menu_threshold: float = MENU_THRESHOLD) -> list[Any]:
    """The lxml elements of the detected menus, main menu first (evidence for other extractors)."""
    return [m.element for m in analyse_menus(tree, root_threshold, menu_threshold)]


def _threshold(name: str, value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"{name} must be a number in [0, 1], not {value!r}") from None
    if isinstance(value, bool) or not 0.0 <= v <= 1.0:
        raise OptionError(f"{name} must be a number in [0, 1], not {value!r}")
    return v


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "0", "true", "false", "yes", "no"):
        return value.lower() in ("1", "true", "yes")
    raise OptionError(f"{name} must be true or false, not {value!r}")


@register("menex")
class MenexExtractor(Extractor):
    description = "MenEx: paragraphs inside detected menus are boilerplate, the rest is kept (Alarte's thesis, Ch. 5)"

    def __init__(self, root_threshold: Any = ROOT_THRESHOLD, menu_threshold: Any = MENU_THRESHOLD,
                 main_only: Any = False, **options: Any) -> None:
        if options:
            raise OptionError(f"unknown menex option(s): {', '.join(sorted(options))}; "
                              "known: root_threshold, menu_threshold, main_only")
        self.root_threshold = _threshold("root_threshold", root_threshold)
        self.menu_threshold = _threshold("menu_threshold", menu_threshold)
        self.main_only = _flag("main_only", main_only)

    def extract(self, page: Page) -> list[Paragraph]:
        if page.tree is None:
            return []
        seg = cached_segmentation(page)
        menus = analyse_menus(seg, self.root_threshold, self.menu_threshold)
        if self.main_only:
            menus = menus[:1]
        owner = [None] * len(seg.nodes)
        for m in menus:                        # roots never nest (see analyse_menus)
            node = seg.nodes[m.node]
            for i in range(node.index, node.end + 1):
                owner[i] = m
        out = []
        def label(run: Any) -> int:
            menu = owner[run.node]
            return -1 if menu is None else menu.node

        for piece in pieces(seg, "block", label):
            menu = owner[piece.runs[0].node]
            in_menu = menu is not None
            out.append(make_paragraph(seg, piece, not in_menu, {
                "words": sum(r.words for r in piece.runs),
                "in_menu": in_menu,
                **({"menu_xpath": menu.xpath, "menu_score": menu.score, "main_menu": menu.main}
                   if in_menu else {}),
            }))
        return out
