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
* Near-duplicate removal (:class:`corpustool.dedup.near.NearDuplicates`,
  stream mode) is distributed: sketches and super-shingles are computed in
  the partitions; a shuffle on the super-shingles (``groupByKey``) gives the
  document pairs sharing one, ``reduceByKey`` counts the shared ones
  (candidates: >= r); candidates are verified in the executors on the full
  sketches (two joins with the sketches). The order-dependent decision ("drop
  a document iff it resembles an earlier *kept* one") is made in the driver,
  greedily in global document order over the (few) verified pairs, and sent
  back to the partitions as a broadcast.
* Paragraph de-duplication (:class:`corpustool.dedup.onion.Onion`,
  streaming) is decided in the executors: for every n-gram, the first global
  position whose document kept it (``reduceByKey(min)``), found by a fixpoint
  over rounds of joins; each document is decided in its partition against
  those positions, and the driver only applies the decisions in order
  (:meth:`SparkExecutor._onion_pass2`, docs/spark.md).
* Stages after that run in the driver on the ordered stream
  (``repartitionAndSortWithinPartitions`` + ``toLocalIterator``).

See docs/spark.md for why every result equals the local one.
"""
from __future__ import annotations

import copy
import heapq
import os
import pickle
import re
import shutil
import socket
import sys
import tempfile
import threading
from functools import partial
from typing import Any, Iterable, Iterator
from urllib.parse import urlsplit

import numpy as np

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


def _run_segment(stages: list[Stage], first_no: int, doc_timeout: float, faults: bool,
                 records: Iterable[tuple[int, Document]]) -> Iterator[tuple]:
    """One partition through consecutive per-document stages: tagged kept, dropped and counter records.

    The stages run in a supervised child process of the Python worker (as in a
    local run), so a page that crashes or hangs it is dropped as ``crashed`` or
    ``timeout`` and neither the task nor the job fails.
    """
    from collections import deque

    from .supervise import WorkerPool

    for stage in stages:
        stage.stats = StageStats(stage.name)
        stage.on_drop = None
    positions: deque[int] = deque()

    def numbered() -> Iterator[Document]:
        for idx, doc in records:
            positions.append(idx)
            yield doc

    pool = WorkerPool([stages], 1, doc_timeout, faults=faults)
    try:
        for doc, i in pool.outcomes(0, numbered()):
            idx = positions.popleft()
            if i < 0:
                yield (_DOC, idx, doc)
            else:
                yield (_DROP, idx, (first_no + i, _strip(doc)))
    finally:
        pool.close()
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


# near-duplicate documents (NearDuplicates, stream mode)

def _near_fingerprints(params: Any, keep_tokens: bool, records: Iterable[tuple[int, Document]]) -> Iterator[tuple]:
    """(idx, doc, 16-bit sketch or None, super-shingles or None) per document; None without words.

    The same numbers as :meth:`NearDuplicates.fingerprint_batch` computes in a
    local run (a sketch depends on its document only, not on the batch), and
    the tokens are stored in the paragraphs as there (``keep_tokens``).
    """
    from ..dedup.near import BATCH_DOCS, NearDuplicates
    from ..dedup.shingling import document_tokens

    stage = NearDuplicates(params=params, keep_tokens=keep_tokens)
    batch: list[tuple[int, Document]] = []

    def flush() -> Iterator[tuple]:
        tokens = [document_tokens(doc, keep=keep_tokens) for _, doc in batch]
        sketches, features, valid = stage.fingerprint_batch(tokens)
        sk16 = sketches.astype(np.uint16)
        for row, (idx, doc) in enumerate(batch):
            if valid[row]:
                yield idx, doc, sk16[row].copy(), features[row].copy()
            else:
                yield idx, doc, None, None
        batch.clear()

    for rec in records:
        batch.append(rec)
        if len(batch) >= BATCH_DOCS:
            yield from flush()
    if batch:
        yield from flush()


def _feature_records(rec: tuple) -> list[tuple[int, int]]:
    idx, _doc, _sketch, features = rec
    return [] if features is None else [(int(f), idx) for f in features.tolist()]


def _pairs_of_group(group: tuple[int, Iterable[int]]) -> Iterator[tuple[tuple[int, int], int]]:
    """Every pair (a < b) of the documents sharing one super-shingle, once per shared copy of it."""
    members = sorted(group[1])
    for i in range(len(members)):
        a = members[i]
        for b in members[i + 1:]:
            if b != a:          # a super-shingle twice in one document pairs it with nobody
                yield (a, b), 1


def _add(x: int, y: int) -> int:
    return x + y


def _sketch_record(rec: tuple) -> tuple[int, tuple[str, np.ndarray]]:
    return rec[0], (rec[1].id, rec[2])


def _swap_to_b(kv: tuple) -> tuple[int, tuple[int, str, np.ndarray]]:
    a, (b, (a_id, sketch_a)) = kv
    return b, (a, a_id, sketch_a)


def _verify(kv: tuple) -> tuple[int, int, str, int]:
    """(a, b, id of a, equal values of the two full sketches)."""
    b, ((a, a_id, sketch_a), (_b_id, sketch_b)) = kv
    return a, b, a_id, int(np.count_nonzero(sketch_a == sketch_b))


def _keep_first(verified: list[tuple[int, int, str, int]]) -> tuple[dict[int, tuple[str, int]], set[int]]:
    """Stream mode's decisions from the verified pairs: greedily in global order,
    a document is dropped iff it resembles a document kept before it; it is
    reported against the most similar kept one (ties: the earliest).

    Returns {dropped position: (id of that kept document, equal sketch values)}
    and the positions of the kept documents that absorbed a near-duplicate.
    """
    earlier: dict[int, list[tuple[int, int, str]]] = {}
    for a, b, a_id, matches in verified:
        earlier.setdefault(b, []).append((matches, a, a_id))
    dropped: dict[int, tuple[str, int]] = {}
    absorbing: set[int] = set()
    for d in sorted(earlier):       # every earlier document is decided when d is
        prior = [c for c in earlier[d] if c[1] not in dropped]
        if prior:
            matches, a, a_id = min(prior, key=lambda c: (-c[0], c[1]))
            dropped[d] = (a_id, matches)
            absorbing.add(a)
    return dropped, absorbing


def _run_near_decisions(stage_no: int, name: str, t: int, dropped: Any, records: Iterable[tuple]) -> Iterator[tuple]:
    """Apply the driver's decisions in a partition, with the counters stream mode keeps."""
    from ..dedup.near import DROP_REASON

    decisions = dropped.value
    stats = StageStats(name)
    for idx, doc, sketch, _features in records:
        stats.count_in(doc)
        if sketch is None:
            stats.extra["no-words"] += 1
        hit = decisions.get(idx)
        if hit is None:
            stats.count_out(doc)
            yield (_DOC, idx, doc)
        else:
            kept_id, matches = hit
            doc.meta["near_duplicate_of"] = kept_id
            doc.meta["resemblance"] = round(matches / t, 4)
            doc.drop(DROP_REASON)
            stats.count_drop(DROP_REASON)
            yield (_DROP, idx, (stage_no, _strip(doc)))
    yield (_STATS, stage_no, stats)


def _first_not_dropped(dropped: Any, pair: tuple[int, int, str, int]) -> bool:
    return pair[0] not in dropped.value


def _range_partition(parts: int, total: int, idx: int) -> int:
    return min(parts - 1, idx * parts // max(1, total))


def _tag_is(tag: int):
    return lambda rec: rec[0] == tag


def _untag(rec: tuple) -> tuple:
    return rec[1], rec[2]


def _distributable(stage: Stage) -> bool:
    """Order-dependent stages that run as shuffles (with the same result as in one process)."""
    from ..dedup.exact import ExactDuplicates
    from ..dedup.near import NearDuplicates

    if type(stage) is ExactDuplicates:
        return not stage.seen
    # stream mode only: batch mode's mass-copy cap and its clusters file are not reproduced here
    return (type(stage) is NearDuplicates and stage.mode == "stream" and stage.clusters_path is None
            and stage.index.n == 0)


def _onion_pass1(stage: Stage) -> bool:
    """A paragraph de-duplication in streaming form, not yet used: it can be decided on Spark."""
    from ..dedup.hashset import HashSet
    from ..dedup.onion import Onion

    return type(stage) is Onion and type(stage.engine.out) is HashSet and len(stage.engine.out) == 0


# paragraph de-duplication (Onion), pass 2 distributed: iterate "first kept occurrence" to a fixpoint

class _KnownOutput:
    """G_out as one document sees it: hash -> kept by an earlier document (from the shuffle)."""

    def __init__(self, in_out: dict[int, bool]) -> None:
        self.in_out = in_out

    def __len__(self) -> int:
        return 0

    def query(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        get = self.in_out.get
        found = np.fromiter((get(int(h), False) for h in hashes), dtype=bool, count=hashes.size)
        return found, found

    def relevant(self, handle: np.ndarray) -> None:
        return None

    def restrict(self, handle: np.ndarray, keep: np.ndarray) -> np.ndarray:
        return handle[keep]

    def add_queried(self, hashes: np.ndarray, handle: np.ndarray, select: np.ndarray) -> int:
        return 0


def _onion_unit(opts: Any, doc: Document) -> Any:
    from ..dedup.onion import DocumentUnit

    return DocumentUnit(doc, opts.max_heading_distance)


def _onion_occurrences(opts: Any, rec: tuple[int, Document]) -> list[tuple[int, int]]:
    """(hash, global position) of every n-gram entry of a document (whole paragraphs included)."""
    from ..dedup.onion import OnionEngine

    idx, doc = rec
    b = OnionEngine(opts).batch_ngrams([_onion_unit(opts, doc)])
    return [(int(h), idx) for h in np.unique(b.hashes)]


def _onion_in_out(kv: tuple[int, tuple[int, int]]) -> tuple[int, tuple[int, bool]]:
    """(hash, (position, first kept position)) -> (position, (hash, kept by an earlier document))."""
    h, (idx, first) = kv
    return idx, (h, first < idx)


def _onion_decide(opts: Any, kv: tuple[int, tuple[Document, Any]]) -> tuple[int, tuple[Document, tuple]]:
    """Decide one document given which of its n-grams earlier documents kept (Algorithm 3.1 for one
    unit: the streaming engine's decision, whose batch logic equals deciding one by one)."""
    from ..dedup.onion import OnionEngine

    idx, (doc, known) = kv
    unit = _onion_unit(opts, doc)
    engine = OnionEngine(opts, out_set=_KnownOutput(dict(known) if known is not None else {}))
    engine.process([unit])
    b = engine.batch_ngrams([unit])
    removed = unit.removed if unit.removed is not None else np.zeros(len(unit.tokens), dtype=bool)
    kept = engine._kept_ngrams(b, np.asarray(removed, dtype=bool))
    kept_hashes = np.unique(b.hashes[kept]) if b.hashes.size else b.hashes
    return idx, (doc, (unit.dup, unit.removed, unit.share, b.n_tokens, [int(h) for h in kept_hashes]))


def _onion_kept(kv: tuple[int, tuple[Document, tuple]]) -> list[tuple[int, int]]:
    idx, (_doc, decision) = kv
    return [(h, idx) for h in decision[4]]


def _differs(kv: tuple[int, tuple[Any, Any]]) -> bool:
    return kv[1][0] != kv[1][1]


# -- the executor ------------------------------------------------------------------

# the master URLs Spark accepts (Spark's "Master URLs" table); anything else makes the JVM
# print a page of log before failing, so it is refused here in one line (issue 22)
_MASTER_URL = re.compile(r"local(\[(\*|[1-9]\d*)(,[1-9]\d*)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn"
                         r"|(spark|mesos)://[^\s/:]+:\d+(,[^\s/:]+:\d+)*|k8s://\S+")


def check_master(master: str) -> None:
    from ..extractors.base import OptionError

    if not _MASTER_URL.fullmatch(master):
        raise OptionError(f"invalid Spark master URL {master!r}; use local[N], spark://HOST:PORT, yarn, "
                          f"k8s://URL or mesos://HOST:PORT")


# how long to try each host of a cluster master before refusing it (seconds)
MASTER_CONNECT_TIMEOUT = 5.0


def master_endpoints(master: str) -> list[tuple[str, int]]:
    """(host, port) of each master a cluster URL names; [] for local, yarn (found through its config)."""
    if master.startswith(("spark://", "mesos://")):
        hosts = master.split("://", 1)[1].split(",")
        return [(h.rsplit(":", 1)[0], int(h.rsplit(":", 1)[1])) for h in hosts]
    if master.startswith("k8s://"):
        url = urlsplit(master[len("k8s://"):] if "://" in master[len("k8s://"):] else "https://" + master[6:])
        try:
            port = url.port
        except ValueError:
            port = None
        return [(url.hostname, port or (80 if url.scheme == "http" else 443))] if url.hostname else []
    return []


def check_master_reachable(master: str, timeout: float = MASTER_CONNECT_TIMEOUT) -> None:
    """Refuse a cluster master no host of which accepts a connection, before the JVM starts.

    Spark itself retries an unreachable master for a minute and a half, printing
    Java's log and stack traces, then fails on a null pointer (issue 22).
    """
    from ..extractors.base import OptionError

    endpoints = master_endpoints(master)
    errors = []
    for host, port in endpoints:
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            return
        except socket.gaierror as exc:
            errors.append(f"{host}: unknown host ({exc.strerror})")
        except socket.timeout:
            errors.append(f"{host}:{port}: no answer within {timeout:g} s")
        except OSError as exc:
            errors.append(f"{host}:{port}: {exc.strerror or exc}")
    if errors:
        raise OptionError(f"cannot reach the Spark master {master}: {'; '.join(errors)}")


# seconds a cluster master has to take the application (the JVM's start included): Spark
# itself waits 60 s for an unresponsive one, then goes on and fails later on a null pointer
MASTER_REGISTER_TIMEOUT = 45.0

# the driver's log: errors only (Spark's default prints every warning of the JVM's start,
# before setLogLevel can act; Spark prints "Setting default log level" unless the level
# configured for org.apache.spark equals the root's); used unless the user gives driver Java options
_QUIET_LOG4J2 = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.spark.name = org.apache.spark
logger.spark.level = error
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.netty.name = io.netty
logger.netty.level = error
"""


def _start_context(conf: Any, master: str, timeout: float | None) -> Any:
    """A SparkContext; with a cluster master, refused when the master does not take the
    application within ``timeout`` seconds (a port that answers but is no Spark master)."""
    from pyspark import SparkContext

    from ..extractors.base import OptionError

    if timeout is None:
        return SparkContext(conf=conf)
    box: dict[str, Any] = {}

    def start() -> None:
        try:
            box["sc"] = SparkContext(conf=conf)
        except BaseException as exc:      # handed to the caller
            box["error"] = exc

    # a daemon thread: on refusal the process may exit while Spark still waits (its JVM
    # ends with the process)
    thread = threading.Thread(target=start, name="spark-context", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise OptionError(f"the Spark master {master} did not take the application within {timeout:g} s "
                          f"(is it a Spark master, with workers?)")
    if "error" in box:
        raise box["error"]
    return box["sc"]


class SparkExecutor:
    def __init__(self, master: str | None = None, workers: int = 1, chunk_size: int = 500,
                 workdir: str | None = None, conf: dict[str, str] | None = None,
                 doc_timeout: float | None = 60.0) -> None:
        from ..extractors.base import OptionError
        from .local import check_doc_timeout

        if master is not None:
            check_master(master)
        if workers < 1:
            raise OptionError("--workers must be at least 1")
        if chunk_size < 1:
            raise OptionError("chunk_size must be at least 1")
        reason = spark_available()
        if reason:
            raise OptionError(f"the Spark engine is unavailable: {reason}")
        if master is not None:
            check_master_reachable(master)
        self.master = master or f"local[{workers}]"
        self.chunk_size = chunk_size
        self.workdir = workdir
        self.conf = dict(conf or {})
        self.doc_timeout = check_doc_timeout(doc_timeout)

    # The stages Spark runs: the longest prefix of per-document stages and
    # distributable de-duplication stages; the rest needs the ordered stream and
    # runs in the driver (a paragraph de-duplication first in it gets its pass 1
    # from Spark).
    @staticmethod
    def split(stages: list[Stage]) -> tuple[list[Stage], list[Stage]]:
        n = 0
        while n < len(stages) and (stages[n].parallel or _distributable(stages[n])):
            n += 1
        return stages[:n], stages[n:]

    def run(self, docs: Iterable[Document], stages: list[Stage]) -> Iterator[Document]:
        distributed, local = self.split(stages)
        onion = local[0] if local and _onion_pass1(local[0]) else None
        workdir = tempfile.mkdtemp(prefix="corpustool-spark-", dir=self.workdir)
        try:
            chunks, total = self._spill(docs, workdir)
            stream: Iterable[Document]
            if chunks and (distributed or onion is not None):
                sc, created = self._context()
                try:
                    stream = self._distributed(sc, chunks, total, distributed, onion)
                    for st in local:
                        # pass 2 was decided in the executors: the driver only applies the decisions
                        stream = st.run_decided(stream) if st is onion else st.run(stream)
                    yield from stream
                finally:
                    if created:
                        sc.stop()
            else:               # nothing to distribute: no input, or no stage Spark can run
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
        log_config = None
        if "spark.driver.extraJavaOptions" not in self.conf:
            fd, log_config = tempfile.mkstemp(prefix="corpustool-log4j2-", suffix=".properties")
            with os.fdopen(fd, "w") as fh:
                fh.write(_QUIET_LOG4J2)
            conf.set("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log_config}")
        try:
            sc = _start_context(conf, self.master,
                                MASTER_REGISTER_TIMEOUT if master_endpoints(self.master) else None)
        finally:
            if log_config is not None:
                os.unlink(log_config)      # read once, at the JVM's start
        sc.setLogLevel("ERROR")
        return sc, True

    def _distributed(self, sc: Any, chunks: list[str], total: int, stages: list[Stage],
                     onion: Stage | None = None) -> Iterator[Document]:
        from pyspark import StorageLevel

        from ..dedup.exact import ExactDuplicates
        from .supervise import fault_markers_live

        parts = len(chunks)
        docs = sc.parallelize(chunks, parts).flatMap(_load_chunk)
        side = []           # RDDs of tagged drop and counter records
        persisted = []
        late_extra: list[tuple[Stage, str, int, bool]] = []   # counters known in the driver, added after the merge
        try:
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
                elif not stage.parallel:
                    out = self._near_dedup(sc, docs, no, stage, parts, persisted, late_extra)
                    no += 1
                else:
                    seg = []
                    while no + len(seg) < len(stages) and stages[no + len(seg)].parallel:
                        seg.append(stages[no + len(seg)])
                    shipped = [copy.copy(s) for s in seg]      # without the driver's on_drop handler
                    for s in shipped:
                        s.on_drop = None
                        s.stats = StageStats(s.name)
                    out = docs.mapPartitions(partial(_run_segment, shipped, no, self.doc_timeout,
                                                     fault_markers_live()))
                    no += len(seg)
                out = out.persist(StorageLevel.MEMORY_AND_DISK)
                persisted.append(out)
                docs = out.filter(_tag_is(_DOC)).map(_untag)
                side.append(out)
            if onion is not None:
                docs = self._onion_pass2(docs, onion, parts, persisted)
            if side:
                # counters first (one job): the stage objects of the driver then hold the final numbers
                for _tag, stage_no, stats in sc.union([part.filter(_tag_is(_STATS)) for part in side]).collect():
                    stages[stage_no].stats.merge(stats)
                for stage, key, value, shown_when_zero in late_extra:
                    if value or (shown_when_zero and stage.stats.docs_in):
                        stage.stats.extra[key] += value
                drops = sc.union([part.filter(_tag_is(_DROP)).map(_untag) for part in side])
            else:
                drops = sc.parallelize([], parts)
            # global positions are 0..total-1, so a range partitioner needs no sampling job;
            # partition i then holds the i-th slice of the input, sorted
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

    def _near_dedup(self, sc: Any, docs: Any, stage_no: int, stage: Any, parts: int,
                    persisted: list, late_extra: list) -> Any:
        """NearDuplicates (stream mode) as shuffles; returns the tagged records of the stage."""
        from pyspark import StorageLevel

        p = stage.params
        fps = docs.mapPartitions(partial(_near_fingerprints, p, stage.keep_tokens))
        fps = fps.persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(fps)
        # candidates: pairs sharing >= r super-shingles (Sect. 3.2.1), found by grouping on them
        candidates = (fps.flatMap(_feature_records).groupByKey(parts).flatMap(_pairs_of_group)
                      .reduceByKey(_add, parts).filter(lambda kv, r=p.r: kv[1] >= r).keys())
        # verified in the executors on the full (16-bit) sketches: one join per side of a pair
        sketches = fps.filter(lambda rec: rec[2] is not None).map(_sketch_record)
        checked = (candidates.join(sketches, parts).map(_swap_to_b).join(sketches, parts).map(_verify)
                   .persist(StorageLevel.MEMORY_AND_DISK))
        persisted.append(checked)
        verified = checked.filter(lambda v, need=stage.need: v[3] >= need).collect()
        dropped, absorbing = _keep_first(verified)
        # the counters stream mode keeps: pairs with an earlier *kept* document only
        decisions = sc.broadcast(dropped)
        n_candidates = checked.filter(partial(_first_not_dropped, decisions)).count()
        n_verified = sum(1 for a, _b, _id, _m in verified if a not in dropped)
        stage._absorbing = absorbing            # its close() reports their number as "clusters"
        # (a local run counts candidates once per batch, so that counter shows even when 0)
        late_extra.append((stage, "candidate-pairs", n_candidates, True))
        late_extra.append((stage, "verified-pairs", n_verified, False))
        return fps.mapPartitions(partial(_run_near_decisions, stage_no, stage.name, p.t, decisions))

    def _onion_pass2(self, docs: Any, onion: Any, parts: int, persisted: list) -> Any:
        """Algorithm 3.1's decisions, distributed (docs/spark.md). A document's n-gram is in G_out
        iff an earlier document kept it; F(h), the first position whose document kept h, is found
        by a fixpoint: start from every occurrence kept; each round joins every occurrence with F,
        decides every document in its partition, and recomputes F from the kept n-grams. After
        round k the first k documents decide as in one process (by induction on the global
        order), so the fixpoint is the streaming result; rounds stop when F no longer changes
        (few: F moves only where a first occurrence is removed). Returns (position, (document,
        decision)) records; the driver never holds n-grams."""
        from pyspark import StorageLevel

        opts = onion.opts
        docs = docs.persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(docs)
        occ = docs.flatMap(partial(_onion_occurrences, opts)).persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(occ)
        first = occ.reduceByKey(min, parts).persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(first)
        rounds = 0
        while True:
            rounds += 1
            known = occ.join(first, parts).map(_onion_in_out).groupByKey(parts).mapValues(list)
            decided = (docs.leftOuterJoin(known, parts).map(partial(_onion_decide, opts))
                       .persist(StorageLevel.MEMORY_AND_DISK))
            persisted.append(decided)
            new_first = decided.flatMap(_onion_kept).reduceByKey(min, parts).persist(StorageLevel.MEMORY_AND_DISK)
            persisted.append(new_first)
            changed = new_first.fullOuterJoin(first, parts).filter(_differs).count()
            first = new_first
            if changed == 0:
                break
        # the streaming set's size: distinct hashes that went to G_out
        onion.stored_hashes = first.count()
        onion.spark_rounds = rounds
        return decided

