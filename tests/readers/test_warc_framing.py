"""A damaged WARC record costs that record only: the reader resynchronises on the next record.

Each WARC here has many intact records and one damaged in one way (a wrong
Content-Length: too short, too long, zero, not a number; a broken gzip member;
junk between records); every intact record after the damage must still be read,
and the damage counted with the record's byte offset.
"""
from __future__ import annotations

import gzip
import random
import io
import re

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpustool.readers import make_reader

N = 40
DAMAGED = 17


def _record(i: int) -> bytes:
    body = (f"<html><head><title>Page {i}</title></head><body><p>This is page number {i}, "
            f"with a paragraph of text long enough to matter. " * 3 + "</p></body></html>").encode()
    buf = io.BytesIO()
    w = WARCWriter(buf, gzip=False)
    http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                       ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
    rec = w.create_warc_record(f"http://ex.example/{i}", "response", payload=io.BytesIO(body),
                               http_headers=http,
                               warc_headers_dict={"WARC-Record-ID": f"<urn:uuid:00000000-0000-0000-0000-{i:012d}>",
                                                  "WARC-Date": "2024-03-04T09:00:00Z"})
    w.write_record(rec)
    return buf.getvalue()


RECORDS = [_record(i) for i in range(N)]


def _with_length(raw: bytes, value: str) -> bytes:
    return re.sub(rb"(?m)^Content-Length: \d+\r$", f"Content-Length: {value}\r".encode(), raw, count=1)


def _length(raw: bytes) -> int:
    return int(re.search(rb"(?m)^Content-Length: (\d+)\r$", raw).group(1))


WRONG_LENGTHS = {
    "too-short": lambda n: str(n - 150),
    "too-long": lambda n: str(n + 700),
    "far-too-long": lambda n: str(n * 50),          # past several later records, not past the file's end
    "past-the-end": lambda n: str(10 ** 12),
    "zero": lambda n: "0",
    "not-a-number": lambda n: "12x4",
    "negative": lambda n: "-5",
}


def _file(records: list[bytes], gz: bool) -> tuple[bytes, list[int]]:
    parts = [gzip.compress(r, mtime=0) if gz else r for r in records]
    offsets, pos = [], 0
    for p in parts:
        offsets.append(pos)
        pos += len(p)
    return b"".join(parts), offsets


def _read(tmp_path, data: bytes, gz: bool):
    path = tmp_path / ("crawl.warc.gz" if gz else "crawl.warc")
    path.write_bytes(data)
    reader = make_reader([str(path)])
    docs = list(reader.read())
    return [d.url for d in docs], reader, path


def _urls(skip=()):
    return [f"http://ex.example/{i}" for i in range(N) if i not in skip]


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
@pytest.mark.parametrize("how", sorted(WRONG_LENGTHS))
def test_wrong_content_length_costs_that_record_only(tmp_path, capsys, gz, how):
    records = list(RECORDS)
    records[DAMAGED] = _with_length(records[DAMAGED], WRONG_LENGTHS[how](_length(records[DAMAGED])))
    data, offsets = _file(records, gz)
    urls, reader, path = _read(tmp_path, data, gz)
    assert urls == _urls(skip={DAMAGED})
    extra = reader.stats.extra
    assert extra["error:damaged-record"] == 1
    assert sum(v for k, v in extra.items() if k.startswith("error:")) == 1
    assert extra["records"] == N - 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert str(path) in err[0] and f"byte offset {offsets[DAMAGED]}" in err[0] and "damaged record" in err[0]
    # the records after the damage keep the ids they have in the intact file
    docs = list(make_reader([str(path)]).read())
    assert [d.id for d in docs] == [f"{path.name}:{i}" for i in range(N) if i != DAMAGED]


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_several_damaged_records_each_cost_one(tmp_path, gz):
    records = list(RECORDS)
    bad = {3: "0", 11: "oops", 25: str(_length(records[25]) + 40), 38: str(_length(records[38]) - 9)}
    for i, value in bad.items():
        records[i] = _with_length(records[i], value)
    data, _ = _file(records, gz)
    urls, reader, _ = _read(tmp_path, data, gz)
    assert urls == _urls(skip=set(bad))
    assert reader.stats.extra["error:damaged-record"] == len(bad)


