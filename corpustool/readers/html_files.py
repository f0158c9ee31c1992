"""HTML pages stored as files (``.html``, ``.htm`` and their ``.gz``), one document each."""
from __future__ import annotations

import gzip
import os
import zlib
from typing import IO, TYPE_CHECKING, Iterator

from ..document import Document

if TYPE_CHECKING:
    from .reader import Reader


def read_html_file(path: str, display: str, url: str, reader: "Reader") -> Iterator[Document]:
    """One document from an HTML file; a ``.gz`` is decompressed (damage reported, not fatal)."""
    doc = Document(id=display, url=url, source=display)
    try:
        with open(path, "rb") as fh:
            raw = read_maybe_gzip(fh, display, reader)
    except OSError as exc:
        reader.bad_record(display, "error:unreadable-file", exc.strerror or str(exc))
        return
    if raw is None:
        return
    if reader.max_bytes is not None and len(raw) > reader.max_bytes:
        yield reader.too_large(doc, len(raw))
        return
    doc.raw = raw
    yield doc


def read_html_bytes(raw: bytes, display: str, reader: "Reader", url: str | None = None,
                    doc_id: str | None = None) -> Iterator[Document]:
    doc = Document(id=doc_id or display, url=url, source=display)
    if reader.max_bytes is not None and len(raw) > reader.max_bytes:
        yield reader.too_large(doc, len(raw))
        return
    doc.raw = raw
    yield doc


def read_text_bytes(raw: bytes, display: str, reader: "Reader", url: str | None = None,
                    doc_id: str | None = None) -> Iterator[Document]:
    """A plain-text file as one document: its paragraphs are separated by blank lines (made into
    the <p> elements of a page, cleaned as any page is)."""
    doc = Document(id=doc_id or display, url=url, source=display)
    if reader.max_bytes is not None and len(raw) > reader.max_bytes:
        yield reader.too_large(doc, len(raw))
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


def read_maybe_gzip(fh: IO[bytes], display: str, reader: "Reader") -> bytes | None:
    """All bytes of a file, un-gzipped when it starts with the gzip magic; None when damaged.

    Reads at most ``max_bytes + 1`` decompressed bytes: enough to know the page is too large.
    """
    limit = reader.max_bytes + 1 if reader.max_bytes is not None else -1
    magic = fh.read(2)
    fh.seek(0)
    if magic != b"\x1f\x8b":
        return fh.read(limit)
    gz = gzip.GzipFile(fileobj=fh, mode="rb")
    try:
        return gz.read(limit)
    except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
        reader.truncated(display, _tell(fh), 0, detail=f"gzip: {exc}")
        return None


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
