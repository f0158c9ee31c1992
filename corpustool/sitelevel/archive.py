"""Boilerplate detection in web archives: Diff Based Content Extraction (seed 000, Ch. 2, Appendix B).

Pages of one site that share a template are grouped, and what a page shares
with its template siblings is boilerplate, what it shares only with earlier
and later snapshots of itself is content.

* Stage 1 (Sect. 2.2): every page is sanitised (scripts, styles, comments,
  iframes left out) and reduced to its DOM skeleton; the tokens of Listing
  2.7 (``node_nr _ group_nr _ level _ tag`` of the node and, with the same
  numbers, of each ancestor, joined by ``/``, built layer by layer as in
  Listings 2.5-2.6) are hashed and min-hashed (Eq. 2.3-2.4: the fraction of
  equal signature values estimates the Jaccard similarity, Eq. 2.2) and the
  signatures indexed with LSH in b bands of r rows (Fig. 2.4), (b, r) chosen
  for the similarity threshold (0.6, Sect. 4.2) by minimising the false
  positive and false negative areas of the S-curve (18 bands of 7 rows for
  128 permutations).
* Stage 2 (Sect. 2.3): for the current page (wEnCur) the LSH candidates
  whose exact skeleton Jaccard reaches the threshold form SimDocList, sorted
  by similarity. Pages with another URL form the vertical axis (wEnUp, the
  most similar; wEnDown, the next most similar of yet another URL), earlier
  and later snapshots of the same URL the horizontal axis (wEnPrev, wEnNext:
  the nearest in time). Without wEnUp there is no cross and no decision.
  The page's words are aligned with each cross member by a diff
  (``difflib.SequenceMatcher``, as lxml's ``html_annotate`` that the thesis
  extends, Listing 2.9; see :func:`common_words`); each word gets the bit
  array (cur, up, down, prev, next) of the members it occurs in (Fig. 2.7),
  a maximal run of words with one bit array inside one text block is a
  ``<dbce>`` element, and the run
  is classified by the bit-pattern tables of Appendix B (B.1-B.5); patterns
  not listed there are *invalid*. Classes are then propagated up the tree:
  a group of siblings that all share a class (or a single child) gives it
  to the parent.
* Reclassification (optional, Sect. 2.3 "Machine Learning", T003-T005): a
  k-nearest-neighbour classifier (k = 5, Listing 4.1) on the Table 2.1
  features of the block and its previous and next block (tag, link density,
  text density, word count, text length, tag count) plus the propagated
  class of its parent, trained on the page's decided blocks (conflicting
  identical vectors discarded), relabels the invalid ones (``reclassify=true``;
  off by default: on the site benchmark it lowers F1, as the thesis's ML
  variants did not beat T002 either). What stays invalid follows T002
  (boilerplate) by default, T001 keeps it (``invalid=good``).

The diff counts a common run only when it is a whole text block of the page
or at least ``min_match`` words long: lxml's annotator is word-level too, and
without this two different articles would "share" every ``of the``.

As an extractor (``--extractor archive``) the clean stage cuts each page into
text blocks at every non-inline tag (as URL Tree does) and this stage
classifies them. As evidence (``--template-evidence archive``) it re-examines
another extractor's good paragraphs: a paragraph whose words are mostly in
runs the bit patterns call boilerplate is marked with the stage's reason.
As evidence the diff also respects each text's role: words in a block that is
text on this page (not mostly link text) are not shared with words of another
page's link block. A text that is the title of one page and a link in the
related-links boxes of the others is content on that page (issue 22).

The method needs the site's other pages, including later snapshots, so the
stage buffers. Memory bound: at most ``max_buffered`` documents wait at any
time, each with its words as an integer array (the markup the clean stage
kept for this stage is parsed on arrival and freed); a site is processed when
``batch_pages`` of its pages have arrived, when the buffer is full (the site
waiting longest), and at the end of the stream. ``carry`` analysed pages per
site (for at most ``max_carry_sites`` sites, least recently used dropped)
stay as cross partners for the site's next batch. A site's pages leave the
stage together, in input order within the site.
"""
from __future__ import annotations

import bisect
import functools
import math
import re
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, Iterable, Iterator
from urllib.parse import urlsplit

import numpy as np
import xxhash
from lxml import etree

from ..document import BAD, GOOD, Document, Paragraph
from ..errors import OptionError
from ..extractors.base import Extractor, Page, parse_html, register
from ..stage import StreamStage
from .urltree import INLINE_TAGS, SKIP_TAGS, _timestamp

CONTENT, BOILERPLATE, INVALID = "content", "boilerplate", "invalid"

