"""The token-count / stop-word-density filter (seed 003, Sect. 2.9.3, Table 2.3).

Blocks are made the way jusText makes them (block-level tags, ``<br><br>``).
A block is boilerplate when it has fewer than ``tc`` tokens or its stop-word
density is below ``sw``; otherwise it is main content. The defaults are the
thresholds with the best F0.5 on the Canola development set, evaluated in the
thesis as "tc20-sw0.30-filter" (Tables 2.5, 2.6, 2.8, 2.9).
"""
from __future__ import annotations

from typing import Any

from ..document import Paragraph
from ..errors import OptionError
from .base import Extractor, Page, register
from .segment import cached_segmentation, make_paragraph, pieces

DEFAULT_TC = 20
DEFAULT_SW = 0.30


def _int_option(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise OptionError(f"{name} must be a non-negative integer, not {value!r}")
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            raise OptionError(f"{name} must be a non-negative integer, not {value!r}") from None
    if not isinstance(value, int) or value < 0:
        raise OptionError(f"{name} must be a non-negative integer, not {value!r}")
    return value


def _fraction_option(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise OptionError(f"{name} must be a number in [0, 1], not {value!r}")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise OptionError(f"{name} must be a number in [0, 1], not {value!r}") from None
    if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise OptionError(f"{name} must be a number in [0, 1], not {value!r}")
    return float(value)


@register("tcsw")
class TokenCountStopwordFilter(Extractor):
    needs_stoplist = True
    description = "tc/sw filter: blocks with >= tc tokens and stop-word density >= sw (Pomikálek's thesis, Sect. 2.9.3)"

    def __init__(self, tc: Any = DEFAULT_TC, sw: Any = DEFAULT_SW, **options: Any) -> None:
        if options:
            raise OptionError(f"unknown tcsw option(s): {', '.join(sorted(options))}; known: tc, sw")
        self.tc = _int_option("tc", tc)
        self.sw = _fraction_option("sw", sw)

    def extract(self, page: Page) -> list[Paragraph]:
        if page.tree is None:
            return []
        seg = cached_segmentation(page)
        stoplist = page.stoplist or frozenset()
        out = []
        for block in pieces(seg, "block"):
            text = block.text
            tokens = text.split()
            stop = sum(1 for t in tokens if t.lower() in stoplist)
            density = stop / len(tokens) if tokens else 0.0
            good = len(tokens) >= self.tc and density >= self.sw
            out.append(make_paragraph(seg, block, good, {
                "words": len(tokens),
                "stopwords": stop,
                "stopword_density": round(density, 4),
                "link_density": round(min(1.0, block.link_words / len(tokens)), 4) if tokens else 0.0,
            }, text=text))
        return out
