"""URL Tree: unsupervised content extraction from a stream of pages (seed 001, Sect. 3-5).

Pages are inserted into a tree keyed by their *URL key*: host labels
reversed (``uk/co/bbc``), then the path segments, then the retained query.
Every node on a page's branch counts the documents below it (n_s) and, per
normalised text block (letters only, lower-cased, hashed), in how many of
those documents the block occurs (c(b)). A block is boilerplate when
c(b) > c_max at the node selected for the page: the leaf, or the first node
towards the root with enough support (Sect. 4). The four heuristics of
Sect. 5.4 are available; so is the forgetting policy of Sect. 6 (cap per
domain, maximum age, a minimum of recent documents kept) that bounds memory
on an endless stream.

As an extractor (``--extractor urltree``) the clean stage cuts each page into
text blocks at every tag except inline ones (Sect. 2), keeps them all, and
the :class:`UrlTreeStage` decides in stream order. As evidence
(``--template-evidence``) the same stage re-examines the good paragraphs of
another extractor and marks those repeated across the site as boilerplate.

Evidence counts a paragraph's text by the role it has: a text that is content
on this page (kept by the page-level extractor, not a link: a title, a body
paragraph) is template only when other pages repeat it as content too, not
when they merely link to it or quote it in a box the page-level extractor
already removed. Otherwise every article title would go, since it recurs in
the related-links boxes of the site's other pages, and a one-sentence first
paragraph with it, since it recurs as the teaser under those links (issue 22).
Those occurrences are counted under a second key (the hash with
:data:`TEXT_SALT`) in the same tree.

A page-level extractor that keeps teasers (classic jusText keeps the first
sentence under a related link as text) makes a teaser a text occurrence too.
So an occurrence of a text next to a link is also counted under a key of the
pair (text, link text), and on a page those occurrences whose link carries
one of the page's own titles (its ``<title>``, a heading it keeps, its first
kept paragraph) are subtracted: a quote of this page under a link to it says
nothing about this page's template.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import xxhash
from lxml import etree

from ..document import BAD, GOOD, Document, Paragraph
from ..errors import OptionError
from ..extractors.base import Extractor, Page, register
from ..stage import StreamStage

HEURISTICS = ("strict", "strict-support", "strict-at-domain", "relaxed-at-domain")
_SECOND_LEVEL = {"co", "com", "org", "net", "ac", "gov", "edu", "or", "ne", "go"}


# marks the key under which a block's occurrences as (non-link) text are counted
TEXT_SALT = 0x5DEECE66D5DEECE6
# marks the key under which a page's <title> is counted
TITLE_SALT = 0x2545F4914F6CDD1D
# a paragraph with at most this share of its characters in links is text, not a link
MAX_TEXT_LINK_DENSITY = 0.5


def is_link_text(p: Paragraph) -> bool:
    """Mostly link text on its page (a menu item, a related-links entry)."""
    return p.features.get("link_density", 0.0) > MAX_TEXT_LINK_DENSITY


def teaser_key(text_hash: int, link_hash: int) -> int:
    """Key of a text occurring next to a link with the given text (a teaser under a related link)."""
    return xxhash.xxh3_64_intdigest(text_hash.to_bytes(8, "little") + link_hash.to_bytes(8, "little"))


def own_titles(doc: Document, hashes: list[int], text_keys: list[int | None], counts: dict[int, int],
               c_max: int) -> set[int]:
    """Hashes of the texts a link to this page would carry: its title, kept headings, first kept text.

    A candidate repeated as title or kept text on other pages (the site's name
    in a sidebar heading) is the site's, not this page's.
    """
    candidates = []
    if doc.title:
        h = block_hash(doc.title)
        candidates.append((h ^ TITLE_SALT, h))
    first = True
    for p, h, tk in zip(doc.paragraphs, hashes, text_keys):
        if tk is not None and (p.heading or first):
            candidates.append((tk, h))
            first = False
    return {h for key, h in candidates if counts.get(key, 0) <= c_max}


def block_hash(text: str) -> int:
    """Letters only, lower-cased, hashed (Sect. 4; 64-bit xxhash instead of MD5)."""
    letters = "".join(ch for ch in text.lower() if ch.isalpha())
    return xxhash.xxh3_64_intdigest(letters.encode("utf-8"))


@dataclass
class QueryRule:
    """Sect. 3, Table 1: when ``pattern`` matches the URL, keep these query parameters."""

    pattern: str
    keep: tuple[str, ...]

    def __post_init__(self) -> None:
        try:
            self._re = re.compile(self.pattern)
        except re.error as exc:
            raise OptionError(f"invalid URL rule pattern {self.pattern!r}: {exc}") from None

    def matches(self, url: str) -> bool:
        return self._re.search(url) is not None


def url_key(url: str, rules: list[QueryRule] = (), keep_params: tuple[str, ...] = ()) -> tuple[list[str], int]:
    """Path of a URL in the tree and the depth of its domain node.

    The query is dropped unless a rule (or ``keep_params``) retains some of its
    parameters; retained parameters are sorted (Sect. 3, steps 2-3).
    """
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        parts, host = None, ""
    labels = [l for l in host.split(".") if l]
    if labels and labels[0] == "www":
        labels = labels[1:]
    labels.reverse()
    domain_depth = min(len(labels), 3 if len(labels) >= 3 and len(labels[0]) == 2 and labels[1] in _SECOND_LEVEL else 2)
    path = [s for s in (parts.path.split("/") if parts else []) if s]
    keep = set(keep_params)
    for rule in rules:
        if rule.matches(url):
            keep.update(rule.keep)
    if parts is not None and parts.query and keep:
        q = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k in keep)
        if q:
            path.append("?" + urlencode(q))
    return labels + path, domain_depth


class _Node:
    __slots__ = ("children", "n", "counts")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.n = 0
        self.counts: dict[int, int] = {}


@dataclass
class UrlTreeParams:
    n_min: int = 5                 # Sect. 5.4, "strict"
    c_max: int = 1
    heuristic: str = "strict"
    support_n: int = 100           # strict-support-100 (tuned in Sect. 5.5)
    relaxed_n: int = 500           # relaxed-at-domain-500
    max_docs_per_domain: int = 10_000   # forgetting policy of Sect. 6
    max_age_days: float = 14.0
    min_recent: int = 100
    rules: list[QueryRule] = field(default_factory=list)
    keep_params: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.heuristic not in HEURISTICS:
            raise OptionError(f"unknown URL Tree heuristic {self.heuristic!r}; choose from {', '.join(HEURISTICS)}")
        for name in ("n_min", "c_max", "support_n", "relaxed_n", "max_docs_per_domain", "min_recent"):
            if getattr(self, name) < 0:
                raise OptionError(f"{name} must be >= 0")
        if self.max_age_days <= 0:
            raise OptionError("max_age_days must be positive")


class UrlTree:
    """The tree with insertion, classification and forgetting."""

    def __init__(self, params: UrlTreeParams | None = None) -> None:
        self.p = params or UrlTreeParams()
        self.root = _Node()
        # per domain: (path, blocks, timestamp) of inserted documents, oldest first
        self.history: dict[tuple[str, ...], deque] = {}
        self.documents = 0

    def insert(self, path: list[str], domain_depth: int, blocks: set[int], when: float | None = None) -> list[_Node]:
        branch = [self.root]
        node = self.root
        for seg in path:
            node = node.children.setdefault(seg, _Node())
            branch.append(node)
        for node in branch:
            node.n += 1
            counts = node.counts
            for b in blocks:
                counts[b] = counts.get(b, 0) + 1
        self.documents += 1
        domain = tuple(path[:domain_depth])
        hist = self.history.setdefault(domain, deque())
        hist.append((tuple(path), blocks, when))
        self._forget(hist, when)
        return branch

    def _forget(self, hist: deque, now: float | None) -> None:
        p = self.p
        while len(hist) > p.max_docs_per_domain:
            self._remove(*hist.popleft()[:2])
        if now is None:
            return
        limit = now - p.max_age_days * 86400.0
        while len(hist) > p.min_recent and hist[0][2] is not None and hist[0][2] < limit:
            self._remove(*hist.popleft()[:2])

    def _remove(self, path: tuple[str, ...], blocks: set[int]) -> None:
        nodes = [self.root]
        for seg in path:
            nodes.append(nodes[-1].children[seg])
        for node in nodes:
            node.n -= 1
            for b in blocks:
                c = node.counts[b] - 1
                if c:
                    node.counts[b] = c
                else:
                    del node.counts[b]
        for depth in range(len(path), 0, -1):   # prune empty nodes bottom-up
            if nodes[depth].n == 0:
                del nodes[depth - 1].children[path[depth - 1]]
        self.documents -= 1

    def select(self, branch: list[_Node], domain_depth: int) -> tuple[_Node, int]:
        """The node whose statistics classify the page, and the c_max to apply (Sect. 4, 5.4)."""
        p = self.p
        domain = branch[min(domain_depth, len(branch) - 1)]
        if p.heuristic == "strict-at-domain":
            return domain, p.c_max
        need = p.support_n + 1 if p.heuristic == "strict-support" else p.n_min
        chosen = self.root
        for node in reversed(branch):
            if node.n >= need:
                chosen = node
                break
        c_max = p.c_max
        if p.heuristic == "relaxed-at-domain" and domain.n > p.relaxed_n:
            c_max = max(c_max, 2)
        return chosen, c_max


def _timestamp(doc: Document) -> float | None:
    if not doc.crawl_date:
        return None
    try:
        dt = datetime.fromisoformat(doc.crawl_date.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


class UrlTreeStage(StreamStage):
    """Classifies good paragraphs as boilerplate when repeated across the site's pages."""

    name = "urltree"

    def __init__(self, params: UrlTreeParams | None = None, reason: str = "template",
                 evidence: bool = False) -> None:
        super().__init__()
        self.tree = UrlTree(params)
        self.reason = reason
        # as evidence for another extractor: a paragraph kept as text is judged by
        # the pages that keep it as text too (see the module docstring)
        self.evidence = evidence
        self.seen_keys: set[tuple[str, ...]] = set()
        self.seen_content: set[int] = set()

    def accept(self, doc: Document) -> bool:
        path, depth = url_key(doc.url or f"nourl://{doc.id}", self.tree.p.rules, self.tree.p.keep_params)
        hashes = [block_hash(p.text) for p in doc.paragraphs]
        blocks = set(hashes)
        # the page fingerprint stays over the plain blocks; text keys are added after it
        text_keys = [h ^ TEXT_SALT if self.evidence and p.is_good and not is_link_text(p) else None
                     for p, h in zip(doc.paragraphs, hashes)]
        # the page's <title>, and each text occurrence next to a link with that link's text
        links = [h if is_link_text(p) else None for p, h in zip(doc.paragraphs, hashes)]
        extra_keys: set[int] = {block_hash(doc.title) ^ TITLE_SALT} if self.evidence and doc.title else set()
        for i, tk in enumerate(text_keys):
            if tk is not None:
                for j in (i - 1, i + 1):
                    if 0 <= j < len(links) and links[j] is not None:
                        extra_keys.add(teaser_key(hashes[i], links[j]))
        # a page seen before (same URL key, or the very same blocks) must not be
        # counted twice, or its content would look like boilerplate (Sect. 3)
        fingerprint = xxhash.xxh3_64_intdigest(" ".join(map(str, sorted(blocks))).encode())
        key = tuple(path)
        if key in self.seen_keys or fingerprint in self.seen_content:
            self.stats.extra["not-inserted:seen-before"] += 1
            branch = self._branch(path)
        else:
            self.seen_keys.add(key)
            self.seen_content.add(fingerprint)
            branch = self.tree.insert(path, depth, blocks | {k for k in text_keys if k is not None} | extra_keys,
                                      _timestamp(doc))
        node, c_max = self.tree.select(branch, depth)
        counts = node.counts
        titles = own_titles(doc, hashes, text_keys, counts, c_max) if self.evidence else set()
        removed = 0
        for p, h, tk in zip(doc.paragraphs, hashes, text_keys):
            count = counts.get(h if tk is None else tk, 0)
            if tk is not None and count > c_max:
                # quotes of this page under links to it (teasers) are not template
                count -= sum(counts.get(teaser_key(h, t), 0) for t in titles)
            p.features["urltree_count"] = count
            p.features["urltree_support"] = node.n
            if p.cls == GOOD and count > c_max:
                p.cls, p.reason = BAD, self.reason
                removed += 1
        self.stats.extra["paragraphs_removed"] += removed
        if not any(p.is_good for p in doc.paragraphs):
            doc.drop("boilerplate-only")
            return False
        return True

    def _branch(self, path: list[str]) -> list[_Node]:
        branch = [self.tree.root]
        node = self.tree.root
        for seg in path:
            node = node.children.get(seg)
            if node is None:
                break
            branch.append(node)
        return branch


