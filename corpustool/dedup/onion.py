"""Duplicate paragraphs by n-grams: the onion algorithm (seed 003, Sect. 3.5, Algorithm 3.1).

For each document in order and each of its paragraphs, we measure the share
of the paragraph's tokens covered by n-grams already present in the kept
output or earlier in the same document. Paragraphs over the threshold are
duplicates; context smoothing then removes the stubs left between them
(Sect. 3.5.2, Fig. 3.5): jusText's context-sensitive pass (Algorithm 2.3 and
the headings rule) re-runs with duplicates treated as bad, and a stub goes
where the duplicates change jusText's verdict; without jusText classes
(vertical input), and for the short lines an extractor keeps against
jusText's verdict (justext-plus), short paragraphs between duplicates go.
Documents left without a good paragraph are dropped.

Two ways to hold "n-grams already in the output" (G_out of Algorithm 3.1):

* **streaming** (one pass): every n-gram of the kept output, in a compact
  :class:`~corpustool.dedup.hashset.HashSet` (~10 bytes per n-gram);
* **two-pass**: pass 1 (:class:`DuplicateNgramFinder`) finds the n-grams that
  occur at least twice in the whole input (G2+) with bounded memory, using
  sorted runs spilled to partition files on disk; pass 2 keeps only those, as
  a :class:`~corpustool.dedup.hashset.FlaggedHashSet` whose flag says "moved
  to G_out". Optionally documents are processed in order of increasing share
  of duplicate n-grams (Sect. 3.5), in a few sweeps over the input.

Both give the same result when documents are processed in the same order: an
n-gram that matches an earlier kept one occurs twice, so it is in G2+.

Speed: all per-token work is vectorised with numpy. Each distinct token is
hashed once (xxhash, cached); the hash of an n-gram combines its n token
hashes polynomially over whole arrays; documents are processed in batches,
G_out is queried once per batch, and repeats inside a batch are resolved by
sorting the batch's n-grams. Documents are decided all at once twice, with
earlier same-batch occurrences assumed kept and assumed removed; shares are
monotone, so only the few documents where the two differ are decided one by
one. In pass 2, n-grams outside G2+ are dropped right after the lookup.

Choices where the thesis leaves room (each measured by scripts/bench/bench_onion.py):

* N-grams run across paragraph boundaries within a document (runs of short
  repeated paragraphs, e.g. site furniture, are found) but never across
  documents.
* Every paragraph is also matched as a whole (an extra "n-gram" spanning it),
  so a repeated paragraph shorter than n is found too.
* "Earlier in the same document" counts exact repeats of a whole paragraph
  by default; counting every n-gram seen earlier in the document
  (``within_document="ngrams"``) removed 4.6x as many unique paragraphs on
  the benchmark (123 vs 27: a page repeats its own dates, bylines, phrases).
* A paragraph is a duplicate when its covered share is *greater* than the
  threshold (Sect. 3.6.4: "more than 50 % of duplicate text").
* Shares count only the tokens that take part in n-grams (without
  punctuation / stop words when those are skipped).
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import xxhash

from ..document import BAD, GOOD, Document
from ..errors import OptionError
from ..stage import StreamStage
from .hashset import FlaggedHashSet, HashSet, trim_mask, unique_sorted
from .onion_options import (DEFAULT_MAX_HEADING_DISTANCE, DEFAULT_MAX_STUB, DEFAULT_N,  # noqa: F401 (re-exported)
                            DEFAULT_THRESHOLD, WITHIN_MODES, OnionOptions)

DEFAULT_BATCH_TOKENS = 200_000
DEFAULT_MEMORY = 1 << 30         # pass 1 budget in bytes

REASON_DUPLICATE = "duplicate"
REASON_STUB = "duplicate-context"

_U64 = np.uint64
_POLY = _U64(0x9E3779B97F4A7C15)          # odd multiplier combining token hashes
_POLY_INV = _U64(pow(0x9E3779B97F4A7C15, -1, 1 << 64))
_WHOLE_TAG = _U64(0xD6E8FEB86659FD93)      # keeps whole-paragraph hashes apart from n-grams
_M1 = _U64(0xBF58476D1CE4E5B9)            # splitmix64 finaliser constants
_M2 = _U64(0x94D049BB133111EB)
_WORD_CHAR = re.compile(r"\w")
JUSTEXT_CLASSES = frozenset(("good", "neargood", "short", "bad"))


# ---------------------------------------------------------------------------
# hashing
# ---------------------------------------------------------------------------

class TokenHasher:
    """64-bit hash per token, computed once per distinct token.

    Bit 0 of a code is 1 for tokens left out of n-grams (punctuation and/or
    stop words, Tables 3.4-3.6); n-grams use ``code >> 1``.
    """

    MAX_CACHE = 1_000_000   # distinct tokens (~150 bytes each with the strings kept alive)

    def __init__(self, skip_punct: bool = False, stopwords: frozenset[str] | None = None) -> None:
        self.skip_punct = skip_punct
        self.stopwords = stopwords or None
        self.cache = _CodeCache(self.code)

    @property
    def skips(self) -> bool:
        return self.skip_punct or self.stopwords is not None

    def code(self, token: str) -> int:
        h = xxhash.xxh3_64_intdigest(token.encode("utf-8", "surrogateescape")) & ~1
        if self.skip_punct and _WORD_CHAR.search(token) is None:
            h |= 1
        elif self.stopwords is not None and token.lower() in self.stopwords:
            h |= 1
        return h

    def codes(self, tokens: list[str]) -> np.ndarray:
        cache = self.cache
        if len(cache) > self.MAX_CACHE:
            cache.clear()
        # a miss calls _CodeCache.__missing__; hits never leave C
        return np.fromiter(map(cache.__getitem__, tokens), dtype=_U64, count=len(tokens))


class _CodeCache(dict):
    """token -> code; computes and stores missing codes."""

    __slots__ = ("code",)

    def __init__(self, code: Callable[[str], int]) -> None:
        super().__init__()
        self.code = code

    def __missing__(self, token: str) -> int:
        v = self[token] = self.code(token)
        return v


def _merge(old: np.ndarray, new: np.ndarray, is_new: np.ndarray) -> np.ndarray:
    out = np.empty(is_new.size, dtype=np.result_type(old, new))
    out[is_new] = new
    out[~is_new] = old
    return out


def ngram_hashes(codes: np.ndarray, n: int, bits: int = 64) -> np.ndarray:
    """Hash of every n consecutive tokens: a polynomial over the token hashes, then mixed.

    ``codes`` are :class:`TokenHasher` codes of the tokens that take part in
    n-grams; the result has ``len(codes) - n + 1`` entries.
    """
    m = codes.size - n + 1
    if m <= 0:
        return np.empty(0, dtype=_U64)
    x = codes >> _U64(1)
    g = x[:m].copy()
    for j in range(1, n):
        g *= _POLY
        g += x[j:j + m]
    # splitmix64 finaliser: the low bits feed bucket directories, so mix well
    g ^= g >> _U64(30)
    g *= _M1
    g ^= g >> _U64(27)
    g *= _M2
    g ^= g >> _U64(31)
    if bits < 64:
        g &= _U64(trim_mask(bits))
    return g


_SHORT_TAG = _U64(0xD6E8FEB86659FD93)


# ---------------------------------------------------------------------------
# units: what the engine needs to know of one document
# ---------------------------------------------------------------------------

class Unit:
    """One document as the engine sees it.

    ``tokens[i]`` are the tokens of paragraph i, or None when the paragraph
    takes no part (already removed for another reason). After processing,
    ``dup[i]`` says whether paragraph i is over the threshold, ``removed[i]``
    whether it goes (duplicate or stub), ``share[i]`` its covered share.
    """

    __slots__ = ("tokens", "lang", "dup", "removed", "share")

    def __init__(self, tokens: list[list[str] | None], lang: str | None = None) -> None:
        self.tokens = tokens
        self.lang = lang
        self.dup: np.ndarray | None = None
        self.removed: np.ndarray | None = None
        self.share: np.ndarray | None = None

    def smooth(self, dup: np.ndarray, eligible: np.ndarray, lengths: np.ndarray, max_stub: int) -> np.ndarray:
        """Paragraphs to remove given the duplicates (``lengths`` in tokens): the stub rule by default."""
        return remove_stubs(dup, eligible, lengths, max_stub)

    @property
    def n_paragraphs(self) -> int:
        return len(self.tokens)


def remove_stubs(dup: np.ndarray, eligible: np.ndarray, lengths: np.ndarray, max_stub: int) -> np.ndarray:
    """Duplicates plus runs of short paragraphs left between them.

    A run of consecutive eligible non-duplicate paragraphs of at most
    ``max_stub`` tokens each is removed when the nearest eligible paragraph on
    each side is a duplicate. Unlike jusText's rule, a document edge does not
    count as bad: a short title before a duplicate stays (on the benchmark,
    counting edges removed 25-50 % more unique paragraphs for no gain in recall).
    """
    removed = dup.copy()
    dup = dup.tolist()
    lengths = list(lengths)
    idx = [i for i, e in enumerate(list(eligible)) if e]
    k = 0
    while k < len(idx):
        i = idx[k]
        if dup[i] or lengths[i] > max_stub:
            k += 1
            continue
        j = k
        while j < len(idx) and not dup[idx[j]] and lengths[idx[j]] <= max_stub:
            j += 1
        before = dup[idx[k - 1]] if k > 0 else None     # None: document edge
        after = dup[idx[j]] if j < len(idx) else None
        if before and after:
            removed[idx[k:j]] = True
        k = j
    return removed


def revise_with_duplicates(cf_classes: Sequence[str], headings: Sequence[bool], lengths: Sequence[int],
                           dup: Sequence[bool], max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE
                           ) -> list[str]:
    """jusText's context-sensitive classification (seed 003 Algorithm 2.3 plus the
    headings rule, as justext.core.revise_paragraph_classification of justext
    3.0.2, whose output it reproduces) with the duplicate paragraphs treated as
    bad (Sect. 3.5.2). Returns the final classes.
    """
    n = len(cf_classes)
    cf = ["bad" if dup[i] else cf_classes[i] for i in range(n)]
    cls = list(cf)

    # The package looks for each paragraph's neighbours by walking away from it, which is
    # quadratic on long pages; the nearest neighbours of every kind are found here in
    # two linear sweeps, with the same results (tests/dedup/test_onion.py against the package).
    def nearest(kinds: tuple[str, ...], step: int) -> list[str]:
        out = ["bad"] * n          # beyond the document edge: bad
        last = "bad"
        for i in (range(n) if step == 1 else range(n - 1, -1, -1)):
            out[i] = last
            if cls[i] in kinds:
                last = cls[i]
        return out

    # Step "good headings" (a short heading shortly before a good paragraph
    # becomes near-good) is skipped: justext 3.0.2 tests the *following*
    # paragraphs' classes before it has copied them from cf_class, so the step
    # never fires there, and re-running must reproduce the package's classes.
    # short paragraphs take the class of their context (the classes as they were
    # before this step: the package writes the new ones afterwards)
    strong = ("good", "bad")
    weak = ("good", "bad", "neargood")
    prev_strong, next_strong = nearest(strong, 1), nearest(strong, -1)
    prev_any, next_any = nearest(weak, 1), nearest(weak, -1)
    new: dict[int, str] = {}
    for i in range(n):
        if cls[i] != "short":
            continue
        prev_c, next_c = prev_strong[i], next_strong[i]
        if prev_c == "good" and next_c == "good":
            new[i] = "good"
        elif prev_c == "bad" and next_c == "bad":
            new[i] = "bad"
        elif (prev_c == "bad" and prev_any[i] == "neargood") or (next_c == "bad" and next_any[i] == "neargood"):
            new[i] = "good"
        else:
            new[i] = "bad"
    for i, c in new.items():
        cls[i] = c
    # near-good paragraphs: bad only between two bad ones. The package changes them in
    # place, left to right: the previous neighbour is the paragraph before (every one
    # before is good or bad by now), the next one the nearest good or bad after it
    next_strong = nearest(strong, -1)
    for i in range(n):
        if cls[i] != "neargood":
            continue
        prev_c = cls[i - 1] if i > 0 else "bad"
        cls[i] = "bad" if (prev_c, next_strong[i]) == ("bad", "bad") else "good"
    # more good headings
    for i in range(n):
        if not (headings[i] and cls[i] == "bad" and cf[i] != "bad"):
            continue
        j, distance = i + 1, 0
        while j < n and distance <= max_heading_distance:
            if cls[j] == "good":
                cls[i] = "good"
                break
            distance += lengths[j]
            j += 1
    return cls


class DocumentUnit(Unit):
    """A :class:`Document`: good paragraphs take part; jusText classes drive smoothing."""

    __slots__ = ("doc", "max_heading_distance")

    def __init__(self, doc: Document, max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE) -> None:
        from ..text.tokenizer import tokenize

        tokens: list[list[str] | None] = []
        for p in doc.paragraphs:
            if p.cls != GOOD:
                tokens.append(None)
                continue
            if p.tokens is None:
                # the tokenize stage comes later in the pipeline: keep the work
                p.tokens, p.glue = tokenize(p.text)
            tokens.append(p.tokens)
        super().__init__(tokens, doc.stoplist_lang or doc.lang)
        self.doc = doc
        self.max_heading_distance = max_heading_distance

    def smooth(self, dup: np.ndarray, eligible: np.ndarray, lengths: np.ndarray, max_stub: int) -> np.ndarray:
        paras = self.doc.paragraphs
        if not all(p.cf_class in JUSTEXT_CLASSES for p in paras):
            return super().smooth(dup, eligible, lengths, max_stub)
        cf = [p.cf_class for p in paras]
        headings = [p.heading for p in paras]
        chars = [len(p.text) for p in paras]
        classes = revise_with_duplicates(cf, headings, chars, dup, self.max_heading_distance)
        # jusText's verdict without the duplicates: a stub goes only where the duplicates
        # change it. An extractor that keeps more than jusText (justext-plus keeps the short
        # lines of the main text) has stubs jusText calls bad anyway; for those the
        # duplicates decide by the stub rule (between two duplicates), not jusText's context
        before = revise_with_duplicates(cf, headings, chars, [False] * len(paras), self.max_heading_distance)
        stubs = None
        removed = dup.copy()
        for i, p in enumerate(paras):
            if p.cls != GOOD or p.cf_class not in ("short", "neargood"):
                continue
            if before[i] == "good":
                removed[i] = removed[i] or classes[i] != "good"
            else:
                if stubs is None:
                    stubs = remove_stubs(dup, eligible, lengths, max_stub)
                removed[i] = removed[i] or bool(stubs[i])
        return removed

    def apply(self) -> int:
        """Mark removed paragraphs bad; returns how many were removed."""
        if self.removed is None or not self.removed.any():
            return 0
        n = 0
        for i, p in enumerate(self.doc.paragraphs):
            if self.removed[i] and p.cls == GOOD:
                p.cls = BAD
                p.reason = REASON_DUPLICATE if self.dup[i] else REASON_STUB
                n += 1
        return n


# ---------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------

@dataclass
class _BatchNgrams:
    """N-grams of a batch of units, over the tokens that take part in n-grams."""

    hashes: np.ndarray        # hash of each valid n-gram
    start: np.ndarray         # its first token (index into the batch's n-gram tokens)
    end: np.ndarray           # one past its last token (start + n, or the end of a short paragraph)
    whole: np.ndarray         # True for a whole-paragraph entry
    unit: np.ndarray          # its unit (index in the batch)
    unit_tok_start: np.ndarray   # per unit: first n-gram token, len U+1
    unit_para_start: np.ndarray  # per unit: first paragraph, len U+1
    para_tok_start: np.ndarray   # per paragraph: first n-gram token, len P+1
    para_unit: np.ndarray        # per paragraph: its unit
    para_eligible: np.ndarray    # per paragraph: takes part (has a token list)
    para_ntok: np.ndarray        # per paragraph: all its tokens (stub lengths)
    n_tokens: int             # all tokens of the batch (for speed reports)


class Hashers:
    """One :class:`TokenHasher` per stoplist language (stop words differ by language)."""

    def __init__(self, opts: OnionOptions) -> None:
        self.opts = opts
        self._by_lang: dict[str | None, TokenHasher] = {}
        self._fixed: frozenset[str] | None = None
        if opts.skip_stopwords and opts.stoplist:
            self._fixed = _load_stopwords(opts.stoplist)

    def get(self, lang: str | None) -> TokenHasher:
        key = None if (self._fixed is not None or not self.opts.skip_stopwords) else lang
        h = self._by_lang.get(key)
        if h is None:
            stop = None
            if self.opts.skip_stopwords:
                stop = self._fixed if self._fixed is not None else _stopwords_for(lang)
            h = self._by_lang[key] = TokenHasher(self.opts.skip_punct, stop)
        return h


def _load_stopwords(spec: str) -> frozenset[str]:
    from ..language.stoplists import load_stoplist_file, stoplist

    if os.path.isfile(spec):
        return load_stoplist_file(spec)
    if os.sep in spec or "/" in spec or spec.lower().endswith(".txt") or os.path.exists(spec):
        # a path, not a language: say what is wrong with the file, not "unknown language"
        what = "is not a file" if os.path.exists(spec) else "does not exist"
        raise OptionError(f"the stoplist file {spec!r} {what}")
    return stoplist(spec)


def _stopwords_for(lang: str | None) -> frozenset[str]:
    from ..language.stoplists import stoplist

    if not lang:
        return frozenset()
    try:
        return stoplist(lang)
    except (OptionError, LookupError, OSError):
        return frozenset()


class OnionEngine:
    """Algorithm 3.1 in block-level form over batches of :class:`Unit`."""

    def __init__(self, opts: OnionOptions, out_set: HashSet | FlaggedHashSet | None = None) -> None:
        self.opts = opts.validate()
        self.hashers = Hashers(opts)
        self.out = out_set if out_set is not None else HashSet(bits=opts.hash_bits)
        self.tokens_seen = 0
        self._pow = np.empty(0, dtype=_U64)
        self._ipow = np.empty(0, dtype=_U64)

    # -- shared with pass 1 ------------------------------------------------
    def batch_ngrams(self, units: Sequence[Unit]) -> _BatchNgrams:
        n = self.opts.n
        flat: list[str] = []
        para_len: list[int] = []
        eligible: list[bool] = []
        unit_paras = np.empty(len(units), dtype=np.int64)
        langs = set()
        for ui, u in enumerate(units):
            unit_paras[ui] = len(u.tokens)
            langs.add(u.lang)
            for toks in u.tokens:
                eligible.append(toks is not None)
                if toks:
                    flat.extend(toks)
                    para_len.append(len(toks))
                else:
                    para_len.append(0)
        lens = np.array(para_len, dtype=np.int64)
        if len(langs) <= 1 or not self.opts.skip_stopwords or self.hashers._fixed is not None:
            codes = self.hashers.get(next(iter(langs), None)).codes(flat)
        else:  # stop words differ by document language
            parts = []
            pos = 0
            for u in units:
                cnt = sum(len(t) for t in u.tokens if t)
                parts.append(self.hashers.get(u.lang).codes(flat[pos:pos + cnt]))
                pos += cnt
            codes = np.concatenate(parts) if parts else np.empty(0, dtype=_U64)
        n_tokens = len(flat)
        P = lens.size
        codes_all = codes
        if self.opts.skip_punct or self.opts.skip_stopwords:
            keep = (codes & _U64(1)) == 0
            codes = codes[keep]
            tok_para = np.repeat(np.arange(P), lens)[keep]
            flens = np.bincount(tok_para, minlength=P).astype(np.int64)
        else:
            flens = lens
        para_tok_start = np.zeros(P + 1, dtype=np.int64)
        np.cumsum(flens, out=para_tok_start[1:])
        unit_para_start = np.zeros(len(units) + 1, dtype=np.int64)
        np.cumsum(unit_paras, out=unit_para_start[1:])
        unit_tok_start = para_tok_start[unit_para_start]
        g = ngram_hashes(codes, n, self.opts.hash_bits)
        if g.size:
            unit_len = np.diff(unit_tok_start)
            tok_unit = np.repeat(np.arange(len(units)), unit_len)
            valid = tok_unit[:g.size] == tok_unit[n - 1:]
            start = np.nonzero(valid)[0]
            hashes = g[start]
            unit = tok_unit[start]
        else:
            start = np.empty(0, dtype=np.int64)
            hashes = g
            unit = np.empty(0, dtype=np.int64)
        end = start + n
        whole = np.zeros(start.size, dtype=bool)
        if self.opts.whole_paragraphs:
            # every paragraph is also matched as a whole (one "n-gram" spanning
            # it): a repeated heading or one-line furniture shorter than n would
            # otherwise be invisible unless its neighbours repeat too, and exact
            # repeats inside a document are found without the natural n-gram
            # repetition of a page's own phrases (dates, bylines, forms)
            # (hashed over all its tokens: without stop words and punctuation
            # "2 October 2020" and "2020" would be the same paragraph)
            paras = np.nonzero(flens > 0)[0]
            if paras.size:
                s0 = para_tok_start[paras]
                k = flens[paras]
                if codes_all is codes:
                    sh = self._whole_hashes(codes, s0, k)
                else:
                    all_start = np.zeros(P + 1, dtype=np.int64)
                    np.cumsum(lens, out=all_start[1:])
                    sh = self._whole_hashes(codes_all, all_start[paras], lens[paras])
                pu = np.repeat(np.arange(len(units)), unit_paras)[paras]
                # merge the two start-sorted lists (whole entry after the n-grams
                # starting at the same token)
                at = np.searchsorted(start, s0, side="right") + np.arange(s0.size)
                is_new = np.zeros(start.size + s0.size, dtype=bool)
                is_new[at] = True
                hashes = _merge(hashes, sh, is_new)
                unit = _merge(unit, pu, is_new)
                end = _merge(end, s0 + k, is_new)
                whole = is_new
                start = _merge(start, s0, is_new)
        para_unit = np.repeat(np.arange(len(units)), unit_paras)
        return _BatchNgrams(hashes, start, end, whole, unit, unit_tok_start, unit_para_start, para_tok_start,
                            para_unit, np.array(eligible, dtype=bool), lens, n_tokens)

    def _whole_hashes(self, codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Hash of each whole token run ``codes[s:s+k]``: sum of x_i R^(i-s) via prefix sums."""
        F = codes.size
        if self._pow.size < F:
            size = max(F, 2 * self._pow.size)
            self._pow = np.full(size, _POLY, dtype=_U64)
            self._pow[0] = 1
            np.cumprod(self._pow, out=self._pow)
            self._ipow = np.full(size, _POLY_INV, dtype=_U64)
            self._ipow[0] = 1
            np.cumprod(self._ipow, out=self._ipow)
        pre = np.zeros(F + 1, dtype=_U64)
        np.cumsum((codes >> _U64(1)) * self._pow[:F], out=pre[1:])
        g = (pre[starts + lengths] - pre[starts]) * self._ipow[starts]
        g ^= lengths.astype(_U64) * _WHOLE_TAG
        g ^= g >> _U64(30)
        g *= _M1
        g ^= g >> _U64(27)
        g *= _M2
        g ^= g >> _U64(31)
        if self.opts.hash_bits < 64:
            g &= _U64(trim_mask(self.opts.hash_bits))
        return g

    # -- pass 2 / streaming ----------------------------------------------
    def process(self, units: Sequence[Unit]) -> None:
        """Decide every unit of the batch, in order; sets ``dup``, ``removed``, ``share``."""
        opts = self.opts
        b = self.batch_ngrams(units)
        self.tokens_seen += b.n_tokens
        V = b.hashes.size
        U = len(units)
        # per-unit results are views of batch-wide arrays (no allocation per unit)
        ps = b.unit_para_start.tolist()
        zeros_d = np.zeros(ps[-1], dtype=bool)
        zeros_r = np.zeros(ps[-1], dtype=bool)
        zeros_f = np.zeros(ps[-1], dtype=np.float64)
        for i, u in enumerate(units):
            u.dup = zeros_d[ps[i]:ps[i + 1]]
            u.removed = zeros_r[ps[i]:ps[i + 1]]
            u.share = zeros_f[ps[i]:ps[i + 1]]
        if V == 0:
            return
        in_out, handle = self.out.query(b.hashes)
        keep = self.out.relevant(handle)
        if keep is not None:
            # two-pass: an n-gram outside G2+ occurs once in the whole input, so
            # it can neither match nor be matched; only the few others matter
            b = replace(b, hashes=b.hashes[keep], start=b.start[keep], end=b.end[keep], whole=b.whole[keep],
                        unit=b.unit[keep])
            in_out = in_out[keep]
            handle = self.out.restrict(handle, keep)
            V = b.hashes.size
            if V == 0:
                return
        # repeats inside the batch: sort the n-grams, group equal hashes; the
        # previous occurrence of each n-gram tells whether it repeats an earlier
        # n-gram of the same unit or of an earlier unit
        order = np.argsort(b.hashes)
        s = b.hashes[order]
        first = np.empty(V, dtype=bool)
        first[0] = True
        np.not_equal(s[1:], s[:-1], out=first[1:])
        gid_sorted = np.cumsum(first) - 1
        # the sort is not stable: put the members of repeated groups (few) back in
        # input order inside their group
        last = np.empty(V, dtype=bool)
        last[-1] = True
        last[:-1] = first[1:]
        rep = np.nonzero(~(first & last))[0]
        if rep.size:
            sub = order[rep]
            order[rep] = sub[np.lexsort((sub, gid_sorted[rep]))]
        grp = np.empty(V, dtype=np.int64)
        grp[order] = gid_sorted
        prev = np.full(V, -1, dtype=np.int64)
        later = np.nonzero(~first)[0]
        prev[order[later]] = order[later - 1]
        has_prev = prev >= 0
        # an occurrence in an earlier unit exists iff the group's first one is in one
        first_idx = np.empty(V, dtype=np.int64)
        first_idx[order] = order[np.flatnonzero(first)][gid_sorted]
        cross = b.unit[first_idx] < b.unit
        same_unit = np.zeros(V, dtype=bool)
        hp = np.flatnonzero(has_prev)
        pv = prev[hp]
        same = b.unit[pv] == b.unit[hp]
        within = self.opts.within_document
        if within == "paragraphs":
            same &= b.whole[pv] & b.whole[hp]
        elif within == "none":
            same[:] = False
        same_unit[hp] = same
        cand = in_out | cross | same_unit
        unit_is_cand = np.zeros(U, dtype=bool)
        unit_is_cand[b.unit[cand]] = True
        # added_at[group]: first n-gram of the group that went to the output;
        # units without candidates are kept whole, so theirs count at once
        big = np.iinfo(np.int64).max
        added_at = np.full(int(gid_sorted[-1]) + 1, big, dtype=np.int64)
        keep_sorted = ~unit_is_cand[b.unit[order]]
        sg = gid_sorted[keep_sorted]
        sp = order[keep_sorted]
        if sg.size:
            f = np.empty(sg.size, dtype=bool)
            f[0] = True
            np.not_equal(sg[1:], sg[:-1], out=f[1:])
            added_at[sg[f]] = sp[f]
        unit_v_start = np.searchsorted(b.unit, np.arange(U + 1))
        base = in_out | same_unit
        # Decide all units at once twice: assuming every earlier occurrence in
        # the batch went to the output (optimistic) and assuming none from a
        # candidate unit did (pessimistic). Shares are monotone in the set of
        # duplicate n-grams, so where both agree the decision is exact; only
        # the units where they differ are decided one by one, in order.
        dup_opt = base | cross
        par_dup, par_share = self._paragraph_duplicates(b, dup_opt)
        undetermined = np.zeros(U, dtype=bool)
        if cross.any():
            a_of = unit_v_start[b.unit]
            dup_pes = base | (cross & (added_at[grp] < a_of))
            pes_dup, _ = self._paragraph_duplicates(b, dup_pes)
            differs = par_dup != pes_dup
            if differs.any():
                undetermined[b.para_unit[differs]] = True
        removed_flat = np.zeros(b.para_unit.size, dtype=bool)
        for ui in np.nonzero(unit_is_cand & ~undetermined)[0].tolist():
            p0, p1 = int(b.unit_para_start[ui]), int(b.unit_para_start[ui + 1])
            d = par_dup[p0:p1]
            u = units[ui]
            u.share = par_share[p0:p1]
            if d.any():
                u.dup = d
                r = (u.smooth(d, b.para_eligible[p0:p1], b.para_ntok[p0:p1], opts.max_stub_length)
                     if (opts.smoothing and not opts.document_level) else d.copy())
                r &= b.para_eligible[p0:p1]
                u.removed = r
                removed_flat[p0:p1] = r
        kept = self._kept_ngrams(b, removed_flat)
        if undetermined.any():
            # kept n-grams of the decided candidate units join the output first
            mask_sorted = kept[order] & unit_is_cand[b.unit[order]] & ~undetermined[b.unit[order]]
            sg = gid_sorted[mask_sorted]
            sp = order[mask_sorted]
            if sg.size:
                f = np.empty(sg.size, dtype=bool)
                f[0] = True
                np.not_equal(sg[1:], sg[:-1], out=f[1:])
                added_at[sg[f]] = np.minimum(added_at[sg[f]], sp[f])
            for ui in np.nonzero(undetermined)[0].tolist():
                a, z = int(unit_v_start[ui]), int(unit_v_start[ui + 1])
                g = grp[a:z]
                dupg = base[a:z] | (cross[a:z] & (added_at[g] < a))
                removed = self._decide(units[ui], b, ui, a, z, dupg)
                if removed is not None:
                    t0 = b.unit_tok_start[ui]
                    L = int(b.unit_tok_start[ui + 1] - t0)
                    p0, p1 = b.unit_para_start[ui], b.unit_para_start[ui + 1]
                    plen = np.diff(b.para_tok_start[p0:p1 + 1])
                    rem_tok = np.repeat(removed, plen)
                    crem = np.zeros(L + 1, dtype=np.int64)
                    np.cumsum(rem_tok, out=crem[1:])
                    kept[a:z] = (crem[b.end[a:z] - t0] - crem[b.start[a:z] - t0]) == 0
                k = kept[a:z]
                gg = g[k]
                added_at[gg] = np.minimum(added_at[gg], np.arange(a, z)[k])
        # G_out += kept n-grams (Algorithm 3.1: moved from G2+ in the two-pass form)
        self.out.add_queried(b.hashes, handle, kept)

    def _paragraph_duplicates(self, b: _BatchNgrams, dupg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per paragraph of the batch: over the threshold?, and the share of its
        n-gram tokens covered by the duplicate n-grams ``dupg``."""
        opts = self.opts
        F = int(b.para_tok_start[-1])
        diff = np.bincount(b.start[dupg], minlength=F + 1)
        diff[:F + 1] -= np.bincount(b.end[dupg], minlength=F + 1)[:F + 1]
        cs = np.zeros(F + 1, dtype=np.int64)
        np.cumsum(np.cumsum(diff[:F]) > 0, out=cs[1:])
        if opts.document_level:
            cov = cs[b.unit_tok_start[1:]] - cs[b.unit_tok_start[:-1]]
            tot = np.diff(b.unit_tok_start)
            ushare = np.divide(cov, tot, out=np.zeros(cov.size), where=tot > 0)
            share = ushare[b.para_unit]
            return (ushare > opts.threshold)[b.para_unit] & b.para_eligible, share
        cov = cs[b.para_tok_start[1:]] - cs[b.para_tok_start[:-1]]
        tot = np.diff(b.para_tok_start)
        share = np.divide(cov, tot, out=np.zeros(cov.size), where=tot > 0)
        return (tot > 0) & (share > opts.threshold), share

    def _kept_ngrams(self, b: _BatchNgrams, removed_para: np.ndarray) -> np.ndarray:
        """N-grams all of whose tokens are in kept paragraphs."""
        if not removed_para.any():
            return np.ones(b.hashes.size, dtype=bool)
        rem_tok = np.repeat(removed_para, np.diff(b.para_tok_start))
        crem = np.zeros(rem_tok.size + 1, dtype=np.int64)
        np.cumsum(rem_tok, out=crem[1:])
        return (crem[b.end] - crem[b.start]) == 0

    def _decide(self, unit: Unit, b: _BatchNgrams, ui: int, a: int, z: int, dupg: np.ndarray
                ) -> np.ndarray | None:
        """Shares, duplicates and removals of one unit; returns the removed paragraphs or None."""
        opts = self.opts
        t0 = int(b.unit_tok_start[ui])
        L = int(b.unit_tok_start[ui + 1]) - t0
        if not dupg.any():
            return None
        st = b.start[a:z][dupg] - t0
        en = b.end[a:z][dupg] - t0
        diff = np.bincount(st, minlength=L + 1)[:L + 1] - np.bincount(en, minlength=L + 1)[:L + 1]
        covered = np.cumsum(diff[:L]) > 0
        cs = np.zeros(L + 1, dtype=np.int64)
        np.cumsum(covered, out=cs[1:])
        p0, p1 = int(b.unit_para_start[ui]), int(b.unit_para_start[ui + 1])
        pb = b.para_tok_start[p0:p1 + 1] - t0
        cov = cs[pb[1:]] - cs[pb[:-1]]
        tot = np.diff(pb)
        share = np.divide(cov, tot, out=np.zeros(cov.size, dtype=np.float64), where=tot > 0)
        unit.share = share
        eligible = b.para_eligible[p0:p1]
        if opts.document_level:
            doc_share = cs[L] / L if L else 0.0
            unit.share = np.full(share.size, doc_share)
            if doc_share <= opts.threshold:
                return None
            unit.dup = eligible.copy()
            unit.removed = eligible.copy()
            return unit.removed
        dup = (tot > 0) & (share > opts.threshold)
        if not dup.any():
            return None
        unit.dup = dup
        unit.removed = (unit.smooth(dup, eligible, b.para_ntok[p0:p1], opts.max_stub_length)
                        if opts.smoothing else dup.copy())
        unit.removed &= eligible
        return unit.removed


# ---------------------------------------------------------------------------
# pass 1: n-grams occurring at least twice, with bounded memory
# ---------------------------------------------------------------------------

class DuplicateNgramFinder:
    """Pass 1: the set G2+ of n-gram hashes that occur at least twice in the input.

    Hashes are collected in memory up to the budget; when it is exceeded the
    buffer is sorted, hashes already seen twice in it go to "known duplicates"
    and the rest are appended to one of 256 partition files chosen by the top
    8 bits. At the end each partition (about 1/256 of all n-grams) is sorted on
    its own and its repeated hashes are added. Memory stays within the budget
    (plus one partition), disk use is 8 bytes per n-gram.
    """

    PARTITION_BITS = 8

    def __init__(self, opts: OnionOptions, memory_budget: int = DEFAULT_MEMORY,
                 tmpdir: str | None = None) -> None:
        if memory_budget < (1 << 20):
            raise OptionError("memory budget must be at least 1 MiB")
        self.opts = opts.validate()
        self.engine = OnionEngine(opts, out_set=HashSet(bits=opts.hash_bits))
        # sorting needs the buffer plus a copy and a few masks
        self.capacity = max(1 << 16, memory_budget // 32)
        self.tmpdir_parent = tmpdir
        self._parts: list[np.ndarray] = []
        self._held = 0
        self._dir: str | None = None
        self.tokens_seen = 0
        self.ngrams_seen = 0
        self.spills = 0

    def feed(self, units: Sequence[Unit]) -> None:
        b = self.engine.batch_ngrams(units)
        self.tokens_seen += b.n_tokens
        self.ngrams_seen += b.hashes.size
        if b.hashes.size:
            self._parts.append(b.hashes)
            self._held += b.hashes.size
            if self._held >= self.capacity:
                self._spill()

    def _sorted_buffer(self) -> np.ndarray:
        buf = np.concatenate(self._parts) if self._parts else np.empty(0, dtype=_U64)
        self._parts = []
        self._held = 0
        buf.sort()
        return buf

    @staticmethod
    def _split_repeats(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sorted array -> (distinct values occurring >= 2 times, values occurring once)."""
        if s.size == 0:
            return s, s
        new = np.empty(s.size, dtype=bool)
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
        starts = np.nonzero(new)[0]
        counts = np.diff(np.append(starts, s.size))
        values = s[starts]
        return values[counts >= 2], values[counts == 1]

    def _partition_bounds(self, s: np.ndarray) -> np.ndarray:
        shift = self.opts.hash_bits - self.PARTITION_BITS
        edges = (np.arange(1, 1 << self.PARTITION_BITS, dtype=_U64) << _U64(shift))
        return np.concatenate([[0], np.searchsorted(s, edges), [s.size]])

    def _spill(self) -> None:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="corpustool-onion-", dir=self.tmpdir_parent)
        dups, singles = self._split_repeats(self._sorted_buffer())
        for kind, arr in (("s", singles), ("d", dups)):
            bounds = self._partition_bounds(arr)
            for p in range(1 << self.PARTITION_BITS):
                lo, hi = bounds[p], bounds[p + 1]
                if hi > lo:
                    with open(os.path.join(self._dir, f"{kind}{p:03d}"), "ab") as fh:
                        arr[lo:hi].tofile(fh)
        self.spills += 1

    def finish(self) -> np.ndarray:
        """The sorted distinct hashes of G2+."""
        if self._dir is None:
            dups, _ = self._split_repeats(self._sorted_buffer())
            return dups
        self._spill()
        out = []
        try:
            for p in range(1 << self.PARTITION_BITS):
                sp = os.path.join(self._dir, f"s{p:03d}")
                dp = os.path.join(self._dir, f"d{p:03d}")
                singles = np.fromfile(sp, dtype=_U64) if os.path.exists(sp) else np.empty(0, dtype=_U64)
                known = np.fromfile(dp, dtype=_U64) if os.path.exists(dp) else np.empty(0, dtype=_U64)
                singles.sort()
                rep, _ = self._split_repeats(singles)
                del singles
                out.append(unique_sorted(np.concatenate([rep, known])))
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        return np.concatenate(out) if out else np.empty(0, dtype=_U64)