def test_damaged_gzip_member_costs_that_record_only(tmp_path, capsys):
    data, offsets = _file(RECORDS, gz=True)
    broken = bytearray(data)
    middle = (offsets[DAMAGED] + offsets[DAMAGED + 1]) // 2
    broken[middle:middle + 12] = b"\xff" * 12             # deflate data or CRC no longer valid
    urls, reader, _ = _read(tmp_path, bytes(broken), gz=True)
    assert urls == _urls(skip={DAMAGED})
    assert reader.stats.extra["error:damaged-record"] == 1
    assert f"byte offset {offsets[DAMAGED]}" in capsys.readouterr().err


def test_junk_between_records_is_skipped_and_reading_goes_on(tmp_path, capsys):
    for gz in (True, False):
        data, offsets = _file(RECORDS, gz)
        cut = offsets[DAMAGED]
        junk = b"\x00\x13 junk that is no record at all \n" * 30
        urls, reader, _ = _read(tmp_path, data[:cut] + junk + data[cut:], gz)
        assert urls == _urls()
        assert reader.stats.extra["error:damaged"] == 1
        assert f"byte offset {cut}" in capsys.readouterr().err


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_truncated_last_record(tmp_path, capsys, gz):
    data, offsets = _file(RECORDS, gz)
    cut = (offsets[-1] + len(data)) // 2
    urls, reader, _ = _read(tmp_path, data[:cut], gz)
    assert urls == _urls(skip={N - 1})
    assert reader.stats.extra["error:truncated"] == 1
    assert "error:damaged-record" not in reader.stats.extra
    assert f"byte offset {offsets[-1]}" in capsys.readouterr().err


def test_a_warc_inside_a_record_is_payload_not_records(tmp_path):
    """A record whose block itself holds WARC records (correct lengths) is one record."""
    inner = b"".join(RECORDS[:3])
    buf = io.BytesIO()
    w = WARCWriter(buf, gzip=False)
    w.write_record(w.create_warc_record("http://ex.example/inner.warc", "resource", payload=io.BytesIO(inner),
                                       length=len(inner), warc_content_type="application/warc",
                                       warc_headers_dict={"WARC-Date": "2024-03-04T09:00:00Z",
                                                          "WARC-Record-ID": "<urn:uuid:1>"}))
    for gz in (True, False):
        data, _ = _file(RECORDS[:5] + [buf.getvalue()] + RECORDS[5:10], gz)
        urls, reader, _ = _read(tmp_path, data, gz)
        assert urls == _urls()[:10]
        assert reader.stats.extra["records"] == 11
        assert not any(k.startswith("error:") for k in reader.stats.extra)


def test_whole_file_gzip_with_a_damaged_record(tmp_path):
    """``gzip crawl.warc``: one member for every record; resync happens in the uncompressed stream."""
    records = list(RECORDS)
    records[DAMAGED] = _with_length(records[DAMAGED], "0")
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(gzip.compress(b"".join(records), mtime=0))
    reader = make_reader([str(path)])
    assert [d.url for d in reader.read()] == _urls(skip={DAMAGED})
    assert reader.stats.extra["error:damaged-record"] == 1


