"""justext-learned: jusText's scheme with a learned context-free step.

jusText classifies each paragraph twice: a context-free decision tree over a
few features (Algorithm 2.2: length, link density, stop-word density) and a
context-sensitive revision of the uncertain classes from their neighbours
(Algorithm 2.3). This extractor keeps the engine's paragraphs and the
revision and replaces the hand-made tree by a small gradient-boosted model
(LightGBM, trained by ``scripts/make/train_model.py``) over features computed in
one place, :func:`page_features`:

* the paragraph's own: characters, words, link and stop-word density, stop
  words, heading, tag, depth, classic jusText's context-free and final class,
  sentence end, digit share, copyright sign, a price, and what its words say
  (``template_lines``: a template line and its kind, a rights line, a
  control's label, a dateline or post line);
* where it sits: position among the paragraphs and in the page's text, the
  evidence regions around it (nav, footer, header, aside, share, cookie,
  comment, review, form, ad, meta: semantic elements, ARIA roles and
  class/id tokens, as justext-plus finds them) and main-content hints
  (``<main>``, ``<article>``, ``itemprop=articleBody``), the share of the
  page's jusText-good text in its innermost region (a block named footer
  that wraps a main-content hint and most of jusText's text is a layout
  wrapper, not a footer: :func:`without_wrapper_footers`);
* repetition: paragraphs with the same DOM path on the page, siblings under
  the same parent and grandparent, the same text elsewhere on the page;
* the page: number of paragraphs, jusText's kept share, the schema.org types
  it declares (discussion, product, item list), whether its comment blocks
  are its posts (the structural guard);
* headings: paragraphs and characters since the last heading, paragraphs
  since the title's heading, under a heading announcing related links;
* the neighbours' features (previous and next paragraph).

The model has two stages (session 13): stage 1 gives the probability that a
paragraph is main text from these features; stage 2 gives it again from the
same features and stage 1's probabilities around the paragraph (the two
before and after, the window of three either side, the same DOM path, the
same parent, the page: :func:`context_features`). Stage 2 was trained on
stage-1 probabilities from models that had not seen the page's domain.
The final probability becomes a
context-free class (``good`` at or above 0.55, ``bad`` below 0.45, else
``neargood``, or ``short`` when jusText found it short) and Algorithm 2.3 of
the engine revises the uncertain ones. One guard: a page where that keeps
nothing keeps the paragraphs whose probability is at least half the page's
highest (a page is never emptied by the model alone). Last, a kept paragraph
of 30 characters or more whose text the page has already kept is left out: a
reply's quote of an earlier post, a block shown twice for two screen sizes
(session 15: under domain CV, wcxb-dev 0.868 -> 0.873, forums 0.780 -> 0.802,
better in every fold). Nothing names a site or a software.

The model ships as ``corpustool/models/justext_learned.json``: the trees as
arrays (feature, threshold, children, leaf values; stage 2 under
``"stage2"``), evaluated by the compiled ``native/tree_scores.pyx`` (the trees
made complete, indices checked once, eight paragraphs down each tree at a
time, no branches) or, without it, for all paragraphs and trees at once
with numpy (:class:`TreeModel`); both equal LightGBM's own predictions
(tests/extractors/test_justext_learned.py). LightGBM is needed only to train.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..document import BAD, GOOD, Paragraph
from . import justext_plus_structure as structure
from ..errors import OptionError
from .base import register
# jusText's context-sensitive revision (Algorithm 2.3) applied to the model's context-free classes
from .justext_engine import revise
from .justext_plus import JustextPlusExtractor
from .template_lines import FIRST_ANSWER, line_verdict
from ..native import backend

_CompleteTrees = backend.trees.get("CompleteTrees")
_two_stages = backend.trees.get("two_stages")
_PageColumns = backend.features.get("PageColumns")
_decide_classes = backend.features.get("decide_classes")

MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "justext_learned.json"
GOOD_AT = 0.55
BAD_BELOW = 0.45
FALLBACK_SHARE = 0.5   # a page the model would empty keeps what is at least this share of its best
MAX_TREE_DEPTH = 64    # a model file's trees deeper than this (or with a cycle) are refused
POSTS_HIDE_COMMENTS = True   # comment regions hidden from the model on a page whose comment blocks are its posts
# a kept paragraph whose text the page has already kept is left out (a reply's quote of a post, a
# block a page shows twice for two screen sizes): decide_classes' last phase
DROP_REPEATS = True
REPEAT_MIN_CHARS = 30        # shorter texts (a label, a price, a heading such as "Parameters") are kept every time
REPEATED, REPEAT_REASON = "repeat", "boilerplate:repeat"    # its class in decide_classes, its reason (justext-plus's)

KINDS = ("nav", "footer", "header", "aside", "share", "cookie", "comment", "review", "form", "ad", "meta")
_KIND_CODE = {k: i + 1 for i, k in enumerate(KINDS)}
TAGS = ("p", "div", "li", "td", "span", "a", "h1", "h2", "h3", "h4", "h5", "h6", "dd", "dt", "pre",
        "blockquote", "th", "body", "table", "tr", "ul", "section", "article", "figcaption", "label")
_TAG_CODE = {t: i + 1 for i, t in enumerate(TAGS)}
_CF_CODE = {"bad": 0, "short": 1, "neargood": 2, "good": 3}
# template_lines' reasons (what kind of template line)
_REASON_CODE = {"boilerplate:template": 1, "boilerplate:action": 2, "boilerplate:related": 3,
                "boilerplate:ad": 4, "boilerplate:credit": 5, "boilerplate:consent": 6}
_SENTENCE_END = tuple(".!?…\"“”»)。！？:")
_DIGIT = re.compile(r"\d")
# a price: a currency sign or code next to a number
_PRICE = re.compile(r"[$€£¥₹]\s?\d|\d\s?(?:[$€£¥₹]|(?:usd|eur|gbp|chf|czk|pln|kč|zł)\b)|\b(?:usd|eur|gbp|chf)\s?\d",
                    re.IGNORECASE)

OWN = ["log_chars", "log_words", "link_density", "stopword_density", "log_stopwords", "heading", "tag",
       "depth", "cf_class", "jt_good", "sentence_end", "digit_share", "copyright", "upper_start",
       "template_line", "dated", "price", "template_kind", "rights", "ui_label", "in_related"]
WHERE = ["pos", "char_pos"] + [f"in_{k}" for k in KINDS] + [
    "inner_kind", "in_hint", "evidence_depth", "region_good_share", "hint_good_share"]
REPEAT = ["log_same_path", "log_same_text", "log_siblings", "log_cousins", "same_path_good_share",
          "parent_good_share"]
PAGE = ["log_paras", "page_good_share", "discussion", "product", "item_list", "title_like", "comment_posts"]
HEAD = ["log_since_heading", "log_chars_since_heading", "since_title"]
NEIGHBOUR_KEYS = ["log_words", "link_density", "stopword_density", "cf_class", "jt_good", "heading"]
NEIGHBOURS = [f"{side}_{k}" for side in ("prev", "next") for k in NEIGHBOUR_KEYS] + ["window_good_share"]
FEATURES = OWN + WHERE + REPEAT + PAGE + HEAD + NEIGHBOURS
# counts of paragraphs that saturate (session 17): past 50 paragraphs of one DOM path, parent or
# grandparent, on the page, or since the last heading or the title, more says nothing more. The
# development pages' many-paragraph groups were link lists and comment threads, and their text
# rarely ran hundreds of paragraphs past a heading: an article of 400 paragraphs kept 5 of them
SATURATED = ["log_same_path", "log_siblings", "log_cousins", "log_paras", "log_since_heading", "since_title"]
SATURATION = math.log1p(50)    # (since_title is signed, negative before the title: only its top is cut)
# stage 2: stage 1's probabilities around the paragraph (context_features)
CONTEXT = ["p", "p_prev", "p_next", "p_prev2", "p_next2", "p_window", "p_same_path", "p_parent", "p_page",
           "p_page_kept"]
STAGE2_FEATURES = FEATURES + CONTEXT
_INDEX = {f: i for i, f in enumerate(FEATURES)}
_SATURATED_COLS = [_INDEX[f] for f in SATURATED]
_NEIGHBOUR_COLS = [_INDEX[k] for k in NEIGHBOUR_KEYS]
_WORDS = re.compile(r"\w+")
# the compiled page_features (native/learned_features.pyx), given this module's layout and tables
_COLUMNS = (_PageColumns(FEATURES, NEIGHBOUR_KEYS, KINDS, _TAG_CODE, _CF_CODE, _REASON_CODE, "".join(_SENTENCE_END),
                         line_verdict, _PRICE.search, _WORDS.findall, SATURATED, SATURATION, FIRST_ANSWER)
            if _PageColumns is not None else None)


Struct = tuple[np.ndarray, np.ndarray, np.ndarray]


def forget_line_verdicts() -> None:
    """Empty the caches of what a line's text alone says (``line_verdict``'s and the compiled
    matrix's): a benchmark's pass then meets only the lines of its earlier pages, as a crawl does."""
    line_verdict.cache_clear()
    if _COLUMNS is not None:
        _COLUMNS.clear()


def page_columns(paras: Sequence[Paragraph], kinds: dict[str, str], hints: Sequence[str],
                 chains: Sequence[Sequence[str]], types: frozenset[str], title: str | None,
                 posts: bool = False) -> tuple[np.ndarray, Struct]:
    """(the feature matrix, the page's structure for stage 2): :func:`page_features` and
    :func:`page_struct`, in one compiled pass when ``native/learned_features.pyx`` is built."""
    if _COLUMNS is None or not paras:
        return page_features_py(paras, kinds, hints, chains, types, title, posts), page_struct(paras)
    n = len(paras)
    X = np.zeros((n, len(FEATURES)), dtype=np.float64)
    struct = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.float64))
    discussion, product, item_list = _page_types(types)
    _COLUMNS.fill(paras if isinstance(paras, list) else list(paras), kinds, hints, chains,
                  _title_words(title), discussion, product, item_list, float(posts), X, *struct)
    return X, struct


def _since_title(X: np.ndarray, top: int) -> None:
    """Paragraphs since the title's heading (row ``top``; -1: none), negative before it. (The C
    library's log1p, as for every other count: numpy's own may differ in the last bit from one
    CPU to another, and the model's thresholds with it.)"""
    if top >= 0:
        log = math.log1p
        X[:, _INDEX["since_title"]] = [log(d) if d >= 0 else -log(-d) for d in range(-top, X.shape[0] - top)]
    else:
        X[:, _INDEX["since_title"]] = -10.0


def page_features(paras: Sequence[Paragraph], kinds: dict[str, str], hints: Sequence[str],
                  chains: Sequence[Sequence[str]], types: frozenset[str], title: str | None,
                  posts: bool = False) -> np.ndarray:
    """The feature matrix (paragraphs x FEATURES) of one page, from the engine's paragraphs
    (before any revision by justext-plus) and the evidence regions around them."""
    return page_columns(paras, kinds, hints, chains, types, title, posts)[0]


def _page_types(types: frozenset[str]) -> tuple[float, float, float]:
    """The page's schema.org declarations: a discussion, a product, an item list."""
    return (float(structure.is_discussion(types)), float(structure.is_product(types)),
            float(bool(types & structure.LIST_TYPES)))


def _title_words(title: str | None) -> set[str]:
    return set(_WORDS.findall(title.lower())) if title else set()


def page_features_py(paras: Sequence[Paragraph], kinds: dict[str, str], hints: Sequence[str],
                     chains: Sequence[Sequence[str]], types: frozenset[str], title: str | None,
                     posts: bool = False) -> np.ndarray:
    """:func:`page_features` in Python (the compiled PageColumns' twin)."""
    n = len(paras)
    X = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if n == 0:
        return X
    texts = [p.text for p in paras]
    chars = [len(t) for t in texts]
    total_chars = sum(chars) or 1
    jt_good = [p.cls == GOOD for p in paras]
    good_chars = [c if g else 0 for c, g in zip(chars, jt_good)]
    total_good = sum(good_chars)
    xpaths = [p.xpath for p in paras]
    parents = [x.rsplit("/", 1)[0] for x in xpaths]
    grands = [x.rsplit("/", 1)[0] for x in parents]
    count_path: dict[str, int] = {}
    good_path: dict[str, int] = {}
    chars_path: dict[str, int] = {}
    for p, c, g in zip(paras, chars, good_chars):
        count_path[p.dom_path] = count_path.get(p.dom_path, 0) + 1
        good_path[p.dom_path] = good_path.get(p.dom_path, 0) + g
        chars_path[p.dom_path] = chars_path.get(p.dom_path, 0) + c
    count_text: dict[str, int] = {}
    for t in texts:
        count_text[t] = count_text.get(t, 0) + 1
    count_parent: dict[str, int] = {}
    good_parent: dict[str, int] = {}
    chars_parent: dict[str, int] = {}
    for x, c, g in zip(parents, chars, good_chars):
        count_parent[x] = count_parent.get(x, 0) + 1
        good_parent[x] = good_parent.get(x, 0) + g
        chars_parent[x] = chars_parent.get(x, 0) + c
    count_grand: dict[str, int] = {}
    for x in grands:
        count_grand[x] = count_grand.get(x, 0) + 1
    hint_set = set(hints)
    # jusText-good text per evidence region
    region_good: dict[str, int] = {}
    for chain, g in zip(chains, good_chars):
        if g:
            for x in chain:
                region_good[x] = region_good.get(x, 0) + g
    title_words = _title_words(title)
    discussion, product, item_list = _page_types(types)
    page_good_share = total_good / total_chars
    log = math.log1p
    feats = [p.features for p in paras]
    verdicts = [line_verdict(t, p.heading, False) for t, p in zip(texts, paras)]
    words = [f.get("words", 0) for f in feats]
    cols: dict[str, Any] = {
        "log_chars": [log(c) for c in chars],
        "log_words": [log(w) for w in words],
        "link_density": [min(f.get("link_density", 0.0), 2.0) for f in feats],
        "stopword_density": [f.get("stopword_density", 0.0) for f in feats],
        "log_stopwords": [log(f.get("stopwords", 0)) for f in feats],
        "heading": [p.heading for p in paras],
        "tag": [_TAG_CODE.get(p.tag, 0) for p in paras],
        "depth": [x.count("/") for x in xpaths],
        "cf_class": [_CF_CODE.get(p.cf_class, 0) for p in paras],
        "jt_good": jt_good,
        "sentence_end": [t.rstrip().endswith(_SENTENCE_END) for t in texts],
        "digit_share": [len(_DIGIT.findall(t)) / (c or 1) for t, c in zip(texts, chars)],
        "copyright": [("\xa9" in t or "&copy" in t) for t in texts],
        "upper_start": [t[:1].isupper() for t in texts],
        # what the line's words say (template_lines' vocabulary of calls to action, box titles,
        # credits, notices; datelines and post lines: a post's author/date line)
        "template_line": [v[2] is not None for v in verdicts],
        "dated": [v[1] for v in verdicts],
        "price": [len(t) < 200 and _PRICE.search(t) is not None for t in texts],
        "template_kind": [0 if v[2] is None else _REASON_CODE.get(v[2], 7) for v in verdicts],
        "rights": [v[0] for v in verdicts],
        "ui_label": [v[3] for v in verdicts],
        "log_same_path": [log(count_path[p.dom_path]) for p in paras],
        "log_same_text": [log(count_text[t] - 1) for t in texts],
        "log_siblings": [log(count_parent[x]) for x in parents],
        "log_cousins": [log(count_grand[x]) for x in grands],
        "same_path_good_share": [good_path[p.dom_path] / (chars_path[p.dom_path] or 1) for p in paras],
        "parent_good_share": [good_parent[x] / (chars_parent[x] or 1) for x in parents],
    }
    for name, values in cols.items():
        X[:, _INDEX[name]] = values
    X[:, _INDEX["pos"]] = np.arange(n) / n
    cum = np.cumsum(chars)
    X[:, _INDEX["char_pos"]] = (cum - np.asarray(chars)) / total_chars
    X[:, _INDEX["log_paras"]] = log(n)
    X[:, _INDEX["page_good_share"]] = page_good_share
    X[:, _INDEX["discussion"]] = discussion
    X[:, _INDEX["product"]] = product
    X[:, _INDEX["item_list"]] = item_list
    X[:, _INDEX["comment_posts"]] = posts      # the comment blocks are the page's posts (the guard)
    # the evidence regions around each paragraph: one block of columns, in_nav .. hint_good_share,
    # computed once per distinct chain (the paragraphs of a region share theirs)
    start = _INDEX["in_nav"]
    width = _INDEX["hint_good_share"] + 1 - start
    n_kinds = len(KINDS)
    empty = [0.0] * width
    seen: dict[tuple, list[float]] = {}
    block = []
    for chain in chains:
        if not chain:
            block.append(empty)
            continue
        key = tuple(chain)
        row = seen.get(key)
        if row is None:
            row = [0.0] * width
            inner = 0
            in_hint = 0.0
            region_share = 0.0
            hint_share = 0.0
            for x in chain:
                k = kinds.get(x)
                if k is not None:
                    code = _KIND_CODE.get(k)
                    if code is not None:
                        row[code - 1] = 1.0
                        inner = code
                        region_share = region_good.get(x, 0) / total_good if total_good else 0.0
                if x in hint_set:
                    in_hint = 1.0
                    hint_share = region_good.get(x, 0) / total_good if total_good else 0.0
            row[n_kinds:] = [inner, in_hint, len(chain), region_share, hint_share]
            seen[key] = row
        block.append(row)
    X[:, start:start + width] = block
    # the title, and the distance from the last heading
    if title_words:
        col = _INDEX["title_like"]
        for i, p in enumerate(paras):
            if p.heading:
                w = set(_WORDS.findall(texts[i].lower()))
                X[i, col] = len(w & title_words) / (len(w | title_words) or 1)
    # under a heading that announces links to other pages ("Related articles", "Read more")
    related = 0.0
    in_related = []
    for p, v in zip(paras, verdicts):
        if p.heading:
            related = float(v[2] == "boilerplate:related")
        in_related.append(related)
    X[:, _INDEX["in_related"]] = in_related
    since = 1000
    since_chars = 100000
    since_col: list[float] = []
    since_chars_col: list[float] = []
    for p, c in zip(paras, chars):
        if p.heading:
            since = 0
            since_chars = 0
        since_col.append(log(since))
        since_chars_col.append(log(since_chars))
        since += 1
        since_chars += c
    X[:, _INDEX["log_since_heading"]] = since_col
    X[:, _INDEX["log_chars_since_heading"]] = since_chars_col
    # paragraphs since the page's title heading (the heading most like the title, else the first
    # h1), negative before it
    top = -1
    if title_words:
        like = X[:, _INDEX["title_like"]]
        if like.max() >= 0.5:
            top = int(like.argmax())
    if top < 0:
        top = next((i for i, p in enumerate(paras) if p.tag == "h1"), -1)
    _since_title(X, top)
    # the neighbours
    b = _INDEX["prev_log_words"]
    k = len(NEIGHBOUR_KEYS)
    own = X[:, _NEIGHBOUR_COLS]
    X[1:, b:b + k] = own[:-1]
    X[0, b:b + k] = -1.0
    X[:-1, b + k:b + 2 * k] = own[1:]
    X[-1, b + k:b + 2 * k] = -1.0
    # jusText-good share of the text within three paragraphs either side
    gc = np.concatenate([[0], np.cumsum(good_chars)])
    cc = np.concatenate([[0], np.cumsum(chars)])
    lo = np.maximum(np.arange(n) - 3, 0)
    hi = np.minimum(np.arange(n) + 4, n)
    X[:, _INDEX["window_good_share"]] = (gc[hi] - gc[lo]) / np.maximum(cc[hi] - cc[lo], 1)
    return _saturated(X)


def _saturated(X: np.ndarray) -> np.ndarray:
    """X with the counts of :data:`SATURATED` cut at :data:`SATURATION` (in place)."""
    X[:, _SATURATED_COLS] = np.minimum(X[:, _SATURATED_COLS], SATURATION)
    return X


# -- the model --------------------------------------------------------------------

def libm_exp(x: np.ndarray) -> np.ndarray:
    """``exp`` of each value as the C library computes it, as the compiled trees' sigmoid does
    (corpustool/native/tree_scores.pyx): numpy's own ``exp`` differs from it in the last bit for a few
    values in a hundred on a CPU with AVX-512, where numpy runs its own implementation, and a
    probability on a threshold would then decide differently with and without the extension."""
    return np.array([_exp(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)


def _exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:       # (numpy and C give inf)
        return math.inf


class TreeModel:
    """A LightGBM binary model as arrays, evaluated for all rows and trees at once."""

    def __init__(self, data: dict[str, Any], features: Sequence[str] | None = None) -> None:
        names = "FEATURES" if features is None else "STAGE2_FEATURES"
        features = FEATURES if features is None else list(features)
        if not isinstance(data, dict):
            raise OptionError("model: a stage is not a JSON object")
        if data.get("features") != features:
            raise OptionError(f"the model was trained on other features than justext_learned.{names}")
        try:
            self.init = float(data["init"])
            self.feature = np.asarray(data["feature"], dtype=np.int64)
            self.threshold = np.asarray(data["threshold"], dtype=np.float64)
            self.left = np.asarray(data["left"], dtype=np.int64)       # child node; < 0: leaf ~index
            self.right = np.asarray(data["right"], dtype=np.int64)
            self.leaf = np.asarray(data["leaf"], dtype=np.float64)
            self.roots = np.asarray(data["roots"], dtype=np.int64)
        except KeyError as e:
            raise OptionError(f"model: no {e.args[0]!r} array") from None
        except (TypeError, ValueError, OverflowError):
            raise OptionError("model: 'init' is not a number, or an array is not a flat list of numbers") from None
        if any(a.ndim != 1 for a in (self.feature, self.threshold, self.left, self.right, self.leaf, self.roots)):
            raise OptionError("model: an array that is not a flat list of numbers")
        # (a NaN would make every comparison false and every probability NaN: all text kept)
        if not (np.isfinite(self.init) and np.isfinite(self.leaf).all() and not np.isnan(self.threshold).any()):
            raise OptionError("model: a value that is not a number (NaN or infinite)")
        n_nodes, n_leaves, n_feat = len(self.feature), len(self.leaf), len(features)
        self.n_features = n_feat
        for a in (self.left, self.right, self.roots):
            if a.size and (a.max() >= n_nodes or a.min() < -n_leaves):
                raise OptionError("model: a node index out of range")
        if self.feature.size and (self.feature.min() < 0 or self.feature.max() >= n_feat):
            raise OptionError("model: a feature index out of range")
        if len(self.left) != n_nodes or len(self.right) != n_nodes or len(self.threshold) != n_nodes:
            raise OptionError("model: the node arrays differ in length")
        self.depth = self._tree_depth()

    def _tree_depth(self) -> int:
        """The depth of the deepest leaf; a tree deeper than MAX_TREE_DEPTH (or a cycle, which
        never reaches a leaf) is refused, so that no walk of the trees can loop."""
        deepest = 0
        stack = [(int(r), 0) for r in self.roots]
        while stack:
            node, d = stack.pop()
            if node < 0:
                deepest = max(deepest, d)
            elif d >= MAX_TREE_DEPTH:
                raise OptionError(f"model: a tree deeper than {MAX_TREE_DEPTH} levels (or a cycle)")
            else:
                stack.append((int(self.left[node]), d + 1))
                stack.append((int(self.right[node]), d + 1))
        return deepest

    def _flat(self) -> None:
        """Leaves as nodes that lead to themselves (threshold +inf), so that every row and tree
        takes the same number of steps (the deepest leaf's depth) with no masks."""
        n_nodes, n_leaves = len(self.feature), len(self.leaf)
        to = lambda a: np.where(a >= 0, a, n_nodes + ~a)
        self._feat = np.concatenate([self.feature, np.zeros(n_leaves, dtype=np.int64)])
        self._thr = np.concatenate([self.threshold, np.full(n_leaves, np.inf)])
        leaves = np.arange(n_nodes, n_nodes + n_leaves)
        self._left = np.concatenate([to(self.left), leaves])
        self._right = np.concatenate([to(self.right), leaves])
        self._value = np.concatenate([np.zeros(n_nodes), self.leaf])
        self._start = to(self.roots)

    def raw_score(self, X: np.ndarray) -> np.ndarray:
        n = X.shape[0]
        if n == 0 or self.roots.size == 0:
            return np.full(n, self.init)
        complete = self._complete()
        if complete is not None:
            out = np.empty(n, dtype=np.float64)
            complete.scores(np.ascontiguousarray(X, dtype=np.float64), self.init, out)
            return out
        return self.raw_score_numpy(X)

    def _complete(self) -> Any:
        """The trees made complete for the compiled walk (native/tree_scores.pyx), made once;
        None without it, or for a model deeper than it takes (then numpy walks them)."""
        if _CompleteTrees is None:     # (not built, or CORPUSTOOL_BACKEND=python: looked up each time)
            return None
        if not hasattr(self, "_compiled"):
            self._compiled = None
            if self.feature.size < 2 ** 31 and self.leaf.size < 2 ** 31:
                i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)
                try:
                    self._compiled = _CompleteTrees(i32(self.feature), np.ascontiguousarray(self.threshold),
                                                    i32(self.left), i32(self.right),
                                                    np.ascontiguousarray(self.leaf), i32(self.roots), self.n_features)
                except ValueError:     # deeper than the compiled walk takes (the depth and the
                    pass               # indices were checked in __init__: numpy walks them)
        return self._compiled

    def raw_score_numpy(self, X: np.ndarray) -> np.ndarray:
        """The trees evaluated with numpy (the pure-Python backend)."""
        n = X.shape[0]
        if n == 0 or self.roots.size == 0:
            return np.full(n, self.init)
        if not hasattr(self, "_start"):
            self._flat()
        flat = np.ascontiguousarray(X, dtype=np.float64).ravel()
        base = (np.arange(n, dtype=np.int64) * X.shape[1])[:, None]
        node = np.broadcast_to(self._start, (n, self._start.size))
        for _ in range(self.depth):
            go_left = flat[base + self._feat[node]] <= self._thr[node]
            node = np.where(go_left, self._left[node], self._right[node])
        return self.init + self._value[node].sum(axis=1)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + libm_exp(-self.raw_score(X)))


def model_from_booster(booster: Any) -> dict[str, Any]:
    """LightGBM's booster -> the arrays TreeModel reads (numerical splits, no missing values)."""
    dump = booster.dump_model()
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    leaf: list[float] = []
    roots: list[int] = []

    def walk(node: dict[str, Any]) -> int:
        if "leaf_value" in node:
            leaf.append(float(node["leaf_value"]))
            return ~(len(leaf) - 1)
        if node.get("decision_type", "<=") != "<=":
            raise ValueError("only numerical splits are supported")
        i = len(feature)
        feature.append(int(node["split_feature"]))
        threshold.append(float(node["threshold"]))
        left.append(0)
        right.append(0)
        left[i] = walk(node["left_child"])
        right[i] = walk(node["right_child"])
        return i

    for tree in dump["tree_info"]:
        roots.append(walk(tree["tree_structure"]))
    return {"features": list(dump["feature_names"]), "init": 0.0, "feature": feature, "threshold": threshold,
            "left": left, "right": right, "leaf": leaf, "roots": roots}


def dump_model(data: dict[str, Any]) -> str:
    """The model file's text: fixed key order and float formatting (byte-identical from the same trees)."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"


def model_classes(prob: np.ndarray, jt_cf: Sequence[str]) -> list[str]:
    """Context-free classes from the model's probabilities."""
    out = []
    for p, c in zip(prob.tolist(), jt_cf):
        if p >= GOOD_AT:
            out.append("good")
        elif p < BAD_BELOW:
            out.append("bad")
        else:
            out.append("short" if c == "short" else "neargood")
    return out


class LearnedModel:
    """The shipped model: stage 1 over :data:`FEATURES`, and stage 2 (when the file has one) over
    the same features and :data:`CONTEXT`, stage 1's probabilities around each paragraph."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.stage1 = TreeModel(data)
        self.stage2 = TreeModel(data["stage2"], STAGE2_FEATURES) if data.get("stage2") else None

    @classmethod
    def load(cls, path: str | Path) -> "LearnedModel":
        """The model file's arrays; a file that cannot be read or is no such model is refused
        with an error naming it."""
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except OSError as e:
            raise OptionError(f"model {path}: cannot be read ({e.strerror or e})") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise OptionError(f"model {path}: not a JSON file ({e})") from None
        if not isinstance(data, dict):
            raise OptionError(f"model {path}: not a justext-learned model (a JSON object of arrays)")
        try:
            return cls(data)
        except OptionError as e:
            raise OptionError(f"model {path}: {str(e).removeprefix('model: ')}") from None

    def predict(self, X: np.ndarray, paras: Sequence[Paragraph], struct: Struct | None = None) -> np.ndarray:
        if self.stage2 is not None and len(X) and X.shape[1] == len(FEATURES) and _two_stages is not None:
            first, second = self.stage1._complete(), self.stage2._complete()
            if first is not None and second is not None:
                # both stages and the context between them in one compiled call (tree_scores.two_stages)
                path, parent, chars = page_struct(paras) if struct is None else struct
                Z = np.empty((X.shape[0], len(STAGE2_FEATURES)), dtype=np.float64)
                Z[:, :X.shape[1]] = X
                prob = np.empty(X.shape[0], dtype=np.float64)
                _two_stages(first, self.stage1.init, second, self.stage2.init, Z, path, parent, chars, prob)
                return prob
        prob = self.stage1.predict(X)
        if self.stage2 is not None and len(prob):
            struct = page_struct(paras) if struct is None else struct
            prob = self.stage2.predict(np.hstack([X, context_features(prob, struct)]))
        return prob


def page_struct(paras: Sequence[Paragraph]) -> Struct:
    """Each paragraph's DOM path and parent element as small integers (in order of first
    appearance), and its characters (what :func:`page_columns` gives with the matrix)."""
    ids: dict[str, int] = {}
    path = np.array([ids.setdefault(p.dom_path, len(ids)) for p in paras], dtype=np.int64)
    ids = {}
    parent = np.array([ids.setdefault(p.xpath.rsplit("/", 1)[0], len(ids)) for p in paras], dtype=np.int64)
    chars = np.array([len(p.text) for p in paras], dtype=np.float64)
    return path, parent, chars


def context_features(prob: np.ndarray, struct: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """Stage 2's columns (:data:`CONTEXT`): stage 1's probability of the paragraph, of the two
    before and after it, its character-weighted mean within three paragraphs either side, over
    the paragraphs of the same DOM path and of the same parent element, over the page, and the
    share of the page's characters stage 1 keeps."""
    path, parent, chars = struct
    n = len(prob)
    out = np.zeros((n, len(CONTEXT)))
    out[:, 0] = prob
    pad = np.concatenate([[-1.0, -1.0], prob, [-1.0, -1.0]])
    out[:, 1], out[:, 2], out[:, 3], out[:, 4] = pad[1:n + 1], pad[3:n + 3], pad[0:n], pad[4:n + 4]
    wc = prob * chars
    cw = np.concatenate([[0.0], np.cumsum(wc)])
    cc = np.concatenate([[0.0], np.cumsum(chars)])
    lo = np.maximum(np.arange(n) - 3, 0)
    hi = np.minimum(np.arange(n) + 4, n)
    out[:, 5] = (cw[hi] - cw[lo]) / np.maximum(cc[hi] - cc[lo], 1)
    out[:, 6] = group_mean(prob, chars, path)
    out[:, 7] = group_mean(prob, chars, parent)
    total = max(float(chars.sum()), 1.0)
    out[:, 8] = wc.sum() / total
    out[:, 9] = chars[prob >= 0.5].sum() / total
    return out