# ---------------------------------------------------------------------------
# duplicate n-gram files (-f of `corpustool onion`, written by `corpustool dupngrams`)
# ---------------------------------------------------------------------------

# the file's header is read and written by onion_vertical's numpy-free functions (one format)
from .onion_vertical import read_dup_header, write_dup_header  # noqa: E402


def write_dup_ngrams(path: str | os.PathLike, hashes: np.ndarray, opts: OnionOptions) -> None:
    with open(path, "wb") as fh:
        write_dup_header(fh, opts.hash_params())
        np.asarray(hashes, dtype="<u8").tofile(fh)


def read_dup_ngrams(path: str | os.PathLike, opts: OnionOptions | None = None) -> tuple[np.ndarray, dict]:
    """Hashes and parameters of a duplicate n-gram file; refuses a file made with other options."""
    try:
        with open(path, "rb") as fh:
            params = read_dup_header(fh, str(path))
            hashes = np.fromfile(fh, dtype="<u8").astype(_U64, copy=False)
    except OSError as exc:
        raise OptionError(f"cannot read {path}: {exc.strerror}") from None
    if opts is not None:
        want = opts.hash_params()
        diff = {k: (params.get(k), v) for k, v in want.items() if params.get(k) != v}
        if diff:
            from .onion_vertical import mismatch_message
            raise OptionError(mismatch_message(path, diff))
    return hashes, params


