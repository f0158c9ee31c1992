"""Would a vertical file round-trip through the real corpus manager? (``corpustool vert-check``)

Two readers are ported from C, byte for byte where it matters, so that what they return is what the
corpus manager stores:

* :func:`manatee_read_line` / :func:`manatee_store_val` — Manatee 2.225.8's ``encodevert``
  (``src/encodevert.cc``: ``encode()``, ``write_region_attr::store_val``, ``read_literal``,
  ``read_string``, ``skip_white``, ``write_full_attr::write``);
* :func:`cwb_read_line` / :func:`cwb_parse_annotation` — CWB 3.4.33's ``cwb-encode``
  (``utils/cwb-encode.c``: ``encode_get_input_line``, ``cwb_encode_worker``, ``s_att_open_range``,
  ``s_att_close_range``, ``encode_add_p_attr_line``; ``cl/special-chars.c``:
  ``cl_xml_entity_decode``), run as the README's recipe runs it (``-c utf8 -x -s``, no ``-B``).

:func:`convention_read_line` reads a line the way corpustool's vertical writer means it for a target
(``manatee``: values in double quotes with ``\\\\`` and ``\\"``, no entities; ``cwb``: XML entities for
``cwb-encode -x``), and :class:`VertChecker` compares the two readings line by line.

Deliberately not ported: Manatee's dynamic/multivalue attributes, ``DEFAULTVALUE`` other than the
default ``===NONE===``, nesting beyond "opened while open"; CWB's ``-V``/recursion children beyond
``:0``, feature sets, ``-B``/``-C``/``-n``/``-L``, other charsets than UTF-8. The two tools'
whole-corpus effects that depend on more than one line (empty regions, a structure opened while open,
CWB's lexicon offset after a truncated value) are tracked by :class:`VertChecker`.
"""
from __future__ import annotations

import gzip
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import IO, Iterable, Iterator, Mapping, Sequence

from ..options import OPTIONS

TARGETS = OPTIONS["target"].choices
DEFAULT_TARGET = OPTIONS["target"].default

#: structures and attributes corpustool writes (the declarations a corpus configuration /
#: ``cwb-encode -S`` list should make)
STRUCTURES: dict[str, tuple[str, ...]] = {
    "doc": ("id", "url", "title", "lang", "lang_score", "crawl_date", "encoding", "domain", "tld", "site",
            "wordcount", "length", "lang_diff", "type", "date", "date_source", "author", "sitename",
            # quality marks (corpustool/quality.py ATTRIBUTES)
            "q", "q_rules", "q_punct", "q_short", "q_wordlen", "q_symbols", "q_nonalpha", "q_stop", "q_bullets",
            "q_ellipsis", "q_dup_lines", "q_dup_chars", "q_top2", "q_top3", "q_top4", "q_dup5"),
    "p": ("heading", "lang"),
    "s": (),
    "g": (),
}

MANATEE_DEFAULT = b"===NONE==="        # new_write_attr(): DEFAULTVALUE empty -> "===NONE==="
MANATEE_MAX_VALUE = 32767             # write_full_attr::write
MANATEE_MAX_KEY = 32766               # finlib/writelex.cc write_fsalex::str2id (hat-trie keys)
CWB_MAX_INPUT_LINE = 65536            # cwb-encode.c MAX_INPUT_LINE_LENGTH
CWB_MAX_VALUE = 4096                  # cl.h CL_MAX_LINE_LENGTH
CWB_UNDEF = b"__UNDEF__"              # undef_value of cwb-encode


@dataclass
class Stored:
    """What a corpus manager makes of one line.

    kind: ``open`` (``empty`` for ``<x/>``), ``close``, ``token``, ``skip`` (ignored line) or
    ``fatal`` (the whole encode aborts). ``values``: every declared attribute of the structure with
    the value stored (the default when missing). ``messages``: what the tool prints for the line.
    """
    kind: str
    name: str | None = None
    values: dict[str, bytes] = field(default_factory=dict)
    token: bytes | None = None
    empty: bool = False
    messages: list[str] = field(default_factory=list)
    line: bytes = b""                  # the line after the tool's own normalisation (CWB: NFC)


# --------------------------------------------------------------------------------------- Manatee

_SPACE = b" \t\n\v\f\r"               # isspace() in the C locale
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _read_literal(s: bytes, i: int, lit_size: int) -> tuple[bytes, int]:
    """encodevert.cc ``read_literal``: ``[A-Za-z0-9_]`` (isalnum in the C locale), at most
    ``lit_size - 1`` bytes."""
    start = i
    while i < len(s) and s[i] in _ALNUM and lit_size - 1 > i - start:
        i += 1
    return s[start:i], i


def _read_string(s: bytes, i: int, enclosed: int) -> tuple[bytes, int, bool]:
    """encodevert.cc ``read_string``: up to the closing quote; ``\\<quote>`` and ``\\\\`` stand for the
    second character, any other backslash is kept. Returns (value, index after the closing quote,
    terminated). The buffer is as long as the whole attribute string, so its limit never bites."""
    out = bytearray()
    n = len(s)
    while i < n and s[i] != enclosed:
        if s[i] == 0x5C and i + 1 < n and (s[i + 1] == enclosed or s[i + 1] == 0x5C):
            i += 1
        out.append(s[i])
        i += 1
    # C: txtin++ also past the terminating NUL of an unterminated value (reads beyond the string)
    return bytes(out), i + 1, i < n


