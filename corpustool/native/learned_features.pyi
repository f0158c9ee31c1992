# Stubs of corpustool/native/learned_features.pyx: justext-learned's feature matrix (backend.features).
from typing import Any, Sequence


class PageColumns:
    def __init__(self, features: Sequence[str], neighbour_keys: Sequence[str], kinds: Sequence[str],
                 tag_code: dict[str, int], cf_code: dict[str, int], reason_code: dict[str, int],
                 sentence_end: str, line_verdict: Any, price_search: Any, words_findall: Any,
                 saturated: Sequence[str] = (), saturation: float = ..., first_answer: Any = None) -> None: ...

    def verdict_of(self, t: str, heading: bool) -> tuple[bool, bool, str | None, bool]: ...

    def fill(self, paras: list[Any], kinds: Any, hints: Any, chains: Any, title_words: Any, discussion: float,
             product: float, item_list: float, posts: float, X: Any, path_ids: Any, parent_ids: Any,
             chars_out: Any) -> int: ...

    def clear(self) -> None: ...


def decide_classes(prob: Any, paras: list[Any], drop: Sequence[bool] | None, max_distance: int, repeats: bool,
                   good_at: float, bad_below: float, fallback_share: float, repeat_min: int,
                   repeated: str) -> tuple[list[str], list[str]]: ...