# cross members in the order of Listing 2.8; bit 4 is wEnCur, bit 0 wEnNext
CUR, UP, DOWN, PREV, NEXT = 0b10000, 0b01000, 0b00100, 0b00010, 0b00001
_C, _B = CONTENT, BOILERPLATE

# Appendix B: cross bits -> {dbce-tag bits -> class}; anything else is invalid.
BIT_PATTERNS: dict[int, dict[int, str]] = {
    0b11000: {0b10000: _C, 0b11000: _B},                                            # Table B.1
    0b11100: {0b10000: _C, 0b10100: _B, 0b11000: _B, 0b11100: _B},                  # Table B.2
    0b11001: {0b10000: _B, 0b10001: _C, 0b11000: _B, 0b11001: _B},                  # Table B.3
    0b11010: {0b10000: _B, 0b10010: _C, 0b11000: _B, 0b11010: _B},
    0b11011: {0b10000: _B, 0b10001: _B, 0b10010: _B, 0b10011: _C,                   # Table B.4
              0b11000: _B, 0b11001: _B, 0b11010: _B, 0b11011: _B},
    0b11101: {0b10001: _C, 0b11101: _B},                                            # Table B.5
    0b11110: {0b10010: _C, 0b11110: _B},
    0b11111: {0b10011: _C, 0b11111: _B},
}


def classify_bits(cross: int, bits: int) -> str:
    """Class of a ``<dbce>`` run with occurrence ``bits`` in a cross encoded as ``cross`` (Appendix B)."""
    return BIT_PATTERNS.get(cross, {}).get(bits, INVALID)


def bits_str(bits: int) -> str:
    return format(bits, "05b")


# -- parameters -----------------------------------------------------------------------

@dataclass
class ArchiveParams:
    lsh_threshold: float = 0.6      # minimal skeleton Jaccard similarity (Sect. 4.2)
    num_perm: int = 128             # MinHash signature length
    min_match: int = 6              # words a partial-block common run needs to count
    reclassify: bool = False        # kNN relabelling of invalid blocks (T003-T005): opt-in, see below
    neighbors: int = 5              # k of the kNN (Listing 4.1)
    invalid: str = "bad"            # what stays invalid: "bad" (T002) or "good" (T001)
    evidence_share: float = 0.5     # evidence: share of a paragraph's words in boilerplate runs
    batch_pages: int = 100          # a site is processed when this many of its pages wait
    max_buffered: int = 1000        # documents waiting in the stage at most (memory bound)
    carry: int = 30                 # analysed pages per site kept as partners for its next batch
    max_carry_sites: int = 200
    seed: int = 2047226289          # the thesis's seed (Sect. 4)

    def __post_init__(self) -> None:
        if not 0.0 < self.lsh_threshold <= 1.0:
            raise OptionError("archive: lsh_threshold must be in (0, 1]")
        if self.invalid not in ("bad", "good"):
            raise OptionError("archive: invalid must be 'bad' (T002) or 'good' (T001)")
        if not 0.0 < self.evidence_share <= 1.0:
            raise OptionError("archive: evidence_share must be in (0, 1]")
        for name in ("num_perm", "min_match", "neighbors", "batch_pages", "max_buffered"):
            if int(getattr(self, name)) < 1:
                raise OptionError(f"archive: {name} must be >= 1")
        for name in ("carry", "max_carry_sites"):
            if int(getattr(self, name)) < 0:
                raise OptionError(f"archive: {name} must be >= 0")


# -- stage 1: DOM skeleton, MinHash, LSH ----------------------------------------------------

def _tag(el: Any) -> str | None:
    tag = el.tag
    if not isinstance(tag, str):
        return None                 # comment or processing instruction
    return tag.rsplit("}", 1)[-1].lower()


# removed by the sanitisation of Sect. 2.2 (with comments); other invisible
# elements (head, select, svg ...) stay in the skeleton as leaves
SANITISED_TAGS = frozenset({"script", "style", "noscript", "template", "iframe", "object", "embed"})


def skeleton_layers(root: etree._Element) -> list[list[list[etree._Element]]]:
    """The DOM as nested lists (Listings 2.3-2.5): per layer, the groups of element
    children sharing a parent, in document order; text, comments and sanitised
    subtrees (scripts, styles, iframes ...) are left out, empty groups too."""
    layers: list[list[list[etree._Element]]] = [[[root]]]
    current = [root]
    while current:
        groups = []
        nxt: list[etree._Element] = []
        for parent in current:
            if _tag(parent) in SKIP_TAGS:
                continue
            kids = [c for c in parent if _tag(c) is not None and _tag(c) not in SANITISED_TAGS]
            if kids:
                groups.append(kids)
                nxt.extend(kids)
        if groups:
            layers.append(groups)
        current = nxt
    return layers


