"""Run the pipeline's stages on Apache Spark through pyspark (local mode or a cluster).

``build(pipeline)`` (``corpustool build --engine spark``): the executors read the input
(:mod:`.spark_input`: files and byte ranges of big WARC files), run every stage and write the
corpus and the rejects as part files; the driver holds decisions and counters (docs/spark.md).

For library use, ``run(docs, stages)`` has the interface of
:class:`corpustool.executors.local.LocalExecutor`:
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
import signal
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
from .supervise import DEFAULT_DOC_TIMEOUT

from .spark_input import DOC as _DOC, DROP as _DROP, STATS as _STATS
from .spark_input import input_partitions, local_path, merge_read_summaries, read_input
from .spark_input import key as _key, part_of as _part_of


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
#
# A record's key is its place in the global document order (spark_input.key: partition, number in
# it); the final partitioning is by input partition (``_part_of``).


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


# exact duplicates: the stage's key, "keep the first" by a shuffle

def _keyed(stage: Any, record: tuple[int, Document]) -> tuple[int, tuple[int, Document]]:
    return stage.key(record[1]), record


def _position(keyed: tuple[int, tuple[int, Document]]) -> tuple[int, tuple[int, str]]:
    fingerprint, (idx, doc) = keyed
    return fingerprint, (idx, doc.id)


def _run_first_of_key(stage: Any, stage_no: int, joined: Iterable[tuple]) -> Iterator[tuple]:
    """After the join: keep the document at the first global position of its key."""
    stats = StageStats(stage.name)
    for _key_, ((idx, doc), (first_idx, first_id)) in joined:
        stats.count_in(doc)
        if idx == first_idx:
            stats.count_out(doc)
            yield (_DOC, idx, doc)
        else:
            stage.mark_duplicate(doc, first_id)
            stats.count_drop(doc.drop_reason)
            yield (_DROP, idx, (stage_no, _strip(doc)))
    yield (_STATS, stage_no, stats)


# near-duplicate documents (stream mode): the stage's fingerprints, candidates and verification
# by shuffles, the stage's greedy decision over the verified pairs in the driver

def _near_fingerprints(stage: Any, batch_docs: int, records: Iterable[tuple[int, Document]]) -> Iterator[tuple]:
    """(idx, doc, 16-bit sketch or None, super-shingles or None) per document (stage hook)."""
    batch: list[tuple[int, Document]] = []

    def flush() -> Iterator[tuple]:
        prints = stage.fingerprint_documents([doc for _, doc in batch])
        for (idx, doc), (sketch, features) in zip(batch, prints):
            yield idx, doc, sketch, features
        batch.clear()

    for rec in records:
        batch.append(rec)
        if len(batch) >= batch_docs:
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
    """Stream mode's decisions over verified pairs (:meth:`NearDuplicates.decide_pairs`)."""
    from ..dedup.near import NearDuplicates

    return NearDuplicates.decide_pairs(verified)


def _run_near_decisions(stage: Any, stage_no: int, dropped: Any, records: Iterable[tuple]) -> Iterator[tuple]:
    """Apply the driver's decisions in a partition, with the counters stream mode keeps."""
    decisions = dropped.value
    stats = StageStats(stage.name)
    for idx, doc, sketch, _features in records:
        stats.count_in(doc)
        if sketch is None:
            stats.extra["no-words"] += 1
        hit = decisions.get(idx)
        if hit is None:
            stats.count_out(doc)
            yield (_DOC, idx, doc)
        else:
            stage.mark_near_duplicate(doc, *hit)
            stats.count_drop(doc.drop_reason)
            yield (_DROP, idx, (stage_no, _strip(doc)))
    yield (_STATS, stage_no, stats)


def _first_not_dropped(dropped: Any, pair: tuple[int, int, str, int]) -> bool:
    return pair[0] not in dropped.value


def _tag_is(tag: int):
    return lambda rec: rec[0] == tag


def _untag(rec: tuple) -> tuple:
    return rec[1], rec[2]


def _plan_of(stage: Stage) -> str | None:
    """How a stage runs on Spark, from its public hooks: ``map`` (per-document), ``first-key`` (exact
    duplicates: a key, keep the first), ``pairs`` (near duplicates: fingerprints, verified pairs, a
    decision over them), ``alone`` (each document decided alone given what earlier ones kept), or
    None (the ordered stream, in the driver)."""
    if stage.parallel:
        return "map"
    distributable = getattr(stage, "distributable", None)
    if distributable is None or not distributable():
        return None
    if hasattr(stage, "key") and hasattr(stage, "mark_duplicate"):
        return "first-key"
    if hasattr(stage, "fingerprint_documents") and hasattr(stage, "decide_pairs"):
        return "pairs"
    if hasattr(stage, "decide_alone") and hasattr(stage, "run_decided"):
        return "alone"
    return None


def _distributable(stage: Stage) -> bool:
    """Order-dependent stages that run as shuffles (with the same result as in one process)."""
    return _plan_of(stage) in ("first-key", "pairs")


def _onion_pass1(stage: Stage) -> bool:
    """A stage decided document by document given what earlier documents kept (paragraph
    de-duplication, streaming, unused): decided on Spark, applied after the ordered merge."""
    return _plan_of(stage) == "alone"


def _shipped(stage: Stage) -> Stage:
    """A copy of a stage for the executors: fresh counters, no drop handler of the driver."""
    s = copy.copy(stage)
    s.on_drop = None
    s.stats = StageStats(stage.name)
    return s


