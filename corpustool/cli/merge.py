"""``corpustool merge``: the parts of a Spark build (``OUTPUT.parts/``) into one corpus file."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("merge", help="join the parts of a Spark build into one corpus file",
                       description="Concatenate the part files of DIR (written by build --engine spark "
                                   "--no-merge), in document order, into one output: byte-identical to the "
                                   "single file of a local build. Every part is checked against DIR's manifest.")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("-o", "--output", required=True, help="the corpus file (.gz: compressed); - for stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..writers.base import OutputLock, check_output_path
    from ..writers.parts import merge_parts, read_manifest

    read_manifest(args.directory)
    check_output_path(args.output)
    if args.output == "-":
        merge_parts(args.directory, "-")
        return 0
    with OutputLock(args.output):
        merge_parts(args.directory, args.output)
    return 0
