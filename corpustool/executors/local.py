"""Run a chain of stages on one machine, the per-document stages in supervised worker processes.

Consecutive per-document stages (``Stage.parallel``) form a segment that
worker processes run on batches of documents; order-dependent stream stages
run in the main process between segments. Batches are submitted with a
bounded window (back-pressure: the reader never runs more than ``window``
batches ahead of the writer) and collected in submission order, so the output
is byte-identical for any number of workers. Counters from the workers are
merged into the stages of the main process; dropped documents are reported
to each stage's ``on_drop`` in input order.

The workers are supervised (:mod:`corpustool.executors.supervise`), also with
one worker: a page that crashes or hangs its worker is retried alone in a
fresh one and, if it fails again, dropped as ``crashed`` or ``timeout``;
the build goes on. ``supervised=False`` (one worker only) runs the stages in
this process instead, without that protection (for debugging).
"""
from __future__ import annotations

import os
import sys
from typing import Iterable, Iterator

from ..document import Document
from ..stage import Stage
from ..options import check
from .supervise import DEFAULT_DOC_TIMEOUT, WorkerPool


# Per-document stages are CPU-bound: workers past a few per CPU only cost memory (some 150 MB each),
# and many thousands of them exhaust it. The output is the same for any number, so a larger request
# is cut to this many per CPU, with a word on stderr.
WORKERS_PER_CPU = 4


def usable_workers(workers: int) -> int:
    """``workers``, at most :data:`WORKERS_PER_CPU` for each CPU this process may run on."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:          # (no affinity on macOS or Windows)
        cpus = os.cpu_count() or 1
    most = WORKERS_PER_CPU * cpus
    if workers <= most:
        return workers
    print(f"corpustool: {workers} workers are more than {cpus} CPU{'s' if cpus > 1 else ''} can use; "
          f"running {most} ({WORKERS_PER_CPU} per CPU; the output is the same)", file=sys.stderr)
    return most


def _segments(stages: list[Stage]) -> list[tuple[bool, list[Stage]]]:
    """(runs in workers, stages): consecutive per-document stages that run in workers form one segment."""
    segs: list[tuple[bool, list[Stage]]] = []
    for st in stages:
        in_worker = st.parallel and getattr(st, "in_worker", True)
        if in_worker and segs and segs[-1][0]:
            segs[-1][1].append(st)
        else:
            segs.append((in_worker, [st]))
    return segs


def check_doc_timeout(value: float | None) -> float:
    """The per-document time limit in seconds (0 or None: none); refuses what is not one."""
    from ..errors import OptionError

    if value is None:
        return 0.0
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"doc_timeout must be a number of seconds, not {value!r}", option="doc_timeout") from None
    return check("doc_timeout", seconds)


class LocalExecutor:
    def __init__(self, workers: int = 1, batch_size: int = 32, window: int | None = None,
                 doc_timeout: float | None = DEFAULT_DOC_TIMEOUT, supervised: bool = True) -> None:
        from ..errors import OptionError

        check("workers", workers)
        if not supervised and workers != 1:
            raise OptionError("unsupervised runs use one process (workers=1)")
        self.workers = usable_workers(workers)
        self.batch_size = batch_size
        self.window = window or 4 * self.workers
        self.doc_timeout = check_doc_timeout(doc_timeout)
        self.supervised = supervised
        self.pool: WorkerPool | None = None     # while running: the supervised workers

    def run(self, docs: Iterable[Document], stages: list[Stage]) -> Iterator[Document]:
        segs = _segments(stages)
        parallel_segs = [seg for par, seg in segs if par]
        if not self.supervised or not parallel_segs:
            stream: Iterable[Document] = docs
            for _, seg in segs:
                for st in seg:
                    stream = st.run(stream)
            yield from stream
            return
        pool = WorkerPool(parallel_segs, self.workers, self.doc_timeout)
        self.pool = pool
        try:
            stream = docs
            pi = 0
            for par, seg in segs:
                if par:
                    stream = self._parallel(pool, pi, seg, stream)
                    pi += 1
                else:
                    for st in seg:
                        stream = st.run(stream)
            yield from stream
        finally:
            pool.close()
            self.pool = None

    def _parallel(self, pool: WorkerPool, seg_index: int, seg: list[Stage],
                  docs: Iterable[Document]) -> Iterator[Document]:
        # drops and kept documents interleaved as in a one-process run, so the
        # rejects file is the same for any number of workers
        for doc, i in pool.outcomes(seg_index, docs, self.batch_size, self.window):
            if i < 0:
                yield doc
            elif seg[i].on_drop is not None:
                seg[i].on_drop(doc, seg[i].name)
