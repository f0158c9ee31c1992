"""Broder's shingling: shingles, min-wise sketches, super-shingles, Eq. 3.1.

Seed 003, Sect. 3.2.1. A document is the set S_D of its shingles (word
n-grams of the clean text: the good paragraphs, tokenised with
:func:`corpustool.text.tokenizer.tokenize`, lower-cased, tokens that start with
punctuation skipped, as in the thesis's resemblance experiments of Sect.
3.6.2). Resemblance is r(A, B) = |S_A ∩ S_B| / |S_A ∪ S_B|.

* Shingles are hashed to 64 bits: every token by a polynomial over its UTF-8
  bytes (mod 2^64, all tokens of a document in a few numpy passes; see
  :func:`token_hashes` for why not one xxhash call per token), an n-gram as
  a polynomial of its token hashes, each passed through the splitmix64
  finaliser.
* The min-wise sketch (min π_1(S), ..., min π_t(S)) uses t seeded
  permutations π_i(x) = odd_i · (x_hi | 1) mod 2^32 of the high 32 bits of
  every shingle hash, computed for a batch of documents at once: per
  permutation one numpy product over all their shingles and one
  ``np.minimum.reduceat`` over the document boundaries. 32-bit values halve memory and double SIMD width; two
  different shingles collide with probability 2^-31, which cannot move a
  resemblance estimate measurably (tested: unbiased, binomial variance).
* Super-shingles: the first k·s sketch values in k groups of s, each group
  hashed (a seeded polynomial + splitmix64, all groups at once) with its group number (group i of A may only match group i of B).
  Two documents of resemblance ρ share at least r of the k super-shingles
  with probability P(k, s, r) of Eq. 3.1.
* :func:`choose_params` derives (t, k, s, r) from a resemblance threshold:
  t so that the estimate from the full sketch decides correctly around the
  threshold, (k, s, r) so that the super-shingle filter passes pairs at the
  threshold (P >= 0.995) while letting through as few clearly different pairs
  as possible.

Default shingle length (DEFAULT_NGRAM = 5), chosen by measurement
(``scripts/bench_shingling.py --choose-n``: 411 real pages of the dev set,
84,109 cross-domain pairs, vs. copies with 3 % / 10 % of words substituted):

    n    unrelated max r   p99.9 r   3 % edit: mean r   10 % edit
    2    0.060             0.0255    0.891              0.681
    3    0.011             0.0033    0.844              0.578
    4    0.0044            0.0012    0.800              0.492
    5    0.0032            0.0003    0.759              0.421
    7    0.0019            0.0000    0.685              0.317
    10   0                 0         0.593              0.209

Natural recurrence between unrelated pages is an order of magnitude lower at
n=5 than at n=3 (p99.9 0.0003 vs 0.0033), and barely falls further beyond
(the thesis, Table 3.3, sees cross-domain recurrence flatten at n≈5-7 without
punctuation); every extra word costs edit tolerance, since one changed word
breaks n shingles (3 % of words changed: 0.76 at n=5, 0.59 at the thesis's
n=10). (The pages were made unique at 10-grams first, so the n >= 10 rows are
0 by construction.)
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Sequence

import numpy as np
import xxhash
from sys import intern

from ..document import Document, Paragraph
from ..errors import OptionError
from ..options import default
from ..text.tokenizer import tokenize

DEFAULT_NGRAM = 5
DEFAULT_THRESHOLD = default("near_threshold")
DEFAULT_SEED = 0x5EED_B40D

_U64 = np.uint64
_NGRAM_MULT = _U64(0x9E3779B97F4A7C15)        # odd: the polynomial stays a bijection per position
_MIX1 = _U64(0xBF58476D1CE4E5B9)              # splitmix64 finaliser constants
_MIX2 = _U64(0x94D049BB133111EB)
_WORD_TOKEN = re.compile(r"(?<!\S)[^\W_]\S*")     # a token (no whitespace around) starting with a letter or digit
_SKETCH_BLOCK = 1 << 16                       # shingles per step of sketch_batch (256 KiB of uint32: L2)


# -- tokens and shingles ------------------------------------------------------

def word_tokens(paragraphs: Iterable[Paragraph]) -> list[str]:
    """Lower-cased word tokens of the given paragraphs, punctuation skipped.

    Paragraphs tokenised earlier (``Paragraph.tokens``) are not tokenised again.
    A word token starts with a letter or digit (``[^\\W_]`` is ``str.isalnum``);
    the filter and lower-casing run once over the joined tokens (per token
    in Python they cost as much as the whole sketch). The result never holds
    whitespace, which :func:`token_hashes` relies on, even for tokens given
    in the input.
    """
    # a paragraph at a time, each word interned: a huge page's word list holds one string per
    # distinct word, not one per token and a lower-cased copy of the whole text (the same words:
    # paragraphs were joined with a space, and lower() of a space-separated part is the same)
    out: list[str] = []
    extend, findall = out.extend, _WORD_TOKEN.findall
    for p in paragraphs:
        extend(map(intern, findall(" ".join(p.tokens if p.tokens is not None else tokenize(p.text)[0]).lower())))
    return out


def document_tokens(doc: Document, keep: bool = False) -> list[str]:
    """Word tokens of a document's clean text (its good paragraphs).

    With ``keep`` the tokenizer's output is stored in the paragraphs
    (``tokens``, ``glue``), so that later stages (paragraph de-duplication,
    the tokenize stage) do not tokenise the text again.
    """
    paras = doc.good_paragraphs()
    if keep:
        for p in paras:
            if p.tokens is None:
                p.tokens, p.glue = tokenize(p.text)
    return word_tokens(paras)


# Token hashes: a polynomial over each token's UTF-8 bytes, mod 2^64, evaluated for
# all tokens of a document at once. With Q[i] = Σ_{j<i} b_j M^-j (a cumulative
# sum) the token spanning bytes [s, e) hashes to M^(e-1) (Q[e] - Q[s]) =
# Σ b_j M^(e-1-j). Per-token xxhash calls cost ~0.5 µs each from Python, as much
# as the whole sketch (measured: 45 % of the run time); this costs a few
# numpy passes over the text. Polynomial hashes mod 2^64 only collide
# systematically on constructed strings thousands of bytes long (Thue-Morse);
# tokens longer than _LONG_TOKEN bytes are hashed with xxhash instead.
_BYTE_MULT = 0xC2B2AE3D27D4EB4F                       # odd (XXH64's PRIME64_2), so invertible mod 2^64
_BYTE_MULT_INV = pow(_BYTE_MULT, -1, 1 << 64)
_LONG_TOKEN = 256
_CHUNK_BYTES = 1 << 20
_POW = np.ones(1, dtype=_U64)        # _POW[i] = M^i, _IPOW[i] = M^-i (mod 2^64), grown on demand
_IPOW = np.ones(1, dtype=_U64)


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    global _POW, _IPOW
    if _POW.size < n:
        size = max(n, 2 * _POW.size, 4096)
        _POW = _cumpow(_BYTE_MULT, size)
        _IPOW = _cumpow(_BYTE_MULT_INV, size)
    return _POW, _IPOW


def _cumpow(base: int, size: int) -> np.ndarray:
    """[1, base, base^2, ...] mod 2^64 (numpy integer products wrap)."""
    out = np.empty(size, dtype=_U64)
    out[0] = 1
    out[1:] = np.cumprod(np.full(size - 1, base, dtype=_U64), dtype=_U64)
    return out


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, in place: spreads every input bit over the whole word."""
    x ^= x >> _U64(30)
    x *= _MIX1
    x ^= x >> _U64(27)
    x *= _MIX2
    x ^= x >> _U64(31)
    return x


