"""``corpustool report``: statistics JSON in, one self-contained HTML report out."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="HTML report with plots from the statistics of a build",
                       description="Turn the statistics JSON written by 'corpustool build --stats FILE' into one "
                                   "self-contained HTML file (plots embedded as PNG): corpus size after each "
                                   "stage, drops by reason, duplicate rates and, when the build profiled the "
                                   "corpus, languages, document lengths and top domains.")
    p.add_argument("stats", metavar="STATS.json", help="statistics file of 'corpustool build --stats'")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="HTML file to write")
    p.add_argument("--title", help="title of the report (default: 'Corpus build report')")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..report import load_stats, write_report

    data = load_stats(args.stats)
    write_report(data, args.output, title=args.title)
    print(f"corpustool report: wrote {args.output}", file=sys.stderr)
    return 0
