"""Training the justext-learned model: features from the engine, labels from the gold text.

A paragraph's training label comes from its overlap with the page's gold main
text (lower-cased ``\\w+`` tokens, the benchmark's own tokens):

* a paragraph of 3 or more tokens is main text when at least half of its
  token trigrams occur in the gold text's token sequence;
* a shorter one (a heading, a label, a date) is main text when its tokens are
  a whole line of the gold text, or occur in a gold line of at most 6 tokens;
* a paragraph without tokens is not.

A page of a snippet gold (``with`` / ``without`` snippets, no full text) gives
partial labels: a paragraph holding a ``with`` snippet is main text, one
holding a ``without`` snippet is not (snippet and paragraph normalised as the
snippet scoring does), and the others are left out of the training.

Each paragraph is weighted by its share of the page's tokens (every page
weighs the same, as in the mean per-page word F1 that scores it). On a snippet
page the labelled paragraphs share a full page's weight by the number of
snippets each holds, as the snippet figures count them: a two-word box heading
holding a ``without`` snippet weighs as much as a long paragraph holding a
``with`` one (session 18; by their tokens it weighed 1-3% of its page).

The model is trained with LightGBM (one thread, fixed seed, deterministic
mode, no sampling), so the same pages give the same trees and the same file
(``dump_model``). :func:`train_folds` trains one model per domain fold, each
without the pages of its fold's domains (``corpustool eval --cv``).
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable, Sequence

import numpy as np

from .breakdown import fold_of, page_domain
from .gold import GoldPage

_TOKEN = re.compile(r"\w+")
MIN_SHINGLE_TOKENS = 3
SHORT_LINE_TOKENS = 6
SEED = 0
PARAMS = {
    "objective": "binary", "num_leaves": 15, "max_depth": 5, "learning_rate": 0.1, "min_data_in_leaf": 20,
    "max_bin": 63, "feature_fraction": 1.0, "bagging_fraction": 1.0, "lambda_l2": 1.0,
    "num_threads": 1, "deterministic": True, "force_row_wise": True, "seed": SEED, "verbose": -1,
}
ROUNDS = 120


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class GoldIndex:
    """The gold text's token trigrams and short lines, for :meth:`label`."""

    def __init__(self, gold: str) -> None:
        toks = tokens(gold)
        self.trigrams = set(zip(toks, toks[1:], toks[2:]))
        self.lines: set[tuple[str, ...]] = set()
        self.short_text = []
        for line in gold.splitlines():
            t = tuple(tokens(line))
            if t:
                self.lines.add(t)
                if len(t) <= SHORT_LINE_TOKENS:
                    self.short_text.append(" " + " ".join(t) + " ")

    def label(self, text: str) -> int:
        t = tokens(text)
        if not t:
            return 0
        if len(t) >= MIN_SHINGLE_TOKENS:
            grams = list(zip(t, t[1:], t[2:]))
            found = sum(1 for g in grams if g in self.trigrams)
            return int(found * 2 >= len(grams))
        if tuple(t) in self.lines:
            return 1
        key = " " + " ".join(t) + " "
        return int(any(key in s for s in self.short_text))


