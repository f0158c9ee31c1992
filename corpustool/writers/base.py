"""Writers: sinks at the end of the pipeline.

Output is written under a temporary name and moved into place on
:meth:`Writer.close`, so an interrupted run never leaves a truncated file
that looks complete. ``.gz`` names are gzip-compressed when the text is
complete (with a fixed mtime, so identical input gives byte-identical
files). ``-`` is standard output.
"""
from __future__ import annotations

import gzip
import io
import os
import shutil
import sys
from typing import IO

from ..document import Document


class Writer:
    name = "write"

    def __init__(self, path: str = "-", append: bool = False) -> None:
        self.path = path
        self.docs = 0
        self.append = append
        self._tmp: str | None = None
        self._raw: IO[bytes] | None = None
        if path == "-":
            self.fh: IO[str] = sys.stdout
            return
        if append:
            # a resumable build's partial output: plain text, appended in place
            self._raw = open(path, "ab")
            self.fh = io.TextIOWrapper(self._raw, encoding="utf-8", newline="\n")
            return
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._tmp = f"{path}.tmp{os.getpid()}"
        self._raw = open(self._tmp, "wb")
        self.fh = io.TextIOWrapper(self._raw, encoding="utf-8", newline="\n")

    def write(self, doc: Document) -> None:
        self.docs += 1
        self.fh.write(self.format(doc))

    def format(self, doc: Document) -> str:
        raise NotImplementedError

    def flush(self) -> int:
        """Write everything out; the size of the file so far (resumable builds)."""
        self.fh.flush()
        if self._raw is not None:
            self._raw.flush()
            os.fsync(self._raw.fileno())
            return self._raw.tell()
        return 0

    def close(self) -> None:
        if self.path == "-" or self.append:
            self.fh.flush()
            if self.append:
                self.fh.close()
            return
        self.fh.close()
        assert self._tmp is not None
        finish_output(self._tmp, self.path)

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


def finish_output(plain: str, path: str) -> None:
    """Move a finished plain output into place, gzip-compressed when ``path`` ends in .gz.

    Compressing the finished file in one pass (fixed mtime, no file name)
    gives the same bytes however the text was written: in one run or in a
    resumed one.
    """
    if path.endswith(".gz"):
        tmp = f"{path}.gz-tmp{os.getpid()}"
        with open(plain, "rb") as src, open(tmp, "wb") as raw, \
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            shutil.copyfileobj(src, gz, 1 << 20)
        os.replace(tmp, path)
        os.unlink(plain)
    else:
        os.replace(plain, path)


FORMAT_SUFFIXES = {".vert": "vert", ".vrt": "vert", ".txt": "text", ".text": "text", ".jsonl": "jsonl",
                   ".json": "jsonl"}


def format_for(path: str) -> str:
    """Output format by file name: .vert/.vrt, .txt, .jsonl (each maybe .gz); stdout and a name
    without a suffix are vertical. Another suffix (``x.docx``) is refused: we would write
    vertical text under a name that promises something else (issue 22)."""
    from ..extractors.base import OptionError

    base = path[:-3] if path.endswith(".gz") else path
    name = os.path.basename(base)
    suffix = os.path.splitext(name)[1].lower()
    if path == "-" or not suffix:
        return "vert"
    if suffix in FORMAT_SUFFIXES:
        return FORMAT_SUFFIXES[suffix]
    raise OptionError(f"cannot tell the output format of {path!r} from its name; use .vert, .vrt, .txt or "
                      f".jsonl (optionally .gz), or give --format")


def open_writer(path: str, fmt: str | None = None, **options) -> Writer:
    """A writer chosen by ``fmt`` or by the file name: .vert/.vrt (vertical), .txt, .jsonl."""
    from ..extractors.base import OptionError
    from .jsonl import JsonlWriter
    from .text import TextWriter
    from .vertical import VerticalWriter

    fmt = fmt or format_for(path)
    writers = {"vert": VerticalWriter, "text": TextWriter, "jsonl": JsonlWriter}
    if fmt not in writers:
        raise OptionError(f"unknown output format {fmt!r}; choose from: {', '.join(writers)}")
    return writers[fmt](path, **options)
