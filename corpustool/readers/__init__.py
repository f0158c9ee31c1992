"""Readers: WARC/ARC archives, HTML files and directories, JSON Lines, stdin -> documents.

``make_reader(inputs, input_format="auto", max_bytes=None)`` returns the read
stage; ``reader.read()`` yields the documents and ``reader.stats`` counts them.
"""
from .reader import FORMATS, Reader, make_reader, sniff_format
from .warc import BACKENDS, DEFAULT_BACKEND

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "FORMATS", "Reader", "make_reader", "sniff_format"]
