"""``corpustool onion``, ``corpustool dupngrams`` and ``corpustool dedup-para``.

``onion`` is a drop-in for the onion program (corpus.tools): it reads a
vertical file and writes it with every line prefixed ``0<TAB>`` (kept) or
``1<TAB>`` (duplicate), or only the kept lines with ``-s``. Its short options
are onion's: ``-n 7 -t 0.5 -d doc -p p -l 20``, ``-m`` no smoothing, ``-f``
precomputed duplicate n-grams, ``-q``; so is its algorithm
(:mod:`corpustool.dedup.onion_vertical`, compiled), and lines are read and
written as bytes, exactly. Five defaults differ from onion's, each for a
measured reason (docs/onion.md: punctuation left out of n-grams, whole
paragraphs matched, repeats inside a document counted as whole paragraphs,
no stub rule, the context rule);
``--onion-compat`` gives onion's behaviour. ``dupngrams`` writes the ``-f`` file (pass 1 of the
two-pass form; it replaces onion's ``hashgen | hashdup``).

Three extensions run on the same engine: ``--whole-paragraphs`` (a repeated
paragraph shorter than n is found), ``--within-document paragraphs|none`` and
``--skip-punct``. The options ``--skip-stopwords``, ``--document-level`` (or
``-p ''``) and ``--reorder`` select the extended engine of
:mod:`corpustool.dedup.onion` (numpy; text read as UTF-8).
"""
from __future__ import annotations

import argparse
import sys

from ..dedup.onion_files import DEFAULT_NEAR, VerticalOnion
from ..dedup.onion_options import OnionOptions
from ..errors import OptionError
from ..options import ONION_OPTIONS, add_options


