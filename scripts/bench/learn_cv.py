#!/usr/bin/env python3
"""Compare justext-learned configurations offline, under domain-grouped CV and nested CV.

``corpustool eval --cv`` gives the figures that are reported; this script is for choosing
between configurations (feature sets, hyperparameters, thresholds) without looking at the
outer folds' scores: it replays justext-learned's decision (``decide_classes``) on each
page's captured input (``PageInput``: the engine's paragraphs, evidence regions, types,
title) and scores the output as ``corpustool eval`` does (word F1 of the bag of words on
wcxb-dev; ``with``/``without`` snippets found on the snippet set).

    python scripts/bench/learn_cv.py collect            # pages -> cache (once per change of the walk)
    python scripts/bench/learn_cv.py cv CONFIG...       # 5-fold CV figures of each configuration
                                                  # (--kept-without F: the `without` snippets kept, JSON lines)
    python scripts/bench/learn_cv.py nested CONFIG...   # nested CV: each outer fold's configuration
                                                  # chosen on inner folds of the other four
    python scripts/bench/learn_cv.py grid TRAIN... [--decide D,...] [--rule]
                                                  # every model once per set of training folds: CV
                                                  # and nested CV of (training, decision) pairs;
                                                  # --rule: nested selection of the cheapest pair within
                                                  # --margin of the first one's objective and wcxb-dev mean
    python scripts/bench/learn_cv.py cost TRAIN...  # each one's model on all pages: trees, nodes
                                                  # visited a paragraph, TreeModel.raw_score per page

A CONFIG is ``name`` of :data:`CONFIGS` (a dict of overrides: LightGBM parameters,
``rounds``, ``good``/``bad`` thresholds, ``drop``: feature names left out; ``stage2``,
``stage3``: a second, third stage; ``ctx``: more context columns for them). Every run
appends its configurations and scores to ``--log`` (default /tmp/learn_cv.log).
"""
from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"
K = 5
MAIN = 4    # session 24's main-region columns (main_columns)

NEW13 = ["price", "since_title", "log_records", "log_record_paras", "log_record_words", "record_pos",
         "record_first", "record_dated", "record_good_share", "records_share", "before_records",
         "record_nesting", "log_inner_records", "comment_posts", "template_kind", "rights", "ui_label", "in_related"]
LINES = ["template_kind", "rights", "ui_label", "in_related"]
RECORDS = ["log_records", "log_record_paras", "log_record_words", "record_pos", "record_first", "record_dated",
           "record_good_share", "records_share", "before_records", "record_nesting", "log_inner_records"]
# (session 13's log: docs/justext_learned_cv_log.txt. The record features were removed from
# justext_learned after these runs: the configurations naming them now drop nothing of them.)
CONFIGS: dict[str, dict] = {
    "base": {},
    "s12": {"drop": NEW13},                                  # session 12's features
    "rec": {"drop": ["price", "since_title"]},               # + the records
    "all11": {"drop": ["record_nesting", "log_inner_records", "comment_posts"] + LINES},   # session 13's first set
    "all14": {"drop": LINES},                                  # + nesting, comment_posts
    "all": {},                                               # + records, price, title distance
    "jp": {"jp": True},                                      # + justext-plus's verdict
    "r250": {"rounds": 250},
    "l31": {"params": {"num_leaves": 31, "max_depth": 6}},
    "mdl100": {"params": {"min_data_in_leaf": 100}},
    "hi": {"good": 0.6, "bad": 0.5},
    "snip2": {"snippet_weight": 2.0},
    "soft": {"soft": True, "params": {"objective": "cross_entropy"}},
    # the records cost 2.3 ms a page in Python: the new features without them
    "cheap": {"drop": RECORDS},
    "cheapsoft": {"drop": RECORDS, "soft": True, "params": {"objective": "cross_entropy"}},
    "s12stage2": {"drop": NEW13, "stage2": True},
    "cheapstage2": {"drop": RECORDS, "stage2": True},
    "stage2plus": {"drop": RECORDS, "stage2": True, "ctx_plus": True},   # + 6 more context columns
    "show": {"hide": False},
    # session 14 (grid mode; the record columns are gone from FEATURES)
    "s2": {"stage2": True},                                  # the shipped configuration (learn.PARAMS/ROUNDS:
                                                             # session 13's 120 rounds at 0.1, as "s13")
    "s2neg2": {"stage2": True, "neg_weight": 2.0},          # snippet pages' 'without' paragraphs x2
    "s2neg4": {"stage2": True, "neg_weight": 4.0},
    "s2lab35": {"stage2": True, "label_at": 0.35},          # main text from 35% of trigrams in the gold
    "s2lab65": {"stage2": True, "label_at": 0.65},
    "s2para": {"stage2": True, "weighting": "para"},        # paragraphs equal within a page
    "s2sqrt": {"stage2": True, "weighting": "sqrt"},
    # session 15: tokens weighed as the page's word F1 weighs them (by 1 / its main text), capped
    "s2f1": {"stage2": True, "weighting": "f1"},
    "s2f1half": {"stage2": True, "weighting": "f1", "f1_power": 0.5},
    "s2f1c4": {"stage2": True, "weighting": "f1", "f1_cap": 4.0},
    "s2rel": {"stage2": True, "ctx": ["rel"]},              # + p / page max, p - page mean
    "s2relk": {"stage2": True, "ctx": ["rel", "kept_chars"]},
    "s2main": {"stage2": True, "ctx": ["main"]},            # inside the main container (stage 1's)
    "showjp": {"hide": False, "jp": True},
    # session 14, issue 27: cheaper models (fewer rounds at a higher rate, fewer leaves, a smaller
    # stage 2: "rounds2"/"params2" override stage 2's rounds/parameters). Run with session 13's
    # PARAMS/ROUNDS (120 rounds, learning rate 0.1) as "s2"; r100 passed the rule but was not shipped
    # (docs/best_extractor.md, "Session 14: a smaller model").
    "r80": {"stage2": True, "rounds": 80, "params": {"learning_rate": 0.15}},
    "r60": {"stage2": True, "rounds": 60, "params": {"learning_rate": 0.2}},
    "r40": {"stage2": True, "rounds": 40, "params": {"learning_rate": 0.25}},
    "l7r60": {"stage2": True, "rounds": 60, "params": {"learning_rate": 0.2, "num_leaves": 7, "max_depth": 4}},
    "s13": {"stage2": True, "rounds": 120, "params": {"learning_rate": 0.1}},
    "st2r40": {"stage2": True, "rounds": 120, "params": {"learning_rate": 0.1},
               "rounds2": 40, "params2": {"learning_rate": 0.25}},
    "r60s40": {"stage2": True, "rounds": 60, "params": {"learning_rate": 0.2},
               "rounds2": 40, "params2": {"learning_rate": 0.25}},
    # (a second round, after the first one's CV: see docs/justext_learned_cv_log.txt)
    "r100": {"stage2": True, "rounds": 100, "params": {"learning_rate": 0.12}},
    "st2r60": {"stage2": True, "rounds": 120, "params": {"learning_rate": 0.1},
               "rounds2": 60, "params2": {"learning_rate": 0.2}},
    "l7r120": {"stage2": True, "rounds": 120, "params": {"learning_rate": 0.1, "num_leaves": 7, "max_depth": 4}},
    # session 15, issue 27 (grid mode, against "s2"):
    # a third stage: stage 2 again over stage 2's probabilities (the features and the CONTEXT
    # columns of them), trained on held-out stage-2 probabilities as stage 2 is on stage 1's
    "s3": {"stage2": True, "stage3": True},
    # two more context columns: stage 1's character-weighted mean probability over the
    # paragraph's grandparent element and over its innermost evidence region (-1: none)
    "s2gr": {"stage2": True, "ctx": ["grand", "region"]},
    # both: stage 2 and stage 3 each read the features, CONTEXT and the two columns (of the
    # previous stage's probabilities)
    "s3gr": {"stage2": True, "stage3": True, "ctx": ["grand", "region"]},
    # session 16: justext-plus's verdict as a stage-1 column (session 13's "jp", with stage 2)
    "s2jp": {"stage2": True, "jp": True},
    # stage 2 also reads stage 1's likely text before and after the paragraph and its distance
    # from the nearest long paragraph stage 1 is sure of
    "s2mass": {"stage2": True, "ctx": ["mass"]},
    # a diagnosis, not a candidate: the wcxb-dev pages weighed down (0.1) or out (0.01), so that
    # the snippet pages' labels decide
    "s2w10": {"stage2": True, "wcxb_weight": 0.1},
    "s2w01": {"stage2": True, "wcxb_weight": 0.01},
    # session 17: without template_lines' verdicts (line_verdict: justext-plus's word lists, a third of
    # justext-learned's decision time from the bytes): the model from the page's structure alone
    "s2nolines": {"stage2": True, "drop": ["template_line", "dated", "template_kind", "rights", "ui_label",
                                           "in_related"]},
    # session 18 (the snippet set's `without`): a snippet page's labelled paragraphs weighted as its
    # snippet figures count them, by the snippets each holds (a share of its weight; the rest by tokens);
    # snippet_labels recomputes a snippet page's labels and weights from scratch when "snip_count" is
    # given, so these configurations mean the same before and after learn.page_labels took "s2cnt1"
    # (count weights: session 18's training, now "s2"; the configurations above that name no
    # "snip_count" now start from it); "s2tok" is the training before it (token shares: session 17's "s2")
    "s2tok": {"stage2": True, "snip_count": 0.0},
    "s2cnt5": {"stage2": True, "snip_count": 0.5},
    "s2cnt1": {"stage2": True, "snip_count": 1.0},
    "s2neg15": {"stage2": True, "neg_weight": 1.5},
    "s2cnt5neg15": {"stage2": True, "snip_count": 0.5, "neg_weight": 1.5},
    "s2cnt1neg15": {"stage2": True, "snip_count": 1.0, "neg_weight": 1.5},
    "s2cnt1neg2": {"stage2": True, "snip_count": 1.0, "neg_weight": 2.0},
    "s2cnt1wn2": {"stage2": True, "snip_count": 1.0, "wcxb_neg": 2.0},
    "s2cnt1neg15wn4": {"stage2": True, "snip_count": 1.0, "neg_weight": 1.5, "wcxb_neg": 4.0},
    "s2cnt1wn4": {"stage2": True, "snip_count": 1.0, "wcxb_neg": 4.0},
    "s2cnt1sw2": {"stage2": True, "snip_count": 1.0, "snippet_weight": 2.0},
    "s2cnt1sw2neg15": {"stage2": True, "snip_count": 1.0, "snippet_weight": 2.0, "neg_weight": 1.5},
    # session 19: stage 2 also reads stage 1's mean over the paragraph's section (p_section)
    "s2sec": {"stage2": True, "ctx": ["section"]},
    # session 24: stage-1 columns of justext-plus's main region (main_columns): inside it only, or all four
    "s2region1": {"stage2": True, "main": 1},
    "s2region": {"stage2": True, "main": MAIN},
}


