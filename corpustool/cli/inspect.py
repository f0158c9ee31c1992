"""``corpustool inspect PAGE.html``: one page's paragraphs coloured by class, as an HTML report."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..extractors.base import OptionError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inspect", help="show why each paragraph of one page was kept or removed (HTML report)",
                       description="Run the extractor on one HTML file and write a self-contained HTML page "
                                   "with its paragraphs in reading order, each coloured by its final class, "
                                   "with its context-free class and features.")
    p.add_argument("page", metavar="PAGE.html", help="an HTML file (raw bytes; the encoding is detected)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write the report (default: PAGE.inspect.html next to the page; '-' = stdout)")
    p.add_argument("--lang", help="stoplist language (ISO 639-1 code or name), a comma-separated list or 'auto' "
                                  "(guessed from the page's stop-word density, as build does); default: the "
                                  "page's <html lang>, else guessed from its text, else English")
    p.add_argument("--extractor", help="extraction method (default: the pipeline's, see 'corpustool extractors')")
    p.add_argument("--preset", help="jusText preset: justext (lengths in characters) or A, B, C, D (tokens)")
    p.set_defaults(func=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    from ..inspect_view import inspect_page, render

    src = Path(args.page)
    try:
        raw = src.read_bytes()
    except OSError as exc:
        raise OptionError(f"cannot read {src}: {exc.strerror}") from None
    options = {"preset": args.preset} if args.preset else {}
    ins = inspect_page(raw, source=str(src), language=args.lang, extractor=args.extractor, **options)
    report = render(ins)
    if args.output == "-":
        sys.stdout.write(report)
        return 0
    out = Path(args.output) if args.output else src.with_name(src.stem + ".inspect.html")
    try:
        out.write_text(report, encoding="utf-8")
    except OSError as exc:
        raise OptionError(f"cannot write {out}: {exc.strerror}") from None
    good = sum(p.is_good for p in ins.paragraphs)
    print(f"corpustool inspect: {len(ins.paragraphs)} paragraphs, {good} good -> {out}", file=sys.stderr)
    return 0
