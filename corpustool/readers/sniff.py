"""What a file's first bytes say it is: the format the read stage reads it as
(:func:`sniff_format`) and the words messages use for it (:func:`describe_content`)."""
from __future__ import annotations

import re
import zlib


def sniff_format(head: bytes) -> str:
    """warc, arc, jsonl or html from a file's first (decompressed) bytes."""
    if head.startswith(b"WARC/"):
        return "warc"
    if head.startswith(b"filedesc://"):
        return "arc"
    if head.lstrip().startswith(b"{"):
        return "jsonl"
    if head.strip() and not _MARKUP.search(head) and describe_content(head) == "plain text":
        return "text"       # no tag in its first 4 KB: a text document, paragraphs between blank lines
    return "html"       # HTML, or junk that the clean stage drops with a reason


_MARKUP = re.compile(rb"<[A-Za-z!/?]")
# control bytes that text (also HTML and WARC headers) does not hold: NUL..BS, SO..US except ESC
_BINARY_BYTES = bytes(range(0, 9)) + bytes(range(14, 27)) + bytes(range(28, 32))


def describe_content(head: bytes) -> str:
    """What data whose first bytes are ``head`` looks like, for messages: "a WARC archive",
    "HTML", "a vertical file", "JSON", "binary data", "plain text", each with " (gzip-compressed)"."""
    if head[:2] == b"\x1f\x8b":
        try:
            inner = zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(head, 4096)
        except zlib.error:
            inner = b""
        return f"{describe_content(inner)} (gzip-compressed)" if inner else "gzip-compressed data"
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "UTF-16 text"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"WARC/"):
        return "a WARC archive"
    if text.startswith(b"filedesc://"):
        return "an ARC archive"
    if text[:4].lower() == b"<doc" and text[4:5] in (b" ", b">", b"\t"):
        return "a vertical file (a corpus)"
    sample = text[:4096]
    if sample and sum(map(sample.count, _BINARY_BYTES)) > len(sample) * 0.01:
        return "binary data"
    if text[:1] == b"<":
        return "HTML"
    if text[:1] in (b"{", b"["):
        return "JSON"
    return "plain text" if text else "empty"
