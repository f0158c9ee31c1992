"""Run a chain of stages on one machine, optionally with worker processes.

Consecutive per-document stages (``Stage.parallel``) form a segment that
worker processes run on batches of documents; order-dependent stream stages
run in the main process between segments. Batches are submitted with a
bounded window (back-pressure: the reader never runs more than ``window``
batches ahead of the writer) and collected in submission order, so the output
is byte-identical for any number of workers. Counters from the workers are
merged into the stages of the main process; dropped documents are reported
to each stage's ``on_drop`` in input order.
"""
from __future__ import annotations

import multiprocessing as mp
from collections import deque
from itertools import islice
from typing import Iterable, Iterator

from ..document import Document
from ..stage import Stage, StageStats

_WORKER_SEGMENTS: list[list[Stage]] = []


def _init_worker(segments: list[list[Stage]]) -> None:
    global _WORKER_SEGMENTS
    _WORKER_SEGMENTS = segments


def _run_batch(seg_index: int, docs: list[Document]):
    """In a worker: run one segment's stages on a batch.

    Returns, in input order, (document, index of the stage that dropped it or
    -1 when kept), and the batch's counters per stage.
    """
    stages = _WORKER_SEGMENTS[seg_index]
    for stage in stages:
        stage.stats = StageStats(stage.name)
    results: list[tuple[Document, int]] = []
    for doc in docs:
        out: Document | None = doc
        for i, stage in enumerate(stages):
            out = stage.apply(out)
            if out is None:
                doc.raw = None   # the rejects file needs metadata only
                doc.html = None
                results.append((doc, i))
                break
        if out is not None:
            results.append((out, -1))
    return results, [s.stats for s in stages]


def _segments(stages: list[Stage]) -> list[tuple[bool, list[Stage]]]:
    segs: list[tuple[bool, list[Stage]]] = []
    for st in stages:
        if st.parallel and segs and segs[-1][0]:
            segs[-1][1].append(st)
        else:
            segs.append((st.parallel, [st]))
    return segs


class LocalExecutor:
    def __init__(self, workers: int = 1, batch_size: int = 32, window: int | None = None) -> None:
        if workers < 1:
            from ..extractors.base import OptionError
            raise OptionError("--workers must be at least 1")
        self.workers = workers
        self.batch_size = batch_size
        self.window = window or 4 * workers
        self._pool = None

    def run(self, docs: Iterable[Document], stages: list[Stage]) -> Iterator[Document]:
        segs = _segments(stages)
        if self.workers == 1:
            stream: Iterable[Document] = docs
            for _, seg in segs:
                for st in seg:
                    stream = st.run(stream)
            yield from stream
            return
        parallel_segs = [seg for par, seg in segs if par]
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
        with ctx.Pool(self.workers, initializer=_init_worker, initargs=(parallel_segs,)) as pool:
            stream = docs
            pi = 0
            for par, seg in segs:
                if par:
                    stream = self._parallel(pool, pi, seg, stream)
                    pi += 1
                else:
                    stream = seg[0].run(stream)
            yield from stream

    def _parallel(self, pool, seg_index: int, seg: list[Stage], docs: Iterable[Document]) -> Iterator[Document]:
        it = iter(docs)
        pending: deque = deque()

        def submit() -> bool:
            batch = list(islice(it, self.batch_size))
            if not batch:
                return False
            pending.append(pool.apply_async(_run_batch, (seg_index, batch)))
            return True

        more = True
        while more and len(pending) < self.window:
            more = submit()
        while pending:
            results, stats = pending.popleft().get()
            if more:
                more = submit()
            for stage, st in zip(seg, stats):
                stage.stats.merge(st)
            # drops and kept documents interleaved as in a one-process run, so the
            # rejects file is the same for any number of workers
            for doc, i in results:
                if i < 0:
                    yield doc
                elif seg[i].on_drop is not None:
                    seg[i].on_drop(doc, seg[i].name)
