"""Near-duplicate documents: Broder's shingling as a stream stage.

Seed 003, Sect. 3.2.1. Every document gets a min-wise sketch of t values and
k super-shingles (:mod:`corpustool.dedup.shingling`). Two documents that share
at least r super-shingles are a *candidate pair*; a candidate pair is a
near-duplicate pair when the estimate from the full sketches reaches the
threshold (``need`` of the t values equal). Two modes:

* ``stream``: each document is checked against the documents kept so far
  and kept or dropped at once (drop reason ``near-duplicate``). Memory: the
  kept documents' sketches (16 bits per value) and super-shingle index.
* ``batch``: all candidate pairs of the whole input, found the way the thesis
  describes ("Finding near-duplicate document pairs"): (feature, doc) pairs
  sorted so that documents sharing a feature are adjacent, expanded to
  (doc, doc) pairs, which are sorted and counted. Above a memory budget both
  lists are spilled to disk in sorted runs and merged. Candidates are
  verified; clusters (connected components of verified pairs, union-find)
  are reported. Which documents are kept is decided greedily in an order of
  preference: a document is dropped iff it resembles (verified pair) a
  document kept before it in that order. With ``keep="first"`` the order is
  the input order, so batch mode keeps exactly what stream mode keeps (a
  document that resembles only a *dropped* member of its cluster, A~B~C with
  r(A, C) below the threshold, is kept in both); with ``keep="longest"`` the
  longest documents come first (ties: input order). (The one exception to
  the equality: a super-shingle shared by more than MAX_GROUP_PAIRS + 1
  documents, mass copies, pairs each of them only with its predecessors
  within that distance and with the first ones of the run; see
  :func:`_group_pairs`.) Batch mode must see the
  whole input before it emits anything, so documents wait in a temporary
  file, not in memory.

Both modes work on batches of documents (BATCH_DOCS): tokens, shingles,
sketches and super-shingles of a batch are computed in a few numpy passes
(:func:`shingle_hashes_batch`, :meth:`Sketcher.sketch_batch`), the index is
searched for the whole batch at once, and only the keep/drop decisions run
in input order, document by document. A stream decision still depends only
on the documents before it.

Stored sketches keep only the low 16 bits of each value (b-bit minwise
hashing, Li & König 2010): two different minima agree by chance with
probability 2^-16, which raises an estimate by at most 1.5e-5 while halving
the memory per kept document again.
"""
from __future__ import annotations

import json
import os
import pickle
import tempfile
from array import array
from typing import IO, Any, Iterable, Iterator

import numpy as np

from ..document import Document
from ..errors import OptionError
from ..stage import StreamStage
from .shingling import (DEFAULT_NGRAM, DEFAULT_THRESHOLD, ShingleParams, Sketcher, choose_params,
                        document_tokens, shingle_hashes_batch)

MODES = ("stream", "batch")
KEEP = ("first", "longest")
DROP_REASON = "near-duplicate"
DEFAULT_MEMORY_BUDGET = 256 * 1024 * 1024      # bytes of (feature, doc) or (doc, doc) pairs held before a sorted run is spilled
MAX_GROUP_PAIRS = 200                          # see _group_pairs
BATCH_DOCS = 128                               # documents fingerprinted together
BATCH_TOKENS = 1 << 17                         # ... or fewer, when they are long
_ENTRY_BYTES = 12                              # uint64 key + uint32 value, in the sorted runs
_STORE = np.uint16
_U64 = np.uint64
_EMPTY_I = np.empty(0, dtype=np.int64)


def _ragged_arange(counts: np.ndarray) -> np.ndarray:
    """[0..c0-1, 0..c1-1, ...] for an array of counts."""
    total = int(counts.sum())
    if total == 0:
        return _EMPTY_I
    ends = np.cumsum(counts)
    return np.arange(total, dtype=np.int64) - np.repeat(ends - counts, counts)