def _size(value: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    v = value.strip().lower().rstrip("b")
    try:
        if v and v[-1] in units:
            return int(float(v[:-1]) * units[v[-1]])
        return int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid size {value!r} (e.g. 512M, 4G)") from None


def _add_ngram_options(p: argparse.ArgumentParser) -> None:
    """The n-gram options of `onion` and `dupngrams` (vertical input; `dupngrams --jsonl` too)."""
    add_options(p, ("n",), ONION_OPTIONS, short=True)
    p.add_argument("--skip-punct", action="store_true", default=None,
                   help="leave punctuation out of n-grams and of a paragraph's duplicate share (vertical input: "
                        "the default, off with --onion-compat or --no-skip-punct)")
    add_options(p, ("skip_stopwords", "stoplist", "hash_bits", "whole_paragraphs"), ONION_OPTIONS)
    p.add_argument("--whole-paragraphs", action="store_true", default=None,
                   help="also match every paragraph as a whole, so that repeated paragraphs shorter than "
                        "n are found (the default; off with --onion-compat)")
    p.add_argument("--no-skip-punct", action="store_true",
                   help="punctuation tokens take part in n-grams, as in onion")
    p.add_argument("--onion-compat", action="store_true",
                   help="onion 1.2's behaviour: punctuation in n-grams, no whole-paragraph matching, every "
                        "n-gram repeated inside a document counted, onion's stub rule with -l 20, no context rule (options given "
                        "explicitly still apply; docs/onion.md says what each default changes and why)")
    p.add_argument("--engine", choices=("onion", "extended"), default=None,
                   help="onion: onion's algorithm over bytes (compiled; the default); extended: the "
                        "numpy engine of dedup-para (chosen anyway by --skip-stopwords, "
                        "--document-level, --reorder)")
    p.add_argument("-d", "--doc-tag", default=VerticalOnion.doc_tag, help="document tag (default doc)")
    p.add_argument("-p", "--par-tag", default=VerticalOnion.par_tag,
                   help="paragraph tag (default p); empty: de-duplicate whole documents")
    p.add_argument("--max-doc-tokens", type=int, default=VerticalOnion.max_doc_tokens,
                   help="extended engine: cut documents longer than this many tokens (default 5,000,000; "
                        "onion's engine holds a whole document, ~40 bytes per token)")


def onion_options_from_args(args: argparse.Namespace, prefix: str = ""):
    """The paragraph de-duplication stage's options (`dedup-para`; `build` with prefix ``--onion-``)."""
    options = OnionOptions(**{name: opt.value(args, prefix) for name, opt in ONION_OPTIONS.items()})
    if options.stoplist and not options.skip_stopwords:
        # the list would be read by nothing: say so rather than build as if it had been used
        flag = (prefix or "--") + "{}"
        raise OptionError(f"{flag.format('stoplist')} is the list of {flag.format('skip-stopwords')}, which is "
                          f"not given: add {flag.format('skip-stopwords')} or leave {flag.format('stoplist')} out")
    return options


def resolve_vertical_defaults(args: argparse.Namespace) -> None:
    """Fill the options left unset on vertical input: corpustool's defaults, or onion's with --onion-compat.

    Measured on the planted-duplicate benchmark (docs/onion.md): whole-paragraph matching finds the
    repeated paragraphs shorter than n that onion misses, within-document repeats of whole paragraphs
    only (not of n-grams) stop the loss of unique paragraphs that repeat a page's own phrases, no stub
    rule keeps the unique titles onion's rule removes next to duplicates, and the context rule removes
    rewritten copies' partly duplicate paragraphs.
    """
    if getattr(args, "jsonl", False) or getattr(args, "par_tag", None) is None:
        args.skip_punct = bool(args.skip_punct)      # JSON Lines: opt-in, as dedup-para
        return
    compat = bool(getattr(args, "onion_compat", False))
    if args.no_whole_paragraphs and args.whole_paragraphs:
        raise OptionError("--whole-paragraphs and --no-whole-paragraphs exclude each other")
    args.whole_paragraphs = False if args.no_whole_paragraphs else bool(args.whole_paragraphs or not compat)
    if args.no_skip_punct and args.skip_punct:
        raise OptionError("--skip-punct and --no-skip-punct exclude each other")
    args.skip_punct = False if args.no_skip_punct else bool(args.skip_punct or not compat)
    if getattr(args, "within_document", None) is None:
        args.within_document = "paragraphs" if args.whole_paragraphs and not compat else "ngrams"
    if not hasattr(args, "threshold"):           # dupngrams: nothing more to decide
        return
    if args.stub_rule is None:
        args.stub_rule = "onion" if compat else "none"
    if args.near_threshold is None:
        args.near_threshold = -1.0 if compat else DEFAULT_NEAR
    if args.near_threshold != args.near_threshold or args.near_threshold > args.threshold:
        raise OptionError(f"--near-threshold must be at most -t ({args.threshold}), or negative (off), "
                          f"not {args.near_threshold}")
    if args.no_smoothing:
        args.stub_rule, args.near_threshold = "none", -1.0


def register(sub: argparse._SubParsersAction) -> None:
    register_vertical(sub)
    register_dedup_para(sub)


def register_vertical(sub: argparse._SubParsersAction) -> None:
    """onion and dupngrams: their parsers need nothing beyond this module (fast start-up)."""
    p = sub.add_parser("onion", help="mark or strip duplicate paragraphs of a vertical file (onion-compatible)",
                       description="De-duplicate a vertical file by n-grams (Pomikálek's thesis, Algorithm 3.1, "
                                   "block level with context smoothing). Every line is written prefixed with 0<TAB> "
                                   "(kept) or 1<TAB> (duplicate), or only kept lines with -s.")
    p.add_argument("input", nargs="?", default="-", metavar="FILE", help="vertical file (default stdin; .gz ok)")
    _add_ngram_options(p)
    add_options(p, ("threshold",), ONION_OPTIONS, short=True)
    p.add_argument("-s", "--strip", action="store_true", help="write only the kept lines, unmarked")
    p.add_argument("-m", "--no-smoothing", action="store_true",
                   help="no smoothing: neither the stub rule nor the context rule")
    p.add_argument("-l", "--max-stub-length", type=int, default=20,
                   help="stub rule: remove the non-duplicate paragraphs between two duplicates (or a duplicate "
                        "and the document's edge) when they have at most this many tokens (default 20, as onion)")
    p.add_argument("--stub-rule", choices=("onion", "inner", "none"), default=None,
                   help="onion: a run of paragraphs between duplicates or a document edge, at most -l tokens "
                        "in all (onion's; the default with --onion-compat); inner: only between two "
                        "duplicates, each paragraph at most -l tokens; none: no stubs removed (the default: "
                        "onion's rule removes unique titles next to duplicates, docs/onion.md)")
    p.add_argument("--near-threshold", type=float, default=None, metavar="T",
                   help="context rule (Pomikálek's thesis, Sect. 3.5.2): a paragraph more than T but at most -t "
                        "duplicate is removed when the nearest other paragraphs on both sides are duplicates "
                        "(or document edges); default 0.1, a negative value switches it off (as onion)")

    p.add_argument("-f", "--dup-ngrams", metavar="FILE",
                   help="duplicate n-gram hashes from 'corpustool dupngrams' (two-pass mode, pass 2)")
    p.add_argument("--document-level", action="store_true", help="remove whole duplicate documents")
    p.add_argument("--within-document", choices=("paragraphs", "ngrams", "none"), default=None,
                   help="repeats inside one document: any n-gram seen earlier in the document (default, as "
                        "onion), exact repeats of a whole paragraph (with --whole-paragraphs), or none")
    p.add_argument("--two-pass", action="store_true",
                   help="find duplicate n-grams first (reads FILE twice; memory for duplicates only)")
    p.add_argument("--reorder", action="store_true",
                   help="with --two-pass: decide documents in order of increasing share of duplicate n-grams")
    p.add_argument("--memory", type=_size, default=VerticalOnion.memory,
                   help="extended engine: pass 1 memory budget (default 1G; onion's engine needs ~16 MiB "
                        "plus 16 bytes per n-gram / 256 at the end)")
    p.add_argument("--tmpdir", help="directory for pass 1 temporary files (8 bytes per n-gram)")
    p.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    p.add_argument("--stats", metavar="FILE", help="write statistics as JSON to FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="no warnings summary or statistics on stderr")
    p.set_defaults(func=run_onion)

    p = sub.add_parser("dupngrams", help="write the hashes of n-grams occurring at least twice (for onion -f)",
                       description="Pass 1 of two-pass de-duplication: find the n-grams occurring at least "
                                   "twice in the input with bounded memory and write their hashes.")
    p.add_argument("input", nargs="?", default="-", metavar="FILE",
                   help="vertical file, or JSON Lines documents with --jsonl (default stdin)")
    _add_ngram_options(p)
    p.add_argument("--jsonl", action="store_true", help="the input is a JSON Lines document stream")
    p.add_argument("--memory", type=_size, default=VerticalOnion.memory, help="memory budget (default 1G)")
    p.add_argument("--tmpdir", help="directory for temporary files")
    p.add_argument("-o", "--output", required=True, help="file to write")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=run_dupngrams)


def register_dedup_para(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dedup-para", help="remove duplicate paragraphs by n-grams (JSON Lines in and out)",
                       description="Block-level n-gram de-duplication of a JSON Lines document stream "
                                   "(single pass; with --dup-ngrams, pass 2 of the two-pass form).")
    add_options(p, tuple(ONION_OPTIONS), ONION_OPTIONS, short=True)
    p.add_argument("--dup-ngrams", metavar="FILE", help="duplicate n-grams from 'corpustool dupngrams --jsonl'")
    p.add_argument("--detail", action="store_true", help="emit all paragraphs with their classes")
    from .common import add_stats_options
    add_stats_options(p)
    p.set_defaults(func=run_dedup_para)




class _Warnings:
    """Collects reader problems; prints each (up to a limit) unless quiet."""

    LIMIT = 50

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.count = 0

    def __call__(self, message: str) -> None:
        self.count += 1
        if self.quiet:
            return
        if self.count <= self.LIMIT:
            print(f"corpustool onion: {message}", file=sys.stderr)
        elif self.count == self.LIMIT + 1:
            print("corpustool onion: further warnings suppressed (see the summary)", file=sys.stderr)


def _vertical_run(args: argparse.Namespace) -> VerticalOnion:
    """The run that `onion` or `dupngrams` asks for (after :func:`resolve_vertical_defaults`)."""
    jsonl = getattr(args, "jsonl", False)
    fields = dict(n=args.ngram, skip_punct=bool(args.skip_punct), skip_stopwords=args.skip_stopwords,
                  stoplist=args.stoplist, hash_bits=args.hash_bits,
                  whole_paragraphs=not args.no_whole_paragraphs if jsonl else bool(args.whole_paragraphs),
                  within_document=None if jsonl else getattr(args, "within_document", None) or "ngrams")
    run = dict(input=args.input, output=args.output, doc_tag=args.doc_tag, par_tag=args.par_tag,
               extended=args.engine == "extended", max_doc_tokens=args.max_doc_tokens, memory=args.memory,
               tmpdir=args.tmpdir, jsonl=jsonl)
    if hasattr(args, "threshold"):      # onion (dupngrams decides nothing)
        fields.update(threshold=args.threshold, max_stub_length=args.max_stub_length,
                      document_level=args.document_level)
        run.update(stub_rule=args.stub_rule, near_threshold=args.near_threshold, strip=args.strip,
                   dup_ngrams=args.dup_ngrams, two_pass=args.two_pass, reorder=args.reorder,
                   stats_file=args.stats)
    return VerticalOnion(options=OnionOptions(**fields), **run)


def run_onion(args: argparse.Namespace) -> int:
    from ..dedup.onion_files import run_onion as run

    from ..writers.base import check_one_stdout

    check_one_stdout([("-o -", args.output), ("--stats -", args.stats)])
    resolve_vertical_defaults(args)
    stats = run(_vertical_run(args), warn=_Warnings(args.quiet))
    if not args.quiet:
        kept = stats["tokens"] - stats["tokens_removed"]
        print(f"corpustool onion: {stats['documents']} documents ({stats['documents_removed']} removed), "
              f"{stats['paragraphs']} paragraphs ({stats['paragraphs_removed']} removed), "
              f"{stats['tokens']} tokens ({kept} kept) in {stats['seconds']:.1f} s"
              + (f"; input problems: {', '.join(f'{k} {v}' for k, v in stats['problems'].items())}"
                 if stats["problems"] else ""), file=sys.stderr)
    return 0


def run_dupngrams(args: argparse.Namespace) -> int:
    from ..dedup.onion_files import find_dup_ngrams

    resolve_vertical_defaults(args)
    documents, fh = None, None
    if args.jsonl:
        from ..dedup.onion_files import open_text
        from .common import read_stream

        fh = None if args.input == "-" else open_text(args.input)
        documents = read_stream(fh, name=args.input)
    try:
        st = find_dup_ngrams(_vertical_run(args), warn=_Warnings(args.quiet), documents=documents)
    finally:
        if fh is not None:
            fh.close()
    if not args.quiet:
        spills = f", {st['spills']} spills" if "spills" in st else ""
        print(f"corpustool dupngrams: {st['tokens']} tokens, {st['ngrams']} n-grams, {st['duplicates']} "
              f"occurring at least twice{spills}, {st['seconds']:.1f} s", file=sys.stderr)
    return 0


def run_dedup_para(args: argparse.Namespace) -> int:
    from ..dedup.onion import Onion
    from .common import run_stream_command

    stage = Onion(onion_options_from_args(args), dup_ngrams=args.dup_ngrams)
    return run_stream_command(args, stage, detail=args.detail)
