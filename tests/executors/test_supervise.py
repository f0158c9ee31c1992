"""Supervised workers (issue 19, points 2 and 5): a page that crashes or hangs its worker never stops a build.

Crashes and hangs are made on purpose, without relying on a buggy parser: with
CORPUSTOOL_TEST_FAULTS=1 a page holding a marker (``corpustool-test:segfault``,
``:abort``, ``:hang``, ``:crash-unless-fresh``) kills or blocks the worker that
cleans it, and test stages below do the same in later stages of a segment.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpustool.document import Document, Paragraph
from corpustool.executors.local import LocalExecutor
from corpustool.executors.supervise import FAULT_ENV
from corpustool.errors import OptionError
from corpustool.pipeline import Pipeline, PipelineOptions
from corpustool.stage import DocumentStage

from tests.support.paths import REPO
SNIPPET_PAGES = REPO.parent / "shared" / "data" / "snippets" / "pages"

TOPICS = ["Apples", "Rivers", "Engines", "Bridges", "Forests", "Glaciers", "Harbours", "Islands",
          "Journals", "Kettles", "Lanterns", "Meadows"]


_COMMON = ("the of and to in is it that was for on are with as they be at one have this from by but what "
           "some we can out other were all there when up use your how said an each she which do their time "
           "if will way about many then them would write like so these her long make thing see him two has "
           "look more day could go come did number sound no most people my over know water than call first "
           "who may down side been now find any new work part take get place made live where after back little "
           "only round man year came show every good me give our under name very through just form sentence "
           "great think say help low line differ turn cause much mean before move right boy old too same tell").split()


def article(title: str, extra: str = "") -> bytes:
    # four different paragraphs (a paragraph written four times would be kept once: justext-plus's
    # `repeats` rule), each with a sentence of common words drawn for this title, so that the pages
    # are no near-duplicates of each other
    rng = random.Random(title)
    body = "".join(
        f"<p>{title} are the subject of the {nth} paragraph. "
        f"{' '.join(rng.choice(_COMMON) for _ in range(40)).capitalize()}.</p>"
        for nth in ("first", "second", "third", "fourth"))
    return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> "
            f"<a href='/n'>News</a></nav><h1>{title}</h1>{body}{extra}"
            f"<footer>Copyright 2024, all rights reserved.</footer></body></html>").encode()


def edge_pages() -> list[tuple[str, bytes]]:
    """Truncated pages, binary junk and the edge inputs of issue 19 (all authored here)."""
    rng = random.Random(19)
    good = article("Orchards")
    cut_attr = good.index(b"href=") + len(b"href=")
    pages = [
        ("cut-in-attribute-value", good[:cut_attr]),
        ("cut-in-attribute-name", good[:cut_attr - 3]),
        ("cut-mid-text", good[:len(good) * 2 // 3]),
        ("eight-bytes", b"<a href="),
        ("p-class", b"<p class="),
        ("x-b-c", b"x<b c= "),
        ("empty-values", b'<a x="' + b"y" * 4088 + b'"' + b' a=""' * 20 + b">t</a>"),
        ("empty", b""),
        ("nul-bytes", b"<p>nul\x00bytes\x00" * 50 + b"</p>"),
        ("invalid-utf8", b"<meta charset=utf-8><p>" + bytes(range(128, 256)) * 20 + b"</p>"),
        ("entities", b"<p>" + b"&amp;&#0;&#x110000;&#99999999999;&bogus;&" * 200 + b"</p>"),
        ("comment-unclosed", b"<html><body><p>text</p><!-- never closed " + b"x" * 500),
        ("cdata", b"<p><![CDATA[ <p>inside</p> ]]></p><![CDATA[ cut"),
        ("huge-attribute", b'<p title="' + b"a" * 300_000 + b'">attribute</p>'),
        ("deep-nesting", b"<div>" * 3000 + b"deep" + b"</div>" * 3000),
        ("binary-junk", bytes(rng.getrandbits(8) for _ in range(6000))),
        ("binary-junk-html", b"<html><body>" + bytes(rng.getrandbits(8) for _ in range(3000))),
    ]
    return pages


def write_warc(path: Path, pages: list[tuple[str, bytes]]) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i, (url, body) in enumerate(pages):
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                               ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            rec = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                            warc_headers_dict={"WARC-Date": f"2024-03-04T09:00:{i % 60:02d}Z"})
            writer.write_record(rec)


def broken_crawl(path: Path) -> dict[str, str]:
    """The whole-build input: good pages, dev pages and their truncations, edge inputs, a duplicate,
    two pages that kill their worker in any process, one that hangs it, one that kills a worker that
    has cleaned a page before (retried alone, it is kept). Returns the URL of each special page."""
    pages: list[tuple[str, bytes]] = []
    special = {}
    for n, title in enumerate(TOPICS):
        pages.append((f"http://good.example/{n}", article(title)))
        if n == 2:
            special["segfault"] = "http://crash.example/segfault"
            pages.append((special["segfault"], article("Segfaults", "<!-- corpustool-test:segfault -->")))
        if n == 4:
            special["hang"] = "http://crash.example/hang"
            pages.append((special["hang"], article("Hangs", "<!-- corpustool-test:hang -->")))
        if n == 6:
            special["abort"] = "http://crash.example/abort"
            pages.append((special["abort"], article("Aborts", "<!-- corpustool-test:abort -->")))
        if n == 8:
            special["stale"] = "http://crash.example/stale"
            pages.append((special["stale"], article("Staleness", "<!-- corpustool-test:crash-unless-fresh -->")))
    pages.append(("http://good.example/duplicate", article(TOPICS[0])))
    pages += [(f"http://edge.example/{name}", body) for name, body in edge_pages()]
    if SNIPPET_PAGES.is_dir():      # real pages, whole and cut at a few points, when the dev data is present
        for k, page in enumerate(sorted(SNIPPET_PAGES.glob("*.html"))[:12]):
            data = page.read_bytes()
            pages.append((f"http://dev.example/{page.stem}", data))
            for cut in (len(data) // 3, len(data) // 2 + k, len(data) - 1):
                pages.append((f"http://dev.example/{page.stem}/cut{cut}", data[:cut]))
    write_warc(path, pages)
    special["records"] = str(len(pages))
    return special


def _build(src: Path, out: Path, *extra: str, env_faults: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if env_faults:
        env[FAULT_ENV] = "1"
    cmd = [sys.executable, "-m", "corpustool", "build", str(src), "-o", str(out), "--lang", "en",
           "--stats", str(out) + ".stats.json", "--rejects", str(out) + ".rejects.jsonl", "--quiet", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=600)


def check_accounting(stats: dict, records: int) -> None:
    """docs in = docs out + drops at every stage, and each stage takes what the one before gave."""
    stages = stats["stages"]
    reader = stages[0]
    assert reader["docs_out"] + sum(reader["drops"].values()) + sum(
        v for k, v in reader.get("extra", {}).items() if k.startswith("skipped:")) == records
    prev_out = reader["docs_out"]
    for st in stages[1:]:
        assert st["docs_in"] == prev_out, st
        assert st["docs_in"] == st["docs_out"] + sum(st["drops"].values()), st
        prev_out = st["docs_out"]


@pytest.fixture(scope="module")
def broken_builds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("broken")
    src = tmp / "broken.warc.gz"
    special = broken_crawl(src)
    runs = {}
    for workers in (1, 2):
        out = tmp / f"w{workers}.vert"
        started = time.monotonic()
        r = _build(src, out, "--workers", str(workers), "--doc-timeout", "2")
        runs[workers] = (r, out, time.monotonic() - started)
    return special, runs


def test_broken_crawl_builds_with_one_and_two_workers_identically(broken_builds):
    special, runs = broken_builds
    outputs = {}
    for workers, (r, out, _elapsed) in runs.items():
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
        stats = json.loads(Path(str(out) + ".stats.json").read_text())
        check_accounting(stats, int(special["records"]))
        rejects = Path(str(out) + ".rejects.jsonl").read_bytes()
        outputs[workers] = (out.read_bytes(), rejects, stats["stages"])
    assert outputs[1][0] == outputs[2][0]           # the corpus
    assert outputs[1][1] == outputs[2][1]           # the rejects
    assert outputs[1][2] == outputs[2][2]           # every stage's counters
    assert outputs[1][0].count(b"<doc ") >= len(TOPICS)


def test_crashed_and_hanging_pages_are_dropped_with_a_reason_and_named(broken_builds):
    special, runs = broken_builds
    r, out, _elapsed = runs[2]
    rejects = [json.loads(line) for line in Path(str(out) + ".rejects.jsonl").read_text().splitlines()]
    by_url = {rec["url"]: rec for rec in rejects}
    for key, reason in (("segfault", "crashed"), ("abort", "crashed"), ("hang", "timeout")):
        rec = by_url[special[key]]
        assert rec["reason"] == reason and rec["stage"] == "clean"
        assert "@" in rec["source"] and rec["id"]         # the record's offset in the WARC and its id
        assert special[key] in r.stderr                   # a clear message names the page
    clean = json.loads(Path(str(out) + ".stats.json").read_text())["stages"][1]
    assert clean["drops"]["crashed"] == 2 and clean["drops"]["timeout"] == 1
    # the page that only kills a worker that cleaned something before passes alone in a fresh worker
    assert special["stale"] not in by_url
    assert b"Staleness" in out.read_bytes()
    # every good page is in the corpus
    corpus = out.read_bytes()
    for title in TOPICS:
        assert f'title="{title}"'.encode() in corpus


def test_a_crashing_page_prints_one_line_not_a_stack_dump(tmp_path):
    """A worker's segmentation fault is reported by the supervisor, named by its record; the
    Python stack dump of a faulthandler the parent turned on (pytest, ``python -X faulthandler``)
    would read as the tool itself crashing (issue 30)."""
    src = tmp_path / "in.warc.gz"
    write_warc(src, [("http://crash.example/segfault", article("Segfaults", "<!-- corpustool-test:segfault -->")),
                     ("http://crash.example/good", article("Apples"))])
    env = dict(os.environ, **{FAULT_ENV: "1"})
    cmd = [sys.executable, "-X", "faulthandler", "-m", "corpustool", "build", str(src), "-o",
           str(tmp_path / "out.vert"), "--lang", "en", "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Fatal Python error" not in r.stderr and "Current thread" not in r.stderr
    assert "http://crash.example/segfault" in r.stderr      # the one line that names the page
    assert b'title="Apples"' in (tmp_path / "out.vert").read_bytes()


def test_without_the_test_variable_the_markers_do_nothing(tmp_path):
    src = tmp_path / "in.warc.gz"
    write_warc(src, [("http://crash.example/segfault", article("Segfaults", "<!-- corpustool-test:segfault -->"))])
    r = _build(src, tmp_path / "out.vert", env_faults=False)
    assert r.returncode == 0, r.stderr
    assert b"Segfaults" in (tmp_path / "out.vert").read_bytes()


# -- the executor on its own, with test stages ----------------------------------------

def _docs(n: int, marked: dict[int, str] | None = None) -> list[Document]:
    marked = marked or {}
    docs = []
    for i in range(n):
        text = f"document {i} has some words in it " + marked.get(i, "")
        docs.append(Document(id=f"d{i}", url=f"http://x.example/{i}", source=f"test@{i * 100}",
                             paragraphs=[Paragraph(text), Paragraph("second paragraph " * (i % 3 + 1))]))
    return docs


class Mark(DocumentStage):
    """Stage 0 of the segment: keeps every document and notes its pass."""

    name = "mark"

    def process(self, doc):
        doc.meta["marked"] = True
        doc.paragraphs.append(Paragraph("added by mark"))
        return doc


class Faulty(DocumentStage):
    """Stage 1: kills, hangs or drops its process on marked documents; keeps the others."""

    name = "faulty"
    seen = 0

    def process(self, doc):
        text = doc.paragraphs[0].text
        Faulty.seen += 1
        if "SEGV" in text:
            os.kill(os.getpid(), signal.SIGSEGV)
        if "EXIT" in text:
            os._exit(7)
        if "HANG" in text:
            time.sleep(3600)
        if "STALE" in text and Faulty.seen > 1:      # crashes unless first in its process
            os.kill(os.getpid(), signal.SIGSEGV)
        if "DROP" in text:
            doc.drop("dropped-on-purpose")
        return doc


def _run(workers: int, docs: list[Document], timeout: float = 60, batch_size: int = 4):
    stages = [Mark(), Faulty()]
    drops = []
    for st in stages:
        st.on_drop = lambda d, s: drops.append((d.id, s, d.drop_reason))
    ex = LocalExecutor(workers=workers, batch_size=batch_size, doc_timeout=timeout)
    out = [(d.id, [p.text for p in d.paragraphs], d.meta.get("marked")) for d in ex.run(docs, stages)]
    return out, drops, [s.stats.to_dict() for s in stages]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_crash_in_a_later_stage_is_dropped_there_with_exact_counters(workers):
    marked = {3: "SEGV", 6: "EXIT", 9: "DROP", 10: "STALE", 13: "SEGV"}
    out, drops, stats = _run(workers, _docs(16, marked))
    assert [d for d, _, _ in out] == [f"d{i}" for i in range(16) if i not in (3, 6, 9, 13)]
    assert all(marked for _, _, marked in out)
    assert drops == [("d3", "faulty", "crashed"), ("d6", "faulty", "crashed"),
                     ("d9", "faulty", "dropped-on-purpose"), ("d13", "faulty", "crashed")]
    mark, faulty = stats
    assert mark["docs_in"] == mark["docs_out"] == 16 and not mark["drops"]
    assert faulty["docs_in"] == 16 and faulty["docs_out"] == 12
    assert faulty["drops"] == {"crashed": 3, "dropped-on-purpose": 1}
    # the crashed documents were counted with what they carried into the stage (three paragraphs each)
    assert faulty["paragraphs_in"] == mark["paragraphs_out"]
    assert faulty["words_in"] == mark["words_out"]
    if workers == 1:
        reference = _run(1, _docs(16, {9: "DROP", 10: "STALE"}))
        kept = [o for o in reference[0] if o[0] not in ("d3", "d6", "d13")]
        assert out == kept


def test_output_with_crashes_does_not_depend_on_workers_or_batches():
    marked = {0: "SEGV", 5: "STALE", 11: "EXIT", 12: "DROP", 17: "STALE"}
    runs = [_run(w, _docs(20, marked), batch_size=b) for w, b in ((1, 32), (2, 3), (3, 1), (2, 7))]
    assert all(r == runs[0] for r in runs[1:])


def test_hanging_document_times_out_and_the_rest_goes_on():
    started = time.monotonic()
    out, drops, stats = _run(2, _docs(8, {2: "HANG"}), timeout=1)
    assert time.monotonic() - started < 30
    assert [d for d, _, _ in out] == [f"d{i}" for i in range(8) if i != 2]
    assert drops == [("d2", "faulty", "timeout")]
    assert stats[1]["drops"] == {"timeout": 1} and stats[1]["docs_in"] == 8


def test_doc_timeout_zero_means_no_limit_and_bad_values_are_refused():
    assert LocalExecutor(doc_timeout=0).doc_timeout == 0
    for bad in (-1, float("nan"), float("inf"), "x"):
        with pytest.raises(OptionError):
            LocalExecutor(doc_timeout=bad)


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_build_refuses_a_bad_doc_timeout_in_one_line(tmp_path, value):
    src = tmp_path / "in.warc.gz"
    write_warc(src, [("http://good.example/", article("Apples"))])
    r = _build(src, tmp_path / "out.vert", "--doc-timeout", value)
    assert r.returncode == 2
    assert "--doc-timeout" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.vert").exists()


def test_a_worker_killed_from_outside_costs_nothing():
    """A normal two-worker run; one busy worker is killed with SIGKILL: its batch is retried, none lost."""
    docs = _docs(60)
    reference = _run(1, [d for d in _docs(60)])

    class Slow(DocumentStage):
        name = "faulty"

        def process(self, doc):
            time.sleep(0.02)
            return doc

    stages = [Mark(), Slow()]
    ex = LocalExecutor(workers=2, batch_size=4)
    out, killed = [], []
    for doc in ex.run(docs, stages):
        out.append((doc.id, [p.text for p in doc.paragraphs], doc.meta.get("marked")))
        if not killed:
            busy = [w for w in ex.pool.workers if w.job is not None]
            if busy:
                killed.append(busy[0].proc.pid)
                os.kill(busy[0].proc.pid, signal.SIGKILL)
    assert killed
    assert out == reference[0]
    assert stages[1].stats.docs_in == stages[1].stats.docs_out == 60 and not stages[1].stats.drops


def test_cli_build_survives_an_outside_kill_of_a_worker(tmp_path):
    """``corpustool build --workers 2``: a worker process is killed mid-build; same corpus as without."""
    src = tmp_path / "in.warc.gz"
    pages = [(f"http://good.example/{i}/{t}", article(t + str(i))) for i in range(8) for t in TOPICS]
    write_warc(src, pages)
    ref = _build(src, tmp_path / "ref.vert", "--workers", "2", env_faults=False)
    assert ref.returncode == 0, ref.stderr
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "corpustool", "build", str(src), "-o", str(tmp_path / "k.vert"), "--lang", "en",
           "--stats", str(tmp_path / "k.json"), "--quiet", "--workers", "2"]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and proc.poll() is None and time.monotonic() < deadline:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        pids = children.read_text().split() if children.exists() else []
        if len(pids) >= 2:
            victim = int(pids[0])
            os.kill(victim, signal.SIGKILL)
        else:
            time.sleep(0.01)
    _, err = proc.communicate(timeout=600)
    if victim is None:
        pytest.skip("the build finished before a worker could be killed")
    assert proc.returncode == 0, err
    assert (tmp_path / "k.vert").read_bytes() == (tmp_path / "ref.vert").read_bytes()
    stats = json.loads((tmp_path / "k.json").read_text())
    assert "crashed" not in json.dumps(stats["stages"])


# -- resumable builds ---------------------------------------------------------------------

def test_resumed_build_goes_past_a_crashing_page(tmp_path, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "1")
    shards = []
    for s in range(3):
        d = tmp_path / f"shard{s}"
        d.mkdir()
        for i, t in enumerate(TOPICS[s * 3:s * 3 + 3]):
            extra = "<!-- corpustool-test:segfault -->" if (s, i) == (1, 1) else ""
            (d / f"page{i}.html").write_bytes(article(t, extra))
        shards.append(str(d))
    rejects = []
    out = tmp_path / "out.vert"
    stats = Pipeline(shards, str(out), PipelineOptions(languages=["en"]),
                     on_drop=lambda d, s: rejects.append((d.source, s, d.drop_reason))).run_resumable()
    assert out.exists() and not os.path.exists(str(out) + ".checkpoint")
    assert rejects == [(os.path.join(shards[1], "page1.html"), "clean", "crashed")]
    clean = {s.name: s for s in stats}["clean"]
    assert clean.docs_in == 9 and clean.drops["crashed"] == 1
    assert out.read_text().count("<doc ") == 8


# -- Spark ------------------------------------------------------------------------------------

def test_spark_build_survives_crashing_and_hanging_pages(tmp_path, monkeypatch):
    from corpustool.executors.spark import SparkExecutor, spark_available

    reason = spark_available()
    if reason:
        pytest.skip(reason)
    monkeypatch.setenv(FAULT_ENV, "1")
    src = tmp_path / "in.warc.gz"
    pages = [(f"http://good.example/{t}", article(t)) for t in TOPICS[:6]]
    pages.insert(2, ("http://crash.example/segfault", article("Segfaults", "<!-- corpustool-test:segfault -->")))
    pages.insert(5, ("http://crash.example/hang", article("Hangs", "<!-- corpustool-test:hang -->")))
    pages.append(("http://crash.example/stale", article("Staleness", "<!-- corpustool-test:crash-unless-fresh -->")))
    write_warc(src, pages)
    results = {}
    for engine in ("local", "spark"):
        rejects = []
        opts = PipelineOptions(languages=["en"], engine=engine, workers=2, doc_timeout=2)
        pipeline = Pipeline([str(src)], str(tmp_path / f"{engine}.vert"), opts,
                            on_drop=lambda d, s, r=rejects: r.append((d.url, s, d.drop_reason)))
        if engine == "spark":
            pipeline.executor = SparkExecutor(workers=2, chunk_size=3, doc_timeout=2)
        stats = pipeline.run()
        results[engine] = ((tmp_path / f"{engine}.vert").read_bytes(), rejects,
                           [s.to_dict() for s in stats])
    assert results["spark"] == results["local"]
    assert ("http://crash.example/segfault", "clean", "crashed") in results["local"][1]
    assert ("http://crash.example/hang", "clean", "timeout") in results["local"][1]
    assert b"Staleness" in results["local"][0]


# -- a stopped worker that is not computing (issue 29, item 2) ----------------------------

class StopOnce(DocumentStage):
    """Stage 1: on the document marked STOP, SIGSTOPs its own worker once (over all processes: a flag
    file) at a moment when the worker is not computing: ``how`` = "idle" (before it takes its next
    batch) or "sending" (in the middle of sending its results)."""

    name = "faulty"
    flag = ""
    how = "idle"

    def process(self, doc):
        time.sleep(0.005)
        if "STOP" in doc.paragraphs[0].text:
            try:
                os.close(os.open(StopOnce.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return doc
            frame = sys._getframe()
            while frame is not None and frame.f_code.co_name != "_worker_main":
                frame = frame.f_back
            conn = frame.f_locals["conn"]
            if StopOnce.how == "idle":
                real_recv = conn.recv

                def recv():
                    conn.recv = real_recv
                    os.kill(os.getpid(), signal.SIGSTOP)
                    return real_recv()

                conn.recv = recv
            else:
                import struct
                from multiprocessing.reduction import ForkingPickler
                real_send = conn.send

                def send(msg):
                    if msg[0] != "done":
                        return real_send(msg)
                    conn.send = real_send
                    data = bytes(ForkingPickler.dumps(msg))
                    half = len(data) // 2
                    os.write(conn.fileno(), struct.pack("!i", len(data)) + data[:half])
                    os.kill(os.getpid(), signal.SIGSTOP)
                    view = memoryview(data)[half:]
                    while view:
                        view = view[os.write(conn.fileno(), view):]

                conn.send = send
        return doc


def _continue_children_later(seconds: float):
    """A watchdog: SIGCONT every child after ``seconds``, so that a build that would wait forever
    ends (late) and the test fails on the time instead of hanging."""
    import threading

    def go():
        me = os.getpid()
        children = Path(f"/proc/{me}/task/{me}/children")
        for pid in (children.read_text().split() if children.exists() else ()):
            try:
                os.kill(int(pid), signal.SIGCONT)
            except OSError:
                pass

    timer = threading.Timer(seconds, go)
    timer.daemon = True
    timer.start()
    return timer


@pytest.mark.parametrize("how", ["idle", "sending"])
def test_a_stopped_worker_that_is_not_computing_is_killed_and_its_documents_retried(tmp_path, capsys, how):
    reference = _run(1, _docs(40))[0]
    StopOnce.flag = str(tmp_path / "stopped")
    StopOnce.how = how
    stages = [Mark(), StopOnce()]
    ex = LocalExecutor(workers=2, batch_size=4, doc_timeout=2)
    timer = _continue_children_later(40)
    started = time.monotonic()
    try:
        out = [(d.id, [p.text for p in d.paragraphs], d.meta.get("marked"))
               for d in ex.run(_docs(40, {5: "STOP"}), stages)]
    finally:
        timer.cancel()
    took = time.monotonic() - started
    assert os.path.exists(StopOnce.flag)             # the worker was stopped
    assert took < 30, f"the build waited {took:.0f} s on a stopped worker"
    assert [o[0] for o in out] == [o[0] for o in reference]
    assert [o[2] for o in out] == [True] * 40
    assert stages[1].stats.docs_in == stages[1].stats.docs_out == 40 and not stages[1].stats.drops
    err = capsys.readouterr().err
    assert "its documents run again" in err and "worker" in err
