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
reference). ``WALK`` is the backend object the extractors call (``CompiledWalk`` or
``PythonWalk``, as :mod:`corpustool.native.backend` chose; ``WALK.compiled`` and
``backend.walk.reason`` say which and why);
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
(tests/native/test_backend_parity.py; ``sax_stats()`` counts both). A page parsed
already is walked as it is.
"""
from __future__ import annotations

import dataclasses
import re
from itertools import chain
from typing import Any, Sequence

from lxml import etree

from ..document import BAD, GOOD, Paragraph
from .base import Extractor, Page, html_bytes, parse_html, register
from .justext_package import params_from_options
from .justext_params import JustextParams
from ..native import backend

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


# The same walk compiled (corpustool/native/justext_walk.pyx: Cython over lxml's C
# API, built by setup.py when it can be): the same blocks, each paragraph's
# chunks joined into one string, and the features and paragraphs in C too; and
# justext-plus's fast path (corpustool/native/sax_arena.pxi): a page not parsed yet is
# parsed by lxml's libxml2 straight into the walk's tree, without lxml's tree.
# corpustool.native.backend chose whether they run (``backend.walk``, ``backend.sax``);
# WALK below is the one object the extractors call, compiled or Python.


@dataclasses.dataclass(frozen=True)
class ParagraphOutput:
    """What the compiled walk makes its paragraphs of: the class, whether it may fill a new
    object's fields itself (:data:`_FAST_PARAGRAPH_INIT`) and the two class names."""

    paragraph_type: type = Paragraph
    fast_init: bool = _FAST_PARAGRAPH_INIT
    good: str = GOOD
    bad: str = BAD


@dataclasses.dataclass(frozen=True)
class EvidenceSettings:
    """justext-plus's questions to the walk: its structural-evidence rules (the compiled
    ``EvidenceRules``) and whether whitespace between inline elements is kept as a space."""

    rules: Any
    keep_blank_separators: bool = True


class PythonWalk:
    """The walk in Python over lxml's tree; no parse of its own (every method that would
    need one answers None: the caller uses lxml's tree) and no structural evidence in the
    walk (justext-plus queries the tree)."""

    compiled = False
    has_parse = False   # a parse of its own (the SAX parse into the walk's tree)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def segment(self, root: Any, keep_blank_separators: bool = False) -> list[tuple]:
        return segment_py(root, keep_blank_separators=keep_blank_separators)

    def paragraphs(self, engine: JustextEngineExtractor, root: Any, stoplist: frozenset[str],
                   params: JustextParams) -> list[Paragraph]:
        return engine.build_py(paragraph_rows(segment_py(root), stoplist), params)

    def build(self, engine: JustextEngineExtractor, rows: list[tuple], params: JustextParams) -> list[Paragraph]:
        return engine.build_py(rows, params)

    def parse(self, data: bytes) -> Any:
        return None

    def paragraphs_html(self, data: bytes, stoplist: frozenset[str], params: JustextParams) -> Any:
        return None

    def evidence(self, root: Any, stoplist: frozenset[str], params: JustextParams,
                 settings: EvidenceSettings) -> Any:
        return None

    def evidence_html(self, data: bytes, strip_ruby: bool, stoplist: frozenset[str], params: JustextParams,
                      settings: EvidenceSettings) -> Any:
        return None

    def evidence_rules(self, *fields: Any) -> Any:
        return None

    def paragraphs_of_parse(self, own: Any, stoplist: frozenset[str], params: JustextParams) -> Any:
        return None

    def evidence_of_page(self, page: Page, stoplist: frozenset[str], params: JustextParams,
                         settings: EvidenceSettings) -> tuple | None:
        return None

    def evidence_of_parse(self, own: Any, stoplist: frozenset[str], params: JustextParams,
                          settings: EvidenceSettings) -> Any:
        return None


