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
import json
import sys
import time
from typing import IO, Iterator

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
    p.add_argument("-d", "--doc-tag", default="doc", help="document tag (default doc)")
    p.add_argument("-p", "--par-tag", default="p",
                   help="paragraph tag (default p); empty: de-duplicate whole documents")
    p.add_argument("--max-doc-tokens", type=int, default=5_000_000,
                   help="extended engine: cut documents longer than this many tokens (default 5,000,000; "
                        "onion's engine holds a whole document, ~40 bytes per token)")


def onion_options_from_args(args: argparse.Namespace, prefix: str = ""):
    """The paragraph de-duplication stage's options (`dedup-para`; `build` with prefix ``--onion-``)."""
    from ..dedup.onion import OnionOptions

    return OnionOptions(**{name: opt.value(args, prefix) for name, opt in ONION_OPTIONS.items()})


def _onion_options(args: argparse.Namespace, **extra):
    from ..dedup.onion import OnionOptions

    if args.skip_stopwords and not args.stoplist and getattr(args, "par_tag", None) is not None:
        raise OptionError("--skip-stopwords on vertical input needs --stoplist LANG|FILE")
    return OnionOptions(n=args.ngram, skip_punct=args.skip_punct, skip_stopwords=args.skip_stopwords,
                        stoplist=args.stoplist, hash_bits=args.hash_bits,
                        whole_paragraphs=_whole(args), **_within(args), **extra).validate()


DEFAULT_NEAR = 0.1     # the context rule's default near-duplicate share (docs/onion.md, measured)


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


def _vertical(args: argparse.Namespace) -> bool:
    return getattr(args, "par_tag", None) is not None and not getattr(args, "jsonl", False)


def _whole(args: argparse.Namespace) -> bool:
    """Whole-paragraph matching: opt-in on vertical input (onion has none), opt-out on JSON Lines."""
    return bool(args.whole_paragraphs) if _vertical(args) else not args.no_whole_paragraphs


def _within(args: argparse.Namespace) -> dict:
    mode = getattr(args, "within_document", None)
    if mode is None:
        if _vertical(args):
            mode = "ngrams"        # onion's: every n-gram seen earlier in the document
        else:
            mode = "paragraphs" if not args.no_whole_paragraphs else "none"
    return {"within_document": mode}


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
    p.add_argument("--memory", type=_size, default=1 << 30,
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
    p.add_argument("--memory", type=_size, default=1 << 30, help="memory budget (default 1G)")
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


# ---------------------------------------------------------------------------

def _make_unit_class():
    """The adapter of a vertical item (document or outside lines) to the onion engine."""
    from ..dedup.onion import Unit
    from ..readers.vertical import VerticalDocument

    class VUnit(Unit):
        __slots__ = ("item",)

        def __init__(self, item) -> None:
            if isinstance(item, VerticalDocument):
                # blocks without tokens (bare structure lines) take no part
                super().__init__([b.tokens if b.tokens else None for b in item.blocks])
            else:
                super().__init__([])
            self.item = item

    return VUnit


def _open_text(path: str) -> IO[str]:
    import gzip
    import io

    # newline="": lines end at "\n" only and keep their CR (a lone CR or CRLF), as the default engine's
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape", newline="")
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape", newline="")
        return open(path, encoding="utf-8", errors="surrogateescape", newline="")
    except OSError as exc:
        raise OptionError(f"cannot open {path}: {exc.strerror}") from None


def _open_out(path: str) -> IO[str]:
    import gzip
    import io

    if path == "-":
        return io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="surrogateescape",
                                newline="\n", write_through=False)
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "wt", encoding="utf-8", errors="surrogateescape", newline="\n")
        return open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n")
    except OSError as exc:
        raise OptionError(f"cannot write {path}: {exc.strerror}") from None


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


