"""A Unicode-aware, language-independent regex tokenizer in the spirit of unitok.

Tokens: URLs, e-mail addresses, abbreviations (a short common list plus
dotted sequences such as ``U.S.`` or ``z.B.``), numbers with inner separators,
words with inner hyphens and apostrophes kept whole, single CJK characters
(scripts without spaces must not collapse into one token per sentence) and
punctuation. For every token we record whether whitespace preceded it, so
the vertical writer can emit ``<g/>`` where it did not.
"""
from __future__ import annotations

import re

ABBREVIATIONS = (
    # English
    "Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "Sr.", "Jr.", "St.", "vs.", "etc.", "Inc.", "Ltd.", "Co.",
    "Corp.", "Jan.", "Feb.", "Mar.", "Apr.", "Jun.", "Jul.", "Aug.", "Sep.", "Sept.", "Oct.",
    "Nov.", "Dec.", "No.", "Fig.", "approx.", "cf.", "al.",
    # German
    "bzw.", "ca.", "usw.", "vgl.", "Nr.", "Str.", "ggf.", "evtl.", "inkl.", "zzgl.", "Hr.", "Fr.",
    # Czech / Slovak
    "tj.", "tzv.", "atd.", "apod.", "např.", "resp.", "mj.", "ing.", "Ing.", "Mgr.", "str.", "tzn.",
    # French / Spanish / Italian / Polish
    "Mme.", "Sra.", "Sr.", "pág.", "ecc.", "np.", "itd.", "tzw.", "godz.",
)
_ABBR = "|".join(re.escape(a) for a in sorted(set(ABBREVIATIONS), key=len, reverse=True))
_CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]"
_TOKEN = re.compile(
    r"(?:https?://|ftp://|www\.)[^\s<>\"']*[^\s<>\"'.,;:!?)\]}»“”]"   # URL
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"                                    # e-mail
    rf"|(?<!\w)(?:{_ABBR})"                                            # known abbreviation
    r"|(?<!\w)(?:[^\W\d_]\.){2,}"                                        # U.S., z.B.
    rf"|{_CJK}"                                                           # one CJK character
    r"|\d+(?:[.,:/]\d+)*"                                               # number
    rf"|(?:(?!{_CJK})[\w])+(?:[-'’](?:(?!{_CJK})[\w])+)*"            # word, hyphenated word
    r"|\.{2,}|-{2,}"                                                    # ellipsis, dash
    r"|\S",                                                              # any other character
)
_CJK_END = {"。", "！", "？"}
_SENTENCE_END = {".", "!", "?", "…", "..."} | _CJK_END


def tokenize(text: str) -> tuple[list[str], list[bool]]:
    """Tokens of ``text`` and, per token, whether it was glued to the previous one."""
    tokens: list[str] = []
    glue: list[bool] = []
    end = -1
    for m in _TOKEN.finditer(text):
        tokens.append(m.group())
        glue.append(end == m.start())
        end = m.end()
    if glue:
        glue[0] = False
    return tokens, glue


def sentence_spans(tokens: list[str]) -> list[tuple[int, int]]:
    """Split a token list into sentences: after end punctuation followed by an
    upper-case or non-alphabetic start (a cheap, language-independent rule)."""
    spans = []
    start = 0
    n = len(tokens)
    for i, tok in enumerate(tokens):
        if tok in _SENTENCE_END and i + 1 < n:
            nxt = tokens[i + 1]
            if tok in _CJK_END:
                spans.append((start, i + 1))
                start = i + 1
                continue
            if nxt in _SENTENCE_END or nxt in ('"', "'", "»", "”", ")"):
                continue
            if nxt[:1].isupper() or not nxt[:1].isalpha():
                spans.append((start, i + 1))
                start = i + 1
    if start < n:
        spans.append((start, n))
    return spans
