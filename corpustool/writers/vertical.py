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

import re
from collections import Counter
from typing import MutableMapping

from ..document import Document
from ..errors import OptionError
from ..options import default
from ..text.normalize import (bound_tokens, clean_tokens, clean_value, cut_utf8, given_tokens_need_cleaning,
                              needs_bounding)
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

# a token line encodevert reads as a tag of a structure we write (tokens hold no white space)
_MANATEE_TAG = re.compile(r"</?(?:doc|p|s|g)/?>")

# cwb-encode aborts the whole encode on a line of 65,534 bytes or more (its newline not counted)
MAX_LINE_BYTES = 65533

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

    def _fit_line(self, cleaned: list[tuple[str, str]]) -> str:
        """The ``<doc>`` line cut to :data:`MAX_LINE_BYTES`: each value is at most 4,095 bytes, but
        escaped (``&quot;`` is six bytes) three of them can pass cwb-encode's line limit, which aborts
        the whole encode. The longest values share what the others leave, each cut as
        :func:`cut_utf8` cuts, so that its escaped form fits its share."""
        target = self.target
        escaped = [escape_value(v, target) for _, v in cleaned]
        sizes = [len(e.encode("utf-8")) for e in escaped]
        budget = MAX_LINE_BYTES - len("<doc>") - sum(len(k) + 4 for k, _ in cleaned)   # ' k=""' each
        shares = [0] * len(cleaned)
        left = len(cleaned)
        for i in sorted(range(len(cleaned)), key=lambda i: (sizes[i], i)):
            shares[i] = min(sizes[i], budget // left)
            budget -= shares[i]
            left -= 1
        parts = []
        for (k, v), e, size, share in zip(cleaned, escaped, sizes, shares):
            if size > share:
                e = escape_value(_cut_escaped(v, share, target), target)
                self.counts["values_cut"] += 1
            parts.append(f'{k}="{e}"')
        return "<doc " + " ".join(parts) + ">"

    def format(self, doc: Document) -> str:
        # a value with nothing left once clean (a title of white space, or of bidi marks and zero-width
        # spaces only) is left out as a missing one is: Manatee would store "" for the one and
        # ===NONE=== for the other (the id is always written)
        cleaned: list[tuple[str, str]] = []
        for k, v in doc_attributes(doc):
            text, cut = clean_value(v)
            if cut:
                self.counts["values_cut"] += 1
            if text or k == "id":
                cleaned.append((k, text))
        values = [(k, escape_value(v, self.target)) for k, v in cleaned]
        self.structures["doc"].update(k for k, _ in values)
        head = "<doc " + " ".join(f'{k}="{v}"' for k, v in values) + ">"
        if len(head) * 4 > MAX_LINE_BYTES and len(head.encode("utf-8")) > MAX_LINE_BYTES:
            head = self._fit_line(cleaned)
        out = [head, "\n"]
        target = self.target
        written = False
        for p in doc.paragraphs:
            if not p.is_good:
                continue
            if p.tokens is None:
                tokens, glue = tokenize(p.text)
                bound = tokens and needs_bounding(p.text, tokens)
            else:
                # tokens given (the tokenize stage's, or a JSON Lines stream's own): those from
                # elsewhere may be empty or hold white space, line breaks, controls, a tag's text
                tokens, glue = p.tokens, p.glue or [False] * len(p.tokens)
                bound = tokens and needs_bounding(" ".join(tokens), tokens)
                if given_tokens_need_cleaning(tokens):
                    tokens, glue = clean_tokens(tokens, glue)
                    self.counts["tokens_cleaned"] += 1
                    bound = True
                if target == "manatee" and any(t[0] == "<" and _MANATEE_TAG.fullmatch(t) for t in tokens):
                    tokens, glue = _untag(tokens, glue)
            if bound:
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
            written = True
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
        if not written:
            # a document without a token is an empty region: cwb-encode does not store it and
            # encodevert drops it, so every later document would get the wrong attribute values
            # (counted: build's tokenize stage drops such a document before, as no-text)
            self.counts["docs_without_tokens"] += 1
            return ""
        out.append("</doc>\n")
        return "".join(out)


def _cut_escaped(text: str, limit: int, target: str) -> str:
    """The longest prefix of ``text`` that ends between two user-perceived characters and whose
    escaped form (:func:`escape_value`) is at most ``limit`` bytes."""
    total = raw = 0
    for ch in text:
        size = len(escape_value(ch, target).encode("utf-8"))
        if total + size > limit:
            break
        total += size
        raw += len(ch.encode("utf-8"))
    return cut_utf8(text, raw).rstrip()


def _untag(tokens: list[str], glue: list[bool]) -> tuple[list[str], list[bool]]:
    """Tokens with each one that reads as a structure tag (``<doc>``, ``</p>``, ``<g/>``) split
    after its ``<``, glued: ``<`` and ``doc>`` are tokens to encodevert."""
    out_t: list[str] = []
    out_g: list[bool] = []
    for tok, g in zip(tokens, glue):
        if tok[0] == "<" and _MANATEE_TAG.fullmatch(tok):
            out_t += ["<", tok[1:]]
            out_g += [g, True]
        else:
            out_t.append(tok)
            out_g.append(g)
    return out_t, out_g
