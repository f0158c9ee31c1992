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


def hadoop_files(sc: Any, uri: str) -> tuple[list[str], str | None]:
    """The files a Hadoop URI names (a directory walked as a local run walks one: entries sorted by
    name, subdirectories in place), and the directory's own URI (None for a file). Listed through
    the JVM's Hadoop file system in the driver; no byte is read."""
    from ..errors import OptionError

    jvm = sc._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    try:
        fs = path.getFileSystem(sc._jsc.hadoopConfiguration())
        status = fs.getFileStatus(path)
    except Exception as exc:        # no such file, no file system for the scheme (a Py4J error)
        java = getattr(exc, "java_exception", None)
        lines = (java.toString() if java is not None else str(exc)).strip().splitlines()
        raise OptionError(f"input {uri}: cannot be listed through Hadoop "
                          f"({lines[0][:300] if lines else type(exc).__name__})") from None

    def walk(directory: Any) -> Iterator[str]:
        for st in sorted(fs.listStatus(directory), key=lambda st: st.getPath().getName()):
            if st.isDirectory():
                yield from walk(st.getPath())
            else:
                yield st.getPath().toString()

    if status.isDirectory():
        return list(walk(status.getPath())), status.getPath().toString()
    return [status.getPath().toString()], None


def input_partitions(reader: Any, inputs: list[str], split_bytes: int | None,
                     whole: frozenset[str] = frozenset(), sc: Any = None,
                     through_hadoop: Any = None, count: bool = True) -> list[tuple]:
    """The input partitions, in input order: (partition, path, display name, directory root, range),
    range None (the whole file), (start, end, range number, last range?), or "hadoop" (a file read
    through Hadoop's file system: ``sc.binaryFiles``). Directories are walked in sorted order, as a
    local run reads them; WARC files (by name) bigger than ``split_bytes`` are cut into byte ranges,
    except those in ``whole``. Without ``sc`` only local paths and ``file:`` URIs are accepted;
    ``through_hadoop(uri)`` says which URIs Hadoop reads (default: those with a scheme other than
    ``file:``). ``count``: skipped links and unreadable directories are counted (and named) in the
    reader's statistics; the driver lists the input more than once, and counts one listing only."""
    from ..errors import OptionError
    from ..readers.warc_ranges import byte_ranges, splittable_name

    specs: list[tuple] = []
    hadoop = through_hadoop or (lambda inp: local_path(inp) is None)

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
        if hadoop(inp):
            if sc is None:
                continue        # listed when the context runs
            files, root = hadoop_files(sc, inp)
            for f in files:
                if "," in f:
                    raise OptionError(f"input {f}: a comma in a Hadoop path is not supported")
                # a local run names the files of a directory by their path, a file by its name as given
                display = f if root is not None else inp
                specs.append((len(specs), f, local_path(display) if display.startswith("file:") else display,
                              root, "hadoop"))
            continue
        path = local_path(inp)
        if os.path.isdir(path):
            for f in reader._walk(path, count=count):
                add(f, f, path)
        else:
            add(path, inp if path == inp else path, None)
    return specs


def read_partition(input_format: str, max_bytes: int | None, backend: str | None,
                   specs: Iterable[tuple], id_names: dict[str, str] | None = None) -> Iterator[tuple]:
    """Read input partitions where the task runs: tagged document records in file order, then one
    summary (partition, read counters, file notes, what a range held). ``id_names``: the run's
    :func:`~corpustool.readers.reader.shared_names`, so ids are those of a local run."""
    from ..readers.reader import Reader
    from ..readers.warc_ranges import RangeRead, read_range

    for part, path, display, root, rng in specs:
        # ``remote``: the driver checked the inputs it was given; a file found in a directory (a
        # dangling link, one unreadable or gone since) is skipped and counted as a local run does,
        # not refused as a missing input, which failed the task and the whole job
        reader = Reader([path], input_format=input_format, max_bytes=max_bytes, backend=backend,
                        defer_decoding=True, remote=[path])
        reader.hold_notes = True
        reader.report.id_names = id_names or {}
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


def read_hadoop_files(input_format: str, max_bytes: int | None, backend: str | None, specs: Any,
                      files: Iterable[tuple[str, bytes]], id_names: dict[str, str] | None = None) -> Iterator[tuple]:
    """Files Spark read through Hadoop (``binaryFiles``: (URI, contents)), each put in a local
    temporary file under its own name (and its path below the input directory, for the URL of an
    HTML file) and read as a local run reads it; keys and summaries as :func:`read_partition`.
    ``specs``: broadcast {URI: spec}."""
    import shutil
    import tempfile

    from urllib.parse import unquote

    for uri, data in files:
        part, _uri, display, root, _how = specs.value[uri]
        tmp = tempfile.mkdtemp(prefix="corpustool-hadoop-")
        cwd = os.getcwd()
        try:
            rel = unquote(uri[len(root) + 1:] if root and uri.startswith(root + "/") else uri.rsplit("/", 1)[-1])
            local = os.path.join(tmp, *rel.split("/"))
            os.makedirs(os.path.dirname(local), exist_ok=True)
            with open(local, "wb") as fh:
                fh.write(data)
            del data
            if root is None:
                # a file named alone: an HTML page's URL is the path it is read by, here its name
                # (the temporary directory's name would differ from run to run)
                os.chdir(tmp)
                local = os.path.basename(local)
            yield from read_partition(input_format, max_bytes, backend,
                                      [(part, local, display, tmp if root is not None else None, None)],
                                      id_names)
        finally:
            os.chdir(cwd)
            shutil.rmtree(tmp, ignore_errors=True)


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


def read_input(sc: Any, reader: Any, input_format: str, inputs: list[str], split_bytes: int | None,
               through_hadoop: Any = None) -> tuple[list[tuple], Any, Any, list[tuple]]:
    """Partition and read the input in the executors (one job for the summaries, the documents kept
    for the stages). Returns (partitions, the persisted read RDD, the (key, document) RDD, the
    read summaries in partition order)."""
    from pyspark import StorageLevel

    from ..readers.reader import shared_names
    from ..readers.warc_ranges import consistent, records_before

    whole: frozenset[str] = frozenset()
    first = True
    while True:
        # counted once: a file whose ranges disagree makes another listing
        specs = input_partitions(reader, inputs, split_bytes, whole, sc, through_hadoop, count=first)
        first = False
        if not specs:
            return specs, None, None, []        # an empty Hadoop directory
        # ids as a local run makes them: the path as given for files whose name another file shares
        id_names = shared_names(s[2] for s in specs)
        local = [s for s in specs if s[4] != "hadoop"]
        remote = {s[1]: s for s in specs if s[4] == "hadoop"}
        parts = []
        if local:
            parts.append(sc.parallelize(local, len(local))
                         .mapPartitions(partial(read_partition, input_format, reader.max_bytes, reader.backend,
                                                id_names=id_names)))
        if remote:
            parts.append(sc.binaryFiles(",".join(remote), len(remote))
                         .mapPartitions(partial(read_hadoop_files, input_format, reader.max_bytes, reader.backend,
                                                sc.broadcast(remote), id_names=id_names)))
        read = (parts[0] if len(parts) == 1 else sc.union(parts)).persist(StorageLevel.MEMORY_AND_DISK)
        summaries = sorted(read.filter(_is_stats).map(_summary).collect(), key=lambda summary: summary[0])
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
