#!/usr/bin/env python3
"""``make model``: train justext-learned's model on ../shared/data/wcxb-dev and snippets, reproducibly.

Every page with a main-text gold gives its paragraphs' features (the engine's,
``justext_learned.page_features``) and labels (overlap with the gold text,
``corpustool.eval.learn``); LightGBM trains one model on them with one thread, a
fixed seed and no sampling, so the same data give a byte-identical file. Two stages: stage 2
learns from stage 1's probabilities around each paragraph, taken from stage-1 models that
did not see the page's domain (5 domain folds).
Writes ``corpustool/models/justext_learned.json`` (or ``--out``).

    python scripts/train_model.py [--gold wcxb:DIR] [--out FILE]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"
DEFAULT_GOLDS = [f"wcxb:{DATA / 'wcxb-dev'}", f"snippets:{DATA / 'snippets'}"]


def main(argv: list[str] | None = None) -> int:
    from corpustool.eval.gold import read_gold
    from corpustool.eval.learn import collect, train
    from corpustool.extractors.justext_learned import MODEL_PATH, dump_model

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gold", action="append", default=[],
                    help="gold to learn from ([FORMAT:]PATH, repeatable; default: ../shared/data/wcxb-dev "
                         "(main text) and ../shared/data/snippets (snippets as partial labels))")
    ap.add_argument("--out", default=str(MODEL_PATH), help="model file (default: the shipped one)")
    args = ap.parse_args(argv)
    golds = args.gold or DEFAULT_GOLDS
    for spec in golds:
        path = spec.split(":", 1)[1] if ":" in spec else spec
        if not Path(path).exists():
            print(f"train_model: no gold at {path}", file=sys.stderr)
            return 1
    start = time.process_time()
    pages = [p for spec in golds for p in read_gold(spec)]
    data = collect(pages)
    model = train(data)
    text = dump_model(model)
    Path(args.out).write_text(text, encoding="utf-8")
    rows = sum(len(d["y"]) for d in data)
    trees = len(model["roots"]) + len(model["stage2"]["roots"])
    print(f"train_model: {len(data)} pages, {rows} labelled paragraphs, {trees} trees (two stages), "
          f"{len(text)} bytes -> {args.out} ({time.process_time() - start:.0f} CPU s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
