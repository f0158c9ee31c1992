"""Exact duplicate documents: the same normalised clean text seen before.

The clean text (good paragraphs) is lower-cased with whitespace collapsed and
hashed with 64-bit xxhash; a document whose hash was already seen is dropped
(seed 003 Table 3.9, "after removing exact duplicates"). 64 bits keep the
chance of a false collision below 1e-8 even for a billion documents.
"""
from __future__ import annotations

import xxhash

from ..document import Document
from ..stage import StreamStage


def text_fingerprint(doc: Document) -> int:
    text = " ".join(" ".join(p.text.split()).lower() for p in doc.paragraphs if p.is_good)
    return xxhash.xxh3_64_intdigest(text.encode("utf-8"))


class ExactDuplicates(StreamStage):
    name = "dedup-exact"

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[int, str] = {}

    def accept(self, doc: Document) -> bool:
        h = text_fingerprint(doc)
        first = self.seen.get(h)
        if first is not None:
            doc.meta["duplicate_of"] = first
            doc.drop("exact-duplicate")
            return False
        self.seen[h] = doc.id
        return True
