"""Text that every later tool and both corpus managers store as it is.

A page's text can hold anything its bytes or character references say
(``&#1;``, ``&#xFFFF;``, a raw DEL byte): control characters, lone surrogates
and non-characters are not text, break XML and are refused or mangled by the
corpus managers, so they are removed. Soft hyphens, zero-width spaces, word
joiners and BOMs are layout hints that split words; they go too. Every text is
NFC, so one character has one spelling for searches, counts and
de-duplication. Titles and other attribute values are cleaned as paragraph
text is.

Bounds: ``cwb-encode`` refuses a line over 65,534 bytes (the whole corpus
fails) and truncates a token or attribute value over 4,095 bytes (and in
3.4.33 an over-long value loses the next document's values); Manatee cuts
values at 32,767 bytes, possibly inside a UTF-8 character. So a token is at most
:data:`MAX_TOKEN_BYTES` (a longer one is split into glued pieces: nothing of
the text is lost) and an attribute value at most :data:`MAX_VALUE_BYTES` (cut
on a character boundary, never inside a combining sequence unless that sequence alone is over the
limit: then between two of its code points).
"""
from __future__ import annotations

import re
import unicodedata

from .tokenizer import strip_invisible

MAX_TOKEN_BYTES = 4095
MAX_VALUE_BYTES = 4095

# soft hyphen, zero-width space, word joiner, zero-width no-break space (BOM)
INVISIBLE = re.compile("[\u00ad\u200b\u2060\ufeff]")
# C0 controls but tab, line feed, vertical tab, form feed, carriage return; DEL and C1 but NEL
# (white space to str.split, so a word boundary); lone surrogates; the 66 non-characters
# (U+001C-U+001F, white space too, are a space in clean_text before this runs)
_NONCHARS = "".join(f"\\U{p:04x}fffe\\U{p:04x}ffff" for p in range(1, 17))
FORBIDDEN = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
                       + _NONCHARS + "]")
# a token made only of these says nothing: bidi marks and embeddings, isolates, the Arabic letter
# mark, ZWNJ/ZWJ, variation selectors (everything of category Cf, and the selectors)
_FORMAT_ONLY = re.compile("[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff"
                          "\U000e0001-\U000e007f\U000e0100-\U000e01ef]+")


# vertical tab, form feed, the information separators U+001C-U+001F: white space to str.split
# and the justext package (a word boundary), so a space rather than nothing
SPACE_CONTROLS = re.compile("[\x0b\x0c\x1c-\x1f]")


