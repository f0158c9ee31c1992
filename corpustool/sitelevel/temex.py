"""TemEx, site-level ConEx and HybEx: template and main content from a site's pages (seed 002, Ch. 7-11).

All three compare a *key page* with a few other pages of its site:

1. Candidates selection (Ch. 7). The key page's hyperlinks to pages of the
   same host are sorted by Algorithm 8: link relevance first (Definition
   4.2.5 over the hyperlink distance of Definition 4.2.1: the same directory,
   then subdirectories nearest first, then directories outside, nearest
   first), ties broken by DOM relevance (Definition 4.2.6: farthest, by the
   DOM distance of Definition 4.2.4, from the links of the group already
   taken). Algorithm 9 then "loads" the targets in that order and stops at the
   first n pages that are pairwise mutually linked (an n-complete subdigraph,
   n-CS); without one it keeps the largest clique it saw.
2. Equal top-down mapping (Ch. 8, Definition 4.2.7, Algorithm 10): the key
   page's DOM tree is mapped top-down onto each candidate's; a node maps only
   when its parent mapped and the weighted node equality relation (same tag
   name required; position, class names, attributes and child count weighted,
   Sect. 8.2.1) reaches the threshold t. Sibling nodes are paired greedily,
   best pair first, with the node-position value computed by one of the four
   options of Sect. 8.3.1.
3. The three methods on top of the mapping counts:

   * ``temex`` (Ch. 9): the template is the key page's nodes mapped in at
     least v candidate pages, counted page by page (the counter of Sect. 9.2
     and Algorithm 11, not Algorithm 10's joint mapping of every v-subset)
     (n = 3, v = 2, weights 0.1/0.1/0.5/0.3, t = 0.7, option 2: Table 8.5's
     first row).
   * ``site-conex`` (Ch. 10): nodes mapped nowhere are candidates
     (Algorithm 11); Algorithm 12 keeps their roots, Algorithm 13 picks the
     branch (the root's parent with the largest subtree), Algorithm 14 drops
     roots outside it, Algorithm 15 merges siblings into their parent; the
     subtrees of what remains are the main content (n = 4, weights
     0/0.1/0.2/0.7, t = 0.9, option 4: Table 10.2's first row).
   * ``hybex`` (Ch. 11): page-level ConEx (:mod:`corpustool.extractors.conex`)
     finds the key page's main content, which is removed from the key page's
     tree before TemEx maps it; the removed content is never template.

   The runtime fix of Sect. 9.3.1 / 10.3.1 groups the children of a node with
   more than ``childnodes`` children under temporary nodes of at most
   ``group`` children each (TemEx: 100/200, site-level ConEx: 100/300).

Deviations, all because we work on a crawl rather than in a browser:

* No rendering: the DOM is lxml's parse of the markup; scripts, styles and
  the other elements :mod:`corpustool.extractors.segment` drops are left out;
  text nodes are leaves, whitespace-only ones are not nodes.
* "Loading" a page means finding it among the same site's pages present in
  the input; links to pages that are not there are ignored (before sorting,
  as they can never join the clique). Hrefs are resolved against the page's
  URL; fragments are dropped, ``www.`` and the scheme are ignored.
* The paper's equality relation looks at structure only, so two articles in
  the same template map paragraph onto paragraph and TemEx would call the
  article text template. For a corpus that is the wrong answer, so by default
  (``compare_text=true``) two text nodes are equal only when their
  whitespace-normalised texts are equal (a gate like the tag name); for
  site-level ConEx an element then counts as found elsewhere only when some
  of its text is found too. ``compare_text=false`` restores the structural
  relation of the thesis.
* As evidence for another extractor (``--template-evidence site-conex``)
  Algorithm 13 weighs a branch by the characters of its text instead of its
  nodes: by nodes the list of a few short comments under a short article
  (each comment an item with a name, a date, a text and a reply link)
  outweighs the article's paragraphs, and the article would be marked
  template although no other page has its text.
* When the clique is smaller than v, v is lowered to the clique's size (the
  thesis uses v = 1 for a 1-CS, Table 8.4).
* Table 8.2 of the thesis is not consistent with Tables 8.1 and 8.3; the
  position value used here reproduces Tables 8.1 and 8.3 and is symmetric.

Decisions are made per text node and carried to paragraphs by aligning the
paragraph's text (whitespace removed) with the page's text stream: a
paragraph is removed when most of its characters lie in text nodes the method
rejects. This works the same for this module's own paragraphs
(``--extractor temex``) and for another extractor's (``--template-evidence
temex`` on jusText paragraphs).

Memory bound: the stream stage buffers each site's documents (with their
markup) and decides them when the site has ``site_pages`` buffered pages,
when more than ``buffered_pages`` documents are buffered in all (the site
whose first buffered page is oldest is decided first) and at the end of the
stream. So at most ``buffered_pages`` documents are held, plus the compact
trees of one site's batch while it is decided; the markup is released once a
document is decided. Documents of one site leave the stage together, so the
output order differs from the input order (deterministically).
"""
from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator
from urllib.parse import urljoin, urlsplit

