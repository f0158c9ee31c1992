"""Publication dates, authors and site names: ours (text_types.page_metadata) against htmldate.

On the WCXB development pages (``../shared/data/wcxb-dev``), whose gold gives ``publish_date``
(782 of 1,497 pages) and ``author``: in the same run, on the same decoded pages, with the same
crawl date as the upper bound (the gold's ``downloaded_at`` where it has one; else none),

* ours: :func:`corpustool.text_types.page_metadata` (JSON-LD, ``<meta>``, ``<time>``, URL);
* htmldate (``find_date``, ``original_date=True``: the publication, not the last change;
  ``extensive_search`` on and off).

Per page with a gold date: exact day right, wrong, or none given; per page without one: a date
given (a false date). CPU time per page of each, the pages' parse included for htmldate (it
parses them itself). Results as a Markdown table on stdout (docs/text_types.md).

    python scripts/bench/bench_dates.py [--data ../shared/data/wcxb-dev] [--limit N]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from corpustool.text_types import page_metadata  # noqa: E402

DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "wcxb-dev")


def load(data: str, limit: int | None):
    gold_dir = os.path.join(data, "ground-truth")
    for name in sorted(os.listdir(gold_dir))[:limit]:
        with open(os.path.join(gold_dir, name), encoding="utf-8") as fh:
            g = json.load(fh)
        page = os.path.join(data, "html", name.replace(".json", ".html.gz"))
        if not os.path.exists(page):
            continue
        with gzip.open(page, "rb") as fh:
            html = fh.read().decode("utf-8", "replace")
        gt = g.get("ground_truth") or {}
        crawl = g.get("_internal", {}).get("downloaded_at") or g.get("downloaded_at")
        ptype = ((g.get("_internal") or {}).get("page_type") or {}).get("primary", "unknown")
        yield {"id": name[:-5], "url": g.get("url"), "html": html, "date": gt.get("publish_date") or None,
               "author": gt.get("author") or None, "crawl": crawl, "type": ptype}


def score(rows, key):
    c = Counter()
    for r in rows:
        got = r[key]
        if r["date"]:
            c["gold"] += 1
            c["right" if got == r["date"][:10] else ("none" if not got else "wrong")] += 1
        else:
            c["no-gold"] += 1
            if got:
                c["false"] += 1
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=DEFAULT)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.data, "ground-truth")):
        print(f"skipped: no WCXB development pages in {args.data} (ground-truth/, html/)")
        return
    from datetime import datetime

    import htmldate
    pages = list(load(args.data, args.limit))
    cpu = Counter()
    sources = Counter()
    authors = Counter()
    for p in pages:
        t = time.process_time()
        meta = page_metadata(p["html"], p["url"], p["crawl"])
        cpu["ours"] += time.process_time() - t
        p["ours"] = meta.get("date")
        sources[meta.get("date_source", "none")] += 1
        if p["author"]:
            got = meta.get("author")
            authors["gold"] += 1
            authors["right" if got and got.casefold() == p["author"].casefold() else ("none" if not got else "wrong")] += 1
        for extensive in (True, False):
            key = f"htmldate{'' if extensive else '-fast'}"
            max_date = p["crawl"][:10] if p["crawl"] else None
            t = time.process_time()
            try:
                got = htmldate.find_date(p["html"], url=p["url"], original_date=True,
                                         extensive_search=extensive, max_date=max_date,
                                         outputformat="%Y-%m-%d")
            except Exception:
                got = None
            cpu[key] += time.process_time() - t
            p[key] = got
    n = len(pages)
    print(f"{n} pages, {sum(1 for p in pages if p['date'])} with a gold publish_date "
          f"({datetime.now().date()}, htmldate {htmldate.__version__})\n")
    print("| method | right | wrong | none | accuracy (gold dates) | false dates (pages without) | CPU ms/page |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key, label in (("ours", "ours (`page_metadata`)"), ("htmldate", "htmldate, extensive search"),
                       ("htmldate-fast", "htmldate, `extensive_search=False`")):
        c = score(pages, key)
        print(f"| {label} | {c['right']} | {c['wrong']} | {c['none']} | {c['right'] / c['gold']:.3f} | "
              f"{c['false']} of {c['no-gold']} | {1000 * cpu[key] / n:.2f} |")
    print(f"\nour date sources: {dict(sorted(sources.items()))}")
    by_type = Counter()
    for p in pages:
        if p["date"]:
            by_type[p["type"], "gold"] += 1
            by_type[p["type"], "ours"] += p["ours"] == p["date"][:10]
            by_type[p["type"], "htmldate"] += p["htmldate"] == p["date"][:10]
    print("\nper page type, pages with a gold date: ours / htmldate right")
    for t in sorted({k[0] for k in by_type}):
        print(f"  {t}: {by_type[t, 'ours']} / {by_type[t, 'htmldate']} of {by_type[t, 'gold']}")
    if authors["gold"]:
        print(f"\nauthors (gold given on {authors['gold']} pages): ours right {authors['right']}, "
              f"wrong {authors['wrong']}, none {authors['none']} (exact match, case-insensitive)")


if __name__ == "__main__":
    main()
