"""The read stage: WARC/ARC, HTML files and directories, JSON Lines, stdin; damaged and odd input."""
from __future__ import annotations

import base64
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpustool.errors import OptionError
from corpustool.readers import BACKENDS, make_reader

from tests.support.paths import REPO
DEMO = REPO / "data" / "demo" / "crawl.warc.gz"

PAGE = "<!DOCTYPE html><html><head><title>T{n}</title></head><body><p>Page number {n} with some text.</p></body></html>"


def page(n: int) -> bytes:
    return PAGE.format(n=n).encode("utf-8")


def _http(ct: str | None, body_len: int | None, extra=()) -> StatusAndHeaders:
    headers = [("Date", "Mon, 04 Mar 2024 09:00:00 GMT")]
    if ct is not None:
        headers.append(("Content-Type", ct))
    headers += list(extra)
    if body_len is not None:
        headers.append(("Content-Length", str(body_len)))
    return StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")


def write_warc(path: Path, records: list[tuple], gz: bool = True) -> None:
    """records: (type, url, body, http_content_type or None, extra http headers)."""
    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=gz)
        for i, (rtype, url, body, ct, extra) in enumerate(records):
            wh = {"WARC-Record-ID": f"<urn:uuid:00000000-0000-0000-0000-{i:012d}>",
                  "WARC-Date": f"2024-03-04T09:{i // 60:02d}:{i % 60:02d}Z"}
            if rtype == "response":
                rec = w.create_warc_record(url, "response", payload=io.BytesIO(body), length=None,
                                           http_headers=_http(ct, None if extra else len(body), extra),
                                           warc_headers_dict=wh)
            elif rtype == "request":
                req = StatusAndHeaders("GET / HTTP/1.1", [("Host", "ex.example")], is_http_request=True)
                rec = w.create_warc_record(url, "request", payload=io.BytesIO(b""), length=0, http_headers=req,
                                           warc_headers_dict=wh)
            else:  # resource, metadata, warcinfo, revisit: no HTTP headers
                rec = w.create_warc_record(url, rtype, payload=io.BytesIO(body), length=len(body),
                                           warc_content_type=ct or "", warc_headers_dict=wh)
            w.write_record(rec)


STANDARD = [
    ("warcinfo", "", b"software: test\r\n", "application/warc-fields", ()),
    ("request", "http://ex.example/a", b"", None, ()),
    ("response", "http://ex.example/a", page(1), "text/html; charset=utf-8", ()),
    ("metadata", "http://ex.example/a", b"via: x\r\n", "application/warc-fields", ()),
    ("response", "http://ex.example/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(200), "image/png", ()),
    ("response", "http://ex.example/b", page(2), "application/xhtml+xml", ()),
    ("resource", "http://ex.example/c", page(3), "text/html", ()),
    ("response", "http://ex.example/d", page(4), None, ()),                          # no type: sniffed
    ("response", "http://ex.example/e", b"just some plain words", "application/octet-stream", ()),
    ("response", "http://ex.example/f", gzip.compress(page(6), mtime=0), "text/html",
     [("Content-Encoding", "gzip")]),
    ("response", "http://ex.example/g", b"10\r\n" + page(7)[:16] + b"\r\n%x\r\n" % (len(page(7)) - 16)
     + page(7)[16:] + b"\r\n0\r\n\r\n", "text/html", [("Transfer-Encoding", "chunked")]),
    ("revisit", "http://ex.example/a", b"", "application/http; msgtype=response", ()),
    ("response", "http://ex.example/h", page(8), "text/plain", ()),
]


def read(inputs, **kw):
    reader = make_reader([str(p) for p in inputs], **kw)
    return list(reader.read()), reader


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_warc_html_records_read_and_others_skipped_and_counted(tmp_path, backend, gz):
    path = tmp_path / ("crawl.warc.gz" if gz else "crawl.warc")
    write_warc(path, STANDARD, gz=gz)
    docs, reader = read([path], backend=backend)
    assert [d.url for d in docs] == [f"http://ex.example/{c}" for c in "abcdfg"]
    assert [d.raw for d in docs] == [page(n) for n in (1, 2, 3, 4, 6, 7)]   # de-chunked, un-gzipped
    first = docs[0]
    assert first.id == f"{path.name}:2"
    assert first.warc_record_id == "<urn:uuid:00000000-0000-0000-0000-000000000002>"
    assert first.crawl_date == "2024-03-04T09:00:02Z"
    assert first.http_headers["content-type"] == "text/html; charset=utf-8"
    assert first.content_type == "text/html; charset=utf-8"
    assert first.source.startswith(f"{path}@") and int(first.source.rsplit("@", 1)[1]) > 0
    assert docs[2].http_headers == {} and docs[2].content_type == "text/html"      # resource record
    extra = reader.stats.extra
    assert extra["skipped:request"] == 1 and extra["skipped:metadata"] == 1
    assert extra["skipped:revisit"] == 1 and extra["skipped:warcinfo"] == 1
    assert extra["skipped:non-html"] == 3          # png, octet-stream text, text/plain
    assert extra["records"] == len(STANDARD)
    assert reader.stats.docs_out == 6
    assert reader.stats.bytes_in == sum(len(page(n)) for n in (1, 2, 3, 4, 6, 7))
    assert not any(k.startswith("error") for k in extra)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_warc_date_that_is_no_date_is_left_out_and_named(tmp_path, backend, capsys):
    # the date becomes <doc crawl_date=...>, which corpus users make subcorpora by
    dates = ["not-a-date", "2024-13-45T00:00:00Z", "2024-03-04T25:00:00Z", "2024-03-04T09:00:02Z",
             "2024-03-04T09:00:02.123456Z", "2024-03-04", "2024-03-04T09:00:02+01:00"]
    path = tmp_path / "dates.warc.gz"
    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=True)
        for i, date in enumerate(dates):
            w.write_record(w.create_warc_record(f"http://ex.example/{i}", "response", payload=io.BytesIO(page(i)),
                                                length=None, http_headers=_http("text/html", len(page(i))),
                                                warc_headers_dict={"WARC-Date": date}))
    docs, reader = read([path], backend=backend)
    assert [d.crawl_date for d in docs] == [None, None, None] + dates[3:]     # every document read
    assert reader.stats.extra["invalid-warc-date"] == 3
    err = capsys.readouterr().err
    assert f"{path}@" in err and "WARC-Date 'not-a-date' is no date" in err
    assert "'2024-13-45T00:00:00Z'" in err and "'2024-03-04T09:00:02Z'" not in err