# paragraph de-duplication (pass 2 decided alone per document): iterate "first kept occurrence" to a fixpoint

def _alone_occurrences(stage: Any, rec: tuple[int, Document]) -> list[tuple[int, int]]:
    """(n-gram hash, global position) of every n-gram of a document (stage hook)."""
    idx, doc = rec
    return [(h, idx) for h in stage.ngram_keys(doc)]


def _alone_in_out(kv: tuple[int, tuple[int, int]]) -> tuple[int, tuple[int, bool]]:
    """(hash, (position, first kept position)) -> (position, (hash, kept by an earlier document))."""
    h, (idx, first) = kv
    return idx, (h, first < idx)


def _alone_decide(stage: Any, kv: tuple[int, tuple[Document, Any]]) -> tuple[int, tuple[Document, tuple]]:
    idx, (doc, known) = kv
    return idx, (doc, stage.decide_alone(doc, dict(known) if known is not None else {}))


def _alone_kept(stage: Any, kv: tuple[int, tuple[Document, tuple]]) -> list[tuple[int, int]]:
    idx, (_doc, decision) = kv
    return [(h, idx) for h in stage.kept_keys(decision)]


def _differs(kv: tuple[int, tuple[Any, Any]]) -> bool:
    return kv[1][0] != kv[1][1]


# writing: each input partition's documents, in global order, through the remaining stages into a part file

def _final_kept(rec: tuple) -> tuple[int, tuple[int, Any]]:
    return rec[0], (_DOC, rec[1])


def _final_drop(rec: tuple) -> tuple[int, tuple[int, Any]]:
    return rec[0], (_DROP, rec[1])


def _write_part(outdir: str, suffix: str, fmt: str, writer_options: dict, tail: list[Stage],
                decided: int, first_no: int, reject_lines: tuple | None, part_no: int,
                records: Iterable[tuple]) -> Iterator[dict]:
    """Write one part: the kept documents of input partition ``part_no`` (sorted by global position)
    through the remaining stages (``tail``; the first ``decided`` of them apply decisions made
    elsewhere) into ``part-NNNNN<suffix>``; the dropped ones into ``rejects-NNNNN.jsonl``: the
    rejects file's own lines when ``reject_lines`` is (line function, stage names), so the driver
    only concatenates them, else (stage number, document) records for the driver's drop handlers.
    Yields one small summary: counts, checksum, counters, profile."""
    import hashlib
    import json
    from collections import Counter

    from ..corpus_profile import CorpusProfile
    from ..writers import open_writer

    name = f"part-{part_no:05d}{suffix}"
    rejects_name = f"rejects-{part_no:05d}.jsonl"
    rejects_tmp = os.path.join(outdir, f".{rejects_name}.tmp{os.getpid()}")
    counts: Counter = Counter()
    options = dict(writer_options)
    if "counts" in options:
        options["counts"] = counts
    profile = CorpusProfile()
    n_rejects = 0
    stages = [_shipped(s) for s in tail]
    for st in stages[:decided]:
        if part_no != 0:
            st.stored_hashes = 0     # a stage-wide number (decided_elsewhere): counted in part 0 only
    with open(rejects_tmp, "w", encoding="utf-8") as rej:
        def reject(stage_no: int, doc: Document) -> None:
            nonlocal n_rejects
            n_rejects += 1
            if reject_lines is not None:
                line, names = reject_lines
                rej.write(line(doc, names[stage_no]))
            else:
                rej.write(json.dumps({"stage_no": stage_no, "doc": _strip(doc).to_dict(with_raw=False)},
                                     ensure_ascii=False) + "\n")

        for i, st in enumerate(stages):
            st.on_drop = (lambda doc, _name, k=first_no + i: reject(k, doc))

        def kept() -> Iterator[Any]:
            for _key_, (tag, payload) in records:
                if tag == _DROP:
                    reject(*payload)
                else:
                    yield payload

        stream: Iterable[Any] = kept()
        for i, st in enumerate(stages):
            stream = st.run_decided(stream) if i < decided else st.run(stream)
        writer = open_writer(os.path.join(outdir, name), fmt, **options)
        try:
            for doc in stream:
                writer.write(doc)
                profile.add(doc)
            writer.close()
        except BaseException:
            writer.abort()
            raise
    os.replace(rejects_tmp, os.path.join(outdir, rejects_name))
    digest = hashlib.sha256()
    size = 0
    with open(os.path.join(outdir, name), "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    yield {"part": part_no, "file": name, "docs": writer.docs, "bytes": size, "sha256": digest.hexdigest(),
           "rejects": rejects_name, "rejected": n_rejects,
           "stats": [(first_no + i, st.stats) for i, st in enumerate(stages)],
           "counts": dict(counts), "profile": profile.state(),
           "structures": {k: sorted(v) for k, v in getattr(writer, "structures", {}).items()}}


def _input_name(spec: tuple) -> str:
    """An input partition as the manifest names it: the file, with its byte range if it is one."""
    rng = spec[4]
    return f"{spec[2]} bytes {rng[0]}-{rng[1]}" if isinstance(rng, tuple) else spec[2]


def _not_local(inp: str) -> bool:
    return local_path(inp) is None


def _rejects_file_of(stages: list[Stage]) -> Any:
    """The drop handler shared by every stage when it is a rejects file whose lines a task can
    write itself (``line``, ``append_file``: :class:`corpustool.cli.common.RejectsWriter`), else
    None (then the driver feeds each drop to its stage's handler)."""
    handlers = {id(s.on_drop): s.on_drop for s in stages}
    if len(handlers) != 1:
        return None
    handler = next(iter(handlers.values()))
    return handler if hasattr(handler, "line") and hasattr(handler, "append_file") else None


