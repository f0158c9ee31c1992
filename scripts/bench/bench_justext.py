#!/usr/bin/env python3
"""Benchmark: our jusText engine ("justext") and the default extractor ("justext-plus") against the justext package.

The three extractors get the same pages with the same options and stoplist,
one page at a time, taking turns at going first, pinned to one core. Times are
CPU times of this process (``time.process_time``), so other work on a shared
machine does not count against either side. ``--turn N`` takes turns every N
pages instead: a real run extracts page after page with its code and tables in
the CPU's caches, while turns page by page start every page with the caches
full of the other extractors' work, which costs the fastest one most (about
1 ms a page for justext-plus: a 48 MB cache flush before each page costs it as
much). The default stays page by page, comparable with earlier runs.

The package is timed as its users call it, ``justext.justext(html, stoplist)``
with the preset's parameters (see ``PackageCall``). Headline: both start from
the decoded string and parse it themselves, then extract. Two more ratios:
from the raw bytes (the same ``corpustool.encoding.decode`` added to both
sides), and on an already parsed tree (the clean stage parses each page once
for everyone, so this is the saving inside the pipeline; the package cannot
take a tree and parses again). The same three measures for justext-plus (the
default extractor: the engine plus page structure), as ratios to the package
(issue 11 asks for 10x its pages per second) and to our engine. From the
string, our engine and justext-plus parse with lxml's libxml2 (its HTML parser's
SAX calls) into the walk's own tree (corpustool/native/sax_arena.pxi); on a parsed
tree they walk lxml's.
``--walk`` also times the extractor with its decision skipped (its walk's
paragraphs, jusText's classes and the evidence alone): the speed no decision on
that walk can pass, and the decision's share of the extractor's time.
justext-plus and justext-learned cache what a line's text alone says
(``line_verdict``, and justext-learned's compiled matrix its own copy): each of
the two passes (from the bytes and string; on a tree) starts with the caches
empty, so a page meets only lines of earlier pages, as in a crawl.
``--free columns,trees`` (justext-learned) also times it with those phases of
its decision made free, their results looked up: what the rest of it costs,
the bound of any faster feature matrix or tree evaluation.

Pages: ../shared/data/snippets/pages, else data/demo/crawl.warc.gz, else
generated pages (seeded). Prints pages/s for both and the ratios.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from corpustool.encoding import decode  # noqa: E402
from corpustool.extractors import justext_engine  # noqa: E402
from corpustool.extractors.base import Page  # noqa: E402
from corpustool.extractors.registry import get_extractor  # noqa: E402
from corpustool.extractors.justext_learned import forget_line_verdicts  # noqa: E402
from corpustool.eval.runner import html_lang  # noqa: E402
from corpustool.language.stoplists import stoplist  # noqa: E402

SNIPPETS = REPO.parent / "shared" / "data" / "snippets" / "pages"
DEMO_WARC = REPO / "data" / "demo" / "crawl.warc.gz"


def load_snippets(limit: int | None) -> list[bytes]:
    files = sorted(SNIPPETS.glob("*.html"))
    return [f.read_bytes() for f in files[:limit]]


def load_warc(path: Path, limit: int | None) -> list[bytes]:
    from warcio.archiveiterator import ArchiveIterator

    pages = []
    with open(path, "rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            ctype = (record.http_headers.get_header("Content-Type") or "").lower()
            if "html" not in ctype:
                continue
            body = record.content_stream().read()
            if body.strip():
                pages.append(body)
            if limit and len(pages) >= limit:
                break
    return pages


def generated_pages(n: int) -> list[bytes]:
    """Pages shaped like news articles: menus, link lists, a story, a footer."""
    rng = random.Random(42)
    words = ("the of and to in is that it was for on are with as his they be at one have this from "
             "report council city water energy market school river project people year government "
             "plan new local said week public data research family museum").split()

    def sentence(k: int) -> str:
        return " ".join(rng.choice(words) for _ in range(k)).capitalize() + "."

    pages = []
    for i in range(n):
        menu = "".join(f'<li><a href="/s{j}">{sentence(2)}</a></li>' for j in range(rng.randint(5, 25)))
        story = "".join(f"<p>{' '.join(sentence(rng.randint(6, 20)) for _ in range(rng.randint(1, 6)))}</p>"
                        for _ in range(rng.randint(3, 20)))
        side = "".join(f'<div class="teaser"><h3><a href="/t{j}">{sentence(4)}</a></h3>'
                       f"<span>{sentence(3)}</span><br><br>{sentence(5)}</div>" for j in range(rng.randint(2, 10)))
        pages.append(
            f"<!DOCTYPE html><html lang='en'><head><title>Page {i}</title><script>var x = {i};</script>"
            f"<style>p {{ margin: 0 }}</style></head><body><div id='nav'><ul>{menu}</ul></div>"
            f"<form><input name=q><select><option>a</option></select></form>"
            f"<div id='main'><h1>{sentence(6)}</h1>{story}</div><aside>{side}</aside>"
            f"<div id='footer'>&copy; 2024 {sentence(3)} <a href='/imprint'>Imprint</a></div>"
            f"</body></html>".encode("utf-8"))
    return pages


def pick_pages(source: str, limit: int | None, warc: Path = DEMO_WARC) -> tuple[str, list[bytes]]:
    """(where from, raw pages): the snippet pages, else the WARC, else generated pages, or the ``source``
    asked for ("snippets", "warc", "generated"; "auto" picks)."""
    have_snippets = SNIPPETS.is_dir() and any(SNIPPETS.glob("*.html"))
    if source == "snippets" or (source == "auto" and have_snippets):
        return str(SNIPPETS), load_snippets(limit)
    if source == "warc" or (source == "auto" and warc.is_file()):
        return str(warc), load_warc(warc, limit)
    return "generated pages (seed 42)", generated_pages(limit or 300)


def add_page_options(ap: argparse.ArgumentParser) -> None:
    """--limit, --quick and --source: which pages (:func:`pick_pages`), shared by the jusText benchmarks."""
    ap.add_argument("--limit", type=int, default=None, help="at most this many pages (default: all)")
    ap.add_argument("--quick", action="store_true", help="100 pages")
    ap.add_argument("--source", choices=("auto", "snippets", "warc", "generated"), default="auto",
                    help="where the pages come from (default: snippets, else the demo WARC, else generated)")


def page_limit(args: argparse.Namespace) -> int | None:
    return 100 if args.quick and not args.limit else args.limit


def page_stoplist(html: str) -> frozenset[str]:
    """The stoplist of the page's ``<html lang>`` (eval's reading of it), else English's."""
    return stoplist(html_lang(html) or "en")


