"""Run the pipeline's stages on Apache Spark through pyspark (local mode or a cluster).

Same interface as :class:`corpustool.executors.local.LocalExecutor`:
``run(docs, stages)`` yields the kept documents in input order, merges every
stage's counters into the stage objects of the driver and reports dropped
documents to each stage's ``on_drop`` in input order, so the corpus, the
statistics and the rejects file equal those of a local run.

How the stages map onto Spark:

* The driver numbers the documents of the reader's stream (the *global
  document order*) and spills them in chunks of ``chunk_size`` to pickle
  files in ``workdir``; each chunk becomes one partition. The driver's
  memory stays bounded whatever the input size. On a cluster ``workdir``
  must be on storage every executor can read.
* Consecutive per-document stages (``Stage.parallel``) run in
  ``mapPartitions``, each task with its own copy of the stages and fresh
  counters that are sent back to the driver.
* Exact de-duplication (:class:`corpustool.dedup.exact.ExactDuplicates`) is a
  shuffle: documents are keyed by their text fingerprint, ``reduceByKey``
  finds the smallest global position per fingerprint, and a join keeps
  exactly that document. "Keep the first instance" is thus decided by the
  global order, as in a local run, whatever the partitioning.
* The remaining stages from the first other order-dependent stage on (near-
  duplicate and paragraph de-duplication, and whatever follows them) run in
  the driver on the ordered stream (``sortByKey`` + ``toLocalIterator``);
  distributing them is future work.
"""
from __future__ import annotations

import copy
import heapq
import os
import pickle
import shutil
import sys
import tempfile
from functools import partial
from typing import Any, Iterable, Iterator

from ..document import Document
from ..stage import Stage, StageStats

_DOC, _DROP, _STATS = 0, 1, 2


