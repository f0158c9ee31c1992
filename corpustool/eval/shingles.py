"""4-gram shingle matching, the second metric of article-extraction benchmarks.

Output and gold are cut into overlapping word 4-grams (a text shorter than
four words is one shingle); the multisets are intersected: TP = shared
shingles, FP = output shingles not in the gold, FN = gold shingles not in
the output. Order matters only locally, so a moved paragraph still counts,
but a word found in an unrelated context does not.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from .metrics import Confusion

SHINGLE_SIZE = 4


def shingles(words: Sequence[str], n: int = SHINGLE_SIZE) -> Counter:
    if not words:
        return Counter()
    if len(words) < n:
        return Counter([tuple(words)])
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def shingle_confusion(output: Sequence[str], gold: Sequence[str], n: int = SHINGLE_SIZE) -> Confusion:
    out, ref = shingles(output, n), shingles(gold, n)
    tp = sum((out & ref).values())
    return Confusion(tp, sum(out.values()) - tp, sum(ref.values()) - tp)