def collect(cache: Path) -> None:
    from corpustool.document import Document
    from corpustool.eval.breakdown import fold_of, page_domain
    from corpustool.eval.gold import read_gold
    from corpustool.extractors import justext_learned as jl
    from corpustool.extractors.clean import Clean

    stage = Clean(extractor="justext-learned", languages=["auto"], model="none")
    ex = stage.extractor
    got: list = []
    orig = jl.JustextLearnedExtractor.page_input

    import copy

    from corpustool.extractors.justext_plus import JustextPlusExtractor

    def page_input(self, *a, **k):
        inp = orig(self, *a, **k)
        # justext-plus's verdict on the same paragraphs (a candidate feature: see CONFIGS "jp")
        inp.kinds, inp.hints = dict(inp.kinds), list(inp.hints)
        paras = [copy.copy(p) for p in inp.paras]
        for p in paras:
            p.features = dict(p.features)
        JustextPlusExtractor._decide(self, paras, *a[1:], **k)
        got.append((inp, [p.text for p in inp.paras], [(p.cls, p.reason) for p in inp.paras],
                    [p.cls == "good" for p in paras]))
        return inp

    jl.JustextLearnedExtractor.page_input = page_input
    jl.POSTS_HIDE_COMMENTS = False     # kept in the cache; configurations with "hide" remove them
    out = []
    start = time.process_time()
    for spec in (f"wcxb:{DATA / 'wcxb-dev'}", f"snippets:{DATA / 'snippets'}"):
        for page in read_gold(spec):
            if page.text is None and not (page.with_snippets or page.without_snippets):
                continue
            raw, html = page.load()
            got.clear()
            ex.capture = []
            doc = Document(id=page.id, url=page.url, raw=raw, html=html, source=page.path)
            try:
                stage.process(doc)
            except Exception as exc:
                print(f"{page.id}: {exc}", file=sys.stderr)
                continue
            if not got:
                if page.text is not None:      # scored as nothing kept (e.g. a truncated page)
                    out.append({"id": page.id, "set": "wcxb", "domain": page_domain(page),
                                "fold": fold_of(page_domain(page), K), "type": page.meta.get("page_type"),
                                "inp": None, "gold": page.text})
                continue
            inp, texts, classes, jp = got[-1]
            out_texts = [p.text for p in inp.paras]      # after the clean stage's clean_text
            for p, t, (c, r) in zip(inp.paras, texts, classes):
                p.text, p.cls, p.reason = t, c, r
            out.append({"id": page.id, "set": spec.split(":")[0], "domain": page_domain(page),
                        "fold": fold_of(page_domain(page), K), "type": page.meta.get("page_type"),
                        "inp": inp, "out_texts": out_texts, "gold": page.text, "jp": np.array(jp, dtype=float),
                        "with": page.with_snippets, "without": page.without_snippets,
                        "bag": page.meta.get("word_metric") == "bag"})
    with open(cache, "wb") as fh:
        pickle.dump(out, fh, protocol=pickle.HIGHEST_PROTOCOL)
    print(f"collected {len(out)} pages in {time.process_time() - start:.0f} CPU s -> {cache}")


class Pages:
    """Features, labels and what scoring needs, per page."""

    def __init__(self, records: list[dict], hide: bool = True) -> None:
        from corpustool.eval.gold import GoldPage  # noqa: F401  (page_labels reads attributes only)
        from corpustool.eval.learn import page_labels
        from corpustool.eval.tokens import normalize_snippet, words

        self.dropped = [r for r in records if r["inp"] is None]
        records = [r for r in records if r["inp"] is not None]
        self.records = records
        self.X, self.y, self.w, self.keep, self.soft = [], [], [], [], []
        for r in records:
            X = features(r["inp"], hide)
            X = np.hstack([X, r["jp"][:, None]])     # justext-plus's verdict (column len(FEATURES))
            X = np.hstack([X, main_columns(r["inp"])])   # session 24: the main region (the next MAIN columns)
            texts = [p.text for p in r["inp"].paras]
            lab = page_labels(_Gold(r), texts)
            self.X.append(X)
            if r["gold"] is not None:
                from corpustool.eval.learn import GoldIndex, tokens
                gi = GoldIndex(r["gold"])
                soft = []
                for t in texts:
                    tk = tokens(t)
                    if len(tk) >= 3:
                        grams = list(zip(tk, tk[1:], tk[2:]))
                        soft.append(sum(1 for g in grams if g in gi.trigrams) / len(grams))
                    else:
                        soft.append(float(gi.label(t)))
                self.soft.append(np.array(soft))
            else:
                self.soft.append(None)
            if lab is None:
                self.y.append(None), self.w.append(None), self.keep.append(None)
            else:
                y, w, keep = lab
                self.y.append(y), self.w.append(w), self.keep.append(keep)
            if r["gold"] is not None and "gold_bag" not in r:
                r["gold_bag"] = Counter(words(r["gold"]))
                r["out_words"] = [words(t) for t in r["out_texts"]]
            if r["gold"] is None and "norm" not in r:
                r["norm"] = [normalize_snippet(t) for t in r["out_texts"]]
                r["with_n"] = [s for s in (normalize_snippet(x) for x in r["with"] or []) if s]
                r["without_n"] = [s for s in (normalize_snippet(x) for x in r["without"] or []) if s]
        self.fold = np.array([r["fold"] for r in records])
        from corpustool.extractors.justext_learned import page_struct

        self.struct = [page_struct(r["inp"].paras) for r in records]
        self.extra = []
        for r in records:
            paras = r["inp"].paras
            ids: dict = {}
            grand = np.array([ids.setdefault(p.xpath.rsplit("/", 2)[0], len(ids)) for p in paras])
            ids = {}
            text_id = np.array([ids.setdefault(p.text, len(ids)) for p in paras])
            section = np.cumsum([bool(p.heading) for p in paras])
            self.extra.append((grand, text_id, section))


    def f1_scale(self, cfg: dict) -> float:
        """The mean f1_ratio over the full-gold pages (config "f1" keeps their total weight)."""
        key = (cfg.get("f1_cap", 10.0), cfg.get("f1_power", 1.0))
        cache = self.__dict__.setdefault("_f1_scale", {})
        if key not in cache:
            r = [f1_ratio(self, i, cfg) for i in range(len(self.records))
                 if self.records[i]["gold"] is not None and self.y[i] is not None]
            cache[key] = float(np.mean(r))
        return cache[key]


