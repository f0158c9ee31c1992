# Stubs of corpustool/native/tree_scores.pyx: justext-learned's trees from arrays (backend.trees).
from typing import Any


class CompleteTrees:
    depth: int

    def __init__(self, feature: Any, threshold: Any, left: Any, right: Any, leaf: Any, roots: Any,
                 n_features: int) -> None: ...

    def scores(self, X: Any, init: float, out: Any) -> None: ...
