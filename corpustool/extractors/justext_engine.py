"""Our own jusText engine: the decisions of justext 3.0.2, without its overhead.

The justext package deep-copies the tree, cleans it with lxml's ``Cleaner``,
replays it as SAX events into a ``ParagraphMaker`` and recomputes each
paragraph's text (a regular-expression pass) every time a feature asks for it.
This engine makes one pass over the parsed tree and reaches the same
paragraphs:

* **Preprocessing without a copy.** The package's ``Cleaner`` (options in
  ``justext.core.preprocessor``) *kills* head, script, style, applet, button,
  input, select, textarea, comments and ``<link rel=stylesheet>`` (subtree
  gone, its tail glued to the text before it) and *unwraps* form, iframe,
  embed, layer, object, param (tag gone, text and children kept) and renames
  ``<image>`` to ``<img>``. In the SAX stream both amount to: the element's
  events vanish and the text chunks on either side become one chunk. The walk
  skips killed subtrees, ignores unwrapped tags and keeps a pending text chunk
  that is handed to the paragraph only at the next event the cleaned tree
  would still have (a kept tag or a processing instruction).
* **Segmentation** is the package's ``ParagraphMaker`` state machine,
  quirks included (see docs/justext_engine.md): whitespace-only text chunks
  are dropped, so ``<b>a</b> <i>b</i>`` reads "ab" (``keep_blank_separators``,
  which justext-plus uses, makes it "a b"); a ``<br>`` adds a space,
  two ``<br>`` in a row split the paragraph; link characters are counted per
  chunk after whitespace normalisation; a block whose text is empty after
  whitespace normalisation (only ``<br>`` or spaces) is no paragraph.
* **Paths are built lazily.** Each kept element pushes a small node (parent,
  tag, position among same-tag siblings); DOM path, XPath and heading flag
  are materialised only for the paragraphs that survive, cached per ancestor.
* **Features in one go per paragraph**: one join of the raw chunks, one
  ``split``; whitespace normalisation by ``" ".join(words)`` unless the text
  has line breaks; stop words counted with ``map(stoplist.__contains__)`` over
  the lower-cased words (``word.lower()`` per word, as the package).
* **Classification** is Algorithm 2.2 of seed 003 (Sect. 2.7.2, context-free)
  and Algorithm 2.3 (context-sensitive) with the headings rule, with the
  neighbour searches precomputed (the package rescans the list for each
  paragraph).

**Compiled walk.** ``corpustool/native/justext_walk.pyx`` (Cython over lxml's
public C API, built by ``setup.py`` when Cython and a C compiler are there)
runs the same walk over libxml2's node structs, computes each paragraph's
features from the UTF-8 text during the walk (:func:`paragraph_rows` is the
Python reference) and builds and classifies the paragraphs in C
(:meth:`JustextEngineExtractor.build_py` and :func:`classify` are the
reference). ``COMPILED`` tells which one runs (``COMPILED_ERROR`` why not);
without the extension the pure-Python walk gives the same paragraphs, slower.
The tests compare the two on generated, demo and development pages.

**Fast path.** A page nobody has parsed yet is parsed as justext-plus parses
it: lxml's libxml2 parses the bytes with its HTML parser and SAX callbacks
build the tree the compiled walk reads in an arena
(``corpustool/native/sax_arena.pxi``: ``parse_html``'s bytes and options, no lxml
tree to build and free), and the same walk runs over it; the title the clean
stage asks for is found in the same tree (``page.meta["title"]``). In a clean
stage that guesses the language the parse is kept for the guess
(``parse_unparsed``) and walked afterwards. The engine keeps ruby annotations
(justext-plus strips them). A page the fast path gives back is parsed by
``parse_html``: the same paragraphs and title either way
(tests/test_engine_fast_path.py; ``sax_stats()`` counts both). A page parsed
already is walked as it is.
"""
from __future__ import annotations

import dataclasses
import re
from itertools import chain
from typing import Any

from lxml import etree

from ..document import BAD, GOOD, Paragraph
from .base import Extractor, Page, html_bytes, parse_html, register
from .justext_package import params_from_options
from .justext_params import JustextParams