def main_columns(inp, share: float = 0.6) -> np.ndarray:
    """Session 24's candidate columns: where a paragraph sits relative to the page's main region,
    the deepest element holding more than ``share`` of its content-like text (jusText good or
    near-good context-free, link density at most 0.5, outside every named region), as
    justext-plus finds it. Columns: inside it (1/0; -1: no text), the region's share of the
    content-like text, the levels between it and the paragraph's nearest common ancestor with it
    (0 inside), the paragraph's depth below that ancestor."""
    paras = inp.paras
    n = len(paras)
    out = np.full((n, MAIN), -1.0)
    kinds = inp.kinds
    mass: dict[str, float] = {}
    total = 0.0
    steps = []
    for p, chain in zip(paras, inp.chains):
        parts = [x for x in p.xpath.split("/") if x]
        steps.append(parts)
        if p.cf_class not in ("good", "neargood") or p.features.get("link_density", 0.0) > 0.5:
            continue
        if any(x in kinds for x in chain):
            continue
        w = float(len(p.text))
        total += w
        key = ""
        for part in parts:
            key += "/" + part
            mass[key] = mass.get(key, 0.0) + w
    if total <= 0:
        return out
    main = max((k for k, m in mass.items() if m > share * total), key=len, default=None)
    if main is None:
        return out
    mparts = [x for x in main.split("/") if x]
    for i, parts in enumerate(steps):
        k = 0
        while k < len(parts) and k < len(mparts) and parts[k] == mparts[k]:
            k += 1
        inside = k == len(mparts)
        out[i, 0] = 1.0 if inside else 0.0
        out[i, 1] = mass[main] / total
        out[i, 2] = float(len(mparts) - k)
        out[i, 3] = float(len(parts) - k)
    return out


def features(inp, hide: bool) -> np.ndarray:
    """The page's features; ``hide``: no comment regions on a page whose comment blocks are its posts."""
    if hide and inp.posts:
        kinds = inp.kinds
        inp.kinds = {x: k for x, k in kinds.items() if k != "comment"}
        try:
            return inp.features()
        finally:
            inp.kinds = kinds
    return inp.features()


class _Gold:
    def __init__(self, r: dict) -> None:
        self.text, self.with_snippets, self.without_snippets = r["gold"], r["with"], r["without"]


def context_features(prob: np.ndarray, struct: tuple, extra: tuple | None = None) -> np.ndarray:
    from corpustool.extractors.justext_learned import context_features as cf

    out = cf(prob, struct)
    if extra is None:
        return out
    # candidate extra context: grandparent mean, same-text mean, rank in page, max within 3,
    # paragraphs to the nearest confident one, mean over the paragraph's heading section
    grand, text_id, section = extra
    _, _, chars = struct
    n = len(prob)
    more = np.zeros((n, 6))
    wc = prob * chars
    for col, ids in ((0, grand), (1, text_id)):
        num = np.bincount(ids, weights=wc)
        den = np.bincount(ids, weights=chars)
        more[:, col] = (num / np.maximum(den, 1))[ids]
    order = prob.argsort().argsort()
    more[:, 2] = order / max(n - 1, 1)
    pad = np.concatenate([np.full(3, -1.0), prob, np.full(3, -1.0)])
    more[:, 3] = np.max(np.stack([pad[k:k + n] for k in range(7)]), axis=0)
    conf = np.nonzero(prob >= 0.8)[0]
    if conf.size:
        pos = np.searchsorted(conf, np.arange(n))
        left = np.abs(np.arange(n) - conf[np.clip(pos - 1, 0, conf.size - 1)])
        right = np.abs(conf[np.clip(pos, 0, conf.size - 1)] - np.arange(n))
        more[:, 4] = np.log1p(np.minimum(left, right))
    else:
        more[:, 4] = 10.0
    num = np.bincount(section, weights=wc)
    den = np.bincount(section, weights=chars)
    more[:, 5] = (num / np.maximum(den, 1))[section]
    return np.hstack([out, more])


def train(pages: Pages, idx: list[int], cfg: dict, cols: np.ndarray, getx=None):
    import lightgbm

    from corpustool.eval.learn import PARAMS, ROUNDS

    Xs, ys, ws = [], [], []
    for i in idx:
        if pages.y[i] is None:
            continue
        full = pages.X[i][:, cols] if getx is None else getx(i)
        X = full if pages.keep[i] is None else full[pages.keep[i]]
        w = pages.w[i] * (cfg.get("snippet_weight", 1.0) if pages.records[i]["gold"] is None else 1.0)
        y = pages.y[i]
        if cfg.get("soft") and pages.soft[i] is not None:
            y = pages.soft[i]
        Xs.append(X), ys.append(y), ws.append(w)
    params = dict(PARAMS)
    params.update(cfg.get("params", {}))
    ds = lightgbm.Dataset(np.vstack(Xs), label=np.concatenate(ys), weight=np.concatenate(ws),
                          free_raw_data=True, params={"max_bin": params["max_bin"], "verbose": -1})
    return lightgbm.train(params, ds, num_boost_round=cfg.get("rounds", ROUNDS))


# cv --kept-without FILE: every `without` snippet the output keeps, with the kept paragraphs that hold it
# (none: it spans paragraphs), for reading what the model keeps
KEPT_WITHOUT: list | None = None