class PackageCall:
    """The justext package as its users call it: ``justext.justext(html, stoplist, ...)`` with the
    preset's parameters, its paragraphs as the package makes them. (The ``justext-package``
    extractor runs the same steps and then builds our paragraphs with their features, which
    costs the package a fifth more time than its own call: not the package's speed.) Presets
    that count length in tokens need that extractor's paragraph maker: then it is the extractor."""

    def __init__(self, wrapper) -> None:
        import justext

        p = wrapper.params
        self.wrapper = wrapper if p.length_unit != "chars" else None
        self.call = justext.justext
        self.options = dict(length_low=p.length_low, length_high=p.length_high, stopwords_low=p.stopwords_low,
                            stopwords_high=p.stopwords_high, max_link_density=p.max_link_density,
                            max_heading_distance=p.max_heading_distance, no_headings=p.no_headings)

    def extract(self, page: Page) -> list:
        if self.wrapper is not None:
            return self.wrapper.extract(page)
        return self.call(page.html, page.stoplist, **self.options)


def walk_alone(extractor):
    """The extractor with its decision skipped: its walk's paragraphs (jusText's classes) and
    evidence only, the fastest any decision on that walk can be."""
    class WalkAlone(type(extractor)):
        def _decide(self, *args, **kwargs) -> None:
            return None

    alone = WalkAlone.__new__(WalkAlone)
    alone.__dict__.update(extractor.__dict__)
    return alone


FREE_PHASES = ("columns", "trees")