# justext.core.PARAGRAPH_TAGS
PARAGRAPH_TAGS = frozenset({
    "body", "blockquote", "caption", "center", "col", "colgroup", "dd",
    "div", "dl", "dt", "fieldset", "form", "legend", "optgroup", "option",
    "p", "pre", "table", "td", "textarea", "tfoot", "th", "thead", "tr",
    "ul", "li", "h1", "h2", "h3", "h4", "h5", "h6",
})
# Cleaner(scripts, style, embedded, forms, kill_tags=("head",)): subtrees it drops.
# ("base" is killed whenever head is.)
KILLED_TAGS = frozenset({"head", "base", "script", "style", "applet", "button", "input", "select",
                         "textarea"})
# Tags it unwraps (drop_tag): embedded=True and forms=True.
UNWRAPPED_TAGS = frozenset({"form", "iframe", "embed", "layer", "object", "param"})

_HEADING_TAG = re.compile(r"\bh\d\b")          # justext.paragraph.HEADINGS_PATTERN
_WHITESPACE_RUN = re.compile(r"\s\s").search
_NEWLINE_RUN = re.compile(r"\s*[\n\r]\s*")      # a whitespace run that normalises to "\n"
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)


def normalize_text(raw: str) -> str:
    """``normalize_whitespace(raw.strip())`` of justext: runs with a line break -> "\\n", others -> " "."""
    if "\n" not in raw and "\r" not in raw:
        return " ".join(raw.split())
    s = _NEWLINE_RUN.sub("\n", raw).strip()
    return "\n".join([" ".join(line.split()) for line in s.split("\n")])


def _normalized_length(chunk: str) -> int:
    """len(normalize_whitespace(chunk)) for a chunk that is not blank (edges keep one space)."""
    if _WHITESPACE_RUN(chunk) is None:
        return len(chunk)   # every whitespace run is one character already
    words = chunk.split()
    return sum(map(len, words)) + len(words) - 1 + chunk[0].isspace() + chunk[-1].isspace()


# What a tag means to the walk, looked up once per node. Kinds from _KILL on
# are not elements of the cleaned tree (or, _PI, are not elements at all).
_PLAIN, _PARA, _BR, _A, _IMAGE, _KILL, _UNWRAP, _LINK, _COMMENT, _PI, _DEAD = range(11)
_KIND: dict[Any, int] = {
    **{t: _PARA for t in PARAGRAPH_TAGS}, "br": _BR, "a": _A, "image": _IMAGE,
    **{t: _KILL for t in KILLED_TAGS}, **{t: _UNWRAP for t in UNWRAPPED_TAGS}, "link": _LINK,
    etree.Comment: _COMMENT, etree.ProcessingInstruction: _PI, etree.Entity: _COMMENT,
}


class _EndOfTree:
    """Stands after the last node so that the loop closes every open element."""

    def getparent(self) -> None:
        return None


_END = _EndOfTree()