class CompiledWalk(PythonWalk):
    """The compiled walk (``justext_walk``), with its SAX parse when ``sax``: each method the
    Python walk's, with the class and constants of :class:`ParagraphOutput` passed along."""

    compiled = True

    def __init__(self, module: Any, sax: bool, reason: str, out: ParagraphOutput = ParagraphOutput()) -> None:
        super().__init__(reason)
        self.module = module
        self.has_parse = sax
        self.out = (out.paragraph_type, out.fast_init, out.good, out.bad)
        self.segment = module.segment   # type: ignore[method-assign]

    def paragraphs(self, engine: JustextEngineExtractor, root: Any, stoplist: frozenset[str],
                   params: JustextParams) -> list[Paragraph]:
        return self.module.extract(root, stoplist, params, *self.out)

    def build(self, engine: JustextEngineExtractor, rows: list[tuple], params: JustextParams) -> list[Paragraph]:
        return self.module.build(rows, params, *self.out)

    def parse(self, data: bytes) -> Any:
        """The SAX parse into the walk's tree (a ``SaxPage``: ``has_root``, ``page_text()``,
        ``extract``/``extract_evidence``); None without the SAX parse."""
        return self.module.sax_page(data) if self.has_parse else None

    def paragraphs_html(self, data: bytes, stoplist: frozenset[str], params: JustextParams) -> Any:
        """(paragraphs, has_root, title) of a page's bytes through the SAX parse; None when the
        page needs lxml's tree."""
        if not self.has_parse:
            return None
        return self.module.extract_html(data, stoplist, params, *self.out)

    def evidence(self, root: Any, stoplist: frozenset[str], params: JustextParams,
                 settings: EvidenceSettings) -> Any:
        """(paragraphs, PageTree) of lxml's tree in one walk; None for an element that is not
        its tree's root (justext-plus then queries the tree)."""
        if root.getroottree().getroot() is not root:
            return None
        return self.module.extract_evidence(root, stoplist, params, *self.out, settings.rules,
                                            keep_blank_separators=settings.keep_blank_separators)

    def evidence_html(self, data: bytes, strip_ruby: bool, stoplist: frozenset[str], params: JustextParams,
                      settings: EvidenceSettings) -> Any:
        """(paragraphs, PageTree, title) of a page's bytes through the SAX parse; None when the
        page needs lxml's tree."""
        if not self.has_parse:
            return None
        return self.module.extract_evidence_html(data, strip_ruby, stoplist, params, *self.out, settings.rules,
                                                 keep_blank_separators=settings.keep_blank_separators)

    def evidence_rules(self, *fields: Any) -> Any:
        return self.module.EvidenceRules(*fields)

    def paragraphs_of_parse(self, own: Any, stoplist: frozenset[str], params: JustextParams) -> Any:
        """:meth:`paragraphs_html` of a parse :meth:`parse` made (walked once)."""
        return own.extract(stoplist, params, *self.out)

    def evidence_of_parse(self, own: Any, stoplist: frozenset[str], params: JustextParams,
                          settings: EvidenceSettings) -> Any:
        """:meth:`evidence_html` of a parse :meth:`parse` made (walked once)."""
        return own.extract_evidence(stoplist, params, *self.out, settings.rules, settings.keep_blank_separators)

    def evidence_of_page(self, page: Page, stoplist: frozenset[str], params: JustextParams,
                         settings: EvidenceSettings) -> tuple | None:
        """(paragraphs, PageTree, title, bytes parsed) of a page nobody has parsed, by the SAX
        parse (the one the clean stage kept for the language guess, walked once and freed, or
        one made now; ruby annotations stripped); the title is kept in ``page.meta``. None
        when the page is parsed already or needs lxml's tree."""
        if page.parsed or not self.has_parse:
            return None
        own = page.take_own_parse()
        if own is not None:
            data = None
            found = self.evidence_of_parse(own, stoplist, params, settings)
        else:
            data = html_bytes(page.html)
            if not data:
                return [], None, None, None    # parse_html makes no tree of it
            found = self.evidence_html(data, True, stoplist, params, settings)
        if found is None:
            return None
        paras, tree, title = found
        if tree is None:
            return paras, None, None, data     # no root element: parse_html makes no tree of it
        return paras, tree, keep_title(page, title), data


def python_walk() -> PythonWalk:
    """The pure-Python walk (what ``CORPUSTOOL_BACKEND=python`` runs): tests put it in WALK's place."""
    return PythonWalk("python (a test's choice)")


def walk_without_parse() -> PythonWalk:
    """The compiled walk without its SAX parse (lxml's tree only), when it is built."""
    return CompiledWalk(backend.walk.module, False, "compiled, no SAX parse (a test's choice)") \
        if backend.walk.compiled else python_walk()


