"""Fault injection: `build --resume` stopped, killed and terminated anywhere, then resumed.

Six small WARC files of generated pages, with exact, near and paragraph duplicates across
files so that every de-duplication stage has state to carry from one input to the next. Each
run is a fresh process (``driver.py`` below) that stops itself with SIGKILL or SIGTERM at a
chosen point: right after checkpoint K, between a checkpoint's segment and its manifest, after
the N-th document written, after the corpus is renamed into place, before the checkpoint is
removed, or at a seeded random moment from outside. It is resumed (and stopped again) until a
run ends; the corpus, the rejects file and the statistics must equal those of an uninterrupted
build byte for byte, with and without the paragraph de-duplication, with 1 and 2 workers.
The paragraph hash set is made to merge its levels every few documents (``L0_LIMIT``), so a
restored set must grow (issue 29, item 1).
"""
from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.support.paths import REPO
N_FILES = 6

WORDS = ("river bridge garden market window letter winter summer teacher doctor village station "
         "kitchen morning evening forest mountain harbour engine library museum painter farmer "
         "journey history weather country island castle travel family student reader").split()
GLUE = ["the", "of", "and", "in", "to", "a", "is", "that", "it", "was", "for", "on", "with", "as", "at",
        "by", "this", "from", "which", "they", "have", "were", "there", "been", "their", "would"]

DRIVER = r'''
import json, os, signal, sys
sys.path.insert(0, os.environ["CT_REPO"])
from corpustool.dedup import hashset
hashset.HashSet.L0_LIMIT = 64          # the paragraph hash set merges into its main level often
fault = os.environ.get("CT_FAULT", "")
if os.environ.get("CT_SLOW"):           # every page takes this long to clean: workers always busy
    import time
    from corpustool.extractors import clean as _clean
    _process = _clean.Clean.process
    def _slow(self, doc):
        time.sleep(float(os.environ["CT_SLOW"]))
        return _process(self, doc)
    _clean.Clean.process = _slow
if fault:
    name, _, point = fault.partition("@")
    kind, _, arg = point.partition(":")
    sig = getattr(signal, "SIG" + name)
    def die():
        os.kill(os.getpid(), sig)
    import corpustool.checkpoint as cp
    if kind == "checkpoint":            # right after checkpoint N is complete
        orig = cp.Checkpoint.write
        def write(self, done, *a, **k):
            orig(self, done, *a, **k)
            if done == int(arg):
                die()
        cp.Checkpoint.write = write
    elif kind == "segment":             # checkpoint N's segment written, its manifest not yet
        orig_w = cp._write_atomically
        def watomic(path, data):
            if path.endswith("manifest.json") and json.loads(data)["done"] == int(arg):
                die()
            orig_w(path, data)
        cp._write_atomically = watomic
    elif kind == "doc":                 # after the N-th document written by this run
        from corpustool import corpus_profile
        orig_add = corpus_profile.CorpusProfile.add
        count = [0]
        def add(self, doc):
            orig_add(self, doc)
            count[0] += 1
            if count[0] == int(arg):
                die()
        corpus_profile.CorpusProfile.add = add
    elif kind == "renamed":             # the corpus is in place, the rejects and statistics not yet
        from corpustool.writers import base
        orig_f = base.finish_output
        def finish(plain, path):
            orig_f(plain, path)
            die()
        base.finish_output = finish
    elif kind == "discard":             # everything written, the checkpoint not yet removed
        from corpustool import pipeline
        pipeline.Pipeline.discard_checkpoint = lambda self: die()
from corpustool.cli import main
sys.exit(main())
'''


def _sentence(rng: random.Random, n: int) -> str:
    words = []
    for i in range(n):
        words.append(rng.choice(GLUE) if i % 2 == 0 else rng.choice(WORDS))
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng, rng.randint(12, 20)) for _ in range(rng.randint(2, 4)))


def _page(title: str, paras: list[str]) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paras)
    return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> <a href='/n'>News</a>"
            f"</nav><h1>{title}</h1>{body}<footer>Copyright 2024, all rights reserved.</footer></body></html>"
            ).encode("utf-8")


