"""WARC and ARC files, gzipped or not.

WARC records are framed by our own checked framing (:mod:`.warc_framing`, the
``resync`` back end, the default): a record whose Content-Length is wrong or
whose gzip member is damaged costs that record only, and reading goes on at
the next record. FastWARC and warcio remain as back ends (``backend=``) for
comparison; they trust every Content-Length, so damage ends the file there.
ARC files are framed the same way (the library back ends read them with warcio).

Every record block is read as bytes and parsed by :mod:`corpustool.readers.http`,
so all back ends produce identical documents. ``scripts/bench/bench_warc.py`` measures
them against each other in one run.

With the libraries, whose framing reports no damage, each block is checked
against its declared length, and after the last record :func:`_damage_after`
re-reads the file from the last record's offset to see whether it ends
cleanly; damage is reported with the file name and byte offset and counted in
the reader's statistics.
"""
from __future__ import annotations

import gzip
import io
import os
import re
import zlib
from dataclasses import dataclass
from typing import IO, Callable, Iterator

from ..document import Document
from .http import (ENCODED, HTML_TYPES, MAX_HEADER_BYTES, UNKNOWN_TYPES, PayloadError, TruncatedPayload,
                   content_codings, decode_content, http_body, media_type, parse_http_head, sniffs_as_html)
from .compressed import BZIP2, ZSTD, compression, spool
from .read_report import ReadReport

# resync: our framing, which checks every record and resynchronises after a damaged one
# (warc_framing.py); fastwarc and warcio trust Content-Length and stop at the first damage
BACKENDS = ("resync", "fastwarc", "warcio")
DEFAULT_BACKEND = "resync"
_DOC_TYPES = ("response", "resource")


@dataclass
class ArchiveRecord:
    """One framed record, independent of the library that framed it."""

    index: int                      # position in the file, counting every record
    offset: int                     # byte offset of the record (of its gzip member when gzipped)
    rec_type: str                   # response, resource, request, metadata, revisit, warcinfo, ...
    headers: dict[str, str]         # WARC (or ARC) header fields, lower-cased names
    length: int                     # declared length of the record block
    read: Callable[[int], bytes]    # reads from the block


# -- back ends: frame records --------------------------------------------------

def _iter_fastwarc(fh: IO[bytes]) -> Iterator[ArchiveRecord]:
    from fastwarc.warc import ArchiveIterator

    for index, rec in enumerate(ArchiveIterator(fh, parse_http=False, auto_decode="none")):
        headers = {k.lower(): v for k, v in rec.headers.items()}
        rec_type = headers.get("warc-type", str(rec.record_type)).lower()
        yield ArchiveRecord(index, rec.stream_pos, rec_type, headers, rec.content_length, rec.reader.read)


def _iter_warcio(fh: IO[bytes]) -> Iterator[ArchiveRecord]:
    from warcio.archiveiterator import ArchiveIterator

    # no_record_parse: we parse HTTP ourselves; arc2warc=False: its converted ARC
    # records get random record ids, which would make output non-deterministic
    it = ArchiveIterator(fh, no_record_parse=True, arc2warc=False)
    for index, rec in enumerate(it):
        offset = it.offset          # start of this record until the iterator moves on
        headers = {k.lower(): v for k, v in rec.rec_headers.headers}
        if rec.format == "arc":
            headers = _arc_as_warc_headers(headers)
            rec_type = "warcinfo" if rec.rec_type == "arc_header" else "response"
        else:
            rec_type = (rec.rec_type or headers.get("warc-type", "")).lower()
        yield ArchiveRecord(index, offset, rec_type, headers, rec.length or 0, rec.raw_stream.read)


def _arc_as_warc_headers(arc: dict[str, str]) -> dict[str, str]:
    date = arc.get("archive-date", "")
    if len(date) >= 14 and date[:14].isdigit():
        date = f"{date[0:4]}-{date[4:6]}-{date[6:8]}T{date[8:10]}:{date[10:12]}:{date[12:14]}Z"
    return {"warc-target-uri": arc.get("uri", ""), "warc-date": date,
            "content-type": arc.get("content-type", ""), "warc-ip-address": arc.get("ip-address", "")}


