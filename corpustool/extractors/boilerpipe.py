"""boilerpipe's DefaultExtractor as the decision tree of Algorithm 2.1 (seed 003, Sect. 2.6.4).

The page is split into blocks at every tag except links (``<a>``), so that a
block's link density is the share of its words inside ``<a>``. Each block is
classified by the pruned C4.8 tree of Algorithm 2.1 ("NumWords/LinkDensity
classifier" of Kohlschütter et al.) from the word count and link density of
the previous, the current and the next block. Before the first and after the
last block stands an empty block (0 words, link density 0), as in boilerpipe.

Words are whitespace-delimited tokens (the thesis' definition, Sect. 2.6.4).
Only the classifier is implemented, as in the thesis' lxml re-implementation
(DefExt_lxml): the Java DefaultExtractor's block-fusion pre-processing is not.
"""
from __future__ import annotations

from typing import Any

from ..document import Paragraph
from ..errors import OptionError
from .base import Extractor, Page, register
from .segment import cached_segmentation, make_paragraph, pieces

CONTENT = True
BOILERPLATE = False


def classify_block(prev_words: int, prev_ld: float, curr_words: int, curr_ld: float,
                   next_words: int, next_ld: float) -> tuple[bool, str]:
    """Algorithm 2.1 of seed 003: (is content, the leaf that decided).

    ``next_ld`` is not used by the tree; it is accepted so callers pass the
    three blocks' features uniformly.
    """
    if curr_ld <= 0.333333:
        if prev_ld <= 0.555556:
            if curr_words <= 16:
                if next_words <= 15:
                    if prev_words <= 4:
                        return BOILERPLATE, "short-after-short"
                    return CONTENT, "short-after-text"
                return CONTENT, "short-before-text"
            return CONTENT, "long"
        if curr_words <= 40:
            if next_words <= 17:
                return BOILERPLATE, "after-links-before-short"
            return CONTENT, "after-links-before-text"
        return CONTENT, "after-links-long"
    return BOILERPLATE, "linky"


@register("boilerpipe")
class BoilerpipeExtractor(Extractor):
    description = ("boilerpipe DefaultExtractor: its decision tree on blocks split at every tag but <a> "
                   "(Pomikálek's thesis, Sect. 2.6.4, Algorithm 2.1)")

    def __init__(self, **options: Any) -> None:
        if options:
            raise OptionError(f"extractor 'boilerpipe' takes no options: {', '.join(sorted(options))}")

    def extract(self, page: Page) -> list[Paragraph]:
        if page.tree is None:
            return []
        seg = cached_segmentation(page)
        blocks = pieces(seg, "fine")
        texts = [b.text for b in blocks]
        words = [len(t.split()) for t in texts]
        density = [min(1.0, b.link_words / w) if w else 0.0 for b, w in zip(blocks, words)]
        out = []
        n = len(blocks)
        for k, block in enumerate(blocks):
            pw, pld = (words[k - 1], density[k - 1]) if k > 0 else (0, 0.0)
            nw, nld = (words[k + 1], density[k + 1]) if k + 1 < n else (0, 0.0)
            content, leaf = classify_block(pw, pld, words[k], density[k], nw, nld)
            out.append(make_paragraph(seg, block, content, {
                "words": words[k],
                "link_density": round(density[k], 4),
                "prev_words": pw,
                "prev_link_density": round(pld, 4),
                "next_words": nw,
                "next_link_density": round(nld, 4),
                "rule": leaf,
            }, text=texts[k]))
        return out
