"""WARC record framing that survives damage: a wrong record costs that record only.

FastWARC and warcio trust each record's ``Content-Length``: one wrong value
(too short, too long, zero, not a number) and they read the rest of the file
out of step, so every later record is lost or misread. This framer checks
every record against the bytes around it before handing it on:

* a plain WARC record must be followed, right after its declared block, by the
  ``CRLF CRLF`` that ends every record and then by the next record's
  ``WARC/1.`` version line (or the end of the file);
* in a gzipped WARC each record is its own gzip member (the WARC 1.1 standard,
  Annex D), so a record must fill its member exactly.

A record that fails the check is skipped as ``error:damaged-record`` with its
byte offset, and reading resynchronises on the next record header: the next
``WARC/1.`` at a line start (plain), or the next gzip member that holds a WARC
record (a damaged deflate stream or CRC is skipped the same way). Data that is
no record at all is skipped as ``error:damaged``; a file whose last record is
cut short is ``error:truncated``. Nothing after a damaged record is lost.

A damaged record keeps its place in the count of records, so the records after
it keep the ids (``file:index``) they have in the intact file.

A gzip file that is one member for many records (``gzip crawl.warc``) is read
as one plain stream (offsets are then offsets in the uncompressed data).

ARC files (one header line ``URL IP DATE TYPE ... LENGTH``, the block, a line
feed) are framed and resynchronised the same way, on the next header line.
"""
from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass
from typing import IO, Callable, Iterator

try:        # ISA-L's inflate, the same API as zlib's: 1.3-1.6x faster framing (scripts/bench/bench_warc.py)
    from isal import isal_zlib as _inflate
except ImportError:     # pragma: no cover - isal is a dependency; zlib gives the same bytes
    _inflate = zlib

_VERSION_LINE = re.compile(rb"WARC/\d\.\d+\r?\n")
_HEADER_MAX = 1 << 20          # a WARC header block longer than this is damage, not a header
_SCAN_CHUNK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b\x08"
_RECORD_END = b"\r\n\r\n"


@dataclass
class FramedRecord:
    """One record whose framing was checked: its header fields and (the first bytes of) its block."""

    index: int                  # position in the file, counting every record (damaged ones too)
    offset: int                 # byte offset of the record (of its gzip member when gzipped)
    headers: dict[str, str]     # WARC header fields, lower-cased names
    length: int                 # declared (and checked) length of the block
    block: bytes                # the block, or its first ``keep`` bytes when it is longer


@dataclass
class Damage:
    """What the framer skipped: ``kind`` is damaged-record, damaged (no record at all) or truncated.

    ``length`` is the number of bytes skipped from ``offset`` on: up to the next record read (or
    tried), or to the end of the file.
    """

    kind: str
    offset: int
    detail: str
    length: int = 0


Report = Callable[[Damage], None]


def frame_warc(fh: IO[bytes], report: Report, keep: int | None = None, fmt: str = "warc") -> Iterator[FramedRecord]:
    """The intact records of a WARC file (plain or gzipped), in file order.

    ``fh`` must be seekable. ``keep`` bounds how much of each block is held in
    memory (None: all of it); a longer block is checked by seeking past it.
    """
    fh.seek(0)
    magic = fh.read(3)
    fh.seek(0)
    if magic == _GZIP_MAGIC:
        yield from _GzipFramer(fh, report, keep, _SPECS[fmt]).records()
    else:
        yield from _PlainFramer(fh, report, keep, _SPECS[fmt]).records()


# -- header parsing ------------------------------------------------------------

def _parse_header(head: bytes) -> tuple[dict[str, str], int] | str:
    """Fields and Content-Length of a header block (version line to blank line), or why it is invalid."""
    lines = head.split(b"\n")
    headers: dict[str, str] = {}
    name = None
    for line in lines[1:]:
        line = line.rstrip(b"\r")
        if not line:
            continue
        if line[:1] in (b" ", b"\t") and name is not None:     # continuation line
            headers[name] += " " + line.strip().decode("utf-8", "replace")
            continue
        key, sep, value = line.partition(b":")
        if not sep:
            return f"header line without a colon: {ascii(line[:60].decode('latin-1'))}"
        name = key.strip().lower().decode("latin-1")
        headers[name] = value.strip().decode("utf-8", "replace")
    declared = headers.get("content-length")
    if declared is None:
        return "no Content-Length"
    if not declared.isdigit():
        return f"Content-Length is not a number: {ascii(declared[:40])}"
    return headers, int(declared)