def _write_warc(path: Path, pages: list[tuple[str, bytes]]) -> None:
    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=True)
        for i, (url, body) in enumerate(pages):
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                               ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            rec = w.create_warc_record(url, "response", payload=io.BytesIO(body), length=None, http_headers=http,
                                       warc_headers_dict={"WARC-Date": f"2024-03-04T09:00:{i % 60:02d}Z"})
            w.write_record(rec)


@pytest.fixture(scope="module")
def crawl(tmp_path_factory) -> tuple[Path, list[str]]:
    """Six WARC files: fresh pages, exact copies, near copies and shared paragraphs across files."""
    root = tmp_path_factory.mktemp("faults")
    rng = random.Random(29)
    shared = [_paragraph(rng) for _ in range(6)]     # paragraphs that recur on pages of several files
    earlier: list[list[str]] = []
    paths = []
    for f in range(N_FILES):
        pages = []
        for i in range(9):
            url = f"http://site{f % 3}.example/f{f}/p{i}"
            if earlier and i == 0:        # an exact copy of an earlier file's page
                paras = list(rng.choice(earlier))
            elif earlier and i == 1:      # a near copy: one paragraph of an earlier page changed
                paras = list(rng.choice(earlier))
                paras[-1] = _paragraph(rng)
            else:
                paras = [_paragraph(rng) for _ in range(rng.randint(2, 4))]
                if i % 3 == 2:            # paragraph duplicates for dedup-para
                    paras.insert(1, rng.choice(shared))
            if i == 7:                    # only recurring paragraphs: dropped by dedup-para after its first
                paras = rng.sample(shared, 2) + [rng.choice(shared)[:120]]
            if i == 8:                    # a page with nothing to keep (a reject)
                paras = ["Click here."]
            earlier.append(paras)
            pages.append((url, _page(f"Page {f}-{i}", paras)))
        path = root / f"crawl{f}.warc.gz"
        _write_warc(path, pages)
        paths.append(str(path))
    (root / "driver.py").write_text(DRIVER)
    return root, paths


COMBOS = [("para", 1), ("para", 2), ("nopara", 1), ("nopara", 2)]