def _skip_white(s: bytes, i: int) -> int:
    while i < len(s) and s[i] in _SPACE:
        i += 1
    return i


def manatee_write_value(value: bytes) -> tuple[bytes, list[str]]:
    """encodevert.cc ``write_full_attr::write``: leading and trailing spaces (``' '`` only) are
    stripped with a warning, then the value is cut at 32,767 bytes (``overlong attribute value``);
    then finlib/writelex.cc ``write_fsalex::str2id`` (the lexicon of a build with
    ``LEXICON_USE_FSA3``, as built here) keeps at most 32,766 bytes, silently (hat-trie keys). Either
    cut may fall inside a UTF-8 character."""
    messages = []
    stripped = value.strip(b" ")
    if stripped != value:
        messages.append("stripping space in attribute value")
    if len(stripped) > MANATEE_MAX_VALUE:
        messages.append("overlong attribute value")
    return stripped[:MANATEE_MAX_KEY], messages


def manatee_store_val(valuestr: bytes, declared: Sequence[str]) -> tuple[dict[str, bytes], list[str]]:
    """encodevert.cc ``write_region_attr::store_val`` (with ``read_literal``, ``read_string``,
    ``skip_white`` and ``write_full_attr::write``): the attribute string of a structure tag -> the
    value stored for each declared attribute (``===NONE===`` when the tag does not give it).

    Names are ``[A-Za-z0-9_]`` (79 bytes at most); ``=`` may have white space around it; a value is
    ``"..."`` or ``'...'`` (see :func:`_read_string`) or a bare ``[A-Za-z0-9_]*`` literal. No XML
    entity is decoded (``/* XXX subst_ent */``). Parsing stops at the first syntax error
    (``empty attribute name``, ``expecting '=', got 'c'``); a repeated attribute keeps its first
    value (the second write is refused as an "incorrect position"); undeclared ones are ignored.
    """
    values: dict[str, bytes] = {}
    messages: list[str] = []
    s = 0
    n = len(valuestr)
    while s < n:
        name, s = _read_literal(valuestr, s, 80)
        if not name:
            messages.append("empty attribute name")
            break
        s = _skip_white(valuestr, s)
        if s >= n or valuestr[s] != 0x3D:
            got = chr(valuestr[s]) if s < n else "\\0"
            messages.append(f"expecting '=', got '{got}'")
            break
        s = _skip_white(valuestr, s + 1)
        if s < n and valuestr[s] in b"'\"":
            value, s, terminated = _read_string(valuestr, s + 1, valuestr[s])
            if not terminated:
                messages.append("value without closing quote (encodevert reads past the end of the tag)")
        else:
            value, s = _read_literal(valuestr, s, n + 1)
        key = name.decode("ascii")
        if key not in declared:
            messages.append(f"structure attribute ({key}) not defined, ignoring")
        elif key in values:
            messages.append(f"attribute {key} given twice: the second value is refused")
        else:
            values[key], more = manatee_write_value(value)
            messages += [f"{key}: {m}" for m in more]
        if s > n:
            break
        s = _skip_white(valuestr, s)
    for key in declared:
        values.setdefault(key, MANATEE_DEFAULT)
    return {k: values[k] for k in declared}, messages


def _manatee_tag_regex(names: Iterable[str]) -> re.Pattern[bytes]:
    # encode(): regpatstr = "^</?(" + names joined by '|' + ")( +(.*))?/?(>)[ \t]*$" (POSIX ERE,
    # regexec in the C locale: '.' is any byte). Python's greedy groups give the same submatches.
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rb"</?(" + alternatives.encode() + rb")( +(.*))?/?(>)[ \t]*\Z", re.S)


_MANATEE_REGEX_CACHE: dict[tuple[str, ...], re.Pattern[bytes]] = {}


def manatee_read_line(raw: bytes, structures: Mapping[str, Sequence[str]] = STRUCTURES) -> Stored:
    """encodevert.cc ``encode()``, the body of the input loop, for one line (with ``getline``,
    ``my_strtok`` and ``write_full_attr::write``), for a corpus whose configuration declares
    ``structures`` and one positional attribute (``word``).

    * the line ends at a NUL byte (C strings); trailing ``' '``, ``\\r``, ``\\n`` are stripped;
      an empty line is ignored (``empty line, ignoring``);
    * a line starting with ``<`` that matches ``^</?(doc|p|…)( +(.*))?/?(>)[ \\t]*$`` is a structure
      tag (``</x …>`` closes; ``<x …/>`` opens and closes; the text after the spaces is the attribute
      string, see :func:`manatee_store_val`); any other line — ``<foo>``, ``<doc\\tid=…>``,
      ``<p> x`` — is a token;
    * a token is the text up to the first tab (more fields: ``too many attributes``), stripped of
      spaces and cut at 32,766 bytes as attribute values are (:func:`manatee_write_value`). No entity is decoded.
    """
    line = raw.split(b"\0", 1)[0]
    line = line.rstrip(b" \r\n")
    if not line:
        return Stored("skip", messages=["empty line, ignoring"], line=line)
    names = tuple(structures)
    regex = _MANATEE_REGEX_CACHE.get(names)
    if regex is None:
        regex = _MANATEE_REGEX_CACHE[names] = _manatee_tag_regex(names)
    m = regex.match(line) if line[:1] == b"<" else None
    if m:
        name = m.group(1).decode("ascii")
        if line[1:2] == b"/":
            return Stored("close", name, line=line)
        end = m.start(4)
        empty = line[end - 1:end] == b"/"
        valuestr = b""
        if m.start(3) != -1 and m.start(3) != m.end(3):
            if empty:
                end -= 1
            valuestr = line[m.start(3):end]
        # write_region::open(pos, valuestr) stores the string; flush_notstored() parses it only when
        # it is not empty
        values, messages = manatee_store_val(valuestr, structures[name])
        return Stored("open", name, values, empty=empty, messages=messages, line=line)
    messages = []
    token = line.split(b"\t", 1)
    if len(token) > 1:
        messages.append("too many attributes")
    value, more = manatee_write_value(token[0])
    return Stored("token", token=value, messages=messages + more, line=line)