def with_free_phases(extractor, phases: set[str], pages: list[Page]):
    """justext-learned with phases of its decision made free: "columns" (the feature matrix, with
    line_verdict's verdicts) and "trees" (both stages' probabilities) are computed in an untimed pass
    over the pages first, then looked up by the page's paragraph texts. What the rest costs
    bounds what any faster matrix or tree evaluation can give. (The default decision only: the
    second reading of a page whose comment blocks the model finds to be posts is not timed.)"""
    from corpustool.extractors import justext_learned as jl

    computed: dict[tuple, Any] = {}

    class Free(type(extractor)):
        def _decide(self, paras, tree, title, page, data=None) -> None:
            key = tuple(p.text for p in paras)
            found = computed.get(key)
            if found is None:                  # the untimed pass: the phases' results, kept
                inp = self.page_input(paras, tree, title, page, data)
                columns = inp.columns()
                found = computed[key] = (columns, self.model.predict(columns[0], paras, columns[1]))
            (X, struct), prob = found
            inp = self.page_input(paras, tree, title, page, data)
            if "columns" not in phases:
                X, struct = inp.columns()
            if "trees" not in phases:
                prob = self.model.predict(X, paras, struct)
            jl.set_classes(paras, *jl.decide_classes(prob, inp))

    free = Free.__new__(Free)
    free.__dict__.update(extractor.__dict__)
    for page in pages:
        free.extract(page)
    return free


def good(p) -> bool:
    """A paragraph kept: ours (is_good) or the package's (class_type)."""
    return p.is_good if hasattr(p, "is_good") else p.class_type == "good"