def spark_available() -> str | None:
    """None when pyspark and Java are usable, else the reason they are not."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install 'corpustool[spark]')"
    java_home = os.environ.get("JAVA_HOME")
    if not (java_home and os.path.exists(os.path.join(java_home, "bin", "java"))) and not shutil.which("java"):
        return "Java is not installed (Spark needs a Java runtime)"
    return None


# -- work done in the executors (module-level, so Spark pickles references only) --

def _load_chunk(path: str) -> Iterator[tuple[int, Document]]:
    with open(path, "rb") as fh:
        yield from pickle.load(fh)


def _strip(doc: Document) -> Document:
    doc.raw = None      # the rejects file needs metadata only
    doc.html = None
    return doc


def _run_segment(stages: list[Stage], first_no: int, records: Iterable[tuple[int, Document]]) -> Iterator[tuple]:
    """One partition through consecutive per-document stages: tagged kept, dropped and counter records."""
    for stage in stages:
        stage.stats = StageStats(stage.name)
        stage.on_drop = None
    for idx, doc in records:
        out: Document | None = doc
        for i, stage in enumerate(stages):
            out = stage.apply(out)
            if out is None:
                yield (_DROP, idx, (first_no + i, _strip(doc)))
                break
        if out is not None:
            yield (_DOC, idx, out)
    for i, stage in enumerate(stages):
        yield (_STATS, first_no + i, stage.stats)


def _fingerprinted(record: tuple[int, Document]) -> tuple[int, tuple[int, Document]]:
    from ..dedup.exact import text_fingerprint
    return text_fingerprint(record[1]), record


def _position(keyed: tuple[int, tuple[int, Document]]) -> tuple[int, tuple[int, str]]:
    fingerprint, (idx, doc) = keyed
    return fingerprint, (idx, doc.id)


def _run_exact_dedup(stage_no: int, name: str, joined: Iterable[tuple]) -> Iterator[tuple]:
    """After the join: keep the document at the first global position of its fingerprint."""
    stats = StageStats(name)
    for _fingerprint, ((idx, doc), (first_idx, first_id)) in joined:
        stats.count_in(doc)
        if idx == first_idx:
            stats.count_out(doc)
            yield (_DOC, idx, doc)
        else:
            doc.meta["duplicate_of"] = first_id     # as ExactDuplicates.accept does
            doc.drop("exact-duplicate")
            stats.count_drop(doc.drop_reason)
            yield (_DROP, idx, (stage_no, _strip(doc)))
    yield (_STATS, stage_no, stats)


def _range_partition(parts: int, total: int, idx: int) -> int:
    return min(parts - 1, idx * parts // max(1, total))


def _tag_is(tag: int):
    return lambda rec: rec[0] == tag


def _untag(rec: tuple) -> tuple:
    return rec[1], rec[2]


# -- the executor ------------------------------------------------------------------

class SparkExecutor:
    def __init__(self, master: str | None = None, workers: int = 1, chunk_size: int = 500,
                 workdir: str | None = None, conf: dict[str, str] | None = None) -> None:
        from ..extractors.base import OptionError

        if workers < 1:
            raise OptionError("--workers must be at least 1")
        if chunk_size < 1:
            raise OptionError("chunk_size must be at least 1")
        reason = spark_available()
        if reason:
            raise OptionError(f"the Spark engine is unavailable: {reason}")
        self.master = master or f"local[{workers}]"
        self.chunk_size = chunk_size
        self.workdir = workdir
        self.conf = dict(conf or {})

    # The stages Spark runs: the longest prefix of per-document stages and exact
    # de-duplication; the rest needs the ordered stream and runs in the driver.
    @staticmethod
    def split(stages: list[Stage]) -> tuple[list[Stage], list[Stage]]:
        from ..dedup.exact import ExactDuplicates

        n = 0
        while n < len(stages) and (stages[n].parallel or type(stages[n]) is ExactDuplicates):
            n += 1
        return stages[:n], stages[n:]

    def run(self, docs: Iterable[Document], stages: list[Stage]) -> Iterator[Document]:
        distributed, local = self.split(stages)
        workdir = tempfile.mkdtemp(prefix="corpustool-spark-", dir=self.workdir)
        try:
            chunks, total = self._spill(docs, workdir)
            stream: Iterable[Document]
            if chunks and distributed:
                sc, created = self._context()
                try:
                    stream = self._distributed(sc, chunks, total, distributed)
                    for st in local:
                        stream = st.run(stream)
                    yield from stream
                finally:
                    if created:
                        sc.stop()
            else:               # nothing to distribute: no input, or no per-document stage first
                stream = (doc for chunk in chunks for _, doc in _load_chunk(chunk))
                for st in stages:
                    stream = st.run(stream)
                yield from stream
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _spill(self, docs: Iterable[Document], workdir: str) -> tuple[list[str], int]:
        """Number the documents in input order and write them in chunks (bounded driver memory)."""
        paths: list[str] = []
        batch: list[tuple[int, Document]] = []

        def flush() -> None:
            path = os.path.join(workdir, f"chunk-{len(paths):06d}.pickle")
            with open(path, "wb") as fh:
                pickle.dump(batch, fh, protocol=pickle.HIGHEST_PROTOCOL)
            paths.append(path)
            batch.clear()

        total = 0
        for idx, doc in enumerate(docs):
            batch.append((idx, doc))
            total = idx + 1
            if len(batch) >= self.chunk_size:
                flush()
        if batch:
            flush()
        return paths, total

    def _context(self):
        from pyspark import SparkConf, SparkContext

        active = SparkContext._active_spark_context
        if active is not None:
            return active, False
        # the Python workers must be this interpreter (this virtualenv), not the first python3 on PATH
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        conf = (SparkConf().setMaster(self.master).setAppName("corpustool")
                .set("spark.ui.enabled", "false")
                .set("spark.ui.showConsoleProgress", "false")
                .set("spark.pyspark.python", sys.executable)
                .set("spark.pyspark.driver.python", sys.executable))
        for key, value in self.conf.items():
            conf.set(key, value)
        sc = SparkContext(conf=conf)
        sc.setLogLevel("ERROR")
        return sc, True

    def _distributed(self, sc: Any, chunks: list[str], total: int, stages: list[Stage]) -> Iterator[Document]:
        from pyspark import StorageLevel

        from ..dedup.exact import ExactDuplicates

        docs = sc.parallelize(chunks, len(chunks)).flatMap(_load_chunk)
        side = []           # RDDs of tagged drop and counter records
        persisted = []
        no = 0
        while no < len(stages):
            stage = stages[no]
            if type(stage) is ExactDuplicates:
                keyed = docs.map(_fingerprinted).persist(StorageLevel.MEMORY_AND_DISK)
                firsts = keyed.map(_position).reduceByKey(min)
                joined = keyed.join(firsts)
                out = joined.mapPartitions(lambda it, k=no, n=stage.name: _run_exact_dedup(k, n, it))
                persisted.append(keyed)
                no += 1
            else:
                seg = []
                while no + len(seg) < len(stages) and stages[no + len(seg)].parallel:
                    seg.append(stages[no + len(seg)])
                shipped = [copy.copy(s) for s in seg]      # without the driver's on_drop handler
                for s in shipped:
                    s.on_drop = None
                    s.stats = StageStats(s.name)
                out = docs.mapPartitions(lambda it, ss=shipped, k=no: _run_segment(ss, k, it))
                no += len(seg)
            out = out.persist(StorageLevel.MEMORY_AND_DISK)
            persisted.append(out)
            docs = out.filter(_tag_is(_DOC)).map(_untag)
            side.append(out)
        try:
            # counters first (one job): the stage objects of the driver then hold the final numbers
            for _tag, stage_no, stats in sc.union([part.filter(_tag_is(_STATS)) for part in side]).collect():
                stages[stage_no].stats.merge(stats)
            drops = sc.union([part.filter(_tag_is(_DROP)).map(_untag) for part in side])
            # global positions are 0..total-1, so a range partitioner needs no sampling job;
            # partition i then holds the i-th slice of the input, sorted
            parts = len(chunks)
            by_range = partial(_range_partition, parts, total)
            kept_sorted = docs.repartitionAndSortWithinPartitions(parts, by_range)
            drops_sorted = drops.repartitionAndSortWithinPartitions(parts, by_range)
            kept = ((idx, 1, doc) for idx, doc in kept_sorted.toLocalIterator())
            dropped = ((idx, 0, rec) for idx, rec in drops_sorted.toLocalIterator())
            # every document is either kept or dropped once: merging by global position
            # reports drops exactly where a one-process run reports them
            for _idx, is_kept, item in heapq.merge(kept, dropped, key=lambda t: t[0]):
                if is_kept:
                    yield item
                else:
                    stage_no, doc = item
                    stage = stages[stage_no]
                    if stage.on_drop is not None:
                        stage.on_drop(doc, stage.name)
        finally:
            for rdd in persisted:
                rdd.unpersist()
