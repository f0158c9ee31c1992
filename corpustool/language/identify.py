"""Guessing a page's language from stop-word density, before cleaning.

For every candidate language, the share of the text's words that are in its
stoplist; the language with the highest share wins. One pass over the words:
an index maps each stop word to the languages whose list has it.
"""
from __future__ import annotations

import functools
import re
from collections import Counter

from .stoplists import available_languages, resolve_language, stoplist

_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
# variants of another language's list that would only split its votes
_NOT_AUTO = {"simple", "sh", "be-tarask"}
MIN_DENSITY = 0.05


def default_candidates() -> tuple[str, ...]:
    return tuple(c for c in available_languages() if c not in _NOT_AUTO)


@functools.lru_cache(maxsize=64)
def _index(candidates: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for i, code in enumerate(candidates):
        for word in stoplist(code):
            index.setdefault(word, []).append(i)
    return {w: tuple(v) for w, v in index.items()}


def guess_stoplist_language(text: str, candidates: list[str] | tuple[str, ...] | None = None,
                            min_density: float = MIN_DENSITY) -> tuple[str | None, float]:
    """(language code, stop-word density) of the best candidate, or (None, density)."""
    cands = tuple(sorted(resolve_language(c) for c in candidates)) if candidates else default_candidates()
    if len(cands) == 1:
        return cands[0], 1.0
    words = Counter(w.lower() for w in _WORD.findall(text))
    total = sum(words.values())
    if not total:
        return None, 0.0
    index = _index(cands)
    hits = [0] * len(cands)
    for word, n in words.items():
        for i in index.get(word, ()):
            hits[i] += n
    best = max(range(len(cands)), key=lambda i: (hits[i], -i))
    density = hits[best] / total
    if density < min_density:
        return None, density
    return cands[best], density
