"""HTML pages stored as files (``.html``, ``.htm`` and their ``.gz``), one document each."""
from __future__ import annotations

import gzip
import os
import zlib
from typing import IO, Iterator

from ..document import Document
from .read_report import ReadReport


def read_html_file(path: str, display: str, url: str, report: ReadReport) -> Iterator[Document]:
    """One document from an HTML file; a ``.gz`` is decompressed (damage reported, not fatal)."""
    doc = Document(id=display, url=url, source=display)
    try:
        with open(path, "rb") as fh:
            raw = read_maybe_gzip(fh, display, report)
    except OSError as exc:
        report.bad_record(display, "error:unreadable-file", exc.strerror or str(exc))
        return
    if raw is None:
        return
    if report.max_bytes is not None and len(raw) > report.max_bytes:
        yield report.too_large(doc, len(raw))
        return
    doc.raw = raw
    yield doc


def read_html_bytes(raw: bytes, display: str, report: ReadReport, url: str | None = None,
                    doc_id: str | None = None) -> Iterator[Document]:
    doc = Document(id=doc_id or display, url=url, source=display)
    if report.max_bytes is not None and len(raw) > report.max_bytes:
        yield report.too_large(doc, len(raw))
        return
    doc.raw = raw
    yield doc


def read_text_bytes(raw: bytes, display: str, report: ReadReport, url: str | None = None,
                    doc_id: str | None = None) -> Iterator[Document]:
    """A plain-text file as one document: its paragraphs are separated by blank lines (made into
    the <p> elements of a page, cleaned as any page is)."""
    doc = Document(id=doc_id or display, url=url, source=display)
    if report.max_bytes is not None and len(raw) > report.max_bytes:
        yield report.too_large(doc, len(raw))
        return
    doc.raw = text_to_html(raw)
    doc.content_type = "text/plain"
    yield doc


def text_to_html(raw: bytes) -> bytes:
    """Plain text (any encoding) as a UTF-8 page with one <p> per paragraph (blank lines between)."""
    import html
    import re

    from ..encoding import decode

    text = decode(raw).text.replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = (" ".join(p.split()) for p in re.split(r"\n[^\S\n]*\n", text))
    body = "".join(f"<p>{html.escape(p, quote=False)}</p>\n" for p in paragraphs if p)
    page = f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n{body}</body></html>\n'
    return page.encode("utf-8", "replace")


_GZIP_STEP = 1 << 16    # decompressed bytes asked for at a time


def read_maybe_gzip(fh: IO[bytes], display: str, report: ReadReport) -> bytes | None:
    """All bytes of a file, un-gzipped when it starts with the gzip magic. A damaged or truncated
    gzip stream gives the bytes decompressed before the damage (reported: a page cut off by a
    crawl's size limit keeps its beginning, as a WARC record's truncated gzip body does); None
    when nothing could be decompressed.

    Reads at most ``max_bytes + 1`` decompressed bytes: enough to know the page is too large.
    """
    limit = report.max_bytes + 1 if report.max_bytes is not None else -1
    magic = fh.read(2)
    fh.seek(0)
    if magic != b"\x1f\x8b":
        return fh.read(limit)
    gz = gzip.GzipFile(fileobj=fh, mode="rb")
    out = bytearray()
    try:
        # (in steps, one read of the stream each: what came before the damage is kept; read()
        # would ask again within the call and lose it)
        while limit < 0 or len(out) < limit:
            chunk = gz.read1(_GZIP_STEP if limit < 0 else min(_GZIP_STEP, limit - len(out)))
            if not chunk:
                break
            out += chunk
    except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
        if not out:
            report.truncated(display, _tell(fh), 0, detail=f"gzip: {exc}")
            return None
        report.truncated(display, _tell(fh), len(out), detail=f"gzip: {exc}", unit="decompressed bytes",
                         kept=True)
    return bytes(out)


def _tell(fh: IO[bytes]) -> int:
    try:
        return fh.tell()
    except (OSError, ValueError):
        return -1


HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz", ".xhtml.gz")


def is_html_name(name: str) -> bool:
    return name.lower().endswith(HTML_SUFFIXES)


TEXT_SUFFIXES = (".txt", ".text", ".txt.gz", ".text.gz")


def is_text_name(name: str) -> bool:
    return name.lower().endswith(TEXT_SUFFIXES)


def relative_url(path: str, root: str | None) -> str:
    """The page's path relative to the directory it was found in (the file's own path otherwise)."""
    if root is None:
        return path
    return os.path.relpath(path, root).replace(os.sep, "/")