def write_item(out: IO[str], unit, strip: bool, counts) -> None:
    """Write one decided vertical item, marked or stripped."""
    from ..readers.vertical import VerticalDocument

    item = unit.item
    if not isinstance(item, VerticalDocument):
        if item.lines:
            if strip:
                out.write("\n".join(item.lines) + "\n")
            else:
                out.write("0\t" + "\n0\t".join(item.lines) + "\n")
        return
    removed = unit.removed
    has_tokens = [bool(b.tokens) for b in item.blocks]
    any_tokens = any(has_tokens)
    doc_removed = bool(any_tokens and removed is not None and item.whole
                       and all(removed[i] for i in range(len(has_tokens)) if has_tokens[i]))
    counts["documents"] += 1
    if doc_removed:
        counts["documents_removed"] += 1
    parts: list[str] = []
    for edge in (item.header,):
        if edge is not None and not (strip and doc_removed):
            parts.append(edge if strip else ("1\t" if doc_removed else "0\t") + edge)
    for i, b in enumerate(item.blocks):
        gone = doc_removed or bool(removed is not None and removed[i])
        if b.tokens:
            counts["paragraphs"] += 1
            counts["tokens"] += len(b.tokens)
            if gone:
                counts["paragraphs_removed"] += 1
                counts["tokens_removed"] += len(b.tokens)
        if not b.lines:
            continue
        if strip:
            if not gone:
                parts.append("\n".join(b.lines))
        else:
            prefix = "1\t" if gone else "0\t"
            parts.append(prefix + ("\n" + prefix).join(b.lines))
    if item.footer is not None and not (strip and doc_removed):
        parts.append(item.footer if strip else ("1\t" if doc_removed else "0\t") + item.footer)
    if parts:
        out.write("\n".join(parts) + "\n")


def run_onion(args: argparse.Namespace) -> int:
    resolve_vertical_defaults(args)
    if not _extended(args):
        return run_onion_fast(args)
    from ..dedup.onion import (DEFAULT_BATCH_TOKENS, FlaggedHashSet, OnionEngine, batches,
                               deduplicate_two_pass, read_dup_ngrams)
    from ..readers.vertical import VerticalReader

    document_level = args.document_level or args.par_tag == ""
    opts = _onion_options(args, threshold=args.threshold, document_level=document_level,
                          smoothing=args.stub_rule != "none", max_stub_length=args.max_stub_length)
    if not args.doc_tag:
        raise OptionError("the document tag (-d) must not be empty")
    if args.two_pass and args.input == "-":
        raise OptionError("--two-pass reads the input twice: give a FILE, not stdin")
    if args.reorder and not (args.two_pass or args.dup_ngrams):
        raise OptionError("--reorder needs --two-pass or -f")
    if args.two_pass and args.dup_ngrams:
        raise OptionError("--two-pass and -f exclude each other (-f already is pass 1's result)")
    if args.reorder and args.input == "-":
        raise OptionError("--reorder reads the input several times: give a FILE, not stdin")
    if args.max_doc_tokens < 1:
        raise OptionError("--max-doc-tokens must be positive")
    VUnit = _make_unit_class()
    warnings = _Warnings(args.quiet)
    readers: list[VerticalReader] = []

    def units(warn=True) -> Iterator:
        fh = _open_text(args.input)
        reader = VerticalReader(fh, name=args.input if args.input != "-" else "<stdin>", doc_tag=args.doc_tag,
                                par_tag=args.par_tag, max_doc_tokens=args.max_doc_tokens,
                                warn=warnings if warn else (lambda m: None))
        readers.append(reader)
        try:
            for item in reader:
                yield VUnit(item)
        finally:
            if fh is not sys.stdin:
                fh.close()

    from collections import Counter

    dup_hashes = read_dup_ngrams(args.dup_ngrams, opts)[0] if args.dup_ngrams else None
    t0 = time.perf_counter()
    passes: dict[str, tuple[float, int]] = {}
    counts: Counter = Counter()
    out = _open_out(args.output)
    try:
        if args.two_pass or (args.dup_ngrams and args.reorder):
            dup = dup_hashes
            state = {"first": True}

            def open_units():
                warn = state["first"]
                state["first"] = False
                return units(warn)

            decided = deduplicate_two_pass(open_units, opts, dup_ngrams=dup, reorder=args.reorder,
                                           memory_budget=args.memory, tmpdir=args.tmpdir,
                                           on_pass=lambda name, secs, toks: passes.__setitem__(name, (secs, toks)))
            for u in decided:
                write_item(out, u, args.strip, counts)
        else:
            out_set = None
            if args.dup_ngrams:
                out_set = FlaggedHashSet(dup_hashes, opts.hash_bits)
            engine = OnionEngine(opts, out_set=out_set)
            for batch in batches(units(), lambda u: sum(len(t) for t in u.tokens if t), DEFAULT_BATCH_TOKENS):
                engine.process(batch)
                for u in batch:
                    write_item(out, u, args.strip, counts)
        out.flush()
    finally:
        if args.output == "-":
            try:
                out.flush()
            finally:
                out.detach()   # never close the process's stdout
        else:
            out.close()
    elapsed = time.perf_counter() - t0
    problems: Counter = Counter()
    if readers:
        problems.update(readers[0].problems)
    stats = {"documents": counts["documents"], "documents_removed": counts["documents_removed"],
             "paragraphs": counts["paragraphs"], "paragraphs_removed": counts["paragraphs_removed"],
             "tokens": counts["tokens"], "tokens_removed": counts["tokens_removed"],
             "problems": dict(sorted(problems.items())), "seconds": round(elapsed, 3),
             "tokens_per_second": round(counts["tokens"] / elapsed) if elapsed > 0 else None}
    for name, (secs, toks) in passes.items():
        stats[f"{name}_tokens_per_second"] = round(toks / secs) if secs > 0 else None
    if args.stats:
        with open(args.stats, "w", encoding="utf-8") as fh:
            json.dump(stats, fh, indent=2)
    if not args.quiet:
        kept = stats["tokens"] - stats["tokens_removed"]
        print(f"corpustool onion: {stats['documents']} documents ({stats['documents_removed']} removed), "
              f"{stats['paragraphs']} paragraphs ({stats['paragraphs_removed']} removed), "
              f"{stats['tokens']} tokens ({kept} kept) in {elapsed:.1f} s"
              + (f"; input problems: {', '.join(f'{k} {v}' for k, v in stats['problems'].items())}"
                 if stats["problems"] else ""), file=sys.stderr)
    return 0


