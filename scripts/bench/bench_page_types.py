"""Page types: our guess (corpustool/page_type.py) against the WCXB development pages' types.

Every page of ``../shared/data/wcxb-dev`` goes through the clean stage as ``build --lang auto``
runs it (justext-plus, the page URL given); its features (page_type.features) are scored:

* ``structure rules``: the extractor's structure evidence alone, no learning: a declared
  discussion -> forum, a product with an offer -> product, a list of records as the page's
  content -> listing, else article;
* ``model, cross-validated by domain``: the naive Bayes model trained on three of four folds
  of domains (``corpustool eval --folds 4``'s folds: BLAKE2b of the registered domain), scored
  on the fourth, each fold in turn: no page is scored by a model that saw its site.

Per type precision, recall and F1, and the macro-F1 over the seven types. ``--write-model``
then trains on all pages and writes corpustool/page_type_model.py (the model `build` uses).

    python scripts/bench/bench_page_types.py [--data ../shared/data/wcxb-dev] [--limit N] [--write-model]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from corpustool.document import Document  # noqa: E402
from corpustool.eval.breakdown import fold_of, page_domain  # noqa: E402
from corpustool.eval.gold import read_wcxb  # noqa: E402
from corpustool.extractors.clean import Clean  # noqa: E402
from corpustool.page_type import TYPES, Model  # noqa: E402

FOLDS = 4


def page_rows(data: Path, limit: int | None):
    """(type, domain, features) of every page the clean stage keeps (the others: type 'dropped')."""
    clean = Clean(languages=None)
    rows = []
    seconds = 0.0
    for k, page in enumerate(read_wcxb(data)):
        if limit is not None and k >= limit:
            break
        raw, _ = page.load()
        doc = Document(id=page.id, url=page.url, raw=raw)
        clean.last_features = None
        start = time.process_time()
        clean.process(doc)
        seconds += time.process_time() - start
        feats = clean.last_features if not doc.drop_reason else None
        rows.append((page.meta["page_type"], page_domain(page), feats))
    return rows, seconds


def rules(feats) -> str:
    if feats is None:
        return "article"
    f = set(feats)
    if "s:discussion" in f:
        return "forum"
    if "s:product" in f:
        return "product"
    if "s:items" in f:
        return "listing"
    return "article"


def report(name: str, gold: list[str], guess: list[str]) -> float:
    print(f"\n{name}: {sum(g == p for g, p in zip(gold, guess))} of {len(gold)} pages right "
          f"({sum(g == p for g, p in zip(gold, guess)) / len(gold):.3f})\n")
    print("| type | pages | precision | recall | F1 |")
    print("| --- | --- | --- | --- | --- |")
    f1s = []
    for t in TYPES:
        tp = sum(1 for g, p in zip(gold, guess) if g == t and p == t)
        n_guess = sum(1 for p in guess if p == t)
        n_gold = sum(1 for g in gold if g == t)
        prec = tp / n_guess if n_guess else 0.0
        rec = tp / n_gold if n_gold else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        f1s.append(f1)
        print(f"| {t} | {n_gold} | {prec:.3f} | {rec:.3f} | {f1:.3f} |")
    macro = sum(f1s) / len(f1s)
    print(f"| **macro-F1** | {len(gold)} | | | **{macro:.3f}** |")
    confusion = Counter(zip(gold, guess))
    print("\nconfusion (rows gold, columns guessed): " + " ".join(t[:4] for t in TYPES))
    for g in TYPES:
        print(f"  {g[:13]:13s} " + " ".join(f"{confusion[g, p]:4d}" for p in TYPES))
    return macro


def write_model(model: Model, path: Path) -> None:
    lines = ['"""Counts of the page-type model (corpustool/page_type.py); written by',
             '``scripts/bench/bench_page_types.py --write-model`` from the WCXB development pages',
             f'({sum(model.pages.values())} pages; features of at least the model\'s MIN_DOMAINS domains)."""',
             f"PAGES: dict[str, int] = {model.pages!r}",
             "COUNTS: dict[str, dict[str, int]] = {"]
    for f, c in model.counts.items():
        lines.append(f"    {f!r}: {c!r},")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "wcxb-dev"))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--write-model", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.data, "ground-truth")):
        print(f"skipped: no WCXB development pages in {args.data} (ground-truth/, html/)")
        return
    rows, seconds = page_rows(Path(args.data), args.limit)
    print(f"{len(rows)} WCXB development pages ({sum(1 for r in rows if r[2] is None)} dropped by the clean "
          f"stage: scored as its default guess, article); clean stage {1000 * seconds / len(rows):.1f} CPU ms/page")
    gold = [t for t, _, _ in rows]
    report("structure rules (no learning)", gold, [rules(f) for _, _, f in rows])
    folds = [fold_of(d, FOLDS) for _, d, _ in rows]
    guess = [""] * len(rows)
    for k in range(FOLDS):
        model = Model.train((t, d, f) for (t, d, f), fk in zip(rows, folds) if fk != k and f is not None)
        for i, ((_, _, f), fk) in enumerate(zip(rows, folds)):
            if fk == k:
                guess[i] = model.predict(f) if f is not None else "article"
    macro = report(f"model, cross-validated by domain ({FOLDS} folds: trained on 3, scored on the 4th)", gold, guess)
    for k in range(FOLDS):
        idx = [i for i, fk in enumerate(folds) if fk == k]
        print(f"  fold {k}: {len(idx)} pages, accuracy {sum(gold[i] == guess[i] for i in idx) / len(idx):.3f}")
    print(f"\ncross-validated macro-F1: {macro:.3f}")
    if args.write_model:
        model = Model.train((t, d, f) for t, d, f in rows if f is not None)
        write_model(model, REPO / "corpustool" / "page_type_model.py")
        print(f"wrote corpustool/page_type_model.py ({len(model.counts)} features)")


if __name__ == "__main__":
    main()