def segment_py(root: etree._Element, keep_blank_separators: bool = False) -> list[tuple]:
    """The paragraphs of ``justext.core.ParagraphMaker`` over the cleaned tree, in one walk (pure Python).

    Returns ``(path_node, chunks, link_chars)`` per paragraph that received
    any text node, in document order. A path node is ``[parent_node, tag,
    position among same-tag siblings, cached path strings]``; ``None`` is the
    empty path of the paragraph that is open before the root element starts.

    The walk is ``root.iter()`` (document order, cheaper than ``iterwalk``);
    an element ends when the next node's parent is not the innermost open
    element, which is when its tail is read.

    ``keep_blank_separators`` departs from the package: a whitespace-only
    chunk, which ParagraphMaker drops (``<b>a</b> <i>b</i>`` reads "ab"),
    becomes one space when the paragraph's text so far ends in a character
    that is not whitespace, so the words on either side stay apart ("a b").
    It counts as one link character inside ``<a>`` (what a " " chunk counts)
    and changes nothing else: no <br> run ends, no paragraph starts or ends.
    """
    keep_blanks = keep_blank_separators
    blocks: list[tuple] = []
    append_block = blocks.append
    kinds = _KIND
    normalized_length = _normalized_length

    node: list | None = None                  # current path
    counts: list[dict | None] = [None]        # same-tag sibling counters per open level
    chunks: list[str] = []                    # text nodes of the open paragraph
    link_chars = 0
    para_node: list | None = None
    in_link = False
    after_br = False
    pending: str | None = None                # text chunk not yet delivered (may still grow)
    dead = False                              # inside a killed subtree
    open_els: list[Any] = [None]
    open_kinds: list[int] = [_PLAIN]
    top: Any = None

    # <head> (killed) is the largest subtree the walk would only skip: the
    # root's killed children are visited alone, without their descendants.
    nodes = chain((root,), *[(child,) if child.tag in KILLED_TAGS else child.iter() for child in root],
                  (_END,))
    for el in nodes:
        parent = el.getparent()
        while top is not parent:
            # -- end of `top` ---------------------------------------------------
            kind = open_kinds.pop()
            open_els.pop()
            if kind < _KILL:
                if pending:
                    # ParagraphMaker.characters(): blank chunks are ignored, others end a <br> run
                    if not pending.isspace():
                        chunks.append(pending)
                        if in_link:
                            link_chars += normalized_length(pending)
                        after_br = False
                    elif keep_blanks and chunks and not chunks[-1][-1].isspace():
                        chunks.append(" ")
                        link_chars += in_link
                    pending = None
                counts.pop()
                node = node[0]
                if kind == _PARA:
                    if chunks:
                        append_block((para_node, chunks, link_chars))
                        chunks = []
                    link_chars = 0
                    para_node = node
                elif kind == _A:
                    in_link = False
                pending = top.tail
            elif kind == _PI:
                pending = top.tail
            elif kind != _DEAD:
                # killed (outermost), unwrapped, comment: the tail joins the text before
                if kind == _KILL:
                    dead = False
                tail = top.tail
                if tail:
                    pending = pending + tail if pending else tail
            top = open_els[-1]
        if el is _END:
            break
        # -- start of `el` ------------------------------------------------------
        if dead:
            open_els.append(el)
            open_kinds.append(_DEAD)
            top = el
            continue
        tag = el.tag
        kind = kinds.get(tag, _PLAIN)
        if kind >= _KILL:
            if kind == _LINK:
                kind = _KILL if "stylesheet" in (el.get("rel") or "").lower() else _PLAIN
            if kind == _KILL:
                dead = True
            elif kind == _UNWRAP:
                text = el.text
                if text:
                    pending = pending + text if pending else text
            elif kind == _PI and pending:
                # processing instructions stay in the cleaned tree: a chunk boundary
                if not pending.isspace():
                    chunks.append(pending)
                    if in_link:
                        link_chars += normalized_length(pending)
                    after_br = False
                elif keep_blanks and chunks and not chunks[-1][-1].isspace():
                    chunks.append(" ")
                    link_chars += in_link
                pending = None
            if kind != _PLAIN:
                open_els.append(el)
                open_kinds.append(kind)
                top = el
                continue
        if pending:
            if not pending.isspace():
                chunks.append(pending)
                if in_link:
                    link_chars += normalized_length(pending)
                after_br = False
            elif keep_blanks and chunks and not chunks[-1][-1].isspace():
                chunks.append(" ")
                link_chars += in_link
            pending = None
        if kind == _IMAGE:
            tag = "img"
        level = counts[-1]
        if level is None:
            position = 1
            counts[-1] = {tag: 1}
        else:
            position = level.get(tag, 0) + 1
            level[tag] = position
        if not len(el):
            # A leaf: its start and end are handled at once and it is never
            # pushed; only a paragraph or <br><br> break needs its path node.
            if kind == _PARA or (kind == _BR and after_br):
                if chunks:
                    append_block((para_node, chunks, link_chars))
                    chunks = []
                link_chars = 0
                para_node = [node, tag, position, None]
            elif kind == _BR:
                after_br = True
                chunks.append(" ")
            else:
                after_br = False
                if kind == _A:
                    in_link = True
            text = el.text
            if text:
                if not text.isspace():
                    chunks.append(text)
                    if in_link:
                        link_chars += normalized_length(text)
                    after_br = False
                elif keep_blanks and chunks and not chunks[-1][-1].isspace():
                    chunks.append(" ")
                    link_chars += in_link
            if kind == _PARA:
                if chunks:
                    append_block((para_node, chunks, link_chars))
                    chunks = []
                link_chars = 0
                para_node = node
            elif kind == _A:
                in_link = False
            pending = el.tail
            continue
        node = [node, tag, position, None]
        counts.append(None)
        if kind == _PARA or (kind == _BR and after_br):
            if chunks:
                append_block((para_node, chunks, link_chars))
                chunks = []
            link_chars = 0
            para_node = node
        elif kind == _BR:
            after_br = True
            chunks.append(" ")
        else:
            after_br = False
            if kind == _A:
                in_link = True
        pending = el.text
        open_els.append(el)
        open_kinds.append(kind)
        top = el

    if pending:
        if not pending.isspace():
            chunks.append(pending)
            if in_link:
                link_chars += normalized_length(pending)
        elif keep_blanks and chunks and not chunks[-1][-1].isspace():
            chunks.append(" ")
            link_chars += in_link
    if chunks:
        append_block((para_node, chunks, link_chars))
    return blocks