def run_dupngrams(args: argparse.Namespace) -> int:
    resolve_vertical_defaults(args)
    if not args.jsonl and not _extended(args):
        return run_dupngrams_fast(args)
    from ..dedup.onion import DocumentUnit, DuplicateNgramFinder, batches, write_dup_ngrams

    opts = _onion_options(args) if not args.jsonl else _onion_options_jsonl(args)
    finder = DuplicateNgramFinder(opts, args.memory, args.tmpdir)
    t0 = time.perf_counter()
    if args.jsonl:
        from .common import read_stream

        fh = None if args.input == "-" else _open_text(args.input)
        source = (DocumentUnit(d) for d in read_stream(fh, name=args.input))
    else:
        from ..readers.vertical import VerticalReader

        VUnit = _make_unit_class()
        fh = _open_text(args.input)
        warnings = _Warnings(args.quiet)
        reader = VerticalReader(fh, name=args.input, doc_tag=args.doc_tag, par_tag=args.par_tag,
                                max_doc_tokens=args.max_doc_tokens, warn=warnings)
        source = (VUnit(item) for item in reader)
    try:
        for batch in batches(source, lambda u: sum(len(t) for t in u.tokens if t)):
            finder.feed(batch)
        hashes = finder.finish()
    finally:
        if fh is not None:
            fh.close()
    write_dup_ngrams(args.output, hashes, opts)
    if not args.quiet:
        secs = time.perf_counter() - t0
        print(f"corpustool dupngrams: {finder.tokens_seen} tokens, {finder.ngrams_seen} n-grams, "
              f"{hashes.size} occurring at least twice, {finder.spills} spills, {secs:.1f} s", file=sys.stderr)
    return 0


def _onion_options_jsonl(args: argparse.Namespace):
    from ..dedup.onion import OnionOptions

    return OnionOptions(n=args.ngram, skip_punct=args.skip_punct, skip_stopwords=args.skip_stopwords,
                        stoplist=args.stoplist, hash_bits=args.hash_bits,
                        whole_paragraphs=_whole(args), **_within(args)).validate()


def run_dedup_para(args: argparse.Namespace) -> int:
    from ..dedup.onion import Onion
    from .common import run_stream_command

    stage = Onion(onion_options_from_args(args), dup_ngrams=args.dup_ngrams)
    return run_stream_command(args, stage, detail=args.detail)


# ---------------------------------------------------------------------------
# the onion engine over bytes (corpustool.dedup.onion_vertical)

_CHUNK = 1 << 20