def test_truncated_whole_file_gzip_keeps_every_record_before_the_cut(tmp_path, capsys):
    data = gzip.compress(b"".join(RECORDS), mtime=0)
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(data[:len(data) - 5])               # the gzip trailer and a little data lost
    reader = make_reader([str(path)])
    assert [d.url for d in reader.read()] == _urls()
    assert reader.stats.extra["error:truncated"] == 1
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def _arc_records() -> list[bytes]:
    fd = b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n"
    out = [b"filedesc://test.arc 0.0.0.0 20240101000000 text/plain %d\n" % len(fd) + fd + b"\n"]
    for i in range(N):
        body = (b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body><p>ARC page %d, long enough "
                b"to be a page.</p></body></html>" % i)
        out.append(f"http://ex.example/{i} 192.0.2.1 20240102030405 text/html {len(body)}\n".encode()
                   + body + b"\n")
    return out


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
@pytest.mark.parametrize("how", ["too-short", "too-long", "zero", "not-a-number"])
def test_arc_record_with_a_wrong_length_costs_that_record_only(tmp_path, gz, how):
    records = _arc_records()
    rec = records[1 + DAMAGED]
    line, _, rest = rec.partition(b"\n")
    n = int(line.rsplit(b" ", 1)[1])
    value = {"too-short": n - 30, "too-long": n + 90, "zero": 0, "not-a-number": "4x2"}[how]
    records[1 + DAMAGED] = line.rsplit(b" ", 1)[0] + f" {value}\n".encode() + rest
    parts = [gzip.compress(r, mtime=0) if gz else r for r in records]
    path = tmp_path / ("old.arc.gz" if gz else "old.arc")
    path.write_bytes(b"".join(parts))
    reader = make_reader([str(path)])
    assert [d.url for d in reader.read()] == _urls(skip={DAMAGED})
    assert sum(v for k, v in reader.stats.extra.items() if k.startswith("error:")) == 1


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_random_damage_to_one_record_never_costs_a_record_further_on(tmp_path, gz):
    """Overwrite, cut out or insert random bytes inside one record: every record that does not touch
    the damage is still read (plain: damage to a record's end may take the next record's line start)."""
    data, offsets = _file(RECORDS, gz)
    bounds = offsets + [len(data)]
    path = tmp_path / ("crawl.warc.gz" if gz else "crawl.warc")
    for seed in range(60):
        r = random.Random(seed)
        k = r.randrange(N)
        a = r.randrange(bounds[k], bounds[k + 1])
        b = min(bounds[k + 1], a + r.randrange(1, 40))
        junk = r.randbytes(r.randrange(1, 60))
        mutated = [data[:a] + junk[:b - a] + data[b:], data[:a] + data[b:], data[:a] + junk + data[a:]][seed % 3]
        path.write_bytes(mutated)
        reader = make_reader([str(path)])
        urls = [d.url for d in reader.read()]
        spared = set(range(N)) - {k, k + 1} if not gz else set(range(N)) - {k}
        assert {f"http://ex.example/{i}" for i in spared} <= set(urls), (seed, k)


# -- issue 29, item 3: damage anywhere costs no intact record, and every skipped byte range is named --

@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
@pytest.mark.parametrize("junk", [b"junk without a line feed", b"\x00\x13 junk \n more junk WARC/ \r\n x",
                                  b"junk ending in a carriage return\r"], ids=["text", "binary", "cr"])
def test_junk_not_ending_in_a_line_feed_costs_no_record(tmp_path, capsys, gz, junk):
    data, offsets = _file(RECORDS, gz)
    cut = offsets[DAMAGED]
    urls, reader, path = _read(tmp_path, data[:cut] + junk + data[cut:], gz)
    assert urls == _urls()
    extra = reader.stats.extra
    assert extra["error:damaged"] == 1 and extra["records"] == N
    assert sum(v for k, v in extra.items() if k.startswith("error:")) == 1
    # the skipped range is counted and named: offset and length, on stderr and in the statistics
    assert extra["skipped-bytes"] == len(junk)
    assert reader.stats.skipped == [[str(path), cut, len(junk), "damaged"]]
    assert reader.stats.to_dict()["skipped"] == [[str(path), cut, len(junk), "damaged"]]
    err = capsys.readouterr().err
    assert f"byte offset {cut}" in err and f"{len(junk)} bytes skipped" in err
    # ids as in the intact file
    assert [d.id for d in make_reader([str(path)]).read()] == [f"{path.name}:{i}" for i in range(N)]


@pytest.mark.parametrize("how", sorted(WRONG_LENGTHS) + ["huge"])
def test_single_stream_gzip_with_a_damaged_first_record_keeps_every_other_record(tmp_path, capsys, how):
    """``gzip crawl.warc`` whose first record has a wrong length: was 0 documents, 1 counted."""
    records = list(RECORDS)
    n = _length(records[0])
    records[0] = _with_length(records[0], str(2 ** 64) if how == "huge" else WRONG_LENGTHS[how](n))
    plain = b"".join(records)
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(gzip.compress(plain, mtime=0))
    reader = make_reader([str(path)])
    docs = list(reader.read())
    assert [d.url for d in docs] == _urls(skip={0})
    assert [d.id for d in docs] == [f"crawl.warc.gz:{i}" for i in range(1, N)]
    assert reader.stats.extra["error:damaged-record"] == 1
    # offsets in the uncompressed stream: the first record, up to the second one
    assert reader.stats.skipped == [[str(path), 0, plain.index(b"WARC/1", 1), "damaged-record"]]
    assert "byte offset 0" in capsys.readouterr().err


