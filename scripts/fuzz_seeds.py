#!/usr/bin/env python3
"""Write the fuzz campaign's seed inputs into a folder (scripts/fuzz_campaign.sh calls it).

Seeds are fuzz inputs (tests/native/fuzz_targets.py: first byte = entry point): our own edge inputs
(tests/native/fuzz_corpus/, used for every entry point) and, when ../shared/data is present, a sample
of the development pages (snippets/pages, wcxb-dev/html), each cut to --max-len bytes, the
entry points taking turns. The sample is seeded: the same seeds every run.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N_TARGETS = 6           # len(tests/native/fuzz_targets.TARGETS)


def dev_pages(data: Path) -> list[Path]:
    pages = sorted((data / "snippets" / "pages").glob("*.html"))
    pages += sorted((data / "wcxb-dev" / "html").glob("*.html.gz"))
    return pages


def read(path: Path) -> bytes:
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.suffix == ".gz" else raw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--pages", type=int, default=400, help="development pages sampled (default 400)")
    ap.add_argument("--max-len", type=int, default=65536)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seeds = []
    for path in sorted((ROOT / "tests" / "native" / "fuzz_corpus").glob("*")):
        body = path.read_bytes()[1:]
        seeds += [bytes([t]) + body for t in range(N_TARGETS)]
    pages = dev_pages(args.data) if args.data.is_dir() else []
    random.Random(19).shuffle(pages)
    for i, path in enumerate(pages[:args.pages]):
        seeds.append(bytes([i % N_TARGETS]) + read(path)[:args.max_len - 1])
    for seed in seeds:
        (args.out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    print(f"fuzz_seeds: {len(seeds)} seeds in {args.out} ({min(len(pages), args.pages)} development pages)")


if __name__ == "__main__":
    main()
