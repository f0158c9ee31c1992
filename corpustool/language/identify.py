"""Fast language identification from stop words, with a script fallback.

One pass over the text's words scores every candidate language at once:
the text's distinct words are intersected with one index over all stoplists
(a hash table from each stop word, in its lower-case and first-letter-
capitalised forms, to the languages that list it), so the cost is one regex
scan plus a set intersection, whatever the number of languages.
(We measured the alternative the issue names, one pyahocorasick automaton
over all stoplists with word boundaries as spaces: 0.53 M words/s on the
snippet pages against 1.5 M words/s for the regex + hash-index pass, so the
index is used.)

Scoring, designed for the justext package's lists, which are Wikipedia
frequency lists of very different sizes (Cebuano 10 words, Korean 13,000)
and partly near-duplicates (Bokmål/Nynorsk/Danish, Malay/Indonesian,
Croatian/Bosnian/Serbian):

* every language is represented by the first :data:`TOP_WORDS` distinct
  words of its list, so a long list does not win by size;
* a word's weight is a naive-Bayes log-likelihood ratio: under language L a
  word of rank r has probability ``MASS / (r * H_K)`` (Zipf's law, H_K the
  harmonic number of the list size K) against ``(1 - MASS) / VOCABULARY``
  for any other word. A word shared by two languages adds to both, so only
  distinctive stop words separate near-duplicates, and the ranks decide
  between lists with the same words (Danish "af" vs Norwegian "av");
* each distinct word counts once (presence, not frequency): a menu or a PHP
  warning repeated fifty times in another language must not outvote the
  running text's many different function words;
* matching is case-sensitive with capitalised variants (seed 003,
  Sect. 2.9.9): "The" and "the" count, "THE" in an all-caps banner does not.
  Single letters get no capitalised variant: "A", "V", "W" start initials and
  list items in every Latin-script language.

Scripts without spaces between words (Chinese, Japanese, Thai, Lao, Khmer,
Burmese) have no stop words in this sense; when most of a text's letters are
in such a script the language is named by script (Unicode ranges), Chinese vs
Japanese by the share of kana, which Japanese running text always has and
Chinese text lacks. A few other scripts used by one language only (Hangul,
Greek, Georgian, Armenian, Hebrew) decide when stop words find nothing.

Confidence in [0, 1] is the posterior of the best candidate under a softmax
of the scores times a support factor that grows with the number of distinct
stop words found: a heading with one stop word is not a certain decision.
"""
from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
import operator
from itertools import compress, filterfalse, repeat
from typing import Iterable, NamedTuple, Union

import numpy as np
from lxml import etree

from ..text import tokenizer
from ..text.tokenizer import MARKS
from ..native import backend
from .stoplists import (available_languages, ranked_words, resolve_language, stoplist,
                        has_stoplist)

# letters-only words with their combining marks (Devanagari vowel signs, Arabic harakat);
# inner apostrophes kept ("l'homme"), hyphens split ("Vor- und" -> "Vor", "und")
_L = r"[^\W\d_]"
_WORD = re.compile(rf"{_L}(?:{_L}+|[{MARKS}]+)*(?:['’]{_L}(?:{_L}+|[{MARKS}]+)*)*")
# languages commonly written in two scripts (Serbian: Cyrillic and Latin, Uzbek: Latin and Cyrillic)
_DIGRAPHIC = {"sr", "sh", "uz"}
# variants of another language's list that would only split its votes
_NOT_AUTO = {"simple", "sh", "be-tarask"}

# Regional languages whose Wikipedia lists overlap a far more common neighbour's
# (Asturian/Aragonese ~ Spanish, Sicilian/Neapolitan/Lombard/Piedmontese ~
# Italian, Low Saxon/Luxembourgish ~ German, Walloon ~ French, ...): their lists
# also hold content words ("país", "millones") the neighbour's short list lacks.
# A prior of REGIONAL_PRIOR against 1 for every other language (pages in them
# are rarer on the web by far more than that) keeps a Spanish paragraph Spanish.
REGIONAL = frozenset(("an", "ast", "scn", "nap", "lmo", "pms", "nds", "lb", "wa", "rup", "sgs", "bpy", "new",
                      "war", "ceb", "io", "vo", "fy", "oc"))
