# Stubs of corpustool/native/tree_scores.pyx: justext-learned's trees from arrays (backend.trees).
from typing import Any


def tree_scores(X: Any, feature: Any, threshold: Any, left: Any, right: Any, leaf: Any, roots: Any,
                init: float, out: Any) -> None: ...