def score_pages(pages: Pages, idx: list[int], booster, cfg: dict, cols: np.ndarray) -> dict[int, tuple]:
    """page -> ('wcxb', f1) or ('snip', with found, with n, without found, without n)."""
    from corpustool.extractors import justext_learned as jl

    if not idx:
        return {}
    if callable(booster):
        prob = np.concatenate([booster(i) for i in idx])
    else:
        prob = booster.predict(np.vstack([pages.X[i][:, cols] for i in idx]))
    out = {}
    at = 0
    # the decision's settings: the shipped ones (justext_learned's), but for what cfg overrides
    shipped = jl.GOOD_AT, jl.BAD_BELOW, jl.DROP_REPEATS, jl.REPEAT_MIN_CHARS
    jl.GOOD_AT, jl.BAD_BELOW = cfg.get("good", shipped[0]), cfg.get("bad", shipped[1])
    jl.DROP_REPEATS, jl.REPEAT_MIN_CHARS = cfg.get("repeats", shipped[2]), cfg.get("repeat_min", shipped[3])
    for i in idx:
        r = pages.records[i]
        n = pages.X[i].shape[0]
        p = prob[at:at + n]
        at += n
        if cfg.get("ef1") is not None:
            t = expected_f1_threshold(p, [q.features.get("words", 0) for q in r["inp"].paras])
            lo, hi = cfg.get("clamp", (0.0, 1.0))
            t = min(max(t, lo), hi)
            jl.GOOD_AT, jl.BAD_BELOW = t + cfg["ef1"], t - cfg["ef1"]
        if cfg.get("short_words") is not None:
            # session 16: a short paragraph needs a higher probability (its thresholds shifted up)
            short = np.array([q.features.get("words", 0) < cfg["short_words"] for q in r["inp"].paras])
            p = p - cfg["short_shift"] * short
        if cfg.get("link_at") is not None:
            # session 18: a mostly linked paragraph needs a higher probability
            linked = pages.X[i][:, jl._INDEX["link_density"]] >= cfg["link_at"]
            p = p - cfg["link_shift"] * linked
        _, cls = jl.decide_classes(p, r["inp"])
        if r["gold"] is not None:
            bag = Counter()
            for c, ws in zip(cls, r["out_words"]):
                if c == "good":
                    bag.update(ws)
            gold = r["gold_bag"]
            tp = sum((bag & gold).values())
            no, ng = sum(bag.values()), sum(gold.values())
            if no == 0 and ng == 0:
                f1 = math.nan
            else:
                pr = tp / no if no else 0.0
                rc = tp / ng if ng else 0.0
                f1 = 2 * pr * rc / (pr + rc) if pr + rc else 0.0
            out[i] = ("wcxb", f1)
        else:
            text = " ".join(t for c, t in zip(cls, r["norm"]) if c == "good")
            text = " " + text + " "
            wf = sum(1 for s in r["with_n"] if s in text)
            wo = sum(1 for s in r["without_n"] if s in text)
            if KEPT_WITHOUT is not None:
                for s in r["without_n"]:
                    if s in text:
                        kept = [k for k, (c, t) in enumerate(zip(cls, r["norm"])) if c == "good" and s in f" {t} "]
                        KEPT_WITHOUT.append({"page": r["id"], "snippet": s, "paragraphs": kept, "of": len(cls),
                                             "texts": [r["out_texts"][k] for k in kept]})
            out[i] = ("snip", wf, len(r["with_n"]), wo, len(r["without_n"]))
    jl.GOOD_AT, jl.BAD_BELOW, jl.DROP_REPEATS, jl.REPEAT_MIN_CHARS = shipped
    return out


def expected_f1_threshold(p: np.ndarray, words) -> float:
    """The page's threshold that maximises its expected word F1 when the probabilities are
    calibrated: keep the paragraphs of highest probability while 2 E[TP] / (kept words + E[gold
    words]) grows (the plug-in rule of F-measure optimisation); the threshold is half-way between
    the last kept probability and the next."""
    w = np.asarray(words, dtype=np.float64) + 1.0
    order = np.argsort(-p, kind="stable")
    ps, ws = p[order], w[order]
    gold = float((p * w).sum())
    tp = np.cumsum(ps * ws)
    kept = np.cumsum(ws)
    f1 = 2 * tp / (kept + gold)
    k = int(np.argmax(f1))
    nxt = float(ps[k + 1]) if k + 1 < len(ps) else 0.0
    return (float(ps[k]) + nxt) / 2


def summarise(pages: Pages, scores: dict[int, tuple]) -> dict:
    by_type: dict[str, list[float]] = {}
    allf = []
    wf = wn = of = on = 0
    snip_f1 = []
    for i, s in scores.items():
        if s[0] == "wcxb":
            if not math.isnan(s[1]):
                allf.append(s[1])
                by_type.setdefault(pages.records[i]["type"] or "?", []).append(s[1])
        else:
            wf += s[1]; wn += s[2]; of += s[3]; on += s[4]
            tp, fn, fp = s[1], s[2] - s[1], s[3]
            if tp + fn + fp:
                snip_f1.append(2 * tp / (2 * tp + fn + fp))
    for r in pages.dropped:
        if r["fold"] in folds_of(pages, scores):
            allf.append(0.0)
            by_type.setdefault(r["type"] or "?", []).append(0.0)
    res = {"all": float(np.mean(allf)) if allf else math.nan, "n": len(allf)}
    for t, v in sorted(by_type.items()):
        res[t] = float(np.mean(v))
    res["with"] = wf / wn if wn else math.nan
    res["without"] = 1 - of / on if on else math.nan
    tp, fn, fp = wf, wn - wf, of
    res["snipF1"] = 2 * tp / (2 * tp + fn + fp) if tp + fn + fp else math.nan
    res["objective"] = objective(res)
    return res


def folds_of(pages: Pages, scores: dict) -> set[int]:
    return {int(pages.fold[i]) for i in scores}


def objective(res: dict) -> float:
    """What a nested selection maximises: wcxb-dev's mean word F1 and the snippet set's
    snippet F1, equally."""
    return (res["all"] + res["snipF1"]) / 2


def columns(cfg: dict) -> np.ndarray:
    from corpustool.extractors.justext_learned import FEATURES

    drop = set(cfg.get("drop", ()))
    cols = [i for i, f in enumerate(FEATURES) if f not in drop]
    if cfg.get("jp"):
        cols.append(len(FEATURES))
    if cfg.get("main"):
        cols.extend(len(FEATURES) + 1 + k for k in range(cfg["main"]))
    return np.array(cols)


def cv(pages: Pages, cfg: dict, folds: list[int], exclude: int | None = None) -> dict[int, tuple]:
    """Each page of ``folds`` scored by a model trained on the other folds (never ``exclude``)."""
    cols = columns(cfg)
    if cfg.get("stage2"):
        return cv2(pages, cfg, folds, exclude, cols)
    scores = {}
    for f in folds:
        train_idx = [i for i in range(len(pages.records)) if pages.fold[i] != f and pages.fold[i] != exclude]
        test_idx = [i for i in range(len(pages.records)) if pages.fold[i] == f]
        booster = train(pages, train_idx, cfg, cols)
        scores.update(score_pages(pages, test_idx, booster, cfg, cols))
    return scores


def cv2(pages: Pages, cfg: dict, folds: list[int], exclude: int | None, cols: np.ndarray) -> dict[int, tuple]:
    """Two stages: stage 2 sees stage 1's probabilities around each paragraph; its training rows
    carry stage-1 probabilities from models that did not see their page (inner folds)."""
    scores = {}
    n = len(pages.records)
    for f in folds:
        train_idx = [i for i in range(n) if pages.fold[i] != f and pages.fold[i] != exclude]
        test_idx = [i for i in range(n) if pages.fold[i] == f]
        oof = {}
        for g in sorted({int(pages.fold[i]) for i in train_idx}):
            b = train(pages, [i for i in train_idx if pages.fold[i] != g], cfg, cols)
            for i in train_idx:
                if pages.fold[i] == g:
                    oof[i] = b.predict(pages.X[i][:, cols])
        b1 = train(pages, train_idx, cfg, cols)
        x2 = lambda i, p: np.hstack([pages.X[i][:, cols], context_features(
            p, pages.struct[i], pages.extra[i] if cfg.get("ctx_plus") else None)])
        b2 = train(pages, train_idx, cfg, cols, getx=lambda i: x2(i, oof[i]))
        predict = lambda i: b2.predict(x2(i, b1.predict(pages.X[i][:, cols])))
        scores.update(score_pages(pages, test_idx, predict, cfg, cols))
    return scores


# --- session 14: every model trained once per set of training folds, shared by CV and nested CV ---
#
# A two-stage model trained on the pages of a set S of folds needs stage-1 models on S and on S minus
# each of its folds (stage 2's held-out probabilities). The outer CV (S = all but f) and the inner CV of
# nested selection (S = all but f and g) thus need stage-1 models on every set of 2, 3 and 4 folds
# (25) and stage-2 models on every set of 3 and 4 folds (15): the same models as cv2's, trained once.
# Decision settings (thresholds, the revision) need no training: they are chosen over the same
# probabilities. A page's probability "outer" is from the model on all folds but its own; "inner f"
# from the model on all folds but its own and f.
# A third stage (session 15) goes one level further: stage 3 on S needs stage-2 models on S and on S
# minus each of its folds, so the nested CV adds stage-2 models on sets of 2 folds and stage-1 models
# on single folds.