# -- the executor ------------------------------------------------------------------

# the master URLs Spark accepts (Spark's "Master URLs" table); anything else makes the JVM
# print a page of log before failing, so it is refused here in one line (issue 22)
_MASTER_URL = re.compile(r"local(\[(\*|[1-9]\d*)(,[1-9]\d*)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn"
                         r"|(spark|mesos)://[^\s/:]+:\d+(,[^\s/:]+:\d+)*|k8s://\S+")


def check_master(master: str) -> None:
    from ..errors import OptionError

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
    from ..errors import OptionError

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


# Lines the JVM itself writes on its standard error at its start, which no log configuration reaches:
# Spark's launcher always adds ``--add-modules=jdk.incubator.vector`` (Java 16 and later print
# "WARNING: Using incubator modules: jdk.incubator.vector"). Everything else passes, byte for byte.
JVM_NOISE = (b"WARNING: Using incubator modules:",)

# The filter between the driver's JVM and our standard error: a process of its own, so that it passes on
# what the JVM writes (the Python workers' messages come through it) until the JVM ends, after this
# process; it ignores Ctrl-C as the JVM does, and never blocks the JVM (a closed stderr: it drains).
# SIGUSR1 silences it for good (it drains on): a build stopped by a signal ends the JVM, whose tasks'
# errors about that are no news (:func:`_abandon_context`).
JVM_STDERR_FILTER = r"""
import os, signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
muted = []
signal.signal(signal.SIGUSR1, lambda *_: muted.append(1))
NOISE = %r
def put(data):
    while data and not muted:
        try:
            data = data[os.write(2, data):]
        except OSError:
            return
held, state = b"", "start"      # start: at a line's start; pass: in a line passed on; drop: in a noise line
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    data, held, out, i = held + chunk, b"", [], 0
    while i < len(data):
        if state == "start":
            rest = data[i:i + 64]
            if any(rest.startswith(p) for p in NOISE):
                state = "drop"
            elif len(rest) < 64 and any(p.startswith(rest) for p in NOISE):
                held = data[i:]         # may still be noise: decided when the line goes on
                break
            else:
                state = "pass"
        nl = data.find(b"\n", i)
        end = len(data) if nl < 0 else nl + 1
        if state == "pass":
            out.append(data[i:end])
        i = end
        if nl >= 0:
            state = "start"
    put(b"".join(out))
put(held)
""" % (JVM_NOISE,)


def _launch_gateway(conf: Any) -> Any:
    """pyspark's JVM (as ``SparkContext`` launches it) with its standard error through
    :data:`JVM_STDERR_FILTER`."""
    import subprocess

    from pyspark.java_gateway import launch_gateway

    try:
        filt = subprocess.Popen([sys.executable, "-I", "-S", "-c", JVM_STDERR_FILTER], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL)
    except OSError:         # no interpreter to run it (an embedded Python): the JVM's stderr unfiltered
        return launch_gateway(conf)
    try:
        gateway = launch_gateway(conf, popen_kwargs={"stderr": filt.stdin})
    except BaseException as exc:
        if _interrupt_in(exc) is not None:
            # stopped by a signal while the JVM starts: it is ended (found among this process's children)
            jvm = [pid for pid in _descendants(os.getpid(), depth=1) if pid != filt.pid and _is_jvm(pid)]
            _end_jvm(jvm[0] if jvm else None, filt)
        raise
    finally:
        filt.stdin.close()      # the JVM holds the pipe: the filter ends when it does
    gateway.corpustool_stderr_filter = filt     # silenced when a signal stops the build
    return gateway


def _gateway_launcher() -> Any:
    """:func:`_launch_gateway` when the next SparkContext starts a JVM (None: one runs already, or
    pyspark was told to use another, ``PYSPARK_GATEWAY_PORT``)."""
    from pyspark import SparkContext

    if SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        return _launch_gateway
    return None


