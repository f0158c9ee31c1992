#!/usr/bin/env python3
"""Benchmark: the clean stage's language guess (choosing the stoplist) and the whole clean stage,
the current code against the previous implementation of the guess.

"Old" is the copy of the previous ``page_text``, ``identify``,
``stopword_density``, ``guess_stoplist_language`` and ``no_stoplist_reason``
kept below (the run compares both pages' choices and fails on a difference);
"new" is ``corpustool.language.identify`` as it is.

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
import math
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
from corpustool.language import identify as ident  # noqa: E402
from corpustool.language.identify import guess_stoplist_language  # noqa: E402
from corpustool.language.stoplists import has_stoplist, stoplist  # noqa: E402

SNIPPETS = REPO.parent / "shared" / "data" / "snippets" / "pages"
DEMO_WARC = REPO / "data" / "demo" / "crawl.warc.gz"


# -- "old": the previous implementation of the guess, verbatim (session 1's; the benchmark's baseline) --
def ref_identify(text, candidates=None, *, prior=None):
    explicit = bool(candidates)
    cands = ident._candidates(candidates)
    words = ident._WORD.findall(text)
    n_words = len(words)
    if not n_words:
        return ident.Identification(ident.UNDETERMINED, 0.0, "none")
    letters = sum(map(len, words))
    by_script = ident._script_language(text, letters, cands if explicit else None)
    if by_script is not None:
        return ident.Identification(by_script[0], round(by_script[1], 4), "script", None, n_words, 0)
    model = ident._model(cands)
    index = model.index
    scores = {}
    hits = {}
    for word in set(words) & index.keys():
        for i, weight in index[word]:
            scores[i] = scores.get(i, 0.0) + weight
            hits[i] = hits.get(i, 0) + 1
    if not scores:
        return ident._unique_script(text, letters, n_words, cands if explicit else None)
    langs = model.langs
    log_prior = ident._log_prior(prior, langs)
    if log_prior:
        for i in log_prior:
            scores.setdefault(i, 0.0)
            hits.setdefault(i, 0)
    base = model.base
    logit = {i: sc / ident.TEMPERATURE + base[i] + log_prior.get(i, log_prior.get(-1, 0.0))
             for i, sc in scores.items()}
    order = sorted(logit, key=lambda i: (-logit[i], langs[i]))
    best = order[0]
    top = logit[best]
    posterior = 1.0 / sum(math.exp(logit[i] - top) for i in order)
    support = 1.0 - math.exp(-hits[best] / ident.SUPPORT_WORDS)
    if hits[best] == 0:
        return ident.Identification(langs[best], 0.0, "prior", None, n_words, 0)
    runner = langs[order[1]] if len(order) > 1 else None
    second = 0.0
    if runner is not None:      # the runner-up's confidence (lang_diff on <doc>)
        other = order[1]
        second = posterior * math.exp(logit[other] - top) * (1.0 - math.exp(-hits[other] / ident.SUPPORT_WORDS))
    return ident.Identification(langs[best], round(posterior * support, 4), "stopwords", runner,
                                n_words, hits[best], round(second, 4))


def ref_stopword_density(text, code):
    from corpustool.text.tokenizer import justext_words

    words = justext_words(text)
    if not words:
        return 0.0
    stop = stoplist(code)
    return sum(1 for w in words if w.lower() in stop) / len(words)


def ref_guess_stoplist_language(text, candidates=None, min_density=ident.MIN_DENSITY):
    cands = tuple(c for c in ident._candidates(candidates, require_stoplist=True))
    if len(cands) == 1:
        return cands[0], 1.0
    result = ref_identify(text, cands if candidates else None)
    if result.lang == ident.UNDETERMINED or not has_stoplist(result.lang):
        return None, 0.0
    density = ref_stopword_density(text, result.lang)
    if density < min_density:
        return None, density
    return result.lang, density


def ref_no_stoplist_reason(text, candidates=None):
    lang = ref_identify(text).lang
    if lang == ident.UNDETERMINED:
        return "unknown-language", None
    if candidates and lang not in ident._candidates(candidates):
        return "unwanted-language", lang
    if not has_stoplist(lang):
        return "no-stoplist", lang
    return "unknown-language", lang


_NO_TEXT_TAGS = frozenset(("script", "style"))


def ref_page_text(root):
    if root is None:
        return ""
    body = root.find("body")
    if body is not None and len(body):
        root = body
    parts = []
    for el in root.iter():
        tag = el.tag
        if isinstance(tag, str) and tag not in _NO_TEXT_TAGS and el.text:
            parts.append(el.text)
        if el.tail and el is not root:
            parts.append(el.tail)
    return " ".join(parts)


class RefClean(Clean):
    """The clean stage choosing its stoplist with the previous functions: the language
    module's functions are swapped for the reference ones while the stage's own code runs."""

    REFERENCE = {"PageWords": lambda text: text, "page_text": ref_page_text,
                 "guess_stoplist_language": ref_guess_stoplist_language,
                 "no_stoplist_reason": ref_no_stoplist_reason, "identify": ref_identify,
                 "stopword_density": ref_stopword_density}

    def choose_stoplist(self, doc, page):
        saved = {name: getattr(ident, name) for name in self.REFERENCE}
        try:
            for name, fn in self.REFERENCE.items():
                setattr(ident, name, fn)
            return super().choose_stoplist(doc, page)
        finally:
            for name, fn in saved.items():
                setattr(ident, name, fn)


def load_reference():
    return sys.modules[__name__]


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