from ..document import BAD, GOOD, Document, Paragraph
from ..errors import OptionError
from ..extractors.base import Extractor, Page, parse_html, register
from ..extractors.conex import C_SET_SIZE, MAX_WORDS, main_content
from ..extractors.segment import SKIP_TAGS, Segmentation, cached_segmentation, make_paragraph, pieces, segment
from ..stage import StreamStage

TEXT = "#text"
GROUP = "#group"          # temporary node of the runtime fix (Sect. 9.3.1)
METHODS = ("temex", "site-conex", "hybex")


# -- parameters ---------------------------------------------------------------

@dataclass
class SiteDomParams:
    """Parameters of the three methods; the defaults are TemEx's (Sect. 8.3.1)."""

    method: str = "temex"
    cs_size: int = 3                  # n of the n-CS
    votes: int = 2                    # v: template = mapped in at least v pages
    w_position: float = 0.1
    w_classes: float = 0.1
    w_attributes: float = 0.5
    w_children: float = 0.3
    threshold: float = 0.7            # t of the equality relation
    position_option: int = 2          # Sect. 8.3.1, options 1-4
    runtime_fix: bool = True
    group: int = 100
    childnodes: int = 200
    compare_text: bool = True
    conex_c: int = C_SET_SIZE         # page-level ConEx inside HybEx (Sect. 11.3.1)
    conex_max_words: int = MAX_WORDS
    site_pages: int = 100             # decide a site's batch at this many pages
    buffered_pages: int = 1000        # ... or when this many documents are buffered in all
    clique_budget: int = 20_000       # search steps per clique query (Algorithm 9 is exponential)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise OptionError(f"unknown site-level method {self.method!r}; choose from {', '.join(METHODS)}")
        for name in ("cs_size", "votes", "group", "childnodes", "conex_c", "conex_max_words",
                     "site_pages", "buffered_pages", "clique_budget"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise OptionError(f"{name} must be a positive integer, not {value!r}")
        if self.site_pages < 2:
            raise OptionError("site_pages must be at least 2 (a page needs others to compare with)")
        weights = (self.w_position, self.w_classes, self.w_attributes, self.w_children)
        for name, value in zip(("w_position", "w_classes", "w_attributes", "w_children"), weights):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise OptionError(f"{name} must be a number in [0, 1], not {value!r}")
        if abs(sum(weights) - 1.0) > 1e-6:
            raise OptionError(f"the four weights must sum to 1 (A + B + C + D = 1, Sect. 8.3.1), not {sum(weights):g}")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, (int, float)) \
                or not 0.0 < self.threshold <= 1.0:
            raise OptionError(f"threshold must be a number in (0, 1], not {self.threshold!r}")
        if self.position_option not in (1, 2, 3, 4) or isinstance(self.position_option, bool):
            raise OptionError(f"position_option must be 1, 2, 3 or 4, not {self.position_option!r}")
        for name in ("runtime_fix", "compare_text"):
            if not isinstance(getattr(self, name), bool):
                raise OptionError(f"{name} must be true or false, not {getattr(self, name)!r}")


# Table 8.5 (TemEx, also HybEx, Sect. 11.3.1) and Table 10.2 (site-level ConEx);
# Group/Childnodes from Tables 9.3 and 10.8.
DEFAULTS: dict[str, dict[str, Any]] = {
    "temex": dict(cs_size=3, votes=2, w_position=0.1, w_classes=0.1, w_attributes=0.5, w_children=0.3,
                  threshold=0.7, position_option=2, group=100, childnodes=200),
    "site-conex": dict(cs_size=4, votes=1, w_position=0.0, w_classes=0.1, w_attributes=0.2, w_children=0.7,
                       threshold=0.9, position_option=4, group=100, childnodes=300),
    "hybex": dict(cs_size=3, votes=2, w_position=0.1, w_classes=0.1, w_attributes=0.5, w_children=0.3,
                  threshold=0.7, position_option=2, group=100, childnodes=200),
}