TRAIN_KEYS = ("drop", "snip_count", "span", "wcxb_neg", "params", "rounds", "soft", "snippet_weight", "label_at", "neg_weight", "weighting",
              "f1_cap", "f1_power", "ctx", "stage2", "jp", "page_cap", "rounds2", "params2", "wcxb_weight", "main")
# stage 3's models: stage 2's keys and "stage3" (stage 2's keys leave it out: the stage-2 models of
# a configuration with a third stage are those of the same configuration without it)
STAGE3_KEYS = TRAIN_KEYS + ("stage3",)
STAGE1_KEYS = ("drop", "snip_count", "span", "wcxb_neg", "params", "rounds", "soft", "snippet_weight", "label_at", "neg_weight", "weighting",
               "f1_cap", "f1_power", "jp", "page_cap", "wcxb_weight", "main")
DECIDE: dict[str, dict] = {
    "d55": {},                                     # shipped: good >= 0.55, bad < 0.45, revision on, repeats of
                                                   # 30 characters or more out
    "d50": {"good": 0.5, "bad": 0.4},
    "d45": {"good": 0.45, "bad": 0.35},
    # session 15: the page's repeats (decide_classes' last phase) kept, or all dropped (also tried, in
    # docs/justext_learned_cv_log.txt: those inside <pre>/<code> kept, documentation 0.9210 -> 0.9214)
    "d55rep": {"repeats": False},
    "d55r0": {"repeat_min": 0},
    # session 16: paragraphs of fewer than W words kept from a higher probability (shifted by s)
    **{f"sw{w}s{int(d * 100)}": {"short_words": w, "short_shift": d}
       for w in (5, 10, 20, 40) for d in (0.05, 0.1, 0.15, 0.2)},
    # session 15: each page's own threshold t, the one that maximises its expected word F1 under the
    # probabilities (expected_f1_threshold), clamped; good >= t + ef1, bad < t - ef1
    "ef05": {"ef1": 0.05},
    "ef05c": {"ef1": 0.05, "clamp": (0.35, 0.65)},
    "ef05w": {"ef1": 0.05, "clamp": (0.25, 0.75)},
    "ef10c": {"ef1": 0.10, "clamp": (0.35, 0.65)},
    "ef0c": {"ef1": 0.0, "clamp": (0.35, 0.65)},
    # session 18: a mostly linked paragraph (link density >= l) kept from a higher probability
    **{f"ld{round(l * 100)}s{round(d * 100)}": {"link_at": l, "link_shift": d} for l in (0.5, 0.8) for d in (0.05, 0.1)},
    **{f"d{round(g * 100)}b{round(b * 100)}": {"good": g, "bad": b} for g, b in ((0.6, 0.45), (0.6, 0.4), (0.65, 0.45), (0.58, 0.45), (0.62, 0.45))},
    "d40": {"good": 0.4, "bad": 0.3},
    "d60": {"good": 0.6, "bad": 0.5},
    "d65": {"good": 0.65, "bad": 0.55},
    "norev50": {"norevise": True, "at": 0.5},
    "norev55": {"norevise": True, "at": 0.55},
    "norev60": {"norevise": True, "at": 0.6},
}


def _key(cfg: dict, keys) -> str:
    return json.dumps({k: cfg[k] for k in keys if k in cfg}, sort_keys=True)


def labels_of(pages: Pages, i: int, cfg: dict):
    """(rows kept or None, labels, weights) of page i under a training configuration."""
    y, w, keep = pages.y[i], pages.w[i], pages.keep[i]
    r = pages.records[i]
    snippet = r["gold"] is None
    if "label_at" in cfg and not snippet:
        y = (pages.soft[i] >= cfg["label_at"]).astype(np.int8)
    if cfg.get("soft") and not snippet:
        y = pages.soft[i]
    w = w.copy()
    wt = cfg.get("weighting")
    if wt == "para":          # every labelled paragraph of a page the same weight, pages equal
        w = np.full(len(w), 100.0 / len(w))
    elif wt == "sqrt":        # tokens' square root, pages equal
        s = np.sqrt(w)
        w = s * (100.0 / s.sum())
    elif wt == "f1" and not snippet:
        # a page's word F1 moves by about 1/(2 |gold|) per token wrongly kept or dropped: weigh its
        # tokens by (page tokens / main-text tokens) ** power, at most cap, scaled so that the
        # full-gold pages weigh as much in all as before (pages.f1_scale)
        w = w * f1_ratio(pages, i, cfg) / pages.f1_scale(cfg)
    if not snippet and cfg.get("wcxb_neg"):
        # a full-gold page's paragraphs labelled 0 that hold one of its `without` snippets (the
        # benchmark's own boilerplate examples): weight times wcxb_neg (labels unchanged)
        hold = wcxb_without(pages, i) & (np.asarray(y) == 0)
        if hold.any():
            w = np.where(hold, w * cfg["wcxb_neg"], w)
    if not snippet and "wcxb_weight" in cfg:
        w = w * cfg["wcxb_weight"]
    if snippet and ("snip_count" in cfg or cfg.get("span")):
        keep, y, w = snippet_labels(pages, i, cfg)
    if snippet:
        w *= cfg.get("snippet_weight", 1.0)
        if cfg.get("neg_weight"):
            w = np.where(np.asarray(y) == 0, w * cfg["neg_weight"], w)
    return keep, y, w


_SNIP: dict = {}
_WCXB: dict = {}


def wcxb_without(pages: Pages, i: int) -> np.ndarray:
    """Which paragraphs of full-gold page i hold one of its `without` snippets."""
    got = _WCXB.get(i)
    if got is None:
        from corpustool.eval.tokens import normalize_snippet

        r = pages.records[i]
        norm = [normalize_snippet(p.text) for p in r["inp"].paras]
        snips = [x for x in (normalize_snippet(s) for s in r.get("without") or []) if x]
        got = _WCXB[i] = np.array([any(f" {x} " in f" {t} " for x in snips) for t in norm], dtype=bool)
    return got


def snippet_labels(pages: Pages, i: int, cfg: dict):
    """A snippet page's (rows kept, labels, weights) under "span" (a snippet that no single paragraph
    holds labels the run of consecutive paragraphs that holds it, as the scoring finds it in the
    joined text) and "snip_count" (weights: a share ``snip_count`` of the page's weight by the number
    of snippets each labelled paragraph holds, as the snippet figures count, the rest by tokens)."""
    from corpustool.eval.learn import tokens
    from corpustool.eval.tokens import normalize_snippet

    key = (i, bool(cfg.get("span")))
    got = _SNIP.get(key)
    if got is None:
        r = pages.records[i]
        texts = [p.text for p in r["inp"].paras]
        norm = [normalize_snippet(t) for t in texts]
        n = len(norm)
        y = np.full(n, -1, dtype=np.int8)
        count = np.zeros(n)
        for snippets, value in ((r["without"] or [], 0), (r["with"] or [], 1)):
            for s in snippets:
                s = normalize_snippet(s)
                if not s:
                    continue
                hit = [j for j, t in enumerate(norm) if s in t]
                if not hit and cfg.get("span"):
                    # the shortest runs of consecutive paragraphs whose joined text holds it
                    for a in range(n):
                        if not norm[a]:
                            continue
                        text, rest = norm[a], []
                        for b in range(a + 1, min(n, a + 12)):
                            if not norm[b]:
                                continue
                            text = text + " " + norm[b]
                            rest.append(norm[b])
                            if s in text:
                                if s not in " ".join(rest):
                                    hit.extend(range(a, b + 1))
                                break
                            if len(text) > len(norm[a]) + len(s) + 1:
                                break
                for j in hit:
                    y[j] = value
                    count[j] += 1
        size = np.array([len(tokens(t)) + 1 for t in texts], dtype=np.float64)
        got = _SNIP[key] = (y, count, size)
    y, count, size = got
    keep = y >= 0
    if not keep.any():
        return pages.keep[i], pages.y[i], pages.w[i].copy()
    tok = size[keep] / size[keep].sum()
    share = float(cfg.get("snip_count", 0.0))
    c = count[keep] / max(count[keep].sum(), 1.0)
    w = 100.0 * ((1 - share) * tok + share * c)
    return keep, y[keep], w


