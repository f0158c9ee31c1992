"""The Spark engine's input: partitions listed by the driver, read where they run.

A partition is an input file, or a byte range of a big WARC file split on record
boundaries (:mod:`corpustool.readers.warc_ranges`). Partitions are numbered in
input order (file index, then range), and a record's key is
``(partition << 32) | its number in the partition``: the *global document
order*, the order of a local run, whatever the partitioning.

The driver opens no input file: it lists them (and their sizes). Each task reads
its partition with the read stage of a local run and sends back one small
summary (the read counters, file notes, what its range held). The driver checks
that the ranges of every split file agree with one reading of the whole file;
a file whose ranges do not is read again as one partition (rare: a page that
quotes WARC records across a range boundary). Documents read from a range get
the ids a whole-file reading gives them (``file:record``) before any stage sees
them.
"""
from __future__ import annotations

import os
import re
from functools import partial
from typing import Any, Iterable, Iterator
from urllib.parse import urlsplit

DOC, DROP, STATS = 0, 1, 2
_SEQ_BITS = 32


def key(part: int, seq: int) -> int:
    return (part << _SEQ_BITS) | seq


def part_of(record_key: int) -> int:
    return record_key >> _SEQ_BITS


def local_path(path: str) -> str | None:
    """The local file of an input named by a path or a ``file:`` URI; None for another scheme."""
    if path.startswith("file:"):
        return urlsplit(path).path or "/"
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", path):
        return None
    return path


def input_partitions(reader: Any, inputs: list[str], split_bytes: int | None,
                     whole: frozenset[str] = frozenset()) -> list[tuple]:
    """The input partitions, in input order: (partition, path, display name, directory root, range),
    range None (the whole file) or (start, end, range number, last range?). Directories are walked
    in sorted order, as a local run reads them; WARC files (by name) bigger than ``split_bytes``
    are cut into byte ranges, except those in ``whole``."""
    from ..errors import OptionError
    from ..readers.warc_ranges import byte_ranges, splittable_name

    specs: list[tuple] = []

    def add(path: str, display: str, root: str | None) -> None:
        size = 0
        if split_bytes and path not in whole:
            try:
                size = os.path.getsize(path)
            except OSError:
                size = 0        # the task that reads it reports why
        if split_bytes and size > split_bytes and splittable_name(reader, path, root is not None):
            ranges = byte_ranges(size, split_bytes)
            for k, (start, end) in enumerate(ranges):
                specs.append((len(specs), path, display, root, (start, end, k, k == len(ranges) - 1)))
        else:
            specs.append((len(specs), path, display, root, None))

    for inp in inputs:
        path = local_path(inp)
        if path is None:
            raise OptionError(f"input {inp}: only local paths and file: URIs are read by the Spark "
                              f"engine so far (mount the store, docs/spark.md)")
        if os.path.isdir(path):
            for f in reader._walk(path):
                add(f, f, path)
        else:
            add(path, inp if path == inp else path, None)
    return specs


def read_partition(input_format: str, max_bytes: int | None, backend: str | None,
                   specs: Iterable[tuple]) -> Iterator[tuple]:
    """Read input partitions where the task runs: tagged document records in file order, then one
    summary (partition, read counters, file notes, what a range held)."""
    from ..readers.reader import Reader
    from ..readers.warc_ranges import RangeRead, read_range

    for part, path, display, root, rng in specs:
        reader = Reader([path], input_format=input_format, max_bytes=max_bytes, backend=backend,
                        defer_decoding=True)
        reader.hold_notes = True
        found = None
        if rng is None:
            docs = reader._read_file(path, display, root)
        else:
            found = RangeRead()
            docs = read_range(reader, path, display, root, *rng, found)
        seq = 0
        for doc in docs:
            reader._count(doc)
            yield (DOC, key(part, seq), doc)
            seq += 1
        yield (STATS, -1, (part, reader.stats, reader.notes, found))


def _is_stats(rec: tuple) -> bool:
    return rec[0] == STATS


def _is_doc(rec: tuple) -> bool:
    return rec[0] == DOC


def _summary(rec: tuple) -> tuple:
    return rec[2]


def _shift(before: Any, rec: tuple) -> tuple:
    from ..readers.warc_ranges import shift_id

    _tag, k, doc = rec
    return k, shift_id(doc, before.value.get(part_of(k), 0))


def _untag(rec: tuple) -> tuple:
    return rec[1], rec[2]


def read_input(sc: Any, reader: Any, input_format: str, inputs: list[str],
               split_bytes: int | None) -> tuple[list[tuple], Any, Any, list[tuple]]:
    """Partition and read the input in the executors (one job for the summaries, the documents kept
    for the stages). Returns (partitions, the persisted read RDD, the (key, document) RDD, the
    read summaries in partition order)."""
    from pyspark import StorageLevel

    from ..readers.warc_ranges import consistent, records_before

    whole: frozenset[str] = frozenset()
    while True:
        specs = input_partitions(reader, inputs, split_bytes, whole)
        read = (sc.parallelize(specs, len(specs))
                .mapPartitions(partial(read_partition, input_format, reader.max_bytes, reader.backend))
                .persist(StorageLevel.MEMORY_AND_DISK))
        summaries = read.filter(_is_stats).map(_summary).collect()
        by_file: dict[str, list[tuple[int, Any]]] = {}
        for spec, (_part, _stats, _notes, found) in zip(specs, summaries):
            if found is not None:
                by_file.setdefault(spec[1], []).append((spec[0], found))
        refused = {path for path, ranges in by_file.items() if not consistent([f for _, f in ranges])}
        if not refused:
            break
        read.unpersist()            # read those files again, each as one partition
        whole = whole | refused
    before = {}
    for ranges in by_file.values():
        if not ranges[0][1].whole:
            before.update((part, n) for (part, _f), n in zip(ranges, records_before([f for _, f in ranges])) if n)
    docs = read.filter(_is_doc)
    docs = docs.map(partial(_shift, sc.broadcast(before))) if before else docs.map(_untag)
    return specs, read, docs, summaries


def merge_read_summaries(reader: Any, summaries: list[tuple]) -> None:
    """The tasks' read counters and file notes, in input order, into the driver's read stage."""
    notes: list[str] = []
    for _part, stats, file_notes, _found in summaries:
        reader.stats.merge(stats)
        notes += file_notes
    if notes:
        reader.notes.extend(notes)
        if not (reader.hold_notes and reader.stats.docs_in == 0):
            reader.flush_notes()