def test_damaged_record_names_the_bytes_it_skips(tmp_path, capsys):
    for gz in (True, False):
        records = list(RECORDS)
        records[DAMAGED] = _with_length(records[DAMAGED], "0")
        data, offsets = _file(records, gz)
        urls, reader, path = _read(tmp_path, data, gz)
        size = offsets[DAMAGED + 1] - offsets[DAMAGED]
        assert reader.stats.skipped == [[str(path), offsets[DAMAGED], size, "damaged-record"]]
        assert reader.stats.extra["skipped-bytes"] == size
        assert f"{size} bytes skipped" in capsys.readouterr().err


def test_truncated_file_names_the_bytes_it_skips(tmp_path):
    data, offsets = _file(RECORDS, gz=False)
    cut = (offsets[-1] + len(data)) // 2
    urls, reader, path = _read(tmp_path, data[:cut], gz=False)
    assert reader.stats.skipped == [[str(path), offsets[-1], cut - offsets[-1], "truncated"]]


# -- issue 29, item 4: a Content-Length of 2**63 or more is a damaged record, not the end of the build --

HUGE = [2 ** 63 - 1, 2 ** 63, 2 ** 64, 10 ** 40]


@pytest.mark.parametrize("value", HUGE, ids=["2^63-1", "2^63", "2^64", "10^40"])
@pytest.mark.parametrize("kind", ["plain", "gz", "whole-gz", "stdin"])
def test_huge_content_length_costs_that_record_only(tmp_path, kind, value):
    records = list(RECORDS)
    records[DAMAGED] = _with_length(records[DAMAGED], str(value))
    if kind == "stdin":
        data, _ = _file(records, gz=False)
        reader = make_reader(["-"], stdin=io.BytesIO(data))
    else:
        data = gzip.compress(b"".join(records), mtime=0) if kind == "whole-gz" else _file(records, kind == "gz")[0]
        path = tmp_path / ("crawl.warc.gz" if "gz" in kind else "crawl.warc")
        path.write_bytes(data)
        reader = make_reader([str(path)])
    docs = list(reader.read())
    assert [d.url for d in docs] == _urls(skip={DAMAGED})
    assert reader.stats.extra["error:damaged-record"] == 1
    name = "stdin" if kind == "stdin" else path.name
    assert [d.id for d in docs][DAMAGED] == f"{'<stdin>' if kind == 'stdin' else name}:{DAMAGED + 1}"


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
@pytest.mark.parametrize("value", [2 ** 63, 2 ** 64, 10 ** 40], ids=["2^63", "2^64", "10^40"])
def test_arc_record_with_a_huge_length_costs_that_record_only(tmp_path, gz, value):
    records = _arc_records()
    line, _, rest = records[1 + DAMAGED].partition(b"\n")
    records[1 + DAMAGED] = line.rsplit(b" ", 1)[0] + f" {value}\n".encode() + rest
    path = tmp_path / ("old.arc.gz" if gz else "old.arc")
    path.write_bytes(b"".join(gzip.compress(r, mtime=0) if gz else r for r in records))
    reader = make_reader([str(path)])
    assert [d.url for d in reader.read()] == _urls(skip={DAMAGED})
    assert sum(v for k, v in reader.stats.extra.items() if k.startswith("error:")) == 1


def test_arc_junk_not_ending_in_a_line_feed_costs_no_record(tmp_path):
    records = _arc_records()
    junk = b"some junk with spaces "
    records[1 + DAMAGED] = junk + records[1 + DAMAGED]
    path = tmp_path / "old.arc"
    path.write_bytes(b"".join(records))
    reader = make_reader([str(path)])
    assert [d.url for d in reader.read()] == _urls()
    assert reader.stats.extra["error:damaged"] == 1
    assert reader.stats.extra["skipped-bytes"] == len(junk)