# -------------------------------------------------------------------------------------------- CWB

def _cwb_name_char(c: int) -> bool:
    """cl.h ``cl_xml_is_name_char``: ASCII letters and digits, ``-``, ``_`` and every byte >= 0x80."""
    return (65 <= c <= 90) or (97 <= c <= 122) or (48 <= c <= 57) or c >= 0x80 or c == 45 or c == 95


_CWB_ENTITIES = re.compile(rb"&(?:lt|gt|amp|quot|apos);")
_CWB_ENTITY_VALUES = {b"&lt;": b"<", b"&gt;": b">", b"&amp;": b"&", b"&quot;": b'"', b"&apos;": b"'"}


def cl_xml_entity_decode(s: bytes) -> bytes:
    """cl/special-chars.c ``cl_xml_entity_decode``: ``&lt; &gt; &amp; &quot; &apos;`` only, left to
    right, in one pass (``&amp;lt;`` gives ``&lt;``); numeric references are kept as they are."""
    return _CWB_ENTITIES.sub(lambda m: _CWB_ENTITY_VALUES[m.group(0)], s)


def cwb_truncate(value: bytes) -> tuple[bytes, list[str]]:
    """cwb-encode.c ``s_att_close_range`` / ``encode_add_p_attr_line``: a value of 4,096 bytes or more
    becomes its first 4,094 bytes and ``$``; if that cut a UTF-8 character (``g_utf8_validate``),
    the incomplete character is replaced by ``$`` and the value ends there."""
    if len(value) < CWB_MAX_VALUE:
        return value, []
    cut = value[:CWB_MAX_VALUE - 2] + b"$"
    try:
        cut.decode("utf-8")
    except UnicodeDecodeError as exc:
        cut = cut[:exc.start] + b"$"
    return cut, [f"value exceeds maximum string length ({len(value)} > {CWB_MAX_VALUE - 1} chars), truncated"]


def cwb_parse_annotation(annot: bytes, declared: Sequence[str], *, strip_blanks: bool = False
                         ) -> tuple[dict[str, bytes], list[str]]:
    """cwb-encode.c ``s_att_open_range`` (the element-attribute loop) and ``s_att_close_range`` (the
    truncation): the annotation string of a start tag -> the value stored for each declared
    attribute (``-S doc:0+id+url…``); a missing one is stored as the empty string.

    Names are ``cl_xml_is_name_char`` runs, white space (``' '``/``\\t``) allowed before and after
    ``=``; a value is ``"..."`` or ``'...'`` up to the next same quote — no backslash escapes — or a
    bare name-character run. Every syntax error (no ``=``, missing end quote, empty bare value, empty
    name) stops the parsing: the attributes not read yet are stored empty. Values are always
    entity-decoded (:func:`cl_xml_entity_decode`, with or without ``-x``); ``-B`` strips trailing
    blanks; then :func:`cwb_truncate`. A repeated attribute keeps its first value; undeclared ones
    are ignored.
    """
    values: dict[str, bytes] = {}
    messages: list[str] = []
    n = len(annot)

    def at(i: int) -> int:
        return annot[i] if i < n else 0

    mark = 0
    while at(mark):
        point = mark
        while _cwb_name_char(at(point)):
            point += 1
        name_end = point
        while at(point) in (0x20, 0x09):
            point += 1
        if at(point) != 0x3D:
            messages.append("attributes ignored because of syntax error (``='' not found)")
            break
        name = annot[mark:name_end]
        mark = point + 1
        while at(mark) in (0x20, 0x09):
            mark += 1
        quote = at(mark)
        if quote in (0x22, 0x27):
            mark += 1
            point = annot.find(bytes([quote]), mark)
            if point < 0:
                messages.append("attributes ignored because of syntax error (value missing end quote)")
                break
            value = annot[mark:point]
            mark = point + 1
        else:
            point = mark
            while _cwb_name_char(at(point)):
                point += 1
            value = annot[mark:point]
            mark = point if point >= n else point + 1
            if not value:
                messages.append("attributes ignored because of syntax error (attribute=id with empty value)")
                break
        if not name:
            messages.append("attributes ignored because of syntax error (empty attribute name)")
            break
        key = name.decode("utf-8", "surrogateescape")
        if key not in declared:
            messages.append(f"undeclared element attribute {key} ignored")
        elif key in values:
            messages.append(f"duplicate attribute value {key} ignored")
        else:
            value = cl_xml_entity_decode(value)
            if strip_blanks:
                value = value.rstrip(b" \t")
            values[key], more = cwb_truncate(value)
            messages += [f"{key}: {m}" for m in more]
        while at(mark) in (0x20, 0x09):
            mark += 1
    for key in declared:
        values.setdefault(key, b"")
    return {k: values[k] for k in declared}, messages


