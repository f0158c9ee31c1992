"""The options of paragraph de-duplication (onion), defined once: :class:`OnionOptions`.

A module of its own, without numpy, so that `corpustool onion` (onion's engine over bytes) and the
command line read the options without loading the extended engine (dedup/onion.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import OptionError
from ..options import ONION_OPTIONS, check, default

# Defaults (options.py): 7-grams and threshold 0.5 as the onion program (corpus.tools); stub length in
# tokens, heading distance in characters
DEFAULT_N = default("onion_n")
DEFAULT_THRESHOLD = default("onion_threshold")
DEFAULT_MAX_STUB = default("onion_max_stub_length")
DEFAULT_MAX_HEADING_DISTANCE = default("onion_max_heading_distance")
WITHIN_MODES = ("paragraphs", "ngrams", "none")


@dataclass
class OnionOptions:
    """The options of paragraph de-duplication, defined once: the stage (:class:`Onion`), the
    engines, `dedup-para`, `build --onion-...` and the vertical `onion` take them from here (their
    defaults and checks: the option table, options.py)."""

    n: int = DEFAULT_N
    threshold: float = DEFAULT_THRESHOLD
    skip_punct: bool = default("onion_skip_punct")
    skip_stopwords: bool = default("onion_skip_stopwords")
    stoplist: str | None = None          # language code, or path of a stoplist file
    document_level: bool = default("onion_document_level")
    smoothing: bool = default("onion_smoothing")
    max_stub_length: int = DEFAULT_MAX_STUB
    max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE
    hash_bits: int = default("onion_hash_bits")
    whole_paragraphs: bool = default("onion_whole_paragraphs")   # also match every paragraph as a whole
    # repeats inside a document: paragraphs | ngrams | none; None: paragraphs with whole-paragraph
    # matching, else none
    within_document: str | None = None

    def __post_init__(self) -> None:
        if self.within_document is None:
            self.within_document = "paragraphs" if self.whole_paragraphs else "none"

    def validate(self) -> "OnionOptions":
        for name in ("n", "threshold", "max_stub_length", "max_heading_distance", "hash_bits"):
            check(name, getattr(self, name), ONION_OPTIONS)
        if self.within_document not in WITHIN_MODES:
            raise OptionError(f"within_document must be one of {', '.join(WITHIN_MODES)}, "
                              f"not {self.within_document!r}", option="within_document")
        if self.within_document == "paragraphs" and not self.whole_paragraphs:
            raise OptionError("within_document 'paragraphs' needs whole-paragraph matching",
                              option="within_document")
        return self

    def hash_params(self) -> dict[str, Any]:
        """What determines the n-gram hashes (stored with a duplicate n-gram file)."""
        return {"n": self.n, "skip_punct": self.skip_punct, "skip_stopwords": self.skip_stopwords,
                "stoplist": self.stoplist if self.skip_stopwords else None, "hash_bits": self.hash_bits,
                "whole_paragraphs": self.whole_paragraphs, "hash": "xxh3-poly-v1"}
