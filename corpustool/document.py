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
        if detail:
            d["cf_class"] = self.cf_class
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
        p = cls(
            text=d.get("text", ""),
            cls=d.get("class", GOOD),
            cf_class=d.get("cf_class", ""),
            heading=bool(d.get("heading", False)),
            tag=d.get("tag", ""),
            dom_path=d.get("dom_path", ""),
            xpath=d.get("xpath", ""),
            reason=d.get("reason"),
            features=d.get("features") or {},
            lang=d.get("lang"),
            lang_score=d.get("lang_score"),
        )
        if "tokens" in d:
            p.tokens = list(d["tokens"])
            glued = set(d.get("glue") or ())
            p.glue = [i in glued for i in range(len(p.tokens))]
        return p


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
        raw = None
        html = None
        if d.get("html_base64") is not None:
            raw = base64.b64decode(d["html_base64"])
        elif d.get("html") is not None:
            html = d["html"]
            if not isinstance(html, str):
                raise ValueError("field 'html' must be a string")
            raw = html.encode("utf-8")
        doc = cls(
            id=str(d.get("id") or fallback_id),
            url=d.get("url"),
            crawl_date=d.get("crawl_date"),
            http_headers=d.get("http_headers") or {},
            warc_record_id=d.get("warc_record_id"),
            source=d.get("source"),
            content_type=d.get("content_type"),
            raw=raw,
            encoding=d.get("encoding"),
            encoding_source=d.get("encoding_source"),
            title=d.get("title"),
            lang=d.get("lang"),
            lang_score=d.get("lang_score"),
            stoplist_lang=d.get("stoplist_lang"),
            drop_reason=d.get("drop_reason"),
            meta=d.get("meta") or {},
        )
        if html is not None:
            # text given as Unicode: no detection needed
            doc.html = html
            doc.encoding = doc.encoding or "utf-8"
            doc.encoding_source = doc.encoding_source or "given"
        doc.paragraphs = [Paragraph.from_dict(p) for p in d.get("paragraphs") or ()]
        return doc

