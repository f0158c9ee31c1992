"""Peak memory of one big page (issue 19: a 50 MB page allowed by --max-bytes took 3.8 GB).

Generates article-like pages of the given sizes (paragraphs of English words, headings, link
lists; seeded) and measures, each in a fresh child process, the peak RSS (ru_maxrss) of
  * ``clean``: the clean stage alone (default extractor justext-plus, --lang auto);
  * ``build``: every per-document and de-duplication stage of ``corpustool build --lang auto``
    (clean, language filter, exact, near-duplicate and paragraph de-duplication, tokenize),
minus the child's RSS before the page was generated (the interpreter and corpustool), and prints
it as a multiple of the page size. CPU seconds are the child's.

    python scripts/bench/bench_big_page.py                 # 5, 20 and 50 MB
    python scripts/bench/bench_big_page.py --sizes 5 10    # MB
    python scripts/bench/bench_big_page.py --sizes --paragraphs 1000000   # only the many-paragraphs pages

The many-paragraphs pages (issue 29, item 7): a 5 MB page of 1,000,000 short ``<p>``, cleaned with
the default ``--max-paragraphs`` (dropped as too-many-paragraphs before it is parsed), whose
factor must stay within the README's bounds (``CLEAN_BOUND``, ``BUILD_BOUND``: the script exits 1
and says so when it does not), and a page of exactly ``--max-paragraphs`` short ``<p>`` (kept
to the end of the stage), whose memory per paragraph is printed: what a page under the limit can cost.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import time

# the README's bounds for one page ("Bad pages"): the clean stage and a whole build, x the page size
CLEAN_BOUND = 20.0
BUILD_BOUND = 56.0

WORDS = ("the of and to in a is that for it as was with be by on not he this are or his from at which but have an "
         "they you were her she there been one all we their has would when if so what no more out up into do any "
         "time about than other its only new some could these two may first then well such like our over").split()


def big_page(size: int, seed: int = 5) -> bytes:
    """An article-like page of ``size`` bytes: paragraphs, headings every tenth block, link lists."""
    rng = random.Random(seed)
    out = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A big page</title></head><body>',
           "<nav><ul>" + "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(20)) + "</ul></nav><main>"]
    n = sum(map(len, out))
    i = 0
    while n < size:
        i += 1
        if i % 10 == 0:
            s = f"<h2>Heading number {i}</h2>\n"
        elif i % 7 == 0:
            s = '<div class="links">' + " | ".join(f'<a href="/p{i}-{k}">link {k}</a>' for k in range(8)) + "</div>\n"
        else:
            s = "<p>" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120))) + ".</p>\n"
        out.append(s)
        n += len(s)
    out.append("</main></body></html>")
    return "".join(out).encode()


def small_paragraphs_page(size: int, paragraphs: int = 1_000_000) -> bytes:
    """A page of ``paragraphs`` short ``<p>`` elements (one or two short words each) filling ``size`` bytes:
    the most per-paragraph objects a page of that size can make (issue 29, item 7)."""
    head = '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Many paragraphs</title></head><body>'
    tail = "</body></html>"
    per = max(5, (size - len(head) - len(tail)) // paragraphs)     # bytes per paragraph, "<p>" and "\n" included
    words = [w for w in WORDS if len(w) <= per - 4] or ["a"]
    out = bytearray(head.encode())        # (no list of a million strings: the page is all the child holds)
    for i in range(paragraphs):
        text = words[i % len(words)]
        if len(text) < per - 4:
            text = (text + " " + "x" * per)[:per - 4]
        out += b"<p>%s\n" % text.encode()
    out += tail.encode()
    return bytes(out)


def measure(size_mb: float, what: str, paragraphs: int = 0) -> dict:
    """Run in a child: peak RSS above the child's start of cleaning (or building) one page;
    ``paragraphs``: the page is that many short paragraphs (:func:`small_paragraphs_page`),
    cleaned with the default ``--max-paragraphs`` (the article pages with no limit, as no
    ``--max-bytes``: the 50 MB page has 181,000 blocks)."""
    from corpustool.document import Document
    from corpustool.extractors.clean import DEFAULT_MAX_PARAGRAPHS
    from corpustool.pipeline import PipelineOptions, build_stages
    from corpustool.stage import DocumentStage

    stages = build_stages(PipelineOptions(languages=["auto"], max_bytes=1 << 30,
                                          max_paragraphs=DEFAULT_MAX_PARAGRAPHS if paragraphs else 1 << 30))
    if what == "clean":
        stages = stages[:1]
    # one small page first: the stoplists and tables every page needs are loaded before the start
    warm = Document(id="warm", url="http://warm.example/", raw=small_paragraphs_page(50_000, 1000))
    for st in stages:
        if isinstance(st, DocumentStage):
            st.apply(warm)
        st.stats.drops.clear()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    raw = small_paragraphs_page(int(size_mb * 1e6), paragraphs) if paragraphs else big_page(int(size_mb * 1e6))
    size = len(raw)
    start = time.process_time()
    wall = time.perf_counter()
    docs = [Document(id="big", url="http://big.example/", raw=raw)]
    del raw
    words = 0
    for st in stages:
        if isinstance(st, DocumentStage):
            docs = [d for d in map(st.apply, docs) if d is not None]
        else:
            docs = list(st.run(iter(docs)))
        words = sum(d.word_count() for d in docs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    dropped = stages[0].stats.drops
    return {"what": what, "size": size, "peak_bytes": peak - base, "cpu": time.process_time() - start,
            "seconds": time.perf_counter() - wall,
            "kept": len(docs), "words": words, "drops": dict(dropped)}


def in_child(size_mb: float, what: str, paragraphs: int = 0) -> dict:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            out = json.dumps(measure(size_mb, what, paragraphs)).encode()
        except BaseException as exc:   # noqa: BLE001 - reported by the parent
            out = json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode()
        os.write(write, out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return {"error": f"child ended with status {status}"}
    return json.loads(data)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="*", default=[5, 20, 50], help="page sizes in MB (none: only the many-paragraphs page)")
    ap.add_argument("--paragraphs", type=int, default=1_000_000,
                    help="the many-paragraphs case: a 5 MB page of this many <p> (0: skip it)")
    args = ap.parse_args(argv)
    import corpustool.extractors.clean  # noqa: F401 - imported once, before the children fork

    print(f"{'stages':<6} {'page MB':>8} {'peak MB':>8} {'x page':>7} {'CPU s':>6} {'words out':>10}")
    for size in args.sizes:
        for what in ("clean", "build"):
            r = in_child(size, what)
            if "error" in r:
                print(f"{what:<6} {size:>8.0f}  {r['error']}")
                continue
            print(f"{what:<6} {r['size'] / 1e6:>8.1f} {r['peak_bytes'] / 1e6:>8.0f} {r['peak_bytes'] / r['size']:>7.1f} "
                  f"{r['cpu']:>6.1f} {r['words']:>10,}", flush=True)
    failed = False
    if args.paragraphs:
        from corpustool.extractors.clean import DEFAULT_MAX_PARAGRAPHS

        print(f"a 5 MB page of {args.paragraphs:,} short paragraphs (issue 29, item 7; --max-paragraphs "
              f"{DEFAULT_MAX_PARAGRAPHS:,}):")
        for what, bound in (("clean", CLEAN_BOUND), ("build", BUILD_BOUND)):
            r = in_child(5, what, args.paragraphs)
            if "error" in r:
                print(f"{what:<6} {5:>8.0f}  {r['error']}")
                failed = True
                continue
            factor = r["peak_bytes"] / r["size"]
            flag = "" if factor <= bound else f"  ABOVE THE README'S {bound:.0f}x"
            failed |= factor > bound
            print(f"{what:<6} {r['size'] / 1e6:>8.1f} {r['peak_bytes'] / 1e6:>8.0f} {factor:>7.1f} "
                  f"{r['cpu']:>6.1f} {r['words']:>10,}  {r['peak_bytes'] / args.paragraphs:,.0f} B/paragraph, "
                  f"drops {r['drops'] or '-'}{flag}", flush=True)
        n = DEFAULT_MAX_PARAGRAPHS - 1      # (and <body>: the most blocks --max-paragraphs keeps)
        print(f"a page of {n:,} short paragraphs (the most --max-paragraphs keeps; 5 bytes each):")
        for what in ("clean", "build"):
            r = in_child(5 * n / 1e6, what, n)
            if "error" in r:
                print(f"{what:<6} {5 * n / 1e6:>8.1f}  {r['error']}")
                failed = True
                continue
            print(f"{what:<6} {r['size'] / 1e6:>8.1f} {r['peak_bytes'] / 1e6:>8.0f} {r['peak_bytes'] / r['size']:>7.1f} "
                  f"{r['cpu']:>6.1f} {r['words']:>10,}  {r['peak_bytes'] / n:,.0f} B/paragraph, "
                  f"drops {r['drops'] or '-'}", flush=True)
    if failed:
        print(f"FAILED: the many-paragraphs page above the README's bounds ({CLEAN_BOUND:.0f}x clean, "
              f"{BUILD_BOUND:.0f}x build)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