def test_backends_give_identical_documents(tmp_path):
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, STANDARD)
    a, _ = read([path], backend="fastwarc")
    b, _ = read([path], backend="warcio")
    assert [d.to_dict() for d in a] == [d.to_dict() for d in b]


def test_source_offset_points_at_the_record(tmp_path):
    path = tmp_path / "crawl.warc"
    write_warc(path, STANDARD, gz=False)
    docs, _ = read([path])
    data = path.read_bytes()
    for d in docs:
        offset = int(d.source.rsplit("@", 1)[1])
        assert data[offset:offset + 5] == b"WARC/"
        assert d.url.encode() in data[offset:offset + 600]


def _arc(records: list[tuple[str, bytes]]) -> bytes:
    fd = b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n"
    out = b"filedesc://test.arc 0.0.0.0 20240101000000 text/plain %d\n" % len(fd) + fd + b"\n"
    for i, (url, body) in enumerate(records):
        out += f"{url} 192.0.2.1 2024010203040{i} text/html {len(body)}\n".encode() + body + b"\n"
    return out


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_arc_files(tmp_path, gz):
    http = [b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + page(n) for n in (1, 2)]
    data = _arc([("http://ex.example/1", http[0]), ("http://ex.example/2", http[1])])
    path = tmp_path / ("old.arc.gz" if gz else "old.arc")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    docs, reader = read([path])
    assert [(d.url, d.raw, d.crawl_date) for d in docs] == [
        ("http://ex.example/1", page(1), "2024-01-02T03:04:00Z"),
        ("http://ex.example/2", page(2), "2024-01-02T03:04:01Z")]
    assert reader.stats.extra["skipped:warcinfo"] == 1        # the filedesc header
    assert not any(k.startswith("error") for k in reader.stats.extra)