MAX_ANCESTORS = 64


def skeleton_tokens(root: etree._Element) -> list[str]:
    """MinHash tokens of Listing 2.7: ``node_nr_group_nr_level_tag`` of the node, then the
    same numbers with each ancestor's name up to ``[document]``, joined by ``/``."""
    tokens = []
    for level, groups in enumerate(skeleton_layers(root)):
        for group_nr, nodes in enumerate(groups):
            for node_nr, node in enumerate(nodes):
                prefix = f"{node_nr}_{group_nr}_{level}_"
                path = [prefix + (_tag(node) or "")]
                for depth, anc in enumerate(node.iterancestors()):
                    if depth == MAX_ANCESTORS:      # pathological nesting: bound the token
                        break
                    path.append(prefix + (_tag(anc) or ""))
                path.append(prefix + "[document]")
                tokens.append("/".join(path))
    return tokens


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a bijection of 64-bit values that scrambles every bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * _MIX1
    x = x ^ (x >> np.uint64(27))
    x = x * _MIX2
    return x ^ (x >> np.uint64(31))


class MinHasher:
    """Min-wise signatures (Eq. 2.3): permutation i is the bijection x -> mix64(x XOR salt_i)."""

    def __init__(self, num_perm: int = 128, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.salts = rng.integers(0, np.iinfo(np.int64).max, size=num_perm, dtype=np.int64).astype(np.uint64)

    def signature(self, hashes: np.ndarray) -> np.ndarray:
        if not len(hashes):
            return np.full(len(self.salts), np.iinfo(np.uint64).max, dtype=np.uint64)
        with np.errstate(over="ignore"):
            return _mix64(hashes[None, :] ^ self.salts[:, None]).min(axis=1)


def hash_strings(items: Iterable[str]) -> np.ndarray:
    return np.array([xxhash.xxh3_64_intdigest(s.encode("utf-8")) for s in items], dtype=np.uint64)


@functools.lru_cache(maxsize=32)
def lsh_bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands b, rows r) with b*r <= num_perm minimising the false positive area below the
    threshold plus the false negative area above it of P = 1 - (1 - s^r)^b (Fig. 2.4)."""
    s = np.linspace(0.0, 1.0, 1001)
    below, above = s <= threshold, s >= threshold
    best, best_cost = (1, num_perm), math.inf
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            p = 1.0 - (1.0 - s ** r) ** b
            cost = np.trapezoid(p[below], s[below]) + np.trapezoid(1.0 - p[above], s[above])
            if cost < best_cost - 1e-12:
                best, best_cost = (b, r), cost
    return best


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Exact Jaccard similarity (Eq. 2.2) of two sorted sets of token hashes."""
    if not len(a) and not len(b):
        return 1.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


# -- the page as text blocks and a word stream ------------------------------------------------

_WORD = re.compile(r"\w+")


def word_ids(text: str) -> list[int]:
    """Words of a text (case-folded runs of word characters) as 63-bit ids."""
    return [xxhash.xxh3_64_intdigest(w.encode("utf-8")) >> 1 for w in _WORD.findall(text.casefold())]


@dataclass
class Block:
    """A run of text between non-inline tags (a leaf of the classification tree)."""

    text: str
    tag: str                # tag of the element that owns the text
    element: int            # index of that element in PageBlocks.parents
    words: int
    link_words: int
    tag_count: int          # inline elements inside the block


@dataclass
class PageBlocks:
    blocks: list[Block]
    parents: list[int]      # parent element of each non-inline element (-1: the root)
    tags: list[str]