# ---------------------------------------------------------------------------
# drivers
# ---------------------------------------------------------------------------

def batches(items: Iterable[Any], tokens_of: Callable[[Any], int],
            batch_tokens: int = DEFAULT_BATCH_TOKENS, max_items: int = 20_000) -> Iterator[list[Any]]:
    """Group a stream into batches of about ``batch_tokens`` tokens."""
    batch: list[Any] = []
    size = 0
    for item in items:
        batch.append(item)
        size += tokens_of(item)
        if size >= batch_tokens or len(batch) >= max_items:
            yield batch
            batch = []
            size = 0
    if batch:
        yield batch


def _unit_tokens(u: Unit) -> int:
    return sum(len(t) for t in u.tokens if t)


def find_duplicate_ngrams(units: Iterable[Unit], opts: OnionOptions, memory_budget: int = DEFAULT_MEMORY,
                          tmpdir: str | None = None, batch_tokens: int = DEFAULT_BATCH_TOKENS) -> np.ndarray:
    """Pass 1 over a stream of units: sorted hashes of the n-grams occurring at least twice."""
    finder = DuplicateNgramFinder(opts, memory_budget, tmpdir)
    for batch in batches(units, _unit_tokens, batch_tokens):
        finder.feed(batch)
    return finder.finish()


