"""JSON Lines: one page per line with ``url`` and ``html`` (text) or ``html_base64`` (bytes);
a line without either is dropped as ``no-html`` (said once a file).

Lines are the same objects the stage subcommands exchange, so a document
stream written by ``corpustool read`` (or a later stage) can be read back.
"""
from __future__ import annotations

import gzip
import zlib
from typing import IO, Iterator

from ..document import Document, MalformedDocument
from .read_report import ReadReport
from .sniff import describe_content

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")
# malformed lines named one by one in a file; the rest are counted (a WARC read as JSON Lines by
# mistake would otherwise print a line for each of its thousands of lines)
MAX_LISTED = 20


def is_jsonl_name(name: str) -> bool:
    return name.lower().endswith(JSONL_SUFFIXES)


def read_jsonl(fh: IO[bytes], display: str, report: ReadReport) -> Iterator[Document]:
    """The documents of a JSON Lines file. Messages about malformed lines wait for the first
    document: a file in which no line is a document (a WARC or HTML given as JSON Lines) is named
    once, with what it looks like (:meth:`ReadReport.file_note`), not line by line."""
    magic = fh.read(2)
    fh.seek(0)
    lines: IO[bytes] = gzip.GzipFile(fileobj=fh, mode="rb") if magic == b"\x1f\x8b" else fh
    base = report.id_base(display)
    lineno = 0
    bad = 0
    good = 0
    waiting: list[str] = []
    no_html_said = False
    head = bytearray()
    first_problem = ""
    while True:
        try:
            line = lines.readline()
        except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
            _flush(report, waiting)
            report.truncated(display, fh.tell(), lineno, detail=f"gzip: {exc}", unit="lines")
            return
        if not line:
            break
        lineno += 1
        if not good and len(head) < 65536:
            head += line
        if not line.strip():
            continue
        where = f"{display}:{lineno}"
        try:
            doc = Document.from_json(line, fallback_id=f"{base}:{lineno}")
        except MalformedDocument as exc:
            bad += 1
            detail = str(exc)[:200]
            if bad == 1:
                first_problem = f"line {lineno}: {detail}"
            report.bad_record(f"line {lineno} of {display}", "error:malformed-jsonl", detail, say=False)
            message = None
            if bad <= MAX_LISTED:
                message = f"line {lineno} of {display}: skipped: {detail}"
            elif bad == MAX_LISTED + 1:
                message = f"{display}: further malformed lines are counted in the statistics, not listed"
            if message:
                if good:
                    report.say(message)
                else:
                    waiting.append(message)
            continue
        if waiting:
            _flush(report, waiting)
        good += 1
        if doc.source is None:
            doc.source = where
        if doc.raw is None and doc.drop_reason is None:
            # text or cleaned paragraphs but no page: cleaning it would give an empty document,
            # counted only as the clean stage's "empty"; say why, once a file, and count it
            if not no_html_said:
                no_html_said = True
                report.say(_no_html_message(display, lineno, line))
            yield report.no_html(doc)
            continue
        if report.max_bytes is not None and doc.raw is not None and len(doc.raw) > report.max_bytes:
            size = len(doc.raw)
            doc.raw = None
            doc.html = None
            yield report.too_large(doc, size)
            continue
        yield doc
    if bad and not good:
        kind = describe_content(bytes(head))
        if magic == b"\x1f\x8b":
            kind += " (gzip-compressed)"
        report.file_note(no_document_message(display, kind, bad, first_problem, "is --input-format right?"))


def _no_html_message(display: str, lineno: int, line: bytes) -> str:
    import json

    try:
        fields = [k for k in json.loads(line) if k in ("text", "paragraphs", "content", "body")]
    except ValueError:
        fields = []
    has = f" (it has {', '.join(repr(f) for f in fields)})" if fields else ""
    return (f"line {lineno} of {display}: no 'html' or 'html_base64' field{has}: the read stage takes the page's "
            f"HTML from one of them; such records are dropped as no-html and counted (JSON Lines of cleaned "
            f"documents, with 'paragraphs', become vertical text with `corpustool vert`)")


def _flush(report: ReadReport, waiting: list[str]) -> None:
    for message in waiting:
        report.say(message)
    waiting.clear()


def no_document_message(name: str, kind: str, lines: int, first_problem: str, hint: str) -> str:
    """One line for an input read as JSON Lines in which no line is a document; ``kind``: what
    :func:`describe_content` says it looks like."""
    count = f"{lines} line{'s' if lines != 1 else ''}, none a document"
    if kind.startswith("JSON"):
        return f"{name}: no line is a JSON Lines document ({count}; the first: {first_problem})"
    return f"{name}: no line is a JSON Lines document ({count}): it looks like {kind}, not JSON Lines; {hint}"
