#!/usr/bin/env python3
"""Throughput and memory of the whole pipeline, beside jusText + langdetect run in sequence.

Input: the pages of ../shared/data/snippets repeated to ``--docs`` documents
and written into a temporary gzipped WARC (copy k of a page gets the URL
``...#copy-k``). Without ../shared the pages of data/demo/crawl.warc.gz are
repeated, and without that a seeded generator writes English pages.

Measured, each in a fresh process so peak memory is that run's own:

* ``corpustool.pipeline.Pipeline`` (read WARC -> clean -> language filter ->
  de-duplication -> tokenize -> vertical file) with 1 and 2 workers;
* with ``--in-process``, the 1-worker pipeline with every stage in the main
  process (no supervised worker, as before issue 19): the cost of supervision;
* the reference point: the same WARC read with warcio and every page run
  through the justext package and langdetect in sequence (langdetect on the
  page text picks justext's stoplist, then langdetect on the kept text, the
  language filter);
* the memory-flat check: peak RSS of the 1-worker pipeline, with and without
  the de-duplication stages, on the first 1/10 of the pages once (1x) and
  ten times over (10x); the same pages in both, so a difference is
  accumulation and not a larger page. The growth from 1/10 of the distinct
  pages to all of them is printed too.

Reported: documents/s, MB of HTML/s, peak RSS (main process; largest worker),
and ratios against the reference measured in the same run. Copies after the
first of a page are exact duplicates, so the de-duplication stages drop them
cheaply; the clean stage, which dominates, processes every copy.

The issue's figure needs ``--docs 50000``; the default (1,000) finishes in a
few minutes on two cores, ``--quick`` (200) in about one.

    scripts/bench/bench_pipeline.py [--docs N | --quick] [--workers 1,2] [--in-process] [--no-reference] [--no-memory]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SNIPPETS = REPO.parent / "shared" / "data" / "snippets"
DEMO_WARC = REPO / "data" / "demo" / "crawl.warc.gz"


# -- input ---------------------------------------------------------------------

def snippet_pages() -> list[tuple[str, bytes]]:
    urls = {}
    gold = SNIPPETS / "evaldata.json"
    if gold.is_file():
        with open(gold, encoding="utf-8") as fh:
            urls = {e["file"]: url for url, e in json.load(fh).items()}
    pages = []
    for path in sorted((SNIPPETS / "pages").glob("*.html")):
        url = urls.get(path.name) or f"https://snippets.invalid/{path.name}"
        pages.append((url, path.read_bytes()))
    return pages


def warc_pages(path: Path) -> list[tuple[str, bytes]]:
    from corpustool.readers import html_pages

    return html_pages(str(path))


def generated_pages(n: int = 200, seed: int = 1) -> list[tuple[str, bytes]]:
    """English-like pages from stop words and a seeded vocabulary (last resort without any data)."""
    import justext

    rng = random.Random(seed)
    stop = sorted(justext.get_stoplist("English"))
    vocab = [f"{rng.choice('bcdfglmnprst')}{rng.choice('aeiou')}{rng.choice('bcdfglmnprst')}"
             f"{rng.choice('aeiou')}{rng.choice(['', 'n', 's', 'r', 'tion'])}" for _ in range(3000)]
    pages = []
    for i in range(n):
        paras = []
        for _ in range(rng.randint(3, 12)):
            words = [rng.choice(stop) if rng.random() < 0.45 else rng.choice(vocab)
                     for _ in range(rng.randint(30, 120))]
            paras.append("<p>" + " ".join(words).capitalize() + ".</p>")
        nav = "".join(f"<li><a href='/s{j}'>{rng.choice(vocab).title()}</a></li>" for j in range(12))
        html = (f"<html><head><title>Page {i}</title></head><body><ul>{nav}</ul><h1>Page {i}</h1>"
                + "\n".join(paras) + "<div>Copyright | Privacy | Contact</div></body></html>")
        pages.append((f"https://generated.invalid/{i}", html.encode("utf-8")))
    return pages


def source_pages() -> tuple[str, list[tuple[str, bytes]]]:
    if (SNIPPETS / "pages").is_dir():
        pages = snippet_pages()
        if pages:
            return f"{SNIPPETS / 'pages'} ({len(pages)} pages)", pages
    if DEMO_WARC.is_file():
        pages = warc_pages(DEMO_WARC)
        if pages:
            return f"{DEMO_WARC} ({len(pages)} pages)", pages
    pages = generated_pages()
    return f"generated English pages ({len(pages)}, seed 1)", pages


def write_warc(path: Path, pages: list[tuple[str, bytes]], n: int) -> int:
    """``n`` response records cycling through ``pages``; returns the bytes of HTML written."""
    from io import BytesIO

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    total = 0
    with open(path, "wb") as fh:
        # one gzip member per record, as in crawls; level 1 because warcio's level 9 makes
        # writing a 50,000-page input take longer than processing it
        buf = BytesIO()
        writer = WARCWriter(buf, gzip=False)
        for k in range(n):
            url, body = pages[k % len(pages)]
            copy = k // len(pages)
            if copy:
                url = f"{url}#copy-{copy}"
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"),
                                               ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            rec = writer.create_warc_record(url, "response", payload=BytesIO(body), http_headers=http,
                                            warc_headers_dict={"WARC-Date": "2024-01-01T00:00:00Z"})
            writer.write_record(rec)
            fh.write(gzip.compress(buf.getvalue(), compresslevel=1, mtime=0))
            buf.seek(0)
            buf.truncate()
            total += len(body)
    return total


# -- measured runs (each in its own process) -----------------------------------

def _peak_rss_mb() -> tuple[float, float]:
    """Peak RSS of this process and of its largest finished child, in MB.

    getrusage's ru_maxrss survives execve, so a measured process would inherit
    the peak of the benchmark's parent (which holds all pages); /proc's VmHWM
    belongs to the current address space and starts afresh at exec.
    """
    scale = 1024.0 if sys.platform != "darwin" else 1024.0 * 1024.0
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    own = int(line.split()[1]) / 1024.0
                    break
    except OSError:
        pass
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / scale
    return own, child


def _cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (the workers)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        ru = resource.getrusage(who)
        total += ru.ru_utime + ru.ru_stime
    return total


def child_pipeline(warc: str, workers: int, out: str, dedup: bool = True) -> dict:
    from corpustool.pipeline import Pipeline, PipelineOptions

    t0, c0 = time.perf_counter(), _cpu_seconds()
    options = PipelineOptions(workers=max(1, workers))
    if not dedup:
        options.dedup_exact = options.dedup_near = options.dedup_para = False
    pipeline = Pipeline([warc], out, options)
    if workers == 0:        # every stage in this process, unsupervised: how one worker ran before issue 19
        from corpustool.executors.local import LocalExecutor
        pipeline.executor = LocalExecutor(workers=1, supervised=False)
    stats = pipeline.run()
    elapsed, cpu = time.perf_counter() - t0, _cpu_seconds() - c0
    by_name = {s.name: s for s in stats}
    read = by_name.get("read") or stats[0]
    own, child = _peak_rss_mb()
    return {"elapsed": elapsed, "cpu": cpu, "docs": read.docs_in, "html_bytes": by_name["clean"].bytes_in,
            "kept_docs": stats[-1].docs_out, "kept_words": stats[-1].words_out,
            "stages": [s.name for s in stats[1:]], "rss_main": own, "rss_worker": child}


# the page's text without scripts and styles (their code would make langdetect say English)
_VISIBLE_TEXT = "//body//text()[not(ancestor::script) and not(ancestor::style) and not(ancestor::noscript)]"


def child_reference(warc: str) -> dict:
    import justext
    import langdetect
    import lxml.html
    from langdetect import DetectorFactory
    from langdetect.lang_detect_exception import LangDetectException
    from warcio.archiveiterator import ArchiveIterator

    from corpustool.language.stoplists import ISO_TO_JUSTEXT

    DetectorFactory.seed = 0           # langdetect is randomised; seed it for repeatable results
    stoplists: dict[str, frozenset] = {}

    def detect(text: str) -> str | None:
        try:
            return langdetect.detect(text) if text.strip() else None
        except LangDetectException:
            return None

    t0, c0 = time.perf_counter(), _cpu_seconds()
    docs = html_bytes = kept_docs = kept_words = 0
    with open(warc, "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type != "response":
                continue
            raw = rec.content_stream().read()
            docs += 1
            html_bytes += len(raw)
            try:
                tree = lxml.html.document_fromstring(raw)
            except Exception:
                continue
            page_text = " ".join(tree.xpath(_VISIBLE_TEXT))
            lang = detect(page_text)
            name = ISO_TO_JUSTEXT.get((lang or "en").split("-")[0], "English")
            if name not in stoplists:
                stoplists[name] = justext.get_stoplist(name)
            try:
                paragraphs = justext.justext(raw, stoplists[name])
            except Exception:
                continue
            text = "\n".join(p.text for p in paragraphs if not p.is_boilerplate)
            if text and detect(text) is not None:
                kept_docs += 1
                kept_words += len(text.split())
    elapsed, cpu = time.perf_counter() - t0, _cpu_seconds() - c0
    own, child = _peak_rss_mb()
    return {"elapsed": elapsed, "cpu": cpu, "docs": docs, "html_bytes": html_bytes, "kept_docs": kept_docs,
            "kept_words": kept_words, "rss_main": own, "rss_worker": child}


def run_child(*args: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", *args]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr[-4000:])
        raise SystemExit(f"bench_pipeline: measured run failed: {' '.join(args)}")
    return json.loads(res.stdout.strip().splitlines()[-1])


# -- report ----------------------------------------------------------------------

def _row(label: str, r: dict, ref: dict | None) -> str:
    dps = r["docs"] / r["elapsed"]
    mbps = r["html_bytes"] / 1e6 / r["elapsed"]
    ratio = f"{dps / (ref['docs'] / ref['elapsed']):.2f}x" if ref else "-"
    cpu_ms = 1000.0 * r["cpu"] / r["docs"]
    cpu_ratio = f"{(ref['cpu'] / ref['docs']) / (r['cpu'] / r['docs']):.2f}x" if ref else "-"
    worker = f"{r['rss_worker']:.0f}" if r.get("rss_worker") else "-"
    return (f"{label:<24} {r['docs']:>7,} {r['elapsed']:>8.1f} {dps:>7.1f} {mbps:>6.2f} {ratio:>7} "
            f"{cpu_ms:>10.1f} {cpu_ratio:>7} {r['rss_main']:>7.0f} {worker:>7} {r['kept_docs']:>7,}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=1000, help="documents in the input (default 1000; the issue "
                                                         "asks for 50000)")
    ap.add_argument("--quick", action="store_true", help="200 documents")
    ap.add_argument("--workers", default="1,2", help="worker counts to measure (default 1,2)")
    ap.add_argument("--in-process", action="store_true",
                    help="also measure one process without supervised workers (how --workers 1 ran before "
                         "issue 19), for the cost of supervision")
    ap.add_argument("--no-reference", action="store_true", help="skip the justext + langdetect reference")
    ap.add_argument("--no-memory", action="store_true", help="skip the 1x/10x memory check")
    ap.add_argument("--keep", metavar="DIR", help="write the WARCs and outputs into DIR and keep them")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        kind, *rest = args.child
        if kind == "pipeline":
            result = child_pipeline(rest[0], int(rest[1]), rest[2], dedup=rest[3:] != ["nodedup"])
        else:
            result = child_reference(rest[0])
        print(json.dumps(result))
        return 0

    n = 200 if args.quick else args.docs
    if n < 10:
        ap.error("--docs must be at least 10")
    try:
        workers = [int(w) for w in args.workers.split(",") if w.strip()]
    except ValueError:
        ap.error("--workers takes comma-separated integers")
    if not workers or min(workers) < 1:
        ap.error("--workers must be positive")

    label, pages = source_pages()
    print(f"input: {label}, repeated to {n:,} documents"
          + ("" if n >= 50_000 else "  (the issue's figure needs --docs 50000)"))
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")

    tmp_ctx = tempfile.TemporaryDirectory(prefix="bench_pipeline_") if not args.keep else None
    work = Path(args.keep or tmp_ctx.name)  # type: ignore[union-attr]
    work.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        warc = work / f"input-{n}.warc.gz"
        html_bytes = write_warc(warc, pages, n)
        # memory check inputs: the first n/10 pages once (1x) and ten times over (10x), so both
        # runs see the same pages and a difference in peak memory is accumulation, not a bigger page
        small_n = max(1, n // 10)
        small = work / f"input-{small_n}.warc.gz"
        tenfold = work / f"input-{small_n}x10.warc.gz"
        if not args.no_memory:
            write_warc(small, pages[:small_n], small_n)
            write_warc(tenfold, pages[:small_n], 10 * small_n)
        print(f"wrote {warc.name}: {html_bytes / 1e6:,.1f} MB of HTML, {warc.stat().st_size / 1e6:,.1f} MB "
              f"gzipped ({time.perf_counter() - t0:.1f} s)")

        results: dict[str, dict] = {}
        for w in workers:
            print(f"... pipeline, {w} worker(s)", file=sys.stderr, flush=True)
            results[f"pipeline, {w} worker{'s' if w > 1 else ''}"] = run_child(
                "pipeline", str(warc), str(w), str(work / f"out-{w}.vert"))
        if args.in_process:
            print("... pipeline, in-process", file=sys.stderr, flush=True)
            results["pipeline, in-process"] = run_child("pipeline", str(warc), "0", str(work / "out-0.vert"))
        ref = None
        if not args.no_reference:
            print("... justext + langdetect", file=sys.stderr, flush=True)
            ref = run_child("reference", str(warc))
        stages = next(iter(results.values()))["stages"]
        print(f"pipeline stages: {' -> '.join(stages)}")
        print()
        print("docs/s and MB/s are wall-clock; CPU ms/doc counts the process and its workers (steadier when "
              "other jobs share the CPUs); 'vs ref' = reference time / pipeline time; RSS = peak MB of the main "
              "process and of the largest worker")
        print(f"{'run':<24} {'docs':>7} {'seconds':>8} {'docs/s':>7} {'MB/s':>6} {'vs ref':>7} "
              f"{'CPU ms/doc':>10} {'vs ref':>7} {'RSS':>7} {'worker':>7} {'kept':>7}")
        for name, r in results.items():
            print(_row(name, r, ref))
        if ref is not None:
            print(_row("justext + langdetect", ref, ref))
        w1 = results.get("pipeline, 1 worker")
        wmax = max(workers)
        if w1 and wmax > 1:
            r = results[f"pipeline, {wmax} workers"]
            print(f"\nspeed-up with {wmax} workers: {w1['elapsed'] / r['elapsed']:.2f}x")
        inproc = results.get("pipeline, in-process")
        if w1 and inproc:
            print(f"supervised worker vs in-process: CPU per document {w1['cpu'] / inproc['cpu']:.3f}x, "
                  f"wall-clock {w1['elapsed'] / inproc['elapsed']:.3f}x")

        if not args.no_memory:
            rss: dict[tuple[str, str], float] = {}
            for size, path in (("1x", small), ("10x", tenfold)):
                for mode in ("dedup", "nodedup"):
                    print(f"... memory check: {size}, {mode}", file=sys.stderr, flush=True)
                    rss[size, mode] = run_child("pipeline", str(path), "1", str(work / f"out-{size}-{mode}.vert"),
                                                mode)["rss_main"]
            print(f"\nmemory-flat check (1 worker, peak RSS): the first {small_n:,} pages once (1x) and ten "
                  f"times over (10x, {10 * small_n:,} documents)")
            for mode, label in (("dedup", "whole pipeline"), ("nodedup", "without de-duplication")):
                print(f"  {label + ':':<26}{rss['1x', mode]:6.0f} MB -> {rss['10x', mode]:6.0f} MB, "
                      f"ratio {rss['10x', mode] / rss['1x', mode]:.2f}")
            if w1 is not None:
                print(f"  distinct pages, whole pipeline ({small_n:,} -> {n:,} documents): {rss['1x', 'dedup']:.0f} MB "
                      f"-> {w1['rss_main']:.0f} MB, ratio {w1['rss_main'] / rss['1x', 'dedup']:.2f}")
                print("  (with distinct pages the peak also follows the largest page met and the state the "
                      "de-duplication stages keep per distinct document and n-gram by design, seed 003 Ch. 3)")
    finally:
        if tmp_ctx is not None:
            tmp_ctx.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