def cwb_read_line(raw: bytes, structures: Mapping[str, Sequence[str]] = STRUCTURES, *,
                  xml_aware: bool = True, skip_empty_lines: bool = True, strip_blanks: bool = False,
                  first_line: bool = False) -> Stored:
    """cwb-encode.c ``encode_get_input_line`` and ``cwb_encode_worker`` (the main loop) for one line,
    with ``encode_add_p_attr_line`` for a token line and one positional attribute; the options are
    the recipe's ``-c utf8 -x -s`` (``-B`` = ``strip_blanks``), ``structures`` the ``-S`` list
    (``doc:0+id+…``; an empty tuple = no values).

    * ``fgets`` into a 65,536-byte buffer; the first line loses a UTF-8 BOM; the line is validated
      (invalid UTF-8 aborts the encode: ``Encoding error``), normalised to NFC (the whole line), and
      a line of 65,535 bytes or more with its newline aborts (``Input line too long``); a NUL byte
      ends the line;
    * CR/LF removed; ``-s``: an empty line is skipped; ``-x``: lines starting ``<?`` or ``<!`` are
      skipped;
    * ``<`` + name (:func:`_cwb_name_char`) + one of ``' ' \\t > /``: a tag if the name is declared
      (open: the annotation runs to the last ``>``, a ``/`` before it is dropped, see
      :func:`cwb_parse_annotation`; a tag not ending in ``>`` keeps no annotation; close tags ignore
      anything after the name); an undeclared or malformed tag is inserted literally as a token;
    * a token is the text up to the first tab, ``__UNDEF__`` when empty, entity-decoded with ``-x``
      (:func:`cl_xml_entity_decode`), then :func:`cwb_truncate`.
    """
    chunk = raw[:CWB_MAX_INPUT_LINE - 1]                 # fgets(buffer, MAX_INPUT_LINE_LENGTH, …)
    if first_line and chunk.startswith(b"\xef\xbb\xbf"):
        chunk = chunk[3:]
    chunk = chunk.split(b"\0", 1)[0]                     # C strings
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError:
        return Stored("fatal", messages=["Encoding error: an invalid byte or byte sequence for charset "
                                         "\"utf8\" was encountered"], line=chunk)
    chunk = unicodedata.normalize("NFC", text).encode("utf-8")
    if len(chunk) >= CWB_MAX_INPUT_LINE - 1:
        return Stored("fatal", messages=[f"Input line too long (max: {CWB_MAX_INPUT_LINE - 2} "
                                         "characters/bytes)"], line=chunk)
    buf = chunk.rstrip(b"\r\n")                          # cl_string_chomp
    if strip_blanks:
        buf = buf.lstrip(b" ")
    if not buf:
        if skip_empty_lines:
            return Stored("skip", line=buf)
    if xml_aware and buf[:1] == b"<" and buf[1:2] in (b"?", b"!"):
        return Stored("skip", messages=["XML declaration or comment skipped"], line=buf)
    messages: list[str] = []
    if buf[:1] == b"<":
        n = len(buf)

        def at(i: int) -> int:
            return buf[i] if i < n else 0

        k = 2 if at(1) == 0x2F else 1
        i = k
        while _cwb_name_char(at(i)):
            i += 1
        if at(i) not in (0x20, 0x09, 0x3E, 0x2F):
            i = k
        if i > k:
            name = buf[k:i].decode("utf-8")
            separator = at(i)
            if name in structures:
                if k == 2:
                    if separator != 0x3E:
                        messages.append(f"no annotations allowed on XML close tag </{name} ...>, ignored")
                    return Stored("close", name, messages=messages, line=buf)
                i_sep = i
                i += 1
                while at(i) in (0x20, 0x09):
                    i += 1
                if separator == 0x3E:
                    if at(i):
                        messages.append("extra material after XML tag ignored")
                    annot = b""
                else:
                    j = n
                    while j > i and (at(j) in (0x20, 0x09, 0)):
                        j -= 1
                    if at(j) != 0x3E:
                        messages.append("Malformed XML tag: missing > terminator at end of line "
                                        "(annotations will be ignored)")
                        annot = b""
                    else:
                        # buf[i_sep] was overwritten by NUL: "/" right after the name is not seen here
                        if j - 1 != i_sep and at(j - 1) == 0x2F:
                            j -= 1
                        annot = buf[i:j]
                declared = structures[name]
                if declared:
                    values, more = cwb_parse_annotation(annot, declared, strip_blanks=strip_blanks)
                    messages += more
                else:
                    values = {}
                    if annot:
                        messages.append(f"annotations of s-attribute <{name}> not stored")
                return Stored("open", name, values, empty=False, messages=messages, line=buf)
            messages.append(f"s-attribute <{name}> not declared, inserted literally")
        else:
            messages.append("malformed tag, inserted literally")
    token = buf.split(b"\t", 1)[0]
    if strip_blanks:
        token = token.strip(b" ")
    if not token:
        token = CWB_UNDEF
    elif xml_aware:
        token = cl_xml_entity_decode(token)
    token, more = cwb_truncate(token)
    return Stored("token", token=token, messages=messages + more, line=buf)