def _damaged_warc(tmp_path: Path, gz: bool) -> tuple[Path, int, int]:
    """A WARC with 5 responses cut in the middle of the 4th: (path, offset of the 4th, size)."""
    import os
    bodies = [os.urandom(2000).hex().encode() for _ in range(5)]     # incompressible: gzip members are long
    recs = [("response", f"http://ex.example/{i}", b"<html><body><p>" + b + b"</p></body></html>", "text/html", ())
            for i, b in enumerate(bodies)]
    full = tmp_path / ("full.warc.gz" if gz else "full.warc")
    write_warc(full, recs, gz=gz)
    docs, _ = read([full])
    offsets = [int(d.source.rsplit("@", 1)[1]) for d in docs]
    cut = (offsets[3] + offsets[4]) // 2
    path = tmp_path / ("cut.warc.gz" if gz else "cut.warc")
    path.write_bytes(full.read_bytes()[:cut])
    return path, offsets[3], cut


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_truncated_warc_keeps_records_before_the_damage(tmp_path, capsys, backend, gz):
    path, offset, _ = _damaged_warc(tmp_path, gz)
    docs, reader = read([path], backend=backend)
    assert [d.url for d in docs] == [f"http://ex.example/{i}" for i in range(3)]
    assert reader.stats.extra["error:truncated"] == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert str(path) in err[0] and f"byte offset {offset}" in err[0] and "truncated" in err[0]


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_truncated_inside_record_headers(tmp_path, capsys, gz):
    path, offset, _ = _damaged_warc(tmp_path, gz)
    data = path.read_bytes()
    path.write_bytes(data[:offset + 40])               # only the start of the 4th record's header
    docs, reader = read([path])
    assert len(docs) == 3
    assert reader.stats.extra["error:truncated"] == 1
    assert f"byte offset {offset}" in capsys.readouterr().err


def test_garbage_after_records_is_reported(tmp_path, capsys):
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, STANDARD[:3])
    size = path.stat().st_size
    with open(path, "ab") as fh:
        fh.write(b"\x00\x13junk that is no gzip member at all" * 20)
    docs, reader = read([path])
    assert [d.url for d in docs] == ["http://ex.example/a"]
    assert sum(v for k, v in reader.stats.extra.items() if k.startswith("error:")) == 1
    assert f"byte offset {size}" in capsys.readouterr().err


@pytest.mark.parametrize("backend", BACKENDS)
def test_binary_junk_named_warc(tmp_path, capsys, backend):
    import random
    path = tmp_path / "junk.warc.gz"
    path.write_bytes(random.Random(7).randbytes(5000))
    docs, reader = read([path], backend=backend)
    assert docs == []
    assert reader.stats.extra["error:damaged"] == 1
    err = capsys.readouterr().err
    assert "junk.warc.gz" in err and "byte offset 0" in err


def test_binary_junk_file_is_passed_on_and_dropped_as_binary(tmp_path):
    from corpustool.extractors.clean import Clean
    import random
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + random.Random(3).randbytes(3000))
    docs, reader = read([path])
    assert len(docs) == 1 and docs[0].raw == path.read_bytes()
    clean = Clean(languages=["en"])
    assert list(clean.run(docs)) == []
    assert clean.stats.drops["binary"] == 1


def test_empty_files(tmp_path):
    (tmp_path / "empty.html").write_bytes(b"")
    (tmp_path / "empty.warc.gz").write_bytes(b"")
    (tmp_path / "empty.jsonl").write_bytes(b"")
    docs, reader = read([tmp_path / "empty.html", tmp_path / "empty.warc.gz", tmp_path / "empty.jsonl"])
    assert docs == []       # an empty page is no document either (build: "no documents in ...", exit 1)
    assert reader.stats.extra["empty-file"] == 3


def test_plain_text_files_are_documents_with_paragraphs_between_blank_lines(tmp_path):
    # issue 30 item 6: a .txt input became one giant paragraph
    from corpustool.extractors.clean import Clean
    paras = [("This is a long paragraph of plain English text about the river and the town, which the "
              f"readers of the paper will find in number {i} of the series; it goes on for a while.\nIts "
              "second line belongs to the same paragraph, & 3 < 4 is no markup.") for i in range(4)]
    text = "\n\n".join(paras) + "\n"
    (tmp_path / "sample.txt").write_text(text, encoding="utf-8")
    (tmp_path / "notes").write_text(text, encoding="cp1252")         # no suffix: sniffed as text
    (tmp_path / "page.txt").write_bytes(page(1))                       # a page saved as .txt stays a page
    docs, _ = read([tmp_path / "sample.txt", tmp_path / "notes", tmp_path / "page.txt"])
    assert len(docs) == 3 and docs[2].raw == page(1)
    stdin_docs, _ = read(["-"], stdin=io.BytesIO(text.encode()))
    cleaned = list(Clean(languages=["en"]).run(docs[:2] + stdin_docs))
    assert len(cleaned) == 3
    for doc in cleaned:
        assert [p.text for p in doc.paragraphs] == [" ".join(p.split()) for p in paras]
    # in a directory, .txt files are not pages (robots.txt, READMEs): skipped and counted
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "robots.txt").write_text("User-agent: *\n")
    docs, reader = read([tmp_path / "dir"])
    assert docs == [] and reader.stats.extra["skipped:file-type"] == 1