def _header_end(data: bytes, start: int = 0) -> int:
    """Index just after the blank line that ends the header block starting at ``start``, or -1."""
    crlf = data.find(b"\r\n\r\n", start)
    lf = data.find(b"\n\n", start)
    ends = [e + 4 for e in (crlf,) if e >= 0] + [e + 2 for e in (lf,) if e >= 0]
    return min(ends) if ends else -1


_ARC_HEADER_LINE = re.compile(rb"\S+ \S+ \d{14} (?:\S+ ){1,8}\d+\r?\n")
_ARC_FIELDS_V1 = ("uri", "ip-address", "archive-date", "content-type", "length")
_ARC_FIELDS_V2 = ("uri", "ip-address", "archive-date", "content-type", "result-code", "checksum",
                  "location", "offset", "filename", "length")


def _parse_arc_header(head: bytes) -> tuple[dict[str, str], int] | str:
    fields = head.decode("utf-8", "replace").split()
    names = _ARC_FIELDS_V2 if len(fields) == len(_ARC_FIELDS_V2) else _ARC_FIELDS_V1
    if len(fields) != len(names):
        return f"an ARC header line of {len(fields)} fields"
    return dict(zip(names, fields)), int(fields[-1])


def _arc_header_end(data: bytes, start: int = 0) -> int:
    i = data.find(b"\n", start)
    return i + 1 if i >= 0 else -1


@dataclass(frozen=True)
class _Spec:
    """What a record looks like in one archive format."""

    start: re.Pattern           # the first line of a record, matched at a line start
    scan: bytes                 # what a record start is looked for by: a line feed and its first bytes
    end: bytes                  # what follows every record's block
    header_end: Callable[[bytes], int]
    parse: Callable[[bytes], "tuple[dict[str, str], int] | str"]
    peek: int                   # bytes enough to match ``start``
    # a record start after junk that does not end in a line feed: where in a line it may begin
    # (a record found there is taken only when its whole header parses)
    mid_line: Callable[[bytes, int, int], int]


def _warc_mid_line(data: bytes, start: int, stop: int) -> int:
    """The first ``WARC/x.y`` version line that begins inside a line at ``data[start:stop]``, or -1."""
    i = data.find(b"WARC/", start)
    while 0 <= i < stop:
        if i > 0 and data[i - 1:i] != b"\n" and _VERSION_LINE.match(data, i):
            return i
        i = data.find(b"WARC/", i + 1)
    return -1


def _arc_mid_line(data: bytes, start: int, stop: int) -> int:
    """The first ARC header line that ends a line of ``data[start:stop]`` but does not begin it, or -1.

    Only after white space: junk without it would be taken as part of the URL by a match at the
    line start.
    """
    pos = start
    while pos < stop:
        eol = data.find(b"\n", pos)
        if eol < 0:
            return -1
        at = pos
        while eol - at <= 4096:
            m = _ARC_HEADER_LINE.search(data, at, eol + 1)
            if m is None or m.start() >= stop or m.end() != eol + 1:
                break
            if m.start() > 0 and data[m.start() - 1:m.start()] in (b" ", b"\t", b"\r", b"\0"):
                return m.start()        # after junk that ends in white space: else it is part of the URL
            at = m.start() + 1
        pos = eol + 1
    return -1


WARC = _Spec(_VERSION_LINE, b"\nWARC/", _RECORD_END, _header_end, _parse_header, 16, _warc_mid_line)
# ARC (the Internet Archive's format before WARC): one header line "URL IP DATE TYPE [...] LENGTH",
# the block, one line feed
ARC = _Spec(_ARC_HEADER_LINE, b"\n", b"\n", _arc_header_end, _parse_arc_header, 2048, _arc_mid_line)


