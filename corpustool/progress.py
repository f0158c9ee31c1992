"""The progress bar of ``build``: bytes of the input read so far against their total, with an ETA.

The total is cheap to know for files and WARCs: the sizes of the input files
(directories walked). How far the reading is comes from each document's
``source``: ``file.warc.gz@OFFSET`` for a record of an archive (the offset of
its gzip member), the file itself for an HTML file. A file left behind counts
as read whole. Input without a size (stdin) shows a count of documents only.
"""
from __future__ import annotations

import os
import sys
from typing import IO, Iterable, Iterator

from .document import Document

# the size when the terminal does not say: a pty of `script -q -c` without a window size
# reports 0 x 0, and tqdm then hides its bar (it takes the bar's row to be off the screen)
DEFAULT_COLUMNS, DEFAULT_LINES = 80, 24


class InputBytes:
    """Position in the input, in bytes, from the sources of the documents read."""

    def __init__(self, inputs: list[str]) -> None:
        self.sizes: dict[str, int] = {}
        self.complete = True               # every input has a size
        for path in inputs:
            if path == "-":
                self.complete = False
            elif os.path.isdir(path):
                for root, dirs, files in os.walk(path):
                    for name in files:
                        self._add(os.path.join(root, name))
            else:
                self._add(path)
        self.total = sum(self.sizes.values()) if self.complete else None
        self.done = 0                      # bytes of the files read before the current one
        self.current: str | None = None
        self.offset = 0

    def _add(self, path: str) -> None:
        try:
            self.sizes[os.path.normpath(path)] = os.path.getsize(path)
        except OSError:
            self.complete = False

    def position(self, source: str | None) -> int:
        """Bytes read when the document from ``source`` has been read."""
        if source:
            path, sep, off = source.rpartition("@")
            if sep and off.isdigit() and os.path.normpath(path) in self.sizes:
                self._move(os.path.normpath(path), int(off))
            elif os.path.normpath(source) in self.sizes:
                key = os.path.normpath(source)
                self._move(key, self.sizes[key])
        return self.done + self.offset

    def _move(self, path: str, offset: int) -> None:
        if path != self.current:
            if self.current is not None:
                self.done += self.sizes[self.current]
            self.current = path
        self.offset = min(offset, self.sizes[path])


def terminal_size(stream: IO[str]) -> tuple[int, int]:
    """(columns, lines) of the terminal behind ``stream``, the defaults where it says 0 or nothing."""
    try:
        size = os.get_terminal_size(stream.fileno())
        columns, lines = size.columns, size.lines
    except (OSError, ValueError, AttributeError):
        columns = lines = 0
    return columns or DEFAULT_COLUMNS, lines or DEFAULT_LINES


def with_progress(docs: Iterable[Document], inputs: list[str], stream: IO[str] | None = None) -> Iterator[Document]:
    """Yield ``docs`` while drawing a bar on ``stream`` (stderr): input bytes read of the total and
    an ETA when the total is known, else the number of documents."""
    from tqdm import tqdm

    stream = stream or sys.stderr
    where = InputBytes(inputs)
    columns, lines = terminal_size(stream)
    if where.total is None:
        yield from tqdm(docs, desc="documents", unit="doc", file=stream, mininterval=0.5, ncols=columns,
                        nrows=lines)
        return
    bar = tqdm(total=where.total, desc="input", unit="B", unit_scale=True, unit_divisor=1024, file=stream,
               mininterval=0.5, ncols=columns, nrows=lines, bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
               "[{elapsed}<{remaining}, {rate_fmt}{postfix}]")
    count = 0
    try:
        for doc in docs:
            count += 1
            pos = where.position(doc.source)
            if pos > bar.n:
                bar.update(pos - bar.n)
            bar.set_postfix_str(f"{count} docs", refresh=False)
            yield doc
        bar.update(where.total - bar.n)     # the end of the input: whatever the last record's offset
    finally:
        bar.close()
