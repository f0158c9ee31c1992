"""Supervised worker processes: a page that kills or hangs its worker costs that page only.

The per-document stages parse arbitrary crawled bytes, partly in compiled
code. A segmentation fault cannot be caught in the process where it happens
and a hang can only be stopped from outside, so these stages always run in
child processes (one or more) that the main process watches:

* A worker takes one batch at a time and records in shared memory which
  document and which stage it is on, and since when.
* A worker that dies (signal, out-of-memory kill, exit) is noticed at once:
  its process sentinel is waited on together with its pipe. A worker that has
  spent more than ``doc_timeout`` seconds on one document is killed.
* The failed batch is split around the document the worker was on: the
  documents before and after it run again as batches, that document alone
  ("solo") in a freshly started worker, so a crash that depends on what the
  process did before does not cost the page. A solo document that kills or
  hangs its fresh worker again is dropped with the reason ``crashed`` or
  ``timeout`` by the stage it was in; in solo runs the worker reports each
  stage's counters as it goes, so the statistics stay exact
  (docs in = docs out + drops at every stage).
* No wait on a worker is without a deadline: the main process talks to its
  workers through non-blocking pipes, and a worker that stops answering
  while it is not computing (stopped while it sends its results, or while it
  should take its next batch) for longer than ``doc_timeout`` (60 s when
  documents have no limit) is killed like a hanging one, and its documents
  run again.
* Results are handed back in input order and counters are sums, so the
  output, the statistics and the rejects are the same for any number of
  workers.

Tests can make a worker crash or hang on purpose: with the environment
variable ``CORPUSTOOL_TEST_FAULTS=1`` in the main process, a page whose raw
bytes contain one of the markers in :data:`FAULT_MARKERS` triggers that fault
when the first stage starts on it. Without the variable the markers do
nothing.
"""
from __future__ import annotations

import ctypes
import faulthandler
import gc
import multiprocessing as mp
import os
import select
import signal
import struct
import sys
import time
from collections import deque
from itertools import islice
from multiprocessing.connection import wait as wait_ready
from multiprocessing.reduction import ForkingPickler
from typing import Iterable, Iterator

from ..errors import say_line
from ..document import Document
from ..options import default
from ..stage import Stage, StageStats

DEFAULT_DOC_TIMEOUT = default("doc_timeout")

# shared progress record of a worker: job, document within the job, stage, start of the document (0: idle)
_JOB, _DOC, _STAGE, _START = range(4)

FAULT_ENV = "CORPUSTOOL_TEST_FAULTS"
FAULT_MARKERS = {
    b"corpustool-test:segfault": "segfault",          # SIGSEGV, as a memory error in native code
    b"corpustool-test:abort": "abort",                # SIGABRT, as heap corruption detected by libc
    b"corpustool-test:hang": "hang",                  # sleeps forever
    b"corpustool-test:crash-unless-fresh": "stale",   # SIGSEGV unless it is the worker's first document
}


def fault_markers_live() -> bool:
    """Whether the test markers are live (read in the main process, or Spark's driver)."""
    return os.environ.get(FAULT_ENV) == "1"


# -- the main process's end of a pipe: every read and write has a deadline ----------
# The framing is multiprocessing's (a 4-byte big-endian length, or -1 and an 8-byte one), so the
# worker keeps its plain blocking Connection.

class _Stalled(Exception):
    """The worker did not read or write a byte for longer than the limit."""


def _wait_fd(fd: int, event: int, until: float) -> None:
    remaining = until - time.monotonic()
    if remaining <= 0:
        raise _Stalled
    poller = select.poll()
    poller.register(fd, event)
    poller.poll(max(1, int(remaining * 1000)))


def send_with_deadline(fd: int, obj, limit: float) -> None:
    """Pickle ``obj`` and write it to the non-blocking ``fd``; :class:`_Stalled` when the reader
    takes no byte for ``limit`` seconds; OSError when it is gone."""
    data = ForkingPickler.dumps(obj)
    n = len(data)
    header = struct.pack("!i", -1) + struct.pack("!Q", n) if n > 0x7fffffff else struct.pack("!i", n)
    for part in (header, data):
        view = memoryview(part)
        until = time.monotonic() + limit
        while view:
            try:
                written = os.write(fd, view)
            except (BlockingIOError, InterruptedError):
                written = 0
            if written:
                view = view[written:]
                until = time.monotonic() + limit
            else:
                _wait_fd(fd, select.POLLOUT, until)