# -- plain WARC ------------------------------------------------------------------

class _PlainFramer:
    """Records of an uncompressed (or whole-file decompressed) WARC stream; seeks to check and resync."""

    def __init__(self, fh: IO[bytes], report: Report, keep: int | None, spec: "_Spec") -> None:
        self.fh = fh
        self.report = report
        self.keep = keep
        self.spec = spec
        self.index = 0
        fh.seek(0, io.SEEK_END)
        self.size = fh.tell()

    def _skipped(self, kind: str, pos: int, detail: str, nxt: int | None) -> None:
        """Report the bytes from ``pos`` up to ``nxt`` (the next record tried; None: the end of the file)."""
        self.report(Damage(kind, pos, detail, (self.size if nxt is None else nxt) - pos))

    def records(self, start: int = 0) -> Iterator[FramedRecord]:
        """The records from ``start`` (0, or a record start: a byte range of the file, warc_ranges.py)."""
        fh = self.fh
        pos = self._skip_blank(start)
        while pos is not None:
            if not self.spec.start.match(self._peek(pos, self.spec.peek)):
                nxt = self._find_header(pos)
                self._skipped("damaged", pos, "data that is no WARC record" if nxt is not None or pos else
                              "no WARC record found", nxt)
                if nxt is None:
                    return
                pos = nxt
            fh.seek(pos)
            head = fh.read(65536)
            end = self.spec.header_end(head)
            while end < 0 and len(head) < _HEADER_MAX:
                more = fh.read(65536)
                if not more:
                    break
                head += more
                end = self.spec.header_end(head)
            nxt = None
            if end < 0:
                nxt = self._find_header(pos + 1)
                if nxt is None:
                    self._skipped("truncated", pos, "the file ends inside a record header", None)
                    return
                self._skipped("damaged-record", pos, "a record header without an end", nxt)
                self.index += 1
                pos = nxt
                continue
            parsed = self.spec.parse(head[:end])
            if isinstance(parsed, str):
                nxt = self._find_header(pos + 1)
                self._skipped("damaged-record", pos, parsed, nxt)
                self.index += 1
                if nxt is None:
                    return
                pos = nxt
                continue
            headers, length = parsed
            block_start = pos + end
            # a length past the end of the file (up to any size: 2**64 is no offset) is cut short or wrong
            verdict = "eof" if length > self.size - block_start else self._check_end(block_start, block_start + length)
            if verdict != "ok":
                nxt = self._find_header(pos + 1)
                if nxt is None and verdict == "eof":
                    self._skipped("truncated", pos, "the last record is cut short", None)
                    return
                self._skipped("damaged-record", pos, f"Content-Length {_short(length)} does not match the record",
                              nxt)
                self.index += 1
                if nxt is None:
                    return
                pos = nxt
                continue
            fh.seek(block_start)
            block = fh.read(length if self.keep is None else min(length, self.keep))
            yield FramedRecord(self.index, pos, headers, length, block)
            self.index += 1
            pos = self._skip_blank(block_start + length)

    def _peek(self, pos: int, n: int) -> bytes:
        if pos >= self.size:
            return b""
        self.fh.seek(pos)
        return self.fh.read(n)

    def _skip_blank(self, pos: int) -> int | None:
        """The first non-blank byte at or after ``pos``, None at the end of the file."""
        while True:
            chunk = self._peek(pos, 4096)
            if not chunk:
                return None
            stripped = chunk.lstrip(b"\r\n \t")
            if stripped:
                return pos + len(chunk) - len(stripped)
            pos += len(chunk)

    def _check_end(self, start: int, end: int) -> str:
        """ok: the block ends at ``end`` (then CRLF CRLF and a record or the end); eof: cut short; or bad."""
        marker = self.spec.end
        tail = self._peek(end, len(marker))
        if not tail:
            return "ok" if end == 0 or self._peek(end - 1, 1) else "eof"
        if tail != marker[:len(tail)]:
            return "bad"
        if len(tail) < len(marker):
            return "ok"                 # the file ends inside the record's end marker
        nxt = self._skip_blank(end + len(marker))
        if nxt is None or self.spec.start.match(self._peek(nxt, self.spec.peek)):
            return "ok"
        # the record ends where it should but junk follows: fine unless the block swallowed a
        # record header (a Content-Length too long), which is where reading must go on
        inside = self._find_header(start)
        return "ok" if inside is None or inside >= end else "bad"

    def _header_parses(self, pos: int) -> bool:
        """Does a whole record header (with a usable length) begin at ``pos``?"""
        head = self._peek(pos, 65536)
        end = self.spec.header_end(head)
        return end >= 0 and not isinstance(self.spec.parse(head[:end]), str)

    def _find_header(self, start: int) -> int | None:
        """Offset of the next record start at or after ``start``: a ``WARC/x.y`` version line (an ARC
        header line) at a line start, or inside a line after junk when its whole header parses."""
        fh = self.fh
        pos = start
        prev = self._peek(start - 1, 1) if start > 0 else b"\n"
        spec = self.spec
        while True:
            fh.seek(pos)
            chunk = fh.read(_SCAN_CHUNK + spec.peek)
            if not chunk:
                return None
            data = prev + chunk
            stop = len(prev) + _SCAN_CHUNK          # candidates beginning before it belong to this chunk
            line_start = -1
            i = data.find(spec.scan)
            while 0 <= i and i + 1 < stop:
                if spec.start.match(data, i + 1):
                    line_start = i + 1
                    break
                i = data.find(spec.scan, i + 1)
            # junk without a line feed at its end: a record header inside a line, before the first
            # one at a line start, taken when its whole header parses
            limit = line_start if line_start >= 0 else stop
            mid = spec.mid_line(data, len(prev), limit)
            while mid >= 0:
                if self._header_parses(pos - len(prev) + mid):
                    return pos - len(prev) + mid
                mid = spec.mid_line(data, mid + 1, limit)
            if line_start >= 0:
                return pos - len(prev) + line_start
            if len(chunk) <= _SCAN_CHUNK:
                return None
            pos += _SCAN_CHUNK
            prev = chunk[_SCAN_CHUNK - 1:_SCAN_CHUNK]