def _extended(args: argparse.Namespace) -> list[str]:
    """The options that need the extended (numpy) engine; empty: onion's own algorithm."""
    used = ["--engine extended"] if getattr(args, "engine", None) == "extended" else []
    if args.skip_stopwords:
        used.append("--skip-stopwords")
    if getattr(args, "document_level", False) or args.par_tag == "":
        used.append("--document-level")
    if getattr(args, "reorder", False):
        used.append("--reorder")
    return used


def _open_bytes_in(path: str):
    if path == "-":
        return sys.stdin.buffer
    try:
        if path.endswith(".gz"):
            import gzip
            return gzip.open(path, "rb")
        return open(path, "rb", buffering=0)
    except OSError as exc:
        raise OptionError(f"cannot open {path}: {exc.strerror}") from None


def _open_bytes_out(path: str):
    if path == "-":
        return sys.stdout.buffer
    try:
        if path.endswith(".gz"):
            import gzip
            return gzip.open(path, "wb")
        return open(path, "wb")
    except OSError as exc:
        raise OptionError(f"cannot write {path}: {exc.strerror}") from None


def _feed_file(engine, path: str, out) -> None:
    """Stream FILE through the engine; its output (bytes) to out, or nowhere when out is None."""
    fh = _open_bytes_in(path)
    try:
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                break
            res = engine.feed(chunk)
            if res and out is not None:
                out.write(res)
        res = engine.finish()
        if res and out is not None:
            out.write(res)
    except OSError as exc:
        raise OptionError(f"cannot read {path}: {exc}") from None
    except EOFError as exc:     # a truncated .gz
        raise OptionError(f"{path}: {exc}") from None
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def _fast_params(args: argparse.Namespace) -> dict:
    return {"n": args.ngram, "skip_punct": bool(args.skip_punct), "skip_stopwords": False, "stoplist": None,
            "hash_bits": args.hash_bits, "whole_paragraphs": bool(args.whole_paragraphs),
            "hash": "onion-vertical-v1"}


def _write_dup_header(fh, params: dict) -> None:
    from ..dedup.onion_vertical import write_dup_header
    write_dup_header(fh, params)


def _fast_engine(args: argparse.Namespace, mode: int, spill_dir: str | None = None):
    from ..dedup.onion_vertical import engine

    if not 1 <= args.ngram <= 100:
        raise OptionError(f"n-gram length must be an integer from 1 to 100, not {args.ngram}")
    if not 16 <= args.hash_bits <= 64:
        raise OptionError(f"hash bits must be an integer from 16 to 64, not {args.hash_bits}")
    if not args.doc_tag:
        raise OptionError("the document tag (-d) must not be empty")
    within = getattr(args, "within_document", None) or "ngrams"
    if within == "paragraphs" and not args.whole_paragraphs:
        raise OptionError("--within-document paragraphs needs --whole-paragraphs")
    if len(args.doc_tag.encode()) > 60 or len(args.par_tag.encode()) > 60 or "\0" in args.doc_tag + args.par_tag:
        raise OptionError("document and paragraph tags must be at most 60 bytes, without NUL")
    kw = {}
    if mode == 0:
        if not 0.0 <= args.threshold <= 1.0:
            raise OptionError(f"threshold must be a number in [0, 1], not {args.threshold}")
        if args.max_stub_length < 0:
            raise OptionError("max stub length must be a non-negative integer")
        if not 0.0 <= args.threshold <= 1.0 or args.near_threshold > args.threshold:
            raise OptionError("--near-threshold must be at most -t, or negative (off)")
        kw = dict(threshold=args.threshold, max_stub=args.max_stub_length, smoothing=args.stub_rule != "none",
                  stub_rule="onion" if args.stub_rule == "none" else args.stub_rule, strip=args.strip,
                  near=args.near_threshold)
    return engine(n=args.ngram, doc_tag=args.doc_tag, par_tag=args.par_tag, hash_bits=args.hash_bits,
                  mode=mode, spill_dir=spill_dir, whole_paragraphs=bool(args.whole_paragraphs), within=within,
                  skip_punct=bool(args.skip_punct), **kw)


