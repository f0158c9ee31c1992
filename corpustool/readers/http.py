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
# the Document.meta key of a body passed on still compressed (its Content-Encoding codings): the
# clean stage decompresses it, in its supervised worker, capped at the size limit
# (``Reader(defer_decoding=True)``, as ``build`` reads)
ENCODED = "content_encoding"


class PayloadError(ValueError):
    """The HTTP body cannot be decoded (bad chunking or compression)."""


class TruncatedPayload(PayloadError):
    """A compressed body that ends before its stream does (a crawler's size limit, a broken
    transfer): ``partial`` holds what was decompressed, which callers keep as the page, saying so."""

    def __init__(self, message: str, partial: bytes) -> None:
        super().__init__(message)
        self.partial = partial

    def kept_note(self) -> str:
        """What the reader and the clean stage say of it (one wording for both)."""
        return f"{self}; the {len(self.partial)} bytes decompressed before the cut are kept as the page"


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


_STEP = 1 << 16         # compressed bytes fed to a decoder at a time


def decompress(body: bytes, coding: str, limit: int | None) -> bytes:
    """Undo a ``Content-Encoding``, streaming: at most ``limit + 1`` bytes come out (None: no limit).

    A guard against compression bombs: whatever the ratio (a 1.6 KB brotli body can
    inflate to 2 GB), the decoder's output never grows past the limit, so one more
    byte than ``limit`` tells the caller the page is too large. gzip, x-gzip,
    deflate (zlib-wrapped or raw), br (the ``brotli`` module) and zstd (Python 3.14's
    ``compression.zstd``, ``pyzstd`` or ``zstandard``), each when its module is there.
    """
    coding = coding.strip().lower()
    cap = None if limit is None else limit + 1
    if coding in ("gzip", "x-gzip"):
        if not body.startswith(b"\x1f\x8b"):
            return body  # crawler already stored the decoded body but kept the header
        return _zlib(body, zlib.MAX_WBITS | 16, cap, coding)
    if coding == "deflate":
        # RFC 9110 says zlib-wrapped; many servers send raw deflate
        return _zlib(body, zlib.MAX_WBITS if body[:1] == b"\x78" else -zlib.MAX_WBITS, cap, coding)
    if coding == "br":
        return _brotli(body, cap)
    if coding == "zstd":
        return _zstd(body, cap)
    if coding in ("identity", ""):
        return body
    raise PayloadError(f"unsupported content encoding {coding!r}")


def _zlib(body: bytes, wbits: int, cap: int | None, coding: str) -> bytes:
    d = zlib.decompressobj(wbits)
    try:
        out = d.decompress(body, cap) if cap else d.decompress(body)
    except zlib.error as exc:
        raise PayloadError(f"{coding}: {exc}") from None
    if not d.eof and not d.unconsumed_tail and (cap is None or len(out) < cap):
        # all the input read, the stream not ended, the cap not reached: the body was cut short
        raise TruncatedPayload(f"{coding}: the compressed body ends early", out)
    return out


def _brotli(body: bytes, cap: int | None) -> bytes:
    try:
        import brotli  # type: ignore[import-not-found]
    except ImportError:
        raise PayloadError("brotli-compressed body and no brotli module installed") from None
    d = brotli.Decompressor()
    parts: list[bytes] = []
    total = 0
    pos = 0
    # brotli >= 1.1 bounds each call's output (output_buffer_limit); older ones get small inputs
    bounded = _brotli_bounded(d)
    step = _STEP if bounded else 16
    try:
        while not d.is_finished() and (cap is None or total < cap):
            if not bounded or d.can_accept_more_data():
                if pos >= len(body):
                    raise TruncatedPayload("br: the compressed body ends early", b"".join(parts))
                chunk = body[pos:pos + step]
                pos += len(chunk)
            else:
                chunk = b""             # output still pending from the last input
            if bounded:
                room = (1 << 20) if cap is None else min(cap - total, 1 << 20)
                out = d.process(chunk, output_buffer_limit=room)
            else:
                out = d.process(chunk)
            if out:
                parts.append(out)
                total += len(out)
    except brotli.error as exc:
        raise PayloadError(f"brotli: {exc}") from None
    data = b"".join(parts)
    return data if cap is None else data[:cap]


def _brotli_bounded(d) -> bool:
    try:
        d.process(b"", output_buffer_limit=1)
    except TypeError:
        return False
    except Exception:       # noqa: BLE001 - an empty input may be refused; the keyword was known
        return True
    return hasattr(d, "can_accept_more_data")


def _zstd(body: bytes, cap: int | None) -> bytes:
    try:
        from compression import zstd as _z  # type: ignore[import-not-found]   # Python 3.14
    except ImportError:
        try:
            import pyzstd as _z  # type: ignore[import-not-found]
        except ImportError:
            _z = None
    try:
        if _z is not None:
            d = _z.ZstdDecompressor()
            return d.decompress(body, cap if cap else -1)
        try:
            import zstandard  # type: ignore[import-not-found]
        except ImportError:
            raise PayloadError("zstd-compressed body and no zstd module installed") from None
        reader = zstandard.ZstdDecompressor().stream_reader(body, read_across_frames=True)
        if cap is None:
            return reader.readall()
        parts: list[bytes] = []
        total = 0
        while total < cap:
            out = reader.read(min(cap - total, 1 << 20))
            if not out:
                break
            parts.append(out)
            total += len(out)
        return b"".join(parts)
    except PayloadError:
        raise
    except Exception as exc:        # noqa: BLE001 - each library has its own error class
        raise PayloadError(f"zstd: {exc}") from None


def content_codings(msg: HttpMessage) -> list[str]:
    """The message's ``Content-Encoding`` codings that change the bytes, in the order applied."""
    ce = msg.headers.get("content-encoding", "")
    return [c.strip().lower() for c in ce.split(",") if c.strip() and c.strip().lower() != "identity"]


def decode_content(body: bytes, codings: list[str] | str, limit: int | None = None) -> bytes:
    """Undo ``codings`` (a list, or a ``Content-Encoding`` value), last applied first, each capped at
    ``limit + 1`` bytes of output; raises PayloadError (TruncatedPayload, with what was decoded, for
    a body cut short)."""
    if isinstance(codings, str):
        codings = [c for c in codings.split(",") if c.strip()]
    cut: TruncatedPayload | None = None
    for coding in reversed(codings):
        try:
            body = decompress(body, coding, limit)
        except TruncatedPayload as exc:
            # (the codings applied before it are undone on what came out of it)
            cut, body = exc, exc.partial
    if cut is not None:
        raise TruncatedPayload(str(cut), body)
    return body


def http_body(block: bytes, msg: HttpMessage, limit: int | None = None, decode: bool = True) -> bytes:
    """The entity body of an HTTP message: de-chunked and (with ``decode``) decompressed."""
    body = block[msg.header_length:]
    te = msg.headers.get("transfer-encoding", "").lower()
    if "chunked" in te and _looks_chunked(body):
        body = dechunk(body)
    if decode:
        body = decode_content(body, content_codings(msg), limit)
    return body