def _short(n: int) -> str:
    """A number for a message: a Content-Length of 10**400 digits is not printed whole."""
    text = str(n)
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} digits)"


# -- gzipped WARC: one member per record -----------------------------------------

class _MemberError(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind        # "damaged" (bad deflate data or CRC) or "eof" (the file ends in it)


class _GzipFramer:
    def __init__(self, fh: IO[bytes], report: Report, keep: int | None, spec: "_Spec") -> None:
        self.fh = fh
        self.report = report
        self.keep = keep
        self.spec = spec
        self.index = 0
        fh.seek(0, io.SEEK_END)
        self.size = fh.tell()
        self._after = b""           # compressed bytes read past the end of the last member,
        self._after_pos = -1        # which start at this offset

    def _member(self, pos: int, limit: int | None) -> tuple[bytes, int, bytes, int]:
        """Decompress the member at ``pos``: (first ``limit`` bytes, total size, last 8 bytes, end offset)."""
        fh = self.fh
        # the bytes after the previous member were read with it: start from them
        pending = self._after if self._after_pos == pos else b""
        self._after, self._after_pos = b"", -1
        fh.seek(pos + len(pending))
        d = _inflate.decompressobj(zlib.MAX_WBITS | 16)
        kept: list[bytes] = []
        n_kept = 0
        total = 0
        tail = b""
        read = 0
        while not d.eof:
            chunk = pending or fh.read(1 << 16)
            pending = b""
            if not chunk:
                raise _MemberError("eof", "the file ends inside a gzip member")
            read += len(chunk)
            try:
                out = d.decompress(chunk)
            except (zlib.error, _inflate.error) as exc:
                raise _MemberError("damaged", f"gzip: {exc}") from None
            if out:
                total += len(out)
                if limit is None or n_kept + len(out) <= limit:
                    kept.append(out)
                    n_kept += len(out)
                elif n_kept < limit:
                    kept.append(out[:limit - n_kept])
                    n_kept = limit
                tail = (tail + out[-8:])[-8:]
        end = pos + read - len(d.unused_data)
        self._after, self._after_pos = d.unused_data, end
        return b"".join(kept), total, tail, end

    def _next_member(self, pos: int) -> int | None:
        """The next offset after ``pos`` where a gzip member holding a WARC record starts."""
        fh = self.fh
        start = pos + 1
        while start < self.size:
            fh.seek(start)
            chunk = fh.read(_SCAN_CHUNK + 2)
            i = chunk.find(_GZIP_MAGIC)
            while i >= 0:
                cand = start + i
                fh.seek(cand)
                try:
                    head = zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(fh.read(4096), self.spec.peek)
                except zlib.error:
                    head = b""
                if self.spec.start.match(head):
                    return cand
                i = chunk.find(_GZIP_MAGIC, i + 1)
            if len(chunk) <= _SCAN_CHUNK:
                return None
            start += _SCAN_CHUNK
        return None

    def _to(self, pos: int, nxt: int | None) -> int:
        """Bytes from ``pos`` to ``nxt`` (None: the end of the file)."""
        return (self.size if nxt is None else nxt) - pos

    def _skip_padding(self, pos: int) -> int | None:
        if pos == self._after_pos and self._after[:3] == _GZIP_MAGIC:
            return pos              # the usual case: the next member follows at once
        fh = self.fh
        while pos < self.size:
            fh.seek(pos)
            chunk = fh.read(4096)
            stripped = chunk.lstrip(b"\r\n \t")
            if stripped:
                return pos + len(chunk) - len(stripped)
            pos += len(chunk)
        return None

    def records(self, start: int = 0) -> Iterator[FramedRecord]:
        """The records from ``start`` (0, or a member that holds a record start: a byte range of a
        file of one member per record, warc_ranges.py)."""
        if start == 0 and self._one_member_for_many_records():
            yield from self._whole_file()
            return
        limit = None if self.keep is None else self.keep + _HEADER_MAX
        pos: int | None = start
        while pos is not None and pos < self.size:
            if pos == self._after_pos and len(self._after) >= 3:
                magic = self._after[:3]
            else:
                self.fh.seek(pos)
                magic = self.fh.read(3)
            if magic != _GZIP_MAGIC:
                nxt = self._next_member(pos)
                self.report(Damage("damaged", pos, "data that is no gzip member", self._to(pos, nxt)))
                pos = nxt
                continue
            try:
                data, total, tail, end = self._member(pos, limit)
            except _MemberError as exc:
                nxt = self._next_member(pos)
                if nxt is None and exc.kind == "eof":
                    self.report(Damage("truncated", pos, str(exc), self._to(pos, None)))
                    return
                self.report(Damage("damaged-record", pos, str(exc), self._to(pos, nxt)))
                self.index += 1
                pos = nxt
                continue
            hend = self.spec.header_end(data)
            if not self.spec.start.match(data) or hend < 0:
                if data.strip():
                    self.report(Damage("damaged", pos, "a gzip member that holds no WARC record", end - pos))
                pos = self._skip_padding(end)
                continue
            parsed = self.spec.parse(data[:hend])
            if isinstance(parsed, str):
                self.report(Damage("damaged-record", pos, parsed, end - pos))
                self.index += 1
                pos = self._skip_padding(end)
                continue
            headers, length = parsed
            after = total - hend - length          # bytes after the block in this member: its CRLF CRLF
            if 0 <= after <= 8 and not tail[len(tail) - after:].strip(b"\r\n"):
                block = data[hend:hend + (length if self.keep is None else min(length, self.keep))]
                yield FramedRecord(self.index, pos, headers, length, block)
                self.index += 1
            else:
                self.report(Damage("damaged-record", pos, f"Content-Length {_short(length)} does not match the record",
                                   end - pos))
                self.index += 1
            pos = self._skip_padding(end)

    def _one_member_for_many_records(self) -> bool:
        """Does the first member go on, after its first record, with another record (``gzip crawl.warc``)?

        Told by the first record's length where it is right; where it is not (a damaged first
        record), by a second record header found in the first member, read up to 64 MB.
        """
        self.fh.seek(0)
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        out = bytearray()
        need = None
        try:
            while not d.eof:
                chunk = self.fh.read(1 << 16)
                if not chunk:
                    break
                out += d.decompress(chunk)
                if need is None:
                    hend = self.spec.header_end(out)
                    if hend < 0:
                        if len(out) > _HEADER_MAX:
                            return self._second_record_in_first_member()
                        continue
                    parsed = self.spec.parse(bytes(out[:hend]))
                    if isinstance(parsed, str) or parsed[1] > (64 << 20):
                        return self._second_record_in_first_member()
                    need = hend + parsed[1] + self.spec.peek
                if len(out) >= need:
                    break
        except zlib.error:
            return False
        if need is None:
            return False
        rest = out[need - self.spec.peek:].lstrip(b"\r\n")
        if self.spec.start.match(rest):
            return True
        if d.eof and len(out) >= need - self.spec.peek and not rest:
            return False            # one whole record in the first member: one member per record
        return self._second_record_in_first_member()

    def _second_record_in_first_member(self, limit: int = 64 << 20) -> bool:
        """Is there a record header at a line start after the first byte of the first member?"""
        self.fh.seek(0)
        d = _inflate.decompressobj(zlib.MAX_WBITS | 16)
        carry = b""
        seen = 0
        scan, start = self.spec.scan, self.spec.start
        try:
            while not d.eof and seen < limit:
                chunk = self.fh.read(1 << 16)
                if not chunk:
                    break
                out = d.decompress(chunk)
                if not out:
                    continue
                data = carry + out
                i = data.find(scan, 0 if seen else 1)
                while i >= 0:
                    if len(data) - i - 1 < self.spec.peek and not d.eof:
                        break                   # not enough bytes yet: look again with the next output
                    if start.match(data, i + 1):
                        return True
                    i = data.find(scan, i + 1)
                keep = max(len(data) - i if i >= 0 else 0, len(scan) + self.spec.peek)
                seen += len(out)
                carry = data[-keep:]
        except (zlib.error, _inflate.error):
            return False
        return False

    def _whole_file(self) -> Iterator[FramedRecord]:
        """Frame the uncompressed stream of a file whose members hold many records each.

        The stream is inflated into a spooled temporary file (memory up to 64 MB,
        then disk), so the plain framer can seek in it to check and resynchronise;
        where the gzip data breaks off, the stream ends and that is reported.
        """
        import tempfile

        fh = self.fh
        fh.seek(0)
        with tempfile.SpooledTemporaryFile(max_size=64 << 20) as spool:
            d = _inflate.decompressobj(zlib.MAX_WBITS | 16)
            in_member = False
            broken = None
            while broken is None:
                chunk = fh.read(1 << 20)
                if not chunk:
                    if in_member:
                        broken = "the gzip data breaks off"
                    break
                while chunk:
                    in_member = True
                    try:
                        spool.write(d.decompress(chunk))
                    except (zlib.error, _inflate.error) as exc:
                        broken = f"gzip: {exc}"
                        break
                    if not d.eof:
                        break                   # the member goes on in the next chunk
                    chunk = d.unused_data.lstrip(b"\r\n \t")     # the next member, if any
                    d = _inflate.decompressobj(zlib.MAX_WBITS | 16)
                    in_member = False
            end = spool.tell()
            spool.seek(0)
            framer = _PlainFramer(spool, self.report, self.keep, self.spec)
            cut = [False]

            def report(damage: Damage) -> None:
                cut[0] = cut[0] or damage.kind == "truncated"
                self.report(damage)

            framer.report = report
            yield from framer.records()
            if broken and not cut[0]:
                self.report(Damage("truncated", end, broken))


_SPECS = {"warc": WARC, "arc": ARC}
