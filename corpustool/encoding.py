"""Character encoding detection for crawled pages.

Order of evidence: byte-order mark, HTTP ``Content-Type`` charset, ``<meta
charset>`` / ``http-equiv``, XML declaration. A declared encoding is trusted
only when the bytes decode with it and do not contradict it: UTF-8 bytes
declared as ISO-8859-1 or windows-1252 (the common mislabel) decode as UTF-8.
With no usable declaration, strict UTF-8 is tried, then the statistical
detector of charset-normalizer. The result says which evidence decided.
"""
from __future__ import annotations

import codecs
import re
from collections import Counter
from dataclasses import dataclass
from itertools import islice

from .native import backend

_META_CHARSET = re.compile(rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.+-]{1,40})""", re.IGNORECASE)
_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]{0,200}?encoding\s*=\s*["']([a-zA-Z0-9_.+-]{1,40})["']""", re.IGNORECASE)
_HTTP_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([a-zA-Z0-9_:.+-]{1,40})""", re.IGNORECASE)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# WHATWG: browsers decode these labels as windows-1252, so do we.
_WINDOWS_1252_LABELS = {"latin-1", "iso8859-1", "ascii", "cp1252", "iso-8859-1", "us-ascii", "latin1"}
_SINGLE_BYTE_WESTERN = {"cp1252", "latin_1", "iso8859_15", "ascii"}
_BINARY_MAGIC = (b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"%PDF", b"PK\x03\x04", b"\x1f\x8b",
                 b"\x7fELF", b"BZh", b"\xfd7zXZ", b"OggS", b"ID3", b"RIFF", b"\x00\x00\x01\x00")
_CONTROL = bytes(range(0, 9)) + bytes(range(14, 32))
# the share of control characters above which data is no markup: none of the 2,420 development pages
# has one in its first 4 KB, random or compressed data about 10.5% (27 of 256 byte values): a 10%
# line let 119 of 1,000 random 4 KB blocks pass as pages (with a language guessed); 1% is also
# where the readers' describe_content calls data binary
_BINARY_SHARE = 0.01


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str       # Python codec name, e.g. "utf-8", "cp1250"
    source: str         # bom | http | meta | xml | utf8 | detected | fallback
    declared: str | None = None   # what the page or server declared, when it was overruled


def canonical(label: str) -> str | None:
    """Python codec name for an encoding label, or None when unknown."""
    label = label.strip().strip("'\"").lower()
    if label in _WINDOWS_1252_LABELS:
        return "cp1252"
    if label in ("x-sjis", "sjis", "shift-jis", "shift_jis", "ms_kanji", "csshiftjis", "windows-31j"):
        label = "cp932"      # WHATWG: Shift_JIS is decoded as windows-31j (a superset)
    if label in ("utf8", "unicode-1-1-utf-8"):
        label = "utf-8"
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    if name in ("utf-16", "utf-32"):
        # a declaration without byte order where no BOM was found: little endian is the web's habit
        name += "-le"
    return name


def looks_binary(raw: bytes, content_type: str | None = None) -> bool:
    """True for bytes that are no markup at all (images, archives, executables).

    Text in UTF-16 or UTF-32 (a byte-order mark, the zero bytes of ASCII markup in
    UTF-16, or a declaration in ``content_type``) is judged by its characters, not
    its bytes: half of the bytes of UTF-16 HTML are zero.
    """
    head = raw[:4096]
    if head.startswith(_BINARY_MAGIC):
        return True
    if not head:
        return False
    wide = _wide_encoding(head, content_type)
    if wide is not None:
        codec, skip = wide
        unit = 4 if "32" in codec else 2
        body = head[skip:]
        text = body[:len(body) - len(body) % unit].decode(codec, "replace")
        if not text:
            return False
        bad = sum(text.count(c) for c in _CONTROL_TEXT) + text.count("\ufffd")
        return bad / len(text) > _BINARY_SHARE
    controls = sum(head.count(c) for c in _CONTROL)
    return controls / len(head) > _BINARY_SHARE


_CONTROL_TEXT = [chr(c) for c in _CONTROL]


def _wide_encoding(head: bytes, content_type: str | None) -> tuple[str, int] | None:
    """(codec, bytes of BOM) when ``head`` is UTF-16/32 text by its BOM, its zero bytes or its HTTP
    declaration; else None."""
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return (enc, len(bom)) if enc.startswith(("utf-16", "utf-32")) else None
    utf16 = _utf16_without_bom(head)
    if utf16:
        return utf16, 0
    if content_type:
        m = _HTTP_CHARSET.search(content_type)
        enc = canonical(m.group(1)) if m else None
        if enc and enc.startswith(("utf-16", "utf-32")) and head.count(0):
            return enc, 0
    return None


def _utf16_without_bom(raw: bytes) -> str | None:
    head = raw[:2048]
    if len(head) < 8 or head.count(0) < len(head) // 3:
        return None
    even = head[0::2].count(0)
    odd = head[1::2].count(0)
    if odd > 0.3 * len(head) / 2 and even < 0.05 * len(head) / 2:
        return "utf-16-le"
    if even > 0.3 * len(head) / 2 and odd < 0.05 * len(head) / 2:
        return "utf-16-be"
    return None


def _strict(raw: bytes, enc: str) -> str | None:
    try:
        return raw.decode(enc)
    except (UnicodeDecodeError, LookupError):
        return None


_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
MAX_UTF8_ERROR_SHARE = 0.02


def _mostly_utf8(raw: bytes) -> str | None:
    """UTF-8 with a few broken bytes (a truncated character, one pasted Latin-1 word), or None.

    Such pages are UTF-8 with damage, not another encoding: read as a
    single-byte code page, every one of their many valid multi-byte
    characters would become two wrong letters ("moŇľemy" for "możemy").
    The broken bytes become U+FFFD. Accepted when they are at most 2% of
    the page's non-ASCII characters.
    """
    valid = len(_UTF8_SEQUENCE.findall(raw))
    if valid < 20:
        return None
    text = raw.decode("utf-8", "replace")
    broken = text.count("\ufffd") - raw.count(b"\xef\xbf\xbd")
    return text if broken <= MAX_UTF8_ERROR_SHARE * (valid + broken) else None


def _has_utf8_multibyte(raw: bytes) -> bool:
    return re.search(rb"[\xc2-\xf4][\x80-\xbf]", raw) is not None


def declared_encodings(raw: bytes, content_type: str | None) -> list[tuple[str, str, str]]:
    """(source, label, codec) for each declaration found, in order of precedence."""
    found: list[tuple[str, str, str]] = []
    if content_type:
        m = _HTTP_CHARSET.search(content_type)
        if m:
            found.append(("http", m.group(1), canonical(m.group(1)) or ""))
    head = raw[:8192]
    m = _META_CHARSET.search(head)
    if m:
        label = m.group(1).decode("ascii", "replace")
        found.append(("meta", label, canonical(label) or ""))
    m = _XML_DECL.search(head)
    if m:
        label = m.group(1).decode("ascii", "replace")
        found.append(("xml", label, canonical(label) or ""))
    return found


_CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
# of these, vertical tab, form feed and the information separators are white space (form feed is
# HTML's; str.split and the justext package's \s split at all of them): a space, not nothing
_SPACE_CONTROLS = frozenset("\x0b\x0c\x1c\x1d\x1e\x1f")


def _control_replacement(m: re.Match) -> str:
    return " " if m.group() in _SPACE_CONTROLS else ""


def decode(raw: bytes, content_type: str | None = None) -> Decoded:
    """Decode a page's bytes; never raises for any input.

    C0 control characters other than tab and line breaks are removed from the
    text: they are not allowed in HTML, and lxml refuses strings holding them
    (vertical tab, form feed and U+001C-U+001F become a space: they separate words).
    """
    dec = _decode(raw, content_type)
    if _ascii_compatible(dec.encoding) and not _has_control_bytes(raw):
        # in these encodings a control character can only come from its own byte, and
        # a scan of the bytes is several times cheaper than one of the decoded text
        return dec
    text = strip_controls(dec.text)
    if text is not dec.text:
        return Decoded(text, dec.encoding, dec.source, dec.declared)
    return dec


_FORBIDDEN_BYTES = bytes(range(0, 9)) + b"\x0b\x0c" + bytes(range(14, 32))
# codecs whose bytes below 0x20 decode to themselves and never occur inside a multi-byte
# character (UTF-8, single-byte code pages; Shift_JIS, GBK, Big5, EUC trail bytes are >= 0x40);
# not UTF-16/32, UTF-7, ISO-2022 or EBCDIC
_ASCII_COMPATIBLE_PREFIXES = ("utf_8", "utf-8", "cp125", "latin", "iso8859", "iso-8859", "koi8", "mac", "ascii",
                              "gb", "big5", "euc", "shift_jis", "cp932", "cp936", "cp949", "cp950", "tis", "cp874")


def _ascii_compatible(encoding: str) -> bool:
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    return name.startswith(_ASCII_COMPATIBLE_PREFIXES)


def strip_controls(text: str) -> str:
    """``text`` without the C0 control characters HTML forbids, the white-space ones a space
    (the same object when it has none)."""
    found = _first_control(text) >= 0 if _first_control is not None else _CONTROL_CHARS.search(text)
    return _CONTROL_CHARS.sub(_control_replacement, text) if found else text


def _has_control_bytes_py(raw: bytes) -> bool:
    return len(raw.translate(None, _FORBIDDEN_BYTES)) != len(raw)


# the compiled scans (corpustool/native/text_scan.pyx): a tenth of re's search, a fifth of translate's
_first_control = backend.text_scan.get("first_control")
_has_control_bytes = backend.text_scan.get("has_control_bytes") or _has_control_bytes_py


def _decode(raw: bytes, content_type: str | None) -> Decoded:
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            return Decoded(raw[len(bom):].decode(enc, "replace"), enc, "bom")
    utf16 = _utf16_without_bom(raw)
    if utf16:
        return Decoded(raw.decode(utf16, "replace"), utf16, "detected")

    overruled: str | None = None
    for source, label, enc in declared_encodings(raw, content_type):
        if not enc:
            overruled = overruled or label
            continue
        if enc.startswith(("utf-16", "utf-32")):
            # an ASCII-compatible file cannot really be UTF-16; the declaration is a leftover
            overruled = overruled or label
            continue
        text = _strict(raw, enc)
        if text is None and enc == "utf-8":
            text = _mostly_utf8(raw)
        if text is None:
            overruled = overruled or label
            continue
        if enc in _SINGLE_BYTE_WESTERN and _has_utf8_multibyte(raw):
            utf8 = _strict(raw, "utf-8")
            if utf8 is not None:
                # the bytes contradict the label: valid multi-byte UTF-8 is no accident
                return Decoded(utf8, "utf-8", "detected", declared=label)
        return Decoded(text, enc, source)

    text = _strict(raw, "utf-8")
    if text is not None:
        return Decoded(text, "utf-8", "utf8" if overruled is None else "detected", declared=overruled)
    text = _mostly_utf8(raw)
    if text is not None:
        return Decoded(text, "utf-8", "detected", declared=overruled)
    guess = _detect(raw)
    if guess is not None:
        return Decoded(raw.decode(guess, "replace"), guess, "detected", declared=overruled)
    return Decoded(raw.decode("cp1252", "replace"), "cp1252", "fallback", declared=overruled)


def _detect(raw: bytes) -> str | None:
    """The statistical detector (charset-normalizer), with a tie-break of our own.

    charset-normalizer often finds several single-byte encodings equally
    plausible and its first pick can be wrong for Central European text
    (ISO-8859-2 Czech reported as windows-1250, where š and ž become ą and ľ).
    When the plausible candidates decode the text differently, the decoding
    with the most stop words of some language (the jusText stoplists) wins;
    when they decode it identically, the encoding most common on the web is named.
    """
    from charset_normalizer import from_bytes

    # markup is ASCII and only dilutes the statistics: give the detector the text
    sample = re.sub(rb"<[^>]{0,2000}>", b" ", raw[:200_000])
    results = from_bytes(sample or raw[:200_000])
    best = results.best()
    if best is None:
        return None
    candidates: list[str] = []
    for match in results:
        if match.chaos > best.chaos + 0.02:
            continue
        for label in [match.encoding, *match.could_be_from_charset]:
            enc = canonical(label)
            if enc and enc not in candidates:
                candidates.append(enc)
    candidates = candidates[:16]
    by_text: dict[str, list[str]] = {}
    for enc in candidates:
        text = _strict(sample, enc)
        if text is not None:
            by_text.setdefault(text, []).append(enc)
    if not by_text:
        return canonical(best.encoding)
    if len(by_text) > 1:
        scored = sorted(by_text.items(), key=lambda item: -_stopword_hits(item[0]))
        encodings = scored[0][1]
    else:
        encodings = next(iter(by_text.values()))
    return min(encodings, key=lambda e: (_WEB_PREFERENCE.index(e) if e in _WEB_PREFERENCE else 99,
                                          candidates.index(e)))


# Most common encodings of the web first: the name to give when several decode the same bytes alike.
_WEB_PREFERENCE = ["utf-8", "cp1252", "cp1250", "cp1251", "iso8859-2", "cp932", "gbk", "euc_jp", "cp949",
                   "koi8-r", "iso8859-15", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "big5"]


_WORD = re.compile(r"\w+")


def _stopword_hits(text: str) -> int:
    """Words of ``text`` found in the best-matching stoplist of any language."""
    words = [m.group() for m in islice(_WORD.finditer(text.lower()), 3000)]
    if not words:
        return 0
    # each distinct word looked up once per stoplist, its occurrences added (the 6 candidate
    # decodings of the 922 snippet pages: 21.3 -> 3.4 ms each against a lookup per word)
    counts = Counter(words)
    distinct = set(counts)      # (a set & a set walks the smaller one; a dict's keys view copies itself)
    return max((sum(counts[w] for w in distinct & stoplist) for stoplist in _stoplists()), default=0)


_STOPLISTS: list[frozenset[str]] | None = None


def _stoplists() -> list[frozenset[str]]:
    global _STOPLISTS
    if _STOPLISTS is None:
        from .language.stoplists import available_languages, stoplist

        lists = []
        for code in sorted(available_languages()):
            try:
                # (the lists stoplist() remembers, already lower-cased: a copy of the 100 lists would
                # cost a process 23 MB more (tracemalloc), and every full garbage collection walks each set again)
                lists.append(stoplist(code))
            except Exception:  # a broken stoplist file must not break decoding
                continue
        _STOPLISTS = lists
    return _STOPLISTS
