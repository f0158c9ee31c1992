#!/usr/bin/env python3
"""Every registered extractor on the snippet pages: with/without hit rates and pages per second.

Each page goes through the clean stage (decode, stoplist choice, extractor)
exactly as in a run, and for a site-level method (urltree, archive, temex,
site-conex, hybex) the pages then go through its stream stage in URL order, as
a build runs them. ``corpustool eval`` scores more (word precision and recall,
per page type, cross-validated); this is the quick table of every method.

Score (../shared/data/snippets/README.md): after lower-casing and collapsing
every run of non-word characters to one space on both sides, ``with`` is the
share of `with` snippets found in the kept text, ``without`` the share of
`without` snippets absent from it. A page the stage drops keeps no text.

Without ../shared the script falls back to the pages of
data/demo/crawl.warc.gz (speed and kept words only, no gold) or exits 0.

    scripts/bench/bench_extractors.py [--quick] [--limit N] [--extractors a,b] [--snippets DIR]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from corpustool.document import Document  # noqa: E402
from corpustool.eval.snippets import match_snippets  # noqa: E402
from corpustool.extractors.clean import Clean  # noqa: E402
from corpustool.extractors.registry import available  # noqa: E402

SNIPPETS = REPO.parent / "shared" / "data" / "snippets"
DEMO_WARC = REPO / "data" / "demo" / "crawl.warc.gz"


def load_snippet_pages(root: Path, limit: int | None) -> list[tuple[str, bytes, dict]]:
    with open(root / "evaldata.json", encoding="utf-8") as fh:
        gold = json.load(fh)
    pages = []
    for url in sorted(gold):
        entry = gold[url]
        path = root / "pages" / entry["file"]
        if path.is_file():
            pages.append((url, path.read_bytes(), entry))
    return pages[:limit] if limit else pages


def load_warc_pages(path: Path, limit: int | None) -> list[tuple[str, bytes, dict]]:
    from corpustool.readers import html_pages

    return [(url, raw, {}) for url, raw in html_pages(str(path), limit)]


def bench(name: str, pages: list[tuple[str, bytes, dict]]) -> dict:
    stage = Clean(extractor=name)
    elapsed = 0.0
    docs = []
    for k, (url, raw, entry) in enumerate(pages):
        doc = Document(id=str(k), url=url, raw=raw)
        t0 = time.perf_counter()
        try:
            stage.process(doc)
        except Exception as exc:  # counted like the stage counts it: the page keeps nothing
            doc.drop_reason = f"error:{type(exc).__name__}"
            print(f"  {name}: {url}: {type(exc).__name__}: {exc}", file=sys.stderr)
        elapsed += time.perf_counter() - t0
        docs.append(doc)
    # a site-level method (urltree, archive, temex, site-conex, hybex) keeps every block in the clean
    # stage and decides in its stream stage over the pages in order, as a build runs it
    stream_stage = getattr(stage.extractor, "stream_stage", None)
    if stream_stage is not None:
        t0 = time.perf_counter()
        stream = stream_stage(stage.extractor.params, reason="boilerplate")
        for _ in stream.run(iter(docs)):
            pass
        stream.close()
        elapsed += time.perf_counter() - t0
    found = with_total = absent = without_total = kept_words = 0
    for doc, (_url, _raw, entry) in zip(docs, pages):
        text = "" if doc.drop_reason else doc.clean_text()
        kept_words += len(text.split())
        hits = match_snippets(text, entry.get("with", []), entry.get("without", []))
        with_total += len(hits.found_with)
        found += sum(hits.found_with)
        without_total += len(hits.found_without)
        absent += len(hits.found_without) - sum(hits.found_without)
    return {
        "extractor": name,
        "pages": len(pages),
        "with": found / with_total if with_total else None,
        "without": absent / without_total if without_total else None,
        "kept_words": kept_words,
        "seconds": elapsed,
        "pages_per_s": len(pages) / elapsed if elapsed else float("inf"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--snippets", type=Path, default=SNIPPETS, help="snippet data directory")
    ap.add_argument("--limit", type=int, default=None, help="use the first N pages (sorted by URL)")
    ap.add_argument("--quick", action="store_true", help="first 100 pages only")
    ap.add_argument("--extractors", default=None, help="comma-separated names (default: all registered)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON lines too")
    args = ap.parse_args(argv)
    limit = 100 if args.quick and not args.limit else args.limit
    if limit is not None and limit <= 0:
        ap.error("--limit must be positive")
    names = available() if not args.extractors else [n.strip() for n in args.extractors.split(",") if n.strip()]
    unknown = sorted(set(names) - set(available()))
    if unknown:
        ap.error(f"unknown extractor(s): {', '.join(unknown)}; registered: {', '.join(available())}")

    if (args.snippets / "evaldata.json").is_file():
        pages = load_snippet_pages(args.snippets, limit)
        source = f"{args.snippets} ({len(pages)} pages with gold)"
    elif DEMO_WARC.is_file():
        pages = load_warc_pages(DEMO_WARC, limit)
        source = f"{DEMO_WARC} ({len(pages)} HTML pages, no gold: speed and kept words only)"
    else:
        print(f"bench_extractors: neither {args.snippets} nor {DEMO_WARC} is present; nothing to measure")
        return 0
    if not pages:
        print("bench_extractors: no pages found; nothing to measure")
        return 0

    print(f"# extractors on {source}")
    rows = []
    for name in names:
        rows.append(bench(name, pages))
        print(f"  done {name}", file=sys.stderr)
    fmt = "| {:<16} | {:>5} | {:>6} | {:>7} | {:>10} | {:>7} | {:>8} |"
    print(fmt.format("extractor", "pages", "with", "without", "kept words", "seconds", "pages/s"))
    print(fmt.format("-" * 16, "-" * 5, "-" * 6, "-" * 7, "-" * 10, "-" * 7, "-" * 8).replace(" ", "-"))
    for r in rows:
        print(fmt.format(r["extractor"], r["pages"],
                         "-" if r["with"] is None else f"{r['with']:.3f}",
                         "-" if r["without"] is None else f"{r['without']:.3f}",
                         r["kept_words"], f"{r['seconds']:.1f}", f"{r['pages_per_s']:.1f}"))
    if args.json:
        for r in rows:
            print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