def token_hashes(tokens: Sequence[str]) -> np.ndarray:
    """64-bit hashes of tokens (which contain no spaces), all computed at once."""
    if not tokens:
        return np.empty(0, dtype=_U64)
    data = " ".join(tokens).encode("utf-8", "surrogatepass")
    if len(data) > _CHUNK_BYTES and len(tokens) > 1:
        half = len(tokens) // 2
        return np.concatenate((token_hashes(tokens[:half]), token_hashes(tokens[half:])))
    b = np.frombuffer(data, dtype=np.uint8)
    pow_, ipow = _powers(b.size + 1)
    seps = np.flatnonzero(b == 32)
    starts = np.concatenate(([0], seps + 1))
    ends = np.append(seps, b.size)
    # (numpy's uint64 array arithmetic wraps mod 2^64 silently, as wanted)
    q = np.empty(b.size + 1, dtype=_U64)
    q[0] = 0
    np.cumsum(b * ipow[:b.size], out=q[1:])
    h = (q[ends] - q[starts]) * pow_[ends - 1]
    h += (ends - starts).astype(_U64) * _MIX2          # the length: "\x00a" != "a"
    h = _mix64(h)
    long_tokens = np.flatnonzero(ends - starts > _LONG_TOKEN)
    for i in long_tokens.tolist():
        h[i] = xxhash.xxh3_64_intdigest(tokens[i].encode("utf-8", "surrogatepass"))
    return h