# --------------------------------------------------------------------- corpustool's own convention

@dataclass
class Intended:
    """What a line means under corpustool's writer convention for a target.

    kind: ``open``, ``empty`` (``<g/>``), ``close``, ``token`` or ``malformed`` (looks like one of our
    tags but follows no reading of the convention). ``attrs``: (name, value) in file order.
    ``unescaped``: names of values that needed the lenient reading (a quote or backslash the writer
    would have escaped)."""
    kind: str
    name: str | None = None
    attrs: list[tuple[str, str]] = field(default_factory=list)
    token: str | None = None
    unescaped: set[str] = field(default_factory=set)


_OUR_TOKEN_ENTITIES = re.compile(r"&(?:amp|lt|gt);")
_OUR_VALUE_ENTITIES = re.compile(r"&(?:amp|lt|gt|quot);")
_OUR_ENTITY_VALUES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"'}
_BACKSLASH_ESCAPE = re.compile(r'\\([\\"])')
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# a line that is a structure tag by its form, <name ...>, </name> or <name/>, of any name
_UNDECLARED_TAG = re.compile(r"</?([A-Za-z_][A-Za-z0-9_.-]*)(?:[ \t][^>]*)?/?>\r?$")
_ATTR_START = re.compile(r" +(" + _NAME + r')="')
_VALUE_END = re.compile(r'(?:[ \t]+[A-Za-z_][\w.-]*[ \t]*=[ \t]*["\']|[ \t]*/?>[ \t]*\Z)')
_LENIENT_ATTR_START = re.compile(r"[ \t]+([A-Za-z_][\w.-]*)[ \t]*=[ \t]*([\"'])")


def decode_token(text: str, target: str) -> str:
    """Our writer's token escaping undone: ``manatee``: none; ``cwb``: ``&amp; &lt; &gt;``."""
    if target == "cwb" and "&" in text:
        return _OUR_TOKEN_ENTITIES.sub(lambda m: _OUR_ENTITY_VALUES[m.group(0)], text)
    return text


def decode_value(text: str, target: str) -> str:
    """Our writer's value escaping undone: ``manatee``: ``\\\\`` and ``\\"`` (a lone backslash is
    itself); ``cwb``: ``&amp; &lt; &gt; &quot;``."""
    if target == "cwb":
        return _OUR_VALUE_ENTITIES.sub(lambda m: _OUR_ENTITY_VALUES[m.group(0)], text)
    return _BACKSLASH_ESCAPE.sub(r"\1", text)


def _strict_value(line: str, i: int, target: str) -> tuple[str, int] | None:
    """A double-quoted value as our writer writes it, from just after the opening quote."""
    if target == "cwb":
        end = line.find('"', i)
        return None if end < 0 else (decode_value(line[i:end], target), end + 1)
    out = []
    n = len(line)
    while i < n:
        c = line[i]
        if c == "\\" and i + 1 < n and line[i + 1] in '"\\':
            out.append(line[i + 1])
            i += 2
        elif c == '"':
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    return None


def convention_read_line(line: str, target: str, structures: Mapping[str, Sequence[str]] = STRUCTURES
                         ) -> Intended:
    """A line (without its newline) as corpustool's vertical writer means it for ``target``.

    Tags are ``<name>``, ``<name a="v" …>``, ``<name/>`` and ``</name>`` for the declared structure
    names; any other line is a token (``cwb``: ``&amp; &lt; &gt;`` decoded). A tag whose values do
    not follow the escaping (a raw ``"``, a value ending in a lone backslash) is read leniently: a
    value ends at the first quote followed by another ``name="`` or by the end of the tag.
    """
    if line[:1] != "<":
        return Intended("token", token=decode_token(line, target))
    closing = line[1:2] == "/"
    start = 2 if closing else 1
    m = re.match(_NAME, line[start:])
    name = m.group(0) if m else ""
    after = start + len(name)
    if name not in structures or line[after:after + 1] not in (" ", "/", ">"):
        return Intended("token", token=decode_token(line, target))
    if closing:
        return Intended("close", name) if line[after:] == ">" else Intended("malformed", name)
    strict = _read_attrs_strict(line, after, target)
    if strict is not None:
        kind, attrs = strict
        return Intended(kind, name, attrs)
    lenient = _read_attrs_lenient(line, after, target)
    if lenient is not None:
        kind, attrs, unescaped = lenient
        return Intended(kind, name, attrs, unescaped=unescaped)
    return Intended("malformed", name)


