"""The pipeline's stages as shell filters over a JSON Lines document stream.

    corpustool read crawl.warc.gz | corpustool clean --lang de | corpustool langfilter --lang de \
        | corpustool dedup-exact | corpustool vert > corpus.vert
"""
from __future__ import annotations

import argparse
import sys

from ..options import add_options
from .common import (RejectsWriter, add_clean_options, add_stats_options, add_vertical_options, check_outputs,
                     check_stats_file,
                     clean_kwargs, read_stream, run_stream_command, show_stats_table, write_stream)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("read", help="read crawls and write a JSON Lines document stream",
                       description="Read WARC/ARC, HTML files or directories, JSON Lines, or '-' (stdin) and "
                                   "write one JSON document per line (raw HTML base64-encoded).")
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("--input-format", default="auto", choices=("auto", "warc", "html", "jsonl", "text"))
    add_options(p, ("max_bytes",))
    add_stats_options(p)
    p.set_defaults(func=run_read)

    p = sub.add_parser("clean", help="decode and remove boilerplate (JSON Lines in and out)",
                       description="Decode each page, choose its stoplist, classify its paragraphs with the "
                                   "extractor (jusText by default), drop pages with no good paragraph.")
    add_clean_options(p)
    p.add_argument("--detail", action="store_true",
                   help="emit every paragraph with its DOM path, tag, features and classes (also the bad ones)")
    add_stats_options(p)
    p.set_defaults(func=run_clean)

    p = sub.add_parser("dedup-exact", help="drop documents whose clean text was seen before",
                       description="Drop documents whose normalised clean text has the same 64-bit xxhash "
                                   "as an earlier document's.")
    add_stats_options(p)
    p.set_defaults(func=run_dedup_exact)

    p = sub.add_parser("quality", help="mark each document's quality (q, q_* on <doc>), JSON Lines filter",
                       description="Measure each document as build's quality stage does (docs/quality.md): "
                                   "the marks go to the document's metadata and on to <doc>; with --drop the "
                                   "documents judged low are dropped too (reasons counted as quality:RULE).")
    p.add_argument("--drop", action="store_true", help="also drop the documents judged low (build's --quality drop)")
    add_options(p, ("stoplist_file",))
    add_stats_options(p)
    p.set_defaults(func=run_quality)

    p = sub.add_parser("tokenize", help="tokenize the good paragraphs (JSON Lines in and out)")
    add_stats_options(p)
    p.set_defaults(func=run_tokenize)

    p = sub.add_parser("vert", help="write a JSON Lines document stream as vertical text (or text/jsonl)",
                       description="Write the kept paragraphs of each document in vertical format.")
    p.add_argument("-o", "--output", default="-", help="output file (default stdout); .gz compresses")
    p.add_argument("--format", dest="output_format", choices=("vert", "text", "jsonl"), default=None)
    add_vertical_options(p)
    add_stats_options(p, rejects=False)
    p.set_defaults(func=run_vert)

    p = sub.add_parser("extractors", help="list the available extraction methods and presets")
    p.set_defaults(func=run_extractors)


def run_read(args: argparse.Namespace) -> int:
    from ..readers import make_reader
    from ..stats import print_table, write_stats

    check_stats_file(args)
    reader = make_reader(args.inputs, input_format=args.input_format, max_bytes=args.max_bytes)
    check_outputs(args, args.inputs)
    rejects = RejectsWriter(args.rejects)
    reader.on_drop = rejects
    reader.hold_notes = True
    try:
        write_stream(reader.read())
        if reader.stats.docs_in == 0:       # an empty file or directory: say so, exit 1
            from ..errors import DataError
            raise DataError(reader.no_documents_message())
    except BaseException:
        rejects.abort()
        raise
    rejects.close()
    if args.stats:
        write_stats(args.stats, [reader.stats])
    if show_stats_table(args):
        print_table([reader.stats], file=sys.stderr)
    return 0


def run_clean(args: argparse.Namespace) -> int:
    from ..extractors.clean import Clean

    kw = clean_kwargs(args)
    stage = Clean(**kw)
    # a site-level method (urltree, archive, temex, ...) keeps every block in the clean stage and
    # decides in its stream stage, right after it, as in build
    stream_stage = getattr(stage.extractor, "stream_stage", None)
    then = stream_stage(stage.extractor.params, reason="boilerplate") if stream_stage is not None else None
    return run_stream_command(args, stage, detail=args.detail, then=then)


def run_dedup_exact(args: argparse.Namespace) -> int:
    from ..dedup.exact import ExactDuplicates

    return run_stream_command(args, ExactDuplicates())


def run_quality(args: argparse.Namespace) -> int:
    from ..quality import QualityMarks

    return run_stream_command(args, QualityMarks(mode="drop" if args.drop else "mark",
                                                 stoplist_file=args.stoplist))


def run_tokenize(args: argparse.Namespace) -> int:
    from ..text.stage import Tokenize

    return run_stream_command(args, Tokenize())


def run_vert(args: argparse.Namespace) -> int:
    from ..writers import open_writer

    from ..writers.base import format_for

    from ..stage import StageStats
    from ..stats import print_table, write_stats
    from .common import input_stats

    check_outputs(args)
    fmt = args.output_format or format_for(args.output)
    options = {"sentences": args.sentences, "target": args.target} if fmt == "vert" else {}
    writer = open_writer(args.output, fmt, **options)
    stats = StageStats("vert")
    try:
        for doc in read_stream():
            stats.count_in(doc)
            if writer.write(doc):
                stats.count_out(doc)
            else:       # no token (vertical) or no text: nothing written, as build drops it
                stats.count_drop("no-text")
        writer.close()
    except BaseException:
        writer.abort()
        raise
    table = input_stats() + [stats]
    if args.stats:
        write_stats(args.stats, table)
    if show_stats_table(args):
        print_table(table, file=sys.stderr)
    return 0


def run_extractors(args: argparse.Namespace) -> int:
    from ..extractors.justext_params import PRESETS
    from ..extractors.registry import available, get_extractor

    print("extractors:")
    for name in available():
        cls = type(get_extractor(name))
        print(f"  {name:18s} {cls.description}")
    print("jusText presets (--preset; justext: the justext package's defaults, A-D: Table 2.7 of Pomikálek's "
          "thesis):")
    for name, p in PRESETS.items():
        print(f"  {name:8s} length {p.length_low}/{p.length_high} {p.length_unit}, stopwords "
              f"{p.stopwords_low}/{p.stopwords_high}, max link density {p.max_link_density}")
    return 0
