"""Whole-file compression besides gzip: bzip2 and Zstandard, told by their magic bytes.

A WARC (or ARC) file compressed as a whole (``crawl.warc.bz2``, ``crawl.warc.zst``) is
decompressed, streaming, into a spooled temporary file that the record framer reads as a
plain WARC (offsets are then offsets in the uncompressed data). Concatenated streams
(pbzip2, zstd frames) are read one after the other; where the data breaks off, what was
decompressed before is kept and the break is reported, as for a gzip file cut short.
bzip2 comes with Python; Zstandard needs the ``zstandard`` package (not a dependency):
without it such a file is refused with a counted error (:func:`unsupported`).
"""
from __future__ import annotations

import bz2
import tempfile
from typing import IO

GZIP = "gzip"
BZIP2 = "bzip2"
ZSTD = "zstd"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_STEP = 1 << 20


def compression(head: bytes) -> str | None:
    """gzip, bzip2 or zstd from a file's first bytes; None for anything else."""
    if head[:2] == b"\x1f\x8b":
        return GZIP
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return BZIP2        # BZh, block size 1-9, then a block's or the end-of-stream's magic
    if head[:4] == _ZSTD_MAGIC:
        return ZSTD
    return None


def _zstandard():
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        return None
    return zstandard


def unsupported(kind: str | None) -> str | None:
    """Why a file compressed with ``kind`` cannot be read here, or None when it can."""
    if kind == ZSTD and _zstandard() is None:
        return ("Zstandard-compressed, and the zstandard package is not installed; "
                "decompress it first (zstd -d) or install zstandard")
    return None


def _decompressor(kind: str):
    if kind == BZIP2:
        return bz2.BZ2Decompressor()
    return _zstandard().ZstdDecompressor().decompressobj()


def _errors(kind: str) -> tuple[type[BaseException], ...]:
    if kind == BZIP2:
        return (OSError, EOFError, ValueError)
    return (_zstandard().ZstdError, EOFError, ValueError)


def head(fh: IO[bytes], kind: str, n: int = 4096) -> bytes:
    """The first ``n`` decompressed bytes (fewer where the data breaks off; b"" when none)."""
    fh.seek(0)
    d = _decompressor(kind)
    out = b""
    try:
        while len(out) < n:
            chunk = fh.read(1 << 16)
            if not chunk:
                break
            out += d.decompress(chunk)
            if getattr(d, "eof", False):
                break
    except _errors(kind):
        pass
    return out[:n]


def spool(fh: IO[bytes], kind: str) -> tuple[IO[bytes], str | None]:
    """The whole decompressed stream in a spooled temporary file (memory up to 64 MB, then disk),
    at position 0, and why the data breaks off (None when every stream ended cleanly)."""
    fh.seek(0)
    out = tempfile.SpooledTemporaryFile(max_size=64 << 20)
    d = _decompressor(kind)
    in_stream = False
    broken = None
    errors = _errors(kind)
    while broken is None:
        chunk = fh.read(_STEP)
        if not chunk:
            if in_stream:
                broken = f"{kind}: the compressed data breaks off"
            break
        while chunk:
            in_stream = True
            try:
                out.write(d.decompress(chunk))
            except errors as exc:
                broken = f"{kind}: {exc}"
                break
            if not getattr(d, "eof", False):
                break                   # the stream goes on in the next chunk
            chunk = d.unused_data.lstrip(b"\r\n \t")     # the next stream (frame), if any
            d = _decompressor(kind)
            in_stream = False
    out.seek(0)
    return out, broken
