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
        self._saved = 0         # entries of ``seen`` (in insertion order) in earlier checkpoints

    checkpoint_format = True

    def checkpoint_start(self) -> None:
        self._saved = len(self.seen)

    def checkpoint_delta(self):
        import itertools
        import numpy as np
        from ..checkpoint import pack_strings
        new = list(itertools.islice(self.seen.items(), self._saved, None))
        self._saved = len(self.seen)
        return {}, {"hashes": np.array([h for h, _ in new], dtype=np.uint64),
                    **pack_strings("ids", [i for _, i in new])}

    def checkpoint_restore(self, numbers, deltas) -> None:
        from ..checkpoint import unpack_strings
        for d in deltas:
            self.seen.update(zip(d["hashes"].tolist(), unpack_strings("ids", d)))
        self._saved = len(self.seen)

    def accept(self, doc: Document) -> bool:
        h = self.key(doc)
        first = self.seen.get(h)
        if first is not None:
            self.mark_duplicate(doc, first)
            return False
        self.seen[h] = doc.id
        return True

    # -- hooks for an executor that decides elsewhere (the Spark engine: a shuffle on the key) --------
    def distributable(self) -> bool:
        """True while nothing was seen: "keep the first document of each key" is then the whole decision."""
        return not self.seen

    @staticmethod
    def key(doc: Document) -> int:
        """What two documents share iff one is an exact duplicate of the other."""
        return text_fingerprint(doc)

    @staticmethod
    def mark_duplicate(doc: Document, first_id: str) -> None:
        """Drop ``doc`` as a duplicate of the (earlier) document ``first_id``, as :meth:`accept` does."""
        doc.meta["duplicate_of"] = first_id
        doc.drop("exact-duplicate")