def test_html_files_and_directories(tmp_path):
    root = tmp_path / "site"
    (root / "b" / "deep").mkdir(parents=True)
    (root / "a.html").write_bytes(page(1))
    (root / "b" / "z.htm").write_bytes(page(2))
    (root / "b" / "deep" / "p.html.gz").write_bytes(gzip.compress(page(3), mtime=0))
    (root / "b" / "notes.txt").write_bytes(b"not a page")
    (root / "c.HTML").write_bytes(page(4))
    single = tmp_path / "single.htm"
    single.write_bytes(page(5))
    docs, reader = read([root, single])
    assert [d.url for d in docs] == ["a.html", "b/deep/p.html.gz", "b/z.htm", "c.HTML", str(single)]
    assert [d.raw for d in docs] == [page(n) for n in (1, 3, 2, 4, 5)]
    assert docs[0].id == docs[0].source == str(root / "a.html")
    assert reader.stats.extra["skipped:file-type"] == 1
    again, _ = read([root, single])
    assert [d.id for d in again] == [d.id for d in docs]


def test_truncated_gzipped_html_file(tmp_path, capsys):
    path = tmp_path / "page.html.gz"
    path.write_bytes(gzip.compress(page(1) * 50)[:60])
    ok = tmp_path / "ok.html"
    ok.write_bytes(page(2))
    docs, reader = read([path, ok])
    # what was decompressed before the cut is the page (a beginning of it), then the next file
    assert len(docs) == 2 and docs[1].raw == page(2)
    assert docs[0].raw and (page(1) * 50).startswith(docs[0].raw) and len(docs[0].raw) < len(page(1) * 50)
    assert reader.stats.extra["error:truncated"] == 1
    err = capsys.readouterr().err
    assert "page.html.gz" in err and "byte offset" in err and "kept as the page" in err


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "plain"])
def test_jsonl(tmp_path, capsys, gz):
    lines = [
        json.dumps({"url": "http://ex.example/1", "html": "<p>Grüße</p>"}),
        json.dumps({"url": "http://ex.example/2", "html_base64": base64.b64encode(b"<p>\xe9t\xe9</p>").decode()}),
        "{not json",
        "",
        json.dumps({"id": "mine", "url": "http://ex.example/3", "html": "<p>x</p>"}),
    ]
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / ("pages.jsonl.gz" if gz else "pages.jsonl")
    path.write_bytes(gzip.compress(data) if gz else data)
    docs, reader = read([path])
    assert [d.url for d in docs] == ["http://ex.example/1", "http://ex.example/2", "http://ex.example/3"]
    assert docs[0].html == "<p>Grüße</p>" and docs[0].encoding_source == "given"
    assert docs[1].raw == b"<p>\xe9t\xe9</p>"
    assert docs[0].id == f"{path.name}:1" and docs[2].id == "mine"
    assert docs[1].source == f"{path}:2"
    assert reader.stats.extra["error:malformed-jsonl"] == 1
    assert "line 3" in capsys.readouterr().err


