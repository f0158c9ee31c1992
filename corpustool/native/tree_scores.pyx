# cython: language_level=3
"""justext-learned's gradient-boosted trees evaluated from their arrays (backend.trees).

:class:`CompleteTrees` gives, for every row of X, ``init`` plus the sum over the trees of the
leaf the row reaches: the same as ``justext_learned.TreeModel``'s numpy evaluation and
LightGBM's raw score (tests/extractors/test_justext_learned.py). Every index is checked once,
when the object is made (features inside X's columns, children inside the node and leaf
arrays, no tree deeper than MAX_DEPTH, so no cycle), and X's width when it is scored, so no
model file can read outside its arrays or loop.

Why complete trees: the paragraphs of a page take different ways down a tree, so a walk that
branches at every node takes branches the predictor cannot foresee. Made complete to the model's greatest
depth D, every tree takes every row exactly D steps, each step an index computed from a
compare (no branch); eight rows go down each tree side by side, so their loads overlap.
Both stages of the shipped model (depth 5) over a page of 205 paragraphs: 0.36 ms a page
walked node by node, 0.22 ms complete (scripts/bench/bench_justext.py measures the whole).
"""
cimport cython
from libc.math cimport exp

import numpy as np


cdef enum:
    MAX_DEPTH = 10      # a complete tree of depth 10 has 1023 inner nodes and 1024 leaves
    ROWS = 8            # rows that go down a tree side by side


@cython.final
cdef class CompleteTrees:
    """A LightGBM model's trees (``justext_learned.TreeModel``'s arrays: children < 0 are leaf
    ~child) made complete to their greatest depth D.

    Tree t's inner nodes are a heap (the children of k: 2k+1 and 2k+2) at ``t * (2^D - 1)`` of
    ``feat``/``thr``; its leaves at ``t * 2^D`` of ``val``. A leaf above depth D becomes a
    subtree whose leaves all hold its value, so the way down it does not matter and the sums
    are those of walking the trees node by node, bit for bit: the same leaves added in the
    same order."""

    cdef readonly int depth
    cdef Py_ssize_t n_trees, n_features, n_inner, n_leaves
    cdef int[::1] feat
    cdef double[::1] thr
    cdef double[::1] val

    def __init__(self, const int[::1] feature, const double[::1] threshold, const int[::1] left,
                 const int[::1] right, const double[::1] leaf, const int[::1] roots, Py_ssize_t n_features):
        cdef Py_ssize_t n_nodes = feature.shape[0], n_leaves = leaf.shape[0], t, i
        cdef int d
        if threshold.shape[0] != n_nodes or left.shape[0] != n_nodes or right.shape[0] != n_nodes:
            raise ValueError("CompleteTrees: the node arrays differ in length")
        for i in range(n_nodes):
            if feature[i] < 0 or feature[i] >= n_features:
                raise ValueError("CompleteTrees: a feature index out of range")
            if left[i] >= n_nodes or left[i] < -n_leaves or right[i] >= n_nodes or right[i] < -n_leaves:
                raise ValueError("CompleteTrees: a child index out of range")
        self.depth = 0
        for t in range(roots.shape[0]):
            if roots[t] >= n_nodes or roots[t] < -n_leaves:
                raise ValueError("CompleteTrees: a root index out of range")
            d = _depth(roots[t], left, right, 0)
            if d > self.depth:
                self.depth = d
        self.n_trees, self.n_features = roots.shape[0], n_features
        self.n_inner = (1 << self.depth) - 1
        self.n_leaves = 1 << self.depth
        self.feat = np.zeros(self.n_trees * self.n_inner, dtype=np.int32)
        self.thr = np.full(self.n_trees * self.n_inner, np.inf)
        self.val = np.zeros(self.n_trees * self.n_leaves, dtype=np.float64)
        for t in range(self.n_trees):
            self._place(roots[t], 0, 0, t, feature, threshold, left, right, leaf)

    cdef void _place(self, int node, Py_ssize_t pos, int d, Py_ssize_t t, const int[::1] feature,
                     const double[::1] threshold, const int[::1] left, const int[::1] right,
                     const double[::1] leaf) except *:
        """Node ``node`` of the arrays at heap position ``pos`` (depth d) of complete tree t
        (bounds-checked writes: the depth was checked, the positions follow from it)."""
        cdef Py_ssize_t first, k
        if node >= 0:
            self.feat[t * self.n_inner + pos] = feature[node]
            self.thr[t * self.n_inner + pos] = threshold[node]
            self._place(left[node], 2 * pos + 1, d + 1, t, feature, threshold, left, right, leaf)
            self._place(right[node], 2 * pos + 2, d + 1, t, feature, threshold, left, right, leaf)
            return
        # a leaf at depth d: the 2^(D-d) leaves below heap position pos hold its value (the
        # padded inner nodes above them keep feature 0 and threshold +inf: either way is the same)
        first = ((pos + 1) << (self.depth - d)) - 1 - self.n_inner
        for k in range(1 << (self.depth - d)):
            self.val[t * self.n_leaves + first + k] = leaf[~node]

    def scores(self, const double[:, ::1] X, double init, double[::1] out):
        """out[i] = init + the leaves row i of X reaches, the trees added in their order."""
        if out.shape[0] != X.shape[0]:
            raise ValueError("CompleteTrees.scores: out must have one value per row")
        if X.shape[0] and X.shape[1] != self.n_features:
            raise ValueError("CompleteTrees.scores: X must have as many columns as the model's features")
        self.score_rows(X, init, out)

    @cython.boundscheck(False)
    @cython.wraparound(False)
    cdef void score_rows(self, const double[:, ::1] X, double init, double[::1] out) noexcept:
        """:meth:`scores` of X (at least the model's features wide: its first columns are
        read) into out (one value per row): both checked by the caller."""
        cdef Py_ssize_t n = X.shape[0], m = X.shape[1], i, t, d, k, r, D = self.depth
        cdef Py_ssize_t n_inner = self.n_inner, n_leaves = self.n_leaves
        cdef Py_ssize_t a[ROWS]
        cdef double s[ROWS]
        cdef const int* f
        cdef const double* h
        cdef const double* x
        if n == 0:
            return
        i = 0
        while i < n:
            # ROWS rows (fewer at the end) down every tree together; row k's node is a[k]
            x = &X[i, 0]
            r = ROWS if i + ROWS <= n else n - i
            for k in range(r):
                s[k] = init
            for t in range(self.n_trees):
                f = &self.feat[t * n_inner] if n_inner else NULL
                h = &self.thr[t * n_inner] if n_inner else NULL
                if r == ROWS:
                    for k in range(ROWS):
                        a[k] = 0
                    for d in range(D):
                        for k in range(ROWS):
                            a[k] = 2 * a[k] + 1 + (not (x[k * m + f[a[k]]] <= h[a[k]]))
                    for k in range(ROWS):
                        s[k] += self.val[t * n_leaves + a[k] - n_inner]
                else:
                    for k in range(r):
                        a[k] = 0
                        for d in range(D):
                            a[k] = 2 * a[k] + 1 + (not (x[k * m + f[a[k]]] <= h[a[k]]))
                        s[k] += self.val[t * n_leaves + a[k] - n_inner]
            for k in range(r):
                out[i + k] = s[k]
            i += r


