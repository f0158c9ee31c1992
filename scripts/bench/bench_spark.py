"""Driver cost of a Spark build as the input grows (issue 31): driver RSS and CPU, executor CPU,
wall time for 1x, 4x and 16x an input of distinct real-looking pages on local[2].

    PYTHONPATH=. python scripts/bench/bench_spark.py [--base 60] [--scales 1,4,16] [--files 2] [--split-kb 256]

Each scale runs in a fresh process. The pages are made from the demo texts (data/demo/texts):
sentences drawn at random per page, so every page is distinct (no duplicates to remove), written
as WARC files (one gzip member per record) that are read in byte ranges of --split-kb; the build
writes a rejects file (pages in other languages than English are dropped). The
driver's numbers are its Python process (peak RSS, user+system CPU); "executor CPU" is the CPU of
its child processes (the JVM, which hosts the executors in local mode, and the Python workers),
taken after the context stops. The driver's JVM is in that number too (it is the same JVM).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def sentences() -> list[str]:
    out: list[str] = []
    for path in sorted((REPO / "data" / "demo" / "texts").rglob("*")):
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", re.sub(r"<[^>]+>", " ", text))
                    if 40 < len(s.strip()) < 300]
    return out


def make_input(directory: Path, pages: int, files: int, seed: int = 1) -> list[str]:
    """``files`` WARC files (one gzip member per record, as crawlers write them) of ``pages`` pages."""
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    rng = random.Random(seed)
    pool = sentences()
    paths = []
    for f in range(files):
        path = directory / f"pages-{f:03d}.warc.gz"
        with open(path, "wb") as fh:
            writer = WARCWriter(fh, gzip=True)
            for i in range(f, pages, files):
                paras = ["".join(" " + s for s in rng.sample(pool, 4)).strip() for _ in range(5)]
                html = (f"<html><head><title>Page {i}</title></head><body><h1>Page {i}</h1>"
                        + "".join(f"<p>{p}</p>" for p in paras) + "</body></html>").encode()
                http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
                writer.write_record(writer.create_warc_record(
                    f"https://site{i % 50}.example/{i}", "response", payload=io.BytesIO(html), http_headers=http,
                    warc_headers_dict={"WARC-Record-ID": f"<urn:uuid:00000000-0000-0000-0000-{i:012d}>",
                                       "WARC-Date": "2024-03-04T09:00:00Z"}))
        paths.append(str(path))
    return paths


def descendants_cpu(pid: int) -> float:
    """CPU seconds of the live descendants of ``pid`` and of their reaped children (/proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(entry)] = int(fields[1])
            times[int(entry)] = sum(int(x) for x in fields[11:15]) / tick
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        for child, par in parent.items():
            if par == p:
                total += times[child]
                todo.append(child)
    return total


def one(pages: int, files: int, split_kb: int) -> dict:
    from corpustool.cli.common import RejectsWriter
    from corpustool.executors.spark import SparkExecutor
    from corpustool.pipeline import Pipeline, PipelineOptions

    with tempfile.TemporaryDirectory() as tmp:
        inputs = make_input(Path(tmp), pages, files)
        size = sum(os.path.getsize(p) for p in inputs)
        rejects = RejectsWriter(os.path.join(tmp, "rejects.jsonl"))
        pipeline = Pipeline(inputs, os.path.join(tmp, "out.vert.gz"),
                            PipelineOptions(languages=["en"], engine="spark"), on_drop=rejects)
        pipeline.executor = SparkExecutor(workers=2, split_bytes=split_kb * 1024)
        sc, _ = pipeline.executor._context()
        before = resource.getrusage(resource.RUSAGE_SELF)
        rss_before = before.ru_maxrss
        t0 = time.monotonic()
        stats = pipeline.run()
        rejects.close()
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_SELF)
        child_cpu = descendants_cpu(os.getpid())
        sc.stop()
        return {"pages": pages, "input_bytes": size, "docs_out": stats[-1].docs_out,
                "partitions": pipeline.executor.last_build["partitions"], "wall_s": round(wall, 1),
                "driver_cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
                "driver_rss_mb": round(after.ru_maxrss / 1024, 1),
                "driver_rss_growth_mb": round((after.ru_maxrss - rss_before) / 1024, 1),
                "children_cpu_s": round(child_cpu, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=int, default=60, help="pages at 1x (default 60)")
    ap.add_argument("--scales", default="1,4,16")
    ap.add_argument("--files", type=int, default=2, help="input WARC files (default 2)")
    ap.add_argument("--split-kb", type=int, default=256,
                    help="WARC files bigger than this are read in byte ranges of this size (default 256)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.files, args.split_kb)))
        return 0
    rows = []
    for scale in [int(s) for s in args.scales.split(",")]:
        out = subprocess.run([sys.executable, __file__, "--one", str(args.base * scale), "--files", str(args.files),
                              "--split-kb", str(args.split_kb)],
                             capture_output=True, text=True, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        row["scale"] = scale
        rows.append(row)
        print(json.dumps(row), flush=True)
    print("| scale | pages | input KB | partitions | wall s | driver CPU s | driver peak RSS MB | executor (child) CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['scale']}x | {r['pages']} | {r['input_bytes'] // 1024} | {r['partitions']} | {r['wall_s']} | "
              f"{r['driver_cpu_s']} | {r['driver_rss_mb']} | {r['children_cpu_s']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
