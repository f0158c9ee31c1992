"""HTTP payloads as archived in WARC/ARC records: headers, de-chunking, decompression, media types.

Both WARC back ends hand us the record block as bytes; parsing the HTTP
message here (instead of in warcio or FastWARC) gives identical documents
whichever back end read the file, and lets us see when a block is shorter
than its ``Content-Length`` (a truncated file).
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Types that say nothing about the payload: the bytes decide (WHATWG MIME sniffing).
UNKNOWN_TYPES = frozenset({"", "application/octet-stream", "unknown/unknown", "application/unknown",
                           "*/*", "application/x-unknown-content-type", "binary/octet-stream"})

# WHATWG MIME Sniffing, "identifying a resource with an unknown MIME type": the HTML patterns.
_HTML_SNIFF = re.compile(
    rb"<(?:!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>/]",
    re.IGNORECASE)
_XML_THEN_HTML = re.compile(rb"<\?xml[^>]*\?>\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)[\s>]",
                            re.IGNORECASE | re.DOTALL)
_HEADER_END = re.compile(rb"\r?\n\r?\n")
MAX_HEADER_BYTES = 64 * 1024


class PayloadError(ValueError):
    """The HTTP body cannot be decoded (bad chunking or compression)."""


@dataclass
class HttpMessage:
    status: int | None
    headers: dict[str, str] = field(default_factory=dict)   # lower-cased names
    header_length: int = 0                                  # bytes of status line + headers + blank line


def media_type(content_type: str | None) -> str:
    """``text/html; charset=x`` -> ``text/html``."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def sniffs_as_html(body: bytes) -> bool:
    """True when the first bytes look like HTML markup (after a BOM and white space)."""
    head = body[:1024]
    for bom in (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"):
        if head.startswith(bom):
            if bom != b"\xef\xbb\xbf":
                # UTF-16 markup: look at the ASCII bytes only
                head = head[2:].replace(b"\x00", b"")
            else:
                head = head[3:]
            break
    head = head.lstrip()
    if _HTML_SNIFF.match(head):
        return True
    return bool(_XML_THEN_HTML.match(head))


def parse_http_head(block: bytes) -> HttpMessage | None:
    """Status line and headers at the start of ``block``; None when it is no HTTP response."""
    if not block.startswith(b"HTTP/"):
        return None
    m = _HEADER_END.search(block, 0, MAX_HEADER_BYTES)
    if m is None:
        # headers without the blank line: everything is headers, the body is empty
        end = body_start = len(block) if len(block) <= MAX_HEADER_BYTES else -1
        if end < 0:
            return None
    else:
        end, body_start = m.start(), m.end()
    lines = block[:end].decode("latin-1").splitlines()
    status = None
    parts = lines[0].split(None, 2)
    if len(parts) >= 2 and parts[1].isdigit():
        status = int(parts[1])
    headers: dict[str, str] = {}
    last = None
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and last is not None:
            headers[last] += " " + line.strip()          # obsolete header folding
            continue
        name, sep, value = line.partition(":")
        if not sep:
            continue
        name = name.strip().lower()
        value = value.strip()
        if name in headers:
            headers[name] += ", " + value
        else:
            headers[name] = value
        last = name
    return HttpMessage(status, headers, body_start)


def dechunk(body: bytes) -> bytes:
    """Undo ``Transfer-Encoding: chunked``; raises PayloadError on malformed chunks."""
    out = bytearray()
    pos = 0
    n = len(body)
    while pos < n:
        eol = body.find(b"\n", pos)
        if eol < 0:
            raise PayloadError("chunk size line without end")
        size_field = body[pos:eol].split(b";", 1)[0].strip()
        try:
            size = int(size_field, 16)
        except ValueError:
            raise PayloadError(f"bad chunk size {size_field[:20]!r}") from None
        pos = eol + 1
        if size == 0:
            return bytes(out)
        if pos + size > n:
            raise PayloadError("chunk runs past the end of the record")
        out += body[pos:pos + size]
        pos += size
        if body.startswith(b"\r\n", pos):
            pos += 2
        elif body.startswith(b"\n", pos):
            pos += 1
    # no terminating zero-size chunk: accept what was there (crawlers often cut it)
    return bytes(out)


def _looks_chunked(body: bytes) -> bool:
    return re.match(rb"[0-9a-fA-F]{1,8}[ \t]*(?:;[^\r\n]*)?\r?\n", body) is not None


def decompress(body: bytes, coding: str, limit: int | None) -> bytes:
    """Undo a ``Content-Encoding``; at most ``limit`` bytes (a guard against zip bombs)."""
    coding = coding.strip().lower()
    max_length = (limit + 1) if limit else 0
    if coding in ("gzip", "x-gzip"):
        if not body.startswith(b"\x1f\x8b"):
            return body  # crawler already stored the decoded body but kept the header
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
    elif coding == "deflate":
        # RFC 9110 says zlib-wrapped; many servers send raw deflate
        wbits = zlib.MAX_WBITS if body[:1] == b"\x78" else -zlib.MAX_WBITS
        d = zlib.decompressobj(wbits)
    elif coding == "br":
        try:
            import brotli  # type: ignore[import-not-found]
        except ImportError:
            raise PayloadError("brotli-compressed body and no brotli module installed") from None
        try:
            out = brotli.decompress(body)
        except Exception as exc:  # brotli.error
            raise PayloadError(f"brotli: {exc}") from None
        return out[:max_length] if max_length else out
    elif coding in ("identity", ""):
        return body
    else:
        raise PayloadError(f"unsupported content encoding {coding!r}")
    try:
        out = d.decompress(body, max_length) if max_length else d.decompress(body)
    except zlib.error as exc:
        raise PayloadError(f"{coding}: {exc}") from None
    return out


def http_body(block: bytes, msg: HttpMessage, limit: int | None = None) -> bytes:
    """The entity body of an HTTP message: de-chunked and decompressed."""
    body = block[msg.header_length:]
    te = msg.headers.get("transfer-encoding", "").lower()
    if "chunked" in te and _looks_chunked(body):
        body = dechunk(body)
    ce = msg.headers.get("content-encoding", "")
    for coding in reversed([c for c in ce.split(",") if c.strip()]):
        body = decompress(body, coding, limit)
    return body
