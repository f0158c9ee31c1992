"""Writers: sinks at the end of the pipeline.

Output is written under a temporary name and renamed into place on
:meth:`Writer.close`, so an interrupted run never leaves a truncated file
that looks complete. ``.gz`` names are gzip-compressed (with a fixed mtime,
so identical input gives byte-identical files). ``-`` is standard output.
"""
from __future__ import annotations

import gzip
import io
import os
import sys
from typing import IO

from ..document import Document


class Writer:
    name = "write"

    def __init__(self, path: str = "-") -> None:
        self.path = path
        self.docs = 0
        self._tmp: str | None = None
        self._raw: IO[bytes] | None = None
        if path == "-":
            self.fh: IO[str] = sys.stdout
            return
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._tmp = f"{path}.tmp{os.getpid()}"
        raw = open(self._tmp, "wb")
        self._raw = raw
        if path.endswith(".gz"):
            raw = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)  # type: ignore[assignment]
            self._gz = raw
        else:
            self._gz = None
        self.fh = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")  # type: ignore[arg-type]

    def write(self, doc: Document) -> None:
        self.docs += 1
        self.fh.write(self.format(doc))

    def format(self, doc: Document) -> str:
        raise NotImplementedError

    def close(self) -> None:
        if self.path == "-":
            self.fh.flush()
            return
        self.fh.flush()
        self.fh.close()  # closes the gzip stream and the file below it
        if self._gz is not None and self._raw is not None and not self._raw.closed:
            self._raw.close()
        assert self._tmp is not None
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        """Discard a partial output (on error or interruption)."""
        if self.path == "-":
            return
        try:
            self.fh.close()
        except Exception:
            pass
        if self._tmp and os.path.exists(self._tmp):
            os.unlink(self._tmp)


def open_writer(path: str, fmt: str | None = None, **options) -> Writer:
    """A writer chosen by ``fmt`` or by the file name: .vert/.vrt (vertical), .txt, .jsonl."""
    from ..extractors.base import OptionError
    from .jsonl import JsonlWriter
    from .text import TextWriter
    from .vertical import VerticalWriter

    if fmt is None:
        base = path[:-3] if path.endswith(".gz") else path
        if base.endswith((".txt", ".text")):
            fmt = "text"
        elif base.endswith((".jsonl", ".json")):
            fmt = "jsonl"
        else:
            fmt = "vert"
    writers = {"vert": VerticalWriter, "text": TextWriter, "jsonl": JsonlWriter}
    if fmt not in writers:
        raise OptionError(f"unknown output format {fmt!r}; choose from: {', '.join(writers)}")
    return writers[fmt](path, **options)