def clean_text(text: str) -> str:
    """``text`` without invisible layout characters and forbidden code points (the white-space
    controls a space), in NFC."""
    if SPACE_CONTROLS.search(text):
        text = SPACE_CONTROLS.sub(" ", text)
    if INVISIBLE.search(text):
        text = INVISIBLE.sub("", text)
    if FORBIDDEN.search(text):
        text = FORBIDDEN.sub("", text)
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def cut_utf8(text: str, limit: int) -> str:
    """The longest prefix of ``text`` of at most ``limit`` UTF-8 bytes that ends between two
    user-perceived characters (not before a combining mark, a ZWJ or a variation selector), or,
    when the character the limit falls in is itself over ``limit`` bytes (``e`` and 3,000
    combining accents: it can never be kept whole), the longest that ends between two code points."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    pos = limit
    while pos and data[pos] & 0xC0 == 0x80:               # not inside a code point's bytes
        pos -= 1
    end = len(data[:pos].decode("utf-8", "surrogatepass"))
    start = end                                            # where the character at the limit begins
    while start and _continues(text[start], text[start - 1]):
        start -= 1
    stop = end                                             # and where it ends
    while 0 < stop < len(text) and _continues(text[stop], text[stop - 1]):
        stop += 1
    if len(text[start:stop].encode("utf-8", "surrogatepass")) > limit:
        # it can never be kept whole: cut inside it rather than drop it ("e" + 3,000 accents came
        # out empty, a title with one such character in the middle was cut back to "T")
        return text[:end]
    return text[:start]


def _continues(nxt: str, prev: str) -> bool:
    """Whether ``nxt`` belongs to the same user-perceived character as ``prev`` before it."""
    return (unicodedata.category(nxt) in ("Mn", "Mc", "Me") or nxt in "\u200d\ufe0e\ufe0f"
            or prev == "\u200d" or "\U0001f3fb" <= nxt <= "\U0001f3ff")


def clean_value(value: object, limit: int = MAX_VALUE_BYTES) -> tuple[str, bool]:
    """An attribute value as the vertical writer stores it: clean text on one line, single
    spaces, at most ``limit`` bytes; and whether it had to be cut."""
    # (without the invisible format characters the tokenizer drops: a title beginning with a
    # right-to-left mark or an unclosed embedding matches the tokens of the same words)
    text = clean_text(str(value))
    if not text.isascii():      # (most values are numbers, codes and ASCII URLs)
        text = strip_invisible(text)
    text = " ".join(text.split())
    cut = cut_utf8(text, limit).rstrip()
    return cut, len(cut) != len(text)


def bound_tokens(tokens: list[str], glue: list[bool]) -> tuple[list[str], list[bool], int, int]:
    """Tokens every corpus manager stores whole: forbidden code points removed, tokens of format
    characters only dropped, tokens over :data:`MAX_TOKEN_BYTES` split into glued pieces.

    Returns the new tokens and glue, the number of tokens split and of tokens dropped.
    """
    out_t: list[str] = []
    out_g: list[bool] = []
    split = dropped = 0
    pending_glue = False                    # a dropped token's place: keep the next one's glue
    for tok, g in zip(tokens, glue):
        if FORBIDDEN.search(tok):
            tok = FORBIDDEN.sub("", tok)
        if not tok or _FORMAT_ONLY.fullmatch(tok):
            dropped += 1
            pending_glue = pending_glue or not g
            continue
        g = g and not pending_glue
        pending_glue = False
        if len(tok) * 4 > MAX_TOKEN_BYTES and len(tok.encode("utf-8")) > MAX_TOKEN_BYTES:
            split += 1
            first = True
            while tok:
                piece = cut_utf8(tok, MAX_TOKEN_BYTES) or tok[0]
                out_t.append(piece)
                out_g.append(g if first else True)
                first = False
                tok = tok[len(piece):]
            continue
        out_t.append(tok)
        out_g.append(g)
    return out_t, out_g, split, dropped


# a token a corpus manager reads as it is written: non-empty, no white space (a tab starts a second
# column, a line break a second line; Manatee strips leading and trailing spaces), no control,
# invisible or format character; checked on the joined tokens, so tokens from the tokenizer pass at once
_TOKEN_TROUBLE = re.compile("[\\s\x00-\x1f\x7f-\x9f\u00ad\u200b\u2060\ufeff\ud800-\udfff\ufdd0-\ufdef"
                            "\ufffe\uffff" + _NONCHARS + "]")


def given_tokens_need_cleaning(tokens: list[str]) -> bool:
    """Whether tokens that did not come from the tokenizer (a JSON Lines stream's ``tokens``) need
    :func:`clean_tokens`: one is empty, holds white space, a control or invisible character, or is not NFC."""
    if not tokens:
        return False
    if not all(tokens):
        return True
    joined = "|".join(tokens)
    # every character _TOKEN_TROUBLE finds but the space is not printable: most paragraphs need no
    # search (the regular expression costs half as much as tokenizing the paragraph)
    if not (joined.isprintable() and " " not in joined) and _TOKEN_TROUBLE.search(joined):
        return True
    return not unicodedata.is_normalized("NFC", joined)


def clean_tokens(tokens: list[str], glue: list[bool]) -> tuple[list[str], list[bool]]:
    """Tokens given from outside (a JSON Lines stream) made what the tokenizer gives: clean text
    (:func:`clean_text`: no control, invisible or non-characters, NFC), split at white space (a piece
    after white space is not glued), none empty. A dropped token passes its glue on: ``a`` ``""`` ``b``
    with ``b`` glued stays glued only when every token between was glued too."""
    out_t: list[str] = []
    out_g: list[bool] = []
    pending_space = False
    for tok, g in zip(tokens, glue):
        text = clean_text(tok) if tok else ""
        first = True
        lead = text[:1].isspace()
        for piece in text.split():
            out_t.append(piece)
            out_g.append(g and not pending_space and not lead if first else False)
            first = False
            pending_space = False
        if first:                              # nothing left of the token
            pending_space = pending_space or not g or bool(text)
        elif text[-1:].isspace():
            pending_space = True
    return out_t, out_g


def needs_bounding(text: str, tokens: list[str]) -> bool:
    """Cheap test whether :func:`bound_tokens` could change the tokens of a paragraph."""
    if FORBIDDEN.search(text) or _FORMAT_ONLY.search(text):
        return True
    return len(text) * 4 > MAX_TOKEN_BYTES and any(len(t) * 4 > MAX_TOKEN_BYTES for t in tokens)
