"""Document fragmentation (seed 003, Sect. 2.9.10, Table 2.11).

A cleaned document is a sequence of fragments: runs of consecutive kept
blocks, separated by gaps where removed blocks were. Three values describe
a dataset: the average fragment length in characters (over all fragments),
the median fragment length, and the average number of fragments per
document (documents with nothing kept count, with zero fragments).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, Sequence


def fragment_lengths(blocks: Iterable[tuple[str, bool]]) -> list[int]:
    """Character lengths of the fragments of one document, given (text, kept) blocks in order."""
    lengths: list[int] = []
    current: int | None = None
    for text, kept in blocks:
        if kept:
            current = (current or 0) + len(text.strip())
        elif current is not None:
            lengths.append(current)
            current = None
    if current is not None:
        lengths.append(current)
    return lengths


@dataclass
class Fragmentation:
    documents: int
    fragments: int
    avg_length: float
    median_length: float

    @property
    def per_document(self) -> float:
        return self.fragments / self.documents if self.documents else float("nan")


def fragmentation(per_document: Sequence[Sequence[int]]) -> Fragmentation:
    """Table 2.11's values for a dataset, from each document's fragment lengths."""
    all_lengths = [n for doc in per_document for n in doc]
    nan = float("nan")
    return Fragmentation(
        documents=len(per_document),
        fragments=len(all_lengths),
        avg_length=sum(all_lengths) / len(all_lengths) if all_lengths else nan,
        median_length=float(statistics.median(all_lengths)) if all_lengths else nan,
    )
