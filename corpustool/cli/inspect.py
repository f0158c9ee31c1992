"""``corpustool inspect PAGE.html``: one page's paragraphs coloured by class, as an HTML report."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import OptionError
from ..options import add_options
from .common import add_extractor_option, extractor_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inspect", help="show why each paragraph of one page was kept or removed (HTML report)",
                       description="Run the extractor on one HTML file and write a self-contained HTML page "
                                   "with its paragraphs in reading order, each coloured by its final class, "
                                   "with its context-free class and features.")
    p.add_argument("page", metavar="PAGE.html",
                   help="an HTML file (raw bytes; the encoding is detected; .gz is decompressed; a plain-text "
                        "file is read as build reads it), or a WARC/ARC/JSON Lines file with --record or --url")
    p.add_argument("--record", type=int, metavar="N",
                   help="inspect the N-th page (1 = the first) of a WARC, ARC or JSON Lines file")
    p.add_argument("--url", help="inspect the page with this URL of a WARC, ARC or JSON Lines file")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write the report (default: PAGE.inspect.html next to the page; '-' = stdout)")
    p.add_argument("--lang", help="stoplist language (ISO 639-1 code or name), a comma-separated list or 'auto' "
                                  "(guessed from the page's stop-word density, as build does); default: the "
                                  "page's <html lang>, else guessed from its text, else English")
    p.add_argument("--extractor", help="extraction method (default: the pipeline's, see 'corpustool extractors')")
    p.add_argument("--preset", help="jusText preset: justext (lengths in characters) or A, B, C, D (tokens)")
    add_options(p, ("comments",))
    add_extractor_option(p)
    p.set_defaults(func=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    from ..inspect_view import inspect_page, render

    src = Path(args.page)
    try:
        raw = src.read_bytes()
    except OSError as exc:
        raise OptionError(f"cannot read {src}: {exc.strerror}") from None
    raw = page_bytes(args, str(src), raw)
    options = {"preset": args.preset} if args.preset else {}
    if args.comments is not None:
        options["comments"] = args.comments
    options.update(extractor_options(args))
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


_ARCHIVES = ("a WARC archive", "an ARC archive", "JSON")


def page_bytes(args: argparse.Namespace, path: str, raw: bytes) -> bytes:
    """The page to inspect: the file itself when it is a page (HTML, gzip-compressed HTML, plain text),
    the page --record/--url chooses when it is an archive or a JSON Lines file; anything else is refused
    (DataError, exit 1), so that a WARC or binary data is never shown as one "good" paragraph."""
    from ..readers.sniff import describe_content

    kind = describe_content(raw[:65536])
    base = kind.replace(" (gzip-compressed)", "")
    if base in _ARCHIVES:
        return _chosen_page(args, path, kind)
    if args.record is not None or args.url is not None:
        raise OptionError(f"--record and --url choose a page of a WARC, ARC or JSON Lines file; {path} "
                          f"looks like {kind}")
    return one_page_bytes(path, raw)


def one_page_bytes(path: str, raw: bytes) -> bytes:
    """The page a file that is one page holds (HTML, gzip-compressed HTML, plain text), as the
    extractors take it; anything else is refused (DataError)."""
    import gzip
    import zlib

    from ..errors import DataError
    from ..readers.html_files import text_to_html
    from ..readers.sniff import describe_content, sniff_format

    kind = describe_content(raw[:65536])
    base = kind.replace(" (gzip-compressed)", "")
    if kind == "empty":
        raise DataError(f"{path} is empty: no page")
    if base not in ("HTML", "plain text", "UTF-16 text"):
        raise DataError(f"{path} is not an HTML page: it looks like {kind}")
    if kind.endswith("(gzip-compressed)"):
        try:
            raw = gzip.decompress(raw)
        except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
            raise DataError(f"{path}: damaged gzip data ({exc})") from None
    if sniff_format(raw[:4096]) == "text":
        return text_to_html(raw)      # paragraphs between blank lines, as build reads a text file
    return raw


def _chosen_page(args: argparse.Namespace, path: str, kind: str) -> bytes:
    from ..errors import DataError
    from ..readers import make_reader

    name = "a JSON Lines file" if kind.startswith("JSON") else kind
    if args.record is None and args.url is None:
        raise OptionError(f"{path} is {name}, not one page: choose one of its pages with --record N "
                          f"(1 = the first) or --url URL")
    if args.record is not None and args.record < 1:
        raise OptionError("--record counts from 1")
    n = 0
    for doc in make_reader([path], input_format="jsonl" if kind.startswith("JSON") else "auto").read():
        if doc.drop_reason or (doc.raw is None and doc.html is None):
            continue
        n += 1
        if n == args.record or (args.url is not None and doc.url == args.url):
            return doc.raw if doc.raw is not None else doc.html.encode("utf-8")
    wanted = f"page {args.record}" if args.record is not None else f"page with URL {args.url}"
    raise DataError(f"{path} holds no {wanted} ({n} page{'s' if n != 1 else ''})")
