"""``corpustool stoplist build|list``: derive stoplists from text, list the available ones."""
from __future__ import annotations

import argparse
import gzip
import io
import sys
from typing import Iterator

from ..errors import OptionError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stoplist", help="build a stoplist from a text sample, or list the stoplists",
                       description="Stoplists for jusText and language identification.")
    ssub = p.add_subparsers(dest="stoplist_command", metavar="SUBCOMMAND", parser_class=type(p))

    b = ssub.add_parser(
        "build", help="the most frequent words of a text sample as a stoplist",
        description="Write the TOP most frequent words of the text sample(s), lower-cased, one per line "
                    "(Pomikálek's thesis, Sect. 2.9.9: the ~300 most frequent words work for jusText as "
                    "well as a hand-made list). Numbers and punctuation are not counted; in scripts without "
                    "spaces (Chinese, Japanese, Thai) a character is a word. Vertical files "
                    "(.vert, .vrt) are read as tokens: the first column of every token line, "
                    "structure tags (<doc>, <p>, <g/> ...) left out. With --name CODE the list goes "
                    "into the user stoplist directory as CODE.txt, and --lang CODE uses it ("
                    "$CORPUSTOOL_STOPLISTS if set, else $XDG_DATA_HOME/corpustool/stoplists, else "
                    "~/.local/share/corpustool/stoplists; 'corpustool stoplist dir' prints it).")
    b.add_argument("corpus", nargs="+", metavar="CORPUS.txt",
                   help="plain UTF-8 text or vertical file(s) ('.gz' read compressed, '-' stdin)")
    b.add_argument("--input-format", choices=("auto", "text", "vertical"), default="auto",
                   help="auto (default): vertical for .vert/.vrt[.gz], else text; stdin is text unless given")
    b.add_argument("--top", type=int, default=300, help="number of words (default 300)")
    where = b.add_mutually_exclusive_group()
    where.add_argument("--name", metavar="CODE",
                       help="install the list as the stoplist of language CODE (e.g. 'xx', an ISO 639-1 "
                            "code the justext package has no list for): written to CODE.txt in the user "
                            "stoplist directory, so that --lang CODE uses it")
    where.add_argument("-o", "--output", default="-",
                       help="output file (default stdout); use the file with --stoplist FILE (or --name "
                            "CODE to install it for --lang CODE)")
    b.add_argument("--capitalised", action="store_true",
                   help="also write each word with its first letter capitalised (the thesis' form, for "
                        "tools that match case-sensitively)")
    b.add_argument("--counts", action="store_true", help="write 'word<TAB>count' lines (not a stoplist)")
    b.set_defaults(func=run_build)

    ls = ssub.add_parser(
        "list", help="list the languages with a stoplist: code, name, words, origin, file",
        description="One line per language with a stoplist, tab-separated: code, name, number of words, "
                    "origin (justext package, user directory or checkout stoplists/) and the file. The "
                    "user stoplist directory is named on stderr.")
    ls.set_defaults(func=run_list)
    d = ssub.add_parser("dir", help="print the user stoplist directory (where 'stoplist build --name' writes)",
                        description="Print the user stoplist directory: $CORPUSTOOL_STOPLISTS if set, else "
                                    "$XDG_DATA_HOME/corpustool/stoplists, else "
                                    "~/.local/share/corpustool/stoplists. It need not exist yet.")
    d.set_defaults(func=run_dir)
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


def _install_target(code: str):
    """The user-directory file for ``--name CODE``; refuses a code the justext package covers."""
    from ..language import stoplists as sl

    low = code.strip().lower().replace("_", "-")
    if low in sl.ISO_TO_JUSTEXT:
        raise OptionError(f"--name {code}: the justext package's list is the stoplist of "
                          f"{sl.ISO_TO_JUSTEXT[low]} ({low}) and is not replaced (our jusText engines take "
                          f"the package's decisions); write the list with -o FILE and clean with --stoplist FILE")
    if not sl.valid_list_code(low):
        raise OptionError(f"--name {code}: not a language code (two or three letters, e.g. 'xx' or 'zh')")
    return low, sl.user_stoplist_dir() / f"{low}.txt"


def run_build(args: argparse.Namespace) -> int:
    from ..language.stoplists import build_stoplist

    if args.name and args.counts:
        raise OptionError("--counts writes 'word<TAB>count' lines, not a stoplist: not with --name")
    if args.capitalised and args.counts:
        raise OptionError("--capitalised adds capitalised forms to a stoplist; --counts writes the counted "
                          "(lower-cased) words: not both")
    target = _install_target(args.name) if args.name else None
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
    if target is not None:
        code, path = target
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(body, encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            raise OptionError(f"cannot write {path}: {exc.strerror}") from None
        from ..language.stoplists import refresh

        refresh()
        print(f"corpustool stoplist: wrote {path} ({len(ranked)} words): --lang {code} uses it",
              file=sys.stderr)
    elif args.output == "-":
        sys.stdout.write(body)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(body)
        except OSError as exc:
            raise OptionError(f"cannot write {args.output}: {exc.strerror}") from None
        if not args.counts:
            print(f"corpustool stoplist: wrote {args.output}: use it with --stoplist {args.output} "
                  f"(or build with --name CODE to use it as --lang CODE)", file=sys.stderr)
    if len(ranked) < args.top:
        print(f"corpustool stoplist: only {len(ranked)} distinct words in the input", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from ..language.stoplists import (available_languages, stoplist, stoplist_origin, stoplist_source,
                                      user_stoplist_dir, user_stoplist_dir_origin)

    for code, name in available_languages().items():
        sys.stdout.write(f"{code}\t{name}\t{len(stoplist(code))}\t{stoplist_origin(code)}\t"
                         f"{stoplist_source(code)}\n")
    folder = user_stoplist_dir()
    state = "" if folder.is_dir() else ", not created yet"
    print(f"corpustool stoplist: user stoplist directory {folder} ({user_stoplist_dir_origin()}{state}); "
          f"'corpustool stoplist build SAMPLE.txt --name CODE' puts a list there", file=sys.stderr)
    return 0


def run_dir(args: argparse.Namespace) -> int:
    from ..language.stoplists import user_stoplist_dir

    print(user_stoplist_dir())
    return 0
