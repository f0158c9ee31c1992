"""`corpustool vert` on a JSON Lines stream it did not make: tokens given from outside and
documents without a token must still give a file both corpus managers read as written.

Before: a stream's own ``tokens`` were written as they came (an empty token crashed the sentence
splitter; a tab started a second column, a line break a second line, ``<doc>`` opened a document in
Manatee, NUL ended the line, a 5,000-byte token passed the bounds), and a document without a token
was written as an empty ``<doc>`` region, which cwb-encode does not store and encodevert drops, so
every later document got its neighbour's attribute values.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from corpustool.document import Document, Paragraph
from corpustool.writers.vert_check import check_file
from corpustool.writers.vertical import VerticalWriter
from tests.support.paths import REPO

GIVEN = ["two words", "tab\there", "new\nline", "", " ", "</p>", "<doc>", "<s>", "</doc>", "<g/>",
         "nul\x00x", "ctl\x01x", "\u200e", "cr\rx", "  padded  ", "trail\\", "x" * 5000, "\u2028", "nel\x85x",
         "e\u0301", "end"]


def stream() -> list[dict]:
    return [
        {"id": "t1", "url": "http://v.example/1", "title": "Tokens given", "lang": "en",
         "paragraphs": [{"text": "a b", "class": "good", "tokens": GIVEN, "glue": [2, 9, 20]}]},
        {"id": "t2", "url": "http://v.example/2", "title": "no good paragraph",
         "paragraphs": [{"text": "bad one", "class": "bad"}]},
        {"id": "t3", "url": "http://v.example/3", "title": "no paragraph", "paragraphs": []},
        {"id": "t4", "url": "http://v.example/4", "title": "only invisible",
         "paragraphs": [{"text": "\u200e\u200f \u200b", "class": "good"}]},
        {"id": "t5", "url": "http://v.example/5", "title": "empty tokens",
         "paragraphs": [{"text": "x", "class": "good", "tokens": ["", " ", "\x00"]}]},
        {"id": "t6", "url": "http://v.example/6", "title": " \u200e\u200b\u2028 ",
         "paragraphs": [{"text": "Last document here.", "class": "good"}]},
        {"id": "t7", "url": "http://v.example/7",
         "paragraphs": [{"text": "A document without a title.", "class": "good"}]},
    ]


def write_stream(tmp_path, target: str) -> tuple[str, subprocess.CompletedProcess]:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(d) + "\n" for d in stream()), encoding="utf-8")
    out = tmp_path / target / "corpus.vert.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "corpustool", "vert", "--target", target, "-o", str(out),
                        "--stats"], stdin=src.open("rb"), capture_output=True, text=True, cwd=REPO, timeout=300)
    return str(out), r


@pytest.mark.parametrize("target", ["manatee", "cwb"])
def test_vert_writes_a_stream_both_tools_read_as_written(tmp_path, target):
    import gzip

    out, r = write_stream(tmp_path, target)
    assert r.returncode == 0, r.stderr
    found = []
    assert check_file(out, target, report=found.append).problems == 0, found[:5]
    text = gzip.open(out, "rt", encoding="utf-8").read()
    lines = text.split("\n")
    # the documents without a token are not written (counted as no-text), the others are whole
    assert [l.split('"')[1] for l in lines if l.startswith("<doc ")] == ["t1", "t6", "t7"]
    # a title with nothing left once clean is left out, as a missing one is (Manatee stored "" for
    # the one and ===NONE=== for the other)
    assert [" title=" in l for l in lines if l.startswith("<doc ")] == [True, False, False]
    assert "no-text=4" in r.stderr
    tokens = [l for l in lines if l and not l.startswith(("<doc ", "<p ", "</s>", "</p>", "</doc>", "<s>", "<g/>"))]
    if target == "manatee":
        first = tokens[:tokens.index("Last")]
        # split at white space, controls removed, tags broken after their "<", NFC, bounded
        assert first[:6] == ["two", "words", "tab", "here", "new", "line"]
        assert "<" in first and "doc>" in first and "/p>" in first and "g/>" in first
        assert "nulx" in first and "ctlx" in first and "padded" in first and "trail\\" in first
        assert "\u00e9" in first and "nel" in first and "end" in first
        assert max(len(t.encode()) for t in first) <= 4095 and "".join(first).count("x" * 4000) == 1
        assert not any(c in "".join(first) for c in "\t\r\x00\x01\x85\u2028\u200e ")


def test_writer_skips_a_document_without_tokens():
    w = VerticalWriter.__new__(VerticalWriter)
    VerticalWriter.__init__(w, path="-")
    doc = Document(id="x", url="http://x", paragraphs=[Paragraph(text="\u200e", tokens=["\u200e"], glue=[False])])
    assert w.format(doc) == ""
    assert w.write(doc) is False and w.docs == 0
    assert w.counts["docs_without_tokens"] == 2       # (counted in the stage statistics, not lost unseen)


@pytest.mark.parametrize("title", ["", "   ", "\u200e\u200f", "\u200b\ufeff", "\x01\u2028"])
def test_an_empty_value_is_left_out(title):
    w = VerticalWriter(path="-", target="manatee")
    doc = Document(id="x", url="http://x.example/", title=title, paragraphs=[Paragraph(text="Some text.")])
    head = w.format(doc).split("\n", 1)[0]
    assert head.startswith('<doc id="x" url="http://x.example/"') and "title=" not in head
    assert "title" not in w.structures["doc"]
