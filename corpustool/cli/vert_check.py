"""``corpustool vert-check``: would every value of a vertical file survive Manatee's or CWB's encoder?"""
from __future__ import annotations

import argparse
import sys

from ..errors import OptionError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "vert-check", help="report the values of a vertical file the corpus manager would store differently",
        description="Read a vertical file twice: with ports of the target's own reader (Manatee's encodevert, "
                    "or cwb-encode -x -s) and as corpustool's writer means it for that target. Print every "
                    "token, tag or attribute value the corpus manager would store differently (quotes, "
                    "backslashes, entities, spaces, over-long values and lines, undeclared tags), every "
                    "line it refuses, invalid UTF-8 and control characters. Exit 0 when nothing would be "
                    "lost, 1 otherwise.")
    p.add_argument("file", metavar="FILE", help="vertical file ('.gz' read compressed, '-' stdin)")
    p.add_argument("--target", choices=("manatee", "cwb"), default="manatee",
                   help="the corpus manager the file was written for (default: manatee)")
    p.add_argument("--max-reports", type=int, default=200, metavar="N",
                   help="print at most N problems (default 200; 0: all); all are counted")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..writers.vert_check import check_file

    if args.max_reports < 0:
        raise OptionError("--max-reports must be >= 0")
    name = "<stdin>" if args.file == "-" else args.file
    try:
        summary = check_file(args.file, args.target, limit=args.max_reports or None,
                             report=lambda problem: print(problem.format(name)))
    except OSError as exc:
        raise OptionError(f"cannot read {exc.filename or ''}{': ' if exc.filename else ''}"
                          f"{exc.strerror or exc}") from None
    for hint in summary.hints:
        print(hint, file=sys.stderr)
    verdict = "nothing would be lost" if not summary.problems else "would not round-trip"
    print(f"corpustool vert-check: {summary.problems} problem(s) in {summary.lines} lines "
          f"(target {args.target}): {verdict}")
    return 1 if summary.problems else 0
