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

    manifest = read_manifest(args.directory)
    check_output_path(args.output)
    _check_format(args.output, manifest)
    if args.output == "-":
        merge_parts(args.directory, "-")
        return 0
    with OutputLock(args.output):
        merge_parts(args.directory, args.output)
    return 0


def _check_format(output: str, manifest: dict) -> None:
    """Refuse an output whose name promises another format than the parts' (``-o c.jsonl`` for
    vertical parts wrote vertical text under a JSON Lines name)."""
    import os

    from ..errors import OptionError
    from ..writers.base import FORMAT_SUFFIXES

    base = output[:-3] if output.endswith(".gz") else output
    named = FORMAT_SUFFIXES.get(os.path.splitext(os.path.basename(base))[1].lower())
    fmt = manifest.get("format")
    if output != "-" and named and fmt and named != fmt:
        raise OptionError(f"{output} names a {named} file, but the parts are {fmt} "
                          f"(suffix {manifest.get('suffix') or '?'}); choose an output name of that format")