def shingle_hashes(tokens: Sequence[str], n: int = DEFAULT_NGRAM) -> np.ndarray:
    """64-bit hashes of all word n-grams of ``tokens`` (with repeats, in text order).

    A text shorter than n words is one shingle (so short documents can still
    match their copies); no words, no shingles.
    """
    if n < 1:
        raise OptionError(f"shingle length must be at least 1, not {n}")
    m = len(tokens)
    if m == 0:
        return np.empty(0, dtype=_U64)
    h = token_hashes(tokens)
    if m < n:
        n = m
    count = m - n + 1
    acc = h[:count].copy()
    for j in range(1, n):          # Σ h_j M^(n-1-j) mod 2^64, for all positions at once
        acc *= _NGRAM_MULT
        acc += h[j:j + count]
    acc += _U64(n)                  # the length is part of the hash
    return _mix64(acc)


def shingle_hashes_batch(token_lists: Sequence[Sequence[str]], n: int = DEFAULT_NGRAM
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The shingle hashes of many documents at once: (hashes, offsets).

    Document i's shingles are ``hashes[offsets[i]:offsets[i + 1]]``, equal to
    ``shingle_hashes(token_lists[i], n)``. The tokens of all documents are
    hashed in one :func:`token_hashes` call and the n-gram polynomial runs
    over the concatenation; positions whose n-gram would cross a document
    boundary are then left out. One call per batch instead of a dozen numpy
    calls per document (that per-call overhead was a third of the run time).
    """
    if n < 1:
        raise OptionError(f"shingle length must be at least 1, not {n}")
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    counts = np.where(lengths >= n, lengths - n + 1, np.minimum(lengths, 1))   # shorter than n: one shingle
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    out = np.empty(total, dtype=_U64)
    if total == 0:
        return out, offsets
    flat: list[str] = []
    for t in token_lists:
        flat.extend(t)
    h = token_hashes(flat)
    count = h.size - n + 1
    if count > 0:
        acc = h[:count].copy()
        for j in range(1, n):       # as in shingle_hashes, over all documents at once
            acc *= _NGRAM_MULT
            acc += h[j:j + count]
        acc += _U64(n)
        _mix64(acc)
        full = lengths >= n
        token_start = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        # output slot -> n-gram position: the document's first token + rank within the document
        fc = counts[full]
        if fc.size:
            slot_doc_start = np.repeat(offsets[:-1][full], fc)
            slot_tok_start = np.repeat(token_start[full], fc)
            slots = np.arange(int(fc.sum()), dtype=np.int64)
            # slots of full documents are contiguous per document but not overall (short ones interleave)
            dest = np.repeat(offsets[:-1][full] - np.concatenate(([0], np.cumsum(fc)[:-1])), fc) + slots
            out[dest] = acc[slot_tok_start + (dest - slot_doc_start)]
    for i in np.flatnonzero((lengths > 0) & (lengths < n)).tolist():
        out[offsets[i]] = shingle_hashes(token_lists[i], n)[0]
    return out, offsets


def resemblance(a: Iterable[int], b: Iterable[int]) -> float:
    """Exact resemblance |A ∩ B| / |A ∪ B| of two shingle collections (seed 003, Sect. 3.2.1)."""
    sa, sb = set(a.tolist() if isinstance(a, np.ndarray) else a), set(b.tolist() if isinstance(b, np.ndarray) else b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


# -- sketches and super-shingles ------------------------------------------------

class Sketcher:
    """t seeded min-wise permutations and the super-shingles built on them."""

    def __init__(self, t: int, seed: int = DEFAULT_SEED) -> None:
        if t < 1:
            raise OptionError(f"sketch size t must be positive, not {t}")
        self.t = t
        self.seed = seed
        rng = np.random.default_rng(seed)
        self._mult = rng.integers(0, 1 << 31, size=t, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
        group_seed = int(rng.integers(0, 1 << 62))
        self._group_seeds = np.empty(0, dtype=_U64)
        self._group_seed = group_seed
        self._buf = np.empty(0, dtype=np.uint32)

    def sketch(self, shingles: np.ndarray) -> np.ndarray:
        """The min-wise sketch (t uint32 values) of a set of shingle hashes; no shingles, empty sketch."""
        if shingles.size == 0:
            return np.empty(0, dtype=np.uint32)
        return self.sketch_batch(shingles, np.array([0, shingles.size], dtype=np.int64))[0]

    def sketch_batch(self, shingles: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Sketches of many documents: row i from ``shingles[offsets[i]:offsets[i+1]]``.

        A row of a document without shingles is all 0xFFFFFFFF (callers skip
        it). The loop runs over the t permutations, not over documents: each
        step multiplies the high 32 bits of all shingles of a block of
        documents by one odd constant (wrapping mod 2^32) and takes the
        minimum per document with ``np.minimum.reduceat``. The block (at most
        _SKETCH_BLOCK shingles) stays in the L2 cache; the (shingles × t)
        matrix of the direct formulation does not, and was 5x slower per value.
        """
        m = offsets.size - 1
        out = np.full((self.t, m), 0xFFFFFFFF, dtype=np.uint32)
        if m == 0 or shingles.size == 0:
            return out.T.copy()
        # x | 1 keeps every value odd: odd·odd is odd, so no value is a common
        # fixed point (0 would be the minimum of every permutation)
        hi = (shingles >> _U64(32)).astype(np.uint32)
        hi |= np.uint32(1)
        sizes = np.diff(offsets)
        docs = np.flatnonzero(sizes > 0)
        i = 0
        while i < docs.size:
            # a block of whole documents; a document larger than the block is a block of its own
            j = i + 1
            first = int(offsets[docs[i]])
            while j < docs.size and int(offsets[docs[j] + 1]) - first <= _SKETCH_BLOCK:
                j += 1
            block_docs = docs[i:j]
            last = int(offsets[block_docs[-1] + 1])
            if self._buf.size < _SKETCH_BLOCK:
                self._buf = np.empty(_SKETCH_BLOCK, dtype=np.uint32)
            if last - first > _SKETCH_BLOCK:          # one huge document: its shingles a block at a time
                d = int(block_docs[0])
                for a in range(first, last, _SKETCH_BLOCK):
                    x = hi[a:min(a + _SKETCH_BLOCK, last)]
                    tmp = self._buf[:x.size]
                    for p, mult in enumerate(self._mult):
                        np.multiply(x, mult, out=tmp)
                        m = tmp.min()
                        if m < out[p, d]:
                            out[p, d] = m
                i = j
                continue
            x = hi[first:last]
            starts = offsets[block_docs] - first
            tmp = self._buf[:x.size]
            lo, hi_doc = int(block_docs[0]), int(block_docs[-1]) + 1
            contiguous = hi_doc - lo == block_docs.size      # no empty document inside the block
            dest = np.empty(block_docs.size, dtype=np.uint32)
            for p, mult in enumerate(self._mult):
                np.multiply(x, mult, out=tmp)          # π_p(x) = mult_p · x mod 2^32
                if contiguous:
                    np.minimum.reduceat(tmp, starts, out=out[p, lo:hi_doc])
                else:
                    np.minimum.reduceat(tmp, starts, out=dest)
                    out[p, block_docs] = dest
            i = j
        return out.T.copy()

    def _seeds(self, k: int) -> np.ndarray:
        if self._group_seeds.size < k:
            seeds = np.arange(k, dtype=_U64) + _U64(self._group_seed)
            self._group_seeds = _mix64(seeds)
        return self._group_seeds[:k]

    def super_shingles(self, sketch: np.ndarray, k: int, s: int) -> np.ndarray:
        """k super-shingles per sketch: a 64-bit hash of group sketch[i*s:(i+1)*s] and of
        the group number i (group i of one document may only match group i of another).

        ``sketch`` is one sketch (result: k values) or a (documents × t) array
        (result: documents × k). The hash is a polynomial of the group's values
        on a per-group seed, mod 2^64, through the splitmix64 finaliser, for all
        groups of all documents at once.
        """
        t = sketch.shape[-1]
        if k * s > t:
            raise OptionError(f"k*s = {k * s} exceeds the sketch size {t}")
        rows = sketch.reshape(-1, t)[:, :k * s].reshape(-1, k, s).astype(_U64)
        acc = np.broadcast_to(self._seeds(k), rows.shape[:2]).copy()
        for j in range(s):
            acc *= _NGRAM_MULT
            acc += rows[:, :, j]
        acc += _U64(s)
        _mix64(acc)
        return acc[0] if sketch.ndim == 1 else acc


def estimate_resemblance(a: np.ndarray, b: np.ndarray) -> float:
    """Share of equal sketch values: the unbiased estimate |S̄_A ∩ S̄_B| / t of Sect. 3.2.1."""
    if a.size == 0 or b.size == 0 or a.size != b.size:
        return 0.0
    return float(np.count_nonzero(a == b)) / a.size


# -- Eq. 3.1 and the choice of parameters ---------------------------------------

def acceptance_probability(k: int, s: int, r: int, rho: float) -> float:
    """Eq. 3.1: P(k,s,r) = Σ_{i=r..k} C(k,i) ρ^{s·i} (1 − ρ^s)^{k−i}.

    The probability that two documents of resemblance ρ share at least r of
    their k super-shingles of s sketch values each.
    """
    if not (1 <= r <= k and s >= 1):
        raise OptionError(f"need 1 <= r <= k and s >= 1 (k={k}, s={s}, r={r})")
    q = float(rho) ** s
    return float(sum(math.comb(k, i) * q ** i * (1.0 - q) ** (k - i) for i in range(r, k + 1)))


def binomial_tail(t: int, need: int, p: float) -> float:
    """P(X >= need) for X ~ Binomial(t, p), summed in log space (t may be ~1000)."""
    if need <= 0:
        return 1.0
    if need > t:
        return 0.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    lp, lq = math.log(p), math.log1p(-p)
    lg = math.lgamma(t + 1)
    return float(min(1.0, sum(math.exp(lg - math.lgamma(i + 1) - math.lgamma(t - i + 1) + i * lp + (t - i) * lq)
                              for i in range(need, t + 1))))


def matches_needed(t: int, threshold: float) -> int:
    """Equal sketch values needed for an estimated resemblance >= threshold."""
    return max(1, math.ceil(threshold * t - 1e-9))


@dataclass(frozen=True)
class ShingleParams:
    """Everything that decides whether two documents are near-duplicates."""

    threshold: float
    ngram: int
    t: int          # sketch size (min-wise values per document)
    k: int          # super-shingles per document
    s: int          # sketch values per super-shingle
    r: int          # super-shingles two documents must share to become a candidate pair
    seed: int = DEFAULT_SEED

    @property
    def need(self) -> int:
        return matches_needed(self.t, self.threshold)

    def filter_probability(self, rho: float) -> float:
        """Eq. 3.1 for these parameters: the chance a pair becomes a candidate."""
        return acceptance_probability(self.k, self.s, self.r, rho)

    def verify_probability(self, rho: float) -> float:
        """The chance the full-sketch estimate of a pair of resemblance ρ reaches the threshold."""
        return binomial_tail(self.t, self.need, rho)

    def acceptance(self, rho: float) -> float:
        """Overall chance a pair of resemblance ρ is reported (filter, then verification)."""
        return self.filter_probability(rho) * self.verify_probability(rho)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _binomial_tails(k: int, q: np.ndarray) -> np.ndarray:
    """Eq. 3.1 for r = 0..k at once: row r holds Σ_{i>=r} C(k,i) q^i (1-q)^(k-i)."""
    i = np.arange(k + 1)[:, None]
    comb = np.array([math.comb(k, j) for j in range(k + 1)], dtype=float)[:, None]
    pmf = comb * q[None, :] ** i * (1.0 - q[None, :]) ** (k - i)
    return np.cumsum(pmf[::-1], axis=0)[::-1]


# Design targets of choose_params (see its docstring).
FILTER_RECALL = 0.995        # P(k,s,r) at the threshold
VERIFY_RECALL = 0.98         # per pair at threshold + RECALL_MARGIN
RECALL_MARGIN = 0.05
VERIFY_FALSE_ACCEPT = 0.005  # per pair at threshold - FP_MARGIN
FP_MARGIN = 0.10
MAX_K = 32                   # index entries per document
T_STEP, T_MIN, T_MAX = 16, 32, 1024


def choose_t(threshold: float) -> int:
    """Smallest sketch size whose estimate accepts a pair at threshold+0.05 with
    probability >= 0.98 and one at threshold-0.1 with probability <= 0.005."""
    lo, hi = threshold - FP_MARGIN, min(1.0, threshold + RECALL_MARGIN)
    for t in range(T_MIN, T_MAX + 1, T_STEP):
        need = matches_needed(t, threshold)
        if binomial_tail(t, need, hi) >= VERIFY_RECALL and (lo <= 0 or binomial_tail(t, need, lo) <= VERIFY_FALSE_ACCEPT):
            return t
    return T_MAX


@functools.lru_cache(maxsize=64)
def choose_params(threshold: float = DEFAULT_THRESHOLD, ngram: int = DEFAULT_NGRAM, t: int | None = None,
                  max_k: int = MAX_K, seed: int = DEFAULT_SEED) -> ShingleParams:
    """Parameters for a resemblance threshold.

    * t: :func:`choose_t` (unless given) — candidates are verified by the
      estimate from the full sketch, so t decides precision and recall.
    * (k, s, r) with k <= max_k and k·s <= t: among the settings whose
      filter passes a pair at the threshold with probability >= 0.995 (Eq.
      3.1), the one with the lowest mean P over resemblances in
      [0, threshold − 0.1], i.e. the fewest candidate pairs that verification
      would have to reject; ties go to fewer super-shingles.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 < threshold <= 1.0:
        raise OptionError(f"threshold must be a number in (0, 1], not {threshold!r}")
    if isinstance(ngram, bool) or not isinstance(ngram, int) or ngram < 1:
        raise OptionError(f"ngram (the shingle length) must be a positive integer, not {ngram!r}", option="ngram")
    if max_k < 1:
        raise OptionError("max_k must be positive")
    threshold = float(threshold)
    if t is None:
        t = choose_t(threshold)
    elif t < 1:
        raise OptionError(f"sketch size t must be positive, not {t}")
    top = threshold - FP_MARGIN
    grid = np.array([top * (i + 0.5) / 40 for i in range(40)] if top > 0 else [], dtype=float)
    points = np.concatenate(([threshold], grid))
    best: tuple[float, int, int, int] | None = None
    fallback: tuple[float, int, int, int] | None = None
    for s in range(1, min(t, 32) + 1):
        q = points ** s
        for k in range(1, min(max_k, t // s) + 1):
            tails = _binomial_tails(k, q)          # tails[r, j] = P(X >= r), X ~ Bin(k, q[j])
            for r in range(1, k + 1):
                p_th = float(tails[r, 0])
                if p_th < FILTER_RECALL:
                    if fallback is None or p_th > fallback[0]:
                        fallback = (p_th, k, s, r)
                    break
                load = float(tails[r, 1:].mean()) if grid.size else 0.0
                key = (round(load, 6), k, s, r)
                if best is None or key < best:
                    best = key
    if best is None:        # t too small for the target: the most permissive setting found
        assert fallback is not None
        _, k, s, r = fallback
    else:
        _, k, s, r = best
    return ShingleParams(threshold=threshold, ngram=ngram, t=t, k=k, s=s, r=r, seed=seed)