def _interrupt_in(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (Ctrl-C; SIGTERM or SIGHUP in the command line) ``exc`` is, or was raised
    while handling: a signal that cuts a py4j call short often surfaces as the error of the next call
    (``Py4JNetworkError: Answer from Java side is empty``)."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


class _QuietPy4J:
    """A filter of py4j's loggers while a build runs: py4j logs a call cut short by a signal (and every
    call after the JVM was ended for it) with a traceback; a stopped build says one line (the command
    line's), so those records are dropped. Other records pass."""

    def __init__(self) -> None:
        self.stopping = False

    def filter(self, record: Any) -> bool:
        if f"{os.sep}py4j{os.sep}" not in (record.pathname or ""):
            return True
        exc = record.exc_info[1] if record.exc_info else None
        return not (self.stopping or _interrupt_in(exc) is not None)

    # py4j logs on the root logger and on its modules' own (a logger's filters see its own records only)
    LOGGERS = ("", "py4j.clientserver", "py4j.java_gateway")

    def __enter__(self) -> "_QuietPy4J":
        import logging

        for name in self.LOGGERS:
            logging.getLogger(name).addFilter(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        import logging

        for name in self.LOGGERS:
            logging.getLogger(name).removeFilter(self)


def _is_jvm(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"org.apache.spark.deploy.SparkSubmit" in fh.read()
    except OSError:
        return False


def _descendants(pid: int, depth: int = 0) -> list[int]:
    """The processes below ``pid`` (``depth``: only so many levels; 0: all), from /proc ([] where
    there is none)."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [(pid, 0)]
    while todo:
        parent, level = todo.pop()
        if depth and level >= depth:
            continue
        for child in children.get(parent, ()):
            found.append(child)
            todo.append((child, level + 1))
    return found


def _gone(pids: list[int], timeout: float) -> bool:
    """Wait until none of ``pids`` runs (zombies of other parents count as gone)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        alive = []
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            if stat[stat.rindex(b")") + 2:][:1] != b"Z":
                alive.append(pid)
        pids = alive
        if not pids or time.monotonic() >= deadline:
            return not pids
        time.sleep(0.05)


# seconds the JVM of a build stopped by a signal has to end (its shutdown hooks remove Spark's
# temporary directories) before it is killed
JVM_STOP_TIMEOUT = 20.0


def _end_jvm(proc: Any, filt: Any) -> None:
    """Silence the stderr filter ``filt`` and end the JVM ``proc`` (a Popen, or a pid) started for a
    build stopped by a signal, with the Python workers it started (all waited for)."""
    import subprocess

    if filt is not None:
        try:
            filt.send_signal(signal.SIGUSR1)
        except OSError:
            pass
    if proc is not None:
        pid = proc if isinstance(proc, int) else proc.pid
        below = _descendants(pid)      # the Python workers' daemon and the workers
        if isinstance(proc, int):
            try:
                os.kill(pid, signal.SIGTERM)      # (shutdown hooks run, as on the end of its input)
            except OSError:
                pass
            if not _gone([pid], JVM_STOP_TIMEOUT):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
        else:
            try:
                proc.stdin.close()      # the JVM exits at the end of its input (PythonGatewayServer)
            except (AttributeError, OSError):
                pass
            try:
                proc.wait(JVM_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if not _gone(below, 5.0):
            for child in below:
                try:
                    os.kill(child, signal.SIGKILL)
                except OSError:
                    pass
            _gone(below, 5.0)
    if filt is not None:
        try:
            filt.wait(5.0)
        except subprocess.TimeoutExpired:
            pass


def _abandon_context(sc: Any) -> None:
    """End the context of a build stopped by a signal, and its JVM, at once and quietly: its
    standard error silenced, the JVM told to exit (its standard input closed, as at the end of this
    process: its shutdown hooks stop the running tasks and remove Spark's temporary directories),
    waited for with the Python workers it started, and forgotten by pyspark (a later context starts
    a new JVM)."""
    from pyspark import SparkContext

    gateway = getattr(sc, "_gateway", None)
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        try:
            server.shutdown()
        except Exception:
            pass
    with SparkContext._lock:
        if SparkContext._active_spark_context is sc:
            SparkContext._active_spark_context = None
    _abandon_gateway(gateway)


def _abandon_gateway(gateway: Any) -> None:
    """:func:`_end_jvm` for the JVM of ``gateway`` when this process launched it (with its filter)."""
    from pyspark import SparkContext

    proc = getattr(gateway, "proc", None)
    filt = getattr(gateway, "corpustool_stderr_filter", None)
    if proc is None:
        return
    _end_jvm(proc, filt)
    with SparkContext._lock:
        if SparkContext._gateway is gateway:
            SparkContext._gateway = None
            SparkContext._jvm = None


def _start_context(conf: Any, master: str, timeout: float | None, launch: Any = None) -> Any:
    """A SparkContext (its JVM started by ``launch(conf)``, else as pyspark starts it); with a cluster
    master, refused when the master does not take the application within ``timeout`` seconds (a port
    that answers but is no Spark master)."""
    from ..errors import OptionError

    def new() -> Any:
        from pyspark import SparkContext

        if launch is None:
            return SparkContext(conf=conf)
        return SparkContext(conf=conf, gateway=launch(conf))

    if timeout is None:
        return new()
    box: dict[str, Any] = {}

    def start() -> None:
        try:
            box["sc"] = new()
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


def _remove_tree(path: str) -> None:
    """Remove a directory that ended processes may have been writing in until a moment ago."""
    import time

    for _ in range(50):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path):
            return
        time.sleep(0.1)


class _signals_deferred:
    """While a stopped build cleans up: a second Ctrl-C, SIGTERM or SIGHUP does not cut the cleaning
    short (it is dropped: the build stops for the first). Only in the main thread (elsewhere: nothing)."""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")

    def __enter__(self) -> None:
        self.saved: list[tuple[int, Any]] = []
        if threading.current_thread() is not threading.main_thread():
            return
        for name in self.SIGNALS:
            num = getattr(signal, name, None)
            if num is None:
                continue
            try:
                self.saved.append((num, signal.signal(num, lambda *_: None)))
            except (ValueError, OSError):
                pass

    def __exit__(self, *exc: Any) -> None:
        for num, handler in self.saved:
            if handler is not None:
                signal.signal(num, handler)


def _sigint_handler() -> Any:
    """The handler of SIGINT, when this thread may change it (the main thread), else None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.getsignal(signal.SIGINT)


class SparkExecutor:
    def __init__(self, master: str | None = None, workers: int = 1, chunk_size: int = 500,
                 workdir: str | None = None, conf: dict[str, str] | None = None,
                 doc_timeout: float | None = DEFAULT_DOC_TIMEOUT, merge: bool = True,
                 split_bytes: int | None = None) -> None:
        from ..errors import OptionError
        from ..options import check
        from .local import check_doc_timeout, usable_workers

        if master is not None:
            check_master(master)
        check("workers", workers)
        if chunk_size < 1:
            raise OptionError("chunk_size must be at least 1")
        if split_bytes is not None and split_bytes < 0:
            raise OptionError("split_bytes must be 0 (no split) or more")
        reason = spark_available()
        if reason:
            raise OptionError(f"the Spark engine is unavailable: {reason}")
        if master is not None:
            check_master_reachable(master)
        # (local[N] runs N tasks at once, each with a Python worker: cut as the local executor cuts them)
        self.master = master or f"local[{usable_workers(workers)}]"
        self.chunk_size = chunk_size
        self.workdir = workdir
        self.conf = dict(conf or {})
        self.doc_timeout = check_doc_timeout(doc_timeout)
        # build(): merge the parts into the output file (else only OUTPUT.parts/ is written)
        self.merge = merge
        # build(): WARC files bigger than this are read in byte ranges, one partition each (None: Spark's
        # spark.files.maxPartitionBytes, 128 MB by default; 0: one partition per file)
        self.split_bytes = split_bytes
        # build(): which inputs are read through Hadoop's file system (sc.binaryFiles); None: URIs
        # with a scheme other than file: (file: URIs and paths are read directly)
        self.through_hadoop: Any = None
        self.last_build: dict | None = None     # what build() did (partitions, parts, where)

    # The stages Spark runs: the longest prefix of per-document stages and
    # distributable de-duplication stages; the rest needs the ordered stream. A
    # stage decided document by document (paragraph de-duplication) first in it is
    # decided on Spark and applied in order; with build() the per-document stages
    # after it run in the executors too.
    @staticmethod
    def split(stages: list[Stage]) -> tuple[list[Stage], list[Stage]]:
        n = 0
        while n < len(stages) and _plan_of(stages[n]) in ("map", "first-key", "pairs"):
            n += 1
        return stages[:n], stages[n:]

    # -- a stream in, the kept stream out (library use; the driver reads and receives everything) --
    def run(self, docs: Iterable[Document], stages: list[Stage]) -> Iterator[Document]:
        distributed, local = self.split(stages)
        onion = local[0] if local and _onion_pass1(local[0]) else None
        workdir = tempfile.mkdtemp(prefix="corpustool-spark-", dir=self.workdir)
        try:
            chunks = self._spill(docs, workdir)
            stream: Iterable[Document]
            if chunks and (distributed or onion is not None):
                sc, created = self._context()
                try:
                    parts = len(chunks)
                    rdd = sc.parallelize(chunks, parts).flatMap(_load_chunk)
                    kept, side, late, persisted = self._distributed(sc, rdd, parts, distributed, onion)
                    try:
                        self._merge_counters(sc, side, stages, late)
                        stream = self._ordered(sc, kept, side, parts, stages)
                        for st in local:
                            # pass 2 was decided in the executors: the driver only applies the decisions
                            stream = st.run_decided(stream) if st is onion else st.run(stream)
                        yield from stream
                    finally:
                        for r in persisted:
                            r.unpersist()
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

    def _spill(self, docs: Iterable[Document], workdir: str) -> list[str]:
        """Number the documents in input order and write them in chunks (bounded driver memory)."""
        paths: list[str] = []
        batch: list[tuple[int, Document]] = []

        def flush() -> None:
            path = os.path.join(workdir, f"chunk-{len(paths):06d}.pickle")
            with open(path, "wb") as fh:
                pickle.dump(batch, fh, protocol=pickle.HIGHEST_PROTOCOL)
            paths.append(path)
            batch.clear()

        for doc in docs:
            batch.append((_key(len(paths), len(batch)), doc))
            if len(batch) >= self.chunk_size:
                flush()
        if batch:
            flush()
        return paths

    # -- a whole build: the executors read, decide, tokenize and write -----------------------------
    def can_build(self, pipeline: Any) -> bool:
        return pipeline.output != "-" and "-" not in pipeline.inputs

    def build(self, pipeline: Any, commit: bool = True) -> dict:
        """Run ``pipeline`` on Spark: each input file (or byte range of a big WARC file, or file
        read through Hadoop) is a partition read in its task; every stage
        runs in the executors (the driver only decides near-duplicates over verified pairs and merges
        counters); each partition's kept documents are written by its task as a part in
        ``OUTPUT.parts/`` with its rejects; the driver writes the manifest, feeds the rejects to the
        stages' drop handlers and, with ``merge``, concatenates the parts into OUTPUT.

        Returns {"parts": directory, "profile", "structures", "ready"/"plain" (the merged output
        waiting for commit_output, or None)}."""
        from ..writers.base import format_for
        from ..writers.parts import clear_parts_dir

        output = pipeline.output
        stages = pipeline.stages
        reader = pipeline.reader
        partsdir = output + ".parts"
        fmt = pipeline.output_format or format_for(output)
        suffix = {"vert": ".vert", "text": ".txt", "jsonl": ".jsonl"}[fmt] + (".gz" if output.endswith(".gz") else "")
        writer_options = pipeline._writer_options()
        # the local files (Hadoop URIs are listed once the context runs)
        specs = input_partitions(reader, pipeline.inputs, None, through_hadoop=self.through_hadoop,
                                 count=False)     # read_input lists them again, and counts
        remote = [i for i in pipeline.inputs if (self.through_hadoop or _not_local)(i)]
        distributed, local = self.split(stages)
        onion = local[0] if local and _onion_pass1(local[0]) else None
        tail = local[1:] if onion is not None else local
        in_executors = all(s.parallel for s in tail)
        lines_to = _rejects_file_of(stages) if in_executors else None
        clear_parts_dir(partsdir)
        try:
            with _QuietPy4J() as quiet:
                return self._build_parts(pipeline, specs, remote, partsdir, fmt, suffix, writer_options,
                                         distributed, local, onion, in_executors, lines_to, commit, quiet)
        except BaseException:
            # an error or a signal: no part is left (the tasks that wrote them have ended)
            with _signals_deferred():
                _remove_tree(partsdir)
            raise

    def _build_parts(self, pipeline: Any, specs: list[tuple], remote: list[str], partsdir: str, fmt: str,
                     suffix: str, writer_options: dict, distributed: list[Stage], local: list[Stage],
                     onion: Stage | None, in_executors: bool, lines_to: Any, commit: bool,
                     quiet: _QuietPy4J) -> dict:
        output, stages, reader = pipeline.output, pipeline.stages, pipeline.reader
        summaries: list[dict] = []
        nparts = len(specs)
        if nparts == 0 and not remote:
            # no file to read: the skipped links and unreadable directories are counted here
            input_partitions(reader, pipeline.inputs, None, through_hadoop=self.through_hadoop)
            for _ in _chain(iter(()), stages):
                pass
        else:
            sc, created = self._context()
            persisted: list = []
            try:
                try:
                    specs, summaries = self._run_build(sc, pipeline, partsdir, suffix, fmt, writer_options,
                                                       distributed, local, onion, in_executors, lines_to,
                                                       persisted)
                except BaseException as exc:
                    if _interrupt_in(exc) is None:
                        self._stop(sc, created, persisted)
                    raise
                self._stop(sc, created, persisted)
            except BaseException as exc:
                interrupt = _interrupt_in(exc)
                if interrupt is None:
                    raise
                # Ctrl-C, SIGTERM or SIGHUP (corpustool.cli.Terminated): the JVM is ended at once, without
                # a word (its tasks' errors, py4j's tracebacks); nothing more is asked of it
                quiet.stopping = True
                with _signals_deferred():
                    if created:
                        _abandon_context(sc)
                    else:               # a context of the caller's: its jobs cancelled, itself kept
                        try:
                            sc.cancelAllJobs()
                        except Exception:
                            pass
                if interrupt is exc:
                    raise
                raise interrupt from None     # (not the error of the call it cut short)
        return self._finish_build(summaries, specs, partsdir, output, fmt, suffix, stages, lines_to,
                                  in_executors, commit)

    def _run_build(self, sc: Any, pipeline: Any, partsdir: str, suffix: str, fmt: str, writer_options: dict,
                   distributed: list[Stage], local: list[Stage], onion: Stage | None, in_executors: bool,
                   lines_to: Any, persisted: list) -> tuple[list[tuple], list[dict]]:
        """The Spark jobs of a build: (the input partitions, the summaries of the parts written)."""
        stages, reader = pipeline.stages, pipeline.reader
        specs, read, docs, read_summaries = read_input(sc, reader, pipeline.input_format, pipeline.inputs,
                                                       self._split_bytes(sc), self.through_hadoop)
        nparts = len(specs)
        if nparts == 0:         # Hadoop directories without a file
            for _ in _chain(iter(()), stages):
                pass
            return specs, []
        persisted.append(read)
        merge_read_summaries(reader, read_summaries)
        kept, side, late, more = self._distributed(sc, docs, nparts, distributed, onion)
        persisted += more
        self._merge_counters(sc, side, stages, late)
        if in_executors:
            drops = self._drops(sc, side, nparts)
            final = (kept.map(_final_kept).union(drops.map(_final_drop))
                     .repartitionAndSortWithinPartitions(nparts, _part_of))
            write = partial(_write_part, partsdir, suffix, fmt, writer_options, [_shipped(s) for s in local],
                            1 if onion is not None else 0, len(distributed),
                            None if lines_to is None else (lines_to.line, [s.name for s in stages]))
            return specs, sorted(final.mapPartitionsWithIndex(write).collect(), key=lambda s: s["part"])
        # a stage that needs the ordered stream: the rest runs in the driver (one part)
        stream: Iterable[Any] = self._ordered(sc, kept, side, nparts, stages)
        for st in local:
            stream = st.run_decided(stream) if st is onion else st.run(stream)
        return specs, [self._write_in_driver(partsdir, suffix, fmt, writer_options, stream)]

    @staticmethod
    def _stop(sc: Any, created: bool, persisted: list) -> None:
        for r in persisted:
            r.unpersist()
        if created:
            sc.stop()

    def _finish_build(self, summaries: list[dict], specs: list[tuple], partsdir: str, output: str, fmt: str,
                      suffix: str, stages: list[Stage], lines_to: Any, in_executors: bool, commit: bool) -> dict:
        """The driver's share after the tasks wrote the parts: counters, rejects, manifest, merge."""
        from ..corpus_profile import CorpusProfile
        from ..writers.parts import merge_parts, write_manifest

        nparts = len(specs)
        # counters of the stages run by the writing tasks; rejects to the drop handlers, in order
        profile = CorpusProfile()
        structures: dict[str, set[str]] = {}
        for summary in summaries:
            for stage_no, stats in summary.get("stats", ()):
                stages[stage_no].stats.merge(stats)
            if summary.get("counts") and stages:
                stages[-1].stats.extra.update(summary["counts"])
            profile.merge(CorpusProfile.from_state(summary["profile"]))
            for k, v in summary["structures"].items():
                structures.setdefault(k, set()).update(v)
            if lines_to is not None:        # the tasks wrote the rejects file's lines: concatenated
                lines_to.append_file(os.path.join(partsdir, summary["rejects"]))
            else:
                self._replay_rejects(os.path.join(partsdir, summary["rejects"]), stages)
        manifest = {"format": fmt, "suffix": suffix, "documents": sum(s["docs"] for s in summaries),
                    "rejected": sum(s["rejected"] for s in summaries), "inputs": [_input_name(s) for s in specs],
                    "parts": [{k: s[k] for k in ("file", "docs", "bytes", "sha256", "rejects", "rejected")}
                              for s in summaries]}
        write_manifest(partsdir, manifest)
        result = {"parts": partsdir, "profile": profile, "structures": structures or None,
                  "ready": None, "plain": None, "partitions": nparts, "in_executors": in_executors,
                  "hadoop_partitions": sum(spec[4] == "hadoop" for spec in specs)}
        if self.merge:
            ready, plain = merge_parts(partsdir, output, commit=commit)
            shutil.rmtree(partsdir, ignore_errors=True)
            result.update(ready=None if commit else ready, plain=None if commit else plain)
        self.last_build = {k: v for k, v in result.items() if k != "profile"}
        return result

    def _split_bytes(self, sc: Any) -> int:
        if self.split_bytes is not None:
            return self.split_bytes
        from ..readers.warc_ranges import SPLIT_BYTES

        try:
            return int(sc._jsc.sc().conf().getSizeAsBytes("spark.files.maxPartitionBytes", str(SPLIT_BYTES)))
        except Exception:       # a gateway without it: Spark's default
            return SPLIT_BYTES

    @staticmethod
    def _write_in_driver(partsdir: str, suffix: str, fmt: str, writer_options: dict,
                         stream: Iterable[Document]) -> dict:
        """The fallback: the ordered stream written by the driver as the one part."""
        os.makedirs(partsdir, exist_ok=True)
        summary = next(_write_part(partsdir, suffix, fmt, writer_options, [], 0, 0, None, 0,
                                   ((0, (_DOC, doc)) for doc in stream)))
        summary["stats"] = []
        return summary

    @staticmethod
    def _replay_rejects(path: str, stages: list[Stage]) -> None:
        import json

        with open(path, encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                stage = stages[rec["stage_no"]]
                if stage.on_drop is not None:
                    stage.on_drop(Document.from_dict(rec["doc"]), stage.name)

    # -- the plan ---------------------------------------------------------------------------------
    def _merge_counters(self, sc: Any, side: list, stages: list[Stage], late: list) -> None:
        """The per-task counter records (one job), merged into the driver's stage objects."""
        if side:
            for _tag, stage_no, stats in sc.union([part.filter(_tag_is(_STATS)) for part in side]).collect():
                stages[stage_no].stats.merge(stats)
        for call in late:
            call()

    @staticmethod
    def _drops(sc: Any, side: list, parts: int) -> Any:
        if side:
            return sc.union([part.filter(_tag_is(_DROP)).map(_untag) for part in side])
        return sc.parallelize([], parts)

    def _ordered(self, sc: Any, kept: Any, side: list, parts: int, stages: list[Stage]) -> Iterator[Any]:
        """The kept documents in global order through the driver; drops reported in place."""
        drops = self._drops(sc, side, parts)
        kept_sorted = kept.repartitionAndSortWithinPartitions(parts, _part_of)
        drops_sorted = drops.repartitionAndSortWithinPartitions(parts, _part_of)
        kept_it = ((idx, 1, doc) for idx, doc in kept_sorted.toLocalIterator())
        dropped = ((idx, 0, rec) for idx, rec in drops_sorted.toLocalIterator())
        # every document is either kept or dropped once: merging by global position
        # reports drops exactly where a one-process run reports them
        for _idx, is_kept, item in heapq.merge(kept_it, dropped, key=lambda t: t[0]):
            if is_kept:
                yield item
            else:
                stage_no, doc = item
                stage = stages[stage_no]
                if stage.on_drop is not None:
                    stage.on_drop(doc, stage.name)

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
        if "spark.executorEnv.PYTHONPATH" not in self.conf:
            # executors import this copy of corpustool (a cluster's workers see it on a shared
            # file system; otherwise install the package on them, docs/spark.md)
            here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            path = [here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != here]
            conf.set("spark.executorEnv.PYTHONPATH", os.pathsep.join(path))
        for key, value in self.conf.items():
            conf.set(key, value)
        log_config = None
        if "spark.driver.extraJavaOptions" not in self.conf:
            fd, log_config = tempfile.mkstemp(prefix="corpustool-log4j2-", suffix=".properties")
            with os.fdopen(fd, "w") as fh:
                fh.write(_QUIET_LOG4J2)
            conf.set("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log_config}")
        on_interrupt = _sigint_handler()
        launch = _gateway_launcher()
        try:
            sc = _start_context(conf, self.master,
                                MASTER_REGISTER_TIMEOUT if master_endpoints(self.master) else None,
                                launch=launch)
        except BaseException as exc:
            if launch is not None and _interrupt_in(exc) is not None:
                # stopped by a signal while the context starts: its JVM is ended
                with _signals_deferred():
                    _abandon_gateway(SparkContext._gateway)
            raise
        finally:
            if log_config is not None:
                os.unlink(log_config)      # read once, at the JVM's start
            # pyspark's own (cancel every job, raise KeyboardInterrupt) replaced the program's: a
            # command-line build stopped by Ctrl-C ends its context itself (_abandon_context)
            if on_interrupt is not None and _sigint_handler() is not on_interrupt:
                signal.signal(signal.SIGINT, on_interrupt)
        sc.setLogLevel("ERROR")
        return sc, True

    def _distributed(self, sc: Any, docs: Any, parts: int, stages: list[Stage],
                     onion: Stage | None = None, side: list | None = None) -> tuple[Any, list, list, list]:
        """The plan of the distributed stages over ``docs`` ((key, document) records). Returns the
        kept records ((key, document), or (key, (document, decision)) with ``onion``), the RDDs of
        tagged drop and counter records, calls to make after the counters are merged, and the
        persisted RDDs (to unpersist)."""
        from pyspark import StorageLevel

        from .supervise import fault_markers_live

        side = list(side or [])
        persisted: list = []
        late: list = []
        no = 0
        while no < len(stages):
            stage = stages[no]
            plan = _plan_of(stage)
            if plan == "first-key":
                shipped = _shipped(stage)
                keyed = docs.map(partial(_keyed, shipped)).persist(StorageLevel.MEMORY_AND_DISK)
                firsts = keyed.map(_position).reduceByKey(min)
                joined = keyed.join(firsts)
                out = joined.mapPartitions(partial(_run_first_of_key, shipped, no))
                persisted.append(keyed)
                no += 1
            elif plan == "pairs":
                out = self._near_dedup(sc, docs, no, stage, parts, persisted, late)
                no += 1
            else:
                seg = []
                while no + len(seg) < len(stages) and stages[no + len(seg)].parallel:
                    seg.append(stages[no + len(seg)])
                shipped_seg = [_shipped(s) for s in seg]      # without the driver's on_drop handler
                out = docs.mapPartitions(partial(_run_segment, shipped_seg, no, self.doc_timeout,
                                                 fault_markers_live()))
                no += len(seg)
            out = out.persist(StorageLevel.MEMORY_AND_DISK)
            persisted.append(out)
            docs = out.filter(_tag_is(_DOC)).map(_untag)
            side.append(out)
        if onion is not None:
            docs = self._onion_pass2(docs, onion, parts, persisted)
        return docs, side, late, persisted

    def _near_dedup(self, sc: Any, docs: Any, stage_no: int, stage: Any, parts: int,
                    persisted: list, late: list) -> Any:
        """Near duplicates (stream mode) as shuffles; returns the tagged records of the stage."""
        from pyspark import StorageLevel

        from ..dedup.near import BATCH_DOCS

        p = stage.params
        shipped = _shipped(stage)
        fps = docs.mapPartitions(partial(_near_fingerprints, shipped, BATCH_DOCS))
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
        dropped, absorbing = stage.decide_pairs(verified)
        # the counters stream mode keeps: pairs with an earlier *kept* document only
        decisions = sc.broadcast(dropped)
        n_candidates = checked.filter(partial(_first_not_dropped, decisions)).count()
        n_verified = sum(1 for a, _b, _id, _m in verified if a not in dropped)
        late.append(partial(stage.decided_elsewhere, absorbing, n_candidates, n_verified))
        return fps.mapPartitions(partial(_run_near_decisions, shipped, stage_no, decisions))

    def _onion_pass2(self, docs: Any, onion: Any, parts: int, persisted: list) -> Any:
        """Decisions of a stage that decides each document alone given which of its n-grams
        earlier documents kept (Algorithm 3.1, docs/spark.md). A document's n-gram is in G_out
        iff an earlier document kept it; F(h), the first position whose document kept h, is found
        by a fixpoint: start from every occurrence kept; each round joins every occurrence with F,
        decides every document in its partition, and recomputes F from the kept n-grams. After
        round k the first k documents decide as in one process (by induction on the global
        order), so the fixpoint is the streaming result; rounds stop when F no longer changes
        (few: F moves only where a first occurrence is removed). Returns (position, (document,
        decision)) records; the driver never holds n-grams."""
        from pyspark import StorageLevel

        shipped = _shipped(onion)
        docs = docs.persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(docs)
        occ = docs.flatMap(partial(_alone_occurrences, shipped)).persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(occ)
        first = occ.reduceByKey(min, parts).persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(first)
        rounds = 0
        while True:
            rounds += 1
            known = occ.join(first, parts).map(_alone_in_out).groupByKey(parts).mapValues(list)
            decided = (docs.leftOuterJoin(known, parts).map(partial(_alone_decide, shipped))
                       .persist(StorageLevel.MEMORY_AND_DISK))
            persisted.append(decided)
            new_first = (decided.flatMap(partial(_alone_kept, shipped)).reduceByKey(min, parts)
                         .persist(StorageLevel.MEMORY_AND_DISK))
            persisted.append(new_first)
            changed = new_first.fullOuterJoin(first, parts).filter(_differs).count()
            first = new_first
            if changed == 0:
                break
        # the streaming set's size: distinct hashes that went to G_out
        onion.decided_elsewhere(first.count())
        onion.spark_rounds = rounds
        return decided


def _chain(stream: Iterator[Document], stages: list[Stage]) -> Iterator[Document]:
    for st in stages:
        stream = st.run(stream)
    return stream