def f1_ratio(pages: Pages, i: int, cfg: dict) -> float:
    """(page tokens / tokens labelled main text) ** f1_power, at most f1_cap (config "f1")."""
    w, y = pages.w[i], np.asarray(pages.y[i])
    main = float(w[y == 1].sum())     # w: the page's token shares, summing to 100
    ratio = min(100.0 / main if main > 0 else math.inf, cfg.get("f1_cap", 10.0))
    return ratio ** cfg.get("f1_power", 1.0)


def train_rows(pages: Pages, idx, cfg: dict, getx):
    import lightgbm

    from corpustool.eval.learn import PARAMS, ROUNDS

    Xs, ys, ws = [], [], []
    for i in idx:
        if pages.y[i] is None:
            continue
        keep, y, w = labels_of(pages, i, cfg)
        full = getx(i)
        Xs.append(full if keep is None else full[keep]), ys.append(y), ws.append(w)
    params = dict(PARAMS)
    params.update(cfg.get("params", {}))
    ds = lightgbm.Dataset(np.vstack(Xs), label=np.concatenate(ys), weight=np.concatenate(ws),
                          free_raw_data=True, params={"max_bin": params["max_bin"], "verbose": -1})
    return lightgbm.train(params, ds, num_boost_round=cfg.get("rounds", ROUNDS))


def stage2_cfg(cfg: dict) -> dict:
    """The training configuration of stage 2: ``rounds2``/``params2`` over ``rounds``/``params``."""
    out = dict(cfg)
    if "rounds2" in cfg:
        out["rounds"] = cfg["rounds2"]
    if "params2" in cfg:
        out["params"] = {**cfg.get("params", {}), **cfg["params2"]}
    return out


def context_names(cfg: dict) -> list[str]:
    """The names of ctx_columns' columns (CONTEXT, then the extra ones in their order there)."""
    from corpustool.extractors.justext_learned import CONTEXT

    extra = cfg.get("ctx") or ()
    more = {"rel": ["p_rel_max", "p_rel_mean"], "rank": ["p_rank"], "kept_chars": ["p_kept_chars"],
            "grand": ["p_grand"], "region": ["p_region"], "main": ["in_main", "log_main_out", "main_depth"],
            "mass": ["mass_before", "mass_after", "log_dist_strong"], "section": ["p_section"]}
    return list(CONTEXT) + [c for k in ("rel", "rank", "kept_chars", "grand", "region", "main", "mass", "section")
                            if k in extra for c in more[k]]


def ctx_columns(pages: Pages, i: int, p: np.ndarray, cfg: dict) -> np.ndarray:
    from corpustool.extractors.justext_learned import context_features as cf

    out = cf(p, pages.struct[i])
    extra = cfg.get("ctx")
    if not extra:
        return out
    cols = []
    n = len(p)
    if "rel" in extra:            # relative to the page's best and mean
        mx = float(p.max()) if n else 1.0
        cols.append(p / max(mx, 1e-6))
        cols.append(p - out[:, 8])
    if "rank" in extra:
        cols.append(p.argsort().argsort() / max(n - 1, 1))
    if "kept_chars" in extra:     # the page's characters in paragraphs at least as likely
        chars = pages.struct[i][2]
        order = np.argsort(-p, kind="stable")
        cum = np.cumsum(chars[order])
        share = np.empty(n)
        share[order] = cum / max(float(chars.sum()), 1.0)
        cols.append(share)
    if "grand" in extra or "region" in extra:     # session 15: two more groups of paragraphs
        from corpustool.extractors.justext_learned import group_mean   # (as CONTEXT's p_same_path, p_parent)

        grand, region = groups(pages, i)
        chars = pages.struct[i][2]
        if "grand" in extra:      # the grandparent element (the parent's is CONTEXT's p_parent)
            cols.append(group_mean(p, chars, grand))
        if "region" in extra:     # the innermost evidence region; -1 outside any
            inside = region >= 0
            col = np.full(n, -1.0)
            if inside.any():
                col[inside] = group_mean(p[inside], chars[inside], region[inside])
            cols.append(col)
    if "main" in extra:           # the main container: the deepest element holding half the page's
        A = ancestors(pages, i)   # stage-1-weighted characters; inside it, or how far outside
        m = p * pages.struct[i][2]
        total = float(m.sum())
        chain = [int(A[0, 0])]
        k = 0
        while k + 1 < A.shape[1] and total > 0:
            rows = A[:, k] == chain[-1]
            ids = A[rows, k + 1]
            ok = ids >= 0
            if not ok.any():
                break
            mass = np.bincount(ids[ok], weights=m[rows][ok])
            best = int(mass.argmax())
            if mass[best] < 0.5 * total:
                break
            chain.append(best)
            k += 1
        c = np.array(chain)
        match = A[:, :len(c)] == c[None, :]
        lca = np.cumprod(match, axis=1).sum(axis=1)
        cols.append((lca == len(c)).astype(float))
        cols.append(np.log1p(len(c) - lca))
        cols.append(np.full(n, float(len(c))))
    if "mass" in extra:           # session 16: stage 1's likely text before and after, and how far the
        chars = pages.struct[i][2]  # nearest paragraph it is sure of (a long one) is
        m = p * chars
        total = max(float(m.sum()), 1.0)
        cum = np.cumsum(m)
        cols.append((cum - m) / total)
        cols.append((total - cum) / total if m.sum() > 0 else np.zeros(n))
        strong = np.flatnonzero((p >= 0.8) & (chars >= 200))
        if len(strong):
            pos = np.arange(n)
            k = np.searchsorted(strong, pos)
            left = np.where(k > 0, pos - strong[np.maximum(k - 1, 0)], n)
            right = np.where(k < len(strong), strong[np.minimum(k, len(strong) - 1)] - pos, n)
            cols.append(np.log1p(np.minimum(left, right)))
        else:
            cols.append(np.full(n, np.log1p(n)))
    if "section" in extra:        # session 19: stage 1's character-weighted mean over the paragraphs of the
        # paragraph's section (from a heading to the next), headings left out: a heading's own text is
        # judged by what it heads (a box's "Most read" over links, a sub-heading over the article's text);
        # -1: a section of headings only
        from corpustool.extractors.justext_learned import group_mean

        heads = np.array([bool(q.heading) for q in pages.records[i]["inp"].paras])
        sec = np.cumsum(heads)
        chars = pages.struct[i][2]
        col = np.full(n, -1.0)
        body = ~heads
        if body.any():
            means = np.full(int(sec.max()) + 1, -1.0)
            m = group_mean(p[body], chars[body], sec[body])
            means[sec[body]] = m
            col = means[sec]
        cols.append(col)
    return np.hstack([out] + [c[:, None] for c in cols])


_GROUPS: dict = {}


