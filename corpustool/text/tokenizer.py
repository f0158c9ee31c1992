"""A Unicode-aware, language-independent regex tokenizer in the spirit of unitok.

Tokens: URLs, e-mail addresses, abbreviations (a short common list plus
dotted sequences such as ``U.S.`` or ``z.B.``), numbers with inner separators,
words with inner hyphens and apostrophes kept whole, and punctuation. For
every token we record whether whitespace preceded it, so the vertical writer
can emit ``<g/>`` where it did not.

Scripts written without spaces (seed 003, Sect. 2.9.9: splitting at white
space "does not work for languages such as Chinese or Japanese") must not
collapse into one token per sentence. Without a dictionary segmenter we use
the units the scripts themselves give:

* Chinese characters (Han) and Japanese hiragana: one token per character.
  A Chinese word has 1.5-1.7 characters on average, so counts in characters
  keep the order of magnitude of word counts; most Japanese function words
  (particles, endings) are written in hiragana, one or two characters each.
* Katakana runs stay whole: a run of katakana is nearly always one
  (loan)word, the script-change boundary that character-type segmenters
  such as TinySegmenter rely on.
* Thai, Lao, Khmer, Burmese: one token per orthographic character cluster
  (a base letter with its combining vowel and tone marks), never a mark alone.

An emoji is one token with what belongs to it (a ZWJ sequence such as 👨‍👩‍👧, a skin-tone
modifier, a flag of two regional indicators, a keycap, a variation selector, tag characters);
invisible format characters (bidi marks, embeddings and isolates, soft hyphen, BOM, word joiner,
zero-width space) are dropped before tokenizing, so they are never tokens and never split a word.

Korean (Hangul) writes spaces between words and is tokenized like any other
script. :func:`justext_words` and :func:`count_words` give jusText's unit of
counting: the justext package's ``text.split()`` unchanged for text without
such scripts (so its decisions are reproduced exactly), the units above for
text with them.
"""
from __future__ import annotations

import re
import sys
import unicodedata


def _mark_ranges() -> str:
    """Character-class body of all combining marks (Mn, Mc, Me) plus ZWNJ/ZWJ.

    Python's ``\\w`` does not include combining marks, so without them a
    Devanagari, Bengali, Tamil, Thai or Arabic word (vowel signs, viramas,
    harakat) would fall apart into letters.
    """
    ranges: list[list[int]] = []
    # Basic Multilingual Plane only: a class with any range beyond it makes the
    # regex engine test ranges one by one (80x slower); marks outside the BMP
    # belong to historic scripts
    for cp in range(0x10000):
        if unicodedata.category(chr(cp)) in ("Mn", "Mc", "Me") or cp in (0x200C, 0x200D):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


MARKS = _mark_ranges()
# a letter or a combining mark (not a digit, not "_")
LETTER = rf"(?:[^\W\d_]|[{MARKS}])"

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
# characters of scripts written without spaces between words
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff\u3005\u3007"
_HIRAGANA = "\u3040-\u309f"
_KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
# Thai, Lao, Khmer, Burmese: base letters and their combining marks
_SEA_MARKS = ("\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd"
              "\u17b4-\u17d3\u17dd\u102b-\u103e\u1056-\u1059\u105e-\u1060\u1062-\u1064"
              "\u1067-\u106d\u1071-\u1074\u1082-\u108d\u108f\u109a-\u109d")
_SEA = "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u19e0-\u19ff\u1000-\u109f"
_NOSPACE = f"[{_HAN}{_HIRAGANA}{_KATAKANA}{_SEA}]"
_NOSPACE_UNIT = (f"[{_KATAKANA}]+"                            # katakana run: one (loan)word
                 f"|[{_HAN}{_HIRAGANA}]"                     # one Chinese character or hiragana
                 f"|[{_SEA}](?:[{_SEA_MARKS}])*")            # one character cluster
# a run of word characters (not of a script without spaces) with combining marks inside
_WORD_CHARS = f"[^\\W{_HAN}{_HIRAGANA}{_KATAKANA}{_SEA}]"
_WORDPART = f"(?:{_WORD_CHARS}|[{MARKS}])(?:{_WORD_CHARS}+|[{MARKS}]+)*"
# an emoji (or other symbol) with what belongs to it: variation selectors, skin-tone modifiers,
# tag characters (subdivision flags), enclosing keycap, and further symbols joined by ZWJ
_EMOJI_TAIL = "[\ufe00-\ufe0f\u20e3\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]*"
_EMOJI = (r"[\U0001f1e6-\U0001f1ff]{2}"                                  # flag: two regional indicators
          rf"|[^\s\w]{_EMOJI_TAIL}(?:\u200d[^\s\w]{_EMOJI_TAIL})+"        # ZWJ sequence 👨‍👩‍👧
          rf"|[^\s\w][\ufe00-\ufe0f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]{_EMOJI_TAIL}")  # ❤️ 👍🏽