def make_params(method: str, **options: Any) -> SiteDomParams:
    known = set(SiteDomParams.__dataclass_fields__) - {"method"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise OptionError(f"unknown {method} option(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return SiteDomParams(method=method, **{**DEFAULTS[method], **options})


# -- the DOM tree the mapping works on ----------------------------------------

class DomTree:
    """A compact copy of a page's body: elements, text leaves and temporary group nodes.

    Element ``i`` of the tree is node ``i`` of the page's :class:`Segmentation`;
    text leaves follow, then group nodes. ``leaf[i]`` is the document-order
    number of text leaf ``i`` (-1 for other nodes); ``leaf_texts`` lists the
    leaves' texts in document order.
    """

    __slots__ = ("tag", "classes", "attrs", "text", "children", "parent", "leaf", "leaf_texts",
                 "n_elements", "removed")

    def __init__(self) -> None:
        self.tag: list[str] = []
        self.classes: list[frozenset] = []
        self.attrs: list[frozenset] = []
        self.text: list[str | None] = []
        self.children: list[list[int]] = []
        self.parent: list[int] = []
        self.leaf: list[int] = []
        self.leaf_texts: list[str] = []
        self.n_elements = 0
        self.removed: list[bool] = []

    def __len__(self) -> int:
        return len(self.tag)

    def _add(self, tag: str, classes: frozenset, attrs: frozenset, text: str | None, parent: int) -> int:
        self.tag.append(tag)
        self.classes.append(classes)
        self.attrs.append(attrs)
        self.text.append(text)
        self.children.append([])
        self.parent.append(parent)
        self.leaf.append(-1)
        self.removed.append(False)
        return len(self.tag) - 1

    def preorder(self) -> list[int]:
        """Nodes of the (possibly reduced, grouped) tree in depth-first order."""
        if not self.tag:
            return []
        out = []
        stack = [0]
        while stack:
            i = stack.pop()
            out.append(i)
            stack.extend(reversed(self.children[i]))
        return out

    def leaves_below(self, i: int) -> list[int]:
        out = []
        stack = [i]
        while stack:
            j = stack.pop()
            if self.leaf[j] >= 0:
                out.append(j)
            stack.extend(self.children[j])
        return out


_EMPTY: frozenset = frozenset()


def build_tree(seg: Segmentation, remove: Iterable[int] = (), group: int = 0, childnodes: int = 0) -> DomTree:
    """The page's tree; ``remove``: segmentation nodes whose subtrees are cut out (HybEx).

    ``group``/``childnodes`` > 0 apply the runtime fix of Sect. 9.3.1: a node
    with more than ``childnodes`` children gets temporary nodes between it
    and its children, ``group`` children each.
    """
    t = DomTree()
    nodes = seg.nodes
    if not nodes:
        return t
    for node in nodes:
        el = node.element
        attrib = el.attrib if hasattr(el, "attrib") else {}
        items = frozenset((str(k), str(v)) for k, v in attrib.items()) if attrib else _EMPTY
        cls = frozenset((attrib.get("class") or "").split()) if attrib else _EMPTY
        t._add(node.tag, cls, items, None, node.parent)
    t.n_elements = len(nodes)
    # children in document order, text leaves interleaved (the walk of segment.segment)
    for node in nodes:
        el = node.element
        kids = t.children[node.index]
        if el.text and el.text.split():
            kids.append(t._add(TEXT, _EMPTY, _EMPTY, " ".join(el.text.split()), node.index))
        element_kids = iter(node.children)
        for child in el:
            tag = child.tag
            if isinstance(tag, str) and tag.lower() not in SKIP_TAGS:
                kids.append(next(element_kids))
            tail = child.tail
            if tail and tail.split():
                kids.append(t._add(TEXT, _EMPTY, _EMPTY, " ".join(tail.split()), node.index))
    for i in t.preorder():          # document order of the text leaves
        if t.tag[i] == TEXT:
            t.leaf[i] = len(t.leaf_texts)
            t.leaf_texts.append(t.text[i])
    cut = sorted(set(remove))
    if cut:
        for r in cut:
            if not t.removed[r]:
                for i in range(r, nodes[r].end + 1):
                    t.removed[i] = True
        for i in range(t.n_elements, len(t)):
            if t.tag[i] == TEXT and t.removed[t.parent[i]]:
                t.removed[i] = True
        for i in range(t.n_elements):
            t.children[i] = [c for c in t.children[i] if not t.removed[c]]
    if group > 0 and childnodes > 0:
        for i in range(len(t)):
            kids = t.children[i]
            if len(kids) > childnodes and not t.removed[i]:
                grouped = []
                for start in range(0, len(kids), group):
                    g = t._add(GROUP, _EMPTY, _EMPTY, None, i)
                    t.children[g] = kids[start:start + group]
                    for c in t.children[g]:
                        t.parent[c] = g
                    grouped.append(g)
                t.children[i] = grouped
    return t


# -- equal top-down mapping (Ch. 8) -------------------------------------------

def _share(a: frozenset, b: frozenset) -> float:
    """Part of the class names (attributes) both nodes have: |a & b| / max(|a|, |b|), 1 when both have none."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / max(len(a), len(b))


def position_value(i: int, j: int, a: int, b: int) -> float:
    """Node position of child i of a node with a children against child j of one with b (Tables 8.1, 8.3).

    The index on the side with more children is scaled to the other side's
    count; the value drops by 1/min(a, b) per whole position of difference.
    """
    if a <= 0 or b <= 0:
        return 0.0
    big, small = (a, b) if a >= b else (b, a)
    d = abs(i * b - j * a) // big
    return max(0.0, 1.0 - d / small)


class Mapper:
    """The ETDM of Algorithm 10 / Algorithm 11 between a key tree and other trees."""

    def __init__(self, p: SiteDomParams) -> None:
        self.p = p
        self.comparisons = 0      # pair evaluations: what the runtime fix reduces

    def static_score(self, kt: DomTree, x: int, ot: DomTree, y: int) -> float:
        """The equality relation without the node position (which depends on the matching so far)."""
        p = self.p
        cx, cy = len(kt.children[x]), len(ot.children[y])
        children = 1.0 if cx == cy else min(cx, cy) / max(cx, cy)
        return (p.w_classes * _share(kt.classes[x], ot.classes[y])
                + p.w_attributes * _share(kt.attrs[x], ot.attrs[y])
                + p.w_children * children)

    def etdm(self, kt: DomTree, ot: DomTree) -> list[int]:
        """Key-tree nodes mapped onto ``ot`` (the root first)."""
        if not len(kt) or not len(ot) or kt.tag[0] != ot.tag[0]:
            return []
        p = self.p
        if self.static_score(kt, 0, ot, 0) + p.w_position < p.threshold:
            return []
        mapped = []
        stack = [(0, 0)]
        while stack:
            x, y = stack.pop()
            mapped.append(x)
            kids_k, kids_o = kt.children[x], ot.children[y]
            if kids_k and kids_o:
                stack.extend(self.match_children(kt, kids_k, ot, kids_o))
        return mapped

    def match_children(self, kt: DomTree, K: list[int], ot: DomTree, O: list[int]) -> list[tuple[int, int]]:
        """Pair the children greedily, best equality value first (Sect. 8.3.1's options for the position)."""
        p = self.p
        a, b = len(K), len(O)
        A, t, option = p.w_position, p.threshold, p.position_option
        compare_text = p.compare_text
        by_tag: dict[Any, list[int]] = {}
        for j, y in enumerate(O):
            tag = ot.tag[y]
            key = (tag, ot.text[y]) if compare_text and tag == TEXT else tag
            by_tag.setdefault(key, []).append(j)
        pairs = []
        for i, x in enumerate(K):
            tag = kt.tag[x]
            key = (tag, kt.text[x]) if compare_text and tag == TEXT else tag
            for j in by_tag.get(key, ()):
                self.comparisons += 1
                s = self.static_score(kt, x, ot, O[j])
                if s + A >= t - 1e-9:      # else unreachable even at the same position
                    pairs.append((-s, abs(i * b - j * a), i, j, s))
        if not pairs:
            return []
        pairs.sort()
        if A == 0.0 or option == 4:
            # positions never change: one pass in order of the initial value
            if A:
                pairs = sorted(pairs, key=lambda q: (-(q[4] + A * position_value(q[2], q[3], a, b)), q[1], q[2], q[3]))
            out, used_k, used_o = [], set(), set()
            for _, _, i, j, s in pairs:
                if i in used_k or j in used_o:
                    continue
                if s + A * position_value(i, j, a, b) >= t - 1e-9:
                    used_k.add(i)
                    used_o.add(j)
                    out.append((K[i], O[j]))
            return out
        used_k: set[int] = set()
        used_o: set[int] = set()
        anchors_k: list[int] = []     # non-crossing matched pairs, increasing in both trees
        anchors_o: list[int] = []
        matched_k: list[int] = []     # all matched indices, sorted (option 3)
        matched_o: list[int] = []
        out = []
        start = 0
        while True:
            while start < len(pairs) and (pairs[start][2] in used_k or pairs[start][3] in used_o):
                start += 1
            best, best_score = None, -1.0
            for q in range(start, len(pairs)):
                _, _, i, j, s = pairs[q]
                if s + A < best_score or s + A < t - 1e-9:
                    break                 # sorted by s: nothing later can do better
                if i in used_k or j in used_o:
                    continue
                self.comparisons += 1
                if option == 3:           # among the siblings not matched yet
                    ri, rj = i - bisect.bisect(matched_k, i), j - bisect.bisect(matched_o, j)
                    pos = position_value(ri, rj, a - len(matched_k), b - len(matched_o))
                else:                     # options 1 and 2: within the segment between matched pairs
                    r1, r2 = bisect.bisect(anchors_k, i), bisect.bisect(anchors_o, j)
                    if r1 != r2:
                        if option == 1:
                            continue      # a crossing pair is not allowed
                        pos = 0.0         # option 2: allowed, position value 0
                    else:
                        lo_k = anchors_k[r1 - 1] if r1 else -1
                        lo_o = anchors_o[r1 - 1] if r1 else -1
                        hi_k = anchors_k[r1] if r1 < len(anchors_k) else a
                        hi_o = anchors_o[r1] if r1 < len(anchors_o) else b
                        pos = position_value(i - lo_k - 1, j - lo_o - 1, hi_k - lo_k - 1, hi_o - lo_o - 1)
                score = s + A * pos
                if score >= t - 1e-9 and score > best_score:
                    best, best_score = (i, j), score
                    if pos == 1.0:
                        break             # the best this pair's group can reach
            if best is None:
                return out
            i, j = best
            used_k.add(i)
            used_o.add(j)
            bisect.insort(matched_k, i)
            bisect.insort(matched_o, j)
            r1, r2 = bisect.bisect(anchors_k, i), bisect.bisect(anchors_o, j)
            if r1 == r2:
                anchors_k.insert(r1, i)
                anchors_o.insert(r1, j)
            out.append((K[i], O[j]))


def occurrences(mapper: Mapper, key: DomTree, others: list[DomTree]) -> list[int]:
    """Algorithm 11: how many of ``others`` each key node is mapped onto."""
    counts = [0] * len(key)
    for other in others:
        for x in mapper.etdm(key, other):
            counts[x] += 1
    return counts


# -- candidates selection (Ch. 7) ---------------------------------------------

def normalize_url(url: str | None, base: str | None = None) -> tuple[str, str] | None:
    """(site, page key) of an absolute or relative URL; None when it is not a web page address."""
    if not url:
        return None
    try:
        if base:
            url = urljoin(base, url.strip())
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return None
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        return None
    if host.startswith("www."):
        host = host[4:]
    if port and port not in (80, 443):
        host = f"{host}:{port}"
    key = host + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return host, key


def directory(key: str) -> tuple[str, ...]:
    """The directories of a page key; the resource name is ignored (Sect. 7.2.2)."""
    path = key.split("?", 1)[0]
    segments = path.split("/")[1:-1]      # drop the host and the resource name
    return tuple(s for s in segments if s)


def h_distance(h: tuple[str, ...], h2: tuple[str, ...]) -> int:
    """Definition 4.2.1: + levels down into h2, - levels up out of h (0: same directory)."""
    n = 0
    for a, b in zip(h, h2):
        if a != b:
            break
        n += 1
    if n == len(h):
        return len(h2) - n
    return -(len(h) - n)


def d_distance(p1: tuple[int, ...], p2: tuple[int, ...]) -> int:
    """Definition 4.2.4: edges between two nodes given their root paths."""
    n = 0
    for a, b in zip(p1, p2):
        if a != b:
            break
        n += 1
    return len(p1) + len(p2) - 2 * n


def _relevance_group(hd: int) -> tuple[int, int]:
    """Definition 4.2.5: 0 first, then positive ascending, then negative from -1 down."""
    return (0 if hd == 0 else 1 if hd > 0 else 2, abs(hd))


def sort_links(links: list[tuple[str, tuple[int, ...]]], key_dir: tuple[str, ...]) -> list[str]:
    """Algorithm 8: link relevance, ties by DOM relevance (farthest from the group's sorted links first).

    The thesis takes a group's first link at random; here it is the first in
    document order, and DOM-distance ties also go to the earlier link.
    """
    groups: dict[int, list[tuple[str, tuple[int, ...]]]] = {}
    for url, path in links:
        groups.setdefault(h_distance(key_dir, directory(url)), []).append((url, path))
    out: list[str] = []
    for hd in sorted(groups, key=_relevance_group):
        rest = groups[hd]
        first = rest.pop(0)
        out.append(first[0])
        nearest = [d_distance(first[1], path) for _, path in rest]
        while rest:
            best = max(range(len(rest)), key=lambda k: (nearest[k], -k))
            url, path = rest.pop(best)
            nearest.pop(best)
            out.append(url)
            for k, (_, other) in enumerate(rest):
                d = d_distance(path, other)
                if d < nearest[k]:
                    nearest[k] = d
    return out


def largest_clique(start: str, adj: dict[str, set[str]], order: dict[str, int], n: int,
                   budget: int) -> list[str]:
    """The largest set holding ``start`` whose members are pairwise mutually linked (size at most n)."""
    best = [start]
    steps = 0

    def extend(clique: list[str], cands: list[str]) -> bool:
        nonlocal best, steps
        if len(clique) > len(best):
            best = list(clique)
        if len(best) >= n or steps >= budget:
            return True
        for k, c in enumerate(cands):
            if len(clique) + len(cands) - k <= len(best):
                break
            steps += 1
            if extend(clique + [c], [d for d in cands[k + 1:] if d in adj[c]]):
                return True
        return False

    extend([start], sorted(adj[start], key=order.__getitem__))
    return best


@dataclass
class SitePage:
    """What the stage keeps of one buffered page while its site is decided."""

    doc: Document
    key: str
    tree: DomTree | None = None          # full tree (candidate role; key role of TemEx/site-ConEx)
    key_tree: DomTree | None = None      # HybEx: the key role's tree without the main content
    links: list[tuple[str, tuple[int, ...]]] | None = None   # same-site links, first occurrence of each URL
    link_set: frozenset = frozenset()


def page_links(seg: Segmentation, base: str, site: str, self_key: str) -> list[tuple[str, tuple[int, ...]]]:
    """Hyperlink nodes to other pages of the same site, with their DOM paths (getLinks of Algorithm 9)."""
    nodes = seg.nodes
    seen: set[str] = set()
    out = []
    for node in nodes:
        if node.tag != "a":
            continue
        href = node.element.get("href")
        norm = normalize_url(href, base) if href else None
        if norm is None or norm[0] != site or norm[1] == self_key or norm[1] in seen:
            continue
        seen.add(norm[1])
        path = []
        i = node.index
        while i >= 0:
            path.append(i)
            i = nodes[i].parent
        out.append((norm[1], tuple(reversed(path))))
    return out


def select_candidates(key: SitePage, pages: dict[str, SitePage], n: int, budget: int) -> list[SitePage]:
    """Algorithm 9 over the pages present in the input: the first n-CS found in Algorithm 8's order."""
    links = [(u, path) for u, path in key.links or () if u in pages]
    order_list = sort_links(links, directory(key.key))
    reachable = set(order_list)
    order = {u: k for k, u in enumerate(order_list)}
    adj: dict[str, set[str]] = {}
    processed: list[str] = []
    best: list[str] = []
    for link in order_list:
        page = pages[link]
        out = page.link_set & reachable
        adj[link] = set()
        for q in processed:
            if q in out and link in pages[q].link_set:
                adj[link].add(q)
                adj[q].add(link)
        processed.append(link)
        cs = largest_clique(link, adj, order, n, budget)
        if len(cs) > len(best):
            best = cs
        if len(best) >= n:
            break
    return [pages[u] for u in sorted(best, key=order.__getitem__)]


# -- the three methods on one key page -----------------------------------------

def template_leaves(mapper: Mapper, key_tree: DomTree, others: list[DomTree], votes: int) -> list[bool]:
    """TemEx (Ch. 9): per text leaf (document order), True when it is template."""
    out = [False] * len(key_tree.leaf_texts)
    if not others:
        return out
    v = min(votes, len(others))
    counts = occurrences(mapper, key_tree, others)
    for i, c in enumerate(counts):
        if c >= v and key_tree.leaf[i] >= 0 and not key_tree.removed[i]:
            out[key_tree.leaf[i]] = True
    return out


def content_leaves(mapper: Mapper, key_tree: DomTree, others: list[DomTree],
                   text_size: bool = False) -> tuple[list[bool], list[int]]:
    """Site-level ConEx (Ch. 10): per text leaf, True when it is main content; and the main content nodes.

    With ``text_size`` (evidence for another extractor) Algorithm 13 weighs a branch by
    the characters of its text, not by its nodes: by nodes a list of a few short
    comments (each an item with a name, a date, a text and a reply link) outweighs an
    article of a few paragraphs, and the article would be lost.
    """
    n_leaves = len(key_tree.leaf_texts)
    if not others or not len(key_tree):
        return [True] * n_leaves, [0] if len(key_tree) else []
    counts = occurrences(mapper, key_tree, others)
    order = key_tree.preorder()
    rank = {x: k for k, x in enumerate(order)}
    cand = [c == 0 for c in counts]
    if mapper.p.compare_text:
        # an element whose text is found on no other page has not been "found" there either
        unseen_text = [None] * len(key_tree)      # None: no text below
        for x in reversed(order):
            if key_tree.leaf[x] >= 0:
                unseen_text[x] = counts[x] == 0
            else:
                vals = [unseen_text[c] for c in key_tree.children[x] if unseen_text[c] is not None]
                unseen_text[x] = all(vals) if vals else None
        for x in order:
            if unseen_text[x]:
                cand[x] = True
    for x in order:                               # Theorem 10.2.4: candidates are closed downwards
        p = key_tree.parent[x]
        if x and p >= 0 and cand[p]:
            cand[x] = True
    # Algorithm 12: the roots of the candidate subtrees
    reduced = [x for x in order if cand[x] and (x == 0 or not cand[key_tree.parent[x]])]
    if not reduced:
        return [False] * n_leaves, []
    if len(reduced) > 1:
        if text_size:
            size = [len(key_tree.leaf_texts[key_tree.leaf[x]]) if key_tree.leaf[x] >= 0 else 0
                    for x in range(len(key_tree))]
        else:
            size = [1] * len(key_tree)
        for x in reversed(order):
            p = key_tree.parent[x]
            if x and p >= 0:
                size[p] += size[x]
        # Algorithm 13: the parent with the largest subtree (first in depth-first order on a tie)
        branch, count = -1, 0
        for x in reduced:
            par = key_tree.parent[x]
            if par >= 0 and size[par] > count:
                branch, count = par, size[par]
        # Algorithm 14: drop the roots outside the branch
        if branch >= 0:
            reduced = [x for x in reduced if _has_ancestor(key_tree, x, branch)]
        # Algorithm 15: siblings are replaced by their parent, recursively
        current = set(reduced)
        changed = True
        while changed and len(current) > 1:
            changed = False
            by_parent: dict[int, list[int]] = {}
            for x in current:
                by_parent.setdefault(key_tree.parent[x], []).append(x)
            for par, members in sorted(by_parent.items(), key=lambda kv: rank.get(kv[0], -1)):
                if par >= 0 and len(members) >= 2:
                    current.difference_update(members)
                    current.add(par)
                    changed = True
                    break
        reduced = sorted((x for x in current if not any(_has_ancestor(key_tree, x, y) for y in current if y != x)),
                         key=rank.__getitem__)
    out = [False] * n_leaves
    for r in reduced:
        for leaf in key_tree.leaves_below(r):
            out[key_tree.leaf[leaf]] = True
    return out, reduced


def _has_ancestor(tree: DomTree, x: int, anc: int) -> bool:
    p = tree.parent[x]
    while p >= 0:
        if p == anc:
            return True
        p = tree.parent[p]
    return False


# -- paragraphs ---------------------------------------------------------------

class LeafStream:
    """The page's text (whitespace removed) with, per text leaf, whether the method keeps it."""

    def __init__(self, leaf_texts: list[str], keep: list[bool]) -> None:
        parts = ["".join(t.split()) for t in leaf_texts]
        self.text = "".join(parts)
        self.starts = []
        pos = 0
        for part in parts:
            self.starts.append(pos)
            pos += len(part)
        self.lengths = [len(p) for p in parts]
        self.keep = keep
        self.cursor = 0

    def rejected_share(self, text: str) -> float | None:
        """Part of ``text`` lying in rejected leaves; None when the text is not found on the page."""
        needle = "".join(text.split())
        if not needle:
            return None
        at = self.text.find(needle, self.cursor)
        if at < 0:
            at = self.text.find(needle)
            if at < 0:
                return None
        end = at + len(needle)
        self.cursor = end
        bad = 0
        k = max(0, bisect.bisect_right(self.starts, at) - 1)
        while k < len(self.starts) and self.starts[k] < end:
            lo, hi = max(at, self.starts[k]), min(end, self.starts[k] + self.lengths[k])
            if hi > lo and not self.keep[k]:
                bad += hi - lo
            k += 1
        return bad / len(needle)


# -- the stream stage -----------------------------------------------------------

class SiteDomStage(StreamStage):
    """Buffers each site's pages, decides them with a site-level DOM method, marks the paragraphs."""

    name = "temex"

    def __init__(self, params: SiteDomParams | None = None, reason: str = "template",
                 evidence: bool = False) -> None:
        super().__init__()
        self.evidence = evidence   # as another extractor's evidence (same decisions here)
        self.p = params or make_params(self.name)
        self.reason = reason
        self.mapper = Mapper(self.p)
        self.buffers: OrderedDict[str, list[Document]] = OrderedDict()
        self.buffered = 0

    # stream handling
    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        stats = self.stats
        for doc in docs:
            stats.count_in(doc)
            if doc.drop_reason:
                self._dropped(doc, doc.drop_reason)
                continue
            norm = normalize_url(doc.url)
            if norm is None or not doc.html:
                stats.extra["undecided:no-url-or-markup"] += 1
                doc.html = None
                yield from self._emit(doc)
                continue
            buf = self.buffers.setdefault(norm[0], [])
            buf.append(doc)
            self.buffered += 1
            if len(buf) >= self.p.site_pages:
                yield from self._flush(norm[0])
            elif self.buffered > self.p.buffered_pages:
                yield from self._flush(next(iter(self.buffers)))
        while self.buffers:
            yield from self._flush(next(iter(self.buffers)))

    def _emit(self, doc: Document) -> Iterator[Document]:
        if not any(p.is_good for p in doc.paragraphs):
            doc.drop("boilerplate-only")
            self._dropped(doc, doc.drop_reason)
            return
        self.stats.count_out(doc)
        yield doc

    def _flush(self, site: str) -> Iterator[Document]:
        docs = self.buffers.pop(site)
        self.buffered -= len(docs)
        self.stats.extra["site_batches"] += 1
        pages = []
        for doc in docs:
            try:
                pages.append(self._load(doc, site))
            except Exception as exc:          # an odd page is left undecided, never stops a run
                self.stats.extra[f"undecided:error:{type(exc).__name__}"] += 1
                pages.append(SitePage(doc, ""))
        by_key: dict[str, SitePage] = {}
        for sp in pages:
            if sp.tree is not None:
                by_key.setdefault(sp.key, sp)
        for sp in pages:
            if sp.tree is not None:
                try:
                    self._decide(sp, by_key)
                except Exception as exc:      # one odd page never stops a run
                    self.stats.extra[f"undecided:error:{type(exc).__name__}"] += 1
            elif sp.key:
                self.stats.extra["undecided:unparsable"] += 1
        for sp in pages:
            sp.doc.html = None                # the markup was only kept for this stage
            yield from self._emit(sp.doc)

    def _load(self, doc: Document, site: str) -> SitePage:
        norm = normalize_url(doc.url)
        sp = SitePage(doc, norm[1] if norm else "")
        tree = parse_html(doc.html or "")
        if tree is None:
            return sp
        seg = segment(tree)
        if not seg.nodes:
            return sp
        p = self.p
        group, childnodes = (p.group, p.childnodes) if p.runtime_fix else (0, 0)
        sp.tree = build_tree(seg, (), group, childnodes)
        if p.method == "hybex":
            mc = main_content(seg, p.conex_c, p.conex_max_words)
            # cut the main content out where it starts: nodes whose parent is not in it
            roots = [i for i in sorted(mc.content) if seg.nodes[i].parent not in mc.content]
            sp.key_tree = build_tree(seg, roots, group, childnodes) if roots else sp.tree
            sp.doc.meta["hybex_main_content"] = [seg.nodes[r].xpath for r in roots[:20]]
        sp.links = page_links(seg, doc.url or "", site, sp.key)
        sp.link_set = frozenset(u for u, _ in sp.links)
        return sp

    def _decide(self, sp: SitePage, by_key: dict[str, SitePage]) -> None:
        p = self.p
        stats = self.stats
        cs = select_candidates(sp, by_key, p.cs_size, p.clique_budget)
        cs = [c for c in cs if c is not sp]
        stats.extra["pages_decided"] += 1
        stats.extra["candidate_pages"] += len(cs)
        if not cs:
            stats.extra["pages_without_candidates"] += 1
        others = [c.tree for c in cs]
        before = self.mapper.comparisons
        if p.method == "site-conex":
            keep, _ = content_leaves(self.mapper, sp.tree, others, text_size=self.evidence)
        else:
            key_tree = sp.key_tree if p.method == "hybex" else sp.tree
            template = template_leaves(self.mapper, key_tree, others, p.votes)
            keep = [not t for t in template]
        stats.extra["comparisons"] += self.mapper.comparisons - before
        stream = LeafStream(sp.tree.leaf_texts, keep)
        removed = 0
        feature = f"{self.name}_rejected"
        for par in sp.doc.paragraphs:
            share = stream.rejected_share(par.text)
            if share is None:
                stats.extra["paragraphs_unmatched"] += 1
                continue
            par.features[feature] = round(share, 3)
            if par.cls == GOOD and share > 0.5:
                par.cls, par.reason = BAD, self.reason
                removed += 1
        stats.extra["paragraphs_removed"] += removed


class TemexStage(SiteDomStage):
    name = "temex"


class SiteConexStage(SiteDomStage):
    name = "site-conex"


class HybexStage(SiteDomStage):
    name = "hybex"


# -- the extractors -------------------------------------------------------------

class _SiteDomExtractor(Extractor):
    """Page side: every jusText-style block, all kept; the stream stage decides."""

    keep_html = True
    stream_stage: type = SiteDomStage

    def __init__(self, **options: Any) -> None:
        self.params = make_params(self.name, **options)

    def extract(self, page: Page) -> list[Paragraph]:
        if page.tree is None:
            return []
        seg = cached_segmentation(page)
        return [make_paragraph(seg, piece, True, {"words": sum(r.words for r in piece.runs)})
                for piece in pieces(seg, "block")]


@register("temex")
class TemexExtractor(_SiteDomExtractor):
    description = "TemEx (Alarte's thesis, Ch. 9): nodes mapped onto >= v mutually linked pages of the site are template"
    stream_stage = TemexStage


@register("site-conex")
class SiteConexExtractor(_SiteDomExtractor):
    description = "site-level ConEx (Alarte's thesis, Ch. 10): the subtrees found on no other page of the site are content"
    stream_stage = SiteConexStage


@register("hybex")
class HybexExtractor(_SiteDomExtractor):
    description = "HybEx (Alarte's thesis, Ch. 11): TemEx on the key page minus page-level ConEx's main content"
    stream_stage = HybexStage
