"""The interface every page-level extractor implements: the page it sees, the class it extends.

An extractor receives a :class:`Page` (decoded markup, a lazily parsed lxml
tree shared by everyone who needs it, the stoplist chosen for the page's
language) and returns the page's paragraphs, each classified ``good`` or
``bad`` with the method's own features. Boilerplate stays in the list, marked
``bad``: the evaluation and later stages need to see it.

An extractor class is named with :func:`register`; the table of every
extractor by name, :func:`get_extractor` and :func:`available` are in
:mod:`corpustool.extractors.registry`. A site-level extractor sets
``stream_stage``: the stage class that decides in stream order, after the
page-level pass.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from lxml import etree

from ..document import Paragraph
from ..errors import OptionError
from ..native import backend

_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)


def parse_html(html: str) -> etree._Element | None:
    """Parse decoded markup once for every extractor; None when there is nothing to parse.

    libxml2's HTML parser through plain lxml elements (not ``lxml.html``'s
    Python element classes, which make every walk over the tree about twice
    as slow), from UTF-8 bytes, without comments (the text around a comment
    becomes one text node, as after the justext package's Cleaner) and
    without a table of ids. The XML declaration, meaningless once decoded, is
    stripped, and so are NUL characters.

    A page nested deeper than libxml2's 256 open elements (a page of unclosed ``<font>``
    or ``<b>`` tags gets there: a browser shows all of it) is parsed again without that
    limit (up to 2048) and flattened to :data:`MAX_TREE_DEPTH` (:func:`flatten_deep`).
    """
    global _last_parser
    data = html_bytes(html)
    if data is None:
        return None
    _last_parser = _HTML_PARSER
    try:
        root = etree.fromstring(data, _HTML_PARSER)
    except (etree.ParserError, ValueError, etree.XMLSyntaxError):
        return None
    if root is not None and _stopped_by_depth(_HTML_PARSER):
        _last_parser = _DEEP_HTML_PARSER
        try:
            deep = etree.fromstring(data, _DEEP_HTML_PARSER)
        except (etree.ParserError, ValueError, etree.XMLSyntaxError):
            deep = None
        if deep is not None:
            flatten_deep(deep)
            return deep
        _last_parser = _HTML_PARSER
    return root


def parse_stopped_early() -> str | None:
    """Why the last :func:`parse_html` stopped before the end of its page (libxml2's message), or
    None: libxml2 halts at a resource limit (2048 open elements, parsed again after 256; 10 MB of
    text in one node), and the rest of the page is not in the tree. (A fatal error ends the parse:
    it is the parser's last error.)"""
    last = _last_parser.error_log.last_error
    if last is None or last.type != etree.ErrorTypes.ERR_RESOURCE_LIMIT:
        return None
    return (last.message or "a resource limit").strip()


def _stopped_by_depth(parser: etree.HTMLParser) -> bool:
    last = parser.error_log.last_error
    return (last is not None and last.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT
            and "depth" in (last.message or ""))


# elements of a flattened tree deeper than this are unwrapped: their text joins their
# ancestor's (as deep as the SAX tree of justext-plus's fast path goes, below libxml2's 256)
MAX_TREE_DEPTH = 250
# what is no text: removed, not unwrapped, when it sits that deep with elements inside
_NO_TEXT_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "math", "select", "head", "iframe",
                           "object", "textarea"})
_UNWRAP, _REMOVE = "corpustool-unwrapped", "corpustool-removed"


def flatten_deep(root: etree._Element, max_depth: int = MAX_TREE_DEPTH) -> int:
    """Unwrap the elements with element children deeper than ``max_depth`` (the root is at depth
    1): their text, tails and childless elements (``<br>``, ``<img>``) stay in place, at most one
    level below ``max_depth``. Every walk over the tree then goes no deeper than it did
    when libxml2 stopped at 256, and every path stays as long. Returns how many elements went."""
    marked = 0
    stack = [(root, 1)]
    while stack:
        el, depth = stack.pop()
        for child in el:
            if not isinstance(child.tag, str):
                continue            # (processing instructions, entities)
            if depth + 1 > max_depth and len(child):
                child.tag = _REMOVE if child.tag in _NO_TEXT_TAGS else _UNWRAP
                marked += 1
            stack.append((child, depth + 1))
    if marked:
        etree.strip_elements(root, _REMOVE, with_tail=False)
        etree.strip_tags(root, _UNWRAP)
    return marked


def html_bytes(html: str) -> bytes | None:
    """The bytes :func:`parse_html` gives libxml2 (None: nothing to parse); shared with the
    SAX parse of justext-plus's fast path, which must read exactly the same input."""
    if not html or html.isspace():
        return None
    html = _XML_DECLARATION.sub("", html, count=1)
    if _utf8_bytes is not None:
        return _utf8_bytes(html)
    data = html.encode("utf-8", "surrogatepass")
    if b"\x00" in data:   # U+0000 is the only character with a zero byte in UTF-8
        data = data.replace(b"\x00", b"")
    return data


