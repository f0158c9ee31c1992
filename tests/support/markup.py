"""Seeded random markup for the walks' differential tests: nested, unclosed, odd tags and texts."""
from __future__ import annotations

import random
from typing import Callable, Sequence


def random_markup(rng: random.Random, tags: Sequence[str], texts: Sequence[str], void: set[str],
                  items: tuple[int, int] = (0, 5), max_depth: int = 6, close: float = 0.85,
                  attrs: Callable[[random.Random, str], str] = lambda rng, tag: "", depth: int = 0) -> str:
    """A run of texts and elements; an element is left unclosed with probability ``1 - close``."""
    out = []
    for _ in range(rng.randint(*items)):
        if rng.random() < 0.45 or depth > max_depth:
            out.append(rng.choice(texts))
            continue
        tag = rng.choice(tags)
        attr = attrs(rng, tag)
        if tag in void:
            out.append(f"<{tag}{attr}>")
        else:
            end = f"</{tag}>" if rng.random() < close else ""
            inner = random_markup(rng, tags, texts, void, items, max_depth, close, attrs, depth + 1)
            out.append(f"<{tag}{attr}>{inner}{end}")
    return "".join(out)