def page_blocks(root: etree._Element) -> PageBlocks:
    """Text blocks of a page: text is cut at every non-inline tag (as URL Tree, seed 001
    Sect. 2); invisible subtrees are skipped. Blocks without a word are left out: a
    separator like ``|`` or ``»`` is not text. Iterative, so deep pages cannot overflow."""
    body = root.find("body")
    top = body if body is not None else root
    blocks: list[Block] = []
    parents: list[int] = []
    tags: list[str] = []
    owners: list[int] = []
    buf: list[tuple[str, bool]] = []
    state = {"link": 0, "inline": 0}

    def add(text: str | None) -> None:
        if text:
            buf.append((text, state["link"] > 0))

    def flush() -> None:
        if buf:
            text = " ".join("".join(t for t, _ in buf).split())
            words = len(_WORD.findall(text))
            if words:
                links = sum(len(_WORD.findall(t)) for t, in_link in buf if in_link)
                owner = owners[-1] if owners else 0
                blocks.append(Block(text, tags[owner], owner, words, links, state["inline"]))
            buf.clear()
        state["inline"] = 0

    def start(el: etree._Element, tag: str) -> None:
        if tag in INLINE_TAGS:
            state["inline"] += 1
            if tag == "a":
                state["link"] += 1
        else:
            flush()
            parents.append(owners[-1] if owners else -1)
            tags.append(tag)
            owners.append(len(parents) - 1)
        add(el.text)

    def end(el: etree._Element, tag: str) -> None:
        if tag in INLINE_TAGS:
            if tag == "a":
                state["link"] -= 1
        else:
            flush()
            owners.pop()

    start(top, _tag(top) or "")
    stack = [(top, _tag(top) or "", iter(top))]
    while stack:
        el, tag, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            end(el, tag)
            if stack:
                add(el.tail)
            continue
        ctag = _tag(child)
        if ctag is None or ctag in SKIP_TAGS:
            add(child.tail)
            continue
        start(child, ctag)
        stack.append((child, ctag, iter(child)))
    flush()
    return PageBlocks(blocks, parents, tags)


# -- one analysed page ---------------------------------------------------------------------

def url_identity(url: str | None, fallback: str) -> tuple[str, str, str]:
    """What makes two snapshots "the same URL-path" (Sect. 2.3): host without ``www.``,
    path and query; scheme and fragment do not matter."""
    if not url:
        return ("", fallback, "")
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return ("", url, "")
    if host.startswith("www."):
        host = host[4:]
    return (host, parts.path or "/", parts.query)


@dataclass(eq=False)
class Entry:
    """A page as stage 2 needs it (the WARC entry of the DBCEJournal)."""

    pos: int                            # stream position: ties and order
    url: tuple[str, str, str]
    when: float
    skeleton: np.ndarray                # sorted unique token hashes
    signature: np.ndarray
    words: np.ndarray                   # int64 word ids of the page, block after block
    starts: np.ndarray                  # word offset of every block, and the word count at the end
    block_hashes: np.ndarray            # uint64 hash of every block's words
    linked: np.ndarray                  # bool per block: mostly link words (a menu item, a related link)
    page: PageBlocks | None = None      # dropped once the page has been classified
    result: "CrossResult | None" = None

    def order(self) -> tuple[float, int]:
        return (self.when, self.pos)


def make_entry(root: etree._Element, url: str | None, when: float | None, pos: int,
               hasher: MinHasher) -> Entry:
    skel = np.unique(hash_strings(skeleton_tokens(root)))
    pb = page_blocks(root)
    ids: list[int] = []
    starts = [0]
    for b in pb.blocks:
        ids.extend(word_ids(b.text))
        starts.append(len(ids))
    words = np.array(ids, dtype=np.int64)
    hashes = np.array([xxhash.xxh3_64_intdigest(words[a:b].tobytes()) for a, b in zip(starts, starts[1:])],
                      dtype=np.uint64)
    return Entry(pos=pos, url=url_identity(url, f"#{pos}"), when=float(pos) if when is None else when,
                 skeleton=skel, signature=hasher.signature(skel), words=words,
                 starts=np.array(starts, dtype=np.int64), block_hashes=hashes,
                 linked=np.array([2 * b.link_words > b.words for b in pb.blocks], dtype=bool), page=pb)


# -- stage 2: cross, diff, bit patterns ---------------------------------------------------------

@dataclass
class Cross:
    cur: Entry
    up: Entry | None = None
    down: Entry | None = None
    prev: Entry | None = None
    next: Entry | None = None
    similarity: dict[int, float] = field(default_factory=dict)   # pos -> skeleton Jaccard

    def members(self) -> list[tuple[int, Entry]]:
        return [(bit, e) for bit, e in ((UP, self.up), (DOWN, self.down), (PREV, self.prev), (NEXT, self.next))
                if e is not None]

    @property
    def bits(self) -> int:
        return CUR | sum(bit for bit, _ in self.members())


@dataclass
class CrossResult:
    """Per word of the page its occurrence bits and run class, per block its classes,
    per element its propagated class, and the cross encoding."""

    cross_bits: int
    word_bits: np.ndarray           # int per word, in page order
    word_class: list[str]           # class of each word's run (Appendix B)
    block_class: list[str]          # after propagation to the block (and reclassification)
    block_bits_class: list[str]     # from the bit patterns alone
    element_class: list[str | None]


_KGRAM_MULT = np.uint64(0x9E3779B97F4A7C15)


