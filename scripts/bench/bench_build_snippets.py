#!/usr/bin/env python3
"""Snippet scores of the whole `corpustool build` pipeline on ../shared/data/snippets.

Runs the same pipeline as `corpustool build PAGES_DIR -o ... --lang auto` (reader, clean with the default
extractor, language filter, exact / near / paragraph de-duplication) and scores its output as the
evaluation framework does (corpustool.eval.snippets, the data README's rule). A page the pipeline dropped scores as
empty output. Issue 2 asks for with >= 0.75 and without >= 0.85.

    python scripts/bench/bench_build_snippets.py [--lang auto] [--limit N] [--extractor NAME]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from corpustool.eval.snippets import match_snippets  # noqa: E402
from corpustool.pipeline import Pipeline, PipelineOptions  # noqa: E402

SNIPPETS = REPO.parent / "shared" / "data" / "snippets"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="auto")
    ap.add_argument("--extractor", default=None)
    ap.add_argument("--limit", type=int, default=0, help="only the first N pages (by file name)")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    if not (SNIPPETS / "evaldata.json").is_file():
        print("skipped: ../shared/data/snippets not present")
        return 0
    gold = json.loads((SNIPPETS / "evaldata.json").read_text(encoding="utf-8"))
    by_file = {e["file"]: e for e in gold.values() if (SNIPPETS / "pages" / e["file"]).is_file()}
    files = sorted(by_file)
    if args.limit:
        files = files[:args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        pages = Path(tmp) / "pages"
        pages.mkdir()
        for f in files:
            (pages / f).symlink_to(SNIPPETS / "pages" / f)
        opts = PipelineOptions(languages=[args.lang], extractor=args.extractor, workers=args.workers)
        pipe = Pipeline([str(pages)], "-", opts)
        t0 = time.perf_counter()
        texts = {}
        for doc in pipe.documents():
            texts[Path(doc.url or doc.id).name] = doc.clean_text()
        elapsed = time.perf_counter() - t0
        stats = pipe.stats()
    w = nw = wo = nwo = 0
    for f in files:
        hits = match_snippets(texts.get(f, ""), by_file[f]["with"], by_file[f]["without"])
        nw += len(hits.found_with)
        w += sum(hits.found_with)
        nwo += len(hits.found_without)
        wo += len(hits.found_without) - sum(hits.found_without)
    print(f"pages: {len(files)}, written: {len(texts)}, {len(files) / elapsed:.1f} pages/s, lang={args.lang}")
    for st in stats:
        if st.drops:
            print(f"  {st.name} drops: " + ", ".join(f"{k}={v}" for k, v in sorted(st.drops.items())))
    print(f"with    {w / nw:.3f}  ({w}/{nw})   target >= 0.75")
    print(f"without {wo / nwo:.3f}  ({wo}/{nwo})   target >= 0.85")
    return 0


if __name__ == "__main__":
    sys.exit(main())
