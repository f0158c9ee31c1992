"""Byte ranges of one WARC file, read separately and split on record boundaries.

A big WARC file (uncompressed, or gzipped one member per record, as the
standard and every crawler write it) is cut into byte ranges of about
``split_bytes``; the Spark engine reads each range in its own task. A range
holds the records that *start* inside it: the task finds the first record
start at or after the range's first byte (range 0 starts at byte 0), reads
records with the checked framing of :mod:`.warc_framing` from there and stops
at the first record (or damage) that starts at or after the range's end.

The result must equal one reading of the whole file, byte for byte, so a task
also reports:

* ``sync``: where it began (the first record start it found);
* ``stop``: where the reading chain from ``sync`` reached the range's end (the
  first record or damage at or after it; None at the end of the file);
* ``records``: how many records (damaged ones too) it passed, which the driver
  adds up to give every record its index in the file (document ids are
  ``file:index``).

Finding a record start by its look (a ``WARC/1.x`` line, a gzip member that
inflates to one) can be fooled by a page that quotes a WARC header, or holds an
uncompressed gzipped WARC. The chain from range 0 on cannot: it follows the
records' lengths. So the driver accepts the split only when every range began
exactly where the chain of the range before it arrived (``sync[k] ==
stop[k-1]``); by induction every range then reads what the whole-file reading
reads there. Otherwise the file is read again as one partition. A file that is
no such WARC (another format, one gzip member for many records) is read whole
by its range 0; its other ranges read nothing.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO, Iterator

from .warc_framing import _GZIP_MAGIC, WARC, Damage, FramedRecord, Report, _GzipFramer, _PlainFramer

# the default size of a range (Spark's own default for file splits, spark.files.maxPartitionBytes)
SPLIT_BYTES = 128 << 20


def byte_ranges(size: int, split_bytes: int) -> list[tuple[int, int]]:
    """[start, end) ranges of about ``split_bytes`` covering a file of ``size`` bytes."""
    n = max(1, -(-size // split_bytes))
    step = -(-size // n)
    return [(k * step, min(size, (k + 1) * step)) for k in range(n)]


@dataclass
class RangeRead:
    """What a task found in its range (see the module's doc)."""

    whole: bool = False             # not splittable: range 0 read the whole file
    sync: int | None = None
    stop: int | None = None
    records: int = 0


def consistent(reads: list[RangeRead]) -> bool:
    """Did the ranges of one file read what one reading of the whole file reads?"""
    if any(r.whole for r in reads):
        return all(r.whole for r in reads)
    return all(reads[k].sync == reads[k - 1].stop for k in range(1, len(reads)))


def framer_of(fh: IO[bytes], report: Report, keep: int | None) -> _PlainFramer | _GzipFramer | None:
    """The framer a byte range can be read with, or None when the file cannot be split: not a
    WARC file, or gzipped in one member for many records."""
    from .reader import _head, sniff_format

    fh.seek(0)
    if sniff_format(_head(fh)) != "warc":
        return None             # read by its contents as a local run reads it (ARC, JSON Lines, ...)
    fh.seek(0)
    head = fh.read(8)
    if head[:3] == _GZIP_MAGIC:
        framer = _GzipFramer(fh, report, keep, WARC)
        return None if framer._one_member_for_many_records() else framer
    return _PlainFramer(fh, report, keep, WARC) if head.startswith(b"WARC/") else None


def frame_range(framer: _PlainFramer | _GzipFramer, start: int, end: int, last: bool,
                found: RangeRead) -> Iterator[FramedRecord]:
    """The records that start in [start, end) (``last``: up to the end of the file), in file order;
    ``found`` is filled in as the module's doc says."""
    report = framer.report
    passed: list[tuple[int, int]] = []          # (offset, records before it) of the first event past the end

    def in_range(damage: Damage) -> None:
        if not last and not passed and damage.offset >= end:
            passed.append((damage.offset, framer.index))
        if not passed:
            report(damage)

    framer.report = in_range
    if start == 0:
        sync: int | None = 0
    elif isinstance(framer, _GzipFramer):
        sync = framer._next_member(start - 1)
    else:
        sync = framer._find_header(start)
    found.sync = sync
    if sync is not None and (last or sync < end):
        for rec in framer.records(sync):
            if passed:
                break
            if not last and rec.offset >= end:
                passed.append((rec.offset, framer.index))
                break
            yield rec
    elif sync is not None:
        passed.append((sync, 0))        # no record starts in this range
    found.stop, found.records = passed[0] if passed else (None, framer.index)


def read_range(reader, path: str, display: str, root: str | None, start: int, end: int, k: int,
               last: bool, found: RangeRead) -> Iterator:
    """The documents of the records that start in one byte range of a WARC file (range ``k``),
    read as :meth:`Reader._read_file` reads the whole file; ``found`` says what the range held."""
    from ..errors import OptionError
    from .reader import InputError
    from .warc import _read_resync

    try:
        fh = open(path, "rb")
    except OSError:
        fh = None
    framer = None
    if fh is not None:
        with fh:
            try:
                framer = framer_of(fh, lambda damage: None, None)
            except OSError:
                framer = None
            if framer is not None:
                def frames(report: Report, keep: int | None) -> Iterator[FramedRecord]:
                    framer.report, framer.keep = report, keep
                    yield from frame_range(framer, start, end, last, found)

                n = 0
                try:
                    for doc in _read_resync(display, fh, reader.report, "warc", frames=frames):
                        n += 1
                        yield doc
                except OSError as exc:
                    reader.report.bad_record(display, "error:unreadable-file",
                                      f"{exc.strerror or exc} after {n} documents; the rest of the range "
                                      f"from byte {start} is skipped")
                except (OptionError, InputError):
                    raise
                except Exception as exc:    # a fault of ours: one line that says where (as _read_file)
                    raise InputError(f"{display}: bytes {start}-{end}: after {n} documents: "
                                     f"{type(exc).__name__}: {exc}") from exc
                return
    # not splittable (or not readable): range 0 reads it as a local run does, the others nothing
    found.whole = True
    if k == 0:
        yield from reader._read_file(path, display, root)


def splittable_name(reader, path: str, in_dir: bool) -> bool:
    """Is this input read as WARC by its name (or by --input-format), with the checked framing?"""
    return (reader.backend in (None, "resync") and reader._format_by_name(path, in_dir) == "warc"
            and os.path.isfile(path))


def records_before(reads: list[RangeRead]) -> list[int]:
    """For each range of a consistently split file: the records of the file before it."""
    before, n = [], 0
    for r in reads:
        before.append(n)
        n += r.records
    return before


def shift_id(doc, records: int):
    """A document read from a range, with the id a reading of the whole file gives it (``file:index``,
    the index counted from the range's first record)."""
    if records:
        base, _, index = doc.id.rpartition(":")
        doc.id = f"{base}:{int(index) + records}"
    return doc