# The same walk compiled (corpustool/native/justext_walk.pyx: Cython over lxml's C
# API, built by setup.py when it can be): the same blocks, each paragraph's
# chunks joined into one string, and the features and paragraphs in C too.
# COMPILED says which walk runs; a module that is missing or does not load
# (e.g. built against another lxml) leaves the pure-Python walk in charge.
try:
    from ..native.justext_walk import EvidenceRules, extract_evidence
    from ..native.justext_walk import build as build_compiled
    from ..native.justext_walk import extract as extract_compiled
    from ..native.justext_walk import features as features_compiled
    from ..native.justext_walk import segment as segment_compiled
    COMPILED_ERROR: str | None = None
except Exception as exc:   # noqa: BLE001 - ImportError, or ValueError/TypeError from a binary mismatch
    build_compiled = extract_compiled = features_compiled = segment_compiled = None
    EvidenceRules = extract_evidence = None
    COMPILED_ERROR = f"{type(exc).__name__}: {exc}"
COMPILED = segment_compiled is not None
segment = segment_compiled if COMPILED else segment_py

# justext-plus's fast path (corpustool/native/sax_arena.pxi): a page not parsed yet is
# parsed by lxml's libxml2 straight into the walk's tree, without lxml's tree.
# SAX_PARSE says whether it runs (off when lxml's libxml2 is another version
# than the extension's headers or does not export its functions: SAX_ERROR).
# The engine's own fast path (extract_html, SaxPage.extract) is the same parse walked by the
# engine's walk (JustextEngineExtractor.extract); sax_stats() counts its pages too.
try:
    from ..native.justext_walk import (SAX_AVAILABLE, SAX_ERROR, extract_evidence_html, extract_html, sax_build,
                                 sax_outline, sax_page, sax_stats)
except Exception as exc:   # noqa: BLE001 - an extension built before the fast path
    SAX_AVAILABLE, SAX_ERROR = False, f"{type(exc).__name__}: {exc}"
    extract_evidence_html = extract_html = sax_build = sax_outline = sax_page = sax_stats = None
SAX_PARSE = COMPILED and SAX_AVAILABLE


# Paragraph.__init__ is a large part of the per-paragraph cost; when the
# dataclass's constructor sets exactly the fields filled below (and nothing
# else: no __post_init__), the engine fills a new object itself: its slots
# (Paragraph is a slotted dataclass: SLOT_FIELDS of the compiled walk, the
# init=False cache _words included) or, for a class without slots, its
# instance dict. A field with init=False and no default_factory is never set by
# __init__ but for its default, so it does not stop the fast path; any other
# new field makes the engine use the constructor again.
_ENGINE_FIELDS = {"text", "cls", "cf_class", "heading", "tag", "dom_path", "xpath", "reason", "features", "lang",
                  "lang_score", "tokens", "glue"}