def _read_exact(fd: int, size: int, limit: float, started: bool) -> bytearray:
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    until = time.monotonic() + limit
    while got < size:
        try:
            n = os.readv(fd, [view[got:]])
        except (BlockingIOError, InterruptedError):
            _wait_fd(fd, select.POLLIN, until)
            continue
        if n == 0:
            if got == 0 and not started:
                raise EOFError
            raise OSError("end of file in the middle of a message")
        got += n
        until = time.monotonic() + limit
    return buf


def recv_with_deadline(fd: int, limit: float):
    """One message from the non-blocking ``fd``: EOFError at its end, :class:`_Stalled` when the
    writer sends no byte for ``limit`` seconds in the middle of a message."""
    size, = struct.unpack("!i", _read_exact(fd, 4, limit, False))
    if size == -1:
        size, = struct.unpack("!Q", _read_exact(fd, 8, limit, True))
    return ForkingPickler.loads(_read_exact(fd, size, limit, True))


# -- the worker (child process) ---------------------------------------------------

def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when the main process dies (even mid-hang)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)       # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _test_fault(doc: Document, first_doc: bool) -> None:
    data = doc.raw if doc.raw is not None else (doc.html or "").encode("utf-8", "replace")
    for marker, fault in FAULT_MARKERS.items():
        if marker in data:
            if fault == "segfault" or (fault == "stale" and not first_doc):
                os.kill(os.getpid(), signal.SIGSEGV)
            elif fault == "abort":
                os.abort()
            elif fault == "hang":
                while True:
                    time.sleep(3600)


def _strip(doc: Document) -> Document:
    doc.raw = None      # the rejects file needs metadata only
    doc.html = None
    return doc


def _worker_main(conn, progress, segments: list[list[Stage]], faults: bool, inherited: list) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C reaches the main process, which stops us
    # a crash here is the supervisor's to report (one line naming the record, then a retry):
    # a Python stack dump inherited from the parent's faulthandler (pytest turns it on) would
    # read as the tool itself crashing
    faulthandler.disable()
    _die_with_parent()
    for other in inherited:                         # the pipes of the other workers, copied by fork
        try:
            other.close()
        except OSError:
            pass
    handled = 0

    def send(msg) -> None:
        """Send without the document's clock running while the main process is busy elsewhere."""
        started = progress[_START]
        progress[_START] = 0.0
        t0 = time.monotonic()
        conn.send(msg)
        if started:
            progress[_START] = started + (time.monotonic() - t0)

    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        job_id, seg_index, docs, solo = msg
        stages = segments[seg_index]
        for stage in stages:
            stage.stats = StageStats(stage.name)
        progress[_JOB] = job_id
        results: list[tuple[Document, int]] = []
        for k, doc in enumerate(docs):
            progress[_DOC] = k
            progress[_STAGE] = 0
            progress[_START] = time.monotonic()
            out: Document | None = doc
            for i, stage in enumerate(stages):
                if solo and i:
                    # the counters so far and the document entering stage i: exact statistics if it dies there
                    send(("at", job_id, i, out, [s.stats for s in stages[:i]]))
                progress[_STAGE] = i
                if faults and seg_index == 0 and i == 0:
                    _test_fault(out, handled == 0)
                out = stage.apply(out)
                if out is None:
                    results.append((_strip(doc), i))
                    break
            if out is not None:
                results.append((out, -1))
            handled += 1
        progress[_START] = 0.0
        conn.send(("done", job_id, results, [s.stats for s in stages]))


# -- the main process's side ------------------------------------------------------

class _Job:
    """Documents of one segment sent to a worker together; a part of a root job after a failure."""

    __slots__ = ("id", "seg", "docs", "solo", "root", "offset", "attempts", "at",
                 "results", "remaining", "stats")

    def __init__(self, job_id: int, seg: int, docs: list[Document], solo: bool = False,
                 root: "_Job | None" = None, offset: int = 0, attempts: int = 0) -> None:
        self.id = job_id
        self.seg = seg
        self.docs = docs
        self.solo = solo
        self.root = root or self
        self.offset = offset            # position of docs[0] in the root job
        self.attempts = attempts        # failures in which no culprit was identified
        self.at: tuple | None = None    # solo: (stage, document entering it, counters of earlier stages)
        if root is None:
            self.results: list = [None] * len(docs)
            self.remaining = len(docs)
            self.stats: list[StageStats] | None = None

    @property
    def done(self) -> bool:
        return self.root.remaining == 0


