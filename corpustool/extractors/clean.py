"""The clean stage: decode, choose the stoplist, run an extractor.

Per document: bytes are decoded (:mod:`corpustool.encoding`), the page is
parsed once, its language is guessed from stop-word density when more than
one language is possible (the stoplist must match the page's language, or
jusText keeps almost nothing), and the extractor classifies the paragraphs.
Documents without any good paragraph are dropped with a reason.
"""
from __future__ import annotations

import re
import time
from typing import Any

from .. import encoding, page_type
from ..document import BAD, Document
from ..readers.http import ENCODED, PayloadError, TruncatedPayload, decode_content
from ..stage import DocumentStage
from ..text.normalize import clean_text
from ..text_types import page_metadata
from ..errors import OptionError, say_line
from .base import Page
from .registry import get_extractor
from ..options import check, default

DEFAULT_EXTRACTOR = "justext-plus"
DEFAULT_MAX_BYTES = default("max_bytes")
# Blocks a page may have (start tags that begin a paragraph: jusText's paragraph tags, and every
# second <br>); a page with more is dropped as "too-many-paragraphs" before it is parsed. Each
# paragraph costs about 1 KB in the clean stage whatever its length (its Paragraph object, its
# features dict, its XPath, the parsed nodes: bench_big_page.py), so 100,000 blocks stay near
# 100 MB, half of the 20x of a page at --max-bytes (10 MiB); a 5 MB article page has
# about 18,000 (bench_big_page.py's).
DEFAULT_MAX_PARAGRAPHS = default("max_paragraphs")
# the tags of justext_engine.PARAGRAPH_TAGS and br, as libxml2 reads a tag name (ASCII letters,
# digits and ":._-"; any case)
_BLOCK_TAGS = ("body", "blockquote", "caption", "center", "col", "colgroup", "dd", "div", "dl", "dt",
               "fieldset", "form", "legend", "optgroup", "option", "p", "pre", "table", "td", "textarea",
               "tfoot", "th", "thead", "tr", "ul", "li", "h1", "h2", "h3", "h4", "h5", "h6")
_BLOCK_START = re.compile(r"<(?:%s)(?![A-Za-z0-9:._-])" % "|".join(sorted(_BLOCK_TAGS, key=len, reverse=True)),
                          re.IGNORECASE)
_BR_START = re.compile(r"<br(?![A-Za-z0-9:._-])", re.IGNORECASE)


def count_blocks(html: str, limit: int | None = None) -> int:
    """Start tags in ``html`` that begin a paragraph (jusText's paragraph tags) plus half its
    ``<br>`` tags: about the paragraphs the page can make (text before, inside and after a block
    makes at most three). With ``limit``, a page that certainly has at most ``limit`` blocks is
    not scanned: one of at most ``2 * limit`` characters (a block's start tag takes two or more)
    or with at most ``limit`` ``<`` characters; an upper bound of its blocks is returned."""
    if limit is not None:
        if len(html) <= 2 * limit:
            return len(html) // 2
        tags = html.count("<")
        if tags <= limit:
            return tags
    # (with limit, the scan stops as soon as the count is above it: at most limit + 1 matches)
    stop = limit + 1 if limit is not None else -1
    blocks = brs = 0
    for _ in _BLOCK_START.finditer(html):
        blocks += 1
        if blocks == stop:
            return blocks
    for _ in _BR_START.finditer(html):
        brs += 1
        if blocks + brs // 2 == stop:
            break
    return blocks + brs // 2


NO_STOPLIST_MODES = ("independent", "drop")


def _outside_limits(html: str, low: int, high: int) -> str | None:
    """"too-large" or "too-small" when the text's UTF-8 length is outside low..high, else None:
    1 to 4 bytes a character, so the text is encoded only when its length cannot tell."""
    n = len(html)
    if n > high:
        return "too-large"
    if n >= low and 4 * n <= high:
        return None
    size = n if html.isascii() else len(html.encode("utf-8", "surrogatepass"))
    return "too-large" if size > high else "too-small" if size < low else None


