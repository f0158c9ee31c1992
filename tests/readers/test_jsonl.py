"""Every stage that reads a JSON Lines document stream skips a malformed document, counts it, names its line.

Wrong types and shapes ("paragraphs": "x", a paragraph whose text is a number,
100,000 nested brackets, invalid JSON, a line that is no object) used to abort
clean, vert, dedup-* and build with a traceback, losing the rest of the stream.
"""
from __future__ import annotations

import json
from pathlib import Path
import subprocess
import sys

import pytest

from corpustool.document import Document, MalformedDocument
from tests.support.paths import DEMO_WARC

WORDS = ("the of and to in is that it was for on are with as his they be at one have this from or had by "
         "word but what some we can out other were all there when up use your how said an each she which do "
         "their time if will way about many then them write would like so these her long make thing see him "
         "two has look more day could go come did number sound no most people my over know water than call "
         "first who may down side been now find any new work part take get place made live where after back "
         "little only round man year came show every good me give our under name very through just form "
         "sentence great think say help low line differ turn cause much mean before move right boy old too").split()


def _text(i: int) -> str:
    import random
    return "This is " + " ".join(random.Random(i).choices(WORDS, k=60)) + "."


def _good(i: int) -> str:
    """A document every stage keeps: English, and no near-duplicate of another."""
    return json.dumps({"id": f"good{i}", "url": f"http://ex.example/{i}",
                       "html": f"<html><body><p>{_text(i)}</p></body></html>",
                       "paragraphs": [{"text": _text(i), "class": "good"}]})


BAD_LINES = [
    '{"id": "p1", "paragraphs": "x"}',
    '{"id": "p2", "paragraphs": [{"text": 5}]}',
    '{"id": "p3", "paragraphs": [5]}',
    '{"id": "p4", "url": ["not", "a", "string"]}',
    '{"id": "p5", "html": 12}',
    '{"id": "p6", "meta": "x"}',
    '{"id": "p7", "paragraphs": [{"text": "t", "tokens": "abc"}]}',
    '{"id": "p8", "lang_score": "high"}',
    '{"id": "p9", "http_headers": {"a": 1}}',
    '{"id": "p10", "html_base64": "not base64 at all!"}',
    "[" * 100_000,
    "[1, 2]",
    '"just a string"',
    "not json {",
    '{"id": "p11", "paragraphs": [{"text": "t", "class": 1}]}',
]


def _stream() -> tuple[str, list[int]]:
    """Good and malformed lines interleaved; the 1-based numbers of the malformed ones."""
    lines, bad = [], []
    for i, line in enumerate(BAD_LINES):
        lines.append(_good(i))
        lines.append(line)
        bad.append(len(lines))
    lines.append(_good(len(BAD_LINES)))
    return "\n".join(lines) + "\n", bad


def test_from_json_names_the_problem():
    for line in BAD_LINES:
        with pytest.raises(MalformedDocument):
            Document.from_json(line)
    doc = Document.from_json(_good(1))
    assert doc.paragraphs[0].text == _text(1) and doc.url == "http://ex.example/1"
    with pytest.raises(MalformedDocument, match="paragraph 0: field 'text' must be a string"):
        Document.from_json(BAD_LINES[1])


def _run(args, stdin: str, tmp_path):
    return subprocess.run([sys.executable, "-m", "corpustool", *args], input=stdin, capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)


STAGES = [
    ["clean", "--lang", "en"],
    ["langfilter", "--lang", "en"],
    ["dedup-exact"],
    ["dedup-near"],
    ["dedup-para"],
    ["tokenize"],
]


