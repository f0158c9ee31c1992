#!/usr/bin/env python3
"""The default extractor (justext-plus) beside jusText, the justext package and trafilatura.

Prints, on the snippet pages (../shared/data/snippets): `with` / `without`
snippet rates per language (the stoplist language chosen per page) and
overall, on the tuning half (odd positions by sorted file name), the held-out
half (even positions) and all pages; fragmentation (seed 003, Table 2.11:
fragments per document, average and median fragment length); pages per
second of each extractor and the ratio to the justext package, all measured
in this run on the same pages. Registry extractors run in the clean stage
(decode, stoplist choice, extraction) as in a build; trafilatura (when
installed) gets the decoded markup.

Without ../shared the demo crawl's pages are used (speed only).

    scripts/bench/bench_best_extractor.py [--quick] [--limit N] [--snippets DIR]
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from corpustool.document import Document  # noqa: E402
from corpustool.eval.fragments import fragment_lengths, fragmentation  # noqa: E402
from corpustool.eval.snippets import match_snippets  # noqa: E402
from corpustool.extractors.clean import DEFAULT_EXTRACTOR, Clean  # noqa: E402

SNIPPETS = REPO.parent / "shared" / "data" / "snippets"
DEMO_WARC = REPO / "data" / "demo" / "crawl.warc.gz"
REGISTRY = [DEFAULT_EXTRACTOR, "justext", "justext-package"]


def load_pages(root: Path | None, limit: int | None) -> list[tuple[str, str, bytes, list[str], list[str]]]:
    """(file name, url, raw bytes, with, without), sorted by file name."""
    if root is not None and (root / "evaldata.json").is_file():
        from corpustool.eval.gold import read_gold

        pages = sorted(read_gold(f"snippets:{root}"), key=lambda p: p.id)
        out = [(p.id, p.url, p.load()[0], p.with_snippets or [], p.without_snippets or []) for p in pages]
    else:
        from corpustool.readers import html_pages

        out = [(str(i), url, raw, [], []) for i, (url, raw) in enumerate(html_pages(str(DEMO_WARC), limit))]
    return out[:limit] if limit else out


def run_registry(name: str, pages) -> dict:
    stage = Clean(extractor=name, languages=["auto"])
    res = {"seconds": 0.0, "pages": []}
    for _, url, raw, w, wo in pages:
        doc = Document(id=url, url=url, raw=raw)
        t = time.perf_counter()
        try:
            stage.process(doc)
        except Exception as exc:  # a page's failure is its score
            doc.drop_reason = f"error:{type(exc).__name__}"
        res["seconds"] += time.perf_counter() - t
        text = "" if doc.drop_reason else doc.clean_text()
        blocks = [] if doc.drop_reason else [(p.text, p.is_good) for p in doc.paragraphs]
        res["pages"].append((text, blocks, doc.stoplist_lang or "-"))
    return res


def run_trafilatura(pages, langs: list[str]) -> dict | None:
    try:
        import trafilatura
    except ImportError:
        return None
    from corpustool import encoding

    res = {"seconds": 0.0, "pages": []}
    for (_, url, raw, w, wo), lang in zip(pages, langs):
        html = encoding.decode(raw, None).text
        t = time.perf_counter()
        try:
            text = trafilatura.extract(html, url=url) or ""
        except Exception:
            text = ""
        res["seconds"] += time.perf_counter() - t
        res["pages"].append((text, None, lang))
    return res


def run_alone(names: list[str], pages, langs: list[str], repeat: int = 1) -> dict[str, float]:
    """Seconds of each extractor's extract() alone on pre-parsed trees and chosen stoplists.

    Decoding, parsing and the stoplist choice are done once, outside the
    clock, so the ratio between justext-plus and justext is the cost of
    justext-plus's own evidence pass. The extractors take turns on each page
    (the machine's load falls on both alike).
    """
    from corpustool import encoding
    from corpustool.extractors.base import Page, parse_html
    from corpustool.extractors.registry import get_extractor
    from corpustool.language.stoplists import stoplist

    extractors = {n: get_extractor(n) for n in names}
    seconds = dict.fromkeys(names, 0.0)
    for (_, url, raw, _, _), lang in zip(pages, langs):
        if lang in (None, "-"):
            continue
        html = encoding.decode(raw, None).text
        tree = parse_html(html)
        if tree is None:
            continue
        stop = stoplist(lang)
        for _ in range(repeat):
            for n, ex in extractors.items():
                page = Page(html, url=url, language=lang, stoplist=stop, tree=tree)
                t = time.perf_counter()
                ex.extract(page)
                seconds[n] += time.perf_counter() - t
    return seconds


def rates(pages, results, which) -> tuple[float, float, int]:
    fw = [0, 0]
    fo = [0, 0]
    n = 0
    for i, ((_, _, _, w, wo), (text, _, _)) in enumerate(zip(pages, results)):
        if not which(i):
            continue
        n += 1
        r = match_snippets(text, w, wo)
        fw[0] += sum(r.found_with)
        fw[1] += len(r.found_with)
        fo[0] += len(r.found_without) - sum(r.found_without)
        fo[1] += len(r.found_without)
    nan = float("nan")
    return (fw[0] / fw[1] if fw[1] else nan, fo[0] / fo[1] if fo[1] else nan, n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snippets", type=Path, default=SNIPPETS)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--quick", action="store_true", help="only the first 150 pages")
    args = ap.parse_args()
    limit = args.limit or (150 if args.quick else None)
    pages = load_pages(args.snippets, limit)
    gold = any(p[3] or p[4] for p in pages)
    print(f"{len(pages)} pages ({'snippets ' + str(args.snippets) if gold else 'demo crawl, speed only'})")

    results = {name: run_registry(name, pages) for name in REGISTRY}
    langs = [r[2] for r in results["justext"]["pages"]]
    traf = run_trafilatura(pages, langs)
    if traf is not None:
        results["trafilatura"] = traf

    base = len(pages) / results["justext-package"]["seconds"]
    print(f"\n{'extractor':18} {'pages/s':>8} {'x package':>9}", end="")
    if gold:
        print(f" {'tune with/without':>18} {'held-out with/without':>22} {'all with/without':>17}"
              f" {'frag/doc':>8} {'avg frag':>8} {'med frag':>8}")
    else:
        print()
    for name, res in results.items():
        pps = len(pages) / res["seconds"] if res["seconds"] else float("inf")
        line = f"{name:18} {pps:8.1f} {pps / base:9.2f}"
        if gold:
            tune = rates(pages, res["pages"], lambda i: i % 2 == 0)
            held = rates(pages, res["pages"], lambda i: i % 2 == 1)
            every = rates(pages, res["pages"], lambda i: True)
            line += (f" {tune[0]:8.3f} /{tune[1]:7.3f} {held[0]:11.3f} /{held[1]:8.3f} {every[0]:7.3f} /{every[1]:7.3f}")
            if res["pages"][0][1] is not None:
                f = fragmentation([fragment_lengths(b) for _, b, _ in res["pages"]])
                line += f" {f.per_document:8.2f} {f.avg_length:8.1f} {f.median_length:8.1f}"
            else:
                line += f" {'-':>8} {'-':>8} {'-':>8}"
        print(line)
    alone = run_alone([DEFAULT_EXTRACTOR, "justext"], pages, langs)
    n_parsed = sum(1 for lang in langs if lang != "-")
    print(f"\nextractor alone on pre-parsed trees ({n_parsed} pages with a stoplist):")
    for name, sec in alone.items():
        print(f"  {name:16} {n_parsed / sec if sec else float('inf'):8.1f} pages/s")
    if alone["justext"]:
        print(f"  evidence pass costs {alone[DEFAULT_EXTRACTOR] / alone['justext'] - 1:.2f}x the engine's own time")
    if gold:
        print("\nper language (stoplist chosen for the page by the clean stage), with / without:")
        by_lang = defaultdict(list)
        for i, lang in enumerate(langs):
            by_lang[lang].append(i)
        names = list(results)
        print(f"{'lang':6} {'pages':>5} " + " ".join(f"{n:>17}" for n in names))
        for lang, idx in sorted(by_lang.items(), key=lambda kv: -len(kv[1])):
            wanted = set(idx)
            cells = []
            for n in names:
                w, wo, _ = rates(pages, results[n]["pages"], lambda i: i in wanted)
                cells.append(f"{w:7.3f} /{wo:7.3f}")
            print(f"{lang:6} {len(idx):5} " + " ".join(f"{c:>17}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
