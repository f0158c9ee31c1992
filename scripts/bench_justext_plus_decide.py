#!/usr/bin/env python3
"""Benchmark: justext-plus's decide() compiled (corpustool/native/justext_plus_decide.pyx) against the Python decide().

Both get the same paragraphs and evidence of each page (the compiled walk's
PageTree, made once per page), fresh copies for every call, taking turns at
going first, pinned to one core; only the decide() calls are timed (CPU time
of this process). The compiled decide() includes ``PageTree.structure()``.
Prints ms per page for both, the ratio, and whether every paragraph got the
same class, reason and features.

Pages: ../shared/data/snippets/pages, else data/demo/crawl.warc.gz, else
generated pages (seeded), as scripts/bench_justext.py.
"""
from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_justext import add_page_options, page_limit, page_stoplist, pick_pages, pin_one_core  # noqa: E402
from corpustool.document import Paragraph  # noqa: E402
from corpustool.encoding import decode  # noqa: E402
from corpustool.extractors import justext_engine  # noqa: E402
from corpustool.extractors import justext_plus as jp  # noqa: E402
from corpustool.extractors.base import parse_html  # noqa: E402
from corpustool.extractors.registry import get_extractor  # noqa: E402


def fresh(paras: list[Paragraph]) -> list[Paragraph]:
    out = [copy.copy(p) for p in paras]
    for p in out:
        p.features = dict(p.features)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_page_options(ap)
    ap.add_argument("--repeat", type=int, default=3, help="calls of each decide() per page (default 3)")
    args = ap.parse_args()
    if not justext_engine.WALK.compiled or jp.compiled_decide is None:
        print("the compiled walk or decide() is not built (setup.py build_ext --inplace)", file=sys.stderr)
        return 1
    limit = page_limit(args)
    source, raws = pick_pages(args.source, limit)

    pin_one_core()
    extractor = get_extractor("justext-plus")
    clock = time.process_time
    times = {"python": 0.0, "compiled": 0.0}
    pages = paragraphs = same = 0
    for n, raw in enumerate(raws):
        html = decode(raw).text
        root = parse_html(html)
        if root is None:
            continue
        paras, tree = justext_engine.extract_evidence(root, page_stoplist(html), extractor.engine.params, Paragraph,
                                                      justext_engine._FAST_PARAGRAPH_INIT, "good", "bad",
                                                      jp._evidence_rules(),
                                                      keep_blank_separators=jp.KEEP_BLANK_SEPARATORS)
        if tree is None or not paras:
            continue
        title = jp._title_of(root)
        pages += 1
        results = {}
        for r in range(args.repeat):
            order = ("python", "compiled") if (n + r) % 2 == 0 else ("compiled", "python")
            for who in order:
                ps, kinds, hints = fresh(paras), dict(tree.kinds), list(tree.hints)
                decide = extractor.decide if who == "python" else (
                    lambda *a: jp.compiled_decide(extractor.decide_settings, *a))
                t0 = clock()
                decide(ps, kinds, hints, title, tree.why, tree)
                times[who] += clock() - t0
                results[who] = ps
        paragraphs += len(paras)
        same += sum((a.cls, a.reason, a.features) == (b.cls, b.reason, b.features)
                    for a, b in zip(results["python"], results["compiled"]))
    if not pages:
        print("no pages to benchmark", file=sys.stderr)
        return 1
    calls = pages * args.repeat
    py_ms, c_ms = 1000 * times["python"] / calls, 1000 * times["compiled"] / calls
    print(f"pages: {pages} from {source}, {paragraphs / pages:.0f} paragraphs per page, "
          f"{args.repeat} calls each, one core, CPU time")
    print(f"decide() in Python  : {py_ms:.3f} ms per page")
    print(f"decide() compiled   : {c_ms:.3f} ms per page")
    print(f"ratio (Python / compiled): {py_ms / c_ms:.2f}")
    print(f"same class, reason and features: {same}/{paragraphs} paragraphs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