def groups(pages: Pages, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Page i's paragraphs' grandparent element (xpath up two levels, as the features' cousins)
    and innermost evidence region (the last element of the paragraph's evidence chain; -1: no
    chain) as small integers."""
    got = _GROUPS.get(i)
    if got is None:
        inp = pages.records[i]["inp"]
        ids: dict = {}
        grand = np.array([ids.setdefault(q.xpath.rsplit("/", 2)[0], len(ids)) for q in inp.paras], dtype=np.int64)
        ids = {}
        region = np.array([ids.setdefault(c[-1], len(ids)) if c else -1 for c in inp.chains], dtype=np.int64)
        got = _GROUPS[i] = (grand, region)
    return got


_ANC: dict = {}


def ancestors(pages: Pages, i: int) -> np.ndarray:
    """Each paragraph's ancestor elements as ids per depth (-1 beyond its depth)."""
    A = _ANC.get(i)
    if A is None:
        paras = pages.records[i]["inp"].paras
        ids: dict = {}
        rows = []
        for q in paras:
            pre, row = "", []
            for part in q.xpath.split("/")[1:]:
                pre += "/" + part
                row.append(ids.setdefault(pre, len(ids)))
            rows.append(row)
        D = max((len(r) for r in rows), default=1)
        A = np.full((len(rows), D), -1, dtype=np.int64)
        for j, r in enumerate(rows):
            A[j, :len(r)] = r
        _ANC[i] = A
    return A


def predict_split(booster, Xs: list) -> list:
    """booster.predict of each matrix, in one call (the same values: rows are independent)."""
    if not Xs:
        return []
    p = booster.predict(np.vstack(Xs))
    return np.split(p, np.cumsum([len(x) for x in Xs])[:-1])


class Probs:
    """Stage-1, stage-2 and stage-3 probabilities per set of training folds, cached on disk."""

    def __init__(self, pages: Pages, cache_dir: Path) -> None:
        self.pages, self.dir = pages, cache_dir
        cache_dir.mkdir(parents=True, exist_ok=True)
        self.mem: dict = {}
        self.n = len(pages.records)

    def _load(self, kind: str, key: str, S: frozenset, make):
        import hashlib

        name = hashlib.sha1(f"{kind}|{key}|{sorted(S)}".encode()).hexdigest()[:16]
        if name in self.mem:
            return self.mem[name]
        path = self.dir / f"{kind}_{name}.pkl"
        if path.exists():
            with open(path, "rb") as fh:
                val = pickle.load(fh)
        else:
            t = time.process_time()
            val = make()
            with open(path, "wb") as fh:
                pickle.dump(val, fh, protocol=pickle.HIGHEST_PROTOCOL)
            print(f"  trained {kind} on folds {sorted(S)} ({time.process_time() - t:.0f} s)", flush=True)
        self.mem[name] = val
        return val

    def stage1(self, cfg: dict, S: frozenset) -> list:
        """Every page's stage-1 probabilities from the model trained on folds S."""
        pages = self.pages
        cols = columns(cfg)

        def make():
            b = train_rows(pages, [i for i in range(self.n) if pages.fold[i] in S], cfg,
                           lambda i: pages.X[i][:, cols])
            return predict_split(b, [pages.X[i][:, cols] for i in range(self.n)])
        return self._load("s1", _key(cfg, STAGE1_KEYS), S, make)

    def stage2(self, cfg: dict, S: frozenset) -> list:
        """Every page's stage-2 probabilities from the model trained on folds S (pages outside S:
        stage 1 on S then stage 2 on S; pages in S are not meant to be read); stage 1's without
        "stage2"."""
        if not cfg.get("stage2"):
            return self.stage1(cfg, S)
        return self._stacked(cfg, S, self.stage1, "s2", _key(cfg, TRAIN_KEYS))

    def stage3(self, cfg: dict, S: frozenset) -> list:
        """Stage 3 (session 15): stage 2 one level up. The same features and context columns, from
        stage 2's probabilities; trained on stage-2 probabilities held out by fold as stage 2 is
        on stage 1's. Stage 2's models are those of the configuration without "stage3" (its key
        leaves "stage3" out), shared with it."""
        return self._stacked(cfg, S, self.stage2, "s3", _key(cfg, STAGE3_KEYS))

    def final(self, cfg: dict, S: frozenset) -> list:
        """The configuration's last stage's probabilities (model trained on folds S)."""
        return self.stage3(cfg, S) if cfg.get("stage3") else self.stage2(cfg, S)

    def held_out(self, prev, cfg: dict, S: frozenset) -> dict[int, np.ndarray]:
        """The pages of S with ``prev``'s probabilities from a model that did not see their fold
        (for h in S: the model on S - {h}): what the next stage trains on."""
        oof = {}
        for h in S:
            ph = prev(cfg, S - {h})
            oof.update({i: ph[i] for i in range(self.n) if self.pages.fold[i] == h})
        return oof

    def _stacked(self, cfg: dict, S: frozenset, prev, kind: str, key: str) -> list:
        """A stage over ``prev``'s probabilities: trained on S's pages with held-out ``prev``
        probabilities, applied to the other pages with ``prev``'s model on S."""
        pages = self.pages
        cols = columns(cfg)

        def make():
            p_prev = prev(cfg, S)
            oof = self.held_out(prev, cfg, S)
            idx = [i for i in range(self.n) if pages.fold[i] in S]
            x = lambda i, p: np.hstack([pages.X[i][:, cols], ctx_columns(pages, i, p, cfg)])
            b = train_rows(pages, idx, stage2_cfg(cfg), lambda i: x(i, oof[i]))
            out = [None] * self.n
            rest = [i for i in range(self.n) if pages.fold[i] not in S]
            for i, p in zip(rest, predict_split(b, [x(i, p_prev[i]) for i in rest])):
                out[i] = p
            return out
        return self._load(kind, key, S, make)

    def outer(self, cfg: dict) -> dict[int, np.ndarray]:
        out = {}
        for f in range(K):
            p = self.final(cfg, frozenset(range(K)) - {f})
            out.update({i: p[i] for i in range(self.n) if self.pages.fold[i] == f})
        return out

    def inner(self, cfg: dict, f: int) -> dict[int, np.ndarray]:
        out = {}
        for g in range(K):
            if g != f:
                p = self.final(cfg, frozenset(range(K)) - {f, g})
                out.update({i: p[i] for i in range(self.n) if self.pages.fold[i] == g})
        return out


def decide_scores(pages: Pages, probs: dict[int, np.ndarray], dec: dict) -> dict[int, tuple]:
    """score_pages over given probabilities with a decision setting."""
    from corpustool.extractors import justext_learned as jl

    idx = sorted(probs)
    saved = jl.GOOD_AT, jl.BAD_BELOW, jl.revise
    try:
        if dec.get("norevise"):
            at = dec.get("at", 0.5)
            jl.GOOD_AT, jl.BAD_BELOW = at, at
            jl.revise = lambda cf, *a: ["good" if c == "good" else "bad" for c in cf]
            dec = {"good": at, "bad": at}
        return score_pages(pages, idx, lambda i: probs[i], dec, None)
    finally:
        jl.GOOD_AT, jl.BAD_BELOW, jl.revise = saved


def grid(pages: Pages, probs: Probs, train_names: list[str], dec_names: list[str], log,
         costs: dict[str, float] | None = None, margin: float = 0.001) -> None:
    """``costs``: nested selection by the rule "the cheapest configuration whose objective and
    wcxb-dev mean are each within ``margin`` of the first configuration's (the shipped one)"
    instead of the best objective."""
    pairs = [(t, d) for t in train_names for d in dec_names]
    outer = {}
    for t in train_names:
        po = probs.outer(CONFIGS[t])
        for d in dec_names:
            dec = DECIDE[d]
            sc = decide_scores(pages, po, dec if not dec.get("norevise") else dec)
            outer[(t, d)] = sc
            line = fmt(f"{t}+{d}", summarise(pages, sc))
            print("cv " + line, flush=True)
            log.write(f"cv {json.dumps(CONFIGS[t], sort_keys=True)} {json.dumps(DECIDE[d], sort_keys=True)} {line}\n")
            log.flush()
    if len(pairs) < 2:
        return
    chosen = {}
    for f in range(K):
        best = None
        inner = {}
        for t in train_names:
            pin = probs.inner(CONFIGS[t], f)
            for d in dec_names:
                res = summarise(pages, decide_scores(pages, pin, DECIDE[d]))
                inner[(t, d)] = res
                log.write(f"nested outer {f} inner {fmt(f'{t}+{d}', res)}\n")
                if best is None or res["objective"] > best[1]:
                    best = ((t, d), res["objective"])
        if costs is not None:
            ref = inner[pairs[0]]
            ok = [(costs[t], k, (t, d)) for k, (t, d) in enumerate(pairs)
                  if inner[(t, d)]["objective"] >= ref["objective"] - margin and inner[(t, d)]["all"] >= ref["all"] - margin]
            pick = min(ok)[2]
            best = (pick, inner[pick]["objective"])
        print(f"outer fold {f}: chosen {best[0]} (inner obj {best[1]:.4f})", flush=True)
        log.write(f"nested outer {f} chosen {best[0]}\n")
        chosen.update({i: s for i, s in outer[best[0]].items() if pages.fold[i] == f})
    line = fmt("nested-selected", summarise(pages, chosen))
    print("nested " + line, flush=True)
    log.write(f"nested {pairs}{' rule: cheapest within %.3f of %s' % (margin, pairs[0]) if costs else ''} {line}\n")
    log.flush()


def cost(pages: Pages, probs: Probs, names: list[str], log) -> dict[str, float]:
    """Each configuration's model trained on all pages (stage 2 on held-out stage-1 probabilities,
    as ``make model``; stage 3, if any, on held-out stage-2 probabilities): trees, nodes visited
    per paragraph (the leaf depths reached, summed over trees, averaged over every paragraph of
    every page) and TreeModel.raw_score's time per page, per stage and in all."""
    from corpustool.extractors.justext_learned import FEATURES, TreeModel, model_from_booster

    out = {}
    n = len(pages.records)
    ALL = frozenset(range(K))
    for name in names:
        cfg = CONFIGS[name]
        cols = columns(cfg)
        assert len(cols) == len(FEATURES), "cost: configurations with the shipped feature set only"
        idx = list(range(n))
        # each stage trained on all pages, the later ones on held-out probabilities of the one
        # before (the outer CV's models, as make model's), applied to its predictions
        ctx_names = context_names(cfg)
        names_of = [list(FEATURES)] + [list(FEATURES) + ctx_names] * (2 if cfg.get("stage3") else 1)
        prev_of = [None, probs.stage1, probs.stage2][:len(names_of)]
        x_ctx = lambda i, p: np.hstack([pages.X[i][:, cols], ctx_columns(pages, i, p, cfg)])
        boosters, models, Xss = [], [], []
        for names_s, prev in zip(names_of, prev_of):
            if prev is None:
                b = train_rows(pages, idx, cfg, lambda i: pages.X[i][:, cols])
                Xs = [np.ascontiguousarray(pages.X[i][:, cols], dtype=np.float64) for i in idx]
            else:
                oof = probs.held_out(prev, cfg, ALL)
                b = train_rows(pages, idx, stage2_cfg(cfg), lambda i: x_ctx(i, oof[i]))
                Xs = [np.ascontiguousarray(x_ctx(i, models[-1].predict(Xss[-1][i])), dtype=np.float64) for i in idx]
            d = model_from_booster(b)
            d["features"] = names_s        # (unnamed columns here)
            boosters.append(b), models.append(TreeModel(d, names_s)), Xss.append(Xs)
        visited = []
        for b, Xs in zip(boosters, Xss):
            depth = []
            for tree in b.dump_model()["tree_info"]:
                d: dict[int, int] = {}

                def walk(node, k):
                    if "leaf_index" in node:
                        d[node["leaf_index"]] = k
                    elif "leaf_value" in node:      # a tree of one leaf
                        d[0] = k
                    else:
                        walk(node["left_child"], k + 1), walk(node["right_child"], k + 1)
                walk(tree["tree_structure"], 0)
                depth.append(d)
            leaves = b.predict(np.vstack(Xs), pred_leaf=True).reshape(-1, len(depth))
            visited.append(float(np.mean(sum(np.vectorize(depth[t].get)(leaves[:, t]) for t in range(len(depth))))))
        rows = sum(len(x) for x in Xss[0])
        times = []
        for m, Xs in zip(models, Xss):
            best = math.inf
            for _ in range(5):
                t = time.perf_counter()
                for x in Xs:
                    m.raw_score(x)
                best = min(best, time.perf_counter() - t)
            times.append(best / len(Xs) * 1e3)
        out[name] = sum(visited)
        plus = lambda xs, f: "+".join(f.format(x) for x in xs)
        line = (f"cost {name:8s} trees {plus([b.num_trees() for b in boosters], '{}')}"
                f" nodes/para {plus(visited, '{:.1f}')} = {out[name]:.1f}"
                f"  raw_score ms/page {plus(times, '{:.4f}')} = {sum(times):.4f}"
                f" ({n} pages, {rows / n:.0f} paragraphs/page)")
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()
    return out


def fmt(name: str, res: dict) -> str:
    keys = ["all", "article", "service", "collection", "product", "forum", "listing", "documentation"]
    return (f"{name:24s} " + " ".join(f"{k[:4]} {res.get(k, math.nan):.4f}" for k in keys)
            + f" with {res['with']:.4f} without {res['without']:.4f} snipF1 {res['snipF1']:.4f}"
            + f" obj {res['objective']:.4f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["collect", "cv", "nested", "grid", "cost"])
    ap.add_argument("--rule", action="store_true",
                    help="grid: nested selection by the rule (the cheapest configuration within --margin "
                         "of the first one's objective and wcxb-dev mean; cost: nodes visited, mode cost)")
    ap.add_argument("--margin", type=float, default=0.001)
    ap.add_argument("--decide", default="d55", help="grid: decision settings, comma-separated")
    ap.add_argument("--probs", default="/tmp/s14_probs", help="grid: the models' probabilities, cached")
    ap.add_argument("configs", nargs="*")
    ap.add_argument("--cache", default="/tmp/learn_cv.pkl")
    ap.add_argument("--log", default="/tmp/learn_cv.log")
    ap.add_argument("--kept-without", type=Path,
                    help="cv: write each `without` snippet the output keeps, with its paragraphs (JSON lines)")
    args = ap.parse_args(argv)
    cache = Path(args.cache)
    if args.mode == "collect":
        collect(cache)
        return 0
    with open(cache, "rb") as fh:
        records = pickle.load(fh)
    names = args.configs or ["base"]
    hides = {CONFIGS[n].get("hide", True) for n in names}
    if len(hides) > 1:
        print("learn_cv: configurations with and without 'hide' go in separate runs", file=sys.stderr)
        return 2
    pages = Pages(records, hides.pop())
    log = open(args.log, "a", encoding="utf-8")
    if args.mode == "cost":
        cost(pages, Probs(pages, Path(args.probs)), names, log)
        return 0
    if args.mode == "grid":
        probs = Probs(pages, Path(args.probs))
        costs = None
        if args.rule:
            for t in names:       # the outer models first: their CV lines before the cost models
                probs.outer(CONFIGS[t])
            costs = cost(pages, probs, names, log)
        grid(pages, probs, names, args.decide.split(","), log, costs, args.margin)
        return 0
    if args.mode == "cv":
        global KEPT_WITHOUT
        for name in names:
            KEPT_WITHOUT = [] if args.kept_without else None
            res = summarise(pages, cv(pages, CONFIGS[name], list(range(K))))
            line = fmt(name, res)
            print(line, flush=True)
            log.write(f"cv {json.dumps(CONFIGS[name], sort_keys=True)} {line}\n")
            if KEPT_WITHOUT is not None:
                out = args.kept_without if len(names) == 1 else args.kept_without.with_suffix(f".{name}.jsonl")
                with open(out, "w", encoding="utf-8") as fh:
                    for row in KEPT_WITHOUT:
                        fh.write(json.dumps({"config": name, **row}, ensure_ascii=False) + "\n")
                print(f"{len(KEPT_WITHOUT)} kept `without` snippets -> {out}")
        KEPT_WITHOUT = None
        return 0
    # nested: for each outer fold, each configuration's inner score over the other four folds
    chosen_scores = {}
    for f in range(K):
        inner = [g for g in range(K) if g != f]
        best = None
        for name in names:
            res = summarise(pages, cv(pages, CONFIGS[name], inner, exclude=f))
            log.write(f"nested outer {f} inner {fmt(name, res)}\n")
            print(f"outer {f} inner {fmt(name, res)}", flush=True)
            if best is None or res["objective"] > best[1]:
                best = (name, res["objective"])
        print(f"outer fold {f}: chosen {best[0]}", flush=True)
        log.write(f"nested outer {f} chosen {best[0]}\n")
        chosen_scores.update(cv(pages, CONFIGS[best[0]], [f]))
    line = fmt("nested-selected", summarise(pages, chosen_scores))
    print(line)
    log.write(f"nested {names} {line}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
