"""Document quality marks: Gopher / C4 / FineWeb-style measures of the clean text (issue 32).

Computed once per kept document by the ``quality`` stage (after the language filter, before
de-duplication), on the good paragraphs, each paragraph taken as a "line":

==============  =====================================================================
``q_punct``     share of text paragraphs (headings left out) ending in terminal punctuation
                (``. ! ? …`` and the CJK, Arabic, Devanagari full stops, closing quotes and
                brackets looked through; C4, FineWeb's line-punctuation ratio)
``q_short``     share of paragraphs of at most 30 characters (FineWeb's short-line ratio)
``q_wordlen``   mean length of the words, in letters (Gopher); languages written without spaces
                (zh, ja, th, lo, km, my) have none
``q_symbols``   ``#`` and ellipses per word (Gopher's symbol-to-word ratio)
``q_nonalpha``  share of words without a letter (Gopher: at least 80% with one)
``q_stop``      share of the words that are stop words *of the document's own stoplist* (the one
                the clean stage chose, ``doc.stoplist_lang``, or a ``--stoplist`` file); absent
                for a language without a stoplist
``q_bullets``   share of paragraphs that are list items or start with a bullet (Gopher)
``q_ellipsis``  share of paragraphs ending in an ellipsis (Gopher)
``q_dup_lines`` share of paragraphs repeating an earlier one of the document (Gopher)
``q_dup_chars`` share of characters in those repeated paragraphs (Gopher)
``q_top2`` ...  share of the words' characters in the most frequent 2-, 3-, 4-gram (Gopher's
``q_top4``      top n-gram fractions)
``q_dup5``      share of the words' characters covered by 5-grams that occur more than once
                (Gopher's duplicate n-gram fraction, n = 5)
==============  =====================================================================

Each :data:`RULES` entry judges one measure against a threshold (docs/quality.md: how they were
chosen, against documents a person read and labelled). The verdict is ``q="low"`` with the rules
that fired in ``q_rules`` when any fires, else ``q="good"``; ``--quality drop`` drops the low
documents with the reason ``quality:<first rule>``.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .document import Document
from .errors import OptionError
from .stage import DocumentStage

MODES = ("off", "mark", "drop")
DEFAULT_MODE = "mark"

# languages written without spaces between words: no word length, no word n-grams worth judging
NO_SPACES = frozenset(("zh", "ja", "th", "lo", "km", "my"))
_TERMINAL = frozenset(".!?…。！？؟۔।॥")
_CLOSERS = "\"'”’»«)]}›*"
_BULLETS = frozenset("•·‣◦▪▫■□●○►▸▹–—-*✓✔➤→»>")
_LIST_TAGS = frozenset(("li", "dd", "dt"))
_LETTER_WORD = re.compile(r"[^\W\d_]+")
_NO_LETTER_WORD = re.compile(r"(?<!\S)(?:[^\w\s]|[\d_])+(?!\S)")     # a word without a letter
SHORT_LINE = 30          # characters: a "short line" (FineWeb)

#: the measures, in the order written on <doc> (after ``q`` and ``q_rules``)
MEASURES = ("q_punct", "q_short", "q_wordlen", "q_symbols", "q_nonalpha", "q_stop", "q_bullets",
            "q_ellipsis", "q_dup_lines", "q_dup_chars", "q_top2", "q_top3", "q_top4", "q_dup5")
ATTRIBUTES = ("q", "q_rules") + MEASURES

#: (rule, measure, "min" | "max", threshold, minimum words for the rule to apply).
#: A document is low when a measure is below a "min" threshold or above a "max" one.
#: Chosen on half of the labelled sample (docs/quality.md, scripts/bench_quality.py).
RULES: tuple[tuple[str, str, str, float, int], ...] = (
    ("short", "words", "min", 75, 0),                 # Gopher: 50
    ("punct", "q_punct", "min", 0.30, 0),             # FineWeb: 0.12
    ("short-lines", "q_short", "max", 0.50, 0),       # FineWeb: 0.67
    ("stop-words", "q_stop", "min", 0.10, 0),
    ("word-length", "q_wordlen", "min", 3.0, 0),      # Gopher
    ("word-length", "q_wordlen", "max", 10.0, 0),     # Gopher
    ("non-alpha", "q_nonalpha", "max", 0.20, 0),      # Gopher
    ("bullets", "q_bullets", "max", 0.90, 0),         # Gopher
    ("dup-lines", "q_dup_lines", "max", 0.30, 0),     # Gopher
    ("dup-lines", "q_dup_chars", "max", 0.20, 0),     # Gopher
    ("top-ngram", "q_top2", "max", 0.20, 0),          # Gopher
    ("top-ngram", "q_top3", "max", 0.18, 0),          # Gopher
    ("top-ngram", "q_top4", "max", 0.16, 0),          # Gopher
    ("dup-ngram", "q_dup5", "max", 0.40, 0),          # Gopher: 0.15
)
# (Gopher's symbol-to-word (0.1) and ellipsis-line (0.3) rules made only false "low" verdicts on the
# tuning half: their measures are written, no rule judges them.)


def _ends_terminal(text: str) -> bool:
    t = text.rstrip().rstrip(_CLOSERS)
    return bool(t) and t[-1] in _TERMINAL


def _top_ngram(words: list[str], n: int, total: int) -> tuple[float, int]:
    """(characters of the most frequent n-gram's occurrences / all characters, its count)."""
    if len(words) < n or not total:
        return 0.0, 0
    gram, count = Counter(zip(*(words[i:] for i in range(n)))).most_common(1)[0]
    if count < 2:
        return 0.0, count
    return min(1.0, count * sum(map(len, gram)) / total), count


def _dup_ngram(words: list[str], lens: list[int], n: int, total: int) -> float:
    """Share of the characters of words covered by an n-gram that occurs more than once."""
    if len(words) < 2 * n or not total:
        return 0.0
    grams = list(zip(*(words[i:] for i in range(n))))
    counts = Counter(grams)
    if len(counts) == len(grams):
        return 0.0
    dup = {g for g, c in counts.items() if c > 1}
    covered = bytearray(len(words))
    one = b"\x01" * n
    for i in [i for i, g in enumerate(grams) if g in dup]:
        covered[i:i + n] = one
    return sum(l for l, c in zip(lens, covered) if c) / total


def measure(paragraphs: list[Any], lang: str | None, stopwords: frozenset[str] | None) -> dict[str, float]:
    """The measures of a document's good paragraphs (objects with ``text``, ``heading``, ``tag``)."""
    texts = [p.text.strip() for p in paragraphs]
    texts = [t for t in texts if t]
    if not texts:
        return {}
    n = len(texts)
    body = [t for p, t in zip(paragraphs, texts) if not getattr(p, "heading", False)] or texts
    text = "\n".join(texts)
    words = text.split()
    nw = len(words) or 1
    out: dict[str, float] = {}
    out["q_punct"] = sum(1 for t in body if _ends_terminal(t)) / len(body)
    out["q_short"] = sum(1 for t in texts if len(t) <= SHORT_LINE) / n
    lower = text.lower()
    letters = _LETTER_WORD.findall(lower)
    if letters and lang not in NO_SPACES:
        out["q_wordlen"] = sum(map(len, letters)) / len(letters)
    out["q_symbols"] = (text.count("#") + text.count("…") + text.count("...")) / nw
    out["q_nonalpha"] = len(_NO_LETTER_WORD.findall(text)) / nw
    if stopwords is not None and letters:
        # stop words among the runs of letters ("l'homme": "l", "homme"), of the document's own list
        out["q_stop"] = sum(map(stopwords.__contains__, letters)) / len(letters)
    out["q_bullets"] = sum(1 for p, t in zip(paragraphs, texts)
                           if t[0] in _BULLETS or getattr(p, "tag", "") in _LIST_TAGS) / n
    out["q_ellipsis"] = sum(1 for t in texts if t.endswith(("...", "…"))) / n
    seen: set[str] = set()
    dup = dup_chars = 0
    for t in texts:
        if t in seen:
            dup += 1
            dup_chars += len(t)
        else:
            seen.add(t)
    out["q_dup_lines"] = dup / n
    out["q_dup_chars"] = dup_chars / max(1, sum(map(len, texts)))
    if lang not in NO_SPACES:
        lw = lower.split()
        lens = list(map(len, lw))
        total = sum(lens)
        count = 2
        for k in (2, 3, 4):
            # no repeated k-gram: no repeated longer one either
            out[f"q_top{k}"], count = _top_ngram(lw, k, total) if count > 1 else (0.0, 1)
        out["q_dup5"] = _dup_ngram(lw, lens, 5, total) if count > 1 else 0.0
    return out


def judge(measures: dict[str, float], words: int,
          rules: tuple[tuple[str, str, str, float, int], ...] = RULES) -> list[str]:
    """The rules (names, each once, in :data:`RULES` order) that find the document low."""
    fired: list[str] = []
    for name, key, kind, threshold, min_words in rules:
        if name in fired or words < min_words:
            continue
        value = words if key == "words" else measures.get(key)
        if value is None:
            continue
        if (value < threshold) if kind == "min" else (value > threshold):
            fired.append(name)
    return fired


def quality_attributes(doc: Any) -> list[tuple[str, str]]:
    """The ``q…`` attributes of a document the quality stage saw, as strings (none otherwise)."""
    q = doc.meta.get("quality")
    if not isinstance(q, dict):
        return []
    out = []
    verdict = q.get("q")
    if isinstance(verdict, str):
        out.append(("q", verdict))
    rules = q.get("q_rules")
    if isinstance(rules, str) and rules:
        out.append(("q_rules", rules))
    for key in MEASURES:
        value = q.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((key, f"{value:.3f}"))
    return out


class QualityMarks(DocumentStage):
    """Measures every document (``doc.meta["quality"]``); with ``mode="drop"`` drops the low ones."""

    name = "quality"
    in_worker = True    # runs in the same worker batch as the clean stage and the language filter

    def __init__(self, mode: str = DEFAULT_MODE, stoplist_file: str | None = None,
                 rules: tuple[tuple[str, str, str, float, int], ...] = RULES) -> None:
        super().__init__()
        if mode not in ("mark", "drop"):
            raise OptionError(f"unknown quality mode {mode!r}; choose from: {', '.join(MODES)}")
        self.mode = mode
        self.stoplist_file = stoplist_file
        self.rules = rules
        self._stop: dict[str | None, frozenset[str] | None] = {}

    def stopwords(self, doc: Document) -> frozenset[str] | None:
        """The document's own stoplist: the clean stage's (``stoplist_lang``), else its language's."""
        code = doc.stoplist_lang
        if code == "user" and self.stoplist_file:
            key: str | None = "user"
        else:
            key = code if code and code != "user" else doc.lang
        if key in self._stop:
            return self._stop[key]
        words: frozenset[str] | None = None
        try:
            if key == "user":
                from .language.stoplists import load_stoplist_file
                words = frozenset(w.lower() for w in load_stoplist_file(self.stoplist_file))
            elif key:
                from .language.stoplists import has_stoplist, stoplist
                words = stoplist(key) if has_stoplist(key) else None
        except OptionError:
            words = None
        self._stop[key] = words
        return words

    def process(self, doc: Document) -> Document:
        good = doc.good_paragraphs()
        lang = doc.lang or doc.stoplist_lang
        m = measure(good, lang, self.stopwords(doc))
        fired = judge(m, doc.word_count(), self.rules)
        q: dict[str, Any] = {"q": "low" if fired else "good"}
        if fired:
            q["q_rules"] = ",".join(fired)
        q.update((k, round(v, 4)) for k, v in m.items())
        doc.meta["quality"] = q
        stats = self.stats.extra
        if fired:
            stats["low"] += 1
            for name in fired:
                stats[f"low:{name}"] += 1
            if self.mode == "drop":
                return doc.drop(f"quality:{fired[0]}")
        return doc
