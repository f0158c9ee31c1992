"""The tokenize stage: fills ``Paragraph.tokens`` and ``glue`` of good paragraphs."""
from __future__ import annotations

from ..document import BAD, Document
from ..stage import DocumentStage
from .tokenizer import tokenize


class Tokenize(DocumentStage):
    name = "tokenize"

    def process(self, doc: Document) -> Document:
        n = 0
        for p in doc.paragraphs:
            if p.is_good and p.tokens is None:
                p.tokens, p.glue = tokenize(p.text)
            if p.is_good:
                if not p.tokens:
                    # the writers skip a paragraph without tokens: the statistics must too
                    p.cls, p.reason = BAD, "no-text"
                    continue
                n += len(p.tokens)
        self.stats.extra["tokens"] += n
        if not any(p.is_good for p in doc.paragraphs):
            doc.drop("no-text")
        return doc
