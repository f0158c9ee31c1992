#!/usr/bin/env python3
"""Benchmark: the clean stage's language guess (choosing the stoplist) and the whole clean stage,
the current code against the previous implementation of the guess.

"Old" is the reference copy of the previous ``page_text``, ``identify``,
``stopword_density``, ``guess_stoplist_language`` and ``no_stoplist_reason``
kept in tests/native/test_language_guess_fast.py (which also proves both give the
same answers); "new" is ``corpustool.language.identify`` as it is.

1. The guess: ``Clean.choose_stoplist`` with ``--lang auto`` (page text,
   identification, stop-word density, the drop reason when no list fits) on
   pages parsed beforehand, old and new on the same page in turns (who goes
   first alternates), CPU milliseconds per page and the ratio. Every page's
   choice is compared too: a difference is reported and fails the run.
2. The whole clean stage, ``Clean(languages=["auto"]).process`` (decode,
   parse, guess, the default extractor) on the raw pages, with the old and the
   new guess, in turns: pages per second and the ratio, and the guess's share
   of the stage.

Times are CPU times of this process (``time.process_time``), so other jobs on
a shared machine count against neither side. Pages: ../shared/data/snippets/pages
(sorted by file name), else data/demo/crawl.warc.gz, else generated pages.

    scripts/bench_clean_stage.py [--quick] [--limit N] [--repeat R]
"""
from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from corpustool.document import Document  # noqa: E402
from corpustool.encoding import decode  # noqa: E402
from corpustool.extractors.base import Page, parse_html  # noqa: E402
from corpustool.extractors.clean import Clean  # noqa: E402
from corpustool.language.identify import guess_stoplist_language  # noqa: E402

SNIPPETS = REPO.parent / "shared" / "data" / "snippets" / "pages"
DEMO_WARC = REPO / "data" / "demo" / "crawl.warc.gz"


