#!/usr/bin/env python3
"""Benchmark: justext-plus's fast path (SAX parse into an arena) against lxml's tree, per page.

Two measures on the same pages, one core, CPU time (``time.process_time``),
the two sides taking turns at going first:

* the parse alone, from the decoded string: ``parse_html`` (libxml2 builds
  lxml's tree; the tree is freed inside the timing, as every page's tree is)
  against ``html_bytes`` + ``sax_build`` (the same libxml2, the same bytes and
  options, SAX callbacks building the walk's tree in an arena, freed at once);
* justext-plus from the decoded string: ``extract(Page(html))`` with the fast
  path (the default) against the same with the fast path off (``parse_html``
  and the compiled walk on lxml's tree), checking that both give the same
  paragraphs;
* the clean stage guessing the language (``Clean(languages=["auto"]).process``
  from the raw bytes: decoding, parse, the page's text for the guess, the
  guess, extraction): one SAX parse kept for the guess and the walk
  (``sax_page``) against lxml's tree for both, checking that both give the same
  documents (drop reason, language, title, paragraphs).

Pages: ../shared/data/snippets/pages, else data/demo/crawl.warc.gz, else
generated pages (seeded), as scripts/bench_justext.py.
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
from corpustool.extractors.base import Page, html_bytes, parse_html  # noqa: E402
from corpustool.extractors.registry import get_extractor  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_page_options(ap)
    ap.add_argument("--rounds", type=int, default=1, help="passes over the pages (default 1)")
    args = ap.parse_args()
    limit = page_limit(args)
    if not justext_engine.WALK.has_parse:
        print(f"fast path not available: {justext_engine.backend.sax.reason}",
              file=sys.stderr)
        return 1
    # the two sides: the compiled walk with its SAX parse, and the same walk on lxml's tree
    FAST, TREE = justext_engine.WALK, justext_engine.walk_without_parse()

    source, raws = pick_pages(args.source, limit)
    pin_one_core()
    htmls = [decode(raw).text for raw in raws]
    stoplists = [page_stoplist(h) for h in htmls]
    extractor = get_extractor("justext-plus")
    clock = time.process_time

    lxml_parse = sax_parse = fast = tree = 0.0
    fallbacks_before = justext_engine.sax_stats()[1]
    differ = 0
    for r in range(args.rounds):
        for i, (html, sl) in enumerate(zip(htmls, stoplists)):
            first = (i + r) % 2 == 0
            for side in ((0, 1) if first else (1, 0)):
                t0 = clock()
                if side == 0:
                    root = parse_html(html)
                    del root          # lxml frees the tree here
                    lxml_parse += clock() - t0
                else:
                    justext_engine.sax_build(html_bytes(html) or b"")   # the same byte preparation
                    sax_parse += clock() - t0
            results = {}
            for side in ((0, 1) if first else (1, 0)):
                justext_engine.WALK = FAST if side == 0 else TREE
                t0 = clock()
                results[side] = extractor.extract(Page(html, stoplist=sl))
                if side == 0:
                    fast += clock() - t0
                else:
                    tree += clock() - t0
            justext_engine.WALK = FAST
            if [p.to_dict() for p in results[0]] != [p.to_dict() for p in results[1]]:
                differ += 1
    # the clean stage that guesses the language (--lang auto, the default of `build`)
    from corpustool.document import Document
    from corpustool.extractors.clean import Clean

    stage = Clean(languages=["auto"])
    for raw in raws[:3]:
        stage.process(Document(id="warm-up", raw=raw))    # (loads the language model: once, untimed)
    stage_fast = stage_tree = 0.0
    stage_differ = 0
    for r in range(args.rounds):
        for i, raw in enumerate(raws):
            outcomes = {}
            for side in ((0, 1) if (i + r) % 2 == 0 else (1, 0)):
                justext_engine.WALK = FAST if side == 0 else TREE
                t0 = clock()
                doc = stage.process(Document(id=str(i), raw=raw))
                if side == 0:
                    stage_fast += clock() - t0
                else:
                    stage_tree += clock() - t0
                outcomes[side] = (doc.drop_reason, doc.lang, doc.stoplist_lang, doc.title,
                                  [p.to_dict() for p in doc.paragraphs])
            justext_engine.WALK = FAST
            stage_differ += outcomes[0] != outcomes[1]
    n = len(raws) * args.rounds
    fallbacks = justext_engine.sax_stats()[1] - fallbacks_before
    print(f"pages: {len(raws)} from {source} ({sum(map(len, raws)) / 1e6:.1f} MB), {args.rounds} round(s), "
          "one core, CPU time")
    print(f"parse: lxml tree (parse_html, tree freed) {1000 * lxml_parse / n:.3f} ms/page, "
          f"SAX arena build {1000 * sax_parse / n:.3f} ms/page, ratio {lxml_parse / sax_parse:.2f}")
    print(f"justext-plus from the decoded string: lxml tree {1000 * tree / n:.3f} ms/page, "
          f"fast path {1000 * fast / n:.3f} ms/page, ratio {tree / fast:.2f}")
    print(f"clean stage, --lang auto, from the raw bytes: lxml tree {1000 * stage_tree / n:.3f} ms/page, "
          f"one SAX parse for the guess and the walk {1000 * stage_fast / n:.3f} ms/page, "
          f"ratio {stage_tree / stage_fast:.2f}")
    print(f"pages the fast path gave to lxml's tree: {fallbacks}; pages whose paragraphs differ: {differ}; "
          f"documents of the clean stage that differ: {stage_differ}")
    return 0 if differ == 0 and stage_differ == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
