"""Near-duplicate documents: Broder's shingling as a stream stage.

Seed 003, Sect. 3.2.1. Every document gets a min-wise sketch of t values and
k super-shingles (:mod:`corpustool.dedup.shingling`). Two documents that share
at least r super-shingles are a *candidate pair*; a candidate pair is a
near-duplicate pair when the estimate from the full sketches reaches the
threshold. Two modes:

* ``stream``: each document is checked against the documents kept so far
  and kept or dropped at once (drop reason ``near-duplicate``). Memory: the
  kept documents' sketches (16 bits per value) and super-shingle index.
* ``batch``: all candidate pairs of the whole input, found the way the thesis
  describes: (feature, doc) pairs sorted so that documents sharing a feature
  are adjacent, expanded to (doc, doc) pairs whose shared features are
  counted. Above a memory budget the (feature, doc) pairs are spilled to disk
  in sorted runs and merged. Candidates are verified, clusters formed with
  union-find, and one document per cluster kept: the first in input order,
  or with ``keep="longest"`` the one with most words. Batch mode must see
  the whole input before it emits anything, so documents wait in a temporary
  file, not in memory.

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
from ..extractors.base import OptionError
from ..stage import StreamStage
from .shingling import (DEFAULT_NGRAM, DEFAULT_THRESHOLD, ShingleParams, Sketcher, choose_params,
                        document_tokens, shingle_hashes)

MODES = ("stream", "batch")
KEEP = ("first", "longest")
DROP_REASON = "near-duplicate"
DEFAULT_MEMORY_BUDGET = 256 * 1024 * 1024      # bytes of (feature, doc) pairs held before a sorted run is spilled
MAX_GROUP_PAIRS = 200                          # a feature shared by more documents pairs each only with its next 200
_PAIR_BYTES = 12                               # uint64 feature + uint32 document
_STORE = np.uint16


class FeatureIndex:
    """Super-shingle -> ordinals of the documents that have it (stream mode).

    New entries go to a small dict; when it is full they are merged into
    sorted numpy runs (12 bytes per entry instead of ~100 in a dict); runs
    of similar size are merged, so there are O(log n) of them to search.
    """

    def __init__(self, buffer_entries: int = 1 << 14) -> None:
        self.buffer_entries = buffer_entries
        self._buf: dict[int, Any] = {}          # feature -> ordinal, or list of ordinals
        self._buf_count = 0
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []

    def __len__(self) -> int:
        return self._buf_count + sum(r[0].size for r in self._runs)

    def add(self, features: np.ndarray, ordinal: int) -> None:
        buf = self._buf
        for f in features.tolist():
            old = buf.get(f)
            if old is None:
                buf[f] = ordinal
            elif isinstance(old, list):
                old.append(ordinal)
            else:
                buf[f] = [old, ordinal]
        self._buf_count += features.size
        if self._buf_count >= self.buffer_entries:
            self._flush()

    def lookup(self, features: np.ndarray) -> list[int]:
        """Ordinals holding each feature, once per shared feature."""
        out: list[int] = []
        buf = self._buf
        if buf:
            for f in features.tolist():
                v = buf.get(f)
                if v is not None:
                    if isinstance(v, list):
                        out.extend(v)
                    else:
                        out.append(v)
        for keys, vals in self._runs:
            lo = np.searchsorted(keys, features, "left")
            hi = np.searchsorted(keys, features, "right")
            for i in np.flatnonzero(hi > lo).tolist():
                out.extend(vals[lo[i]:hi[i]].tolist())
        return out

    def _flush(self) -> None:
        feats: list[int] = []
        ords: list[int] = []
        for f, v in self._buf.items():
            if isinstance(v, list):
                feats.extend([f] * len(v))
                ords.extend(v)
            else:
                feats.append(f)
                ords.append(v)
        keys = np.array(feats, dtype=np.uint64)
        vals = np.array(ords, dtype=np.uint32)
        order = np.argsort(keys, kind="stable")
        self._runs.append((keys[order], vals[order]))
        self._buf = {}
        self._buf_count = 0
        while len(self._runs) > 1 and self._runs[-2][0].size <= 2 * self._runs[-1][0].size:
            (k2, v2), (k1, v1) = self._runs.pop(), self._runs.pop()
            keys = np.concatenate((k1, k2))
            vals = np.concatenate((v1, v2))
            order = np.argsort(keys, kind="stable")
            self._runs.append((keys[order], vals[order]))

    def nbytes(self) -> int:
        return sum(k.nbytes + v.nbytes for k, v in self._runs)


class _SketchStore:
    """Growable (n × t) array of 16-bit sketch values, one row per document."""

    def __init__(self, t: int) -> None:
        self.t = t
        self.rows = np.empty((64, t), dtype=_STORE)
        self.n = 0

    def append(self, sketch16: np.ndarray) -> int:
        if self.n == self.rows.shape[0]:
            grown = np.empty((self.rows.shape[0] * 2, self.t), dtype=_STORE)
            grown[:self.n] = self.rows[:self.n]
            self.rows = grown
        self.rows[self.n] = sketch16
        self.n += 1
        return self.n - 1


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
                 params: ShingleParams | None = None) -> None:
        super().__init__()
        if mode not in MODES:
            raise OptionError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if keep not in KEEP:
            raise OptionError(f"keep must be one of {', '.join(KEEP)}, not {keep!r}")
        if keep == "longest" and mode == "stream":
            raise OptionError("keep 'longest' needs batch mode: a streaming decision cannot wait for a longer copy")
        if isinstance(memory_budget, bool) or not isinstance(memory_budget, int) or memory_budget < 1024:
            raise OptionError(f"memory budget must be at least 1024 bytes, not {memory_budget!r}")
        self.params = params or choose_params(threshold, ngram=ngram, t=t)
        self.mode = mode
        self.keep = keep
        self.clusters_path = clusters
        self.memory_budget = memory_budget
        self.tmpdir = tmpdir
        self.sketcher = Sketcher(self.params.t, self.params.seed)
        self.need = self.params.need
        # stream mode state
        self.index = FeatureIndex()
        self.store = _SketchStore(self.params.t)
        self._kept_ids: list[str] = []                         # id per kept ordinal
        self._kept_info: dict[int, tuple[str | None, int]] = {}  # (url, words), only with a clusters file
        self._absorbing: set[int] = set()                      # kept ordinals that near-duplicates were dropped against
        self._members: dict[int, list[tuple[str, str | None, int, np.ndarray]]] = {}   # only with a clusters file
        self._clusters_fh: IO[str] | None = open(clusters, "w", encoding="utf-8") if clusters else None
        self.pairs: list[tuple[int, int, float]] = []         # batch mode: verified pairs (ordinals, estimate)

    # -- per document --------------------------------------------------------
    def fingerprint(self, doc: Document) -> tuple[np.ndarray, np.ndarray]:
        """(sketch, super-shingles) of a document; both empty when it has no words."""
        return self.fingerprint_tokens(document_tokens(doc))

    def fingerprint_tokens(self, tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
        shingles = shingle_hashes(tokens, self.params.ngram)
        if shingles.size == 0:
            return shingles, shingles
        sketch = self.sketcher.sketch(shingles)
        p = self.params
        return sketch, self.sketcher.super_shingles(sketch, p.k, p.s)

    def _candidates(self, hits: list[int]) -> np.ndarray:
        if not hits:
            return np.empty(0, dtype=np.int64)
        arr = np.asarray(hits, dtype=np.int64)
        if self.params.r == 1:
            return np.unique(arr)
        values, counts = np.unique(arr, return_counts=True)
        return values[counts >= self.params.r]

    # -- stream mode ----------------------------------------------------------
    def match(self, sk16: np.ndarray, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stored ordinals that share >= r super-shingles with a sketch, and their equal-value counts."""
        cands = self._candidates(self.index.lookup(features))
        if not cands.size:
            return cands, cands
        self.stats.extra["candidate-pairs"] += int(cands.size)
        return cands, np.count_nonzero(self.store.rows[cands] == sk16, axis=1)

    def add(self, sk16: np.ndarray, features: np.ndarray) -> int:
        """Store a sketch and index its super-shingles; returns its ordinal."""
        ordinal = self.store.append(sk16)
        self.index.add(features, ordinal)
        return ordinal

    def accept(self, doc: Document) -> bool:
        sketch, features = self.fingerprint(doc)
        if sketch.size == 0:
            self.stats.extra["no-words"] += 1
            return True
        sk16 = sketch.astype(_STORE)
        cands, matches = self.match(sk16, features)
        if cands.size:
            best = int(np.argmax(matches))
            if matches[best] >= self.need:
                kept = int(cands[best])
                est = float(matches[best]) / self.params.t
                self.stats.extra["verified-pairs"] += int(np.count_nonzero(matches >= self.need))
                doc.meta["near_duplicate_of"] = self._kept_ids[kept]
                doc.meta["resemblance"] = round(est, 4)
                self._absorbing.add(kept)
                if self._clusters_fh is not None:
                    self._members.setdefault(kept, []).append((doc.id, doc.url, doc.word_count(), sk16))
                doc.drop(DROP_REASON)
                return False
        ordinal = self.add(sk16, features)
        self._kept_ids.append(doc.id)
        if self._clusters_fh is not None:
            self._kept_info[ordinal] = (doc.url, doc.word_count())
        return True

    def _write_stream_clusters(self) -> None:
        for number, kept in enumerate(sorted(self._members)):
            kurl, kwords = self._kept_info[kept]
            members = [(self._kept_ids[kept], kurl, kwords, self.store.rows[kept])] + self._members[kept]
            self._write_cluster(number, members, kept_index=0)

    # -- batch mode -----------------------------------------------------------
    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        if self.mode == "stream":
            yield from super().run(docs)
            return
        yield from self._run_batch(docs)

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
            runs = _RunWriter(tmp, self.memory_budget)
            rows = 0
            ordinal = 0
            for doc in docs:
                stats.count_in(doc)
                sketch, features = self.fingerprint(doc)
                offsets.append(doc_fh.tell())
                pickle.dump(doc, doc_fh, protocol=pickle.HIGHEST_PROTOCOL)
                words.append(doc.word_count())
                ids.append(doc.id)
                urls.append(doc.url)
                if sketch.size == 0:
                    stats.extra["no-words"] += 1
                    sketch_row.append(-1)
                else:
                    sketch_fh.write(sketch.astype(_STORE).tobytes())
                    sketch_row.append(rows)
                    rows += 1
                    runs.add(features, ordinal)
                ordinal += 1
            sketch_fh.close()
            n_docs = ordinal
            stats.extra["spilled-runs"] += runs.spilled
            pairs, counts = _candidate_pairs(runs.sorted_chunks(), stats)
            runs.close()
            if p.r > 1:
                pairs = pairs[counts >= p.r]
            stats.extra["candidate-pairs"] += int(pairs.size)
            sketches = (np.memmap(sketch_path, dtype=_STORE, mode="r", shape=(rows, p.t)) if rows
                        else np.empty((0, p.t), dtype=_STORE))
            row_of = np.frombuffer(sketch_row, dtype=np.int64) if n_docs else np.empty(0, dtype=np.int64)
            a = (pairs >> np.uint64(32)).astype(np.int64)
            b = (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64)
            verified_a, verified_b, estimates = [], [], []
            step = max(1, (1 << 22) // max(1, p.t))
            for i in range(0, a.size, step):
                ca, cb = a[i:i + step], b[i:i + step]
                matches = np.count_nonzero(sketches[row_of[ca]] == sketches[row_of[cb]], axis=1)
                ok = matches >= self.need
                verified_a.append(ca[ok])
                verified_b.append(cb[ok])
                estimates.append(matches[ok] / p.t)
            va = np.concatenate(verified_a) if verified_a else np.empty(0, dtype=np.int64)
            vb = np.concatenate(verified_b) if verified_b else np.empty(0, dtype=np.int64)
            ve = np.concatenate(estimates) if estimates else np.empty(0)
            stats.extra["verified-pairs"] += int(va.size)
            self.pairs = list(zip(va.tolist(), vb.tolist(), ve.tolist()))

            uf = _UnionFind()
            for x, y in zip(va.tolist(), vb.tolist()):
                uf.union(x, y)
            clusters: dict[int, list[int]] = {}
            for x in np.unique(np.concatenate((va, vb))).tolist():      # ascending: members in input order
                clusters.setdefault(uf.find(x), []).append(x)
            dropped: dict[int, int] = {}           # ordinal -> the kept ordinal of its cluster
            for members in clusters.values():
                if self.keep == "longest":
                    keeper = max(members, key=lambda m: (words[m], -m))
                else:
                    keeper = members[0]
                for m in members:
                    if m != keeper:
                        dropped[m] = keeper
            stats.extra["clusters"] += len(clusters)
            if self._clusters_fh is not None:
                for number, root in enumerate(sorted(clusters, key=lambda c: clusters[c][0])):
                    members = clusters[root]
                    keeper = next(m for m in members if m not in dropped)
                    self._write_cluster(number, [(ids[m], urls[m], words[m], sketches[row_of[m]]) for m in members],
                                        kept_index=members.index(keeper))
            best_est: dict[int, float] = {}
            for x, y, e in self.pairs:
                for m, other in ((x, y), (y, x)):
                    if dropped.get(m) == other:
                        best_est[m] = e
            del sketches
            doc_fh.flush()
            doc_fh.seek(0)
            for i in range(n_docs):
                doc_fh.seek(offsets[i])
                doc = pickle.load(doc_fh)
                keeper = dropped.get(i)
                if keeper is None:
                    stats.count_out(doc)
                    yield doc
                else:
                    doc.meta["near_duplicate_of"] = ids[keeper]
                    if i in best_est:
                        doc.meta["resemblance"] = round(best_est[i], 4)
                    doc.drop(DROP_REASON)
                    self._dropped(doc, DROP_REASON)
            doc_fh.close()

    # -- reports ----------------------------------------------------------------
    def _write_cluster(self, number: int, members: list[tuple[str, str | None, int, np.ndarray]],
                       kept_index: int) -> None:
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
            "kept": members[kept_index][0],
            "members": [{"id": m[0], "url": m[1], "words": m[2], "kept": i == kept_index}
                        for i, m in enumerate(members)],
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

    def memory_bytes(self) -> int:
        """Bytes held per the stream-mode structures (sketch store and index runs), for reports."""
        return self.store.rows[:self.store.n].nbytes + self.index.nbytes()


class _RunWriter:
    """(feature, doc) pairs in memory up to a budget, then sorted runs on disk."""

    def __init__(self, tmp: str, budget: int) -> None:
        self.tmp = tmp
        self.limit = max(1, budget // _PAIR_BYTES)
        self.feats: list[np.ndarray] = []
        self.docs: list[np.ndarray] = []
        self.n = 0
        self.files: list[tuple[str, str, int]] = []

    @property
    def spilled(self) -> int:
        return len(self.files)

    def add(self, features: np.ndarray, ordinal: int) -> None:
        self.feats.append(features)
        self.docs.append(np.full(features.size, ordinal, dtype=np.uint32))
        self.n += features.size
        if self.n >= self.limit:
            self._spill()

    def _sorted_buffer(self) -> tuple[np.ndarray, np.ndarray]:
        feats = np.concatenate(self.feats) if self.feats else np.empty(0, dtype=np.uint64)
        docs = np.concatenate(self.docs) if self.docs else np.empty(0, dtype=np.uint32)
        order = np.argsort(feats, kind="stable")      # stable: documents stay in input order per feature
        self.feats, self.docs, self.n = [], [], 0
        return feats[order], docs[order]

    def _spill(self) -> None:
        feats, docs = self._sorted_buffer()
        base = os.path.join(self.tmp, f"run{len(self.files):05d}")
        feats.tofile(base + ".f")
        docs.tofile(base + ".d")
        self.files.append((base + ".f", base + ".d", feats.size))

    def sorted_chunks(self, chunk: int = 1 << 18) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """All pairs sorted by feature (input order within a feature), chunk by chunk."""
        if not self.files:
            feats, docs = self._sorted_buffer()
            if feats.size:
                yield feats, docs
            return
        if self.n:
            self._spill()
        # k-way merge of the sorted runs, a block of each at a time: everything up to
        # the smallest last key of the current blocks can be emitted in order.
        runs = [(np.memmap(f, dtype=np.uint64, mode="r", shape=(n,)), np.memmap(d, dtype=np.uint32, mode="r", shape=(n,)))
                for f, d, n in self.files if n]
        pos = [0] * len(runs)
        per_run = max(1024, chunk // max(1, len(runs)))
        while True:
            live = [i for i in range(len(runs)) if pos[i] < runs[i][0].size]
            if not live:
                return
            ends = {i: min(pos[i] + per_run, runs[i][0].size) for i in live}
            bound = min(int(runs[i][0][ends[i] - 1]) for i in live)
            parts_f, parts_d = [], []
            for i in live:          # in run order, so a stable sort keeps the input order of documents
                f = runs[i][0]
                stop = pos[i] + int(np.searchsorted(f[pos[i]:ends[i]], np.uint64(bound), "right"))
                if stop > pos[i]:
                    parts_f.append(np.asarray(f[pos[i]:stop]))
                    parts_d.append(np.asarray(runs[i][1][pos[i]:stop]))
                    pos[i] = stop
            feats = np.concatenate(parts_f)
            docs = np.concatenate(parts_d)
            order = np.argsort(feats, kind="stable")
            yield feats[order], docs[order]

    def close(self) -> None:
        for f, d, _ in self.files:
            for path in (f, d):
                try:
                    os.unlink(path)
                except OSError:
                    pass


def _group_pairs(feats: np.ndarray, docs: np.ndarray, out: list[np.ndarray], stats: Any) -> None:
    """(doc, doc) pairs, encoded a<<32|b with a<b, of every run of equal features."""
    if feats.size < 2:
        return
    starts = np.flatnonzero(np.concatenate(([True], feats[1:] != feats[:-1])))
    sizes = np.diff(np.append(starts, feats.size))
    for g in np.flatnonzero(sizes > 1).tolist():
        members = np.unique(docs[starts[g]:starts[g] + sizes[g]]).astype(np.uint64)
        m = members.size
        if m < 2:
            continue
        i, j = np.triu_indices(m, 1)
        if m > MAX_GROUP_PAIRS + 1:
            # a feature shared by very many documents (mass copies): pair each with
            # its next MAX_GROUP_PAIRS only, enough to chain them into one cluster
            near = (j - i) <= MAX_GROUP_PAIRS
            i, j = i[near], j[near]
            stats.extra["large-feature-groups"] += 1
        out.append((members[i] << np.uint64(32)) | members[j])


def _candidate_pairs(chunks: Iterable[tuple[np.ndarray, np.ndarray]], stats: Any,
                     compact_at: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """Distinct candidate pairs and, per pair, how many features the two documents share."""
    keys = np.empty(0, dtype=np.uint64)
    counts = np.empty(0, dtype=np.int64)
    pending: list[np.ndarray] = []
    pending_n = 0
    carry_f = np.empty(0, dtype=np.uint64)
    carry_d = np.empty(0, dtype=np.uint32)

    def compact() -> None:
        nonlocal keys, counts, pending, pending_n
        if not pending:
            return
        allk = np.concatenate([keys] + pending)
        allc = np.concatenate([counts, np.ones(pending_n, dtype=np.int64)])
        order = np.argsort(allk, kind="stable")
        allk, allc = allk[order], allc[order]
        starts = np.flatnonzero(np.concatenate(([True], allk[1:] != allk[:-1]))) if allk.size else np.empty(0, int)
        keys = allk[starts]
        counts = np.add.reduceat(allc, starts) if allk.size else allc
        pending, pending_n = [], 0

    for feats, docs in chunks:
        if carry_f.size:
            feats = np.concatenate((carry_f, feats))
            docs = np.concatenate((carry_d, docs))
        # the last feature of a chunk may continue in the next one: hold it back
        last = feats[-1]
        cut = int(np.searchsorted(feats, last, "left"))
        carry_f, carry_d = feats[cut:], docs[cut:]
        out: list[np.ndarray] = []
        _group_pairs(feats[:cut], docs[:cut], out, stats)
        for o in out:
            pending.append(o)
            pending_n += o.size
        if pending_n >= compact_at:
            compact()
    out = []
    _group_pairs(carry_f, carry_d, out, stats)
    for o in out:
        pending.append(o)
        pending_n += o.size
    compact()
    return keys, counts
