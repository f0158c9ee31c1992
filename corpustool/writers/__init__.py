"""Writers: the corpus formats (vertical, plain text, JSON Lines) by name, and :func:`open_writer`.

The shared machinery (temporary names moved into place, gzip, the output lock, the
format of a file name) is in :mod:`corpustool.writers.base`.
"""
from __future__ import annotations

from ..errors import OptionError
from .base import Writer, format_for
from .jsonl import JsonlWriter
from .text import TextWriter
from .vertical import VerticalWriter

WRITERS: dict[str, type[Writer]] = {"vert": VerticalWriter, "text": TextWriter, "jsonl": JsonlWriter}


def open_writer(path: str, fmt: str | None = None, **options) -> Writer:
    """A writer chosen by ``fmt`` or by the file name: .vert/.vrt (vertical), .txt, .jsonl."""
    fmt = fmt or format_for(path)
    if fmt not in WRITERS:
        raise OptionError(f"unknown output format {fmt!r}; choose from: {', '.join(WRITERS)}")
    return WRITERS[fmt](path, **options)