def group_mean(prob: np.ndarray, chars: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Each paragraph's group's (``ids``: small integers) character-weighted mean of ``prob``."""
    num = np.bincount(ids, weights=prob * chars)
    den = np.bincount(ids, weights=chars)
    return (num / np.maximum(den, 1))[ids]


_MODELS: dict[str, LearnedModel] = {}


def load_model(path: str | Path) -> LearnedModel:
    key = str(path)
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = LearnedModel.load(path)
    return model


@register("justext-learned")
class JustextLearnedExtractor(JustextPlusExtractor):
    """jusText's paragraphs and revision, the context-free step by a learned model."""

    description = ("jusText with a learned context-free step (gradient-boosted trees over length, density, "
                   "structure, region, repetition and neighbour features) and jusText's revision")

    trainable = True    # corpustool eval --cv trains one model per fold (option model: the arrays)

    def __init__(self, model: Any = None, **options: Any) -> None:
        super().__init__(**options)
        # model: a file (default: the shipped model), the arrays themselves (a dict, as
        # corpustool eval --cv passes each fold's), or "none": jusText's own classes, for
        # collecting training features
        if isinstance(model, LearnedModel):
            self.model = model
        elif isinstance(model, dict):
            self.model = LearnedModel(model)
        elif model == "none":
            self.model = None
        else:
            self.model = load_model(str(model) if model else MODEL_PATH)
        self.capture: list | None = None    # set to a list: each page's (features, paragraphs) appended

    @staticmethod
    def _left_empty(paras: list[Paragraph]) -> bool:
        """jusText kept nothing (its classes, before the model's): the page may be one whose buttons
        swallowed its text, parsed again without them (as the training pages were; the model's
        guard never leaves a page empty, so its classes cannot tell)."""
        return not any(p.features.get("jt_class", p.cls) == GOOD for p in paras)

    def page_input(self, paras: list[Paragraph], tree: Any, title: str | None, page: Any,
                   data: bytes | None = None) -> "PageInput":
        """What the model and the decision read of one page (before any class changes)."""
        types = structure.declared_types(page.html, data)
        kinds = tree.kinds
        comments = (structure.in_comment_blocks(kinds, tree.chains) if "comment" in kinds.values()
                    else [False] * len(paras))
        has_comments = any(comments)
        # what the comment blocks are by jusText's view (the structural guard); the model reads the
        # page as the default sees it, whatever the setting: it was trained so (comments=keep
        # decides an article's comment section apart, see _decide)
        section = (structure.comment_section(paras, comments) if has_comments
                   else structure.CommentSection(structure.FEW))
        posts = has_comments and (structure.comments_are_content(types, "drop")
                                  or ("posts" in structure.RULES and section.kind == structure.POSTS))
        if posts and POSTS_HIDE_COMMENTS:
            kinds = without_comment_regions(kinds)   # the page's comment blocks are its text
        article_comments = has_comments and not posts
        # comments=drop on an article: its comment section goes, whatever the model says, when it
        # holds the lesser part of jusText's text, or when its records of posts sit under a longer
        # article the page sets apart from them (an <article> without the comment section); else the
        # model decides (a question's answers in blocks named "reply" stay; _decide asks the guard
        # again with the model's view)
        drop = self.comments == "drop" and article_comments and (
            section.kind == structure.FEW
            or (section.kind == structure.ARTICLE
                and structure.article_apart(paras, comments, tree.chains, tree.hints, section.record_tags)))
        keep = self.comments == "keep" and article_comments
        kinds = without_wrapper_footers(kinds, tree, paras)
        return PageInput(paras, kinds, tree.hints, tree.chains, types, title,
                         comments if drop else None, self.engine.params_for(page).max_heading_distance, posts,
                         comments if keep else None, comments if article_comments else None)

    def _decide(self, paras: list[Paragraph], tree: Any, title: str | None, page: Any,
                data: bytes | None = None) -> None:
        inp = self.page_input(paras, tree, title, page, data)
        # what the page's page type reads of its structure (text_types.py): its declarations and
        # named regions (justext-plus's rule verdicts, "items" and "fallback", are not made here)
        page.meta["structure"] = structure.page_facts(inp.types, tree.kinds)
        X, struct = inp.columns()
        if self.capture is not None:
            self.capture.append((X, [p.text for p in paras], struct))
        if self.model is None:
            return
        prob = self.model.predict(X, paras, struct)
        if inp.drop is not None and self._posts_by_model(prob, inp):
            # the comment blocks are the page's posts after all: read as a thread's are
            inp = inp.as_posts()
            X, struct = inp.columns()
            prob = self.model.predict(X, paras, struct)
        if inp.keep is None:
            cf, cls = decide_classes(prob, inp)
        else:
            # comments=keep on an article: its comment section is judged as text (its comment
            # regions hidden from the model, as on a thread of posts), and what jusText keeps of it
            # stays too: the model learned from gold texts without an article's comments, and on the
            # short comments of authored blogs it kept one of three (session 27); the rest of the
            # page as the default has it; then the page's repeats, once, over the whole
            cf, cls = decide_classes(prob, inp, repeats=False)
            as_text = PageInput(paras, without_comment_regions(inp.kinds), inp.hints, inp.chains, inp.types,
                                inp.title, None, inp.max_heading_distance, inp.posts)
            X2, struct2 = as_text.columns()
            cf2, cls2 = decide_classes(self.model.predict(X2, paras, struct2), as_text, repeats=False)
            liked = structure.comment_text_liked(paras)
            for i, inside in enumerate(inp.keep):
                if inside:
                    # (jusText's classes: set_classes has not written the decision yet)
                    cf[i], cls[i] = cf2[i], GOOD if liked[i] else cls2[i]
            if DROP_REPEATS:
                cls = without_repeats(cls, paras)
        set_classes(paras, cf, cls)

    @staticmethod
    def _posts_by_model(prob: np.ndarray, inp: "PageInput") -> bool:
        """The structural guard asked again with what the model keeps, before an article's comment
        section is dropped whatever the model says: a thread whose one-line posts jusText finds too
        short to keep, in blocks named "comment" or "reply", has most of the model's text in records
        of posts, with no article above them. (Only then: a page whose comment blocks hold most of
        jusText's text is the model's to decide already.)"""
        kept = decide_classes(prob, inp.with_drop(None), repeats=False)[1]
        return structure.comment_section(inp.paras, inp.comments, [c == "good" for c in kept]).kind == structure.POSTS


class PageInput:
    """One page as justext-learned sees it: the engine's paragraphs (jusText's classes), the
    evidence regions (comment regions gone when the comment blocks are the page's posts), the
    schema.org types, the title; ``comments``: the paragraphs in an article's comment section
    (None: the page has none, or its comment blocks are its posts); ``drop``: those paragraphs,
    removed whatever the model says (None: nothing forced); ``keep``: those paragraphs, judged
    as text apart from the rest (comments=keep; None: not asked)."""

    __slots__ = ("paras", "kinds", "hints", "chains", "types", "title", "drop", "max_heading_distance", "posts",
                 "keep", "comments")

    def __init__(self, paras: list[Paragraph], kinds: dict[str, str], hints: Sequence[str],
                 chains: Sequence[Sequence[str]], types: frozenset[str], title: str | None,
                 drop: Sequence[bool] | None, max_heading_distance: int, posts: bool = False,
                 keep: Sequence[bool] | None = None, comments: Sequence[bool] | None = None) -> None:
        self.paras, self.kinds, self.hints, self.chains = paras, kinds, hints, chains
        self.types, self.title, self.drop, self.max_heading_distance = types, title, drop, max_heading_distance
        self.posts, self.keep, self.comments = posts, keep, comments

    def features(self) -> np.ndarray:
        return self.columns()[0]

    def with_drop(self, drop: Sequence[bool] | None) -> "PageInput":
        return PageInput(self.paras, self.kinds, self.hints, self.chains, self.types, self.title, drop,
                         self.max_heading_distance, self.posts, self.keep, self.comments)

    def as_posts(self) -> "PageInput":
        """The page read as a thread of posts: its comment blocks its text, nothing dropped."""
        return PageInput(self.paras, without_comment_regions(self.kinds) if POSTS_HIDE_COMMENTS else self.kinds,
                         self.hints, self.chains, self.types, self.title, None, self.max_heading_distance, True, None)

    def columns(self) -> tuple[np.ndarray, Struct]:
        """(the feature matrix, the structure stage 2 reads): :func:`page_columns`."""
        return page_columns(self.paras, self.kinds, self.hints, self.chains, self.types, self.title, self.posts)


def without_comment_regions(kinds: dict[str, str]) -> dict[str, str]:
    """The page's named regions but its comment blocks (the model reads those as text)."""
    return {x: k for x, k in kinds.items() if k != "comment"}


def without_wrapper_footers(kinds: dict[str, str], tree: Any, paras: Sequence[Paragraph]) -> dict[str, str]:
    """The page's named regions but a footer that is a layout wrapper: a region named footer
    with a main-content hint below it (``<main>``, ``<article>``, ``itemprop=articleBody``) that
    holds more than half of the characters jusText keeps is the page's body (a ``sticky-footer``
    or ``flex-wrap-footer`` layout), not its footer; the model does not see its name. (Session 20:
    the class-name evidence otherwise empties such pages; the rule fires on 6 of the 1,497
    wcxb-dev pages, all wrappers, and on none of the 27 whose real footer holds most of jusText's
    text. ``tree``: the page's XPathTree or compiled PageTree, for its hints and masses.)"""
    footers = [x for x, k in kinds.items() if k == "footer" and any(h.startswith(x + "/") for h in tree.hints)]
    if not footers:
        return kinds
    good = [len(p.text) if p.cls == GOOD else 0 for p in paras]
    total = sum(good)
    mass = tree.masses(good) if total else {}
    wrappers = {x for x in footers if 2 * mass.get(x, 0) > total}
    return {x: k for x, k in kinds.items() if x not in wrappers} if wrappers else kinds


def decide_classes(prob: np.ndarray, inp: PageInput, repeats: bool | None = None) -> tuple[list[str], list[str]]:
    """The decision's named phases: the model's context-free classes, jusText's revision
    (Algorithm 2.3), an article's comment section out, the guard against an empty page, the
    page's repeats out (``repeats``: None for :data:`DROP_REPEATS`; False: left to the caller).
    Returns (context-free classes, final classes: good, bad, or repeat: not kept, a repeat)."""
    paras = inp.paras
    if _decide_classes is not None and paras:
        # the same phases compiled (native/learned_features.pyx)
        # (inp.paras is the engine's list: copied only when a caller passed another sequence)
        return _decide_classes(np.ascontiguousarray(prob, dtype=np.float64),
                               paras if type(paras) is list else list(paras), inp.drop,
                               inp.max_heading_distance, DROP_REPEATS if repeats is None else repeats,
                               GOOD_AT, BAD_BELOW, FALLBACK_SHARE, REPEAT_MIN_CHARS, REPEATED)
    return decide_classes_py(prob, inp, repeats)


def decide_classes_py(prob: np.ndarray, inp: PageInput, repeats: bool | None = None) -> tuple[list[str], list[str]]:
    """:func:`decide_classes` in Python (the compiled ``learned_features.decide_classes``' twin)."""
    paras = inp.paras
    cf = model_classes(prob, [p.cf_class for p in paras])
    cls = revise(cf, [p.heading for p in paras], [p.text for p in paras], inp.max_heading_distance)
    if inp.drop is not None:
        cls = ["bad" if inside else c for c, inside in zip(cls, inp.drop)]
    if "good" not in cls:
        # the guard: the model alone never empties a page
        best = float(prob.max())
        cls = ["good" if x >= best * FALLBACK_SHARE else "bad" for x in prob.tolist()]
    if (DROP_REPEATS if repeats is None else repeats):
        cls = without_repeats(cls, paras)
    return cf, cls


def set_classes(paras: Sequence[Paragraph], cf: Sequence[str], cls: Sequence[str]) -> None:
    """The decision written on the paragraphs: the context-free and final classes (jusText's own
    final class kept as the feature ``jt_class``), and why a paragraph is not kept."""
    for p, c, f in zip(paras, cls, cf):
        p.features["jt_class"] = p.cls
        p.cf_class = f
        if c == "good":
            p.cls = GOOD
            p.reason = None
        else:
            p.cls = BAD
            p.reason = REPEAT_REASON if c == REPEATED else (p.reason or "boilerplate")


def without_repeats(cls: list[str], paras: Sequence[Paragraph]) -> list[str]:
    """The classes with every kept paragraph whose text an earlier kept paragraph has as
    :data:`REPEATED` (not kept; its reason says why): the first occurrence stays, so no page is
    emptied. (The engine's texts, their whitespace normalised, as justext-plus's repeat rule
    compares them.)"""
    seen: set[str] = set()
    out = list(cls)
    for i, (c, p) in enumerate(zip(cls, paras)):
        if c == "good":
            text = p.text
            if len(text) >= REPEAT_MIN_CHARS:
                if text in seen:
                    out[i] = REPEATED
                else:
                    seen.add(text)
    return out