def _collect_duplicates(args: argparse.Namespace, out_path: str, tmpdir: str | None) -> dict:
    """Pass 1: write the n-grams occurring at least twice in args.input to out_path."""
    import shutil
    import tempfile

    spill = tempfile.mkdtemp(prefix="corpustool-dupngrams-", dir=tmpdir)
    try:
        eng = _fast_engine(args, 1, spill)
        _feed_file(eng, args.input, None)
        try:
            with open(out_path, "wb") as fh:
                _write_dup_header(fh, _fast_params(args))
                fh.flush()
                count = eng.write_duplicates(fh)
        except OSError as exc:
            raise OptionError(f"cannot write {out_path}: {exc.strerror or exc}") from None
        st = eng.stats()
        st["duplicates"] = count
        return st
    finally:
        shutil.rmtree(spill, ignore_errors=True)


def _load_duplicates(eng, path: str, args: argparse.Namespace) -> int:
    from ..dedup.onion_vertical import read_dup_header

    try:
        fh = open(path, "rb", buffering=0)    # unbuffered: the engine reads on from the header's end
    except OSError as exc:
        raise OptionError(f"cannot read {path}: {exc.strerror}") from None
    with fh:
        params = read_dup_header(fh, path)
        want = _fast_params(args)
        diff = {k: (params.get(k), v) for k, v in want.items() if params.get(k) != v}
        if diff:
            detail = ", ".join(f"{k}: file {a!r} vs now {b!r}" for k, (a, b) in sorted(diff.items()))
            raise OptionError(f"{path} was made with other n-gram options ({detail})")
        return eng.load_duplicates(fh)


def run_onion_fast(args: argparse.Namespace) -> int:
    """`corpustool onion` with onion's algorithm: bytes in, bytes out."""
    import tempfile

    if args.two_pass and args.input == "-":
        raise OptionError("--two-pass reads the input twice: give a FILE, not stdin")
    if args.two_pass and args.dup_ngrams:
        raise OptionError("--two-pass and -f exclude each other (-f already is pass 1's result)")
    t0 = time.perf_counter()
    eng = _fast_engine(args, 0)
    tmp = None
    try:
        dup_path = args.dup_ngrams
        if args.two_pass:
            tmp = tempfile.NamedTemporaryFile(prefix="corpustool-onion-", suffix=".dup", dir=args.tmpdir,
                                              delete=False)
            tmp.close()
            _collect_duplicates(args, tmp.name, args.tmpdir)
            dup_path = tmp.name
        if dup_path:
            _load_duplicates(eng, dup_path, args)
        out = _open_bytes_out(args.output)
        try:
            _feed_file(eng, args.input, out)
            out.flush()
        finally:
            if out is not sys.stdout.buffer:
                out.close()
    finally:
        if tmp is not None:
            import os
            os.unlink(tmp.name)
    _report_onion(args, eng.stats(), time.perf_counter() - t0, {})
    return 0


def _report_onion(args: argparse.Namespace, st: dict, elapsed: float, problems: dict) -> None:
    stats = {"documents": st["documents"], "documents_removed": st["documents_removed"],
             "paragraphs": st["paragraphs"], "paragraphs_removed": st["paragraphs_removed"],
             "tokens": st["tokens"], "tokens_removed": st["tokens_removed"],
             "problems": dict(sorted(problems.items())), "seconds": round(elapsed, 3),
             "tokens_per_second": round(st["tokens"] / elapsed) if elapsed > 0 else None}
    if args.stats:
        try:
            with open(args.stats, "w", encoding="utf-8") as fh:
                json.dump(stats, fh, indent=2)
        except OSError as exc:
            raise OptionError(f"cannot write {args.stats}: {exc.strerror}") from None
    if not args.quiet:
        kept = stats["tokens"] - stats["tokens_removed"]
        print(f"corpustool onion: {stats['documents']} documents ({stats['documents_removed']} removed), "
              f"{stats['paragraphs']} paragraphs ({stats['paragraphs_removed']} removed), "
              f"{stats['tokens']} tokens ({kept} kept) in {elapsed:.1f} s"
              + (f"; input problems: {', '.join(f'{k} {v}' for k, v in stats['problems'].items())}"
                 if stats["problems"] else ""), file=sys.stderr)


def run_dupngrams_fast(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    st = _collect_duplicates(args, args.output, args.tmpdir)
    if not args.quiet:
        print(f"corpustool dupngrams: {st['tokens']} tokens, {st['ngrams']} n-grams, {st['duplicates']} "
              f"occurring at least twice, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0
