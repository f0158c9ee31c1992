# cython: language_level=3
"""justext-learned's gradient-boosted trees evaluated from their arrays (backend.trees).

``tree_scores`` gives, for every row of X, ``init`` plus the sum over the trees of the leaf
the row reaches: the same as ``justext_learned.TreeModel``'s numpy evaluation and LightGBM's
raw score (tests/test_justext_learned.py). Every index is checked once before the loop
(features inside X's columns, children inside the node and leaf arrays), and a walk longer
than the number of nodes is an error, so no model file can read outside its arrays or loop.
"""
cimport cython


@cython.boundscheck(False)
@cython.wraparound(False)
def tree_scores(const double[:, ::1] X, const int[::1] feature, const double[::1] threshold,
                const int[::1] left, const int[::1] right, const double[::1] leaf,
                const int[::1] roots, double init, double[::1] out):
    """out[i] = init + the leaves row i of X reaches (children < 0: leaf ~child)."""
    cdef Py_ssize_t n = X.shape[0], n_feat = X.shape[1]
    cdef Py_ssize_t n_nodes = feature.shape[0], n_leaves = leaf.shape[0], n_trees = roots.shape[0]
    cdef Py_ssize_t i, t, steps
    cdef int node
    cdef double s
    if out.shape[0] != n:
        raise ValueError("tree_scores: out must have one value per row")
    if threshold.shape[0] != n_nodes or left.shape[0] != n_nodes or right.shape[0] != n_nodes:
        raise ValueError("tree_scores: the node arrays differ in length")
    for i in range(n_nodes):
        if feature[i] < 0 or feature[i] >= n_feat:
            raise ValueError("tree_scores: a feature index out of range")
        if left[i] >= n_nodes or left[i] < -n_leaves or right[i] >= n_nodes or right[i] < -n_leaves:
            raise ValueError("tree_scores: a child index out of range")
    for t in range(n_trees):
        if roots[t] >= n_nodes or roots[t] < -n_leaves:
            raise ValueError("tree_scores: a root index out of range")
    for i in range(n):
        s = init
        for t in range(n_trees):
            node = roots[t]
            steps = 0
            while node >= 0:
                if X[i, feature[node]] <= threshold[node]:
                    node = left[node]
                else:
                    node = right[node]
                steps += 1
                if steps > n_nodes:
                    raise ValueError("tree_scores: a tree with a cycle")
            s += leaf[~node]
        out[i] = s