class Clean(DocumentStage):
    name = "clean"
    counts_input_after = True

    def __init__(self, extractor: str = DEFAULT_EXTRACTOR, languages: list[str] | None = None,
                 stoplist_file: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 min_bytes: int = default("min_bytes"), keep_html: bool = False,
                 no_stoplist: str = default("no_stoplist"),
                 max_paragraphs: int = DEFAULT_MAX_PARAGRAPHS, **extractor_options: Any) -> None:
        super().__init__()
        from ..language.stoplists import has_stoplist, load_stoplist_file, resolve_language

        check("max_bytes", max_bytes)
        check("max_paragraphs", max_paragraphs)
        if not 0 <= min_bytes <= max_bytes:
            raise OptionError(f"min_bytes must be from 0 to max_bytes ({max_bytes}), not {min_bytes}",
                              option="min_bytes")
        if no_stoplist not in NO_STOPLIST_MODES:
            raise OptionError(f"no_stoplist must be one of {', '.join(NO_STOPLIST_MODES)}, not {no_stoplist!r}")
        # a page in a language without a stoplist: cleaned in jusText's
        # language-independent mode (counted) or dropped as "no-stoplist"
        self.language_independent = no_stoplist == "independent"
        self.extractor = get_extractor(extractor, **extractor_options)
        self.extractor_name = extractor
        langs = [l for l in (languages or []) if l]
        auto = not langs or langs == ["auto"]
        if "auto" in langs and len(langs) > 1:
            raise OptionError("languages: auto cannot be combined with other languages", option="languages")
        # a wanted language without a stoplist (zh, ja, th ...) is cleaned with the user's
        # stoplist or in jusText's language-independent mode; refused only when neither applies
        require_stoplist = not (stoplist_file or self.language_independent)
        self.languages = [] if auto else [resolve_language(l, require_stoplist=require_stoplist) for l in langs]
        self.unlisted = frozenset(l for l in self.languages if not has_stoplist(l))
        self.user_stoplist = load_stoplist_file(stoplist_file) if stoplist_file else None
        self.max_bytes = max_bytes
        self.max_paragraphs = max_paragraphs
        # wall seconds spent in the extractor (its own parse and extract), summed over the
        # documents: the evaluation's extractor-alone speed, apart from decoding and the guess
        self.extract_seconds = 0.0
        self.min_bytes = min_bytes
        # site-level methods that look at the DOM of many pages need the markup later
        self.keep_html = keep_html or bool(getattr(self.extractor, "keep_html", False))

    def decode(self, doc: Document) -> bool:
        status = doc.meta.get("http_status")
        if isinstance(status, int) and not 200 <= status < 300:
            # an error page or a redirect's stub: the server's message, not the page's text
            doc.drop(f"http-{status}")
            return False
        if doc.html is not None:   # given as text (JSON Lines "html", the library API)
            # the same size limits as for bytes, on the text's UTF-8 length
            outside = _outside_limits(doc.html, self.min_bytes, self.max_bytes)
            if outside:
                doc.drop(outside)
                return False
            doc.html = encoding.strip_controls(doc.html)
            return True
        codings = doc.meta.pop(ENCODED, None)
        if codings and doc.raw is not None:
            # a compressed HTTP body, decompressed here (in the supervised worker, not the main
            # process), streaming: at most max_bytes + 1 bytes come out, whatever the ratio
            try:
                doc.raw = decode_content(doc.raw, codings, self.max_bytes)
            except TruncatedPayload as exc:
                # a body cut short (a crawler's size limit): what was decompressed is the page,
                # the loss counted and named
                doc.raw = exc.partial
                doc.meta["payload_truncated"] = str(exc)[:200]
                self.stats.extra["truncated-payload"] += 1
                say_line(f"corpustool: clean: document {doc.id} ({doc.url or doc.source}): {exc.kept_note()}")
            except PayloadError as exc:
                doc.meta["payload_error"] = str(exc)[:200]
                doc.raw = None
                doc.drop("bad-payload")
                return False
        raw = doc.raw
        if raw is None or not raw.strip():
            doc.drop("empty")
            return False
        if len(raw) > self.max_bytes:
            doc.drop("too-large")
            return False
        if len(raw) < self.min_bytes:
            doc.drop("too-small")
            return False
        ct = doc.http_headers.get("content-type") or doc.http_headers.get("Content-Type") or doc.content_type
        if encoding.looks_binary(raw, ct):
            doc.drop("binary")
            return False
        dec = encoding.decode(raw, ct)
        doc.html, doc.encoding, doc.encoding_source = dec.text, dec.encoding, dec.source
        if dec.declared:
            doc.meta["declared_encoding"] = dec.declared
        return True

    def choose_stoplist(self, doc: Document, page: Page) -> bool:
        from ..language.identify import (UNDETERMINED, PageWords, guess_stoplist_language, identify,
                                         no_stoplist_reason)
        from ..language.sample import language_sample
        from ..language.stoplists import stoplist

        if self.user_stoplist is not None:
            page.stoplist = self.user_stoplist
            doc.stoplist_lang = self.languages[0] if len(self.languages) == 1 else "user"
            return True
        if len(self.languages) == 1:
            code = self.languages[0]
            if code in self.unlisted:
                return self._language_independent(doc, page, code)
        else:
            # text without scripts and style sheets: JavaScript votes for random languages;
            # its words are found once for all the questions below
            text = self.extractor.page_text(page)
            text = PageWords(language_sample(text))     # bounded memory on a huge page
            if self.unlisted:
                # wanted languages without a stoplist: a page written in one of them is cleaned
                # without a list; the others choose among the wanted languages that have one
                lang = identify(text).lang
                if lang in self.unlisted:
                    return self._language_independent(doc, page, lang)
                listed = [l for l in self.languages if l not in self.unlisted]
                if not listed:
                    doc.lang = lang if lang != UNDETERMINED else None
                    doc.drop("unwanted-language" if lang != UNDETERMINED else "unknown-language")
                    return False
            else:
                listed = self.languages
            code, density = guess_stoplist_language(text, listed or None)
            if self.languages and self._clearly_unwanted(doc, text, density):
                return False
            if code is None:
                # say why: no stoplist for its language (Thai ...), not a wanted one, or unknown
                reason, doc.lang = no_stoplist_reason(text, self.languages or None)
                if reason == "no-stoplist" and self.language_independent:
                    return self._language_independent(doc, page, doc.lang)
                doc.drop(reason)
                return False
            doc.meta["stoplist_density"] = round(density, 4)
        page.stoplist = stoplist(code)
        page.language = code
        doc.stoplist_lang = code
        return True

    def _language_independent(self, doc: Document, page: Page, lang: str | None) -> bool:
        """A language we know but have no list for: jusText's language-independent mode
        judges its paragraphs by length and link density alone."""
        page.stoplist = frozenset()
        page.language = lang
        page.meta["language_independent"] = True
        doc.lang = lang
        doc.stoplist_lang = None
        doc.meta["stoplist"] = "none (language-independent)"
        self.stats.extra["language-independent"] += 1
        return True

    def _clearly_unwanted(self, doc: Document, text: Any, wanted_density: float) -> bool:
        """Drop a page written in another language before cleaning it.

        Cleaning it with a wanted language's stoplist would keep the few blocks
        that happen to be in that language (an English cookie notice on a
        Spanish page) and the language filter would then see only those. A page
        is clearly in another language when the page's text is identified as
        that language and its own stoplist matches at least twice as many words
        as the best wanted one.
        """
        from ..language.identify import identify, stopword_density
        from ..language.stoplists import has_stoplist

        other = identify(text).lang
        if other in self.languages or not has_stoplist(other):
            return False
        if stopword_density(text, other) < 2 * wanted_density:
            return False
        doc.lang = other
        doc.drop("unwanted-language")
        return True

    def process(self, doc: Document) -> Document:
        if not self.decode(doc):
            return doc
        if doc.html and count_blocks(doc.html, self.max_paragraphs) > self.max_paragraphs:
            # memory per page is bounded: about 1 KB per paragraph, however short (issue 29)
            doc.drop("too-many-paragraphs")
            return doc
        page = Page(doc.html or "", url=doc.url)
        guess = self.extractor.needs_stoplist and self.user_stoplist is None and len(self.languages) != 1
        # (an extractor with a parse of its own parses now: it serves the guess and the extraction)
        start = time.perf_counter()
        self.extractor.prepare(page, language_guess=guess)
        self.extract_seconds += time.perf_counter() - start
        if self.extractor.is_empty(page, language_guess=guess):
            doc.drop("empty")
            return doc
        if self.extractor.needs_stoplist and not self.choose_stoplist(doc, page):
            return doc
        start = time.perf_counter()
        doc.paragraphs = self.extractor.extract(page)
        self.extract_seconds += time.perf_counter() - start
        why = page.meta.get("truncated")
        if why:
            # the parser stopped at one of its limits (256 nested elements): what follows is not in
            # the tree; the page's text before it is kept, the loss counted and named
            doc.meta["truncated"] = f"the HTML parser stopped: {why}"
            self.stats.extra["truncated"] += 1
            say_line(f"corpustool: clean: document {doc.id} ({doc.url or doc.source}): the HTML parser stopped "
                     f"at one of its limits ({why}); the page's text after that point is missing")
        if not doc.paragraphs and page.tree is None:
            # (the extractor parsed the page its own way: nothing to parse is still "empty")
            doc.drop("empty")
            return doc
        for par in doc.paragraphs:
            # soft hyphens and zero-width spaces split words for every later tool
            # ("Mag\xadda\xadle\xadner"), control characters and non-characters are no text,
            # and one character has one spelling (NFC): text/normalize.py
            par.text = clean_text(par.text)
            if par.is_good and not par.text.strip():
                # nothing left to write (a paragraph of soft hyphens): not counted as kept text
                par.cls, par.reason = BAD, "no-text"
        title = self.extractor.title(page)
        doc.title = clean_text(title) if title else title      # a title is text as paragraphs are
        doc.meta["extractor"] = self.extractor_name
        if not doc.paragraphs:
            doc.drop("no-text")
        elif not any(p.is_good for p in doc.paragraphs):
            doc.drop("boilerplate-only")
        else:
            self.text_types(doc, page)
        if not self.keep_html:
            doc.html = None
        doc.raw = None
        return doc

    def text_types(self, doc: Document, page: Page) -> None:
        """What the page declares (date, author, site name) and its page type, into ``doc.meta``
        (text_types.py, page_type.py); the page type's features are kept in ``last_features``."""
        info = page_metadata(doc.html, doc.url, doc.crawl_date)
        self.last_features = page_type.features(doc.url, info, page.meta.get("structure", ()), doc.paragraphs)
        info.pop("schema_types", None)
        info.pop("og_type", None)
        info["page_type"] = page_type.model().predict(self.last_features)
        doc.meta.update(info)