def _count_pairs(a: np.ndarray, b: np.ndarray, min_count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (a, b) pairs (a, b < 2^32) occurring at least min_count times, and their counts."""
    if a.size == 0:
        return _EMPTY_I, _EMPTY_I, _EMPTY_I
    keys = (a.astype(_U64) << _U64(32)) | b.astype(_U64)
    keys, counts = np.unique(keys, return_counts=True)
    ok = counts >= min_count
    keys, counts = keys[ok], counts[ok]
    return (keys >> _U64(32)).astype(np.int64), (keys & _U64(0xFFFFFFFF)).astype(np.int64), counts


class FeatureIndex:
    """Super-shingle -> ordinals of the stored documents that have it.

    Sorted numpy runs (12 bytes per entry); a batch of documents is one new
    run, and runs of similar size are merged, so there are O(log n) of them
    to search, each with one vectorised ``searchsorted`` per batch.
    """

    def __init__(self) -> None:
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []
        self.journal: list[tuple[np.ndarray, np.ndarray]] | None = None   # (keys, ordinals) since a checkpoint

    def __len__(self) -> int:
        return sum(r[0].size for r in self._runs)

    def add(self, features: np.ndarray, ordinals: np.ndarray) -> None:
        """Index rows of features (documents × k), row i belonging to ordinals[i]."""
        if features.size == 0:
            return
        keys = features.ravel()
        vals = np.repeat(np.asarray(ordinals, dtype=np.uint32), features.shape[1])
        if self.journal is not None:
            self.journal.append((keys.copy(), vals))
        self.add_pairs(keys, vals)

    def add_pairs(self, keys: np.ndarray, vals: np.ndarray) -> None:
        """Index (feature, ordinal) pairs in any order (lookups do not depend on the runs' layout)."""
        if keys.size == 0:
            return
        keys = np.asarray(keys, dtype=_U64)
        vals = np.asarray(vals, dtype=np.uint32)
        order = np.argsort(keys, kind="stable")
        self._runs.append((keys[order], vals[order]))
        while len(self._runs) > 1 and self._runs[-2][0].size <= 2 * self._runs[-1][0].size:
            (k2, v2), (k1, v1) = self._runs.pop(), self._runs.pop()
            keys = np.concatenate((k1, k2))
            vals = np.concatenate((v1, v2))
            order = np.argsort(keys, kind="stable")
            self._runs.append((keys[order], vals[order]))

    def lookup(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, ordinal) for every feature of every row that a stored document shares."""
        flat = features.ravel()
        k = features.shape[1] if features.ndim == 2 else 1
        rows, ords = [], []
        for keys, vals in self._runs:
            lo = np.searchsorted(keys, flat, "left")
            cnt = np.searchsorted(keys, flat, "right") - lo
            hit = np.flatnonzero(cnt)
            if hit.size == 0:
                continue
            cnt = cnt[hit]
            rows.append(np.repeat(hit // k, cnt))
            ords.append(vals[np.repeat(lo[hit], cnt) + _ragged_arange(cnt)])
        if not rows:
            return _EMPTY_I, _EMPTY_I
        return np.concatenate(rows).astype(np.int64), np.concatenate(ords).astype(np.int64)

    def nbytes(self) -> int:
        return sum(k.nbytes + v.nbytes for k, v in self._runs)


class _SketchStore:
    """Growable (n × t) array of 16-bit sketch values, one row per document."""

    def __init__(self, t: int) -> None:
        self.t = t
        self.rows = np.empty((64, t), dtype=_STORE)
        self.n = 0

    def extend(self, sketches16: np.ndarray) -> np.ndarray:
        """Append rows; returns their ordinals."""
        m = sketches16.shape[0]
        if self.n + m > self.rows.shape[0]:
            grown = np.empty((max(2 * self.rows.shape[0], self.n + m), self.t), dtype=_STORE)
            grown[:self.n] = self.rows[:self.n]
            self.rows = grown
        self.rows[self.n:self.n + m] = sketches16
        self.n += m
        return np.arange(self.n - m, self.n, dtype=np.int64)


class SketchIndex:
    """Stored sketches and their super-shingle index, queried a batch at a time."""

    def __init__(self, params: ShingleParams) -> None:
        self.params = params
        self.store = _SketchStore(params.t)
        self.features = FeatureIndex()

    @property
    def n(self) -> int:
        return self.store.n

    def add(self, sketches16: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Store documents (rows); returns their ordinals."""
        ordinals = self.store.extend(sketches16)
        self.features.add(features, ordinals)
        return ordinals

    def query(self, sketches16: np.ndarray, features: np.ndarray, valid: np.ndarray
              ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Candidate pairs of a batch, with the number of equal sketch values of each.

        Returns ((row, ordinal, matches) against stored documents, (i, j,
        matches) with i < j within the batch); candidates share at least r
        super-shingles. Rows that are not ``valid`` (no words) take no part.
        """
        r = self.params.r
        rows = np.flatnonzero(valid)
        feats = features[rows]
        q, o = self.features.lookup(feats)
        q, o, _ = _count_pairs(rows[q], o, r)
        ext_matches = (np.count_nonzero(self.store.rows[o] == sketches16[q], axis=1) if q.size
                       else _EMPTY_I)
        # within the batch: (feature, row) sorted, equal features adjacent (the thesis's grouping)
        if rows.size > 1:
            keys = feats.ravel()
            owner = np.repeat(rows, feats.shape[1])
            order = np.argsort(keys, kind="stable")
            out: list[np.ndarray] = []
            _group_pairs(keys[order], owner[order].astype(_U64), out, None, limit=False)
            if out:
                pairs = np.concatenate(out)
                i, j, _ = _count_pairs((pairs >> _U64(32)).astype(np.int64),
                                       (pairs & _U64(0xFFFFFFFF)).astype(np.int64), r)
                in_matches = np.count_nonzero(sketches16[i] == sketches16[j], axis=1) if i.size else _EMPTY_I
                return (q, o, ext_matches), (i, j, in_matches)
        return (q, o, ext_matches), (_EMPTY_I, _EMPTY_I, _EMPTY_I)

    def nbytes(self) -> int:
        return self.store.rows[:self.store.n].nbytes + self.features.nbytes()


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        parent = self.parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:     # path compression
            parent[x], x = root, parent[x]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if rb < ra:
                ra, rb = rb, ra
            self.parent[rb] = ra             # the smaller ordinal is the root: deterministic


class NearDuplicates(StreamStage):
    """Drop documents whose resemblance to a kept document reaches the threshold."""

    name = "dedup-near"

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, mode: str = "stream", keep: str = "first",
                 clusters: str | None = None, ngram: int = DEFAULT_NGRAM, t: int | None = None,
                 memory_budget: int = DEFAULT_MEMORY_BUDGET, tmpdir: str | None = None,
                 params: ShingleParams | None = None, batch_docs: int = BATCH_DOCS,
                 keep_tokens: bool = True) -> None:
        super().__init__()
        if mode not in MODES:
            raise OptionError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if keep not in KEEP:
            raise OptionError(f"keep must be one of {', '.join(KEEP)}, not {keep!r}")
        if keep == "longest" and mode == "stream":
            raise OptionError("keep 'longest' needs batch mode: a streaming decision cannot wait for a longer copy")
        if isinstance(memory_budget, bool) or not isinstance(memory_budget, int) or memory_budget < 1024:
            raise OptionError(f"memory budget must be at least 1024 bytes, not {memory_budget!r}")
        if isinstance(batch_docs, bool) or not isinstance(batch_docs, int) or batch_docs < 1:
            raise OptionError(f"batch size must be a positive integer, not {batch_docs!r}")
        self.params = params or choose_params(threshold, ngram=ngram, t=t)
        self.mode = mode
        self.keep = keep
        self.clusters_path = clusters
        self.memory_budget = memory_budget
        self.tmpdir = tmpdir
        self.batch_docs = batch_docs
        self.keep_tokens = keep_tokens      # store tokens in the paragraphs: later stages need not tokenise again
        self.sketcher = Sketcher(self.params.t, self.params.seed)
        self.need = self.params.need
        # stream mode state
        self.index = SketchIndex(self.params)
        self._kept_ids: list[str] = []                         # id per kept ordinal
        self._kept_info: dict[int, tuple[str | None, int]] = {}  # (url, words), only with a clusters file
        self._absorbing: set[int] = set()                      # kept ordinals that near-duplicates were dropped against
        self._members: dict[int, list[tuple[str, str | None, int, np.ndarray, float]]] = {}  # only with a clusters file
        self._clusters_fh: IO[str] | None = open(clusters, "w", encoding="utf-8") if clusters else None
        self.pairs: list[tuple[int, int, float]] = []         # batch mode: verified pairs (ordinals, estimate)
        self._saved = (0, 0)                                    # (stored sketches, kept ids) saved so far
        self._absorbing_new: list[int] | None = None           # ordinals added to _absorbing since then

    # -- checkpoints (stream mode): sketches, ids, index entries and absorbing ordinals gained ----------
    checkpoint_format = True

    def _check_resumable(self) -> None:
        if self.mode != "stream" or self._clusters_fh is not None:
            raise OptionError("near-duplicate removal in batch mode or with a clusters file cannot be resumed")

    def checkpoint_start(self) -> None:
        self._check_resumable()
        self._saved = (self.index.n, len(self._kept_ids))
        self.index.features.journal = []
        self._absorbing_new = []

    def checkpoint_delta(self):
        from ..checkpoint import pack_strings
        n, k = self._saved
        journal = self.index.features.journal or []
        keys = np.concatenate([j[0] for j in journal]) if journal else np.empty(0, dtype=_U64)
        vals = np.concatenate([j[1] for j in journal]) if journal else np.empty(0, dtype=np.uint32)
        delta = {"sketches": self.index.store.rows[n:self.index.n].copy(), "feature_keys": keys,
                 "feature_ordinals": vals, "absorbing": np.array(self._absorbing_new or [], dtype=np.int64),
                 **pack_strings("kept_ids", self._kept_ids[k:])}
        self._saved = (self.index.n, len(self._kept_ids))
        self.index.features.journal = []
        self._absorbing_new = []
        return {}, delta

    def checkpoint_restore(self, numbers, deltas) -> None:
        from ..checkpoint import unpack_strings
        self._check_resumable()
        t = self.params.t
        rows = [d["sketches"].reshape(-1, t) for d in deltas]
        if rows:
            self.index.store.extend(np.concatenate(rows).astype(_STORE))
        keys = [d["feature_keys"] for d in deltas]
        if keys:
            self.index.features.add_pairs(np.concatenate(keys), np.concatenate([d["feature_ordinals"] for d in deltas]))
        for d in deltas:
            self._kept_ids.extend(unpack_strings("kept_ids", d))
            self._absorbing.update(d["absorbing"].tolist())
        self._saved = (self.index.n, len(self._kept_ids))

    # -- fingerprints -----------------------------------------------------------
    def fingerprint_batch(self, token_lists: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(sketches, super-shingles, valid) of many documents: (m × t) uint32, (m × k) uint64,
        and which documents have words (the rows of the others are meaningless)."""
        p = self.params
        shingles, offsets = shingle_hashes_batch(token_lists, p.ngram)
        sketches = self.sketcher.sketch_batch(shingles, offsets)
        return sketches, self.sketcher.super_shingles(sketches, p.k, p.s), np.diff(offsets) > 0

    def fingerprint(self, doc: Document) -> tuple[np.ndarray, np.ndarray]:
        """(sketch, super-shingles) of a document; both empty when it has no words."""
        return self.fingerprint_tokens(document_tokens(doc))

    def fingerprint_tokens(self, tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
        sketches, features, valid = self.fingerprint_batch([tokens])
        if not valid[0]:
            return np.empty(0, dtype=np.uint32), np.empty(0, dtype=_U64)
        return sketches[0], features[0]

    def _batches(self, docs: Iterable[Document]) -> Iterator[tuple[list[Document], list[list[str]]]]:
        """Documents in batches, with the word tokens of their clean text."""
        batch: list[Document] = []
        tokens: list[list[str]] = []
        n_tokens = 0
        for doc in docs:
            toks = [] if doc.drop_reason else document_tokens(doc, keep=self.keep_tokens)
            batch.append(doc)
            tokens.append(toks)
            n_tokens += len(toks)
            if len(batch) >= self.batch_docs or n_tokens >= BATCH_TOKENS:
                yield batch, tokens
                batch, tokens, n_tokens = [], [], 0
        if batch:
            yield batch, tokens

    # -- stream mode ----------------------------------------------------------
    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        if self.mode == "stream":
            return self._run_stream(docs)
        return self._run_batch(docs)

    def accept(self, doc: Document) -> bool:
        """Decide on one document (the batch path with a batch of one)."""
        if doc.drop_reason:
            return False
        (decision,) = self._decide([doc], [document_tokens(doc, keep=self.keep_tokens)])
        return decision

    def _run_stream(self, docs: Iterable[Document]) -> Iterator[Document]:
        stats = self.stats
        for batch, tokens in self._batches(docs):
            for doc in batch:
                stats.count_in(doc)
            decisions = self._decide(batch, tokens)
            for doc, keep in zip(batch, decisions):
                if keep and not doc.drop_reason:
                    stats.count_out(doc)
                    yield doc
                else:
                    self._dropped(doc, doc.drop_reason or self.name)

    def _decide(self, batch: list[Document], tokens: list[list[str]]) -> list[bool]:
        """Keep or drop each document of a batch, in order, against the kept ones before it."""
        stats = self.stats
        need, t = self.need, self.params.t
        sketches, features, valid = self.fingerprint_batch(tokens)
        sk16 = sketches.astype(_STORE)
        for doc, ok in zip(batch, valid.tolist()):
            if not ok and not doc.drop_reason:
                stats.extra["no-words"] += 1
        (q, o, m_ext), (i_in, j_in, m_in) = self.index.query(sk16, features, valid)
        stats.extra["candidate-pairs"] += int(q.size)
        # per row: candidates among stored (all kept) documents and among earlier rows of the batch
        ext: dict[int, list[tuple[int, int]]] = {}
        for row, ordinal, mt in zip(q.tolist(), o.tolist(), m_ext.tolist()):
            ext.setdefault(row, []).append((mt, ordinal))
        inner: dict[int, list[tuple[int, int]]] = {}
        for a, b, mt in zip(i_in.tolist(), j_in.tolist(), m_in.tolist()):
            inner.setdefault(b, []).append((mt, a))
        ordinal_of: dict[int, int] = {}          # batch row -> ordinal, for rows kept
        next_ordinal = self.index.n
        decisions: list[bool] = []
        kept_rows: list[int] = []
        for row, doc in enumerate(batch):
            if doc.drop_reason or not valid[row]:
                decisions.append(not doc.drop_reason)
                continue
            cands = list(ext.get(row, ()))
            for mt, a in inner.get(row, ()):
                if a in ordinal_of:              # only documents kept so far count
                    cands.append((mt, ordinal_of[a]))
                    stats.extra["candidate-pairs"] += 1
            verified = [c for c in cands if c[0] >= need]
            if verified:
                # the most similar kept document; ties go to the earliest
                mt, kept = min(verified, key=lambda c: (-c[0], c[1]))
                stats.extra["verified-pairs"] += len(verified)
                est = mt / t
                doc.meta["near_duplicate_of"] = self._kept_ids[kept]     # (kept rows of this batch are in it too)
                doc.meta["resemblance"] = round(est, 4)
                if self._absorbing_new is not None and kept not in self._absorbing:
                    self._absorbing_new.append(kept)
                self._absorbing.add(kept)
                if self._clusters_fh is not None:
                    self._members.setdefault(kept, []).append(
                        (doc.id, doc.url, doc.word_count(), sk16[row].copy(), est))
                doc.drop(DROP_REASON)
                decisions.append(False)
            else:
                ordinal_of[row] = next_ordinal
                next_ordinal += 1
                kept_rows.append(row)
                self._kept_ids.append(doc.id)
                if self._clusters_fh is not None:
                    self._kept_info[ordinal_of[row]] = (doc.url, doc.word_count())
                decisions.append(True)
        if kept_rows:
            self.index.add(sk16[kept_rows], features[kept_rows])
        return decisions

    # -- hooks for an executor that decides elsewhere (the Spark engine: shuffles on the features) -----
    def distributable(self) -> bool:
        """Stream mode, nothing indexed yet and no clusters file: the decisions are :meth:`decide_pairs`
        over the verified pairs (batch mode's mass-copy cap and clusters file are not reproduced)."""
        return self.mode == "stream" and self.clusters_path is None and self.index.n == 0

    def fingerprint_documents(self, docs: list[Document]) -> list[tuple[np.ndarray | None, np.ndarray | None]]:
        """(16-bit sketch, super-shingles) per document, (None, None) without words: the numbers
        :meth:`_decide` computes (a sketch depends on its document only, not on the batch); the
        tokens are stored in the paragraphs as there (``keep_tokens``)."""
        tokens = [document_tokens(doc, keep=self.keep_tokens) for doc in docs]
        sketches, features, valid = self.fingerprint_batch(tokens)
        sk16 = sketches.astype(_STORE)
        return [(sk16[row].copy(), features[row].copy()) if valid[row] else (None, None)
                for row in range(len(docs))]

    @staticmethod
    def decide_pairs(verified: list[tuple[int, int, str, int]]) -> tuple[dict[int, tuple[str, int]], set[int]]:
        """Stream mode's decisions from verified pairs (a, b, id of a, equal sketch values), a < b in
        global order: greedily in that order, a document is dropped iff it resembles a document
        kept before it; it is reported against the most similar kept one (ties: the earliest).

        Returns {dropped position: (id of that kept document, equal sketch values)} and the
        positions of the kept documents that absorbed a near-duplicate."""
        earlier: dict[int, list[tuple[int, int, str]]] = {}
        for a, b, a_id, matches in verified:
            earlier.setdefault(b, []).append((matches, a, a_id))
        dropped: dict[int, tuple[str, int]] = {}
        absorbing: set[int] = set()
        for d in sorted(earlier):       # every earlier document is decided when d is
            prior = [c for c in earlier[d] if c[1] not in dropped]
            if prior:
                matches, a, a_id = min(prior, key=lambda c: (-c[0], c[1]))
                dropped[d] = (a_id, matches)
                absorbing.add(a)
        return dropped, absorbing

    def mark_near_duplicate(self, doc: Document, kept_id: str, matches: int) -> None:
        """Drop ``doc`` as a near-duplicate of the kept document ``kept_id`` (``matches`` equal values)."""
        doc.meta["near_duplicate_of"] = kept_id
        doc.meta["resemblance"] = round(matches / self.params.t, 4)
        doc.drop(DROP_REASON)

    def decided_elsewhere(self, absorbing: set, candidate_pairs: int, verified_pairs: int) -> None:
        """The stage-wide numbers of decisions made elsewhere: :meth:`close` reports ``clusters``;
        the pair counters are added to the statistics (call it after merging the counters)."""
        self._absorbing = set(absorbing)
        if candidate_pairs or self.stats.docs_in:       # a local run shows it once it decided a batch
            self.stats.extra["candidate-pairs"] += candidate_pairs
        if verified_pairs:
            self.stats.extra["verified-pairs"] += verified_pairs

    def _write_stream_clusters(self) -> None:
        for number, kept in enumerate(sorted(self._members)):
            kurl, kwords = self._kept_info[kept]
            kid = self._kept_ids[kept]
            members = [(kid, kurl, kwords, self.index.store.rows[kept], None)]
            members += [(mid, url, words, sk, kid) for mid, url, words, sk, _ in self._members[kept]]
            self._write_cluster(number, members)

    # -- batch mode -----------------------------------------------------------
    def _run_batch(self, docs: Iterable[Document]) -> Iterator[Document]:
        stats = self.stats
        p = self.params
        with tempfile.TemporaryDirectory(prefix="corpustool-near-", dir=self.tmpdir) as tmp:
            doc_fh = open(os.path.join(tmp, "docs.pickle"), "w+b")
            sketch_path = os.path.join(tmp, "sketches.u16")
            sketch_fh = open(sketch_path, "wb")
            offsets = array("Q")
            sketch_row = array("q")          # ordinal -> row in the sketch file, -1 without words
            words = array("q")
            ids: list[str] = []
            urls: list[str | None] = []
            feature_runs = _SortedRuns(tmp, "features", self.memory_budget)
            rows = 0
            n_docs = 0
            for batch, tokens in self._batches(docs):
                sketches, features, valid = self.fingerprint_batch(tokens)
                valid &= np.array([not d.drop_reason for d in batch], dtype=bool)
                for doc, ok in zip(batch, valid.tolist()):
                    stats.count_in(doc)
                    offsets.append(doc_fh.tell())
                    pickle.dump(doc, doc_fh, protocol=pickle.HIGHEST_PROTOCOL)
                    words.append(doc.word_count())
                    ids.append(doc.id)
                    urls.append(doc.url)
                    if ok:
                        sketch_row.append(rows)
                        rows += 1
                    else:
                        if not doc.drop_reason:
                            stats.extra["no-words"] += 1
                        sketch_row.append(-1)
                live = np.flatnonzero(valid)
                if live.size:
                    sketch_fh.write(sketches[live].astype(_STORE).tobytes())
                    feature_runs.add(features[live].ravel(),
                                     np.repeat((live + n_docs).astype(np.uint32), p.k))
                n_docs += len(batch)
            sketch_fh.close()
            sketches = (np.memmap(sketch_path, dtype=_STORE, mode="r", shape=(rows, p.t)) if rows
                        else np.empty((0, p.t), dtype=_STORE))
            row_of = np.frombuffer(sketch_row, dtype=np.int64) if n_docs else _EMPTY_I
            va, vb, vm = self._verified_pairs(feature_runs, sketches, row_of, tmp)
            ve = vm / p.t
            stats.extra["verified-pairs"] += int(va.size)
            self.pairs = list(zip(va.tolist(), vb.tolist(), ve.tolist()))

            # keep/drop: greedily in the order of preference, a document is dropped iff it
            # resembles one kept before it in that order
            partners: dict[int, list[tuple[int, int]]] = {}       # doc -> [(matches, other)]
            for x, y, mt in zip(va.tolist(), vb.tolist(), vm.tolist()):
                partners.setdefault(x, []).append((mt, y))
                partners.setdefault(y, []).append((mt, x))
            if self.keep == "longest":
                order = sorted(partners, key=lambda d: (-words[d], d))
                rank = {d: i for i, d in enumerate(order)}
            else:
                order = sorted(partners)
                rank = {d: d for d in order}
            kept: set[int] = set()
            dropped: dict[int, tuple[int, int]] = {}               # doc -> (kept doc it resembles, matches)
            for d in order:
                prior = [(mt, o) for mt, o in partners[d] if o in kept]
                if prior:
                    mt, o = min(prior, key=lambda c: (-c[0], rank[c[1]]))
                    dropped[d] = (o, mt)
                else:
                    kept.add(d)

            uf = _UnionFind()
            for x, y in zip(va.tolist(), vb.tolist()):
                uf.union(x, y)
            clusters: dict[int, list[int]] = {}
            for x in sorted(partners):                 # ascending: members in input order
                clusters.setdefault(uf.find(x), []).append(x)
            stats.extra["clusters"] += len(clusters)
            if self._clusters_fh is not None:
                for number, root in enumerate(sorted(clusters, key=lambda c: clusters[c][0])):
                    self._write_cluster(number, [
                        (ids[m], urls[m], words[m], sketches[row_of[m]],
                         ids[dropped[m][0]] if m in dropped else None) for m in clusters[root]])
            del sketches
            doc_fh.flush()
            for i in range(n_docs):
                doc_fh.seek(offsets[i])
                doc = pickle.load(doc_fh)
                if doc.drop_reason:
                    self._dropped(doc, doc.drop_reason)
                elif i not in dropped:
                    stats.count_out(doc)
                    yield doc
                else:
                    other, mt = dropped[i]
                    doc.meta["near_duplicate_of"] = ids[other]
                    doc.meta["resemblance"] = round(mt / p.t, 4)
                    doc.drop(DROP_REASON)
                    self._dropped(doc, DROP_REASON)
            doc_fh.close()

    def _verified_pairs(self, feature_runs: "_SortedRuns", sketches: np.ndarray, row_of: np.ndarray,
                        tmp: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, matches) of all candidate pairs whose sketches have >= need equal values."""
        stats = self.stats
        p = self.params
        # 1. (feature, doc) pairs, sorted -> (doc, doc) pairs of every shared feature, into sorted runs
        pair_runs = _SortedRuns(tmp, "pairs", self.memory_budget, combine=True)
        carry_f = np.empty(0, dtype=_U64)
        carry_d = np.empty(0, dtype=np.uint32)
        for feats, docs in feature_runs.sorted_chunks():
            if carry_f.size:
                feats = np.concatenate((carry_f, feats))
                docs = np.concatenate((carry_d, docs))
            # the last feature of a chunk may continue in the next one: hold it back
            cut = int(np.searchsorted(feats, feats[-1], "left"))
            carry_f, carry_d = feats[cut:], docs[cut:]
            out: list[np.ndarray] = []
            _group_pairs(feats[:cut], docs[:cut].astype(_U64), out, stats)
            for o in out:
                pair_runs.add(o, np.ones(o.size, dtype=np.uint32))
        out = []
        _group_pairs(carry_f, carry_d.astype(_U64), out, stats)
        for o in out:
            pair_runs.add(o, np.ones(o.size, dtype=np.uint32))
        stats.extra["spilled-runs"] += feature_runs.spilled
        feature_runs.close()
        # 2. pairs sorted and counted (a pair split across chunks is carried to the next),
        #    kept when they share >= r features, verified on the full sketches
        va, vb, vm = [], [], []
        carry_k = np.empty(0, dtype=_U64)
        carry_c = np.empty(0, dtype=np.uint32)

        def verify(keys: np.ndarray, counts: np.ndarray) -> None:
            if keys.size == 0:
                return
            starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
            keys, counts = keys[starts], np.add.reduceat(counts.astype(np.int64), starts)
            keys = keys[counts >= p.r]
            stats.extra["candidate-pairs"] += int(keys.size)
            a = (keys >> _U64(32)).astype(np.int64)
            b = (keys & _U64(0xFFFFFFFF)).astype(np.int64)
            step = max(1, (1 << 22) // max(1, p.t))
            for i in range(0, a.size, step):
                ca, cb = a[i:i + step], b[i:i + step]
                matches = np.count_nonzero(sketches[row_of[ca]] == sketches[row_of[cb]], axis=1)
                ok = matches >= self.need
                va.append(ca[ok])
                vb.append(cb[ok])
                vm.append(matches[ok])

        for keys, counts in pair_runs.sorted_chunks():
            if carry_k.size:
                keys = np.concatenate((carry_k, keys))
                counts = np.concatenate((carry_c, counts))
            cut = int(np.searchsorted(keys, keys[-1], "left"))
            carry_k, carry_c = keys[cut:], counts[cut:]
            verify(keys[:cut], counts[:cut])
        verify(carry_k, carry_c)
        stats.extra["spilled-pair-runs"] += pair_runs.spilled
        pair_runs.close()
        if not va:
            return _EMPTY_I, _EMPTY_I, _EMPTY_I
        return np.concatenate(va), np.concatenate(vb), np.concatenate(vm)

    # -- reports ----------------------------------------------------------------
    def _write_cluster(self, number: int, members: list[tuple[str, str | None, int, np.ndarray, str | None]]) -> None:
        """One cluster: members (id, url, words, sketch, id of the kept document it was dropped for or None)."""
        assert self._clusters_fh is not None
        pairs = []
        if len(members) <= 200:     # all pairwise estimates; beyond that the file would explode
            for i in range(len(members)):
                for j in range(i + 1, len(members)):
                    est = float(np.count_nonzero(members[i][3] == members[j][3])) / self.params.t
                    pairs.append({"a": members[i][0], "b": members[j][0], "resemblance": round(est, 4)})
        rec = {
            "cluster": number,
            "size": len(members),
            "kept": [m[0] for m in members if m[4] is None],
            "members": [{"id": m[0], "url": m[1], "words": m[2], "kept": m[4] is None,
                         **({"near_duplicate_of": m[4]} if m[4] is not None else {})} for m in members],
            "pairs": pairs,
        }
        self._clusters_fh.write(json.dumps(rec, ensure_ascii=False) + "\n")

    def close(self) -> None:
        if self.mode == "stream":
            self.stats.extra["clusters"] = len(self._absorbing)
        if self._clusters_fh is not None:
            if self.mode == "stream":
                self._write_stream_clusters()
            self._clusters_fh.close()
            self._clusters_fh = None


class _SortedRuns:
    """(uint64 key, uint32 value) entries in memory up to a budget, then sorted runs on disk.

    With ``combine`` entries of equal key are summed when a run is written (the
    (doc, doc) pair counts); otherwise all are kept, in the order added for
    equal keys (the documents sharing a feature, in input order).
    """

    def __init__(self, tmp: str, name: str, budget: int, combine: bool = False) -> None:
        self.tmp = tmp
        self.name = name
        self.limit = max(1, budget // _ENTRY_BYTES)
        self.combine = combine
        self.keys: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.n = 0
        self.files: list[tuple[str, str, int]] = []

    @property
    def spilled(self) -> int:
        return len(self.files)

    def add(self, keys: np.ndarray, vals: np.ndarray) -> None:
        while keys.size:
            take = min(keys.size, self.limit - self.n)
            self.keys.append(keys[:take])
            self.vals.append(vals[:take])
            self.n += take
            keys, vals = keys[take:], vals[take:]
            if self.n >= self.limit:
                self._spill()

    def _sorted_buffer(self) -> tuple[np.ndarray, np.ndarray]:
        keys = np.concatenate(self.keys) if self.keys else np.empty(0, dtype=_U64)
        vals = np.concatenate(self.vals) if self.vals else np.empty(0, dtype=np.uint32)
        self.keys, self.vals, self.n = [], [], 0
        order = np.argsort(keys, kind="stable")      # stable: equal keys stay in the order added
        keys, vals = keys[order], vals[order]
        if self.combine and keys.size:
            starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
            keys, vals = keys[starts], np.add.reduceat(vals, starts).astype(np.uint32)
        return keys, vals

    def _spill(self) -> None:
        keys, vals = self._sorted_buffer()
        base = os.path.join(self.tmp, f"{self.name}{len(self.files):05d}")
        keys.tofile(base + ".k")
        vals.tofile(base + ".v")
        self.files.append((base + ".k", base + ".v", keys.size))

    def sorted_chunks(self, chunk: int = 1 << 18) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """All entries sorted by key, chunk by chunk (equal keys of different runs in run order;
        a key's entries may be split between two consecutive chunks)."""
        if not self.files:
            keys, vals = self._sorted_buffer()
            for i in range(0, keys.size, chunk):
                yield keys[i:i + chunk], vals[i:i + chunk]
            return
        if self.n:
            self._spill()
        # k-way merge of the sorted runs, a block of each at a time: everything up to
        # the smallest last key of the current blocks can be emitted in order.
        runs = [(np.memmap(k, dtype=_U64, mode="r", shape=(n,)), np.memmap(v, dtype=np.uint32, mode="r", shape=(n,)))
                for k, v, n in self.files if n]
        pos = [0] * len(runs)
        per_run = max(1024, chunk // max(1, len(runs)))
        while True:
            live = [i for i in range(len(runs)) if pos[i] < runs[i][0].size]
            if not live:
                break
            ends = {i: min(pos[i] + per_run, runs[i][0].size) for i in live}
            bound = min(int(runs[i][0][ends[i] - 1]) for i in live)
            parts_k, parts_v = [], []
            for i in live:          # in run order, so a stable sort keeps the input order of equal keys
                k = runs[i][0]
                stop = pos[i] + int(np.searchsorted(k[pos[i]:ends[i]], _U64(bound), "right"))
                if stop > pos[i]:
                    parts_k.append(np.asarray(k[pos[i]:stop]))
                    parts_v.append(np.asarray(runs[i][1][pos[i]:stop]))
                    pos[i] = stop
            keys = np.concatenate(parts_k)
            vals = np.concatenate(parts_v)
            order = np.argsort(keys, kind="stable")
            yield keys[order], vals[order]
        del runs

    def close(self) -> None:
        for k, v, _ in self.files:
            for path in (k, v):
                try:
                    os.unlink(path)
                except OSError:
                    pass
        self.files = []


def _group_pairs(feats: np.ndarray, docs: np.ndarray, out: list[np.ndarray], stats: Any,
                 limit: bool = True) -> None:
    """(doc, doc) pairs, encoded a<<32|b with a<b, of every run of equal features.

    ``feats`` is sorted and the documents of a run ascend. All pairs of a run
    are produced, for all runs at once (one vectorised step per distance
    within a run). A feature shared by very many documents (mass copies) would
    give a quadratic number of pairs: with ``limit``, in a run of more than
    MAX_GROUP_PAIRS + 1 documents each document is paired only with its
    MAX_GROUP_PAIRS predecessors and with the first MAX_GROUP_PAIRS of the
    run, where the kept copy of a mass of copies is.
    """
    if feats.size < 2:
        return
    starts = np.flatnonzero(np.concatenate(([True], feats[1:] != feats[:-1])))
    sizes = np.diff(np.append(starts, feats.size))
    multi = sizes > 1
    starts, sizes = starts[multi], sizes[multi]
    if starts.size == 0:
        return
    biggest = int(sizes.max())
    window = biggest - 1
    if limit and biggest > MAX_GROUP_PAIRS + 1:
        window = MAX_GROUP_PAIRS
        if stats is not None:
            stats.extra["large-feature-groups"] += int(np.count_nonzero(sizes > MAX_GROUP_PAIRS + 1))
    all_starts, all_sizes = starts, sizes
    for d in range(1, window + 1):            # neighbours at distance d
        sel = sizes > d
        starts, sizes = starts[sel], sizes[sel]   # runs longer than d (shrinks fast: most runs are pairs)
        cnt = sizes - d
        pos = np.repeat(starts, cnt) + _ragged_arange(cnt)
        out.append((docs[pos] << _U64(32)) | docs[pos + d])
    starts, sizes = all_starts, all_sizes
    if window < biggest - 1:                  # the first `window` documents with everything beyond the window
        for first in range(window):
            sel = sizes > first + window + 1
            cnt = sizes[sel] - (first + window + 1)
            a = np.repeat(starts[sel] + first, cnt)
            b = a + window + 1 + _ragged_arange(cnt)
            out.append((docs[a] << _U64(32)) | docs[b])