# WARC-Date: a W3C date-time (WARC 1.1: "2024-03-04T09:00:02Z", fractions of a second allowed); the
# offsets and the date alone some writers put are taken too
_WARC_DATE = re.compile(r"(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,9})?)?"
                        r"(?:Z|[+-]\d\d:?\d\d)?)?", re.ASCII)


def is_warc_date(value: str) -> bool:
    """A WARC-Date that is a date: written as ``crawl_date`` on ``<doc>``, where a corpus's users make
    subcorpora by it (a value such as "not-a-date" would be one more "date")."""
    m = _WARC_DATE.fullmatch(value)
    if m is None:
        return False
    month, day = int(m.group(2)), int(m.group(3))
    hour, minute, second = (int(g) if g else 0 for g in m.group(4, 5, 6))
    return 1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 60


# -- records -> documents ------------------------------------------------------

def _read_exactly(read: Callable[[int], bytes], n: int) -> bytes:
    parts = []
    while n > 0:
        chunk = read(min(n, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def read_archive(path: str, display: str, fh: IO[bytes], report: ReadReport, fmt: str = "warc",
                 backend: str | None = None) -> Iterator[Document]:
    """Documents from one WARC/ARC stream; damage is reported and counted.

    With the default back end a damaged WARC record costs that record only;
    with the libraries (and for ARC files) damage ends the file.
    """
    backend = backend or DEFAULT_BACKEND
    fh.seek(0)
    kind = compression(fh.read(10))
    fh.seek(0)
    if kind in (BZIP2, ZSTD):
        yield from _read_decompressed(path, display, fh, report, fmt, backend, kind)
        return
    if backend == "resync":
        yield from _read_resync(display, fh, report, fmt)
        return
    if fmt == "arc":
        backend = "warcio"          # FastWARC reads WARC only
    records = _iter_fastwarc(fh) if backend == "fastwarc" else _iter_warcio(fh)
    base = report.id_base(display)
    last: ArchiveRecord | None = None
    reported_at: int | None = None
    n_records = 0
    whole_gzip = False
    while True:
        try:
            rec = next(records)
        except StopIteration:
            break
        except Exception as exc:  # the library gave up on damaged data
            if not whole_gzip and backend == "warcio" and "non-chunked gzip" in str(exc):
                # `gzip crawl.warc`: one gzip member for the whole file, which warcio refuses;
                # read the decompressed stream instead (offsets are then uncompressed offsets)
                whole_gzip = True
                fh.seek(0)
                records = _iter_warcio(gzip.GzipFile(fileobj=fh, mode="rb"))
                for _ in range(n_records):
                    next(records)
                continue
            offset = None if whole_gzip else _damage_after(path, fh, last, fmt)
            if offset is None:
                offset = last.offset if last is not None else 0
            lines = [line.strip() for line in f"{exc}".splitlines() if line.strip()]
            detail = f"{type(exc).__name__}: {lines[0] if lines else ''}"
            report.damaged(display, offset, n_records, ascii(detail[:100])[1:-1])
            return
        last = rec
        n_records += 1
        report.stats.extra["records"] += 1
        doc = _record_document(rec, display, base, report)
        if doc is _TRUNCATED:
            reported_at = rec.offset
            report.truncated(display, rec.offset, n_records - 1)
            break
        if doc is not None:
            yield doc
    if reported_at is None and not whole_gzip:
        offset = _damage_after(path, fh, last, fmt)
        if offset is not None:
            if n_records == 0 and offset == 0:
                report.damaged(display, 0, 0, f"no {fmt.upper()} record found")
            else:
                report.truncated(display, offset, n_records)


def _read_decompressed(path: str, display: str, fh: IO[bytes], report: ReadReport, fmt: str, backend: str,
                       kind: str) -> Iterator[Document]:
    """A bzip2- or Zstandard-compressed file: its decompressed stream read as a plain one (offsets
    are offsets in the uncompressed data, as for a file gzipped as one stream). Where the compressed
    data breaks off, the records before the cut are kept and the cut is reported, once."""
    plain, broken = spool(fh, kind)
    with plain:
        truncated = report.stats.extra["error:truncated"]
        records = report.stats.extra["records"]
        yield from read_archive(path, display, plain, report, fmt=fmt, backend=backend)
        if broken and report.stats.extra["error:truncated"] == truncated:
            plain.seek(0, os.SEEK_END)
            report.truncated(display, plain.tell(), report.stats.extra["records"] - records, detail=broken)


def _read_resync(display: str, fh: IO[bytes], report: ReadReport, fmt: str = "warc",
                 frames: Callable | None = None) -> Iterator[Document]:
    """``frames(on_damage, keep)``: the framed records to read (default: the whole file's)."""
    from .warc_framing import Damage, frame_warc

    base = report.id_base(display)
    n_records = 0

    def on_damage(damage: Damage) -> None:
        if damage.kind == "truncated":
            report.truncated(display, damage.offset, n_records, detail=damage.detail, length=damage.length)
        elif damage.kind == "damaged-record":
            report.damaged_record(display, damage.offset, damage.detail, length=damage.length)
        else:
            report.damaged_data(display, damage.offset, damage.detail, length=damage.length)

    # the block is held up to the size limit (the page) plus its HTTP headers
    keep = None if report.max_bytes is None else report.max_bytes + MAX_HEADER_BYTES
    framed_records = frames(on_damage, keep) if frames is not None else frame_warc(fh, on_damage, keep=keep, fmt=fmt)
    for framed in framed_records:
        n_records += 1
        report.stats.extra["records"] += 1
        headers = framed.headers
        if fmt == "arc":
            rec_type = "warcinfo" if headers.get("uri", "").startswith("filedesc:") else "response"
            headers = _arc_as_warc_headers(headers)
        else:
            rec_type = headers.get("warc-type", "").lower()
        rec = ArchiveRecord(framed.index, framed.offset, rec_type, headers, framed.length,
                            io.BytesIO(framed.block).read)
        doc = _record_document(rec, display, base, report)
        if doc is not None and doc is not _TRUNCATED:
            yield doc


_TRUNCATED = Document(id="<truncated>")


def _target_uri(value: str) -> str | None:
    """The record's URL: WARC 1.0 tools write ``<http://...>``; only a URL wrapped at both ends is
    unwrapped, as a lone ``<`` or ``>`` at either end belongs to the URL (``?x=<y>``)."""
    if len(value) >= 2 and value[0] == "<" and value[-1] == ">":
        value = value[1:-1]
    return value or None


def _record_document(rec: ArchiveRecord, display: str, base: str, report: ReadReport) -> Document | None:
    stats = report.stats
    declared = rec.headers.get("content-length") if "warc-type" in rec.headers else str(rec.length)
    if declared is None or declared.strip() != str(rec.length):
        return _TRUNCATED           # header block cut off: the library made up an empty record
    if rec.rec_type not in _DOC_TYPES:
        stats.extra[f"skipped:{rec.rec_type or 'untyped'}"] += 1
        return None
    where = f"{display}@{rec.offset}"
    head = _read_exactly(rec.read, min(rec.length, MAX_HEADER_BYTES))
    if len(head) < min(rec.length, MAX_HEADER_BYTES):
        return _TRUNCATED
    msg = parse_http_head(head) if rec.rec_type == "response" else None
    if rec.rec_type == "response" and msg is None and head.startswith(b"HTTP/"):
        report.bad_record(where, "error:bad-http-headers", "HTTP headers cannot be parsed")
        return None
    content_type = (msg.headers.get("content-type") if msg else None) or \
        (rec.headers.get("content-type") if msg is None else None)
    mtype = media_type(content_type)
    if mtype not in HTML_TYPES and mtype not in UNKNOWN_TYPES:
        stats.extra["skipped:non-html"] += 1
        return None
    header_length = msg.header_length if msg else 0
    payload_length = rec.length - header_length
    crawl_date = rec.headers.get("warc-date") or None
    if crawl_date is not None and not is_warc_date(crawl_date):
        report.bad_date(where, crawl_date)
        crawl_date = None
    doc = Document(
        id=f"{base}:{rec.index}",
        url=_target_uri(rec.headers.get("warc-target-uri", "")),
        crawl_date=crawl_date,
        http_headers=dict(msg.headers) if msg else {},
        warc_record_id=rec.headers.get("warc-record-id") or None,
        source=where,
        content_type=content_type or None,
    )
    if msg is not None and msg.status is not None:
        doc.meta["http_status"] = msg.status
    if report.max_bytes is not None and payload_length > report.max_bytes:
        return report.too_large(doc, payload_length)
    block = head + _read_exactly(rec.read, rec.length - len(head)) if rec.length > len(head) else head
    if len(block) < rec.length:
        return _TRUNCATED
    codings = content_codings(msg) if msg else []
    # a compressed body is decompressed where the page is parsed, in a supervised worker, when
    # the reader feeds the clean stage (build); here only enough of it to tell whether it is HTML
    defer = bool(codings) and report.defer_decoding
    try:
        try:
            body = http_body(block, msg, report.max_bytes, decode=not defer) if msg else block
        except TruncatedPayload as exc:
            # a compressed body cut short: what was decompressed is the page, said and counted
            body = exc.partial
            report.truncated_payload(where, exc.kept_note())
        try:
            sniff = body if not defer or mtype in HTML_TYPES else decode_content(body, codings, 1024)
        except TruncatedPayload as exc:
            sniff = exc.partial     # (the clean stage says it, decoding the body itself)
    except PayloadError as exc:
        report.bad_record(where, "error:bad-payload", str(exc))
        return None
    if report.max_bytes is not None and len(body) > report.max_bytes:
        return report.too_large(doc, len(body))
    if mtype not in HTML_TYPES and not sniffs_as_html(sniff):
        stats.extra["skipped:non-html"] += 1
        return None
    doc.raw = body
    if defer:
        doc.meta[ENCODED] = ", ".join(codings)
    return doc


# -- did the file end cleanly? -------------------------------------------------

def _damage_after(path: str, fh: IO[bytes], last: ArchiveRecord | None, fmt: str) -> int | None:
    """Offset of data after the last framed record that no record came from, or None.

    Re-reads the file from the last record's offset (a seekable file only:
    stdin is read into memory first, so it is one too).
    """
    try:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        start = last.offset if last is not None else 0
        fh.seek(start)
        magic = fh.read(2)
        fh.seek(start)
    except (OSError, ValueError):
        return None
    if size == 0:
        return None
    if magic == b"\x1f\x8b":
        return _gzip_damage(fh, start, size, first_is_record=last is not None)
    return _plain_damage(fh, start, size, fmt, first_is_record=last is not None)


def _gzip_damage(fh: IO[bytes], start: int, size: int, first_is_record: bool) -> int | None:
    pos = start
    first = True
    while pos < size:
        fh.seek(pos)
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        consumed = 0
        content = b""
        try:
            while not d.eof:
                chunk = fh.read(1 << 16)
                if not chunk:
                    return pos            # member ends before its end-of-stream marker
                out = d.decompress(chunk)
                if len(content) < 64:
                    content += out[:64]
                consumed += len(chunk)
        except zlib.error:
            return pos
        if not (first and first_is_record) and content.strip():
            return pos                    # a member no record was read from
        consumed -= len(d.unused_data)
        pos += consumed
        first = False
        # skip padding between members
        fh.seek(pos)
        rest = fh.read(512)
        stripped = rest.lstrip(b"\r\n \t")
        if not stripped and len(rest) < 512:
            return None
        pos += len(rest) - len(stripped)
    return None


def _plain_damage(fh: IO[bytes], start: int, size: int, fmt: str, first_is_record: bool) -> int | None:
    fh.seek(start)
    if not first_is_record:
        rest = fh.read(4096)
        return None if not rest.strip() else start
    if fmt == "arc":
        line = fh.readline(8192)
        fields = line.split()
        try:
            length = int(fields[-1])
        except (IndexError, ValueError):
            return start
        end = start + len(line) + length
    else:
        length = None
        header = 0
        while True:
            line = fh.readline(65536)
            header += len(line)
            if not line:
                return start              # ends inside the record header
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    return start
        if length is None:
            return start
        end = start + header + length
    if end > size:
        return start                      # the last record is cut short
    fh.seek(end)
    rest = fh.read(65536)
    stripped = rest.lstrip(b"\r\n \t")
    if stripped:
        return end + len(rest) - len(stripped)
    return None
