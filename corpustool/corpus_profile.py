"""A profile of the kept corpus: languages, document lengths, top domains, text types.

The pipeline calls :meth:`CorpusProfile.add` for every document it writes; the
result goes into the ``corpus`` section of the statistics JSON, which
``corpustool report`` turns into plots. Memory stays bounded whatever the
corpus size: document lengths go into a fixed histogram, languages are few,
and domains are counted with the Space-Saving algorithm (Metwally, Agrawal
and El Abbadi, 2005), which keeps at most ``max_domains`` counters and is
exact as long as fewer distinct domains are seen. The text types (text_types.py: page type,
top-level domain, length class, year of the page's date) are counted as documents and
words per value; they have few values (a top-level domain beyond :data:`MAX_TLDS` is
counted as ``other``).
"""
from __future__ import annotations

import bisect
from collections import Counter
from typing import Any

from .document import Document
from .text_types import length_class, site_and_tld

MAX_TLDS = 2000
#: the text types counted: name -> what the report calls it
TEXT_TYPES = ("type", "tld", "length", "year")

# Upper bin edges of the document length histogram, in words (roughly 1-2-5
# steps, so a log-scaled plot has even bars); the last bin is open-ended.
LENGTH_EDGES: tuple[int, ...] = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)


class SpaceSaving:
    """Approximate top-k counts in bounded memory (Metwally et al. 2005, "Space-Saving").

    With at most ``capacity`` distinct keys the counts are exact. Beyond, a new
    key replaces the key with the smallest count and inherits that count as
    its possible over-estimate (``error``), so every reported count is an
    upper bound and ``count - error`` a lower bound. Ties are broken by key,
    so the result depends only on the input order.
    """

    def __init__(self, capacity: int = 50_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.counts: dict[str, int] = {}
        self.errors: dict[str, int] = {}
        self.total = 0
        self.evictions = 0

    def add(self, key: str, n: int = 1) -> None:
        self.total += n
        if key in self.counts:
            self.counts[key] += n
            return
        if len(self.counts) < self.capacity:
            self.counts[key] = n
            return
        # O(capacity) eviction; only reached once the domain count exceeds capacity
        victim = min(self.counts, key=lambda k: (self.counts[k], k))
        floor = self.counts.pop(victim)
        self.errors.pop(victim, None)
        self.counts[key] = floor + n
        self.errors[key] = floor
        self.evictions += 1

    @property
    def exact(self) -> bool:
        return self.evictions == 0

    def top(self, k: int) -> list[tuple[str, int]]:
        return sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


class CorpusProfile:
    """Counts over the documents that make it into the corpus."""

    def __init__(self, top_domains: int = 100, max_domains: int = 50_000) -> None:
        self.top_domains = top_domains
        self.docs = 0
        self.words = 0
        self.paragraphs = 0
        self.languages: Counter = Counter()
        self.language_words: Counter = Counter()
        self.length_counts = [0] * (len(LENGTH_EDGES) + 1)
        self.min_words: int | None = None
        self.max_words = 0
        self.domains = SpaceSaving(max_domains)
        self.no_domain = 0
        # text type -> value -> [documents, words]
        self.text_types: dict[str, dict[str, list[int]]] = {name: {} for name in TEXT_TYPES}

    def _count_type(self, name: str, value: str, words: int) -> None:
        values = self.text_types[name]
        if value not in values and name == "tld" and len(values) >= MAX_TLDS:
            value = "other"
        row = values.get(value)
        if row is None:
            row = values[value] = [0, 0]
        row[0] += 1
        row[1] += words

    def add(self, doc: Document) -> None:
        good = doc.good_paragraphs()
        words = sum(p.word_count() for p in good)
        self.docs += 1
        self.words += words
        self.paragraphs += len(good)
        lang = doc.lang or doc.stoplist_lang or "unknown"
        self.languages[lang] += 1
        self.language_words[lang] += words
        # bin i holds lengths in [edge[i-1], edge[i]); bisect_right puts 10 in the 10-20 bin
        self.length_counts[bisect.bisect_right(LENGTH_EDGES, words)] += 1
        self.min_words = words if self.min_words is None else min(self.min_words, words)
        self.max_words = max(self.max_words, words)
        domain = doc.domain
        if domain:
            self.domains.add(domain.lower())
        else:
            self.no_domain += 1
        meta = doc.meta
        ptype = meta.get("page_type")
        self._count_type("type", ptype if isinstance(ptype, str) and ptype else "none", words)
        self._count_type("tld", site_and_tld(domain)[1] or "none", words)
        self._count_type("length", length_class(words), words)
        date = meta.get("date")
        self._count_type("year", date[:4] if isinstance(date, str) and len(date) >= 4 else "none", words)

    def state(self) -> dict[str, Any]:
        """Every counter, as JSON (a resumable build's checkpoint); :meth:`from_state` reads it back."""
        d = {k: v for k, v in vars(self).items() if k != "domains"}
        d["domains"] = dict(vars(self.domains))
        return d

    @classmethod
    def from_state(cls, d: dict[str, Any]) -> "CorpusProfile":
        p = cls()
        for k, v in d.items():
            if k == "domains":
                for dk, dv in v.items():
                    setattr(p.domains, dk, dv)
            elif isinstance(getattr(p, k, None), Counter):
                setattr(p, k, Counter(v))
            else:
                setattr(p, k, v)
        return p

    def merge(self, other: "CorpusProfile") -> None:
        """Add another profile's counts (e.g. from another shard)."""
        self.docs += other.docs
        self.words += other.words
        self.paragraphs += other.paragraphs
        self.languages.update(other.languages)
        self.language_words.update(other.language_words)
        self.length_counts = [a + b for a, b in zip(self.length_counts, other.length_counts)]
        if other.min_words is not None:
            self.min_words = other.min_words if self.min_words is None else min(self.min_words, other.min_words)
        self.max_words = max(self.max_words, other.max_words)
        for key, n in sorted(other.domains.counts.items()):
            self.domains.add(key, n)
        self.domains.evictions += other.domains.evictions
        self.no_domain += other.no_domain
        for name in TEXT_TYPES:
            for value, (docs, words) in sorted(other.text_types.get(name, {}).items()):
                self._count_type(name, value, 0)
                row = self.text_types[name]["other" if value not in self.text_types[name] else value]
                row[0] += docs - 1
                row[1] += words

    def to_dict(self) -> dict[str, Any]:
        """The ``corpus`` section of the statistics JSON."""
        bins = []
        lower = 0
        for i, count in enumerate(self.length_counts):
            upper = LENGTH_EDGES[i] if i < len(LENGTH_EDGES) else None
            bins.append({"min": lower, "max": None if upper is None else upper - 1, "docs": count})
            lower = upper if upper is not None else lower
        return {
            "docs": self.docs,
            "words": self.words,
            "paragraphs": self.paragraphs,
            "languages": dict(sorted(self.languages.items(), key=lambda kv: (-kv[1], kv[0]))),
            "language_words": dict(sorted(self.language_words.items(), key=lambda kv: (-kv[1], kv[0]))),
            "doc_lengths": {
                "unit": "words",
                "bins": bins,
                "count": self.docs,
                "sum": self.words,
                "min": self.min_words or 0,
                "max": self.max_words,
            },
            "domains": dict(self.domains.top(self.top_domains)),
            "domains_distinct": len(self.domains.counts) if self.domains.exact else None,
            "domains_exact": self.domains.exact,
            "docs_without_domain": self.no_domain,
            "text_types": {name: {value: {"docs": docs, "words": words}
                                  for value, (docs, words) in sorted(self.text_types[name].items(),
                                                                     key=lambda kv: (-kv[1][0], kv[0]))}
                           for name in TEXT_TYPES},
        }