cdef int _depth(int node, const int[::1] left, const int[::1] right, int d) except -1:
    """The depth of the deepest leaf under ``node`` (at depth d); deeper than MAX_DEPTH is refused
    (so is a cycle, which never ends in a leaf)."""
    if node < 0:
        return d
    if d >= MAX_DEPTH:
        raise ValueError("CompleteTrees: a tree deeper than %d levels (or a cycle)" % MAX_DEPTH)
    cdef int l = _depth(left[node], left, right, d + 1)
    cdef int r = _depth(right[node], left, right, d + 1)
    return l if l > r else r


# -- both stages in one call -------------------------------------------------------------------
# justext_learned.LearnedModel.predict with numpy costs a page some 20 numpy calls between the two
# stages (context_features); page after page, with other work in between, their code is out of the
# CPU's caches each time and they cost more than the trees. Here they are one loop each.

cdef enum:
    N_CONTEXT = 10          # justext_learned.CONTEXT's columns, in its order
    PAIRWISE_BLOCK = 128    # numpy's PW_BLOCKSIZE


cdef double pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """numpy's pairwise summation of a contiguous float64 array (pairwise_sum_DOUBLE), step for
    step: ``a.sum()`` to the bit, as the numpy backend computes the page's mean probability."""
    cdef Py_ssize_t i, n2
    cdef double res, r0, r1, r2, r3, r4, r5, r6, r7
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= PAIRWISE_BLOCK:
        r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
        i = 8
        while i < n - (n % 8):
            r0 += a[i]; r1 += a[i + 1]; r2 += a[i + 2]; r3 += a[i + 3]
            r4 += a[i + 4]; r5 += a[i + 5]; r6 += a[i + 6]; r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2)


