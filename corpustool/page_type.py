"""The page type of a cleaned page: article, forum, product, listing, collection,
documentation or service (the WCXB benchmark's seven types).

Evidence, each a binary feature (:func:`features`):

* what justext-plus's structure rules said of the page (``justext_plus_structure.after_decide``):
  a declared discussion, a product with an offer, a list of records that was its content,
  comment regions, jusText's own verdict deciding;
* the schema.org types it declares (JSON-LD ``@type``, microdata ``itemtype``) and its
  ``og:type`` (:func:`corpustool.text_types.page_metadata`);
* its URL's path: the words of its folders (``/docs/``, ``/forum/``, ``/products/`` ...),
  its depth, whether it names a day, ends in a file name or has a query;
* the kept text: words, paragraphs, the share of short paragraphs and of headings (classes);
* whether the page declares a date and an author.

The type is the most probable under a Bernoulli naive Bayes model (Laplace smoothing), whose counts are in :mod:`corpustool.page_type_model`, trained on the WCXB
development pages by ``scripts/bench/bench_page_types.py --write-model``; the accuracy that script
reports is cross-validated by domain (the model trained on three folds of domains, scored on
the fourth). A feature enters the model only when pages of at least
:data:`MIN_DOMAINS` domains of the training folds have it (no site's own vocabulary).
"""
from __future__ import annotations

import math
import re
from typing import Any, Iterable, Sequence
from urllib.parse import urlsplit

TYPES = ("article", "forum", "product", "listing", "collection", "documentation", "service")
MIN_DOMAINS = 3
ALPHA = 1.0

_WORD = re.compile(r"[a-z]{2,20}")
_DAY = re.compile(r"/(?:19|20)\d\d[/_-]\d\d?(?:[/_-]\d\d?)?(?:/|$|[_-])")
_BUCKETS = (50, 150, 400, 1000, 3000)


def _bucket(n: float, edges: Sequence[float] = _BUCKETS) -> int:
    for i, e in enumerate(edges):
        if n < e:
            return i
    return len(edges)


def features(url: str | None, meta: dict[str, Any], structure: Iterable[str], paragraphs: Sequence[Any]) -> list[str]:
    """The page's binary features, sorted (see the module doc); ``paragraphs``: the decided
    paragraphs (``is_good``, ``heading``, ``word_count()``)."""
    out = {f"s:{s}" for s in structure}
    for t in meta.get("schema_types") or ():
        out.add(f"ld:{t}")
    og = meta.get("og_type")
    if og:
        out.add(f"og:{og}")
    if meta.get("date"):
        out.add("has:date")
    if meta.get("author"):
        out.add("has:author")
    if url:
        try:
            parts = urlsplit(url)
            path, query = parts.path, parts.query
        except ValueError:
            path, query = "", ""
        segments = [s for s in path.lower().split("/") if s]
        out.add(f"depth:{min(len(segments), 4)}")
        if query:
            out.add("url:query")
        if segments:
            for seg in segments[:-1]:
                for w in _WORD.findall(seg):
                    out.add(f"dir:{w}")
            last = segments[-1]
            if "." in last[-6:]:
                out.add("url:file")
            words = _WORD.findall(last)
            if len(words) <= 2:
                for w in words:
                    out.add(f"leaf:{w}")
            out.add(f"leafwords:{min(len(words), 5)}")
            if any(c.isdigit() for c in last):
                out.add("leaf:digits")
        if _DAY.search(path):
            out.add("url:day")
    good = [p for p in paragraphs if p.is_good]
    words = [p.word_count() for p in good]
    total = sum(words)
    out.add(f"words:{_bucket(total)}")
    out.add(f"paras:{_bucket(len(good), (5, 15, 40, 100))}")
    if good:
        short = sum(1 for w in words if w < 10) / len(good)
        out.add(f"short:{_bucket(short, (0.2, 0.4, 0.6, 0.8))}")
        heads = sum(1 for p in good if p.heading) / len(good)
        out.add(f"heads:{_bucket(heads, (0.05, 0.15, 0.3))}")
    return sorted(out)


class Model:
    """Naive Bayes over binary features: per type the pages and the pages with each feature."""

    def __init__(self, pages: dict[str, int], counts: dict[str, dict[str, int]]) -> None:
        self.pages = pages
        self.counts = counts
        n = sum(pages.values()) or 1
        self.log_prior = {t: math.log((pages.get(t, 0) + ALPHA) / (n + ALPHA * len(TYPES))) for t in TYPES}
        # Bernoulli: log P(f | t) - log P(not f | t) for a feature present, and the sum of
        # log P(not f | t) over all features (a page without any of them)
        self.log_p: dict[str, list[float]] = {}
        self.base = [self.log_prior[t] for t in TYPES]
        for f, by_type in counts.items():
            row = []
            for i, t in enumerate(TYPES):
                p = (by_type.get(t, 0) + ALPHA) / (pages.get(t, 0) + 2 * ALPHA)
                self.base[i] += math.log(1.0 - p)
                row.append(math.log(p) - math.log(1.0 - p))
            self.log_p[f] = row

    @classmethod
    def train(cls, rows: Iterable[tuple[str, str, Sequence[str]]], min_domains: int = MIN_DOMAINS) -> "Model":
        """From (type, domain, features) rows; features of fewer than ``min_domains`` domains left out."""
        pages: dict[str, int] = {}
        counts: dict[str, dict[str, int]] = {}
        domains: dict[str, set[str]] = {}
        for t, domain, feats in rows:
            pages[t] = pages.get(t, 0) + 1
            for f in feats:
                by_type = counts.setdefault(f, {})
                by_type[t] = by_type.get(t, 0) + 1
                domains.setdefault(f, set()).add(domain)
        kept = {f: dict(sorted(c.items())) for f, c in sorted(counts.items()) if len(domains[f]) >= min_domains}
        return cls(dict(sorted(pages.items())), kept)

    def predict(self, feats: Iterable[str]) -> str:
        score = list(self.base)
        for f in feats:
            row = self.log_p.get(f)
            if row is not None:
                for i in range(len(TYPES)):
                    score[i] += row[i]
        best = max(range(len(TYPES)), key=lambda i: (score[i], -i))
        return TYPES[best]


_MODEL: Model | None = None


def model() -> Model:
    global _MODEL
    if _MODEL is None:
        from .page_type_model import COUNTS, PAGES
        _MODEL = Model(PAGES, COUNTS)
    return _MODEL


def page_type(url: str | None, meta: dict[str, Any], structure: Iterable[str], paragraphs: Sequence[Any]) -> str:
    return model().predict(features(url, meta, structure, paragraphs))
