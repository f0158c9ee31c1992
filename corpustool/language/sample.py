"""The part of a long text that the language questions read (bounded memory per document).

Identifying a text's language and counting its stop words split the whole text into words: about
10 bytes of Python objects per character, 20x a big page's size. A page's language is plain long
before a million characters, so the clean stage's guess and the language filter read at most
:data:`LANGUAGE_SAMPLE_CHARS` characters of it; no development page has that much text, so their
answers are unchanged.
"""
from __future__ import annotations

LANGUAGE_SAMPLE_CHARS = 1_000_000


def language_sample(text: str, limit: int = LANGUAGE_SAMPLE_CHARS) -> str:
    """``text`` up to ``limit`` characters, else its first ``limit`` characters cut back to the
    last space (no half word at the end)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    return text[:cut if cut > limit // 2 else limit]