def numpy_sum(const double[::1] a):
    """:func:`pairwise_sum` of ``a`` (tests compare it with ``a.sum()``)."""
    return pairwise_sum(&a[0], a.shape[0]) if a.shape[0] else 0.0


@cython.boundscheck(False)
@cython.wraparound(False)
def two_stages(CompleteTrees stage1, double init1, CompleteTrees stage2, double init2, double[:, ::1] Z,
               const long long[::1] path, const long long[::1] parent, const double[::1] chars,
               double[::1] prob):
    """justext_learned.LearnedModel.predict: prob[i] = stage 2's probability of paragraph i.

    Z: the paragraphs' features in its first ``stage1.n_features`` columns and room for the
    context columns after them (stage 2's features: the same and justext_learned.CONTEXT); path
    and parent: each paragraph's DOM path and parent element as small integers below n (page_struct),
    chars: its characters. Stage 1's probabilities, the context columns (context_features: the
    same sums in the same order, numpy's pairwise one included) and stage 2's are computed here;
    the sigmoid with the C library's exp (numpy's on the machines we build on: compared in
    tests/extractors/test_justext_learned.py)."""
    cdef Py_ssize_t n = Z.shape[0], m = Z.shape[1], f = stage1.n_features, i, k, lo, hi, g
    if stage2.n_features != f + N_CONTEXT or m != stage2.n_features:
        raise ValueError("two_stages: Z must have stage 1's features and the context columns, as stage 2 reads them")
    if path.shape[0] != n or parent.shape[0] != n or chars.shape[0] != n or prob.shape[0] != n:
        raise ValueError("two_stages: one path, parent, length and probability per row")
    if n == 0:
        return
    for i in range(n):
        if path[i] < 0 or path[i] >= n or parent[i] < 0 or parent[i] >= n:
            raise ValueError("two_stages: a path or parent id outside 0..n-1")
    stage1.score_rows(Z, init1, prob)
    for i in range(n):
        prob[i] = 1.0 / (1.0 + exp(-prob[i]))
    cdef double[::1] wc = np.empty(n, dtype=np.float64)
    cdef double[::1] cw = np.empty(n + 1, dtype=np.float64)
    cdef double[::1] cc = np.empty(n + 1, dtype=np.float64)
    cdef double[:, ::1] groups = np.zeros((4, n), dtype=np.float64)   # path num, den; parent num, den
    cdef double total = 0.0, kept = 0.0, page, d, x
    cw[0] = 0.0
    cc[0] = 0.0
    for i in range(n):
        x = prob[i] * chars[i]
        wc[i] = x
        # (np.cumsum adds from the first value; 0.0 + a == a)
        cw[i + 1] = x if i == 0 else cw[i] + x
        cc[i + 1] = chars[i] if i == 0 else cc[i] + chars[i]
        groups[0, path[i]] += x
        groups[1, path[i]] += chars[i]
        groups[2, parent[i]] += x
        groups[3, parent[i]] += chars[i]
        total += chars[i]
        if prob[i] >= 0.5:
            kept += chars[i]
    total = total if total > 1.0 else 1.0
    page = pairwise_sum(&wc[0], n) / total
    for i in range(n):
        Z[i, f] = prob[i]
        Z[i, f + 1] = prob[i - 1] if i >= 1 else -1.0
        Z[i, f + 2] = prob[i + 1] if i + 1 < n else -1.0
        Z[i, f + 3] = prob[i - 2] if i >= 2 else -1.0
        Z[i, f + 4] = prob[i + 2] if i + 2 < n else -1.0
        lo = i - 3 if i >= 3 else 0
        hi = i + 4 if i + 4 < n else n
        d = cc[hi] - cc[lo]
        Z[i, f + 5] = (cw[hi] - cw[lo]) / (d if d > 1.0 else 1.0)
        g = path[i]
        d = groups[1, g]
        Z[i, f + 6] = groups[0, g] / (d if d > 1.0 else 1.0)
        g = parent[i]
        d = groups[3, g]
        Z[i, f + 7] = groups[2, g] / (d if d > 1.0 else 1.0)
        Z[i, f + 8] = page
        Z[i, f + 9] = kept / total
    stage2.score_rows(Z, init2, prob)
    for i in range(n):
        prob[i] = 1.0 / (1.0 + exp(-prob[i]))