def kgram_hashes(ids: np.ndarray, k: int) -> np.ndarray:
    """Hash of every run of ``k`` consecutive word ids (polynomial mod 2^64)."""
    n = len(ids) - k + 1
    x = ids.astype(np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for t in range(k):
            h = h * _KGRAM_MULT + x[t:t + n]
    return h


def common_words(cur: Entry, other: Entry, min_match: int, roles: bool = False) -> np.ndarray:
    """Which words of ``cur`` the diff aligns with ``other`` (one bool per word).

    The diff runs on the sequence of text blocks (difflib on block hashes): a block
    that recurs in order is common as a whole, however short ("Home"). Inside the
    stretches the block diff leaves unmatched on both sides (where the articles
    differ) a word counts as common when it is part of a run of at least
    ``min_match`` words that the other page's stretch contains too - what a word
    diff of the two stretches would keep, without difflib's quadratic search over
    two different articles.

    With ``roles`` (evidence for another extractor), words of a text block of
    ``cur`` are not shared with words of a link block of ``other``: a title is not
    template because the other pages link to it.
    """
    mask = np.zeros(len(cur.words), dtype=bool)
    cs, os_ = cur.starts, other.starts
    sm = SequenceMatcher(None, cur.block_hashes.tolist(), other.block_hashes.tolist(), autojunk=False)
    if roles:
        cur_linked = np.repeat(cur.linked, np.diff(cs))         # per word
        other_linked = np.repeat(other.linked, np.diff(os_))
    pi = pj = 0
    for i, j, n in sm.get_matching_blocks():
        if i > pi and j > pj:
            cw = cur.words[cs[pi]:cs[i]]
            ow = other.words[os_[pj]:os_[j]]
            if len(cw) >= min_match and len(ow) >= min_match:
                ok = kgram_hashes(ow, min_match)
                hit = np.isin(kgram_hashes(cw, min_match), ok)
                if roles and hit.any():
                    # a k-gram of text here is shared only with a k-gram of text there
                    olk = np.convolve(other_linked[os_[pj]:os_[j]].astype(np.int64),
                                      np.ones(min_match, dtype=np.int64), "valid") > 0
                    clk = np.convolve(cur_linked[cs[pi]:cs[i]].astype(np.int64),
                                      np.ones(min_match, dtype=np.int64), "valid") > 0
                    hit &= clk | np.isin(kgram_hashes(cw, min_match), ok[~olk])
                if hit.any():
                    covered = np.convolve(hit.astype(np.int64), np.ones(min_match, dtype=np.int64))[:len(cw)] > 0
                    mask[cs[pi]:cs[i]] |= covered
        for t in range(n):
            if roles and other.linked[j + t] and not cur.linked[i + t]:
                continue
            mask[cs[i + t]:cs[i + t + 1]] = True
        pi, pj = i + n, j + n
    return mask


def _same_text(a: Entry, b: Entry) -> bool:
    return len(a.block_hashes) == len(b.block_hashes) and bool((a.block_hashes == b.block_hashes).all())


class CrossBuilder:
    """LSH index over a pool of entries (one site) and the cross of each (Sect. 2.3)."""

    def __init__(self, pool: list[Entry], params: ArchiveParams) -> None:
        self.pool = pool
        self.p = params
        self.bands, self.rows = lsh_bands(params.lsh_threshold, params.num_perm)
        self.buckets: dict[tuple[int, bytes], list[int]] = {}
        for idx, e in enumerate(pool):
            for key in self._keys(e):
                self.buckets.setdefault(key, []).append(idx)

    def _keys(self, e: Entry) -> Iterator[tuple[int, bytes]]:
        r = self.rows
        for band in range(self.bands):
            yield band, e.signature[band * r:(band + 1) * r].tobytes()

    def similar(self, cur: Entry) -> list[tuple[float, Entry]]:
        """SimDocList: candidates at or above the threshold, most similar first."""
        seen: set[int] = set()
        for key in self._keys(cur):
            seen.update(self.buckets.get(key, ()))
        out = []
        for idx in sorted(seen):
            other = self.pool[idx]
            if other is cur:
                continue
            sim = jaccard(cur.skeleton, other.skeleton)
            if sim >= self.p.lsh_threshold:
                out.append((sim, other))
        out.sort(key=lambda t: (-t[0], t[1].pos))
        return out

    def cross(self, cur: Entry) -> Cross:
        sims = self.similar(cur)
        cross = Cross(cur, similarity={e.pos: s for s, e in sims})
        # a copy of the page under another URL is no template sibling: with it as
        # wEnUp every word would look shared and the article would be lost
        vertical = [e for _, e in sims if e.url != cur.url and not _same_text(e, cur)]
        horizontal = [e for _, e in sims if e.url == cur.url]
        if vertical:
            cross.up = vertical[0]
            # wEnDown: next most similar, preferably of a third URL (another snapshot of
            # wEnUp's URL says little that wEnUp did not)
            rest = vertical[1:]
            cross.down = next((e for e in rest if e.url != cross.up.url), rest[0] if rest else None)
        before = [e for e in horizontal if e.order() < cur.order()]
        after = [e for e in horizontal if e.order() > cur.order()]
        cross.prev = max(before, key=Entry.order) if before else None
        cross.next = min(after, key=Entry.order) if after else None
        return cross


def annotate(cross: Cross, params: ArchiveParams, roles: bool = False) -> CrossResult | None:
    """Diff wEnCur with every member (Listing 2.9), classify the runs (Appendix B),
    propagate to blocks and elements, reclassify invalid blocks. None without wEnUp."""
    if cross.up is None:
        return None
    cur = cross.cur
    page = cur.page
    assert page is not None
    word_bits = np.full(len(cur.words), CUR, dtype=np.int64)
    for bit, member in cross.members():
        word_bits[common_words(cur, member, params.min_match, roles)] |= bit
    block_of = np.repeat(np.arange(len(cur.starts) - 1), np.diff(cur.starts))   # block of every word
    cross_bits = cross.bits
    table = BIT_PATTERNS[cross_bits]
    word_class = [table.get(int(b), INVALID) for b in word_bits]

    # runs (<dbce> elements) -> their block: the block takes the class its runs share;
    # mixed blocks take the class of most of their decided words
    n_blocks = len(page.blocks)
    counts = [{CONTENT: 0, BOILERPLATE: 0, INVALID: 0} for _ in range(n_blocks)]
    runs: list[set[str]] = [set() for _ in range(n_blocks)]
    for blk, cls in zip(block_of.tolist(), word_class):
        counts[blk][cls] += 1
        runs[blk].add(cls)
    block_bits_class = []
    for blk in range(n_blocks):
        classes = runs[blk]
        if len(classes) == 1:
            block_bits_class.append(next(iter(classes)))
            continue
        c = counts[blk]
        if c[CONTENT] == 0 and c[BOILERPLATE] == 0:
            block_bits_class.append(INVALID)
        else:
            block_bits_class.append(CONTENT if c[CONTENT] >= c[BOILERPLATE] else BOILERPLATE)
    element_class = propagate(page, block_bits_class)
    block_class = list(block_bits_class)
    if params.reclassify:
        reclassify(page, block_class, element_class, params.neighbors)
    return CrossResult(cross_bits, word_bits, word_class, block_class, block_bits_class, element_class)


def propagate(page: PageBlocks, block_class: list[str]) -> list[str | None]:
    """Sect. 2.3: bottom-up, a group of siblings (an element's blocks and classified
    child elements) gives the parent its class when all share it or the group has one
    member. Returns the class of every element (None: mixed or no text)."""
    n = len(page.parents)
    groups: list[list[str | None]] = [[] for _ in range(n)]
    for blk, cls in zip(page.blocks, block_class):
        groups[blk.element].append(cls)
    result: list[str | None] = [None] * n
    # children come after their parent in document order: walk backwards
    for el in range(n - 1, -1, -1):
        group = groups[el]
        if group and (len(group) == 1 or all(c == group[0] for c in group)):
            result[el] = group[0]
        parent = page.parents[el]
        if parent >= 0 and group:
            groups[parent].append(result[el])
    return result


_TAG_GROUPS = ("p", "li", "td", "div", "heading", "a", "other")


def _tag_group(tag: str) -> int:
    if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        return _TAG_GROUPS.index("heading")
    return _TAG_GROUPS.index(tag) if tag in _TAG_GROUPS else len(_TAG_GROUPS) - 1


def block_features(page: PageBlocks, element_class: list[str | None]) -> np.ndarray:
    """Table 2.1 for every block: tag of the previous, current and next block; link
    density, text density, word count, text length, tag count of each; the ratio of text
    length to tag count; and the propagated class of the parent (T004's wider window)."""
    blocks = page.blocks
    own = []
    for b in blocks:
        lines = max(1, math.ceil(len(b.text) / 80))   # Kohlschuetter's wrapped lines
        own.append([b.link_words / b.words, b.words / lines, math.log1p(b.words), math.log1p(len(b.text)),
                    math.log1p(b.tag_count)])
    dummy = [0.0] * 5
    rows = []
    for i, b in enumerate(blocks):
        tags = []
        for j in (i - 1, i, i + 1):
            onehot = [0.0] * (len(_TAG_GROUPS) + 1)           # last slot: no neighbour
            onehot[_tag_group(blocks[j].tag) if 0 <= j < len(blocks) else -1] = 1.0
            tags.extend(onehot)
        prev = own[i - 1] if i > 0 else dummy
        nxt = own[i + 1] if i + 1 < len(blocks) else dummy
        parent = page.parents[b.element]
        pcls = element_class[parent] if parent >= 0 else None
        ratio = math.log1p(len(b.text) / (1 + b.tag_count))
        rows.append(tags + prev + own[i] + nxt + [ratio, float(pcls == CONTENT), float(pcls == BOILERPLATE)])
    return np.array(rows, dtype=np.float64).reshape(len(blocks), -1)


def reclassify(page: PageBlocks, block_class: list[str], element_class: list[str | None], k: int) -> int:
    """Relabel invalid blocks with a kNN trained on the decided blocks of the page
    (Sect. 2.3; identical vectors with different classes are discarded). Returns the
    number relabelled; nothing happens without both classes among >= k examples."""
    invalid = [i for i, c in enumerate(block_class) if c == INVALID]
    decided = [i for i, c in enumerate(block_class) if c != INVALID]
    if not invalid or len(decided) < k:
        return 0
    X = block_features(page, element_class)
    seen: dict[bytes, set[str]] = {}
    for i in decided:
        seen.setdefault(X[i].tobytes(), set()).add(block_class[i])
    train = [i for i in decided if len(seen[X[i].tobytes()]) == 1]
    labels = np.array([block_class[i] == CONTENT for i in train])
    if len(train) < k or labels.all() or not labels.any():
        return 0
    Xt = X[train]
    mean, std = Xt.mean(axis=0), Xt.std(axis=0)
    std[std == 0] = 1.0
    Xt = (Xt - mean) / std
    Xq = (X[invalid] - mean) / std
    d = ((Xq[:, None, :] - Xt[None, :, :]) ** 2).sum(axis=2)
    nearest = np.argsort(d, axis=1, kind="stable")[:, :k]
    votes = labels[nearest].sum(axis=1)
    for i, v in zip(invalid, votes.tolist()):
        block_class[i] = CONTENT if 2 * v > k else BOILERPLATE
    return len(invalid)


# -- mapping classes onto the document's paragraphs ---------------------------------------------

def paragraph_word_spans(page_words: list[int], paragraphs: list[list[int]]) -> list[list[int]]:
    """For each paragraph, the page word positions its words align with (document order).

    Paragraphs from another extractor tokenise the same text in the same order, so
    each is looked up exactly, forward from where the previous one ended; one that is
    not found verbatim is aligned with a diff against the next stretch of the page."""
    spans: list[list[int]] = []
    cursor = 0
    index: dict[int, list[int]] = {}
    for pos, w in enumerate(page_words):
        index.setdefault(w, []).append(pos)
    n = len(page_words)
    for words in paragraphs:
        if not words:
            spans.append([])
            continue
        found = -1
        starts = index.get(words[0], [])
        k = bisect.bisect_left(starts, cursor)
        for s in starts[k:k + 64]:
            if page_words[s:s + len(words)] == words:
                found = s
                break
        if found >= 0:
            spans.append(list(range(found, found + len(words))))
            cursor = found + len(words)
            continue
        window = page_words[cursor:min(n, cursor + 3 * len(words) + 200)]
        sm = SequenceMatcher(None, words, window, autojunk=False)
        pos = [cursor + j + t for _, j, size in sm.get_matching_blocks() for t in range(size)]
        spans.append(pos)
        if pos:
            cursor = pos[-1] + 1
    return spans


# -- the stream stage -------------------------------------------------------------------------

class ArchiveStage(StreamStage):
    """Buffers each site's pages, builds crosses among them and classifies paragraphs."""

    name = "archive"

    def __init__(self, params: ArchiveParams | None = None, reason: str = "template",
                 evidence: bool = False) -> None:
        super().__init__()
        self.evidence = evidence    # another extractor's evidence: the diff respects link/text roles
        self.p = params or ArchiveParams()
        self.reason = reason
        self.hasher = MinHasher(self.p.num_perm, self.p.seed)
        self._sites: dict[str, list[tuple[Document, Entry | None]]] = {}
        self._buffered = 0
        self._carried: OrderedDict[str, deque[Entry]] = OrderedDict()
        self._pos = 0
        self.peak_buffered = 0

    # the whole stream is needed before a site can be decided: override run()
    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        for doc in docs:
            self.stats.count_in(doc)
            if doc.drop_reason:
                self._dropped(doc, doc.drop_reason)
                continue
            site = doc.domain or ""
            buf = self._sites.setdefault(site, [])
            buf.append((doc, self._analyse(doc)))
            self._buffered += 1
            self.peak_buffered = max(self.peak_buffered, self._buffered)
            if len(buf) >= self.p.batch_pages:
                yield from self._flush(site)
            while self._buffered > self.p.max_buffered:
                yield from self._flush(next(iter(self._sites)))
        while self._sites:
            yield from self._flush(next(iter(self._sites)))

    def accept(self, doc: Document) -> bool:   # pragma: no cover - run() is overridden
        raise NotImplementedError

    def _analyse(self, doc: Document) -> Entry | None:
        pos = self._pos
        self._pos += 1
        root = parse_html(doc.html) if doc.html else None
        # the markup was kept for this stage only: free it, the buffer must stay small
        doc.html = None
        if root is None:
            self.stats.extra["no-markup"] += 1
            return None
        try:
            return make_entry(root, doc.url, _timestamp(doc), pos, self.hasher)
        except (ValueError, RecursionError) as exc:   # an odd page is left undecided, never fatal
            self.stats.extra[f"error:{type(exc).__name__}"] += 1
            return None

    def _flush(self, site: str) -> Iterator[Document]:
        buf = self._sites.pop(site)
        self._buffered -= len(buf)
        self.stats.extra["batches"] += 1
        entries = [e for _, e in buf if e is not None]
        carried = self._carried.pop(site, deque())
        builder = CrossBuilder(entries + list(carried), self.p)
        for e in entries:
            cross = builder.cross(e)
            e.result = annotate(cross, self.p, roles=self.evidence)
            self.stats.extra[f"cross:{bits_str(cross.bits)}" if cross.up is not None else "cross:none"] += 1
        for doc, e in buf:
            self._apply(doc, e)
            if e is not None:
                e.page = None            # partners need only the skeleton and the words
                e.result = None
            if not any(p.is_good for p in doc.paragraphs):
                doc.drop("boilerplate-only")
                self._dropped(doc, doc.drop_reason)
                continue
            self.stats.count_out(doc)
            yield doc
        if self.p.carry and self.p.max_carry_sites:
            carried.extend(entries)
            while len(carried) > self.p.carry:
                carried.popleft()
            self._carried[site] = carried
            while len(self._carried) > self.p.max_carry_sites:
                self._carried.popitem(last=False)

    def _apply(self, doc: Document, entry: Entry | None) -> None:
        res = entry.result if entry is not None else None
        own = doc.meta.get("extractor") == "archive"
        if res is None:
            self.stats.extra["pages-undecided"] += 1
            for p in doc.paragraphs:
                p.features["archive_class"] = "none"
            return
        assert entry is not None and entry.page is not None
        blocks = entry.page.blocks
        removed = 0
        if own and len(doc.paragraphs) == len(blocks) and all(
                p.text == b.text for p, b in zip(doc.paragraphs, blocks)):
            # our own segmentation: paragraph i is block i
            for p, cls, bcls in zip(doc.paragraphs, res.block_class, res.block_bits_class):
                p.features["archive_class"] = bcls
                if bcls != cls:
                    p.features["archive_reclassified"] = cls
                keep = cls == CONTENT or (cls == INVALID and self.p.invalid == "good")
                if p.cls == GOOD and not keep:
                    p.cls, p.reason = BAD, self.reason
                    removed += 1
        else:
            # evidence for another extractor's paragraphs: their words are found in the
            # page's word stream; a paragraph mostly in boilerplate runs is template
            page_words = entry.words.tolist()
            spans = paragraph_word_spans(page_words, [word_ids(p.text) for p in doc.paragraphs])
            word_class = res.word_class
            for p, span in zip(doc.paragraphs, spans):
                if not span:
                    continue
                bp = sum(1 for i in span if word_class[i] == BOILERPLATE)
                share = bp / len(span)
                p.features["archive_bp_share"] = round(share, 3)
                if p.cls == GOOD and share >= self.p.evidence_share:
                    p.cls, p.reason = BAD, self.reason
                    removed += 1
        self.stats.extra["paragraphs_removed"] += removed


@register("archive")
class ArchiveExtractor(Extractor):
    """Page side of DBCE: every text block, all kept; the stream stage decides."""

    description = "web-archive templates (Leśniak's thesis): MinHash-LSH grouping, crosses, diff bit patterns (stream)"
    stream_stage = ArchiveStage
    keep_html = True

    def __init__(self, **options: Any) -> None:
        try:
            self.params = ArchiveParams(**options)
        except TypeError as exc:
            raise OptionError(f"archive: {exc}") from None

    def extract(self, page: Page) -> list[Paragraph]:
        tree = page.tree
        if tree is None:
            return []
        return [Paragraph(text=b.text, tag=b.tag, cls=GOOD, cf_class="") for b in page_blocks(tree).blocks]