def _read_attrs_strict(line: str, i: int, target: str):
    attrs = []
    while True:
        rest = line[i:]
        if rest == ">":
            return "open", attrs
        if rest == "/>":
            return "empty", attrs
        m = _ATTR_START.match(line, i)
        if not m:
            return None
        got = _strict_value(line, m.end(), target)
        if got is None:
            return None
        value, i = got
        attrs.append((m.group(1), value))


def _read_attrs_lenient(line: str, i: int, target: str):
    attrs, unescaped = [], set()
    while True:
        rest = line[i:].rstrip(" \t")
        if rest.endswith(">") and not rest[:-1].strip(" \t/") and rest.count("/") <= 1:
            return ("empty" if "/" in rest else "open"), attrs, unescaped
        m = _LENIENT_ATTR_START.match(line, i)
        if not m:
            return None
        quote, j = m.group(2), m.end()
        while True:
            end = line.find(quote, j)
            if end < 0:
                return None
            if _VALUE_END.match(line, end + 1):
                break
            j = end + 1
        raw = line[m.end():end]
        if _strict_value(raw + '"', 0, target) != (decode_value(raw, target), len(raw) + 1) or quote != '"':
            unescaped.add(m.group(1))
        attrs.append((m.group(1), decode_value(raw, target)))
        i = end + 1


# ------------------------------------------------------------------------------------ the checker

@dataclass
class Problem:
    line: int
    what: str                 # "<doc> title", "token", "line"
    reason: str
    intended: str | None = None
    stored: str | None = None

    def format(self, name: str = "") -> str:
        where = f"{name}:{self.line}" if name else str(self.line)
        text = f"{where}: {self.what}: {self.reason}"
        if self.intended is not None or self.stored is not None:
            text += f" (intended {_show(self.intended)}, stored {_show(self.stored)})"
        return text


def _show(value: str | None, limit: int = 70) -> str:
    if value is None:
        return "nothing"
    if len(value) > limit:
        return repr(value[:limit - 20]) + f"…[{len(value.encode('utf-8', 'surrogateescape'))} bytes]"
    return repr(value)


_BAD_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff\udc80-\udcff"
                        "\U0001fffe\U0001ffff\U0002fffe\U0002ffff\U0003fffe\U0003ffff\U0004fffe\U0004ffff"
                        "\U0005fffe\U0005ffff\U0006fffe\U0006ffff\U0007fffe\U0007ffff\U0008fffe\U0008ffff"
                        "\U0009fffe\U0009ffff\U000afffe\U000affff\U000bfffe\U000bffff\U000cfffe\U000cffff"
                        "\U000dfffe\U000dffff\U000efffe\U000effff\U000ffffe\U000fffff\U0010fffe\U0010ffff\t\r\n\ufeff]")
_PLAIN_TOKEN = re.compile(rb"[^<&\x00-\x20\x7f-\xff]{1,4095}\Z")
_ENTITY_HINT = re.compile(r"&(?:amp|quot|lt|gt|#\d+|#x[0-9a-fA-F]+);")


def _bad_char_kind(ch: str, text: str, skipped: bool = False) -> str:
    if ch == "\t":
        return "tab"
    if ch == "\ufeff":
        # (corpustool never writes one; a file saved by an editor that adds a BOM starts with one,
        # and encodevert, which strips none, stores its first tag as a token)
        if skipped and text.startswith("\ufeff"):
            return "byte order mark: cwb-encode skips it on the first line only"
        return ("byte order mark: the tag after it is read as a token" if text.startswith("\ufeff<")
                else "byte order mark, invisible")
    return "control or non-character"


def _text(b: bytes | None) -> str | None:
    return None if b is None else b.decode("utf-8", "surrogateescape")