class Build:
    """One output's build command; runs it in fresh processes with faults."""

    def __init__(self, root: Path, inputs: list[str], name: str, para: str, workers: int) -> None:
        self.root = root
        d = root / name
        d.mkdir(exist_ok=True)
        self.out, self.rej, self.stats = d / "corpus.vert.gz", d / "rejects.jsonl", d / "stats.json"
        self.cmd = [sys.executable, str(root / "driver.py"), "build", *inputs, "-o", str(self.out),
                    "--lang", "en", "--rejects", str(self.rej), "--stats", str(self.stats), "-q", "--resume",
                    "--workers", str(workers), "--doc-timeout", "30"]
        if para == "nopara":
            self.cmd.append("--no-dedup-para")

    def env(self, fault: str = "") -> dict:
        return {**os.environ, "CT_REPO": str(REPO), "CT_FAULT": fault, "PYTHONPATH": str(REPO)}

    def run(self, fault: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(self.cmd, env=self.env(fault), capture_output=True, text=True, timeout=120)

    def run_killed_after(self, delay: float, sig: int) -> int:
        p = subprocess.Popen(self.cmd, env=self.env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            p.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            p.send_signal(sig)
        p.wait(timeout=60)
        p.stderr.close()
        return p.returncode

    def done(self) -> int | None:
        manifest = Path(str(self.out) + ".checkpoint") / "manifest.json"
        return json.loads(manifest.read_text())["done"] if manifest.exists() else None

    def result(self) -> tuple[bytes, bytes, dict]:
        stats = json.loads(self.stats.read_text())
        stats.pop("options", None)
        return self.out.read_bytes(), self.rej.read_bytes(), stats

    def clean(self) -> None:
        leftovers = [p.name for p in self.out.parent.iterdir()
                     if p.name not in (self.out.name, self.rej.name, self.stats.name)]
        assert leftovers == [], leftovers


def _finish(build: Build) -> None:
    r = build.run()
    assert r.returncode == 0, r.stderr
    build.clean()


@pytest.fixture(scope="module")
def baselines(crawl):
    root, inputs = crawl
    out = {}
    for para, workers in COMBOS:
        b = Build(root, inputs, f"base-{para}-{workers}", para, workers)
        _finish(b)
        out[(para, workers)] = b.result()
    # the paragraph de-duplication, near and exact duplicates all dropped something
    rejects = out[("para", 1)][1].decode()
    for reason in ("exact-duplicate", "near-duplicate", "duplicate"):
        assert f'"reason": "{reason}"' in rejects
    assert out[("para", 1)][0] != out[("nopara", 1)][0]
    # 1 and 2 workers give the same corpus
    assert out[("para", 1)] == out[("para", 2)] and out[("nopara", 1)] == out[("nopara", 2)]
    return out


@pytest.mark.parametrize("para,workers", COMBOS)
@pytest.mark.parametrize("signame", ["KILL", "TERM"])
def test_stopped_after_every_checkpoint_and_resumed(crawl, baselines, para, workers, signame):
    """Stopped right after checkpoint 1, resumed and stopped after 2, ... after 6; then resumed to the end."""
    root, inputs = crawl
    b = Build(root, inputs, f"every-{para}-{workers}-{signame}", para, workers)
    sig = getattr(signal, f"SIG{signame}")
    for k in range(1, N_FILES + 1):
        r = b.run(f"{signame}@checkpoint:{k}")
        assert r.returncode in (-sig, 128 + sig), (k, r.returncode, r.stderr)
        assert b.done() == k
        assert "error" not in r.stderr, r.stderr
    _finish(b)
    assert b.result() == baselines[(para, workers)]


@pytest.mark.parametrize("para,workers", COMBOS)
def test_killed_at_random_points_and_resumed(crawl, baselines, para, workers):
    """Seeded random faults: inside an input, between segment and manifest, while finishing,
    and at random moments from outside; each in a fresh process, resumed until a run ends."""
    root, inputs = crawl
    rng = random.Random(f"{para}-{workers}")
    b = Build(root, inputs, f"random-{para}-{workers}", para, workers)
    faults = [f"{rng.choice(['KILL', 'TERM'])}@doc:{rng.randint(1, 30)}",
              f"KILL@segment:{rng.randint(1, N_FILES)}", f"TERM@segment:{rng.randint(1, N_FILES)}",
              f"{rng.choice(['KILL', 'TERM'])}@{rng.choice(['renamed', 'discard'])}"]
    rng.shuffle(faults)
    for fault in faults:
        before = b.done()
        r = b.run(fault)
        if r.returncode == 0:       # the fault's point was not reached (e.g. already past it)
            b.out.unlink()          # start again for the next fault
            continue
        assert r.returncode in (-9, 128 + 15, -15), (fault, r.returncode, r.stderr)
        if fault.startswith(("KILL@segment", "TERM@segment")):
            assert b.done() in (None, before) or b.done() < int(fault.rsplit(":", 1)[1])
    # from outside, at a seeded moment
    b.run_killed_after(rng.uniform(0.5, 3.0), rng.choice([signal.SIGKILL, signal.SIGTERM]))
    _finish(b)
    assert b.result() == baselines[(para, workers)]


def _children(pid: int) -> list[int]:
    """The forked workers of ``pid``: its children running its own command line (not, say,
    multiprocessing's resource tracker, which is another program)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        own = Path(f"/proc/{pid}/cmdline").read_bytes()
        kids = [int(c) for c in path.read_text().split()] if path.exists() else []
        return [k for k in kids if Path(f"/proc/{k}/cmdline").read_bytes() == own]
    except OSError:
        return []


@pytest.mark.parametrize("para", ["para", "nopara"])
def test_stalled_worker_at_random_moments(crawl, baselines, para):
    """The workers stopped (SIGSTOP, never continued) at a seeded moment: the supervisor's deadlines
    kill them, their documents run again, and the build ends with the uninterrupted corpus."""
    import time

    root, inputs = crawl
    rng = random.Random(f"stall-{para}")
    b = Build(root, inputs, f"stall-{para}", para, 2)
    b.cmd[b.cmd.index("--doc-timeout") + 1] = "3"
    env = dict(b.env(), CT_SLOW="0.15")      # an input takes about a second: its workers are busy
    p = subprocess.Popen(b.cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stopped = []
    try:
        # the workers are forked once the stages are ready: a seeded moment after that, while
        # they have batches
        start_by = time.monotonic() + 60
        while not _children(p.pid) and p.poll() is None and time.monotonic() < start_by:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.05, 0.4))
        # every worker of the moment (a stopped idle worker would only be shut down at the end)
        for victim in _children(p.pid):
            if p.poll() is None:
                os.kill(victim, signal.SIGSTOP)
                stopped.append(victim)
        _, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
        for pid in stopped:             # never leave a stopped process behind
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    assert p.returncode == 0, err
    assert stopped, "the build ended before a worker could be stopped"
    assert "worker" in err and ("run again" in err or "timeout" in err or "retried" in err), err
    b.clean()
    out, rej, stats = b.result()
    base_out, base_rej, base_stats = baselines[(para, 2)]
    assert (out, rej) == (base_out, base_rej)


def test_checkpoint_size_is_that_of_the_state(crawl, tmp_path):
    """The segments add up to the stages' arrays; nothing is rewritten at each checkpoint."""
    from corpustool.checkpoint import Checkpoint
    root, inputs = crawl
    b = Build(root, inputs, "size", "para", 1)
    r = b.run(f"KILL@checkpoint:{N_FILES}")
    assert r.returncode == -9
    cp = Checkpoint(str(b.out) + ".checkpoint")
    manifest = cp.load_manifest()
    segments = cp.load_segments(N_FILES)
    arrays = sum(a.nbytes for seg in segments for a in seg.values())
    npz = sum(os.path.getsize(os.path.join(cp.path, cp.segment_name(k))) for k in range(1, N_FILES + 1))
    # the segments hold each array once (npz adds a header per array)
    assert npz < arrays + 600 * sum(len(seg) for seg in segments)
    # the paragraph hashes: as many as the restored set holds, each once across all segments
    hashes = np.concatenate([seg[k] for seg in segments for k in seg if k.endswith(".out")])
    assert hashes.size == np.unique(hashes).size > 0
    assert manifest["done"] == N_FILES
    _finish(b)


def test_restored_hash_set_grows(tmp_path):
    """Issue 29, item 1: the set rebuilt from a checkpoint merges and grows like a fresh one."""
    from corpustool.checkpoint import Checkpoint
    from corpustool.dedup.hashset import HashSet
    rng = np.random.default_rng(1)
    a, b = HashSet(l0_limit=16), HashSet(l0_limit=16)
    a.start_journal()
    batches = [rng.integers(0, 2**63, 50, dtype=np.uint64) for _ in range(200)]
    for x in batches[:20]:
        a.add(x)
        b.add(x)
    cp = Checkpoint(str(tmp_path / "cp"))
    cp.write(1, {}, {"out": a.take_journal()})
    restored = HashSet(l0_limit=16)
    restored.restore(cp.load_segments(1)[0]["out"])
    for x in batches[20:]:
        restored.add(x)
        b.add(x)
    assert np.array_equal(restored.to_array(), b.to_array())
    # an old checkpoint's set (a view into a pickle's buffer) grows too
    import pickle
    old = pickle.loads(pickle.dumps(b, protocol=5))
    for x in batches[:100]:
        old.add(x + np.uint64(7))
    assert len(old) == len(b) + np.unique(np.concatenate(batches[:100]) + np.uint64(7)).size - \
        int(b.contains(np.unique(np.concatenate(batches[:100]) + np.uint64(7))).sum())
