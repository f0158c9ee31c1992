"""``corpustool dedup-near`` (near-duplicate filter) and ``corpustool shingle-params``."""
from __future__ import annotations

import argparse
import sys

from ..dedup.shingling import DEFAULT_NGRAM, DEFAULT_THRESHOLD, choose_params
from ..errors import OptionError
from .common import add_stats_options, run_stream_command

_TABLE_POINTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)


def _threshold(value: str) -> float:
    try:
        v = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0.0 < v <= 1.0:
        raise argparse.ArgumentTypeError(f"threshold must be in (0, 1], not {value}")
    return v


def _positive_int(value: str) -> int:
    try:
        v = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {value}")
    return v


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dedup-near", help="drop near-duplicate documents (Broder's shingling), JSON Lines filter",
                       description="Read documents as JSON Lines on stdin, drop near-duplicates of documents "
                                   "kept earlier (resemblance of word n-gram shingles >= threshold, Pomikálek's "
                                   "thesis, Sect. 3.2.1), write the rest to stdout.")
    p.add_argument("--threshold", type=_threshold, default=DEFAULT_THRESHOLD,
                   help=f"resemblance threshold in (0, 1] (default {DEFAULT_THRESHOLD})")
    p.add_argument("--mode", choices=("stream", "batch"), default="stream",
                   help="stream: decide each document at once against those kept so far (default); "
                        "batch: all candidate pairs of the whole input (spilled to disk above the memory "
                        "budget), clusters = connected components of verified pairs; with --keep first it "
                        "keeps exactly what stream mode keeps")
    p.add_argument("--keep", choices=("first", "longest"), default="first",
                   help="first: a document is dropped iff it resembles an earlier kept one; longest: "
                        "the longest member of a cluster is kept first, then members that resemble no kept "
                        "one (needs --mode batch)")
    p.add_argument("--clusters", metavar="FILE", help="write clusters (member ids, urls, pairwise resemblance) "
                                                      "as JSON Lines to FILE")
    p.add_argument("--ngram", type=_positive_int, default=DEFAULT_NGRAM,
                   help=f"shingle length in words (default {DEFAULT_NGRAM})")
    p.add_argument("--sketch-size", type=_positive_int, default=None, metavar="T",
                   help="min-wise values per document (default: chosen from the threshold)")
    p.add_argument("--memory-budget", type=_positive_int, default=256, metavar="MB",
                   help="batch mode: MB of (feature, document) and of (document, document) pairs held in "
                        "memory before they are spilled to disk in sorted runs (default 256)")
    p.add_argument("--tmpdir", help="directory for batch mode's temporary files")
    add_stats_options(p)
    p.set_defaults(func=_run_dedup_near)

    q = sub.add_parser("shingle-params", help="show the shingling parameters chosen for a threshold",
                       description="Print the sketch size t, super-shingles k of s values and the r shared "
                                   "super-shingles chosen for a resemblance threshold, and the probability "
                                   "(Eq. 3.1 of Pomikálek's thesis, then full-sketch verification) that a pair of each resemblance "
                                   "is reported.")
    q.add_argument("--threshold", type=_threshold, default=DEFAULT_THRESHOLD)
    q.add_argument("--ngram", type=_positive_int, default=DEFAULT_NGRAM)
    q.add_argument("--sketch-size", type=_positive_int, default=None, metavar="T")
    q.set_defaults(func=_run_shingle_params)


def _run_dedup_near(args: argparse.Namespace) -> int:
    from ..dedup.near import NearDuplicates

    if args.keep == "longest" and args.mode != "batch":
        raise OptionError("--keep longest needs --mode batch")
    stage = NearDuplicates(threshold=args.threshold, mode=args.mode, keep=args.keep, clusters=args.clusters,
                           ngram=args.ngram, t=args.sketch_size, memory_budget=args.memory_budget * 1024 * 1024,
                           tmpdir=args.tmpdir)
    return run_stream_command(args, stage)


def _run_shingle_params(args: argparse.Namespace) -> int:
    p = choose_params(args.threshold, ngram=args.ngram, t=args.sketch_size)
    out = sys.stdout
    out.write(f"threshold {p.threshold:g}  ngram {p.ngram}\n")
    out.write(f"t = {p.t}  (sketch size; a pair is a near-duplicate when >= {p.need} of {p.t} values agree)\n")
    out.write(f"k = {p.k}  (super-shingles per document)\n")
    out.write(f"s = {p.s}  (sketch values per super-shingle)\n")
    out.write(f"r = {p.r}  (shared super-shingles that make a candidate pair)\n\n")
    out.write(f"{'resemblance':>11}  {'P(k,s,r) Eq.3.1':>15}  {'verified':>9}  {'reported':>9}\n")
    points = sorted(set(_TABLE_POINTS) | {round(p.threshold, 4)})
    for rho in points:
        f, v = p.filter_probability(rho), p.verify_probability(rho)
        mark = "  <- threshold" if abs(rho - p.threshold) < 1e-9 else ""
        out.write(f"{rho:>11.2f}  {f:>15.4f}  {v:>9.4f}  {f * v:>9.4f}{mark}\n")
    return 0