def load_reference():
    path = REPO / "tests" / "native" / "test_language_guess_fast.py"
    spec = importlib.util.spec_from_file_location("language_guess_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_pages(limit: int | None) -> tuple[list[bytes], str]:
    files = sorted(SNIPPETS.glob("*.html")) if SNIPPETS.is_dir() else []
    if files:
        files = files[:limit] if limit else files
        return [f.read_bytes() for f in files], f"{SNIPPETS} ({len(files)} pages)"
    if DEMO_WARC.is_file():
        from corpustool.readers import html_pages

        pages = [raw for _, raw in html_pages(str(DEMO_WARC), limit)]
        return pages, f"{DEMO_WARC} ({len(pages)} HTML pages)"
    return generated_pages(limit or 200), f"generated pages ({limit or 200}, seeded)"


def generated_pages(n: int) -> list[bytes]:
    """Pages in the languages of the test samples, with menus, scripts and a footer."""
    from tests.language.test_language import GERMAN_ARTICLE, SAMPLES

    rng = random.Random(1)
    texts = list(SAMPLES.values()) + [" ".join(GERMAN_ARTICLE)]
    pages = []
    for _ in range(n):
        main = rng.choice(texts)
        paras = "".join(f"<p>{' '.join(rng.sample(main.split(), k=len(main.split())))}</p>"
                        for _ in range(rng.randint(3, 12)))
        menu = "".join(f"<li><a href='/{k}'>{w}</a></li>" for k, w in enumerate(rng.choices(main.split(), k=8)))
        html = (f"<html><head><title>{main[:40]}</title><script>var a = 1;</script></head><body>"
                f"<ul>{menu}</ul><script>if (the in window) {{ }}</script>{paras}"
                f"<div class='footer'>© 2024 | Impressum | Privacy</div></body></html>")
        pages.append(html.encode("utf-8"))
    return pages


def choice(stage: Clean, html: str, tree) -> tuple:
    doc = Document(id="1", html=html)
    page = Page(html, tree=tree)
    kept = stage.choose_stoplist(doc, page)
    return kept, doc.stoplist_lang, doc.lang, doc.drop_reason, doc.meta.get("stoplist_density")


def bench_guess(ref, pages: list[bytes], repeat: int) -> tuple[float, float, int]:
    """CPU seconds per page of the old and the new choice, and the number of pages that differ."""
    parsed = []
    for raw in pages:
        html = decode(raw, None).text
        tree = parse_html(html)
        if tree is not None:
            parsed.append((html, tree))
    old_stage, new_stage = ref.RefClean(languages=["auto"]), Clean(languages=["auto"])
    t_old = t_new = 0.0
    differ = 0
    clock = time.process_time
    for r in range(repeat):
        for k, (html, tree) in enumerate(parsed):
            if (k + r) % 2:
                t0 = clock()
                a = choice(old_stage, html, tree)
                t1 = clock()
                b = choice(new_stage, html, tree)
                t2 = clock()
                t_old += t1 - t0
                t_new += t2 - t1
            else:
                t0 = clock()
                b = choice(new_stage, html, tree)
                t1 = clock()
                a = choice(old_stage, html, tree)
                t2 = clock()
                t_new += t1 - t0
                t_old += t2 - t1
            differ += r == 0 and a != b
    n = len(parsed) * repeat
    return t_old / n, t_new / n, differ


def bench_stage(ref, pages: list[bytes]) -> tuple[float, float, int]:
    """CPU seconds per page of the whole clean stage with the old and the new guess, and the
    number of pages whose output differs."""
    old_stage, new_stage = ref.RefClean(languages=["auto"]), Clean(languages=["auto"])
    t_old = t_new = 0.0
    differ = 0
    clock = time.process_time
    for k, raw in enumerate(pages):
        docs = {}
        for side in ((old_stage, new_stage) if k % 2 else (new_stage, old_stage)):
            doc = Document(id=str(k), raw=raw)
            t0 = clock()
            side.process(doc)
            took = clock() - t0
            if side is old_stage:
                t_old += took
            else:
                t_new += took
            docs[side is old_stage] = (doc.drop_reason, doc.stoplist_lang, doc.lang,
                                       None if doc.drop_reason else doc.clean_text())
        differ += docs[True] != docs[False]
    return t_old / len(pages), t_new / len(pages), differ


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=300, help="pages to use (0: all; default 300)")
    ap.add_argument("--quick", action="store_true", help="100 pages, one pass over the guess")
    ap.add_argument("--repeat", type=int, default=3, help="passes over the pages for the guess (default 3)")
    args = ap.parse_args(argv)
    if args.limit < 0 or args.repeat < 1:
        ap.error("--limit must be >= 0 and --repeat >= 1")
    if args.quick:
        args.limit, args.repeat = 100, 1

    ref = load_reference()
    pages, source = load_pages(args.limit or None)
    if not pages:
        print("bench_clean_stage: no pages; nothing to measure")
        return 0
    print(f"# clean stage language guess, old (reference copy) vs new, on {source}")
    # build the identification index and load the stoplists before timing (both sides share them)
    guess_stoplist_language("warm-up: the index is built once per process")

    old, new, differ = bench_guess(ref, pages, args.repeat)
    print(f"guess (choose_stoplist, --lang auto): old {1000 * old:.3f} ms/page, new {1000 * new:.3f} ms/page, "
          f"ratio {old / new:.2f}x  ({args.repeat} pass(es); pages whose choice differs: {differ})")

    s_old, s_new, s_differ = bench_stage(ref, pages)
    print(f"clean stage (auto, default extractor): old {1 / s_old:.1f} pages/s, new {1 / s_new:.1f} pages/s, "
          f"ratio {s_old / s_new:.2f}x  (pages whose output differs: {s_differ})")
    print(f"guess share of the stage: old {100 * old / s_old:.0f}%, new {100 * new / s_new:.0f}%")
    return 1 if differ or s_differ else 0


if __name__ == "__main__":
    sys.exit(main())