def keep_title(page: Page, title: str | None) -> str | None:
    """The title of a page the SAX parse read, kept in ``page.meta`` (Extractor.title's string, from
    the same element of the same tree: the clean stage asks for it, and the page has no tree)."""
    if "title" not in page.meta:
        page.meta["title"] = (" ".join(title.split()) or None) if title is not None else None
    return page.meta["title"]


WALK: PythonWalk = (CompiledWalk(backend.walk.module, backend.sax.compiled, backend.walk.reason)
                    if backend.walk.compiled else PythonWalk(backend.walk.reason))

segment = WALK.segment
_walk_module = backend.walk.module
extract_compiled = getattr(_walk_module, "extract", None)
features_compiled = getattr(_walk_module, "features", None)
segment_compiled = getattr(_walk_module, "segment", None)
extract_evidence = getattr(_walk_module, "extract_evidence", None)
_sax_module = backend.sax.module
extract_evidence_html = getattr(_sax_module, "extract_evidence_html", None)
extract_html = getattr(_sax_module, "extract_html", None)
sax_build = getattr(_sax_module, "sax_build", None)
sax_outline = getattr(_sax_module, "sax_outline", None)
sax_page = getattr(_sax_module, "sax_page", None)
sax_stats = getattr(_sax_module, "sax_stats", None)

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
    cls = revise(cf, [r[2] for r in rows], [r[0] for r in rows], p.max_heading_distance)
    return cf, cls


def revise(cf: list[str], headings: Sequence[bool], texts: Sequence[str], max_heading_distance: int) -> list[str]:
    """jusText's context-sensitive revision (Algorithm 2.3, with the headings rule) of the
    context-free classes ``cf``: the final classes. :func:`classify` applies it to jusText's own
    context-free classes, justext-learned to its model's."""
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
    for i in range(n):
        if not (headings[i] and cls[i] == "bad" and cf[i] != "bad"):
            continue
        j = i + 1
        distance = 0
        while j < n and distance <= max_heading_distance:
            if cls[j] == "good":
                cls[i] = "good"
                break
            distance += len(texts[j])
            j += 1
    return cls


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
        """The SAX parse into the walk's tree (``WALK.parse``), for the clean stage's language
        guess and then :meth:`extract`; None when the page needs lxml's tree."""
        if page.parsed or not WALK.has_parse:
            return None
        data = html_bytes(page.html)
        if not data:
            return None        # parse_html makes no tree of it: the stage sees page.tree None
        return WALK.parse(data)

    def extract(self, page: Page) -> list[Paragraph]:
        stoplist = page.stoplist or frozenset()
        params = self.params_for(page)
        if not page.parsed and WALK.has_parse:
            own = page.take_own_parse()
            if own is not None:
                # the parse the clean stage kept for the language guess: walked once, then freed
                found = WALK.paragraphs_of_parse(own, stoplist, params)
            else:
                # a page nobody has parsed: libxml2 parses it straight into the compiled walk's
                # tree, without lxml's tree to build and free (None: it needs lxml's tree)
                data = html_bytes(page.html)
                if not data:
                    return []      # parse_html makes no tree of it
                found = WALK.paragraphs_html(data, stoplist, params)
            paras = self._finish_sax(page, found)
            if paras is not None:
                return paras
        root = page.tree
        if root is None:
            return []
        return WALK.paragraphs(self, root, stoplist, params)

    @staticmethod
    def _finish_sax(page: Page, found: Any) -> list[Paragraph] | None:
        """The paragraphs of a SAX parse's walk ``found`` = (paragraphs, has_root, title), the
        page's title kept; None when ``found`` is (the page needs lxml's tree)."""
        if found is None:
            return None
        paras, has_root, title = found
        if has_root:
            keep_title(page, title)
        return paras

    def paragraphs(self, blocks: list[tuple], stoplist: frozenset[str],
                   params: JustextParams | None = None) -> list[Paragraph]:
        """Text, features and classes of the blocks of :func:`segment`."""
        return self.build(paragraph_rows(blocks, stoplist), params)

    def build(self, rows: list[tuple], params: JustextParams | None = None) -> list[Paragraph]:
        """Paragraphs with their features and classes from the rows of :func:`paragraph_rows`."""
        return WALK.build(self, rows, params or self.params)

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
