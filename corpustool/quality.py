"""Document quality marks: Gopher / C4 / FineWeb-style measures of the clean text (issue 32).

Computed once per kept document by the ``quality`` stage (after the language filter, before
de-duplication), on the good paragraphs, each paragraph taken as a "line":

==============  =====================================================================
``q_punct``     share of text paragraphs (headings left out) ending in terminal punctuation
                (``. ! ? …`` and the CJK, Arabic, Devanagari, Armenian, Ethiopic, Myanmar, Khmer,
                Tibetan full stops, closing quotes and brackets looked through; C4, FineWeb's
                line-punctuation ratio); Thai and Lao, which end sentences with a space, have none
``q_short``     share of paragraphs of at most 30 characters (FineWeb's short-line ratio)
``q_wordlen``   mean length of the words, in letters (Gopher; combining marks, such as the vowel
                signs of Devanagari or Tamil, count as letters of their word); languages written
                without spaces (zh, ja, th, lo, km, my) have none
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
from itertools import repeat
from typing import Any

import numpy as np

from .document import Document
from .errors import OptionError
from .native import backend
from .stage import DocumentStage
from .text.tokenizer import MARKS

MODES = ("off", "mark", "drop")
DEFAULT_MODE = "mark"

# languages written without spaces between words: no word length, no word n-grams worth judging
NO_SPACES = frozenset(("zh", "ja", "th", "lo", "km", "my"))
# languages that end a sentence with a space, not a mark (Thai, Lao): no share of paragraphs ending
# in one to judge
NO_END_PUNCTUATION = frozenset(("th", "lo"))
_TERMINAL = frozenset(".!?…。！？؟۔।॥։።፧။។៕།")
_CLOSERS = "\"'”’»«)]}›*"
_BULLETS = frozenset("•·‣◦▪▫■□●○►▸▹–—-*✓✔➤→»>")
_LIST_TAGS = frozenset(("li", "dd", "dt"))
_LETTER_WORD = re.compile(r"[^\W\d_]+")
# Python's letters leave out combining marks, so the vowel signs and viramas of Devanagari, Tamil,
# Bengali ... (and the accents of NFD text) would cut a word into runs of one or two letters: in
# such a text a run of letters is a run of letters and marks
_MARK = re.compile(f"[{MARKS}]")
_LETTER_MARK_RUN = re.compile(f"(?:[^\\W\\d_]|[{MARKS}])+")
# punctuation stripped from around a word before it is taken as one run of letters (no letters here)
_PUNCTUATION = ".,;:!?…\"'()[]{}<>«»‹›“”„‘’‚-–—/*|#%&+=~^`@$§°•·"
SHORT_LINE = 30          # characters: a "short line" (FineWeb)

#: the measures, in the order written on <doc> (after ``q`` and ``q_rules``)
MEASURES = ("q_punct", "q_short", "q_wordlen", "q_symbols", "q_nonalpha", "q_stop", "q_bullets",
            "q_ellipsis", "q_dup_lines", "q_dup_chars", "q_top2", "q_top3", "q_top4", "q_dup5")
ATTRIBUTES = ("q", "q_rules") + MEASURES

#: (rule, measure, "min" | "max", threshold, minimum words for the rule to apply).
#: A document is low when a measure is below a "min" threshold or above a "max" one.
#: Chosen on the first 305 labelled documents (docs/quality.md, scripts/bench/bench_quality.py).
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


def _ends_terminal(text: str, question: str = "") -> bool:
    """``question``: a language's own question mark outside _TERMINAL (Greek's ";")."""
    t = text.rstrip().rstrip(_CLOSERS)
    return bool(t) and (t[-1] in _TERMINAL or t[-1] in question)


class _Words:
    """The lower-cased words of a text, counted once for every word measure (the Python twin's
    words, :func:`_word_measures_python`; the compiled ``text_scan.word_measures`` does the same
    in one pass over the characters).

    ``ids[i]`` is the word at position ``i`` as the number of the distinct word (in the order of
    their first occurrences); ``counts[j]`` is how often the ``j``-th distinct word occurs. Letter
    runs are looked for in each distinct word once (a word of letters only is its own run), not in
    every occurrence: the work of a regular expression over the whole text, at a fraction of its
    cost."""

    def __init__(self, lower: str) -> None:
        words = lower.split()
        n = self.n = len(words)
        index: dict[str, int] = {}
        first_at = np.fromiter(map(index.setdefault, words, range(n)), dtype=np.int64, count=n)
        self.distinct = list(index)
        first = np.fromiter(index.values(), dtype=np.int64, count=len(index))
        self.counts = np.bincount(first_at, minlength=n)[first]
        # dense ids: the j-th distinct word is j
        rank = np.zeros(n, dtype=np.int64)
        rank[first] = np.arange(len(first))
        self.ids = rank[first_at]
        self.word_lens = np.fromiter(map(len, self.distinct), dtype=np.int64, count=len(self.distinct))

    def letter_runs(self, stopwords: frozenset[str] | None) -> tuple[int, int, int, int]:
        """(runs of letters, their letters, of them stop words, words without a letter), each
        occurrence counted, as ``[^\\W\\d_]+`` over the text would find them."""
        counts = self.counts
        k = len(counts)
        # most words are letters, or letters with punctuation around them ("word,", "(so"): one
        # run, what is left when the punctuation is stripped; the rest are searched
        cores = list(map(str.strip, self.distinct, repeat(_PUNCTUATION)))
        one = np.fromiter(map(str.isalpha, cores), dtype=bool, count=k)
        lens = np.fromiter(map(len, cores), dtype=np.int64, count=k)
        runs = int(counts[one].sum())
        letters = int(np.dot(counts[one], lens[one]))
        stop = 0
        if stopwords is not None:
            is_stop = np.fromiter(map(stopwords.__contains__, cores), dtype=bool, count=k)
            stop = int(counts[one & is_stop].sum())
        no_letter = int(counts[lens == 0].sum())          # punctuation only
        for j in np.flatnonzero(~one & (lens > 0)).tolist():
            found = _LETTER_WORD.findall(cores[j])
            c = int(counts[j])
            if not found:
                no_letter += c
                continue
            runs += c * len(found)
            letters += c * sum(map(len, found))
            if stopwords is not None:
                stop += c * sum(map(stopwords.__contains__, found))
        return runs, letters, stop, no_letter

    def ngram_counts(self) -> tuple[int, int, int, int, int, int, int]:
        """``(top2, chars2, top3, chars3, top4, chars4, dup5)``: for k = 2, 3, 4 the occurrences of
        the most frequent k-gram (0 when none repeats) and its characters, and the characters of
        the words covered by a 5-gram occurring more than once (0 with fewer than ten words).

        A k-gram gets a dense integer id from its (k-1)-gram's id and its last word's, so a count
        is one ``numpy.unique`` over integers, not a ``Counter`` of word tuples; and only the
        positions whose (k-1)-gram repeats (for bigrams: both words) are looked at for k (no other
        k-gram can repeat). The
        values are those of the counting definition (the tests compare both)."""
        out = [0] * 7
        n, ids, counts = self.n, self.ids, self.counts
        k_distinct = len(counts)
        if k_distinct == n:
            return tuple(out)       # no word repeats: no n-gram does
        lens = self.word_lens[ids]
        # a bigram can repeat only where both its words do
        repeats = counts[ids] > 1
        at = np.flatnonzero(repeats[:-1] & repeats[1:])     # start positions of the k-grams in question
        gram = ids[at]              # the (k-1)-gram id at each of them
        for k in (2, 3, 4, 5):
            keep = at + k <= n
            at, gram = at[keep], gram[keep]
            if len(at) < 2:
                break
            # the k-gram at i: (its (k-1)-gram's id, the id of word i+k-1), both below n
            _, gram, freq = np.unique(gram * n + ids[at + k - 1], return_inverse=True, return_counts=True)
            repeated = freq[gram] > 1
            if not repeated.any():
                break               # no repeated k-gram: no repeated longer one either
            if k < 5:
                top = int(freq.max())
                # the most frequent k-gram, of equals the one seen first (Counter.most_common's):
                # the first position holding one of them
                i = int(at[np.argmax(freq[gram] == top)])
                out[2 * (k - 2)] = top
                out[2 * (k - 2) + 1] = int(lens[i:i + k].sum())
            elif n >= 2 * k:
                # characters of the words covered by a 5-gram occurring more than once
                starts = at[repeated]
                edge = np.zeros(n + 1, dtype=np.int64)
                edge[starts] += 1
                edge[starts + k] -= 1
                out[6] = int(lens[np.cumsum(edge[:n]) > 0].sum())
            at, gram = at[repeated], gram[repeated]
        return tuple(out)


def _word_measures_python(lower: str, stopwords: frozenset[str] | None, ngrams: bool) -> tuple[int, ...]:
    """The counts behind the word measures of a lower-cased text: ``(words, runs, letters, stop,
    no_letter, chars, top2, chars2, top3, chars3, top4, chars4, dup5)`` (:class:`_Words`; the
    n-gram counts zero without ``ngrams``). The pure-Python twin of the compiled
    ``text_scan.word_measures``, which returns the same tuple (tests/test_quality.py)."""
    words = _Words(lower)
    runs, letters, stop, no_letter = words.letter_runs(stopwords)
    chars = int(words.word_lens[words.ids].sum())
    grams = words.ngram_counts() if ngrams else (0,) * 7
    return (words.n, runs, letters, stop, no_letter, chars) + grams


#: the word measures' counts: compiled (one pass over the characters) or the Python twin
word_measures = backend.text_scan.get("word_measures") or _word_measures_python


def measure(paragraphs: list[Any], lang: str | None, stopwords: frozenset[str] | None) -> dict[str, float]:
    """The measures of a document's good paragraphs (objects with ``text``, ``heading``, ``tag``)."""
    texts = [p.text.strip() for p in paragraphs]
    texts = [t for t in texts if t]
    if not texts:
        return {}
    n = len(texts)
    body = [t for p, t in zip(paragraphs, texts) if not getattr(p, "heading", False)] or texts
    text = "\n".join(texts)
    # (lower-casing neither adds nor removes a space or a letter)
    lower = text.lower()
    (n_words, runs, letters, stop, no_letter, chars, top2, chars2, top3, chars3, top4, chars4,
     dup5) = word_measures(lower, stopwords, lang not in NO_SPACES)
    if not lower.isascii() and _MARK.search(lower):
        found = _LETTER_MARK_RUN.findall(lower)
        runs, letters = len(found), sum(map(len, found))
        if stopwords is not None:
            stop = sum(map(stopwords.__contains__, found))
    nw = n_words or 1
    out: dict[str, float] = {}
    if lang not in NO_END_PUNCTUATION:
        question = ";\u037e" if lang == "el" else ""      # (the splitter's sentence end too)
        out["q_punct"] = sum(1 for t in body if _ends_terminal(t, question)) / len(body)
    out["q_short"] = sum(1 for t in texts if len(t) <= SHORT_LINE) / n
    if runs and lang not in NO_SPACES:
        out["q_wordlen"] = letters / runs
    out["q_symbols"] = (text.count("#") + text.count("…") + text.count("...")) / nw
    out["q_nonalpha"] = no_letter / nw
    if stopwords is not None and runs:
        # stop words among the runs of letters ("l'homme": "l", "homme"), of the document's own list
        out["q_stop"] = stop / runs
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
        # Gopher's top n-gram fractions and duplicate 5-gram fraction
        out["q_top2"] = min(1.0, top2 * chars2 / chars) if top2 else 0.0
        out["q_top3"] = min(1.0, top3 * chars3 / chars) if top3 else 0.0
        out["q_top4"] = min(1.0, top4 * chars4 / chars) if top4 else 0.0
        out["q_dup5"] = dup5 / chars if dup5 else 0.0
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
