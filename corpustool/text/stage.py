"""The tokenize stage: fills ``Paragraph.tokens`` and ``glue`` of good paragraphs."""
from __future__ import annotations

from ..document import BAD, Document
from ..stage import DocumentStage
from .tokenizer import tokenize


class Tokenize(DocumentStage):
    name = "tokenize"
    # in the main process: the near-duplicate stage has usually tokenized the paragraphs
    # already (0.07 ms per page left here), while shipping a page with its tokens to a worker
    # and back cost 3.8 ms of the main process's time per page (bench on the dev pages)
    in_worker = False

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
