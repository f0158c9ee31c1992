"""The document model that flows through every stage.

A :class:`Document` is one crawled page. Readers fill in the crawl metadata and
the raw bytes; the clean stage decodes them, segments the page into
:class:`Paragraph` objects and classifies each one; later stages mark
paragraphs or whole documents as removed. Nothing is deleted from the model:
a removed paragraph keeps its text and gets ``cls = "bad"`` plus a ``reason``,
and a dropped document gets a ``drop_reason``. Writers emit what is kept.
"""
from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .text.tokenizer import count_words

GOOD = "good"
BAD = "bad"


@dataclass(slots=True)
class Paragraph:
    """One text block of a page with its classification."""

    text: str
    cls: str = GOOD                 # final class: "good" (kept) or "bad" (removed)
    cf_class: str = ""              # context-free class of jusText: good|neargood|short|bad
    heading: bool = False
    tag: str = ""                   # tag that opened the block (p, li, h2, ...)
    dom_path: str = ""              # e.g. html.body.div.p
    xpath: str = ""                 # e.g. /html[1]/body[1]/div[2]/p[1]
    reason: str | None = None       # why it is bad: "boilerplate", "duplicate", "foreign-language", ...
    features: dict[str, Any] = field(default_factory=dict)
    lang: str | None = None
    lang_score: float | None = None
    tokens: list[str] | None = None  # filled by the tokenizer
    glue: list[bool] | None = None   # glue[i]: token i was not preceded by whitespace
    _words: tuple[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def is_good(self) -> bool:
        return self.cls == GOOD

    def word_count(self) -> int:
        """Words as jusText counts them: space-separated, or characters in scripts without spaces.

        Every stage counts words in and out; the count is kept with the text it
        was made from, so it is computed once per paragraph, not once per stage.
        """
        cached = self._words
        if cached is not None and cached[0] is self.text:
            return cached[1]
        n = count_words(self.text)
        self._words = (self.text, n)
        return n

    def to_dict(self, detail: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {"text": self.text, "class": self.cls}
        if self.heading:
            d["heading"] = True
        if self.reason:
            d["reason"] = self.reason
        if self.lang is not None:
            d["lang"] = self.lang
            d["lang_score"] = self.lang_score
        # jusText's context-free class travels with every paragraph, not only under --detail: the
        # paragraph de-duplication's context smoothing (Sect. 3.5.2) revises by it, so a chain of
        # filters (clean | langfilter | dedup-para) gives the corpus `build` gives
        if detail or self.cf_class:
            d["cf_class"] = self.cf_class
        if detail:
            d["tag"] = self.tag
            d["dom_path"] = self.dom_path
            d["xpath"] = self.xpath
            if self.features:
                d["features"] = self.features
        if self.tokens is not None:
            d["tokens"] = self.tokens
            d["glue"] = [i for i, g in enumerate(self.glue or ()) if g]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Paragraph":
        """A paragraph from its JSON form; :class:`MalformedDocument` names any field of the wrong type."""
        if not isinstance(d, dict):
            raise MalformedDocument(f"a paragraph must be an object, not {_json_type(d)}")
        p = cls(
            text=_field(d, "text", str, ""),
            cls=_field(d, "class", str, GOOD),
            cf_class=_field(d, "cf_class", str, ""),
            heading=bool(_field(d, "heading", (bool, int), False)),
            tag=_field(d, "tag", str, ""),
            dom_path=_field(d, "dom_path", str, ""),
            xpath=_field(d, "xpath", str, ""),
            reason=_field(d, "reason", str, None),
            features=_field(d, "features", dict, None) or {},
            lang=_field(d, "lang", str, None),
            lang_score=_number(d, "lang_score"),
        )
        if p.cls not in (GOOD, BAD):
            raise MalformedDocument(f"paragraph field 'class' must be {GOOD!r} or {BAD!r}, not {p.cls!r}")
        tokens = _field(d, "tokens", list, None)
        if tokens is not None:
            if not all(isinstance(t, str) for t in tokens):
                raise MalformedDocument("paragraph field 'tokens' must be a list of strings")
            glue = _field(d, "glue", list, None) or ()
            if not all(type(i) is int for i in glue):
                raise MalformedDocument("paragraph field 'glue' must be a list of token positions")
            p.tokens = list(tokens)
            glued = set(glue)
            p.glue = [i in glued for i in range(len(p.tokens))]
        return p


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


class MalformedDocument(ValueError):
    """A JSON document of the wrong shape: a field of the wrong type, not an object, invalid JSON."""


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _field(d: dict[str, Any], name: str, types: type | tuple[type, ...], default: Any) -> Any:
    """``d[name]`` when it has one of ``types`` (null or absent: ``default``); else MalformedDocument."""
    value = d.get(name)
    if value is None:
        return default
    if not isinstance(value, types) or (isinstance(value, bool) and types in (int, float, (int, float))):
        wanted = types if isinstance(types, tuple) else (types,)
        raise MalformedDocument(f"field {name!r} must be {' or '.join(_json_type(t()) for t in wanted)}, "
                                f"not {_json_type(value)}")
    return value


def _number(d: dict[str, Any], name: str) -> float | None:
    value = d.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedDocument(f"field {name!r} must be a number, not {_json_type(value)}")
    return value


@dataclass
class Document:
    """One page and everything the pipeline learns about it."""

    id: str
    url: str | None = None
    crawl_date: str | None = None
    http_headers: dict[str, str] = field(default_factory=dict)
    warc_record_id: str | None = None
    source: str | None = None          # where it came from: "file.warc.gz@1234", "dir/page.html"
    content_type: str | None = None
    raw: bytes | None = None           # bytes as crawled (HTTP body)
    html: str | None = None            # decoded markup
    encoding: str | None = None
    encoding_source: str | None = None  # bom|http|meta|xml|detected|default|given
    title: str | None = None
    paragraphs: list[Paragraph] = field(default_factory=list)
    lang: str | None = None
    lang_score: float | None = None
    stoplist_lang: str | None = None   # stoplist used by the extractor
    drop_reason: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    # -- convenience -----------------------------------------------------
    @property
    def domain(self) -> str | None:
        if not self.url:
            return None
        from urllib.parse import urlsplit
        try:
            host = urlsplit(self.url).hostname
        except ValueError:
            return None
        return host

    def good_paragraphs(self) -> list[Paragraph]:
        return [p for p in self.paragraphs if p.cls == GOOD]

    def clean_text(self) -> str:
        return "\n".join(p.text for p in self.paragraphs if p.cls == GOOD)

    def word_count(self, good_only: bool = True) -> int:
        return sum(p.word_count() for p in self.paragraphs if not good_only or p.cls == GOOD)

    def drop(self, reason: str) -> "Document":
        self.drop_reason = reason
        return self

    # -- serialisation (JSON Lines stream between CLI stages) -------------
    def to_dict(self, detail: bool = True, with_raw: bool = True, with_html: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id}
        for key in ("url", "crawl_date", "warc_record_id", "source", "content_type",
                    "encoding", "encoding_source", "title", "lang", "lang_score",
                    "stoplist_lang", "drop_reason"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        if self.http_headers:
            d["http_headers"] = self.http_headers
        if with_raw and self.raw is not None and not self.paragraphs:
            d["html_base64"] = base64.b64encode(self.raw).decode("ascii")
        if with_html and self.html is not None:
            d["html"] = self.html
        if self.paragraphs:
            d["paragraphs"] = [p.to_dict(detail) for p in self.paragraphs]
        if self.meta:
            d["meta"] = self.meta
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], fallback_id: str = "") -> "Document":
        """A document from its JSON form (the stage stream), every field checked.

        Any field of the wrong type or shape raises :class:`MalformedDocument`
        naming the field, so a reader can skip and count that one document
        instead of failing later, in some stage, with a traceback.
        """
        if not isinstance(d, dict):
            raise MalformedDocument(f"a document must be a JSON object, not {_json_type(d)}")
        raw = None
        html = None
        if d.get("html_base64") is not None:
            encoded = _field(d, "html_base64", str, None)
            try:
                raw = base64.b64decode(encoded, validate=True)
            except ValueError as exc:       # binascii.Error
                raise MalformedDocument(f"field 'html_base64' is not base64: {exc}") from None
        elif d.get("html") is not None:
            html = _field(d, "html", str, None)
            try:
                raw = html.encode("utf-8")
            except UnicodeEncodeError:      # lone surrogates from JSON escapes
                raise MalformedDocument("field 'html' holds text that is not valid Unicode") from None
        doc_id = d.get("id")
        if doc_id is not None and (isinstance(doc_id, bool) or not isinstance(doc_id, (str, int))):
            raise MalformedDocument(f"field 'id' must be a string, not {_json_type(doc_id)}")
        headers = _field(d, "http_headers", dict, None) or {}
        if not all(isinstance(v, str) for v in headers.values()):
            raise MalformedDocument("field 'http_headers' must map names to strings")
        paragraphs = _field(d, "paragraphs", list, None) or ()
        doc = cls(
            id=str(doc_id or fallback_id),
            url=_field(d, "url", str, None),
            crawl_date=_field(d, "crawl_date", str, None),
            http_headers=headers,
            warc_record_id=_field(d, "warc_record_id", str, None),
            source=_field(d, "source", str, None),
            content_type=_field(d, "content_type", str, None),
            raw=raw,
            encoding=_field(d, "encoding", str, None),
            encoding_source=_field(d, "encoding_source", str, None),
            title=_field(d, "title", str, None),
            lang=_field(d, "lang", str, None),
            lang_score=_number(d, "lang_score"),
            stoplist_lang=_field(d, "stoplist_lang", str, None),
            drop_reason=_field(d, "drop_reason", str, None),
            meta=_field(d, "meta", dict, None) or {},
        )
        if html is not None:
            # text given as Unicode: no detection needed
            doc.html = html
            doc.encoding = doc.encoding or "utf-8"
            doc.encoding_source = doc.encoding_source or "given"
        doc.paragraphs = []
        for i, p in enumerate(paragraphs):
            try:
                doc.paragraphs.append(Paragraph.from_dict(p))
            except MalformedDocument as exc:
                raise MalformedDocument(f"paragraph {i}: {exc}") from None
        return doc

    @classmethod
    def from_json(cls, line: str | bytes, fallback_id: str = "") -> "Document":
        """One line of a JSON Lines stream; :class:`MalformedDocument` when it is no valid document.

        The one place where every stage's input is parsed and checked: invalid
        JSON, invalid UTF-8, nesting too deep for the parser (RecursionError)
        and fields of the wrong type all become one MalformedDocument.
        """
        try:
            data = json.loads(line)
        except RecursionError:
            raise MalformedDocument("JSON nested too deeply") from None
        except ValueError as exc:           # JSONDecodeError, UnicodeDecodeError
            raise MalformedDocument(f"invalid JSON: {exc}") from None
        if (_SURROGATE_ESCAPE_BYTES if isinstance(line, bytes) else _SURROGATE_ESCAPE).search(line) is not None:
            # "\udc80" is valid JSON but no text: a lone surrogate cannot be written as UTF-8
            try:
                json.dumps(data, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                raise MalformedDocument("a \\u escape makes a lone surrogate, which is no text") from None
        return cls.from_dict(data, fallback_id=fallback_id)
