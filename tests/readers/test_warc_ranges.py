"""Byte ranges of one WARC file, split on record boundaries (readers/warc_ranges.py): read range by
range and put together, they give what one reading of the whole file gives (documents, ids, sources,
counters, messages), or the split is refused as inconsistent (never a wrong result)."""
from __future__ import annotations

import gzip
import io
import re

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpustool.readers.reader import Reader
from corpustool.readers.warc_ranges import (RangeRead, byte_ranges, consistent, read_range, records_before,
                                            shift_id)


def _record(i: int, kind: str = "response", body: bytes | None = None) -> bytes:
    body = body if body is not None else (
        f"<html><head><title>Page {i}</title></head><body><p>This is page number {i}, with a paragraph "
        f"of text long enough to matter. " * (1 + i % 4) + "</p></body></html>").encode()
    buf = io.BytesIO()
    w = WARCWriter(buf, gzip=False)
    http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                       ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
    w.write_record(w.create_warc_record(
        f"http://ex.example/{i}", kind, payload=io.BytesIO(body), http_headers=http,
        warc_headers_dict={"WARC-Record-ID": f"<urn:uuid:00000000-0000-0000-0000-{i:012d}>",
                           "WARC-Date": "2024-03-04T09:00:00Z"}))
    return buf.getvalue()


def _file(records: list[bytes], gz: bool) -> bytes:
    return b"".join(gzip.compress(r, mtime=0) if gz else r for r in records)


def _whole(path):
    reader = Reader([str(path)], defer_decoding=True)
    reader.hold_notes = True
    docs = [(d.id, d.source, d.url, d.raw) for d in reader._read_file(str(path), str(path), None)]
    return docs, reader.stats.to_dict(), reader.notes


def _ranged(path, split: int):
    ranges = byte_ranges(path.stat().st_size, split)
    reads, per_range, stats, notes = [], [], None, []
    for k, (start, end) in enumerate(ranges):
        reader = Reader([str(path)], defer_decoding=True)
        reader.hold_notes = True
        found = RangeRead()
        per_range.append(list(read_range(reader, str(path), str(path), None, start, end, k,
                                         k == len(ranges) - 1, found)))
        reads.append(found)
        notes += reader.notes
        stats = reader.stats if stats is None else (stats.merge(reader.stats) or stats)
    if not consistent(reads):
        return None
    docs = [(d.id, d.source, d.url, d.raw)
            for before, range_docs in zip(records_before(reads), per_range)
            for d in (shift_id(doc, before) for doc in range_docs)]
    return docs, stats.to_dict(), notes


def _same_for_every_split(tmp_path, data: bytes, name: str, step: int = 397) -> int:
    """Every split size from ``step`` bytes up: consistent splits give the whole-file result.
    Returns how many splits were refused."""
    path = tmp_path / name
    path.write_bytes(data)
    whole = _whole(path)
    assert whole[0]
    refused = 0
    for split in range(step, len(data) + step, step):
        got = _ranged(path, split)
        if got is None:
            refused += 1
        else:
            assert got == whole, split
    return refused


def test_byte_ranges_cover_the_file():
    assert byte_ranges(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert byte_ranges(0, 4) == [(0, 0)]
    for size in (1, 99, 100, 101, 12345):
        ranges = byte_ranges(size, 100)
        assert ranges[0][0] == 0 and ranges[-1][1] == size
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        assert all(0 < e - s <= 100 for s, e in ranges)


@pytest.mark.parametrize("gz", [True, False], ids=["gzip-per-record", "plain"])
def test_intact_warc_split_anywhere_reads_as_a_whole(tmp_path, gz):
    records = [_record(i, "request" if i % 5 == 3 else "response") for i in range(30)]
    assert _same_for_every_split(tmp_path, _file(records, gz), "crawl.warc" + (".gz" if gz else "")) == 0


@pytest.mark.parametrize("gz", [True, False], ids=["gzip-per-record", "plain"])
def test_damaged_warc_split_anywhere_reads_as_a_whole(tmp_path, gz):
    """Wrong Content-Lengths, junk between records and a cut-off last record: the same documents,
    damage counters, skipped byte ranges and messages as one reading of the file."""
    records = [_record(i) for i in range(24)]
    records[4] = re.sub(rb"(?m)^Content-Length: \d+\r$", b"Content-Length: 12x4\r", records[4], count=1)
    records[9] = re.sub(rb"(?m)^Content-Length: (\d+)\r$",
                        lambda m: b"Content-Length: %d\r" % (int(m.group(1)) + 700), records[9], count=1)
    data = _file(records[:15], gz) + b"junk that is no record\r\n" * 20 + _file(records[15:], gz)
    data = data[:-40]           # the last record is cut short
    _same_for_every_split(tmp_path, data, "crawl.warc" + (".gz" if gz else ""), step=311)
    stats = _whole(tmp_path / ("crawl.warc" + (".gz" if gz else "")))[1]["extra"]
    assert stats["error:damaged-record"] >= 2 and stats["error:truncated"] == 1


def test_a_quoted_warc_header_is_no_record_start(tmp_path):
    """A record whose payload holds WARC records looks like record starts to a range that begins in
    it; the chain of the range before arrives elsewhere, so that split is refused, never misread."""
    inner = b"".join(_record(100 + i) for i in range(3))
    records = [_record(i) for i in range(6)] + [_record(50, "resource", inner)] + [_record(i) for i in range(6, 12)]
    refused = _same_for_every_split(tmp_path, _file(records, False), "crawl.warc", step=293)
    assert refused > 0


def test_files_that_cannot_be_split_are_read_whole_by_the_first_range(tmp_path):
    records = [_record(i) for i in range(12)]
    assert _same_for_every_split(tmp_path, gzip.compress(b"".join(records), mtime=0), "one-member.warc.gz") == 0
    path = tmp_path / "one-member.warc.gz"
    found = [RangeRead() for _ in range(3)]
    reader = Reader([str(path)], defer_decoding=True)
    n = [len(list(read_range(reader, str(path), str(path), None, s, e, k, k == 2, found[k])))
         for k, (s, e) in enumerate(byte_ranges(path.stat().st_size, path.stat().st_size // 3 + 1))]
    assert n == [12, 0, 0] and all(f.whole for f in found)
