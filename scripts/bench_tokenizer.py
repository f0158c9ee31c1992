#!/usr/bin/env python3
"""Benchmark: justext-plus's compiled HTML tokenizer against libxml2's parser, per page.

The fast path builds the walk's tree from libxml2's SAX calls; the tokenizer
(corpustool/_html_tokenizer.pxi) makes the same calls itself and gives the
pages it is not sure of to libxml2. Two measures on the same pages, one core,
CPU time (``time.process_time``), the two sides alternating (which goes
first changes every round) and the best of the rounds kept for each:

* the parse: ``sax_build`` (the bytes parsed into the arena tree and freed),
  the tokenizer on against off (libxml2 with the same callbacks);
* justext-plus from the decoded string, ``extract(Page(html))``, the tokenizer
  on against off, checking that both give the same paragraphs.

It also prints the share of pages the tokenizer built (the others went to
libxml2, by reason). Pages: ../shared/data/snippets/pages, else
data/demo/crawl.warc.gz, else generated pages (seeded), as
scripts/bench_justext.py; ``--quick``: 100 pages.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_justext import add_page_options, page_limit, page_stoplist, pick_pages, pin_one_core  # noqa: E402

from corpustool.encoding import decode  # noqa: E402
from corpustool.extractors import justext_engine  # noqa: E402
from corpustool.extractors.base import Page, get_extractor, html_bytes  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_page_options(ap)
    ap.add_argument("--rounds", type=int, default=5, help="rounds of each measure; the best is kept (default 5)")
    args = ap.parse_args()
    if not (justext_engine.SAX_PARSE and justext_engine.TOKENIZER_AVAILABLE):
        # (make bench runs every script: a build without the tokenizer skips this one, as no data would)
        print(f"skipped: tokenizer not available: {justext_engine.TOKENIZER_ERROR}")
        return 0

    source, raws = pick_pages(args.source, page_limit(args))
    pin_one_core()
    htmls = [decode(raw).text for raw in raws]
    datas = [html_bytes(h) or b"" for h in htmls]
    stoplists = [page_stoplist(h) for h in htmls]
    extractor = get_extractor("justext-plus")
    clock = time.process_time
    set_tokenizer = justext_engine.set_fast_tokenizer

    def parse_all() -> None:
        for data in datas:
            justext_engine.sax_build(data)

    def extract_all() -> list:
        return [extractor.extract(Page(h, stoplist=sl)) for h, sl in zip(htmls, stoplists)]

    # which path each page takes (one untimed pass)
    before = justext_engine.tokenizer_stats()
    set_tokenizer(True)
    parse_all()
    after = justext_engine.tokenizer_stats()
    taken = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}

    best = {("parse", True): float("inf"), ("parse", False): float("inf"),
            ("extract", True): float("inf"), ("extract", False): float("inf")}
    results = {}
    try:
        for r in range(args.rounds):
            for measure, run in (("parse", parse_all), ("extract", extract_all)):
                for on in ((True, False) if r % 2 == 0 else (False, True)):
                    set_tokenizer(on)
                    t0 = clock()
                    out = run()
                    best[measure, on] = min(best[measure, on], clock() - t0)
                    if measure == "extract" and r == 0:
                        results[on] = [[p.to_dict() for p in page] for page in out]
    finally:
        set_tokenizer(True)
    differ = sum(a != b for a, b in zip(results[True], results[False]))

    n = len(datas)

    def ms(seconds: float) -> str:
        return f"{1000 * seconds / n:.3f} ms/page"

    print(f"pages: {n} from {source} ({sum(map(len, datas)) / 1e6:.1f} MB), best of {args.rounds} rounds, "
          "one core, CPU time")
    print(f"parse (sax_build): libxml2 {ms(best['parse', False])}, tokenizer {ms(best['parse', True])}, "
          f"ratio {best['parse', False] / best['parse', True]:.2f}")
    print(f"justext-plus extract: tokenizer off {ms(best['extract', False])}, on {ms(best['extract', True])}, "
          f"ratio {best['extract', False] / best['extract', True]:.2f}")
    on_path = taken.get("tokenizer", 0)
    others = ", ".join(f"{k}: {v}" for k, v in sorted(taken.items()) if k != "tokenizer") or "none"
    print(f"pages the tokenizer built: {on_path}/{n} ({100 * on_path / max(n, 1):.1f}%); given to libxml2: {others}")
    print(f"pages whose paragraphs differ: {differ}")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