class VertChecker:
    """Feed the lines of a vertical file (bytes, newline included), collect :class:`Problem` s.

    Each line is read twice, with the port of the target's reader and with our convention; every
    value, token or tag they read differently is a problem, as are lines the tool refuses (CWB:
    too long, invalid UTF-8), invalid UTF-8 and characters our writer never writes (controls,
    tabs, lone surrogates, non-characters). Across lines: a structure opened while open, an empty
    region (not stored: CWB drops it, Manatee drops it when the next one opens at the same
    position).
    """

    def __init__(self, target: str = DEFAULT_TARGET, structures: Mapping[str, Sequence[str]] = STRUCTURES) -> None:
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r} (choose from {', '.join(TARGETS)})")
        self.target = target
        self.structures = dict(structures)
        self.lineno = 0
        self.problems_found = 0
        self.position = 0                       # tokens stored so far
        self.open: dict[str, tuple[int, int]] = {}     # structure -> (line, position) of the open tag
        self.last_open: dict[str, tuple[int, int]] = {}
        self.truncated: dict[str, int] = {}     # CWB: attribute -> line of its first truncated value
        self.entity_hint = 0

    def _problem(self, out: list[Problem], what: str, reason: str, intended=None, stored=None, line=None) -> None:
        out.append(Problem(line or self.lineno, what, reason, intended, stored))

    def feed(self, raw: bytes) -> list[Problem]:
        self.lineno += 1
        out: list[Problem] = []
        body = raw[:-1] if raw.endswith(b"\n") else raw
        # fast path: an ordinary token both readers store as it is
        if _PLAIN_TOKEN.match(body) and (self.target == "manatee" or b"&" not in body):
            self.position += 1
            return out
        if self.target == "manatee":
            stored = manatee_read_line(raw, self.structures)
        else:
            stored = cwb_read_line(raw, self.structures, first_line=self.lineno == 1)
        text = body.decode("utf-8", "surrogateescape")
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._problem(out, "line", f"invalid UTF-8 at byte {exc.start}")
        bad = _BAD_CHARS.search(text.rstrip("\r") if self.target == "cwb" else text)
        if bad and not 0xDC80 <= ord(bad.group(0)) <= 0xDCFF:
            self._problem(out, "line", f"character U+{ord(bad.group(0)):04X} "
                               f"({_bad_char_kind(bad.group(0), text, self.target == 'cwb' and self.lineno == 1)})")
        if stored.kind == "fatal":
            self._problem(out, "line", f"{'cwb-encode' if self.target == 'cwb' else 'encodevert'} aborts the "
                                       f"whole encode: {stored.messages[0]}")
            self.problems_found += len(out)
            return out
        intended = convention_read_line(text, self.target, self.structures)
        if self.target == "manatee" and intended.kind in ("open", "empty") and not self.entity_hint:
            if any(_ENTITY_HINT.search(v) for _, v in intended.attrs):
                self.entity_hint = self.lineno
        self._compare(intended, stored, out)
        tag = _UNDECLARED_TAG.match(text) if intended.kind == "token" and stored.kind == "token" else None
        if tag:
            # (corpustool never writes such a token: its tokenizer splits "<" off; in a file written or
            # edited by hand it is a structure its author meant, which the tool keeps as a word)
            self._problem(out, f"<{tag.group(1)}>", f"a tag of an undeclared structure: "
                          f"{'cwb-encode' if self.target == 'cwb' else 'encodevert'} stores the line as a token",
                          stored=_text(stored.token))
        self._track(intended, stored, out)
        self.problems_found += len(out)
        return out

    def _compare(self, intended: Intended, stored: Stored, out: list[Problem]) -> None:
        said = "; ".join(stored.messages)
        tool = "cwb-encode" if self.target == "cwb" else "encodevert"
        if intended.kind == "malformed":
            self._problem(out, f"<{intended.name}>", "tag not written as the convention writes it; "
                          + (f"{tool} stores it as a token" if stored.kind == "token" else f"{tool}: {said or 'read as a tag'}"),
                          stored=_text(stored.token))
            return
        if intended.kind == "token" and intended.token == "" and stored.kind == "skip":
            return
        if intended.kind == "token":
            if stored.kind == "token":
                if _text(stored.token) != intended.token:
                    self._problem(out, "token", self._why(intended.token, _text(stored.token), stored),
                                  intended.token, _text(stored.token))
            elif stored.kind == "skip":
                self._problem(out, "token", f"line ignored by {tool}", intended.token, None)
            else:
                self._problem(out, "token", f"{tool} reads it as a structure tag <{stored.name}>",
                              intended.token, None)
            return
        if stored.kind in ("token", "skip"):
            self._problem(out, f"<{intended.name}>", f"{tool} does not read it as a tag"
                          + (f" ({said})" if said else "")
                          + ("; stored as a token" if stored.kind == "token" else ""),
                          stored=_text(stored.token))
            return
        if stored.name != intended.name or (stored.kind == "close") != (intended.kind == "close"):
            self._problem(out, f"<{intended.name}>", f"{tool} reads another tag: <{'/' if stored.kind == 'close' else ''}{stored.name}>")
            return
        if intended.kind == "close":
            return
        if self.target == "manatee" and (intended.kind == "empty") != stored.empty:
            self._problem(out, f"<{intended.name}>", f"{tool} reads {'an empty' if stored.empty else 'a start'} tag")
        declared = self.structures.get(intended.name, ())
        given = {}
        for key, value in intended.attrs:
            if key in given:
                self._problem(out, f"<{intended.name}> {key}", "attribute given twice", value, None)
                continue
            given[key] = value
            if key not in declared:
                self._problem(out, f"<{intended.name}> {key}", "attribute not declared: not stored", value, None)
                continue
            got = _text(stored.values.get(key))
            if got != value:
                why = self._why(value, got, stored, key)
                if key in intended.unescaped:
                    why = ("value ends in an unescaped backslash, which escapes the closing quote; "
                           if self.target == "manatee" and value.endswith("\\") else
                           "value not escaped as the convention writes it; ") + why
                self._problem(out, f"<{intended.name}> {key}", why, value, got)
            elif key in intended.unescaped:
                pass                            # the naive spelling happens to be read right
        default = MANATEE_DEFAULT if self.target == "manatee" else b""
        for key in declared:
            if key not in given and stored.values.get(key, default) != default:
                self._problem(out, f"<{intended.name}> {key}", "a value the file does not give is stored"
                              + (f" ({said})" if said else ""), None, _text(stored.values[key]))
        if self.target == "cwb":
            for key in declared:
                if key in self.truncated and key in given and self.truncated[key] < self.lineno:
                    self._problem(out, f"<{intended.name}> {key}",
                                  f"may be misread: after the value truncated on line {self.truncated[key]}, "
                                  "CWB 3.4.33 records wrong lexicon offsets for new values of this attribute",
                                  given[key], None)
            for key in declared:
                if key in given and len(given[key].encode("utf-8", "surrogateescape")) >= CWB_MAX_VALUE:
                    self.truncated.setdefault(key, self.lineno)

    def _why(self, intended: str, stored: str | None, read: Stored, key: str | None = None) -> str:
        messages = [m.split(": ", 1)[1] if key and m.startswith(f"{key}: ") else m for m in read.messages
                    if not key or m.startswith(f"{key}: ") or ":" not in m.split(" ", 1)[0]]
        if stored is None:
            return "not stored"
        size = len(intended.encode("utf-8", "surrogateescape"))
        if self.target == "manatee":
            if stored in (MANATEE_DEFAULT.decode(),) and intended != stored:
                return "lost: the tag's parsing stopped before it (" + "; ".join(read.messages) + ")"
            if intended.strip(" ") == stored:
                return "leading/trailing spaces stripped"
            if size > MANATEE_MAX_KEY and intended.encode("utf-8", "surrogateescape").strip(b" ")[
                    :MANATEE_MAX_KEY].decode("utf-8", "surrogateescape") == stored:
                return f"cut at {MANATEE_MAX_KEY:,} bytes"
        else:
            if size >= CWB_MAX_VALUE and stored.endswith("$"):
                return f"truncated to {CWB_MAX_VALUE - 2:,} bytes and '$'"
            if unicodedata.normalize("NFC", intended) == stored:
                return "normalised to NFC by cwb-encode"
            if stored == "" and key:
                return "lost: the tag's parsing stopped before it (" + "; ".join(read.messages) + ")"
        return "; ".join(messages) or "read differently"

    def _track(self, intended: Intended, stored: Stored, out: list[Problem]) -> None:
        if stored.kind == "token":
            self.position += 1
            return
        if stored.kind not in ("open", "close") or stored.name == "g":
            return
        name = stored.name
        if stored.kind == "open":
            if name in self.open:
                where = self.open[name][0]
                self._problem(out, f"<{name}>", f"opened while the <{name}> of line {where} is open: "
                              + ("cwb-encode drops this region and its values" if self.target == "cwb"
                                 else "encodevert closes the first one here"))
            if self.target == "manatee":
                last = self.last_open.get(name)
                if last and last[1] == self.position and name not in self.open:
                    self._problem(out, f"<{name}>", "empty region (no token): encodevert drops it when the "
                                  "next one opens at the same position", line=last[0])
                self.last_open[name] = (self.lineno, self.position)
            if self.target == "manatee" or name not in self.open:
                self.open[name] = (self.lineno, self.position)
            if stored.empty:
                self.open.pop(name, None)
        else:
            opened = self.open.pop(name, None)
            if opened is None:
                self._problem(out, f"</{name}>", "closes a structure that is not open")
            elif self.target == "cwb" and opened[1] == self.position:
                self._problem(out, f"<{name}>", "empty region (no token): cwb-encode does not store it",
                              line=opened[0])

    def hints(self) -> list[str]:
        if self.entity_hint:
            return [f"note: attribute values hold XML entities (first on line {self.entity_hint}); Manatee stores "
                    "them as written: was the file written for --target cwb?"]
        return []


