"""The tokenize stage: fills ``Paragraph.tokens`` and ``glue`` of good paragraphs."""
from __future__ import annotations

from ..document import Document
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
                n += len(p.tokens or ())
        self.stats.extra["tokens"] += n
        return doc
