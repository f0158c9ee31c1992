"""Readers: WARC/ARC archives, HTML files and directories, JSON Lines, stdin -> documents.

``make_reader(inputs, input_format="auto", max_bytes=None)`` returns the read
stage; ``reader.read()`` yields the documents and ``reader.stats`` counts them.
"""
from .reader import FORMATS, Reader, make_reader
from .sniff import sniff_format
from .warc import BACKENDS, DEFAULT_BACKEND

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "FORMATS", "Reader", "make_reader", "sniff_format"]


def html_pages(path: str, limit: int | None = None) -> list[tuple[str, bytes]]:
    """(url, raw bytes) of the HTML documents of a crawl, in order (benchmarks and tools)."""
    pages = []
    for doc in make_reader([str(path)]).read():
        if doc.drop_reason or doc.raw is None:
            continue
        pages.append((doc.url or doc.id, doc.raw))
        if limit and len(pages) >= limit:
            break
    return pages
