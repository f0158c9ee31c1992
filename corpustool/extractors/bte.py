"""BTE, Body Text Extraction (seed 003, Sect. 2.6.1; Finn et al.).

The page is a sequence of tokens, bit B_n = 1 for a tag and 0 for a word;
BTE keeps the span i..j maximising

    T(i, j) = sum_{n<i} B_n + sum_{i<=n<=j} (1 - B_n) + sum_{n>j} B_n.

Since T(i, j) = (number of tags) + sum_{i<=n<=j} (1 - 2 B_n), this is the
maximum-subarray problem over weights +1 (word) / -1 (tag), solved in one
linear pass (Kadane) instead of the naive quadratic search. Runs of words
and runs of tags are merged into one weight each first: an optimal span never
starts or ends inside such a run (trimming words or adding tags at an edge
only lowers T), so the optimum is the same and the sequence is much shorter.

Output: jusText-style blocks; the words inside the span are good, the rest
bad. A block that straddles a span edge is split there, so the good
paragraphs are exactly the span (one contiguous piece of the page).
"""
from __future__ import annotations

from typing import Any, Sequence

from ..document import Paragraph
from ..errors import OptionError
from .base import Extractor, Page, register
from .segment import Segmentation, cached_segmentation, make_paragraph, pieces


def max_span(weights: Sequence[int]) -> tuple[int, int, int]:
    """(i, j, total): the contiguous i..j (inclusive) with the largest sum of ``weights``.

    Kadane's algorithm, O(n). Ties: the earliest end j, and for it the latest
    start i (the shortest of the equally good spans ending first). Returns
    (-1, -1, 0) for an empty sequence.
    """
    best = None
    best_i = best_j = -1
    cur = 0
    start = 0
    for j, w in enumerate(weights):
        if j == 0 or cur <= 0:      # a non-positive prefix never helps: restart here
            cur = w
            start = j
        else:
            cur += w
        if best is None or cur > best:
            best, best_i, best_j = cur, start, j
    return (best_i, best_j, best) if best is not None else (-1, -1, 0)


def bte_objective(bits: Sequence[int], i: int, j: int) -> int:
    """T(i, j) of seed 003 Sect. 2.6.1, straight from the formula (for checking)."""
    return sum(bits[:i]) + sum(1 - b for b in bits[i:j + 1]) + sum(bits[j + 1:])


def best_token_span(bits: Sequence[int]) -> tuple[int, int, int]:
    """(i, j, T(i, j)) of the optimal span over a tag/word bit sequence, in linear time."""
    i, j, gain = max_span([1 - 2 * b for b in bits])
    return i, j, (sum(bits) + gain) if i >= 0 else 0


def span_runs(seg: Segmentation) -> tuple[int, int, int]:
    """Indices (first, last) of the word-bearing runs inside the BTE span and T of the span.

    (-1, -1, T) when the page has no words.
    """
    weights: list[int] = []
    run_of_weight: list[int] = []       # weight index -> run index (-1 for a tag group)
    total_tags = seg.trailing_tags
    for k, run in enumerate(seg.runs):
        if not run.words:
            continue
        total_tags += run.tags_before
        if run.tags_before:
            weights.append(-run.tags_before)
            run_of_weight.append(-1)
        weights.append(run.words)
        run_of_weight.append(k)
    if seg.trailing_tags:
        weights.append(-seg.trailing_tags)
        run_of_weight.append(-1)
    i, j, gain = max_span(weights)
    if i < 0 or gain <= 0:
        return -1, -1, total_tags
    # a span of maximal sum starts and ends on words (a tag group at an edge is negative)
    return run_of_weight[i], run_of_weight[j], total_tags + gain


@register("bte")
class BteExtractor(Extractor):
    description = "BTE: the one contiguous span maximising words inside and tags outside (Pomikálek's thesis, Sect. 2.6.1)"

    def __init__(self, **options: Any) -> None:
        if options:
            raise OptionError(f"extractor 'bte' takes no options: {', '.join(sorted(options))}")

    def extract(self, page: Page) -> list[Paragraph]:
        if page.tree is None:
            return []
        seg = cached_segmentation(page)
        first, last, score = span_runs(seg)
        position = {id(run): k for k, run in enumerate(seg.runs)}

        def inside(run: Any) -> bool:
            return first >= 0 and first <= position[id(run)] <= last

        out = []
        for piece in pieces(seg, "block", inside):
            words = sum(r.words for r in piece.runs)
            out.append(make_paragraph(seg, piece, bool(piece.label), {
                "words": words,
                "tags": piece.tags,
                "in_span": bool(piece.label),
                "span_objective": score,
            }))
        return out
