"""Word-level alignment of an extractor's output with the gold standard.

Counting words as a bag credits a word found anywhere (seed 004, Sect.
2.1.2: "advertisement" in an ad is not the "advertisement" of the article),
so the output and the gold are aligned as sequences, as seed 004 did with a
diff library and the cleaneval.py script of seed 003 (Sect. 2.9.6) does:
``difflib.SequenceMatcher`` (Ratcliff-Obershelp: the longest common run,
then recursively left and right of it) finds the matched words.

* Text gold: TP = aligned words, FP = output words not aligned, FN = gold
  words not aligned; TN = the page's remaining words (its visible text minus
  TP, FP and FN), so that fallout and accuracy mean something.
* Node-level gold: every word of the page carries its node's label; the
  output is aligned with the page's words, and each page word is TP/FN
  (good), FP/TN (bad) or ignored (uncertain, tied, below the agreement
  threshold). Output words that align with no page word are FP.

Each word counts once in the word counts and with its length in the
character counts (the character weighting of seed 003, Sect. 2.9.1).
"""
from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher
from typing import Sequence

from .metrics import Confusion


def matched_mask(output: Sequence[str], reference: Sequence[str]) -> tuple[list[bool], list[bool]]:
    """(output word aligned?, reference word aligned?) for the diff alignment of two word lists."""
    out_mask = [False] * len(output)
    ref_mask = [False] * len(reference)
    if not output or not reference:
        return out_mask, ref_mask
    sm = SequenceMatcher(None, output, reference, autojunk=False)
    for i, j, n in sm.get_matching_blocks():
        for k in range(n):
            out_mask[i + k] = True
            ref_mask[j + k] = True
    return out_mask, ref_mask


def text_confusion(output: Sequence[str], gold: Sequence[str], page_words: int,
                   page_chars: int) -> tuple[Confusion, Confusion]:
    """(word counts, character counts) of output against a text gold."""
    out_mask, _ = matched_mask(output, gold)
    tp_c = sum(len(w) for w, m in zip(output, out_mask) if m)
    return _confusions(output, gold, sum(out_mask), tp_c, page_words, page_chars)


def bag_confusion(output: Sequence[str], gold: Sequence[str], page_words: int,
                  page_chars: int) -> tuple[Confusion, Confusion]:
    """(word counts, character counts) of output against a text gold, both taken as bags of
    words (WCXB's metric): TP = the multiset intersection, whatever the order. Cheaper than
    the alignment and what that benchmark publishes its figures with."""
    out_bag, gold_bag = Counter(output), Counter(gold)
    common = out_bag & gold_bag
    tp_c = sum(len(w) * n for w, n in common.items())
    return _confusions(output, gold, sum(common.values()), tp_c, page_words, page_chars)


def _confusions(output: Sequence[str], gold: Sequence[str], tp: int, tp_c: int, page_words: int,
                page_chars: int) -> tuple[Confusion, Confusion]:
    """(word counts, character counts) from the matched words (``tp``) and their characters."""
    out_c = sum(len(w) for w in output)
    gold_c = sum(len(w) for w in gold)
    words = Confusion(tp, len(output) - tp, len(gold) - tp)
    chars = Confusion(tp_c, out_c - tp_c, gold_c - tp_c)
    words.tn = max(0, page_words - words.tp - words.fp - words.fn)
    chars.tn = max(0, page_chars - chars.tp - chars.fp - chars.fn)
    return words, chars


def labelled_confusion(output: Sequence[str], page: Sequence[str],
                       labels: Sequence[str]) -> tuple[Confusion, Confusion]:
    """(word counts, character counts) of output against page words labelled
    ``good``/``bad`` (anything else is ignored)."""
    out_mask, page_mask = matched_mask(output, page)
    words, chars = Confusion(), Confusion()
    for w, kept, label in zip(page, page_mask, labels):
        if label == "good":
            if kept:
                words.tp += 1
                chars.tp += len(w)
            else:
                words.fn += 1
                chars.fn += len(w)
        elif label == "bad":
            if kept:
                words.fp += 1
                chars.fp += len(w)
            else:
                words.tn += 1
                chars.tn += len(w)
    for w, m in zip(output, out_mask):
        if not m:
            words.fp += 1
            chars.fp += len(w)
    return words, chars
