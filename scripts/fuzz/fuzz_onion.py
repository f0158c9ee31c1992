#!/usr/bin/env python3
"""Fuzz corpustool/native/_onion.c under AddressSanitizer + UBSan, each input in a fresh process.

The module is compiled with -fsanitize=address,undefined into a temporary directory; every input
(random vertical files: tags, CR, NUL, invalid UTF-8, empty lines, no final newline, mutated
slices of a seed file) runs in a new Python process with libasan preloaded, through the compiled
engine under several option sets and chunkings, and the output must equal the Python reference
(corpustool.dedup.onion_vertical.PyEngine). A memory error aborts the child (a failure, with the
input saved); a difference is a failure too.

    scripts/fuzz/fuzz_onion.py --runs 200            # quick
    scripts/fuzz/fuzz_onion.py --seconds 3600        # a campaign
    scripts/fuzz/fuzz_onion.py --seed-file corpus.vert --keep-dir fuzz-failures/
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "corpustool" / "native" / "_onion.c"

CHILD = r"""
import sys, random
sys.path.insert(0, sys.argv[1])          # the ASan build of _onion
sys.path.insert(1, sys.argv[2])          # the repository
import _onion
from corpustool.dedup.onion_vertical import PyEngine
data = open(sys.argv[3], 'rb').read()
rng = random.Random(int(sys.argv[4]))
OPTIONS = [{}, {"strip": True}, {"n": 1}, {"n": 2, "threshold": 0.0}, {"n": 5, "threshold": 1.0},
           {"smoothing": False}, {"stub_rule": "inner", "max_stub": 3}, {"hash_bits": 16},
           {"max_stub": 0}, {"doc_tag": "d", "par_tag": ""}, {"n": 100}, {"whole_paragraphs": True},
           {"whole_paragraphs": True, "within": "paragraphs", "stub_rule": "inner"}, {"within": "none"},
           {"near": 0.1}, {"near": 0.0, "smoothing": False, "whole_paragraphs": True, "within": "paragraphs"},
           {"skip_punct": True}, {"skip_punct": True, "n": 2, "whole_paragraphs": True, "within": "paragraphs",
                                  "near": 0.1, "smoothing": False}]
def run(make, chunk, mode=0, **kw):
    e = make(mode=mode, **kw)
    out = [e.feed(data[i:i + chunk]) for i in range(0, len(data), chunk)]
    out.append(e.finish())
    return b"".join(out)
for kw in rng.sample(OPTIONS, 4):
    a = run(_onion.Engine, rng.choice([1, 2, 5, 64, 4096, 1 << 20]), **kw)
    b = run(PyEngine, 1 << 20, **kw)
    if a != b:
        print("DIFFERENT OUTPUT", kw)
        sys.exit(3)
# pass 1 and pass 2 on the same input
import io, os, tempfile
with tempfile.TemporaryDirectory() as d:
    e = _onion.Engine(mode=1, spill_dir=d)
    for i in range(0, len(data), 977):
        e.feed(data[i:i + 977])
    e.finish()
    with open(os.path.join(d, "dups"), "w+b") as fh:
        e.write_duplicates(fh)
        fh.seek(0)
        m = _onion.Engine()
        m.load_duplicates(fh)
        two = m.feed(data) + m.finish()
    if two != run(_onion.Engine, 1 << 20):
        print("TWO-PASS DIFFERS")
        sys.exit(4)