REGIONAL_PRIOR = 0.1
TOP_WORDS = 200          # words per language used for identification
MASS = 0.4               # share of running text covered by the top stop words (Zipf model)
VOCABULARY = 100_000     # size of the rest of the vocabulary in the model
TEMPERATURE = 2.0        # softmax temperature of the posterior (score units are nats)
SUPPORT_WORDS = 3.0      # distinct stop words giving support 1 - 1/e
MIN_DENSITY = 0.02       # below this stop-word density no stoplist is chosen
SHORT_TEXT = 3000        # characters: shorter texts are split into words by the regex directly
NUMPY_WORDS = 40         # distinct stop words from which numpy scores faster than Python
UNDETERMINED = "und"

# scripts written without spaces: (code, character class)
_HAN_BMP = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN = _HAN_BMP + "\U00020000-\U0002ffff"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_NOSPACE_SCRIPTS = (
    ("th", "\u0e00-\u0e7f"),
    ("lo", "\u0e80-\u0eff"),
    ("km", "\u1780-\u17ff\u19e0-\u19ff"),
    ("my", "\u1000-\u109f"),
)
# the pre-check scans every text: Basic Multilingual Plane ranges only (a class with a range
# beyond it is tested range by range, 80x slower); BMP Han always accompanies the rarer SMP Han
_NOSPACE_ANY = re.compile("[" + _HAN_BMP + _KANA + "".join(r for _, r in _NOSPACE_SCRIPTS) + "]")
_HAN_RE = re.compile("[" + _HAN + "]")
_KANA_RE = re.compile("[" + _KANA + "]")
_NOSPACE_RES = tuple((code, re.compile("[" + rng + "]")) for code, rng in _NOSPACE_SCRIPTS)
# scripts of exactly one language with a stoplist: the fallback when stop words find nothing
_UNIQUE_SCRIPTS = (
    ("ko", re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")),
    ("el", re.compile("[\u0370-\u03ff\u1f00-\u1fff]")),
    ("ka", re.compile("[\u10a0-\u10ff]")),
    ("hy", re.compile("[\u0530-\u058f]")),
    ("he", re.compile("[\u0590-\u05ff]")),
)
KANA_SHARE_JA = 0.05     # Japanese running text is far above this; Chinese has (almost) no kana
SCRIPT_SHARE = 0.5       # share of letters in a space-less script that decides by script


# Characters that are never part of a word of _WORD (no letter, no combining mark): stripped
# from the ends of a chunk they leave its words as they were ("(Welt," -> "Welt"; an
# apostrophe only joins two letters). ASCII punctuation and digits, and the punctuation
# most common around words on web pages.
_EDGE = ("".join(chr(c) for c in range(0x21, 0x7f) if not chr(c).isalpha())
         + "\u00ab\u00bb\u00b7\u00a7\u00b0\u00a9\u00ae\u2013\u2014\u2018\u2019\u201a\u201c\u201d"
           "\u201e\u2022\u2026\u2039\u203a\u20ac\u00bf\u00a1\u3001\u3002\uff0c\uff1a\uff08\uff09")


_chunk_words = backend.text_scan.get("chunk_words")
_stop_occurrences = backend.text_scan.get("stop_occurrences")
_stop_word_scores = backend.text_scan.get("stop_word_scores")


@functools.lru_cache(maxsize=1)
def _mark_flags() -> bytes:
    """A byte per character of the Basic Multilingual Plane: 1 for the combining marks of
    ``_WORD`` (its class, so the compiled scan agrees with the regex by construction)."""
    flags = bytearray(0x10000)
    for m in re.finditer(f"[{MARKS}]", "".join(map(chr, range(0x10000)))):
        flags[m.start()] = 1
    return bytes(flags)


class PageWords:
    """The words of one text, found once and shared by every question asked about it.

    The clean stage asks up to four (:func:`guess_stoplist_language`,
    :func:`no_stoplist_reason`, the "clearly another language" check) about
    the same page text; each used to scan the whole text with the word regex
    and to lower-case every word again. Every public function here takes a
    ``PageWords`` wherever it takes a text, with the same answers.

    The text is split at white space once and its distinct chunks are
    counted (a page repeats most of its words); everything else works on the
    distinct chunks. Why that gives exactly the answers of the regex over the
    whole text:

    * no word of ``_WORD`` and no character of a script without spaces is
      white space, so every regex answer over the text is the sum of its
      answers over the chunks, each chunk counted as often as it occurs;
    * a chunk of letters only (``str.isalpha``, the Unicode letter categories)
      is one word, whole (``_WORD``'s letters are letters plus other
      numerals); so is a chunk that is letters only once :data:`_EDGE`
      characters are stripped from its ends ("Welt," "(the"); only the other
      distinct chunks go through the regex (a few per cent of a page);
    * the scripts the identification counts (CJK, Thai ..., Hangul, Greek ...)
      are never ASCII, so they are looked for in the non-ASCII chunks only.

    A short text (a paragraph for the language filter) repeats few words: it
    goes through the regex directly, as before, without the counting.

    With ``corpustool.native.text_scan`` built, the pass over the distinct chunks
    (their words, counts and letters), the stop-word count and the scores run
    as C loops with the same answers (tests/native/test_backend_parity.py compares
    them with this module's Python code).
    """

    __slots__ = ("text", "_chunks", "_counts", "_nospace", "_nonascii", "_extra", "_rest_words",
                 "_letters", "_lowered", "_identified", "_density", "_direct")

    def __init__(self, text: str) -> None:
        self.text = text
        self._direct = len(text) < SHORT_TEXT
        self._chunks: list[str] | None = None
        self._counts: Counter[str] | None = None
        self._nospace: bool | None = None
        self._nonascii: str | None = None
        self._extra: int | None = None
        self._rest_words: list[str] | None = None
        self._letters: int | None = None
        self._lowered: list[str] | None = None
        self._identified: dict = {}
        self._density: dict[str, float] = {}

    @property
    def chunks(self) -> list[str]:
        """The text split at white space (the justext package's words)."""
        if self._chunks is None:
            self._chunks = self.text.split()
        return self._chunks

    @property
    def counts(self) -> Counter[str]:
        """Each distinct chunk and how often it occurs."""
        if self._counts is None:
            self._counts = Counter(self.chunks)
        return self._counts

    @property
    def nospace(self) -> bool:
        """Whether the text has a character of a script written without spaces (the tokenizer's
        class, a superset of the one :func:`_script_language` looks for)."""
        if self._nospace is None:
            self._nospace = not self.text.isascii() and tokenizer._NOSPACE_RE.search(
                self.text if self._direct else " ".join(filterfalse(str.isascii, self.counts))) is not None
        return self._nospace

    @property
    def nonascii_text(self) -> str:
        """The chunks with a non-ASCII character, each as often as in the text: the text's
        characters of non-ASCII scripts, without the (mostly ASCII) rest."""
        if self._nonascii is None:
            self._nonascii = "" if self.text.isascii() else " ".join(filterfalse(str.isascii, self.chunks))
        return self._nonascii

    def _split_rest(self) -> None:
        """The words of the distinct chunks that are not letters only."""
        if self._direct:
            self._rest_words = _WORD.findall(self.text)
            self._extra = 0     # unused: n_words is the number of these words
            return
        counts = self.counts
        if _chunk_words is not None:
            # the same words, counts and letters in one C loop over the distinct chunks
            self._extra, self._letters, self._rest_words = _chunk_words(counts, _mark_flags())
            return
        rest = list(filterfalse(str.isalpha, counts))
        cores = list(map(str.strip, rest, repeat(_EDGE)))
        alpha = list(map(str.isalpha, cores))
        words = list(compress(cores, alpha))                    # one word each
        # words minus chunks: -1 per chunk without letters ("2020", "|") ...
        extra = -sum(map(counts.__getitem__, compress(rest, map(operator.not_, cores))))
        # ... and the regex's count less one for the rest ("Süd-Ost", "it's", "Wer\xadte")
        hard = map(operator.and_, map(bool, cores), map(operator.not_, alpha))
        for chunk, core in compress(zip(rest, cores), hard):
            found = _WORD.findall(core)
            words += found
            extra += counts[chunk] * (len(found) - 1)
        self._extra, self._rest_words = extra, words

    @property
    def n_words(self) -> int:
        """Number of words of the word regex (``len(_WORD.findall(text))``)."""
        if self._extra is None:
            self._split_rest()
        return len(self._rest_words) if self._direct else len(self.chunks) + self._extra

    @property
    def letters(self) -> int:
        """Characters in those words (``sum(map(len, _WORD.findall(text)))``)."""
        if self._letters is None and self._direct:
            self.n_words
            self._letters = sum(map(len, self._rest_words))
        if self._letters is None:
            findall = _WORD.findall
            self._letters = sum(n * (len(c) if c.isalpha() else sum(map(len, findall(c))))
                                for c, n in self.counts.items())
        return self._letters

    def found(self, index) -> set[str]:
        """The distinct words that are keys of ``index``."""
        if self._extra is None:
            self._split_rest()
        keys = index.keys()
        if self._direct:
            return keys & self._rest_words      # all the words
        # a chunk that is a key is a whole word (keys are words of _WORD); the others' words
        # are in _rest_words
        hits = keys & self.counts
        if self._rest_words:
            hits |= keys & self._rest_words
        return hits

    def stopword_share(self, stop: frozenset[str]) -> float:
        """Share of jusText's words (:func:`corpustool.text.tokenizer.justext_words`) whose
        lower-case form is in ``stop``; 0.0 without words."""
        if not self.nospace and self._direct:
            chunks = self.chunks
            return sum(map(stop.__contains__, map(str.lower, chunks))) / len(chunks) if chunks else 0.0
        if not self.nospace:
            # justext_words is text.split() here: count the distinct chunks' matches
            counts = self.counts
            if not counts:
                return 0.0
            if _stop_occurrences is not None and isinstance(stop, (set, frozenset)):
                return _stop_occurrences(counts, stop) / len(self.chunks)
            if self._lowered is None:
                self._lowered = list(map(str.lower, counts))
            return sum(compress(counts.values(), map(stop.__contains__, self._lowered))) / len(self.chunks)
        # units of the non-ASCII chunks, as justext_words splits them; an ASCII chunk is one unit
        units = list(filter(str.isascii, self.chunks))
        units += tokenizer.justext_words(self.nonascii_text)
        if not units:
            return 0.0
        return sum(map(stop.__contains__, map(str.lower, units))) / len(units)


def _page_words(text: Union[str, PageWords]) -> PageWords:
    return text if isinstance(text, PageWords) else PageWords(text)


class Identification(NamedTuple):
    lang: str              # ISO 639-1 code or "und"
    confidence: float      # in [0, 1]
    method: str            # "stopwords" | "script" | "none"
    runner_up: str | None = None
    words: int = 0         # words of the text (letters-only tokens)
    hits: int = 0          # distinct stop words of the winner found
    second: float = 0.0    # the runner-up's confidence, as ``confidence`` is the winner's


@functools.lru_cache(maxsize=1)
def default_candidates() -> tuple[str, ...]:
    """Every language with a stoplist except variant lists (Simple English, Serbo-Croatian, ...)."""
    return tuple(c for c in available_languages() if c not in _NOT_AUTO)


def _candidates(candidates: Iterable[str] | None, require_stoplist: bool = False) -> tuple[str, ...]:
    if not candidates:
        return default_candidates()
    if isinstance(candidates, str):
        candidates = [c for c in candidates.split(",") if c.strip()]
    return _resolved(tuple(candidates), require_stoplist)


@functools.lru_cache(maxsize=256)
def _resolved(candidates: tuple[str, ...], require_stoplist: bool) -> tuple[str, ...]:
    return tuple(sorted({resolve_language(c, require_stoplist=require_stoplist) for c in candidates}))


class _Model(NamedTuple):
    langs: tuple[str, ...]
    index: dict[str, tuple[tuple[int, float], ...]]
    base: tuple[float, ...]      # log prior per language: regional languages are rarer on the web
    # the index as arrays, for scoring a page's words in a few numpy calls: rows[word] is the
    # word's row (rows in sorted word order); a row's entries (language, weight), as in
    # index[word], are entry_lang/entry_weight[start[row]:start[row] + length[row]]
    rows: dict[str, int]
    start: np.ndarray
    length: np.ndarray
    entry_lang: np.ndarray
    entry_weight: np.ndarray


@functools.lru_cache(maxsize=64)
def _model(candidates: tuple[str, ...]) -> _Model:
    langs = tuple(c for c in candidates if has_stoplist(c))
    index: dict[str, list[tuple[int, float]]] = {}
    other = math.log((1.0 - MASS) / VOCABULARY)
    for i, code in enumerate(langs):
        words = [w for w in (_clean_word(w) for w in ranked_words(code)) if w]
        words = _main_script_only(code, list(dict.fromkeys(words)))[:TOP_WORDS]
        harmonic = sum(1.0 / r for r in range(1, len(words) + 1))
        for rank, word in enumerate(words, 1):
            weight = math.log(MASS / (rank * harmonic)) - other
            forms = {word} if len(word) == 1 else {word, word[:1].upper() + word[1:]}
            for form in forms:
                index.setdefault(form, []).append((i, weight))
    base = tuple(math.log(REGIONAL_PRIOR) if c in REGIONAL else 0.0 for c in langs)
    ordered = sorted(index)
    length = np.array([len(index[w]) for w in ordered], dtype=np.intp)
    start = np.zeros(len(ordered), dtype=np.intp)
    np.cumsum(length[:-1], out=start[1:])
    entry_lang = np.array([i for w in ordered for i, _ in index[w]], dtype=np.intp)
    entry_weight = np.array([x for w in ordered for _, x in index[w]], dtype=np.float64)
    return _Model(langs, {w: tuple(v) for w, v in index.items()}, base,
                  {w: row for row, w in enumerate(ordered)}, start, length, entry_lang, entry_weight)


def _scores(model: _Model, words: list[str]) -> tuple[dict[int, float], dict[int, int]]:
    """Per language listing any of ``words`` (index keys): the sum of their weights and how many.

    The sums run over the words in sorted order (``np.bincount`` adds its weights in
    order), so they never depend on set order, i.e. on the process's hash seed."""
    if _stop_word_scores is not None:
        # the same additions in the same order in C (half the numpy path's time on a page)
        return _stop_word_scores(model.index, words, len(model.langs))
    if len(words) < NUMPY_WORDS:
        # a few words (a paragraph): the same sums, added in the same order, in Python
        sums: dict[int, float] = {}
        counts: dict[int, int] = {}
        index = model.index
        for word in sorted(words):
            for i, weight in index[word]:
                sums[i] = sums.get(i, 0.0) + weight
                counts[i] = counts.get(i, 0) + 1
        return sums, counts
    n = len(model.langs)
    rows = np.fromiter(map(model.rows.__getitem__, words), dtype=np.intp, count=len(words))
    rows.sort()
    length = model.length[rows]
    ends = np.cumsum(length)
    # the entries of the rows, one after another: start[row] + 0, 1, ... length[row] - 1
    entries = np.arange(ends[-1]) + np.repeat(model.start[rows] - (ends - length), length)
    langs = model.entry_lang[entries]
    sums = np.bincount(langs, weights=model.entry_weight[entries], minlength=n)
    counts = np.bincount(langs, minlength=n)
    found = np.flatnonzero(counts)
    ids = found.tolist()
    return dict(zip(ids, sums[found].tolist())), dict(zip(ids, counts[found].tolist()))


def _script_of(word: str) -> str:
    """First word of the Unicode name of the word's first letter: LATIN, CYRILLIC, DEVANAGARI ..."""
    try:
        return unicodedata.name(word[0]).split(" ", 1)[0]
    except ValueError:
        return "?"


def _main_script_only(code: str, words: list[str]) -> list[str]:
    """Drop words in another script than most of the list's: the Wikipedia lists of
    Marathi, Nepali, Chuvash ... contain English words from citations, which would
    make English pages Marathi. Languages written in two scripts keep both."""
    if code in _DIGRAPHIC:
        return words
    scripts = [_script_of(w) for w in words[:TOP_WORDS]]
    main = max(set(scripts), key=scripts.count)
    return [w for w in words if _script_of(w) == main]


def _clean_word(word: str) -> str:
    """A list entry as our word regex would see it ("있다." -> "있다"); "" if it is no word."""
    m = _WORD.fullmatch(word.strip(".,;:!?()[]\"'«»"))
    return m.group().lower() if m else ""


def _script_language(text: str, letters: int, candidates: tuple[str, ...] | None) -> tuple[str, float] | None:
    """(code, share of letters) when most letters are in a script written without spaces."""
    if letters == 0 or not _NOSPACE_ANY.search(text):
        return None
    han = len(_HAN_RE.findall(text))
    kana = len(_KANA_RE.findall(text))
    counts = {"zh": 0, "ja": 0}
    if han + kana:
        counts["ja" if kana >= KANA_SHARE_JA * (han + kana) else "zh"] = han + kana
    for code, rx in _NOSPACE_RES:
        counts[code] = len(rx.findall(text))
    code, n = max(counts.items(), key=lambda kv: kv[1])
    share = min(1.0, n / letters)
    if share < SCRIPT_SHARE or (candidates is not None and code not in candidates):
        return None
    return code, share


def identify(text: Union[str, PageWords], candidates: Iterable[str] | None = None, *,
             prior: dict[str, float] | None = None) -> Identification:
    """Language of ``text`` with confidence, method and runner-up (see the module doc).

    ``prior`` gives some languages a prior probability (the rest share what is
    left equally): a paragraph of a German document is German unless its
    stop words clearly say otherwise. Without it all languages are equally
    likely a priori. ``text`` may be a :class:`PageWords` (answers without a
    prior are then remembered on it).
    """
    explicit = bool(candidates)
    cands = _candidates(candidates)
    if not isinstance(text, PageWords):
        return _identify(PageWords(text), cands, explicit, prior)
    if prior is not None:
        return _identify(text, cands, explicit, prior)
    key = (cands, explicit)
    result = text._identified.get(key)
    if result is None:
        result = text._identified[key] = _identify(text, cands, explicit, prior)
    return result


def _identify(words: PageWords, cands: tuple[str, ...], explicit: bool,
              prior: dict[str, float] | None) -> Identification:
    n_words = words.n_words
    if not n_words:
        return Identification(UNDETERMINED, 0.0, "none")
    if words.nospace:
        by_script = _script_language(words.nonascii_text, words.letters, cands if explicit else None)
        if by_script is not None:
            return Identification(by_script[0], round(by_script[1], 4), "script", None, n_words, 0)
    model = _model(cands)
    langs = model.langs
    scores, hits = _scores(model, list(words.found(model.rows)))
    if not scores:
        return _unique_script(words.nonascii_text, words.letters, n_words, cands if explicit else None)
    log_prior = _log_prior(prior, langs)
    if log_prior:
        for i in log_prior:   # a language with a prior competes even without stop words found
            scores.setdefault(i, 0.0)
            hits.setdefault(i, 0)
    # posterior logits: scores in nats / TEMPERATURE plus the log prior (the same for all without one)
    base = model.base
    unnamed = log_prior.get(-1, 0.0)
    logit = {i: sc / TEMPERATURE + base[i] + log_prior.get(i, unnamed) for i, sc in scores.items()}
    # best first; equal logits: alphabetical by code, so the answer never depends on set order
    # (two stable sorts: by code, then by logit, highest first; reverse keeps ties in order)
    order = sorted(sorted(logit, key=langs.__getitem__), key=logit.__getitem__, reverse=True)
    best = order[0]
    top = logit[best]
    # posterior among the languages with evidence (or a prior)
    posterior = 1.0 / sum(map(math.exp, map(operator.sub, map(logit.__getitem__, order), repeat(top))))
    support = 1.0 - math.exp(-hits[best] / SUPPORT_WORDS)
    if hits[best] == 0:
        # only the prior speaks for it: the text itself says nothing
        return Identification(langs[best], 0.0, "prior", None, n_words, 0)
    runner = langs[order[1]] if len(order) > 1 else None
    second = 0.0
    if runner is not None:
        other = order[1]
        second = (posterior * math.exp(logit[other] - top)) * (1.0 - math.exp(-hits[other] / SUPPORT_WORDS))
    return Identification(langs[best], round(posterior * support, 4), "stopwords", runner,
                          n_words, hits[best], round(second, 4))


def _log_prior(prior: dict[str, float] | None, langs: tuple[str, ...]) -> dict[int, float]:
    """Log prior per language index; key -1 holds the value of every language not named."""
    if not prior:
        return {}
    named = {langs.index(c): p for c, p in prior.items() if c in langs and p > 0}
    if not named:
        return {}
    total = sum(named.values())
    if total >= 1.0:
        named = {i: p / total * 0.999 for i, p in named.items()}
        total = 0.999
    rest = (1.0 - total) / max(1, len(langs) - len(named))
    out = {i: math.log(p) for i, p in named.items()}
    out[-1] = math.log(rest)
    return out


def _unique_script(text: str, letters: int, n_words: int, candidates: tuple[str, ...] | None) -> Identification:
    for code, rx in _UNIQUE_SCRIPTS:
        if candidates is not None and code not in candidates:
            continue
        share = len(rx.findall(text)) / letters
        if share >= SCRIPT_SHARE:
            return Identification(code, round(min(1.0, share), 4), "script", None, n_words, 0)
    return Identification(UNDETERMINED, 0.0, "none", None, n_words, 0)


def identify_language(text: str, candidates: list[str] | None = None) -> tuple[str, float]:
    """ISO 639-1 code of the language of ``text`` (or "und") and a confidence in [0, 1].

    ``candidates`` restricts the answer to these languages (codes or names);
    a text in none of them comes back "und": the text is also identified
    among all languages, and when that answer is another language, more
    confident than the best candidate and at least ``CLEARLY_OTHER``, the
    answer is ("und", 0.0), not a candidate that shares a few stop words.
    """
    result = identify(text, candidates)
    if candidates and result.lang != UNDETERMINED:
        overall = identify(text)
        if (overall.lang != UNDETERMINED and overall.lang not in _candidates(candidates)
                and overall.confidence >= CLEARLY_OTHER and overall.confidence > result.confidence):
            return UNDETERMINED, 0.0
    return result.lang, result.confidence


# identify_language(text, candidates): the answer among all languages that makes a text "und" when it
# is none of the candidates
CLEARLY_OTHER = 0.5


def guess_stoplist_language(text: Union[str, PageWords], candidates: list[str] | tuple[str, ...] | None = None,
                            min_density: float = MIN_DENSITY) -> tuple[str | None, float]:
    """The language whose stoplist to clean a page with: (code, stop-word density) or (None, density).

    The language is :func:`identify`'s among the candidates that have a
    stoplist; the density is the share of the text's words in that language's
    lower-cased list, as jusText counts them. A page below ``min_density``
    (or in a language without a stoplist) gets None: cleaning it with any
    list would keep nothing.
    """
    cands = _candidates(candidates, require_stoplist=True)     # (a tuple)
    if len(cands) == 1:
        return cands[0], 1.0
    words = _page_words(text)
    result = identify(words, cands if candidates else None)
    if result.lang == UNDETERMINED or not has_stoplist(result.lang):
        return None, 0.0
    density = stopword_density(words, result.lang)
    if density < min_density:
        return None, density
    return result.lang, density


def no_stoplist_reason(text: Union[str, PageWords], candidates: Iterable[str] | None = None) -> tuple[str, str | None]:
    """Why :func:`guess_stoplist_language` found no stoplist: (drop reason, language or None).

    "no-stoplist" for a language we can name but have no list for (Thai,
    Chinese ... unless a list is in ``stoplists/``), "unwanted-language" for a
    page in none of the candidate languages, "unknown-language" otherwise.
    """
    lang = identify(text).lang
    if lang == UNDETERMINED:
        return "unknown-language", None
    if candidates and lang not in _candidates(candidates):
        return "unwanted-language", lang
    if not has_stoplist(lang):
        return "no-stoplist", lang
    return "unknown-language", lang


def stopword_density(text: Union[str, PageWords], code: str) -> float:
    """Share of the words of ``text`` (split at whitespace, lower-cased) in the stoplist of ``code``.

    Words are counted as jusText counts them (see :func:`corpustool.text.tokenizer.justext_words`:
    whitespace-separated, characters for scripts without spaces).
    """
    words = _page_words(text)
    density = words._density.get(code)
    if density is None:
        density = words._density[code] = words.stopword_share(stoplist(code))
    return density


# -- page text for the guess before cleaning ------------------------------------------
# The element walk (el.text of elements other than script and style, el.tail of every
# node below the root) compiled with the jusText walk: libxml2's nodes by pointer into
# one buffer, 4x faster than the Python walk, which makes a proxy object per element.
_compiled_page_text = backend.walk.get("page_text")
# Without it: all text nodes below the root minus the first text child of each script and
# style element, in one libxml2 XPath evaluation (only the kept nodes become Python
# strings; the EXSLT set difference compares against the few script and style nodes
# only, where an XPath predicate per text node is twice as slow): 1.4x the Python walk.
_PAGE_TEXT_NODES = etree.XPath(
    "set:difference(descendant::text(),"
    " (descendant-or-self::script | descendant-or-self::style)/node()[1][self::text()])",
    namespaces={"set": "http://exslt.org/sets"}, smart_strings=False)


def page_text(root) -> str:
    """The text of a parsed page for language guessing: all text nodes except
    scripts, style sheets and comments (JavaScript's "var", "if", "in" and
    one-letter names otherwise vote for random languages). ``<noscript>`` is
    kept: some pages put their whole content there."""
    if root is None:
        return ""
    body = root.find("body")
    if body is not None and len(body):
        root = body
    if _compiled_page_text is not None and isinstance(root, etree._Element):
        # the element walk (el.text unless script or style, el.tail) in C: the same string
        return _compiled_page_text(root)
    if not isinstance(root.tag, str):
        return ""   # a comment or processing instruction: no text of the element walk (and no XPath context)
    # text nodes are joined with spaces, as the parts of the element walk were (in another
    # order: word counts do not depend on it); the parser merges adjacent character data,
    # so each text node is one ``.text`` or ``.tail`` of that walk
    return " ".join(_PAGE_TEXT_NODES(root))