class _Worker:
    __slots__ = ("number", "proc", "conn", "progress", "job", "heard")

    def __init__(self, number: int, proc, conn, progress) -> None:
        self.number = number
        self.proc = proc
        self.conn = conn
        self.progress = progress
        self.job: _Job | None = None
        self.heard = time.monotonic()   # the job handed over or a message received: the worker answers


def _signal_name(exitcode: int | None) -> str:
    if exitcode is None:
        return "killed"
    if exitcode < 0:
        try:
            return signal.Signals(-exitcode).name
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit status {exitcode}"


class WorkerPool:
    """``workers`` supervised processes running the per-document segments ``segments``."""

    def __init__(self, segments: list[list[Stage]], workers: int = 1,
                 doc_timeout: float | None = DEFAULT_DOC_TIMEOUT, faults: bool | None = None) -> None:
        self.segments = segments
        self.doc_timeout = doc_timeout or None
        # how long a worker that is not computing may leave a message unread or half-sent
        self.answer_timeout = self.doc_timeout or DEFAULT_DOC_TIMEOUT
        self.faults = fault_markers_live() if faults is None else faults
        methods = mp.get_all_start_methods()
        self.fork = "fork" in methods
        self.ctx = mp.get_context("fork" if self.fork else "spawn")
        self.queue: deque[_Job] = deque()
        self._next_id = 1
        self.workers: list[_Worker] = []
        self.failures = 0               # workers lost (for tests and messages)
        for seg in segments:
            for stage in seg:
                stage.prepare()
        # the tables just loaded are permanent: out of the cyclic collector's sight, its full
        # passes while results are unpickled stay short (2.4 -> 1.2 ms per cleaned page), and
        # forked workers do not copy the pages it would touch
        gc.freeze()
        for n in range(workers):
            self.workers.append(self._start(n))

    # -- workers
    def _start(self, number: int) -> _Worker:
        from multiprocessing.sharedctypes import RawArray

        try:
            progress = RawArray("d", 4)
        except OSError as exc:          # its shared memory is a file (in /dev/shm or the temporary folder)
            import tempfile
            where = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
            raise OSError(exc.errno, f"{exc.strerror} (shared memory of the worker processes)", where) from None
        main_end, child_end = self.ctx.Pipe(duplex=True)
        inherited = [w.conn for w in self.workers] if self.fork else []
        proc = self.ctx.Process(target=_worker_main, name=f"corpustool-worker-{number}", daemon=True,
                                args=(child_end, progress, self.segments, self.faults, inherited))
        proc.start()
        child_end.close()
        os.set_blocking(main_end.fileno(), False)   # every read and write of ours has a deadline
        return _Worker(number, proc, main_end, progress)

    def _replace(self, w: _Worker) -> _Worker:
        self._stop(w, kill=True)
        fresh = self._start(w.number)
        self.workers[self.workers.index(w)] = fresh
        return fresh

    @staticmethod
    def _stop(w: _Worker, kill: bool) -> None:
        if w.proc.is_alive():
            if kill:
                w.proc.kill()
            else:
                try:
                    send_with_deadline(w.conn.fileno(), None, 5.0)
                except (OSError, _Stalled):
                    w.proc.kill()
        w.proc.join(5 if not kill else None)
        if w.proc.is_alive():
            w.proc.kill()
            w.proc.join()
        try:
            w.conn.close()
        except OSError:
            pass

    def close(self) -> None:
        for w in self.workers:
            self._stop(w, kill=w.job is not None)
        self.workers = []

    # -- jobs
    def submit(self, seg: int, docs: list[Document]) -> _Job:
        job = self._new_job(seg, docs)
        self.queue.append(job)
        self._dispatch()
        return job

    def _new_job(self, seg: int, docs: list[Document], **kw) -> _Job:
        job = _Job(self._next_id, seg, docs, **kw)
        self._next_id += 1
        return job

    def _dispatch(self) -> None:
        for w in list(self.workers):
            if not self.queue:
                return
            if w.job is None:
                self._send(w, self.queue.popleft())

    def _send(self, w: _Worker, job: _Job) -> None:
        w.job = job
        try:
            send_with_deadline(w.conn.fileno(), (job.id, job.seg, job.docs, job.solo), self.answer_timeout)
        except (OSError, EOFError):     # died while idle: the job is not at fault
            self._failed(w, "died")
            return
        except _Stalled:                # stopped while idle: it does not take its batch
            self._stalled(w, "did not take its next batch")
            return
        w.heard = time.monotonic()

    def wait(self, job: _Job) -> None:
        """Run the workers until every document of ``job`` has a result."""
        while not job.done:
            self._dispatch()
            busy = [w for w in self.workers if w.job is not None]
            if not busy:
                raise RuntimeError("corpustool: internal error: a job is waiting but no worker holds it")
            timeout = self._next_deadline(busy)
            handles = {}
            for w in self.workers:
                handles[w.proc.sentinel] = w
                if w.job is not None:
                    handles[w.conn] = w
            for ready in wait_ready(list(handles), timeout):
                w = handles[ready]
                if w not in self.workers:
                    continue            # replaced while handling an earlier handle
                if ready is w.conn:
                    if not self._receive(w):    # closed its pipe or sent garbage: it is gone either way
                        if w.job is not None and w in self.workers:
                            self._failed(w, "died")
                elif w.job is None:
                    self._replace(w)    # an idle worker died (killed from outside): start another
                else:
                    self._drain(w)
                    if w.job is not None:
                        self._failed(w, "died")
            self._check_timeouts()

    def _next_deadline(self, busy: list[_Worker]) -> float | None:
        now = time.monotonic()
        soonest = self.answer_timeout
        for w in busy:
            started = w.progress[_START]
            if started and self.doc_timeout is not None:
                soonest = min(soonest, started + self.doc_timeout - now)
            elif not started:
                soonest = min(soonest, w.heard + self.answer_timeout - now)
        return max(0.0, soonest) + 0.01

    def _check_timeouts(self) -> None:
        now = time.monotonic()
        for w in list(self.workers):
            if w not in self.workers or w.job is None:
                continue
            started = w.progress[_START]
            if started and self.doc_timeout is not None and now - started > self.doc_timeout:
                w.proc.kill()
                w.proc.join()
                self._drain(w)          # it may have finished just before
                if w.job is not None:
                    self._failed(w, "timeout")
            elif not started and now - w.heard > self.answer_timeout:
                # holds a batch, computes nothing and sends nothing (stopped, or starved): as a hang
                if w.conn.poll():
                    continue            # it did answer: read first, the next round
                self._stalled(w, "holds a batch but neither computes nor answers")

    def _stalled(self, w: _Worker, what: str) -> None:
        """``w`` stopped answering while not computing: killed, its documents run again."""
        say_line(f"corpustool: worker {w.number + 1} (pid {w.proc.pid}) {what} for more than "
                 f"{self.answer_timeout:g} s; it was stopped, its documents run again")
        w.proc.kill()
        w.proc.join()
        self._drain(w)
        if w.job is not None:
            self._failed(w, "stalled")
        else:
            self._replace(w)

    def _receive(self, w: _Worker) -> bool:
        """Handle one message of ``w``; False when its pipe is closed or broken (it died)."""
        # unpickling a batch creates tens of thousands of objects, freed by reference counting
        # when the documents are written: no cyclic collection while it runs
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            msg = recv_with_deadline(w.conn.fileno(), self.answer_timeout)
        except _Stalled:                # stopped in the middle of a message
            if gc_was_on:
                gc.enable()
                gc_was_on = False
            self._stalled(w, "stopped sending in the middle of a message")
            return True
        except (EOFError, OSError):
            return False
        except Exception:               # a message cut short by the worker's death
            return False
        finally:
            if gc_was_on:
                gc.enable()
        w.heard = time.monotonic()
        self._handle(w, msg)
        return True

    def _handle(self, w: _Worker, msg) -> None:
        kind, job_id = msg[0], msg[1]
        job = w.job
        if job is None or job_id != job.id:
            return
        if kind == "at":
            job.at = (msg[2], msg[3], msg[4])
        elif kind == "done":
            w.job = None
            self._complete(job, msg[2], msg[3])

    def _drain(self, w: _Worker) -> None:
        """Read what a dead or killed worker sent before it stopped."""
        try:
            while w.job is not None and w.conn.poll():
                try:
                    msg = recv_with_deadline(w.conn.fileno(), 1.0)
                except (_Stalled, EOFError, OSError):
                    return
                except Exception:
                    return
                self._handle(w, msg)
        except (EOFError, OSError):
            pass

    def _complete(self, job: _Job, results: list, stats: list[StageStats]) -> None:
        root = job.root
        for k, res in enumerate(results):
            root.results[job.offset + k] = res
        root.remaining -= len(results)
        if root.stats is None:
            root.stats = [StageStats(s.name) for s in self.segments[job.seg]]
        for total, part in zip(root.stats, stats):
            total.merge(part)

    def _failed(self, w: _Worker, how: str, detail: str = "") -> None:
        """``w`` died (``how="died"``) or was killed for a timeout while holding a job."""
        job = w.job
        assert job is not None
        w.job = None
        # its pipes close before the kernel has its exit status: wait for that, for the message
        w.proc.join(2)
        if w.proc.exitcode is None:
            w.proc.kill()
            w.proc.join()
        p = w.progress
        culprit = int(p[_DOC]) if p[_JOB] == job.id and p[_START] else None
        stage_no = int(p[_STAGE])
        cause = detail or (_signal_name(w.proc.exitcode) if how == "died" else "")
        self.failures += 1
        fresh = self._replace(w)
        stages = self.segments[job.seg]
        if culprit is None:
            job.attempts += 1
            if job.attempts < 2:
                self.queue.appendleft(job)      # lost between documents: run it again as it was
            elif job.solo:
                self._drop(job, stages, job.at[0] if job.at else 0, "crashed", cause)
            else:                               # twice lost between documents: find the culprit alone
                for k in reversed(range(len(job.docs))):
                    self.queue.appendleft(self._new_job(job.seg, [job.docs[k]], solo=True,
                                                        root=job.root, offset=job.offset + k))
            self._dispatch()
            return
        doc = job.docs[culprit]
        what = f"document {doc.id} ({doc.url or doc.source})"
        reason = "timeout" if how == "timeout" else "crashed"
        if job.solo:
            stage_no = job.at[0] if job.at else stage_no
            self._drop(job, stages, stage_no, reason, cause)
            self._dispatch()
            return
        if reason == "timeout":
            say_line(f"corpustool: {stages[stage_no].name}: {what} took more than {self.doc_timeout:g} s; "
                     f"its worker was stopped, retrying the document alone")
        else:
            say_line(f"corpustool: {stages[stage_no].name}: a worker died ({cause}) on {what}; "
                     f"retrying the document alone in a fresh worker")
        before, after = job.docs[:culprit], job.docs[culprit + 1:]
        if after:
            self.queue.appendleft(self._new_job(job.seg, after, root=job.root, offset=job.offset + culprit + 1))
        if before:
            self.queue.appendleft(self._new_job(job.seg, before, root=job.root, offset=job.offset))
        self._send(fresh, self._new_job(job.seg, [doc], solo=True, root=job.root, offset=job.offset + culprit))
        self._dispatch()

    def _drop(self, job: _Job, stages: list[Stage], stage_no: int, reason: str, cause: str) -> None:
        """A solo document failed again: dropped by the stage it was in, with exact counters."""
        original = job.docs[0]
        if job.at is not None and job.at[0] == stage_no:
            entering, earlier = job.at[1], job.at[2]
        else:
            stage_no, entering, earlier = 0, original, []
        counts = [StageStats(s.name) for s in stages[:stage_no + 1]]
        for total, part in zip(counts, earlier):
            total.merge(part)
        stage = stages[stage_no]
        stage.count_arrival(entering, counts[stage_no])
        counts[stage_no].count_drop(reason)
        entering = _strip(entering)
        entering.drop_reason = reason
        if reason == "timeout":
            why = f"took more than {self.doc_timeout:g} s again"
        else:
            why = f"killed a fresh worker again ({cause})"
        say_line(f"corpustool: {stage.name}: document {entering.id} ({entering.url or entering.source}) {why}: "
                 f"dropped as {reason}")
        self._complete(job, [(entering, stage_no)], counts)

    # -- the stream
    def outcomes(self, seg_index: int, docs: Iterable[Document], batch_size: int = 32,
                 window: int = 4) -> Iterator[tuple[Document, int]]:
        """Run segment ``seg_index`` over ``docs``: (document, index of the stage that dropped it
        or -1 when kept) in input order. At most ``window`` batches are in flight (back-pressure).
        Counters are merged into the segment's stage objects of this process."""
        seg = self.segments[seg_index]
        it = iter(docs)
        pending: deque[_Job] = deque()
        more = True

        def submit() -> bool:
            batch = list(islice(it, batch_size))
            if not batch:
                return False
            pending.append(self.submit(seg_index, batch))
            return True

        while more and len(pending) < window:
            more = submit()
        while pending:
            job = pending.popleft()
            self.wait(job)
            if more:
                more = submit()
            for stage, st in zip(seg, job.stats or ()):
                stage.stats.merge(st)
            yield from job.results
