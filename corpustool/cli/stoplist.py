"""``corpustool stoplist build|list``: derive stoplists from text, list the available ones."""
from __future__ import annotations

import argparse
import gzip
import io
import sys
from typing import Iterator

from ..extractors.base import OptionError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stoplist", help="build a stoplist from a text sample, or list the stoplists",
                       description="Stoplists for jusText and language identification.")
    ssub = p.add_subparsers(dest="stoplist_command", metavar="SUBCOMMAND", parser_class=type(p))

    b = ssub.add_parser(
        "build", help="the most frequent words of a text sample as a stoplist",
        description="Write the TOP most frequent words of the text sample(s), lower-cased, one per line "
                    "(seed 003, Sect. 2.9.9: the ~300 most frequent words work for jusText as well as a "
                    "hand-made list). Numbers and punctuation are not counted; in scripts without "
                    "spaces (Chinese, Japanese, Thai) a character is a word. Vertical files "
                    "(.vert, .vrt) are read as tokens: the first column of every token line, "
                    "structure tags (<doc>, <p>, <g/> ...) left out.")
    b.add_argument("corpus", nargs="+", metavar="CORPUS.txt",
                   help="plain UTF-8 text or vertical file(s) ('.gz' read compressed, '-' stdin)")
    b.add_argument("--input-format", choices=("auto", "text", "vertical"), default="auto",
                   help="auto (default): vertical for .vert/.vrt[.gz], else text; stdin is text unless given")
    b.add_argument("--top", type=int, default=300, help="number of words (default 300)")
    b.add_argument("-o", "--output", default="-",
                   help="output file (default stdout), e.g. stoplists/xx.txt for a language the justext "
                        "package lacks; for other languages pass the file with --stoplist")
    b.add_argument("--capitalised", action="store_true",
                   help="also write each word with its first letter capitalised (the thesis' form, for "
                        "tools that match case-sensitively)")
    b.add_argument("--counts", action="store_true", help="write 'word<TAB>count' lines (not a stoplist)")
    b.set_defaults(func=run_build)

    ls = ssub.add_parser("list", help="list the languages with a stoplist: code, name, words, source")
    ls.set_defaults(func=run_list)
    p.set_defaults(func=lambda args: (p.print_help(sys.stderr), 2)[1])


def _lines(paths: list[str]) -> Iterator[str]:
    for path in paths:
        if path == "-":
            yield from io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
            continue
        try:
            fh = gzip.open(path, "rt", encoding="utf-8", errors="replace") if path.endswith(".gz") \
                else open(path, encoding="utf-8", errors="replace")
        except OSError as exc:
            raise OptionError(f"cannot read {path}: {exc.strerror}") from None
        with fh:
            try:
                yield from fh
            except (OSError, EOFError) as exc:   # truncated gzip: use what was read, say so
                print(f"corpustool stoplist: {path}: read error, using the text before it: {exc}",
                      file=sys.stderr)


VERTICAL_SUFFIXES = (".vert", ".vrt", ".vert.gz", ".vrt.gz")
_UNESCAPE = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&amp;", "&"))


def is_vertical(path: str, input_format: str) -> bool:
    if input_format != "auto":
        return input_format == "vertical"
    return path != "-" and path.lower().endswith(VERTICAL_SUFFIXES)


def _vertical_tokens(lines: Iterator[str]) -> Iterator[str]:
    """The token column of vertical text: markup lines (``<doc ...>``, ``<p>``, ``<g/>``) are structure."""
    for line in lines:
        line = line.rstrip("\r\n")
        if not line or (line.startswith("<") and line.endswith(">")):
            continue
        token = line.split("\t", 1)[0]
        if "&" in token:
            for esc, ch in _UNESCAPE:
                token = token.replace(esc, ch)
        yield token


def _tokens(paths: list[str], input_format: str) -> Iterator[str]:
    """Every file as tokens: vertical files' token column, text files tokenized here."""
    from ..text.tokenizer import tokenize

    for path in paths:
        if is_vertical(path, input_format):
            yield from _vertical_tokens(_lines([path]))
        else:
            for line in _lines([path]):
                yield from tokenize(line)[0]


def run_build(args: argparse.Namespace) -> int:
    from ..language.stoplists import build_stoplist

    ranked, total = build_stoplist(_tokens(args.corpus, args.input_format), top=args.top, tokens=True)
    if not ranked:
        raise OptionError("no words in the input")
    if args.counts:
        body = "".join(f"{w}\t{n}\n" for w, n in ranked)
    else:
        words = []
        for w, _ in ranked:
            words.append(w)
            cap = w[:1].upper() + w[1:]
            if args.capitalised and cap != w:
                words.append(cap)
        header = (f"# {len(ranked)} most frequent of {total} words ({', '.join(args.corpus)}); "
                  f"built by corpustool stoplist build\n")
        body = header + "".join(f"{w}\n" for w in words)
    if args.output == "-":
        sys.stdout.write(body)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(body)
        except OSError as exc:
            raise OptionError(f"cannot write {args.output}: {exc.strerror}") from None
    if len(ranked) < args.top:
        print(f"corpustool stoplist: only {len(ranked)} distinct words in the input", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from ..language.stoplists import available_languages, stoplist, stoplist_source

    for code, name in available_languages().items():
        sys.stdout.write(f"{code}\t{name}\t{len(stoplist(code))}\t{stoplist_source(code)}\n")
    return 0