def test_truncated_gzipped_jsonl(tmp_path, capsys):
    import os
    lines = [json.dumps({"url": f"http://ex.example/{i}", "html": os.urandom(500).hex()}) for i in range(40)]
    data = gzip.compress(("\n".join(lines) + "\n").encode())
    path = tmp_path / "pages.jsonl.gz"
    path.write_bytes(data[:len(data) // 2])
    docs, reader = read([path])
    assert 0 < len(docs) < 40
    assert [d.url for d in docs] == [f"http://ex.example/{i}" for i in range(len(docs))]
    assert reader.stats.extra["error:truncated"] == 1
    assert "pages.jsonl.gz" in capsys.readouterr().err


def test_stdin_html_warc_and_jsonl(tmp_path):
    docs, _ = read(["-"], stdin=io.BytesIO(page(1)))
    assert len(docs) == 1 and docs[0].raw == page(1) and docs[0].id == "stdin" and docs[0].source == "<stdin>"
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, STANDARD)
    docs, reader = read(["-"], stdin=io.BytesIO(path.read_bytes()))
    assert len(docs) == 6 and reader.stats.extra["skipped:request"] == 1
    docs, _ = read(["-"], stdin=io.BytesIO(b'{"url": "u", "html": "<p>hi</p>"}\n'))
    assert docs[0].url == "u" and docs[0].html == "<p>hi</p>"


def test_stdin_through_the_process(tmp_path):
    code = ("import sys; from corpustool.readers import make_reader; "
            "r = make_reader(['-']); print([(d.id, len(d.raw)) for d in r.read()])")
    out = subprocess.run([sys.executable, "-c", code], input=page(9), capture_output=True, cwd=REPO, check=True)
    assert out.stdout.decode().strip() == f"[('stdin', {len(page(9))})]"


def test_bad_options_refused_before_reading(tmp_path):
    ok = tmp_path / "a.html"
    ok.write_bytes(page(1))
    with pytest.raises(OptionError, match="input not found: .*nope.warc"):
        make_reader([str(ok), str(tmp_path / "nope.warc")])
    with pytest.raises(OptionError, match="unknown input format"):
        make_reader([str(ok)], input_format="pdf")
    with pytest.raises(OptionError, match="max_bytes"):
        make_reader([str(ok)], max_bytes=0)
    with pytest.raises(OptionError, match="WARC reader"):
        make_reader([str(ok)], backend="nope")
    with pytest.raises(OptionError, match="only once"):
        make_reader(["-", "-"])


def test_a_file_read_twice_is_refused_before_reading(tmp_path, monkeypatch):
    """The same file given twice (or inside a directory given too) gave its documents twice under
    one id: refused, naming both inputs; inputs that only share a name are read."""
    crawl = tmp_path / "crawl"
    (crawl / "sub").mkdir(parents=True)
    (crawl / "sub" / "a.html").write_bytes(page(1))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a.html").write_bytes(page(2))
    (tmp_path / "link").symlink_to(crawl)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OptionError, match=r"input given twice: crawl/sub/a.html and ./crawl/sub/a.html are the same file"):
        make_reader(["crawl/sub/a.html", "./crawl/sub/a.html"])
    with pytest.raises(OptionError, match="input given twice: link and crawl/ are the same directory"):
        make_reader(["link", "crawl/"])
    with pytest.raises(OptionError, match="input crawl/sub/a.html is inside input directory crawl: its files would"):
        make_reader(["crawl", "crawl/sub/a.html"])
    with pytest.raises(OptionError, match="input crawl/sub is inside input directory link"):
        make_reader(["crawl/sub", "link"])
    docs, _ = read(["crawl/sub/a.html", "other/a.html"])
    assert len({d.id for d in docs}) == 2


def test_a_linked_file_whose_file_is_read_anyway_is_read_once(tmp_path, monkeypatch, capfd):
    """A symbolic link in an input directory to a file the run reads by another path (a file of the
    same directory, of another input directory, or a file given as an input) gave that file's documents
    twice: the link is skipped, counted and named; a file reached by links only is read once, through
    the first link in reading order; a link to a file read by no other path is read as before."""
    crawl = tmp_path / "crawl"
    (crawl / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "outside").mkdir()
    (crawl / "b.html").write_bytes(page(1))
    (crawl / "a-link.html").symlink_to("b.html")              # sorted before its file
    (crawl / "sub" / "c.html").write_bytes(page(2))
    (crawl / "c-link.html").symlink_to(crawl / "sub" / "c.html")
    (tmp_path / "other" / "d.html").write_bytes(page(3))
    (crawl / "d-link.html").symlink_to(tmp_path / "other" / "d.html")   # a file of another input directory
    (tmp_path / "given.html").write_bytes(page(4))
    (crawl / "e-link.html").symlink_to(tmp_path / "given.html")          # a file given as an input
    (tmp_path / "outside" / "f.html").write_bytes(page(5))
    (crawl / "f1-link.html").symlink_to(tmp_path / "outside" / "f.html")   # only links lead to it
    (crawl / "f2-link.html").symlink_to(tmp_path / "outside" / "f.html")
    (crawl / "f3-link.html").symlink_to("f2-link.html")                  # a link to a link
    monkeypatch.chdir(tmp_path)
    docs, reader = read(["crawl", "other", "given.html"])
    err = capfd.readouterr().err
    assert [(d.id, d.raw) for d in docs] == [
        ("crawl/b.html", page(1)), ("crawl/f1-link.html", page(5)), ("crawl/sub/c.html", page(2)),
        ("other/d.html", page(3)), ("given.html", page(4))]
    assert reader.stats.extra["skipped:symlinked-file"] == 6
    for link, path in [("a-link.html", "crawl/b.html"), ("c-link.html", "crawl/sub/c.html"),
                       ("d-link.html", "other/d.html"), ("e-link.html", "given.html"),
                       ("f2-link.html", "crawl/f1-link.html"), ("f3-link.html", "crawl/f1-link.html")]:
        assert (f"corpustool: read: crawl/{link}: skipped: a symbolic link to a file read as {path} "
                f"(each file is read once)") in err
    # the same inputs in another order: the same files read, each by the same path
    again, reader = read(["given.html", "other", "crawl"])
    assert sorted(d.id for d in again) == sorted(d.id for d in docs)
    assert reader.stats.extra["skipped:symlinked-file"] == 6
    # a link to a file no other path reads is read, as before
    docs, reader = read(["crawl/sub", "outside"])
    assert [d.id for d in docs] == ["crawl/sub/c.html", "outside/f.html"]
    docs, reader = read(["crawl"])
    assert len(docs) == 5 and reader.stats.extra["skipped:symlinked-file"] == 4
    assert {d.id for d in docs} >= {"crawl/d-link.html", "crawl/e-link.html"}
    # an input that is itself a link is read by the name given; the directory's links to its file are not
    (tmp_path / "given-link.html").symlink_to(tmp_path / "outside" / "f.html")
    docs, reader = read(["crawl", "given-link.html"])
    assert [d.id for d in docs] == ["crawl/b.html", "crawl/d-link.html", "crawl/e-link.html", "crawl/sub/c.html",
                                    "given-link.html"]
    assert reader.stats.extra["skipped:symlinked-file"] == 5