def page_labels(page: GoldPage, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """(labels, weights, kept rows or None) of a page's paragraphs; None: nothing labelled."""
    from .tokens import normalize_snippet

    size = np.array([len(tokens(t)) + 1 for t in texts], dtype=np.float64)
    w = 100.0 * size / size.sum()
    if page.text is not None:
        index = GoldIndex(page.text)
        return np.array([index.label(t) for t in texts], dtype=np.int8), w, None
    norm = [normalize_snippet(t) for t in texts]
    y = np.full(len(texts), -1, dtype=np.int8)
    count = np.zeros(len(texts), dtype=np.float64)     # the snippets each paragraph holds
    for snippets, value in ((page.without_snippets or [], 0), (page.with_snippets or [], 1)):
        for s in snippets:
            s = normalize_snippet(s)
            if s:
                for i, t in enumerate(norm):
                    if s in t:
                        y[i] = value
                        count[i] += 1
    keep = y >= 0
    if not keep.any():
        return None
    # every page weighs the same: the labelled paragraphs' weights sum to a page's, shared by the
    # snippets each holds
    return y[keep], count[keep] * (100.0 / count[keep].sum()), keep


def collect(pages: Sequence[GoldPage], progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Each page with a gold text: its feature matrix, labels, weights and domain (the clean
    stage's default language handling, as ``corpustool eval`` runs it)."""
    from ..document import Document
    from ..extractors.clean import Clean

    stage = Clean(extractor="justext-learned", languages=["auto"], model="none")
    ex = stage.extractor
    out = []
    for n, page in enumerate(pages, 1):
        if page.text is None and not (page.with_snippets or page.without_snippets):
            continue
        try:
            raw, html = page.load()
        except OSError as exc:
            print(f"train: {page.id}: {exc}", file=sys.stderr)
            continue
        ex.capture = []
        doc = Document(id=page.id, url=page.url, raw=raw, html=html, source=page.path)
        try:
            stage.process(doc)
        except Exception as exc:  # one bad page never stops a training run
            print(f"train: {page.id}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        got = ex.capture
        ex.capture = None
        if not got:
            continue
        X, texts, struct = got[-1]
        labelled = page_labels(page, texts)
        if labelled is None:
            continue
        y, w, keep = labelled
        # X: all the page's paragraphs (stage 2 reads stage 1's probabilities around each); y, w:
        # those of the labelled ones (``keep``: which, None for all)
        out.append({"id": page.id, "domain": page_domain(page), "X": X, "keep": keep, "y": y, "w": w,
                    "struct": struct, "gold": page.text, "type": page.meta.get("page_type")})
        if progress:
            progress(n)
    return out


def _booster(X: np.ndarray, y: np.ndarray, w: np.ndarray, names: Sequence[str], rounds: int) -> Any:
    import lightgbm

    ds = lightgbm.Dataset(X, label=y, weight=w, feature_name=list(names), free_raw_data=True,
                          params={"max_bin": PARAMS["max_bin"], "verbose": -1})
    return lightgbm.train(PARAMS, ds, num_boost_round=rounds)


def _rows(d: dict[str, Any], X: np.ndarray) -> np.ndarray:
    return X if d["keep"] is None else X[d["keep"]]


def _stage1(data: Sequence[dict[str, Any]], rounds: int) -> Any:
    from ..extractors.justext_learned import FEATURES

    return _booster(np.vstack([_rows(d, d["X"]) for d in data]), np.concatenate([d["y"] for d in data]),
                    np.concatenate([d["w"] for d in data]), FEATURES, rounds)


def train(data: Sequence[dict[str, Any]], rounds: int = ROUNDS, k: int = 5) -> dict[str, Any]:
    """The model (TreeModel arrays, stage 2 under ``"stage2"``) from collected pages,
    deterministically. Stage 1 learns from the features; stage 2 from the features and stage 1's
    probabilities around each paragraph (``context_features``), each page's from a stage-1 model
    that did not see its domain: one per domain fold (``k`` folds of the pages given)."""
    from ..extractors.justext_learned import STAGE2_FEATURES, context_features, model_from_booster

    model = model_from_booster(_stage1(data, rounds))
    fold = [fold_of(d["domain"], k) for d in data]
    if len(set(fold)) < 2:
        return model        # (one fold of domains: no stage-1 probabilities blind to a page's domain)
    prob: list[np.ndarray | None] = [None] * len(data)
    for g in sorted(set(fold)):
        inner = _stage1([d for d, f in zip(data, fold) if f != g], rounds)
        for i, (d, f) in enumerate(zip(data, fold)):
            if f == g:
                prob[i] = inner.predict(d["X"])
    X2 = np.vstack([_rows(d, np.hstack([d["X"], context_features(p, d["struct"])])) for d, p in zip(data, prob)])
    stage2 = _booster(X2, np.concatenate([d["y"] for d in data]), np.concatenate([d["w"] for d in data]),
                      STAGE2_FEATURES, rounds)
    model["stage2"] = model_from_booster(stage2)
    return model


def train_folds(data: Sequence[dict[str, Any]], k: int, rounds: int = ROUNDS) -> list[dict[str, Any]]:
    """Model f is trained on every page whose domain is not in fold f (its stage 2 on stage-1
    probabilities from the other folds' inner models)."""
    models = []
    for f in range(k):
        part = [d for d in data if fold_of(d["domain"], k) != f]
        models.append(train(part, rounds, k))
    return models