_SLOTTED = "__slots__" in Paragraph.__dict__
_FAST_PARAGRAPH_INIT = (
    {f.name for f in dataclasses.fields(Paragraph) if f.init} == _ENGINE_FIELDS
    and all(f.default_factory is dataclasses.MISSING for f in dataclasses.fields(Paragraph) if not f.init)
    and not hasattr(Paragraph, "__post_init__")
    and (not _SLOTTED or set(Paragraph.__slots__) == _ENGINE_FIELDS | {"_words"}))

_HEADING_CACHE: dict[str, bool] = {}


def path_info(node: list | None) -> tuple[str, str, bool]:
    """(dom_path, xpath, heading) of a path node, cached in the node's last slot.

    ``HEADINGS_PATTERN.search(dom_path)`` is decided tag by tag: the pattern
    has no dot and the dots are word boundaries.
    """
    if node is None:
        return "", "/", False
    info = node[3]
    if info is not None:
        return info
    missing = []
    while node is not None and node[3] is None:
        missing.append(node)
        node = node[0]
    dom, xpath, heading = ("", "", False) if node is None else node[3]
    cache = _HEADING_CACHE
    for node in reversed(missing):
        tag = node[1]
        dom = f"{dom}.{tag}" if dom else tag
        xpath = f"{xpath}/{tag}[{node[2]}]"
        if not heading:
            heading = cache.get(tag)
            if heading is None:
                heading = _HEADING_TAG.search(tag) is not None
                if len(cache) < 4096:   # tag names come from pages: keep the cache bounded
                    cache[tag] = heading
        info = node[3] = (dom, xpath, heading)
    return info


def classify(rows: list[tuple], params: JustextParams) -> tuple[list[str], list[str]]:
    """Context-free classes (Algorithm 2.2) and final classes (Algorithm 2.3 with the headings rule).

    ``rows[i]`` is ``(text, dom_path, heading, length in the chosen unit,
    link density, stop-word density, characters inside links)``.
    """
    p = params
    length_low, length_high = p.length_low, p.length_high
    stopwords_low, stopwords_high = p.stopwords_low, p.stopwords_high
    max_link_density = p.max_link_density

    # -- Algorithm 2.2: context-free classes --------------------------------
    cf: list[str] = []
    add = cf.append
    for text, dom_path, _, length, link_density, stop_density, link_chars in rows:
        if link_density > max_link_density:
            add("bad")
        elif "\xa9" in text or "&copy" in text:
            add("bad")
        elif "select" in dom_path:
            add("bad")
        elif length < length_low:
            add("bad" if link_chars > 0 else "short")
        elif stop_density >= stopwords_high:
            add("good" if length > length_high else "neargood")
        elif stop_density >= stopwords_low:
            add("neargood")
        else:
            add("bad")

    # -- Algorithm 2.3 -------------------------------------------------------
    # The package's first headings pass ("short heading before a good paragraph
    # -> neargood") compares with the classes of the *following* paragraphs
    # before it has copied them from cf_class, so it never fires in justext
    # 3.0.2 and is not reproduced (see docs/justext_engine.md).
    n = len(cf)
    cls = cf[:]
    # Short blocks take their class from the nearest good/bad paragraph on
    # each side (the document edges count as bad) and, when those disagree,
    # from a neargood paragraph next to the bad side. Forward pass: left side.
    left: dict[int, tuple[str, str]] = {}
    last_gb = last_any = "bad"
    for i, c in enumerate(cf):
        if c == "short":
            left[i] = (last_gb, last_any)
        elif c == "neargood":
            last_any = c
        else:
            last_gb = last_any = c
    # Backward pass: right side, and resolve. Shorts never see each other
    # (they skip shorts), so resolving them in any order is the package's
    # two-step "collect new classes, then apply".
    if left:
        last_gb = last_any = "bad"
        for i in range(n - 1, -1, -1):
            c = cf[i]
            if c == "short":
                prev, prev_any = left[i]
                if prev == "good" and last_gb == "good":
                    cls[i] = "good"
                elif prev == "bad" and last_gb == "bad":
                    cls[i] = "bad"
                elif (prev == "bad" and prev_any == "neargood") or (last_gb == "bad" and last_any == "neargood"):
                    cls[i] = "good"
                else:
                    cls[i] = "bad"
            elif c == "neargood":
                last_any = c
            else:
                last_gb = last_any = c
    # Neargood blocks, decided left to right: the left neighbour is already
    # good or bad, the right one is the nearest good/bad skipping undecided
    # neargood ones.
    if "neargood" in cls:
        right: list[str] = [""] * n
        last_gb = "bad"
        for i in range(n - 1, -1, -1):
            c = cls[i]
            right[i] = last_gb
            if c != "neargood":
                last_gb = c
        prev = "bad"
        for i in range(n):
            c = cls[i]
            if c == "neargood":
                c = cls[i] = "bad" if prev == "bad" and right[i] == "bad" else "good"
            prev = c
    # More good headings: a heading that is bad only by context becomes good
    # when a good paragraph starts within max_heading_distance characters.
    max_distance = p.max_heading_distance
    for i in range(n):
        if not (rows[i][2] and cls[i] == "bad" and cf[i] != "bad"):
            continue
        j = i + 1
        distance = 0
        while j < n and distance <= max_distance:
            if cls[j] == "good":
                cls[i] = "good"
                break
            distance += len(rows[j][0])
            j += 1
    return cf, cls