def open_vertical(path: str) -> IO[bytes]:
    """A vertical file for reading as bytes: ``-`` is standard input, ``.gz`` is decompressed."""
    if path == "-":
        stream = sys.stdin.buffer
        head = stream.peek(2)[:2] if hasattr(stream, "peek") else b""
        return gzip.GzipFile(fileobj=stream) if head == b"\x1f\x8b" else stream
    handle = open(path, "rb")
    if handle.read(2) == b"\x1f\x8b":
        handle.seek(0)
        return gzip.GzipFile(fileobj=handle)  # type: ignore[return-value]
    handle.seek(0)
    return handle


def check_lines(lines: Iterable[bytes], target: str = DEFAULT_TARGET,
                structures: Mapping[str, Sequence[str]] = STRUCTURES) -> Iterator[Problem]:
    """Every :class:`Problem` of a vertical file given as lines of bytes (newline included)."""
    checker = VertChecker(target, structures)
    for raw in lines:
        yield from checker.feed(raw)


@dataclass
class CheckSummary:
    lines: int
    problems: int
    hints: list[str]


def check_file(path: str, target: str = DEFAULT_TARGET, report=None, limit: int | None = None,
               structures: Mapping[str, Sequence[str]] = STRUCTURES) -> CheckSummary:
    """Check a vertical file (``-`` = stdin, gzip recognised by its magic bytes); ``report(problem)``
    is called for the first ``limit`` problems (all when None). Raises ``OSError`` when the file
    cannot be read (also a broken gzip stream)."""
    checker = VertChecker(target, structures)
    shown = 0
    stream = open_vertical(path)
    try:
        for raw in stream:
            for problem in checker.feed(raw):
                if report is not None and (limit is None or shown < limit):
                    report(problem)
                    shown += 1
    except (EOFError, gzip.BadGzipFile) as exc:
        raise OSError(f"{path}: {exc}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return CheckSummary(checker.lineno, checker.problems_found, checker.hints())