# the same bytes from a compiled encoder (corpustool/native/text_scan.pyx): half the time of str.encode
_utf8_bytes = backend.text_scan.get("utf8_bytes")


# (libxml2 stops at 256 open elements, and the rest of the page would be lost: such a page is
# parsed again with its HUGE option, huge_tree, which stops at 2048, and flattened back to the
# depth the first parser allows, for the recursive walks of several extractors (urltree's, ...))
_HTML_PARSER = etree.HTMLParser(remove_comments=True, encoding="utf-8", collect_ids=False)
_DEEP_HTML_PARSER = etree.HTMLParser(remove_comments=True, encoding="utf-8", collect_ids=False, huge_tree=True)
_last_parser = _HTML_PARSER      # the parser of the last parse_html (parse_stopped_early reads its log)


class Page:
    """What an extractor sees of one document."""

    __slots__ = ("html", "url", "language", "stoplist", "_tree", "_tree_done", "meta", "own_parse")

    def __init__(self, html: str, url: str | None = None, language: str | None = None,
                 stoplist: frozenset[str] | None = None, tree: Any = None) -> None:
        self.html = html
        self.url = url
        self.language = language
        self.stoplist = stoplist
        self._tree = tree
        self._tree_done = tree is not None
        self.meta: dict[str, Any] = {}
        # the extractor's own parse of the page (Extractor.parse_unparsed), kept by the clean
        # stage for the language guess and the extraction when nobody needs lxml's tree
        self.own_parse: Any = None

    @property
    def parsed(self) -> bool:
        """Whether lxml's tree of the page is made (given, or parsed on a use of :attr:`tree`)."""
        return self._tree_done

    def take_own_parse(self) -> Any:
        """The extractor's own parse kept in :attr:`own_parse` (None if none), handed over once."""
        own, self.own_parse = self.own_parse, None
        return own

    @property
    def tree(self) -> etree._Element | None:
        """The parsed page (parsed once, on first use)."""
        if not self._tree_done:
            self._tree = parse_html(self.html)
            self._tree_done = True
            if self._tree is not None:
                why = parse_stopped_early()
                if why is not None:
                    self.meta["truncated"] = why     # the clean stage counts it and names the page
        return self._tree


class Extractor:
    """Base class: subclasses set ``name`` and implement :meth:`extract`."""

    name = ""
    needs_stoplist = False      # True for methods driven by stop-word density
    # True when extract() parses a page nobody has parsed its own, cheaper way: the clean
    # stage then parses first only when it needs the tree itself (the language guess)
    parses_unparsed = False
    description = ""

    def __init__(self, **options: Any) -> None:
        if options:
            raise OptionError(f"extractor {self.name!r} takes no options: {', '.join(sorted(options))}")

    def extract(self, page: Page) -> list[Paragraph]:
        raise NotImplementedError

    def parse_unparsed(self, page: Page) -> Any:
        """The extractor's own parse of an unparsed page, to be kept in ``page.own_parse`` for the
        language guess (``own_parse.page_text()``, the string ``identify.page_text`` gives of lxml's
        tree; ``own_parse.has_root``: lxml makes a tree of the page) and :meth:`extract`; None
        when it has none for this page (then lxml's tree serves both)."""
        return None

    # -- what the clean stage asks of a page (it does not know who parsed it) ----------------
    def prepare(self, page: Page, language_guess: bool) -> None:
        """Before the clean stage's language guess (``language_guess``: it will ask for
        :meth:`page_text`): an extractor with a parse of its own parses the page now, so the
        guess and :meth:`extract` share it and lxml's tree is never made."""
        if language_guess and self.parses_unparsed:
            page.own_parse = self.parse_unparsed(page)

    def page_text(self, page: Page) -> str:
        """The page's text without scripts and style sheets, for the language guess."""
        own = page.own_parse
        if own is not None:
            return own.page_text()
        from ..language.identify import page_text
        return page_text(page.tree)

    def is_empty(self, page: Page, language_guess: bool) -> bool:
        """Known before :meth:`extract`: the page has no element (the HTML parser makes no tree
        of it). False when only the extraction will tell (an extractor with its own parse)."""
        if page.own_parse is not None:
            return not page.own_parse.has_root
        return (language_guess or not self.parses_unparsed) and page.tree is None

    def title(self, page: Page) -> str | None:
        # asked for by the extractor and by the clean stage: found once per page
        if "title" in page.meta:
            return page.meta["title"]
        tree = page.tree
        if tree is None:
            return None
        # (the head first: a search of the whole tree for a page without a title costs a walk)
        t = tree.find("head/title")
        if t is None:
            t = tree.find(".//title")
        text = " ".join("".join(t.itertext()).split()) if t is not None else ""
        page.meta["title"] = text or None
        return text or None


def register(name: str) -> Callable[[type], type]:
    """Name an extractor class (``corpustool build --extractor NAME``); the table in
    :mod:`corpustool.extractors.registry` lists the class."""
    def deco(cls: type) -> type:
        cls.name = name
        return cls
    return deco
