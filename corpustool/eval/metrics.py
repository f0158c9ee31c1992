"""Confusion counts, the scores computed from them, averages and bootstrap intervals.

The scores are those of seed 004 (Appendix C.4.6, Eq. C.1-C.4: recall,
precision, F-measure, fallout) plus accuracy and the F-beta of seed 003
(Sect. 2.9.1), which reports F0.5 because a corpus builder prefers precision:

    F_beta = (1 + beta^2) * P * R / (beta^2 * P + R)

written on counts as (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP), so
it is defined (and 0) when nothing was extracted but something should have
been. A score whose denominator is zero is NaN ("undefined"), never 0 or 1:
macro averages skip it, the CSV leaves the cell empty.

Micro averages add the counts of all pages (the dataset as one big document,
as reported in seed 003); macro averages take the mean of per-page scores.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

NAN = float("nan")


@dataclass
class Confusion:
    """TP, FP, FN, TN in some unit (words, characters, shingles, snippets)."""

    tp: float = 0
    fp: float = 0
    fn: float = 0
    tn: float = 0

    def __add__(self, other: "Confusion") -> "Confusion":
        return Confusion(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn)

    @property
    def precision(self) -> float:
        return _div(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _div(self.tp, self.tp + self.fn)

    def f_beta(self, beta: float) -> float:
        b2 = beta * beta
        return _div((1 + b2) * self.tp, (1 + b2) * self.tp + b2 * self.fn + self.fp)

    @property
    def f1(self) -> float:
        return self.f_beta(1.0)

    @property
    def f05(self) -> float:
        return self.f_beta(0.5)

    @property
    def fallout(self) -> float:
        return _div(self.fp, self.fp + self.tn)

    @property
    def accuracy(self) -> float:
        return _div(self.tp + self.tn, self.tp + self.fp + self.fn + self.tn)

    def score(self, name: str) -> float:
        if name == "f1":
            return self.f1
        if name == "f05":
            return self.f05
        if name in SCORES:
            return getattr(self, name)
        raise KeyError(name)

    def as_tuple(self) -> tuple[float, float, float, float]:
        return (self.tp, self.fp, self.fn, self.tn)


SCORES = ("precision", "recall", "f1", "f05", "fallout", "accuracy")


def _div(a: float, b: float) -> float:
    return a / b if b else NAN


def micro(items: Iterable[Confusion]) -> Confusion:
    total = Confusion()
    for c in items:
        total = total + c
    return total


def macro(items: Iterable[Confusion], score: str) -> float:
    """Mean of the defined per-page values of a score (NaN when none is defined)."""
    values = [c.score(score) for c in items]
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else NAN


def _scores_vectorized(counts: np.ndarray, score: str) -> np.ndarray:
    tp, fp, fn, tn = counts[..., 0], counts[..., 1], counts[..., 2], counts[..., 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        if score == "precision":
            num, den = tp, tp + fp
        elif score == "recall":
            num, den = tp, tp + fn
        elif score in ("f1", "f05"):
            b2 = 1.0 if score == "f1" else 0.25
            num, den = (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp
        elif score == "fallout":
            num, den = fp, fp + tn
        elif score == "accuracy":
            num, den = tp + tn, tp + fp + fn + tn
        else:
            raise KeyError(score)
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def bootstrap_ci(items: Sequence[Confusion], score: str, resamples: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of a micro-averaged score, resampling pages.

    Pages are drawn with replacement ``resamples`` times from a generator
    seeded with ``seed``, so the interval is reproducible.
    """
    if not items or resamples <= 0:
        return (NAN, NAN)
    counts = np.array([c.as_tuple() for c in items], dtype=np.float64)
    rng = np.random.default_rng(seed)
    values = np.empty(resamples)
    # in chunks: a (resamples x pages) index matrix may be large
    chunk = max(1, 2_000_000 // max(1, len(items)))
    done = 0
    while done < resamples:
        n = min(chunk, resamples - done)
        idx = rng.integers(0, len(items), size=(n, len(items)))
        values[done:done + n] = _scores_vectorized(counts[idx].sum(axis=1), score)
        done += n
    values = values[~np.isnan(values)]
    if not len(values):
        return (NAN, NAN)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(values, [alpha, 1 - alpha])
    return (float(lo), float(hi))
