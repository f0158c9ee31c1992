"""Vertical text for Manatee / Sketch Engine and CWB.

One token per line; ``<doc>`` with attributes, ``<p heading="0|1">``, ``<s>``
(sentences, on by default), ``<g/>`` between tokens not separated by
whitespace (a "glue" tag).

The two corpus managers read a file differently, so the writer has a target:

* ``manatee`` (Sketch Engine, NoSketch Engine; the default): Manatee's
  ``encodevert`` decodes no XML entities at all, in values or tokens, and
  inside a quoted attribute value reads ``\\"`` as a quote and ``\\\\`` as a
  backslash (a value ending in a lone backslash would swallow its closing
  quote). So tokens are written as they are and values escape only ``"`` and
  ``\\``.
* ``cwb`` (``cwb-encode -x``): XML entities, ``&amp;`` ``&lt;`` ``&gt;`` in
  tokens and also ``&quot;`` in values; the file wrapped in one root element
  is well-formed XML.

Whatever a page holds, tokens and values are clean text (text/normalize.py):
no control characters or non-characters, at most 4,095 bytes (a longer token is
split into glued pieces, a longer value cut), so neither tool refuses, cuts or
misreads a line. What had to change is counted in ``counts``.
"""
from __future__ import annotations

from collections import Counter
from typing import MutableMapping

from ..document import Document
from ..errors import OptionError
from ..options import default
from ..text.normalize import bound_tokens, clean_value, needs_bounding
from ..text.tokenizer import sentence_spans, tokenize
from ..quality import ATTRIBUTES as QUALITY
from ..quality import quality_attributes
from ..text_types import ATTRIBUTES as TEXT_TYPES
from ..text_types import text_types
from .base import Writer

TARGETS = ("manatee", "cwb")
DEFAULT_TARGET = default("target")

_CWB_TOKEN = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_CWB_VALUE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
_MANATEE_VALUE = str.maketrans({"\\": "\\\\", '"': '\\"'})

DOC_ATTRIBUTES = ("id", "url", "title", "lang", "lang_score", "crawl_date", "encoding", "domain") + TEXT_TYPES + QUALITY


def escape_token(token: str, target: str = DEFAULT_TARGET) -> str:
    return token.translate(_CWB_TOKEN) if target == "cwb" else token


def escape_value(value: str, target: str = DEFAULT_TARGET) -> str:
    """A clean value (see :func:`clean_value`) escaped for a double-quoted attribute."""
    return value.translate(_CWB_VALUE if target == "cwb" else _MANATEE_VALUE)


def escape_attr(value: object, target: str = DEFAULT_TARGET) -> str:
    """Any value made clean, bounded and escaped for ``target``."""
    return escape_value(clean_value(value)[0], target)


def doc_attributes(doc: Document) -> list[tuple[str, object]]:
    attrs: list[tuple[str, object]] = [("id", doc.id)]
    for key, value in (("url", doc.url), ("title", doc.title), ("lang", doc.lang or doc.stoplist_lang),
                       ("lang_score", None if doc.lang_score is None else f"{doc.lang_score:.3f}"),
                       ("crawl_date", doc.crawl_date), ("encoding", doc.encoding), ("domain", doc.domain)):
        if value is not None:
            attrs.append((key, value))
    attrs += text_types(doc)     # tld, site, wordcount, length, lang_diff, type, date ... (text_types.py)
    attrs += quality_attributes(doc)     # q, q_rules, q_punct, q_stop ... (quality.py)
    return attrs


class VerticalWriter(Writer):
    """``counts`` (optional) receives ``values_cut``, ``tokens_split`` and ``tokens_dropped``; a
    build passes its tokenize stage's counters, so they are in the statistics."""

    def __init__(self, path: str = "-", sentences: bool = default("sentences"), append: bool = False,
                 target: str = DEFAULT_TARGET, counts: MutableMapping[str, int] | None = None) -> None:
        if target not in TARGETS:
            raise OptionError(f"unknown target {target!r}; choose from: {', '.join(TARGETS)}")
        super().__init__(path, append)
        self.sentences = sentences
        self.target = target
        self.counts: MutableMapping[str, int] = counts if counts is not None else Counter()
        # what was written, for the corpus managers' configurations (writers/registry.py)
        self.structures: dict[str, set[str]] = {"doc": set(), "p": {"heading"}}

    def _value(self, value: object) -> str:
        text, cut = clean_value(value)
        if cut:
            self.counts["values_cut"] += 1
        return escape_value(text, self.target)

    def format(self, doc: Document) -> str:
        attrs = doc_attributes(doc)
        self.structures["doc"].update(k for k, _ in attrs)
        out = ["<doc " + " ".join(f'{k}="{self._value(v)}"' for k, v in attrs) + ">\n"]
        target = self.target
        for p in doc.paragraphs:
            if not p.is_good:
                continue
            tokens, glue = (p.tokens, p.glue) if p.tokens is not None else tokenize(p.text)
            if tokens and needs_bounding(p.text, tokens):
                tokens, glue, split, dropped = bound_tokens(tokens, glue or [False] * len(tokens))
                if split:
                    self.counts["tokens_split"] += split
                if dropped:
                    self.counts["tokens_dropped"] += dropped
            if not tokens:
                continue
            p_attrs = f'heading="{1 if p.heading else 0}"'
            if p.lang is not None:
                p_attrs += f' lang="{self._value(p.lang)}"'
                self.structures["p"].add("lang")
            out.append(f"<p {p_attrs}>\n")
            spans = (sentence_spans(tokens, glue, p.lang or doc.lang or doc.stoplist_lang) if self.sentences
                     else [(0, len(tokens))])
            if self.sentences:
                self.structures["s"] = set()
            for start, end in spans:
                if self.sentences:
                    out.append("<s>\n")
                for i in range(start, end):
                    if i > start and glue and glue[i]:
                        out.append("<g/>\n")
                        self.structures["g"] = set()
                    out.append(escape_token(tokens[i], target))
                    out.append("\n")
                if self.sentences:
                    out.append("</s>\n")
            out.append("</p>\n")
        out.append("</doc>\n")
        return "".join(out)