@pytest.mark.parametrize("stage", STAGES, ids=[s[0] for s in STAGES])
def test_stage_filters_skip_and_count_malformed_documents(tmp_path, stage):
    stream, bad = _stream()
    proc = _run([*stage, "--stats", "stats.json", "--quiet"], stream, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    out_ids = [json.loads(line)["id"] for line in proc.stdout.splitlines()]
    assert out_ids == [f"good{i}" for i in range(len(BAD_LINES) + 1)]     # nothing after a bad line lost
    messages = [line for line in proc.stderr.splitlines() if "malformed" in line]
    assert len(messages) == len(bad)
    for n, msg in zip(bad, messages):
        assert f"line {n}:" in msg
    stats = json.loads((tmp_path / "stats.json").read_text())["stages"]
    assert stats[0]["stage"] == "input" and stats[0]["drops"] == {"malformed-jsonl": len(bad)}
    assert stats[0]["docs_in"] == stats[0]["docs_out"] + len(bad)


def test_vert_skips_malformed_documents(tmp_path):
    stream, bad = _stream()
    proc = _run(["vert", "-o", "out.vert"], stream, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    text = (tmp_path / "out.vert").read_text()
    assert text.count("<doc ") == len(BAD_LINES) + 1
    assert len([line for line in proc.stderr.splitlines() if "malformed" in line]) == len(bad)


def test_build_on_jsonl_input_skips_and_counts_malformed_documents(tmp_path):
    stream, bad = _stream()
    (tmp_path / "in.jsonl").write_text(stream)
    proc = _run(["build", "in.jsonl", "-o", "out.vert", "--lang", "en", "--no-dedup-exact",
                 "--no-dedup-near", "--no-dedup-para", "--stats", "stats.json", "--quiet"], "", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    read = json.loads((tmp_path / "stats.json").read_text())["stages"][0]
    assert read["stage"] == "read" and read["extra"]["error:malformed-jsonl"] == len(bad)
    assert read["docs_out"] == len(BAD_LINES) + 1
    assert (tmp_path / "out.vert").read_text().count("<doc ") == len(BAD_LINES) + 1
    for n in bad:
        assert f"line {n} of in.jsonl" in proc.stderr




def test_a_warc_read_as_json_lines_is_named_once_with_a_hint_not_line_by_line(tmp_path):
    # every line of a WARC fails as JSON: one line says what the file looks like, the build exits 1
    # (it used to print 20 "skipped: invalid JSON" lines and exit 0 with an empty corpus)
    proc = _run(["build", str(DEMO_WARC), "--input-format", "jsonl", "-o", "out.vert", "--stats", "stats.json"],
                "", tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"corpustool build: error: no documents in {DEMO_WARC}: no line is a JSON Lines")
    assert "looks like a WARC archive (gzip-compressed), not JSON Lines; is --input-format right?" in lines[0]
    assert not (tmp_path / "out.vert").exists() and not (tmp_path / "stats.json").exists()
    # beside an input with documents, the WARC is named once and counted; the build goes on
    stream, bad = _stream()
    (tmp_path / "in.jsonl").write_text(stream)
    proc = _run(["build", "in.jsonl", str(DEMO_WARC), "--input-format", "jsonl", "-o", "out.vert", "--lang", "en",
                 "--stats", "stats.json", "-q"], "", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    named = [line for line in proc.stderr.splitlines() if str(DEMO_WARC) in line]
    assert len(named) == 1 and "looks like a WARC archive (gzip-compressed)" in named[0], proc.stderr
    read = json.loads((tmp_path / "stats.json").read_text())["stages"][0]
    assert read["extra"]["error:malformed-jsonl"] > 1000 + len(bad)


def _demo_inputs(tmp_path: Path) -> dict[str, bytes]:
    """What users pipe into a filter by mistake, and what the one line says it looks like."""
    import gzip
    vert = ('<doc id="a" url="http://ex.example/">\n<p>\nHello\nworld\n</p>\n</doc>\n' * 50).encode()
    return {"a WARC archive (gzip-compressed)": DEMO_WARC.read_bytes(),
            "a WARC archive,": gzip.decompress(DEMO_WARC.read_bytes()),
            "HTML": b"<!DOCTYPE html>\n<html><body>\n<p>Hello world</p>\n</body></html>\n",
            "a vertical file (a corpus)": vert,
            "binary data": bytes(range(256)) * 20}


FILTERS = [["clean", "--lang", "en"], ["langfilter", "--lang", "en"], ["dedup-exact"], ["dedup-near"],
           ["dedup-para"], ["tokenize"], ["vert", "-o", "out.vert"]]


@pytest.mark.parametrize("stage", FILTERS, ids=[s[0] for s in FILTERS])
def test_a_filter_given_no_document_stream_says_what_it_is_once_and_exits_1(tmp_path, stage):
    inputs = _demo_inputs(tmp_path)
    kinds = list(inputs) if stage[0] == "clean" else ["a WARC archive (gzip-compressed)"]
    for kind in kinds:
        proc = subprocess.run([sys.executable, "-m", "corpustool", *stage], input=inputs[kind],
                              capture_output=True, cwd=tmp_path, timeout=300)
        err = proc.stderr.decode()
        assert proc.returncode == 1, (kind, err[-2000:])
        assert proc.stdout == b"" and not (tmp_path / "out.vert").exists()
        lines = err.splitlines()
        assert len(lines) == 1, (kind, err)
        assert lines[0].startswith(f"corpustool {stage[0]}: error: <stdin>: no line is a JSON Lines document ")
        assert f"it looks like {kind}" in lines[0] and "corpustool read FILE | " in lines[0]


def test_a_filter_keeps_going_on_an_empty_stream_and_on_bad_lines_before_good_ones(tmp_path):
    # an earlier filter may have dropped everything: no error
    proc = _run(["tokenize"], "", tmp_path)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    # 30 bad lines, then a document: the first 20 are named (when the document comes), it is kept
    proc = _run(["tokenize"], "not json\n" * 30 + _good(1) + "\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == ["good1"]
    assert len([line for line in proc.stderr.splitlines() if "malformed document skipped" in line]) == 20
    assert "further malformed documents are counted" in proc.stderr
    # JSON whose lines are no documents: the first problem is named
    proc = _run(["tokenize"], '{"id": "p1", "paragraphs": "x"}\n' * 3, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip() == ("corpustool tokenize: error: <stdin>: no line is a JSON Lines document (3 lines, "
                                   "none a document; the first: line 1: field 'paragraphs' must be an array, not "
                                   "a string)")


# -- invalid UTF-8 (issue 29, item 10) --------------------------------------------------------

def _utf8_stream() -> tuple[bytes, list[int]]:
    """Good documents and, between them, a line with invalid UTF-8 bytes (in the url and the text),
    one with a lone surrogate escape, one of Latin-1 text; the numbers of the bad lines."""
    bad_lines = [
        b'{"id": "u1", "url": "http://bad.example/\xff\xfe", "paragraphs": [{"text": "caf\xe9 au lait", "class": "good"}]}',
        b'{"id": "u2", "url": "http://bad.example/\\udc80", "paragraphs": [{"text": "x\\ud800y", "class": "good"}]}',
        b'{"id": "u3", "paragraphs": [{"text": "na\xefve \xc3", "class": "good"}]}',
    ]
    lines, bad = [], []
    for i, line in enumerate(bad_lines):
        lines.append(_good(i).encode())
        lines.append(line)
        bad.append(len(lines))
    lines.append(_good(len(bad_lines)).encode())
    return b"\n".join(lines) + b"\n", bad


UTF8_FILTERS = STAGES + [["vert"]]


@pytest.mark.parametrize("encoding", ["utf-8:strict", "utf-8:surrogateescape"])
@pytest.mark.parametrize("stage", UTF8_FILTERS, ids=[s[0] for s in UTF8_FILTERS])
def test_filters_read_bytes_and_count_invalid_utf8_as_malformed(tmp_path, stage, encoding):
    import os

    stream, bad = _utf8_stream()
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    proc = subprocess.run([sys.executable, "-m", "corpustool", *stage, "--stats", "stats.json", "--quiet"],
                          input=stream, capture_output=True, cwd=tmp_path, timeout=300, env=env)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err and "UnicodeDecodeError" not in err
    out = proc.stdout.decode("utf-8")           # nothing invalid reaches the output
    assert "\udc80" not in out and "bad.example" not in out
    if stage[0] == "vert":
        assert out.count("<doc ") == len(bad) + 1
    else:
        assert [json.loads(line)["id"] for line in out.splitlines()] == [f"good{i}" for i in range(len(bad) + 1)]
    messages = [line for line in err.splitlines() if "malformed" in line]
    assert len(messages) == len(bad)
    for n, msg in zip(bad, messages):
        assert f"line {n}:" in msg
    stats = json.loads((tmp_path / "stats.json").read_text())["stages"]
    assert stats[0]["stage"] == "input" and stats[0]["drops"] == {"malformed-jsonl": len(bad)}
    if stage[0] == "vert":
        assert stats[1]["stage"] == "vert" and stats[1]["docs_out"] == len(bad) + 1


def test_vert_prints_its_statistics_table_when_asked(tmp_path):
    stream, bad = _utf8_stream()
    proc = subprocess.run([sys.executable, "-m", "corpustool", "vert", "-o", "out.vert", "--stats"],
                          input=stream, capture_output=True, cwd=tmp_path, timeout=300)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert "vert" in err and "malformed-jsonl=3" in err


def test_records_without_html_are_dropped_as_no_html_and_named_once(tmp_path):
    """{"url", "text"} and cleaned documents (`read | clean` output) gave an empty corpus, exit 0, each
    counted only as the clean stage's "empty"; now each is dropped as no-html, counted, and the first
    one of a file is named with what the reader expects and where cleaned documents go (vert)."""
    rows = [{"url": f"http://ex.example/t{i}", "text": _text(i)} for i in range(3)]
    plain = tmp_path / "text.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cleaned = tmp_path / "cleaned.jsonl"
    cleaned.write_text("".join(json.dumps({"id": f"c{i}", "url": f"http://ex.example/c{i}",
                                           "paragraphs": [{"text": _text(i), "class": "good"}]}) + "\n"
                               for i in range(2)) + _good(9) + "\n", encoding="utf-8")
    out, stats, rejects = tmp_path / "c.vert", tmp_path / "s.json", tmp_path / "r.jsonl"
    proc = subprocess.run([sys.executable, "-m", "corpustool", "build", str(plain), str(cleaned), "-o", str(out),
                           "--lang", "en", "-q", "--stats", str(stats), "--rejects", str(rejects)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 2
    assert err[0].startswith(f"corpustool: read: line 1 of {plain}: no 'html' or 'html_base64' field (it has 'text')")
    assert err[1].startswith(f"corpustool: read: line 1 of {cleaned}: no 'html' or 'html_base64' field "
                             "(it has 'paragraphs')")
    assert all("corpustool vert" in line and "no-html" in line for line in err)
    assert out.read_text(encoding="utf-8").count("<doc ") == 1         # the one record with html
    by_stage = {s["stage"]: s for s in json.loads(stats.read_text())["stages"]}
    assert by_stage["read"]["extra"]["no-html"] == 5 and by_stage["clean"]["drops"] == {"no-html": 5}
    assert [json.loads(l)["reason"] for l in rejects.read_text().splitlines()] == ["no-html"] * 5
    # read passes them on marked, as it does a page over the size limit
    proc = subprocess.run([sys.executable, "-m", "corpustool", "read", str(plain)], capture_output=True, text=True)
    assert [json.loads(l)["drop_reason"] for l in proc.stdout.splitlines()] == ["no-html"] * 3
    assert len(proc.stderr.strip().splitlines()) == 1 and "no-html" in proc.stderr
