"""JSON Lines: one page per line with ``url`` and ``html`` (text) or ``html_base64`` (bytes).

Lines are the same objects the stage subcommands exchange, so a document
stream written by ``corpustool read`` (or a later stage) can be read back.
"""
from __future__ import annotations

import gzip
import os
import zlib
from typing import IO, TYPE_CHECKING, Iterator

from ..document import Document, MalformedDocument

if TYPE_CHECKING:
    from .reader import Reader

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")


def is_jsonl_name(name: str) -> bool:
    return name.lower().endswith(JSONL_SUFFIXES)


def read_jsonl(fh: IO[bytes], display: str, reader: "Reader") -> Iterator[Document]:
    magic = fh.read(2)
    fh.seek(0)
    lines: IO[bytes] = gzip.GzipFile(fileobj=fh, mode="rb") if magic == b"\x1f\x8b" else fh
    base = os.path.basename(display)
    lineno = 0
    while True:
        try:
            line = lines.readline()
        except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
            reader.truncated(display, fh.tell(), lineno, detail=f"gzip: {exc}", unit="lines")
            return
        if not line:
            return
        lineno += 1
        if not line.strip():
            continue
        where = f"{display}:{lineno}"
        try:
            doc = Document.from_json(line, fallback_id=f"{base}:{lineno}")
        except MalformedDocument as exc:
            reader.bad_record(f"line {lineno} of {display}", "error:malformed-jsonl", str(exc)[:200])
            continue
        if doc.source is None:
            doc.source = where
        if reader.max_bytes is not None and doc.raw is not None and len(doc.raw) > reader.max_bytes:
            size = len(doc.raw)
            doc.raw = None
            doc.html = None
            yield reader.too_large(doc, size)
            continue
        yield doc
