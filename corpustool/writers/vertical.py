"""Vertical text for Manatee / Sketch Engine and CWB.

One token per line; ``<doc>`` with attributes, ``<p heading="0|1">``, ``<g/>``
between tokens not separated by whitespace (a "glue" tag), optional ``<s>``.
Tokens and attribute values are escaped as the corpus managers expect:
``&amp;`` ``&lt;`` ``&gt;`` (and ``&quot;`` in attribute values).
"""
from __future__ import annotations

from ..document import Document
from ..text.tokenizer import sentence_spans, tokenize
from .base import Writer

_TOKEN_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                               "\n": " ", "\r": " ", "\t": " "})


def escape_token(token: str) -> str:
    return token.translate(_TOKEN_ESCAPES)


def escape_attr(value: object) -> str:
    return " ".join(str(value).translate(_ATTR_ESCAPES).split())


def doc_attributes(doc: Document) -> list[tuple[str, object]]:
    attrs: list[tuple[str, object]] = [("id", doc.id)]
    for key, value in (("url", doc.url), ("title", doc.title), ("lang", doc.lang or doc.stoplist_lang),
                       ("lang_score", None if doc.lang_score is None else f"{doc.lang_score:.3f}"),
                       ("crawl_date", doc.crawl_date), ("encoding", doc.encoding), ("domain", doc.domain)):
        if value is not None:
            attrs.append((key, value))
    return attrs


class VerticalWriter(Writer):
    def __init__(self, path: str = "-", sentences: bool = False, append: bool = False) -> None:
        super().__init__(path, append)
        self.sentences = sentences

    def format(self, doc: Document) -> str:
        attrs = " ".join(f'{k}="{escape_attr(v)}"' for k, v in doc_attributes(doc))
        out = [f"<doc {attrs}>\n"]
        for p in doc.paragraphs:
            if not p.is_good:
                continue
            tokens, glue = (p.tokens, p.glue) if p.tokens is not None else tokenize(p.text)
            if not tokens:
                continue
            p_attrs = f'heading="{1 if p.heading else 0}"'
            if p.lang is not None:
                p_attrs += f' lang="{escape_attr(p.lang)}"'
            out.append(f"<p {p_attrs}>\n")
            spans = (sentence_spans(tokens, glue, p.lang or doc.lang or doc.stoplist_lang) if self.sentences
                     else [(0, len(tokens))])
            for start, end in spans:
                if self.sentences:
                    out.append("<s>\n")
                for i in range(start, end):
                    if i > start and glue and glue[i]:
                        out.append("<g/>\n")
                    out.append(escape_token(tokens[i]))
                    out.append("\n")
                if self.sentences:
                    out.append("</s>\n")
            out.append("</p>\n")
        out.append("</doc>\n")
        return "".join(out)