# a Western emoticon: eyes, maybe a nose, a mouth of one to three characters (":-)", ";)", ":D",
# ":'(", ":)))"), and the heart "<3"; not glued to a word before it ("Note:D", "3;)" stay apart)
# nor to a letter or slash after it (":Directory", "C:/")
EMOTICON = r"(?<!\w)(?:[:;=][-'^]?[)(\]\[DPpOo/\\|]{1,3}|</?3)(?![\w/])"
_TOKEN = re.compile(
    r"(?:https?://|ftp://|www\.)[^\s<>\"']*[^\s<>\"'.,;:!?)\]}»“”]"   # URL
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"                                    # e-mail
    rf"|(?<!\w)(?:{_ABBR})"                                            # known abbreviation
    r"|(?<![\w.])(?:[Cc]\+\+|[CFJ]#|\.NET)(?![\w+#])"                        # C++, C#, .NET
    r"|(?<!\w)(?:[^\W\d_]\.){2,}"                                        # U.S., z.B.
    rf"|{_NOSPACE_UNIT}"                                                  # script without spaces
    r"|[0-9#*]\ufe0f?\u20e3"                                             # keycap 1️⃣
    r"|\d+(?:[.,:/]\d+)*"                                               # number
    rf"|{_WORDPART}(?:[-'’]{_WORDPART})*"                                # word, hyphenated word
    r"|\.{2,}|-{2,}"                                                    # ellipsis, dash
    rf"|{EMOTICON}"                                                      # emoticon :-)
    rf"|{_EMOJI}"                                                         # emoji, flag
    r"|\S",                                                              # any other character
)
# Invisible format characters (bidi marks and embeddings, isolates, the Arabic letter mark, BOM /
# zero-width no-break space, word joiner, invisible operators, soft hyphen, Mongolian vowel
# separator, zero-width space) are dropped and do not split a word.
# ZWJ, ZWNJ and variation selectors belong to the character before them (Indic and Persian
# words, emoji) and are dropped only where they stand alone.
_FORMAT_CHARS = ("\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
                 "\ufeff\ufff9-\ufffb")
_INVISIBLE = re.compile(f"[{_FORMAT_CHARS}\u200c\u200d\ufe00-\ufe0f]")
_FORMAT_RE = re.compile(f"[{_FORMAT_CHARS}]+")
_LONE_JOINER = re.compile("(?<!\\S)[\u200c\u200d\ufe00-\ufe0f]+|[\u200c\u200d]+(?!\\S)")


def strip_invisible(text: str) -> str:
    """``text`` without invisible format characters (see above): what :func:`tokenize` reads."""
    text = _FORMAT_RE.sub("", text)
    return _LONE_JOINER.sub("", text)


intern = sys.intern


def tokenize(text: str) -> tuple[list[str], list[bool]]:
    """Tokens of ``text`` and, per token, whether it was glued to the previous one.

    No token spans white space, so the text is split at white space first and
    a chunk of letters only (most words) is taken whole without the regular
    expression: the same tokens, three times faster.

    Tokens are interned: a document's tokens are mostly a few thousand words repeated, and the
    paragraphs keep their tokens through the later stages, so one string per distinct word
    instead of one per token bounds a big page's memory (a 10 MB page's tokens: 236 -> 53 MB).
    """
    tokens: list[str] = []
    glue: list[bool] = []
    add_token, add_glue = tokens.append, glue.append
    search_nospace = _NOSPACE_RE.search
    if not text.isascii() and _INVISIBLE.search(text):
        text = strip_invisible(text)
    for chunk in text.split():
        if chunk.isalpha() and (chunk.isascii() or not search_nospace(chunk)):
            add_token(intern(chunk))
            add_glue(False)
            continue
        end = -1
        for m in _TOKEN.finditer(chunk):
            add_token(intern(m.group()))
            add_glue(end == m.start())
            end = m.end()
    return tokens, glue


_NOSPACE_RE = re.compile(_NOSPACE)
# inside a whitespace-separated chunk: a unit of a script without spaces, or a run of
# anything else that is not CJK punctuation (ideographic space, 、。「」, full-width forms)
_JUSTEXT_UNIT = re.compile(rf"{_NOSPACE_UNIT}|(?:(?!{_NOSPACE})[^\s\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65])+")


def justext_words(text: str) -> list[str]:
    """The words jusText counts (length in words, stop-word density).

    Exactly ``text.split()`` (the justext package) when the text has no
    character of a script written without spaces; otherwise each
    whitespace-separated chunk with such characters is split into their units
    (see the module doc), other runs kept whole, CJK punctuation dropped.
    """
    if not _NOSPACE_RE.search(text):
        return text.split()
    out: list[str] = []
    for chunk in text.split():
        if _NOSPACE_RE.search(chunk):
            out.extend(_JUSTEXT_UNIT.findall(chunk))
        else:
            out.append(chunk)
    return out


def count_words(text: str) -> int:
    """Number of :func:`justext_words`: words, or characters/units for scripts without spaces."""
    if not _NOSPACE_RE.search(text):
        return len(text.split())
    return len(justext_words(text))


# the sentence splitter lives in sentences.py; the writers import it from here
from .sentences import sentence_spans  # noqa: E402,F401