def paragraph_rows(blocks: list[tuple], stoplist: frozenset[str]) -> list[tuple]:
    """Per block of :func:`segment`: ``(text, dom_path, xpath, heading, chars, words, stop words,
    link chars)``; blocks whose normalised text is empty are no paragraphs.

    The compiled walk's ``features`` computes the same rows during the walk.
    """
    contains = stoplist.__contains__
    rows: list[tuple] = []
    append = rows.append
    for node, chunks, link_chars in blocks:
        raw = chunks[0] if len(chunks) == 1 else "".join(chunks)
        if "\n" in raw or "\r" in raw:
            text = normalize_text(raw)
            words = text.split()
        else:
            words = raw.split()
            text = " ".join(words)
        if not text:
            # ParagraphMaker tests ``if self.paragraph`` (len(text), or its
            # word count): a block of only <br> or spaces is dropped
            continue
        stop = sum(map(contains, map(str.lower, words)))
        dom_path, xpath, heading = path_info(node)
        append((text, dom_path, xpath, heading, len(text), len(words), stop, link_chars))
    return rows


# The shared parse of the clean stage is the one this engine wants.
parse_markup = parse_html


@register("justext")
class JustextEngineExtractor(Extractor):
    """jusText (seed 003, Sect. 2.7) by our own one-pass engine; same decisions as justext 3.0.2."""

    needs_stoplist = True
    parses_unparsed = True      # into the walk's tree by libxml2's SAX calls (extract)
    description = "jusText by our one-pass engine (the classes of justext 3.0.2, several times faster)"

    def __init__(self, **options: Any) -> None:
        self.params = params_from_options(options)
        self.independent_params = self.params.language_independent()

    def params_for(self, page: Page) -> JustextParams:
        """The page's parameters: language-independent when the clean stage found no stoplist for it."""
        return self.independent_params if page.meta.get("language_independent") else self.params

    def parse_unparsed(self, page: Page) -> Any:
        """The SAX parse into the walk's tree (:func:`sax_page`), for the clean stage's language
        guess and then :meth:`extract`; None when the page needs lxml's tree."""
        if page._tree_done or not (COMPILED and SAX_PARSE):
            return None
        data = html_bytes(page.html)
        if not data:
            return None        # parse_html makes no tree of it: the stage sees page.tree None
        return sax_page(data)

    def extract(self, page: Page) -> list[Paragraph]:
        own = page.own_parse
        if own is not None and not page._tree_done:
            # the parse the clean stage kept for the language guess: walked once, then freed
            page.own_parse = None
            paras = self._finish_sax(page, own.extract(page.stoplist or frozenset(), self.params_for(page), Paragraph,
                                                       _FAST_PARAGRAPH_INIT, GOOD, BAD))
            if paras is not None:
                return paras
        elif not page._tree_done and COMPILED and SAX_PARSE:
            # a page nobody has parsed: libxml2 parses it straight
            # into the compiled walk's tree, without lxml's tree to build and free
            data = html_bytes(page.html)
            if not data:
                return []      # parse_html makes no tree of it
            paras = self._finish_sax(page, extract_html(data, page.stoplist or frozenset(), self.params_for(page),
                                                        Paragraph, _FAST_PARAGRAPH_INIT, GOOD, BAD))
            if paras is not None:
                return paras
        root = page.tree
        if root is None:
            return []
        stoplist = page.stoplist or frozenset()
        params = self.params_for(page)
        if COMPILED:
            return extract_compiled(root, stoplist, params, Paragraph, _FAST_PARAGRAPH_INIT, GOOD, BAD)
        return self.build_py(paragraph_rows(segment_py(root), stoplist), params)

    @staticmethod
    def _finish_sax(page: Page, found: Any) -> list[Paragraph] | None:
        """The paragraphs of a SAX parse's walk ``found`` = (paragraphs, has_root, title), the
        page's title kept; None when ``found`` is (the page needs lxml's tree)."""
        if found is None:
            return None
        paras, has_root, title = found
        if has_root and "title" not in page.meta:
            # Extractor.title's string, from the same element of the same tree (kept: the
            # clean stage asks for it, and the page has no tree to find it in)
            page.meta["title"] = (" ".join(title.split()) or None) if title is not None else None
        return paras

    def paragraphs(self, blocks: list[tuple], stoplist: frozenset[str],
                   params: JustextParams | None = None) -> list[Paragraph]:
        """Text, features and classes of the blocks of :func:`segment`."""
        return self.build(paragraph_rows(blocks, stoplist), params)

    def build(self, rows: list[tuple], params: JustextParams | None = None) -> list[Paragraph]:
        """Paragraphs with their features and classes from the rows of :func:`paragraph_rows`."""
        if not COMPILED:
            return self.build_py(rows, params)
        return build_compiled(rows, params or self.params, Paragraph, _FAST_PARAGRAPH_INIT, GOOD, BAD)

    def build_py(self, rows: list[tuple], params: JustextParams | None = None) -> list[Paragraph]:
        """:meth:`build` in Python (the compiled ``build`` is this loop and :func:`classify` compiled)."""
        params = params or self.params
        tokens = params.length_unit == "tokens"
        headings = not params.no_headings
        new = object.__new__
        fast_init = _FAST_PARAGRAPH_INIT
        out: list[Paragraph] = []
        decide: list[tuple] = []
        for text, dom_path, xpath, heading, n_chars, n_words, stop, link_chars in rows:
            link_density = link_chars / n_chars
            stop_density = stop / n_words
            heading = heading and headings
            fields = {
                "text": text, "cls": GOOD, "cf_class": "", "heading": heading,
                "tag": dom_path.rpartition(".")[2], "dom_path": dom_path, "xpath": xpath,
                "reason": None,
                "features": {
                    "chars": n_chars,
                    "words": n_words,
                    "link_density": round(link_density, 4) if link_chars else 0.0,
                    "stopwords": stop,
                    "stopword_density": round(stop_density, 4) if stop else 0.0,
                },
                "lang": None, "lang_score": None, "tokens": None, "glue": None,
            }
            if fast_init and not _SLOTTED:
                par = new(Paragraph)
                par.__dict__ = fields
            else:
                par = Paragraph(**fields)
            out.append(par)
            decide.append((text, dom_path, heading, n_words if tokens else n_chars, link_density, stop_density,
                           link_chars))
        cf, final = classify(decide, params)
        for par, cf_class, c in zip(out, cf, final):
            par.cf_class = cf_class
            if c != "good":
                par.cls = BAD
                par.reason = "boilerplate"
        return out