def test_pages_over_max_bytes_are_passed_on_marked_too_large(tmp_path):
    big = b"<html><body><p>" + b"word " * 400 + b"</p></body></html>"
    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [("response", "http://ex.example/big", big, "text/html", ()),
                      ("response", "http://ex.example/small", page(1), "text/html", ())])
    html = tmp_path / "big.html"
    html.write_bytes(big)
    jsonl = tmp_path / "big.jsonl"
    jsonl.write_text(json.dumps({"url": "j", "html": big.decode()}) + "\n")
    docs, reader = read([warc, html, jsonl], max_bytes=1000)
    assert [(d.drop_reason, d.raw is None) for d in docs] == [
        ("too-large", True), (None, False), ("too-large", True), ("too-large", True)]
    assert docs[0].meta["size"] == len(big)
    assert reader.stats.extra["too-large"] == 3


def test_input_format_forced(tmp_path):
    path = tmp_path / "page.txt"
    path.write_bytes(page(1))
    docs, _ = read([path], input_format="html")
    assert docs[0].raw == page(1)
    warc = tmp_path / "crawl.dat"
    write_warc(warc, STANDARD)
    docs, _ = read([warc])                     # unknown name given explicitly: sniffed
    assert len(docs) == 6


# -- the demo crawl -------------------------------------------------------------

def test_demo_crawl_reads_as_its_readme_says():
    docs, reader = read([DEMO])
    extra = reader.stats.extra
    assert len(docs) == 34 and extra["records"] == 76
    assert (extra["skipped:request"], extra["skipped:metadata"], extra["skipped:revisit"],
            extra["skipped:warcinfo"], extra["skipped:non-html"]) == (34, 5, 1, 1, 1)
    assert not any(k.startswith("error") for k in extra)
    readme = (DEMO.parent / "README.md").read_text(encoding="utf-8")
    for d in docs:
        assert f"| {d.url} |" in readme
    hosts = {d.domain for d in docs}
    assert len(hosts) == 4


def test_demo_crawl_is_reproducible(tmp_path):
    out = tmp_path / "crawl.warc.gz"
    subprocess.run([sys.executable, str(REPO / "scripts" / "make" / "make_demo_crawl.py"), "-o", str(out), "--no-readme"],
                   check=True, capture_output=True)
    assert out.read_bytes() == DEMO.read_bytes()


def test_format_readers_need_only_a_read_report(tmp_path, capsys):
    """The format readers report to a ReadReport, not to the read stage: damage and pages over the
    size limit are counted in its statistics and said on stderr."""
    from corpustool.readers.html_files import read_html_bytes, read_maybe_gzip
    from corpustool.readers.read_report import ReadReport
    from corpustool.stage import StageStats

    report = ReadReport(StageStats("read"), max_bytes=10)
    (doc,) = read_html_bytes(b"<p>" + b"x" * 20 + b"</p>", "big.html", report)
    assert doc.drop_reason == "too-large" and doc.raw is None and doc.meta["size"] == 27
    assert report.stats.extra["too-large"] == 1 and report.stats.bytes_in == 27
    damaged = tmp_path / "page.html.gz"
    damaged.write_bytes(gzip.compress(b"<p>hello</p>")[:10])     # the gzip header and nothing more
    report = ReadReport(StageStats("read"))
    with open(damaged, "rb") as fh:
        assert read_maybe_gzip(fh, "page.html.gz", report) is None
    assert report.stats.extra == {"error:truncated": 1}
    assert "corpustool: read: page.html.gz: truncated or damaged at byte offset" in capsys.readouterr().err