def pin_one_core() -> None:
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[0]})
    except (AttributeError, OSError):
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_page_options(ap)
    ap.add_argument("--preset", default="justext", help="jusText preset for both (default justext)")
    ap.add_argument("--extractor", default="justext-plus",
                    help="the extractor measured beside the package and our engine (default justext-plus; e.g. "
                         "justext-learned)")
    ap.add_argument("--warc", type=Path, default=DEMO_WARC, help="WARC to use when the snippets are absent")
    ap.add_argument("--turn", type=int, default=1, metavar="PAGES",
                    help="the extractors take turns after this many pages (default 1: page by page)")
    ap.add_argument("--walk", action="store_true",
                    help="also time the extractor's walk alone (its paragraphs and evidence, no decision): "
                         "the speed no decision on that walk can pass")
    ap.add_argument("--free", metavar="PHASES",
                    help="justext-learned only: also time it with these phases of its decision made free "
                         f"(comma-separated: {', '.join(FREE_PHASES)}; computed in an untimed pass first)")
    args = ap.parse_args()
    limit = page_limit(args)
    if args.turn < 1:
        ap.error("--turn must be at least 1")
    free_phases = set(args.free.split(",")) if args.free else set()
    if free_phases - set(FREE_PHASES):
        ap.error(f"--free takes {', '.join(FREE_PHASES)}, not {', '.join(sorted(free_phases - set(FREE_PHASES)))}")
    if free_phases and args.extractor != "justext-learned":
        ap.error("--free measures justext-learned's phases: use it with --extractor justext-learned")

    source, raws = pick_pages(args.source, limit, args.warc)
    if not raws:
        print("no pages to benchmark", file=sys.stderr)
        return 1

    pin_one_core()
    # the justext package, our engine, and the default extractor (our engine plus page structure)
    extractors = {"theirs": PackageCall(get_extractor("justext-package", preset=args.preset)),
                  "ours": get_extractor("justext", preset=args.preset),
                  "plus": get_extractor(args.extractor, preset=args.preset)}
    if args.walk:
        extractors["walk"] = walk_alone(extractors["plus"])
    htmls = [decode(raw).text for raw in raws]
    stoplists = [page_stoplist(h) for h in htmls]
    if free_phases:
        extractors["free"] = with_free_phases(extractors["plus"], free_phases,
                                              [Page(h, stoplist=s) for h, s in zip(htmls, stoplists)])
    names = list(extractors)
    sizes = sum(len(raw) for raw in raws)

    clock = time.process_time
    raw_time = dict.fromkeys(names, 0.0)      # from raw bytes
    decoding = dict.fromkeys(names, 0.0)      # decoding part (same function, timed on each side)
    tree_time = dict.fromkeys(names, 0.0)     # on a parsed tree
    same = total = 0
    # the extractors take turns (each goes first, second and third in turn), so a drift of the
    # machine's speed meets all three: page by page, or over blocks of --turn pages
    blocks = [range(i, min(i + args.turn, len(raws))) for i in range(0, len(raws), args.turn)]
    # two passes over the pages, each starting with justext-plus's line cache empty: within
    # one pass it only knows lines from earlier pages (as in a crawl), never the same page's
    forget_line_verdicts()
    for k, block in enumerate(blocks):
        order = names[k % len(names):] + names[:k % len(names)]
        results: dict[str, list] = {}
        for who in order:
            extract = extractors[who].extract
            results[who] = found = []
            for i in block:
                t0 = clock()
                html = decode(raws[i]).text
                t1 = clock()
                paragraphs = extract(Page(html, stoplist=stoplists[i]))
                t2 = clock()
                # (texts and classes kept, not the paragraphs: thousands of objects kept alive
                # would make the garbage collector's rounds longer for whoever runs next)
                found.append((tuple(p.text for p in paragraphs),
                              "".join("g" if good(p) else "b" for p in paragraphs)))
                del paragraphs
                raw_time[who] += t2 - t0
                decoding[who] += t1 - t0
        for (a_text, a_cls), (b_text, b_cls) in zip(results["theirs"], results["ours"]):
            total += len(a_cls)
            if a_text == b_text:
                same += sum(x == y for x, y in zip(a_cls, b_cls))
    forget_line_verdicts()
    for k, block in enumerate(blocks):
        # the pipeline's situation: the page is parsed (by parse_html) before extraction
        order = names[k % len(names):] + names[:k % len(names)]
        for who in order:
            extract = extractors[who].extract
            for i in block:
                page = Page(htmls[i], stoplist=stoplists[i])
                page.tree
                t0 = clock()
                extract(page)
                tree_time[who] += clock() - t0

    n = len(raws)
    string_time = {who: raw_time[who] - decoding[who] for who in names}
    s_theirs, s_ours, s_plus = string_time["theirs"], string_time["ours"], string_time["plus"]
    print(f"pages: {n} from {source} ({sizes / 1e6:.1f} MB), preset {args.preset}, one core, CPU time, "
          f"taking turns every {args.turn} page{'s' if args.turn > 1 else ''}")
    if justext_engine.WALK.compiled:
        print("our engine's walk: compiled (corpustool/native/justext_walk.pyx)")
    else:
        print(f"our engine's walk: pure Python (compiled walk not available: {justext_engine.backend.walk.reason})")
    print(f"justext package : {n / s_theirs:8.1f} pages/s  ({sizes / s_theirs / 1e6:.1f} MB/s)  from the decoded string")
    print(f"our engine      : {n / s_ours:8.1f} pages/s  ({sizes / s_ours / 1e6:.1f} MB/s)  from the decoded string")
    print(f"{args.extractor:16s}: {n / s_plus:8.1f} pages/s  ({sizes / s_plus / 1e6:.1f} MB/s)  from the decoded string")
    print(f"ratio (parse + extract, from the decoded string): {s_theirs / s_ours:.2f}")
    print(f"ratio from the raw bytes (decode + parse + extract): {raw_time['theirs'] / raw_time['ours']:.2f}")
    print(f"ratio on a parsed tree (inside the clean stage):     {tree_time['theirs'] / tree_time['ours']:.2f}")
    print(f"same final class: {same}/{total} paragraphs ({same / max(total, 1):.4%})")
    name = args.extractor
    print(f"{name}{' (the default extractor)' if name == 'justext-plus' else ''}:")
    print(f"  on a parsed tree: {n / tree_time['plus']:8.1f} pages/s, our engine {n / tree_time['ours']:8.1f}, "
          f"package {n / tree_time['theirs']:8.1f}")
    print(f"  {name} / package, from the decoded string: {s_theirs / s_plus:.2f}")
    print(f"  {name} / package, from the raw bytes:      {raw_time['theirs'] / raw_time['plus']:.2f}")
    print(f"  {name} / package, on a parsed tree:        {tree_time['theirs'] / tree_time['plus']:.2f}")
    print(f"  {name} / our engine, from the decoded string: {s_ours / s_plus:.2f}")
    print(f"  {name} / our engine, on a parsed tree:        {tree_time['ours'] / tree_time['plus']:.2f}")
    if args.walk:
        print(f"{args.extractor}'s walk alone (paragraphs and evidence, no decision):")
        print(f"  walk / package, from the raw bytes:      {raw_time['theirs'] / raw_time['walk']:.2f}")
        print(f"  walk / package, from the decoded string: {s_theirs / string_time['walk']:.2f}")
        print(f"  the decision's share of {args.extractor}'s time from the raw bytes: "
              f"{1 - raw_time['walk'] / raw_time['plus']:.1%}")
    if free_phases:
        print(f"{args.extractor} with {' and '.join(sorted(free_phases))} free (their results looked up):")
        print(f"  / package, from the raw bytes:      {raw_time['theirs'] / raw_time['free']:.2f}")
        print(f"  / package, from the decoded string: {s_theirs / string_time['free']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