def duplicate_share(units: Iterable[Unit], engine: OnionEngine, g2: FlaggedHashSet,
                    batch_tokens: int = DEFAULT_BATCH_TOKENS) -> np.ndarray:
    """Per unit, the share of its n-grams that are in G2+ (for reordering, Sect. 3.5)."""
    shares: list[np.ndarray] = []
    for batch in batches(units, _unit_tokens, batch_tokens):
        b = engine.batch_ngrams(batch)
        total = np.bincount(b.unit, minlength=len(batch))
        dup = np.bincount(b.unit, weights=g2.in_g2(b.hashes), minlength=len(batch))
        shares.append(np.divide(dup, total, out=np.zeros(len(batch)), where=total > 0))
    return np.concatenate(shares) if shares else np.empty(0)


REORDER_EDGES = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)


def deduplicate_two_pass(open_units: Callable[[], Iterable[Unit]], opts: OnionOptions,
                         dup_ngrams: np.ndarray | None = None, reorder: bool = False,
                         memory_budget: int = DEFAULT_MEMORY, tmpdir: str | None = None,
                         batch_tokens: int = DEFAULT_BATCH_TOKENS,
                         on_pass: Callable[[str, float, int], None] | None = None
                         ) -> Iterator[Unit]:
    """Two-pass Algorithm 3.1 over an input that can be read several times.

    ``open_units()`` must yield the same units in the same order each call.
    Yields the units of the last reading, decided, in input order. With
    ``reorder``, units are decided in sweeps of increasing share of duplicate
    n-grams (bucketed by :data:`REORDER_EDGES`, input order inside a bucket),
    each sweep a reading of the input; decisions are kept per unit index.
    """
    import time

    t0 = time.process_time()
    finder = None
    if dup_ngrams is None:
        finder = DuplicateNgramFinder(opts, memory_budget, tmpdir)
        for batch in batches(open_units(), _unit_tokens, batch_tokens):
            finder.feed(batch)
        dup_ngrams = finder.finish()
        if on_pass:
            on_pass("pass1", time.process_time() - t0, finder.tokens_seen)
    g2 = FlaggedHashSet(dup_ngrams, opts.hash_bits)
    engine = OnionEngine(opts, out_set=g2)
    if finder is not None:
        engine.hashers = finder.engine.hashers   # the token hash cache is warm
    if not reorder:
        t1 = time.process_time()
        for batch in batches(open_units(), _unit_tokens, batch_tokens):
            engine.process(batch)
            yield from batch
        if on_pass:
            on_pass("pass2", time.process_time() - t1, engine.tokens_seen)
        return
    shares = duplicate_share(open_units(), engine, g2, batch_tokens)
    bucket = np.searchsorted(np.array(REORDER_EDGES[1:-1]), shares, side="right")
    decisions: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    t1 = time.process_time()
    for k in range(len(REORDER_EDGES) - 1):
        if not np.any(bucket == k):
            continue
        idx_units = ((i, u) for i, u in enumerate(open_units()) if bucket[i] == k)
        for batch in batches(idx_units, lambda iu: _unit_tokens(iu[1]), batch_tokens):
            engine.process([u for _, u in batch])
            for i, u in batch:
                if u.removed is not None and u.removed.any():
                    decisions[i] = (u.dup, u.removed, u.share)
    if on_pass:
        on_pass("pass2", time.process_time() - t1, engine.tokens_seen)
    for i, u in enumerate(open_units()):
        P = u.n_paragraphs
        if i in decisions:
            u.dup, u.removed, u.share = decisions[i]
        else:
            u.dup = np.zeros(P, dtype=bool)
            u.removed = np.zeros(P, dtype=bool)
            u.share = np.zeros(P)
        yield u