def test_a_truncated_gzip_page_keeps_what_was_decompressed(tmp_path, capsys):
    """A .html.gz cut off (a crawl's size limit, a broken download) keeps the page's beginning, as a
    WARC record's truncated gzip body does, and says so; it lost the whole page before."""
    import random

    from corpustool.cli import main

    rng = random.Random(7)
    body = "".join(f"<p>Paragraph {i} of the page: " + " ".join(rng.choice(("the", "river", "bridge", "council",
                                                                             "voted", "to", "close", "it"))
                                                                  for _ in range(60)) + ".</p>\n" for i in range(400))
    page = f"<html lang='en'><head><meta charset='utf-8'><title>Long page</title></head><body>{body}</body></html>"
    data = gzip.compress(page.encode("utf-8"))
    cut = tmp_path / "page.html.gz"
    cut.write_bytes(data[:len(data) // 2])
    out = tmp_path / "c.jsonl"
    assert main(["build", str(cut), "-o", str(out), "--lang", "en", "-q", "--no-dedup-para"]) == 0
    err = capsys.readouterr().err
    assert "page.html.gz: truncated or damaged at byte offset" in err and "decompressed bytes are kept as the page" in err
    (doc,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    text = "\n".join(p["text"] for p in doc["paragraphs"])
    assert "Paragraph 0 of the page" in text and "Paragraph 399 of the page" not in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_target_uri_unwrapped_only_when_wrapped_at_both_ends(tmp_path, backend):
    """WARC 1.0 tools write ``<URL>``; a lone ``<`` or ``>`` at either end is the URL's own (it lost it before)."""
    urls = ["http://ex.example/a>", "<http://ex.example/b>", "http://ex.example/c?x=<y>", "http://ex.example/d<",
            "<http://ex.example/e", "http://ex.example/g>>"]
    path = tmp_path / "crawl.warc"
    write_warc(path, [("response", u, page(i), "text/html", ()) for i, u in enumerate(urls)], gz=False)
    docs, _ = read([path], backend=backend)
    assert [d.url for d in docs] == ["http://ex.example/a>", "http://ex.example/b", "http://ex.example/c?x=<y>",
                                     "http://ex.example/d<", "<http://ex.example/e", "http://ex.example/g>>"]


def _big_page(n: int) -> bytes:
    import random
    rng = random.Random(n)
    words = " ".join(rng.choice(("river", "bridge", "council", "voted", "close", "town", "road")) for _ in range(200))
    return f"<html><body><p>Page {n}: {words}.</p></body></html>".encode()


@pytest.mark.parametrize("backend", BACKENDS)
def test_bzip2_warc_is_read_as_its_plain_warc(tmp_path, backend):
    """A .warc.bz2 was read as one binary page (an empty corpus, exit 0); the magic bytes decide, not the name,
    and concatenated streams (pbzip2) are read one after the other."""
    import bz2
    plain = tmp_path / "crawl.warc"
    write_warc(plain, STANDARD, gz=False)
    data = plain.read_bytes()
    expected, _ = read([plain], backend=backend)
    named = tmp_path / "d" / "crawl.warc.bz2"
    named.parent.mkdir()
    named.write_bytes(bz2.compress(data))
    misnamed = tmp_path / "crawl2.warc"
    half = data.index(b"WARC/1", len(data) // 2)
    misnamed.write_bytes(bz2.compress(data[:half]) + bz2.compress(data[half:]))
    for inp in (named, misnamed, named.parent):            # a directory picks up .warc.bz2 too
        docs, reader = read([inp], backend=backend)
        assert [(d.url, d.raw, d.id.split(":")[1]) for d in docs] == [(d.url, d.raw, d.id.split(":")[1])
                                                                      for d in expected]
        assert not any(k.startswith("error") for k in reader.stats.extra)


def test_truncated_bzip2_warc_keeps_the_records_before_the_cut(tmp_path, capsys):
    import bz2
    plain = tmp_path / "crawl.warc"
    write_warc(plain, [("response", f"http://ex.example/{n}", _big_page(n), "text/html", ()) for n in range(200)],
               gz=False)
    data = bz2.compress(plain.read_bytes(), compresslevel=1)       # blocks of 100 KB: the cut leaves some whole
    cut = tmp_path / "crawl.warc.bz2"
    cut.write_bytes(data[:len(data) * 3 // 4])
    docs, reader = read([cut])
    assert 0 < len(docs) < 200
    assert [d.url for d in docs] == [f"http://ex.example/{n}" for n in range(len(docs))]
    assert [d.raw for d in docs] == [_big_page(n) for n in range(len(docs))]
    assert reader.stats.extra["error:truncated"] == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "crawl.warc.bz2: truncated or damaged at byte offset" in line and "bzip2" in line


def test_zstd_warc_read_when_zstandard_is_installed(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    plain = tmp_path / "crawl.warc"
    write_warc(plain, STANDARD, gz=False)
    data = plain.read_bytes()
    expected, _ = read([plain])
    half = data.index(b"WARC/1", len(data) // 2)
    z = zstandard.ZstdCompressor()
    path = tmp_path / "crawl.warc.zst"
    path.write_bytes(z.compress(data[:half]) + z.compress(data[half:]))        # two frames
    docs, reader = read([path])
    assert [(d.url, d.raw) for d in docs] == [(d.url, d.raw) for d in expected]
    assert not any(k.startswith("error") for k in reader.stats.extra)


def test_zstd_warc_refused_in_one_line_without_zstandard(tmp_path):
    try:
        import zstandard  # noqa: F401
        pytest.skip("zstandard is installed: zstd files are read")
    except ImportError:
        pass
    path = tmp_path / "crawl.warc.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 4)
    ok = tmp_path / "ok.html"
    ok.write_bytes(page(1))
    proc = subprocess.run([sys.executable, "-m", "corpustool", "read", str(path), str(ok)], capture_output=True,
                          cwd=REPO)
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 1        # the next input is read
    (line,) = proc.stderr.decode().strip().splitlines()
    assert line.startswith(f"corpustool: read: {path}: skipped: Zstandard-compressed") and "zstd -d" in line
    docs, reader = read([path, ok])
    assert len(docs) == 1 and reader.stats.extra["error:unreadable-file"] == 1


def test_bzip2_compressed_page_is_named_not_read_as_a_binary_page(tmp_path, capsys):
    import bz2
    path = tmp_path / "page.html.bz2"
    path.write_bytes(bz2.compress(page(1)))
    docs, reader = read([path])
    assert docs == [] and reader.stats.extra["error:unreadable-file"] == 1
    assert "page.html.bz2: skipped: bzip2-compressed HTML: only WARC and ARC files" in capsys.readouterr().err


def test_ids_stay_unique_when_two_inputs_share_a_file_name(tmp_path):
    """Two crawl.warc.gz (or pages.jsonl) in different folders gave the same ids (``crawl.warc.gz:N``):
    the files whose name another input shares use the path as given; the others keep their name."""
    for d in ("d1", "d2"):
        (tmp_path / d).mkdir()
        write_warc(tmp_path / d / "crawl.warc.gz", STANDARD)
        (tmp_path / d / "pages.jsonl").write_text(json.dumps({"url": "http://ex.example/j", "html": "<p>x</p>"}) + "\n")
    write_warc(tmp_path / "d2" / "other.warc.gz", STANDARD)
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    inputs = [d1 / "crawl.warc.gz", d2 / "crawl.warc.gz", d2 / "other.warc.gz", d1 / "pages.jsonl", d2 / "pages.jsonl"]
    docs, _ = read(inputs)
    ids = [d.id for d in docs]
    assert len(ids) == len(set(ids)) == 20
    assert ids[0] == f"{d1 / 'crawl.warc.gz'}:2" and ids[6] == f"{d2 / 'crawl.warc.gz'}:2"
    assert ids[12] == "other.warc.gz:2" and ids[-2:] == [f"{d1 / 'pages.jsonl'}:1", f"{d2 / 'pages.jsonl'}:1"]
    walked, _ = read([tmp_path])                       # the same files found in a directory: the same ids
    assert sorted(d.id for d in walked) == sorted(ids)
    alone, _ = read([d1 / "crawl.warc.gz", d2 / "other.warc.gz"])    # distinct names: ids as before
    assert [d.id.split(":")[0] for d in alone] == ["crawl.warc.gz"] * 6 + ["other.warc.gz"] * 6