# -- page segmentation for the URL Tree extractor ----------------------------

INLINE_TAGS = frozenset({"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "dfn", "em", "font",
                         "i", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub",
                         "sup", "time", "tt", "u", "var", "wbr", "label", "nobr"})
SKIP_TAGS = frozenset({"script", "style", "noscript", "head", "template", "svg", "math", "iframe", "object",
                       "embed", "select", "option", "textarea", "button"})


def text_blocks(root: etree._Element) -> list[tuple[str, str]]:
    """(text, tag) of each run of text between non-inline tags (Sect. 2)."""
    blocks: list[tuple[str, str]] = []
    buf: list[str] = []
    tags: list[str] = []

    def flush() -> None:
        text = " ".join("".join(buf).split())
        if text:
            blocks.append((text, tags[-1] if tags else ""))
        buf.clear()

    def walk(el: etree._Element) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in SKIP_TAGS or not tag:
            return
        inline = tag in INLINE_TAGS
        if not inline:
            flush()
        tags.append(tag)
        if el.text:
            buf.append(el.text)
        for child in el:
            walk(child)
            if child.tail:
                buf.append(child.tail)
        tags.pop()
        if not inline:
            flush()

    body = root.find("body")
    walk(body if body is not None else root)
    flush()
    return blocks


@register("urltree")
class UrlTreeExtractor(Extractor):
    """Page side of URL Tree: every text block, all kept; the stream stage decides."""

    description = "URL Tree (Sluban and Grčar's paper): blocks repeated across a site's pages are boilerplate (stream)"
    stream_stage = UrlTreeStage

    def __init__(self, **options: Any) -> None:
        try:
            self.params = UrlTreeParams(**options)
        except TypeError as exc:
            raise OptionError(f"urltree: {exc}") from None

    def extract(self, page: Page) -> list[Paragraph]:
        tree = page.tree
        if tree is None:
            return []
        return [Paragraph(text=t, tag=tag, cls=GOOD, cf_class="") for t, tag in text_blocks(tree)]
