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
# malformed lines named one by one in a file; the rest are counted (a WARC read as JSON Lines by
# mistake would otherwise print a line for each of its thousands of lines)
MAX_LISTED = 20


def is_jsonl_name(name: str) -> bool:
    return name.lower().endswith(JSONL_SUFFIXES)


def read_jsonl(fh: IO[bytes], display: str, reader: "Reader") -> Iterator[Document]:
    magic = fh.read(2)
    fh.seek(0)
    lines: IO[bytes] = gzip.GzipFile(fileobj=fh, mode="rb") if magic == b"\x1f\x8b" else fh
    base = os.path.basename(display)
    lineno = 0
    bad = 0
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
            bad += 1
            detail = str(exc)[:200]
            if bad == 1 and lineno == 1:
                kind = _other_format(line)
                if kind:
                    detail += f" (the file looks like {kind}, not JSON Lines: is --input-format right?)"
            reader.bad_record(f"line {lineno} of {display}", "error:malformed-jsonl", detail,
                              say=bad <= MAX_LISTED)
            if bad == MAX_LISTED:
                reader.say(f"{display}: further malformed lines are counted in the statistics, not listed")
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


def _other_format(first_line: bytes) -> str | None:
    """What a file that fails as JSON Lines on its first line is instead, when its start tells."""
    from .reader import sniff_format

    kind = sniff_format(first_line)
    if kind in ("warc", "arc"):
        return f"an {kind.upper()} archive" if kind == "arc" else "a WARC archive"
    if first_line.lstrip()[:1] == b"<":
        return "HTML"
    return None
