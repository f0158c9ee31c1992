#!/usr/bin/env python3
"""Benchmark: our WARC reader's back ends: resync (our checked framing, the default), FastWARC, warcio.

All read the same gzipped WARC in the same run, through corpustool's Reader
(record framing by the back end, HTTP parsing and de-chunking by us), so the
ratio is the speed difference a user sees; times are CPU times. The resync
back end checks every record against its gzip member and resynchronises after
a damaged one (readers/warc_framing.py); the libraries do not. The WARC is built from the pages in
../shared/data/snippets/pages when present, otherwise from the demo crawl's
records repeated; each page is written as a request and a response record.

Prints records/s and MB/s (compressed input) for each back end, best of
--repeat runs, and the ratios of resync and FastWARC to warcio and of resync to FastWARC.

Usage: python scripts/bench/bench_warc.py [--quick] [--pages N] [--repeat R] [--warc FILE]
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

from corpustool.readers import make_reader  # noqa: E402

SNIPPET_PAGES = REPO.parent / "shared" / "data" / "snippets" / "pages"
DEMO = REPO / "data" / "demo" / "crawl.warc.gz"


def page_bodies(limit: int) -> tuple[list[bytes], str]:
    """HTML bodies to archive: the snippet pages, or the demo crawl's pages."""
    if SNIPPET_PAGES.is_dir():
        files = sorted(SNIPPET_PAGES.glob("*.html"))
        if files:
            bodies = [f.read_bytes() for f in files[:limit]]
            return bodies, f"{len(bodies)} pages of ../shared/data/snippets"
    reader = make_reader([str(DEMO)])
    demo = [d.raw for d in reader.read() if d.raw]
    bodies = [demo[i % len(demo)] for i in range(limit)]
    return bodies, f"{len(bodies)} pages (demo crawl pages repeated)"


def build_warc(path: str, bodies: list[bytes]) -> None:
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i, body in enumerate(bodies):
            url = f"http://bench.example/{i}.html"
            req = StatusAndHeaders(f"GET /{i}.html HTTP/1.1", [("Host", "bench.example")], is_http_request=True)
            writer.write_record(writer.create_warc_record(url, "request", payload=io.BytesIO(b""), length=0,
                                                          http_headers=req,
                                                          warc_headers_dict={"WARC-Date": "2024-01-01T00:00:00Z"}))
            resp = StatusAndHeaders("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                                    protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                          length=None, http_headers=resp,
                                                          warc_headers_dict={"WARC-Date": "2024-01-01T00:00:00Z"}))


BACKENDS = ("warcio", "fastwarc", "resync")


def read_all(path: str, backend: str) -> tuple[float, int, int, str]:
    import hashlib
    reader = make_reader([path], backend=backend)
    t0 = time.process_time()
    n_docs = 0
    digest = hashlib.sha256()
    for doc in reader.read():
        n_docs += 1
        digest.update(doc.raw or b"")
    return time.process_time() - t0, reader.stats.extra["records"], n_docs, digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="FastWARC vs warcio through corpustool's reader")
    ap.add_argument("--quick", action="store_true", help="small input, one repetition")
    ap.add_argument("--pages", type=int, default=None, help="pages in the generated WARC (default 900; quick 150)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per back end, best counts (default 3)")
    ap.add_argument("--warc", help="benchmark this WARC file instead of generating one")
    args = ap.parse_args(argv)
    pages = args.pages or (150 if args.quick else 900)
    repeat = args.repeat or (1 if args.quick else 3)

    with tempfile.TemporaryDirectory() as tmp:
        if args.warc:
            path, what = args.warc, args.warc
        else:
            bodies, what = page_bodies(pages)
            path = os.path.join(tmp, "bench.warc.gz")
            build_warc(path, bodies)
        size = os.path.getsize(path)
        print(f"input: {what}; {size / 1e6:.1f} MB gzipped WARC")
        best: dict[str, tuple[float, int, int, str]] = {}
        for _ in range(repeat):
            for backend in BACKENDS:   # alternate, so all see the same cache state
                result = read_all(path, backend)
                if backend not in best or result[0] < best[backend][0]:
                    best[backend] = result
        if len({best[b][1:] for b in BACKENDS}) != 1:
            print("MISMATCH (records, docs, digest of the pages): "
                  + "; ".join(f"{b} {best[b][1:3]}" for b in BACKENDS))
            return 1
        for backend in BACKENDS:
            secs, records, docs, _ = best[backend]
            print(f"{backend:9s} {records / secs:10.0f} records/s {size / 1e6 / secs:8.1f} MB/s "
                  f"({records} records, {docs} documents, {secs:.3f} s)")
        print(f"ratio fastwarc/warcio: {best['warcio'][0] / best['fastwarc'][0]:.2f}x records/s")
        print(f"ratio resync/warcio:   {best['warcio'][0] / best['resync'][0]:.2f}x records/s")
        print(f"ratio resync/fastwarc: {best['fastwarc'][0] / best['resync'][0]:.2f}x records/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
