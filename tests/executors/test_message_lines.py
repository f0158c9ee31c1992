"""Every message about a document or a record reaches standard error in one write: Spark runs its
Python workers unbuffered (PYTHONUNBUFFERED), and print()'s two writes, the text and its newline,
let another worker's line in between (seen as ``...reading goes on at the next recordcorpustool:
read: bad/trunc.warc.gz: truncated ...`` on a build with --engine spark)."""
from __future__ import annotations

import sys

from corpustool.document import Document
from corpustool.readers.read_report import ReadReport
from corpustool.stage import DocumentStage, StageStats


class Unbuffered:
    """Standard error as Spark's Python workers have it: every write goes out at once."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_a_read_message_is_one_write(monkeypatch):
    err = Unbuffered()
    monkeypatch.setattr(sys, "stderr", err)
    ReadReport(StageStats("read")).say("crawl.warc.gz: damaged record at byte offset 389 skipped")
    assert err.writes == ["corpustool: read: crawl.warc.gz: damaged record at byte offset 389 skipped\n"]


class Failing(DocumentStage):
    name = "failing"

    def process(self, doc):
        raise RuntimeError("boom")


def test_a_stage_error_message_is_one_write(monkeypatch):
    err = Unbuffered()
    monkeypatch.setattr(sys, "stderr", err)
    doc = Document(id="c.warc.gz:3", url="http://example.com/")
    out = list(Failing().run([doc]))
    assert not out and doc.drop_reason == "error:RuntimeError"
    assert len(err.writes) == 1 and err.writes[0].endswith("RuntimeError: boom\n")