"""


def build(tmp: str, coverage: bool = False) -> str:
    inc = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    out = os.path.join(tmp, "_onion" + suffix)
    # --coverage: every child process adds its counts to the .gcda file next to the build at exit
    # (the children run one after another, so the counts merge without a race).
    cov = ["--coverage"] if coverage else []
    subprocess.run(["gcc", "-O1", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                    "-fno-sanitize-recover=all", "-fPIC", "-shared", *cov, f"-I{inc}", str(SOURCE),
                    "-o", out], check=True)
    return out


def coverage_report(tmp: str) -> str:
    """gcov's line and branch coverage of _onion.c over every input run so far."""
    notes = [f for f in os.listdir(tmp) if f.endswith(".gcno")]
    if not notes:
        return "coverage: no gcov notes file"
    res = subprocess.run(["gcov", "-b", "-n", *notes], cwd=tmp, capture_output=True, text=True)
    lines = res.stdout.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("File") and "_onion.c" in line:
            return "coverage of _onion.c: " + "; ".join(x.strip() for x in lines[k + 1:k + 5] if x.strip())
    return "coverage: " + (res.stdout.strip() or res.stderr.strip())[-500:]


def libasan() -> str:
    return subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()


VOCAB = [b"w", b"x\r", b"", b"\xff\xfe", b"caf\xc3\xa9", b"a\x00b", b"<", b"<g/>", b" ", b"\t", b"y" * 300,
         b",", b"\xe2\x80\x93", b"\xe2\x80", b"\xf0\x9f\x98\x80", b"\xc2\xa9.", b"\xef\xbc"]
TAGS = [b"<doc>", b'<doc id="1">', b"</doc>", b"<p>", b"</p>", b"<p x>", b"<doc", b"</doc>x", b"<s>",
        b"<d>", b"</d>", b"<>", b"</>"]


def make_input(rng: random.Random, seed_data: bytes | None) -> bytes:
    if seed_data and rng.random() < 0.4:
        a = rng.randrange(len(seed_data))
        data = bytearray(seed_data[a:a + rng.randrange(1, 20000)])
        for _ in range(rng.randrange(0, 20)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    vocab = VOCAB + [b"t%d" % i for i in range(rng.choice([1, 5, 50]))]
    lines = [rng.choice(TAGS) if rng.random() < rng.choice([0.05, 0.2, 0.5]) else rng.choice(vocab)
             for _ in range(rng.randrange(0, rng.choice([10, 300, 3000])))]
    sep = rng.choice([b"\n", b"\n", b"\r\n"])
    data = sep.join(lines)
    return data + sep if rng.random() < 0.6 else data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100, help="inputs to try (default 100)")
    ap.add_argument("--seconds", type=float, default=0, help="run for this long instead of --runs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seed-file", help="a vertical file whose mutated slices are inputs too")
    ap.add_argument("--keep-dir", default="fuzz-onion-failures", help="where failing inputs are saved")
    ap.add_argument("--coverage", action="store_true",
                    help="build with gcov counters and print line/branch coverage of _onion.c at the end")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    seed_data = Path(args.seed_file).read_bytes()[:5_000_000] if args.seed_file else None
    env = dict(os.environ, LD_PRELOAD=libasan(), ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    failures = 0
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="fuzz-onion-") as tmp:
        build(tmp, args.coverage)
        path = os.path.join(tmp, "input.vert")
        i = 0
        while (time.time() - t0 < args.seconds) if args.seconds else (i < args.runs):
            data = make_input(rng, seed_data)
            with open(path, "wb") as fh:
                fh.write(data)
            res = subprocess.run([sys.executable, "-c", CHILD, tmp, str(REPO), path, str(i)], env=env,
                                 capture_output=True, text=True)
            if res.returncode != 0:
                failures += 1
                os.makedirs(args.keep_dir, exist_ok=True)
                keep = os.path.join(args.keep_dir, f"input-{args.seed}-{i}.vert")
                with open(keep, "wb") as fh:
                    fh.write(data)
                print(f"FAILURE on input {i} (saved as {keep}), status {res.returncode}:\n"
                      f"{res.stdout[-2000:]}{res.stderr[-4000:]}", file=sys.stderr)
            i += 1
        cov = coverage_report(tmp) if args.coverage else ""
    print(f"fuzz_onion: {i} inputs, each in a fresh process under ASan+UBSan, {failures} failures, "
          f"{time.time() - t0:.0f} s")
    if cov:
        print(cov)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