def deduplicate_streaming(units: Iterable[Unit], opts: OnionOptions,
                          batch_tokens: int = DEFAULT_BATCH_TOKENS) -> Iterator[Unit]:
    """Single-pass Algorithm 3.1: G_out holds every n-gram of the kept output."""
    engine = OnionEngine(opts)
    for batch in batches(units, _unit_tokens, batch_tokens):
        engine.process(batch)
        yield from batch


# ---------------------------------------------------------------------------
# the pipeline stage
# ---------------------------------------------------------------------------

class _KnownOutput:
    """G_out as one document sees it (:meth:`Onion.decide_alone`): hash -> kept by an earlier document."""

    def __init__(self, in_out: dict[int, bool], two_pass: "FlaggedHashSet | None" = None) -> None:
        self.in_out = in_out
        self.two_pass = two_pass        # G2+ of the two-pass form: only its n-grams take part

    def __len__(self) -> int:
        return 0

    def query(self, hashes: np.ndarray) -> tuple[np.ndarray, tuple]:
        get = self.in_out.get
        found = np.fromiter((get(int(h), False) for h in hashes), dtype=bool, count=hashes.size)
        return found, (found, None if self.two_pass is None else self.two_pass.in_g2(hashes))

    def relevant(self, handle: tuple) -> np.ndarray | None:
        return handle[1]

    def restrict(self, handle: tuple, keep: np.ndarray) -> tuple:
        return handle[0][keep], None

    def add_queried(self, hashes: np.ndarray, handle: np.ndarray, select: np.ndarray) -> int:
        return 0


class Onion(StreamStage):
    """Block-level de-duplication of documents (the ``dedup-para`` stage).

    Streaming single pass by default; with ``dup_ngrams`` (a file written by
    ``corpustool dupngrams`` or an array of hashes), pass 2 of the two-pass
    form. Removed paragraphs get ``cls = "bad"`` and reason ``duplicate``
    (over the threshold) or ``duplicate-context`` (a stub removed by
    smoothing); documents left without a good paragraph are dropped with
    reason ``duplicate``.
    """

    name = "dedup-para"

    def __init__(self, options: OnionOptions | None = None, *,
                 dup_ngrams: str | os.PathLike | np.ndarray | None = None,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, **fields: Any) -> None:
        """``options``, or the defaults with ``fields`` of :class:`OnionOptions` changed
        (``Onion(threshold=0.3)``)."""
        super().__init__()
        if options is not None and fields:
            raise OptionError("give Onion either an OnionOptions or its fields, not both")
        try:
            self.opts = (options or OnionOptions(**fields)).validate()
        except TypeError as exc:        # no such field
            raise OptionError(f"Onion: {exc}") from None
        if batch_tokens < 1:
            raise OptionError("batch size must be positive")
        self.batch_tokens = batch_tokens
        out_set = None
        if dup_ngrams is not None:
            hashes = dup_ngrams if isinstance(dup_ngrams, np.ndarray) else read_dup_ngrams(dup_ngrams, self.opts)[0]
            out_set = FlaggedHashSet(hashes, self.opts.hash_bits)
        self.engine = OnionEngine(self.opts, out_set=out_set)

    # -- checkpoints: the hashes (or two-pass flags) gained since the last one, and the token count ------
    checkpoint_format = True

    def checkpoint_start(self) -> None:
        self.engine.out.start_journal()

    def checkpoint_delta(self):
        return {"tokens_seen": int(self.engine.tokens_seen)}, {"out": self.engine.out.take_journal()}

    def checkpoint_restore(self, numbers, deltas) -> None:
        out = self.engine.out
        parts = [d["out"] for d in deltas]
        if isinstance(out, FlaggedHashSet):
            out.restore(np.concatenate(parts) if parts else np.empty(0, dtype=np.int64))
        else:
            out.restore(np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64))
        self.engine.tokens_seen = int(numbers.get("tokens_seen", 0))

    def _units(self, docs: Iterable[Document]) -> Iterator[DocumentUnit]:
        for doc in docs:
            self.stats.count_in(doc)
            yield DocumentUnit(doc, self.opts.max_heading_distance)

    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        stats = self.stats
        for batch in batches(self._units(docs), _unit_tokens, self.batch_tokens):
            self.engine.process(batch)
            for u in batch:
                if self._finish(u):
                    yield u.doc
        stats.extra["paragraphs_removed"] += 0      # shown even when nothing was removed
        stats.extra["tokens"] = self.engine.tokens_seen
        stats.extra["stored_hashes"] = len(self.engine.out)

    def _finish(self, u: "DocumentUnit") -> bool:
        """Apply a decided document's marks and count it; True when it is kept."""
        stats, doc = self.stats, u.doc
        had_good = any(t is not None for t in u.tokens)
        removed = u.apply()
        if removed:
            stats.extra["paragraphs_removed"] += removed
            stats.extra["paragraphs_duplicate"] += int(np.count_nonzero(u.dup))
        if had_good and not any(p.cls == GOOD for p in doc.paragraphs):
            doc.drop(REASON_DUPLICATE)
        if doc.drop_reason:
            self._dropped(doc, doc.drop_reason)
            return False
        stats.count_out(doc)
        return True

    # -- hooks for an executor that decides pass 2 elsewhere (the Spark engine, docs/spark.md) ---------
    def distributable(self) -> bool:
        """Nothing stored yet, streaming or two-pass: each document's decision depends only on which
        of its n-grams an earlier document kept, so it can be decided alone (:meth:`decide_alone`).
        (Two-pass is streaming restricted to the n-grams of G2+: the others take no part.)"""
        out = self.engine.out
        return type(out) in (HashSet, FlaggedHashSet) and len(out) == 0

    def _two_pass(self) -> FlaggedHashSet | None:
        out = self.engine.out
        return out if isinstance(out, FlaggedHashSet) else None

    def _taking_part(self, hashes: np.ndarray) -> np.ndarray:
        g2 = self._two_pass()
        return hashes if g2 is None or not hashes.size else hashes[g2.in_g2(hashes)]

    def ngram_keys(self, doc: Document) -> list[int]:
        """The distinct n-gram hashes of a document (whole-paragraph entries included) that take
        part in the decisions, as this stage's engine computes them (two-pass: those in G2+)."""
        b = OnionEngine(self.opts).batch_ngrams([DocumentUnit(doc, self.opts.max_heading_distance)])
        return [int(h) for h in np.unique(self._taking_part(b.hashes))]

    def decide_alone(self, doc: Document, kept_earlier: dict[int, bool]) -> tuple:
        """Decide one document given, for each of its n-grams, whether an earlier document kept it
        (Algorithm 3.1 for one unit: the streaming engine's batch logic equals deciding one by one).
        Returns the decision for :meth:`run_decided`: (dup, removed, share, n-gram tokens, hashes kept)."""
        unit = DocumentUnit(doc, self.opts.max_heading_distance)
        engine = OnionEngine(self.opts, out_set=_KnownOutput(kept_earlier, self._two_pass()))
        engine.process([unit])
        b = engine.batch_ngrams([unit])
        removed = unit.removed if unit.removed is not None else np.zeros(len(unit.tokens), dtype=bool)
        kept = engine._kept_ngrams(b, np.asarray(removed, dtype=bool))
        kept_hashes = np.unique(self._taking_part(b.hashes[kept])) if b.hashes.size else b.hashes
        return (unit.dup, unit.removed, unit.share, b.n_tokens, [int(h) for h in kept_hashes])

    @staticmethod
    def kept_keys(decision: tuple) -> list[int]:
        """The n-gram hashes a decided document kept (they go to G_out for later documents)."""
        return decision[4]

    def decided_elsewhere(self, stored_hashes: int) -> None:
        """Pass 2 was decided elsewhere: G_out ended with ``stored_hashes`` distinct hashes."""
        self.stored_hashes = stored_hashes

    stored_hashes: int | None = None     # set by an executor that decided the documents elsewhere

    def run_decided(self, items: Iterable[tuple[Document, tuple]]) -> Iterator[Document]:
        """:meth:`run` with the decisions made elsewhere (the Spark engine's distributed pass 2):
        items are (document, (dup, removed, share, tokens, ...)) in input order; same output and
        counters as :meth:`run`."""
        stats = self.stats
        tokens = 0
        for doc, (dup, removed_flags, share, n_tokens, *_rest) in items:
            stats.count_in(doc)
            u = DocumentUnit(doc, self.opts.max_heading_distance)
            u.dup, u.removed, u.share = dup, removed_flags, share
            tokens += n_tokens
            if self._finish(u):
                yield doc
        stats.extra["paragraphs_removed"] += 0
        stats.extra["tokens"] = tokens
        stats.extra["stored_hashes"] = self.stored_hashes or 0
