"""Paragraph de-duplication of vertical files: the work of ``corpustool onion`` and ``dupngrams``.

:class:`VerticalOnion` says what to read and write and how (its n-gram options are an
:class:`OnionOptions`); :func:`run_onion` de-duplicates a vertical file and :func:`find_dup_ngrams`
writes the duplicate n-grams of one (pass 1 of the two-pass form). Two engines do the work:

- onion's algorithm over bytes (:mod:`corpustool.dedup.onion_vertical`, compiled): lines read and
  written as bytes, exactly; the default;
- the extended engine of :mod:`corpustool.dedup.onion` (numpy; text read as UTF-8 with
  ``surrogateescape``), chosen by what only it does (:meth:`VerticalOnion.extended_because`).

The command line (cli/onion.py) turns its arguments into a :class:`VerticalOnion` and prints the
summary; this module opens the files and feeds the engines. It imports neither numpy nor the
extended engine until that engine is used: `corpustool onion`'s start-up counts.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ..errors import OptionError
from .onion_options import OnionOptions

if TYPE_CHECKING:
    from ..document import Document

DEFAULT_NEAR = 0.1     # the context rule's default near-duplicate share (docs/onion.md, measured)
_CHUNK = 1 << 20       # bytes fed to onion's engine at a time


@dataclass
class VerticalOnion:
    """One run over a vertical file. ``options``: the n-gram options (``smoothing`` and, with an
    empty ``par_tag``, ``document_level`` follow from the fields below); the rest is vertical input
    (tags, document cut), onion's smoothing (stub rule, context rule) and the files.

    The default ``options`` are the paragraph stage's (``OnionOptions()``); `corpustool onion` gives
    its measured vertical defaults explicitly (punctuation skipped, whole paragraphs, within-document
    repeats as paragraphs: cli/onion.py ``resolve_vertical_defaults``)."""

    input: str = "-"                      # a vertical file (.gz ok); - for stdin
    output: str = "-"
    options: OnionOptions = field(default_factory=OnionOptions)
    doc_tag: str = "doc"
    par_tag: str = "p"                    # empty: whole documents are de-duplicated
    stub_rule: str = "none"               # onion | inner | none (docs/onion.md)
    near_threshold: float = DEFAULT_NEAR  # the context rule; negative: off
    strip: bool = False                   # write only the kept lines, unmarked
    dup_ngrams: str | None = None         # a file of duplicate n-grams (pass 1's result)
    two_pass: bool = False
    reorder: bool = False
    extended: bool = False                # the extended engine even when onion's would do
    max_doc_tokens: int = 5_000_000       # extended engine: longer documents are cut
    memory: int = 1 << 30                 # extended engine: pass 1 memory budget in bytes
    tmpdir: str | None = None
    stats_file: str | None = None
    jsonl: bool = False                   # find_dup_ngrams: the input is a JSON Lines document stream

    def extended_because(self) -> list[str]:
        """The parameters that need the extended (numpy) engine; empty: onion's own algorithm."""
        used = ["extended"] if self.extended else []
        if self.options.skip_stopwords:
            used.append("skip_stopwords")
        if self.options.document_level or self.par_tag == "":
            used.append("document_level")
        if self.reorder:
            used.append("reorder")
        return used

    def engine_options(self) -> OnionOptions:
        """The extended engine's options (smoothing from the stub rule)."""
        return replace(self.options, smoothing=self.stub_rule != "none",
                       document_level=self.options.document_level or self.par_tag == "")


def run_onion(run: VerticalOnion, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """De-duplicate ``run.input`` into ``run.output``; the statistics (also written to
    ``run.stats_file``). ``warn``: told each problem of the input (extended engine)."""
    if run.extended_because():
        return _run_extended(run, warn or (lambda m: None))
    return _run_onion_engine(run)


def find_dup_ngrams(run: VerticalOnion, warn: Callable[[str], None] | None = None,
                    documents: Iterable[Document] | None = None) -> dict[str, Any]:
    """Write the n-grams occurring at least twice in ``run.input`` (or, with ``run.jsonl``, in
    ``documents``) to ``run.output``; counts."""
    if not run.jsonl and not run.extended_because():
        return _collect_duplicates(run, run.output, run.tmpdir)
    return _find_extended(run, warn or (lambda m: None), documents)


# ---------------------------------------------------------------------------
# the extended engine (corpustool.dedup.onion): text, one vertical item per unit

def _make_unit_class():
    """The adapter of a vertical item (document or outside lines) to the onion engine."""
    from ..readers.vertical import VerticalDocument
    from .onion import Unit

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


def open_text(path: str) -> IO[str]:
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


def _checked_options(run: VerticalOnion, **fields) -> OnionOptions:
    opts = replace(run.options, **fields).validate()
    if opts.skip_stopwords and not opts.stoplist and not run.jsonl:
        raise OptionError("skip_stopwords on vertical input needs a stoplist (LANG|FILE)", option="skip_stopwords")
    return opts


def _run_extended(run: VerticalOnion, warn: Callable[[str], None]) -> dict[str, Any]:
    from .onion import (DEFAULT_BATCH_TOKENS, FlaggedHashSet, OnionEngine, batches, deduplicate_two_pass,
                        read_dup_ngrams)
    from ..readers.vertical import VerticalReader

    opts = _checked_options(run, smoothing=run.stub_rule != "none",
                            document_level=run.options.document_level or run.par_tag == "")
    if not run.doc_tag:
        raise OptionError("doc_tag must not be empty", option="doc_tag")
    if run.two_pass and run.input == "-":
        raise OptionError("two_pass reads the input twice: give a FILE, not stdin", option="two_pass")
    if run.reorder and not (run.two_pass or run.dup_ngrams):
        raise OptionError("reorder needs two_pass or dup_ngrams", option="reorder")
    if run.two_pass and run.dup_ngrams:
        raise OptionError("two_pass and dup_ngrams exclude each other (dup_ngrams already is pass 1's result)",
                          option="two_pass")
    if run.reorder and run.input == "-":
        raise OptionError("reorder reads the input several times: give a FILE, not stdin", option="reorder")
    if run.max_doc_tokens < 1:
        raise OptionError("max_doc_tokens must be positive", option="max_doc_tokens")
    VUnit = _make_unit_class()
    readers: list[VerticalReader] = []

    def units(quiet: bool = False) -> Iterator:
        fh = open_text(run.input)
        reader = VerticalReader(fh, name=run.input if run.input != "-" else "<stdin>", doc_tag=run.doc_tag,
                                par_tag=run.par_tag, max_doc_tokens=run.max_doc_tokens,
                                warn=(lambda m: None) if quiet else warn)
        readers.append(reader)
        try:
            for item in reader:
                yield VUnit(item)
        finally:
            if fh is not sys.stdin:
                fh.close()

    dup_hashes = read_dup_ngrams(run.dup_ngrams, opts)[0] if run.dup_ngrams else None
    t0 = time.perf_counter()
    passes: dict[str, tuple[float, int]] = {}
    counts: Counter = Counter()
    out = _open_out(run.output)
    try:
        if run.two_pass or (run.dup_ngrams and run.reorder):
            state = {"first": True}

            def open_units():      # the input's problems are told once, on the first reading
                quiet = not state["first"]
                state["first"] = False
                return units(quiet)

            decided = deduplicate_two_pass(open_units, opts, dup_ngrams=dup_hashes, reorder=run.reorder,
                                           memory_budget=run.memory, tmpdir=run.tmpdir,
                                           on_pass=lambda name, secs, toks: passes.__setitem__(name, (secs, toks)))
            for u in decided:
                write_item(out, u, run.strip, counts)
        else:
            out_set = FlaggedHashSet(dup_hashes, opts.hash_bits) if run.dup_ngrams else None
            engine = OnionEngine(opts, out_set=out_set)
            for batch in batches(units(), lambda u: sum(len(t) for t in u.tokens if t), DEFAULT_BATCH_TOKENS):
                engine.process(batch)
                for u in batch:
                    write_item(out, u, run.strip, counts)
        out.flush()
    finally:
        if run.output == "-":
            try:
                out.flush()
            finally:
                out.detach()   # never close the process's stdout
        else:
            out.close()
    problems: Counter = Counter()
    if readers:
        problems.update(readers[0].problems)
    stats = _stats(counts, time.perf_counter() - t0, problems)
    for name, (secs, toks) in passes.items():
        stats[f"{name}_tokens_per_second"] = round(toks / secs) if secs > 0 else None
    _write_stats(run.stats_file, stats)
    return stats


def _find_extended(run: VerticalOnion, warn: Callable[[str], None],
                   documents: Iterable[Document] | None) -> dict[str, Any]:
    from .onion import DocumentUnit, DuplicateNgramFinder, batches, write_dup_ngrams

    opts = _checked_options(run)
    finder = DuplicateNgramFinder(opts, run.memory, run.tmpdir)
    t0 = time.perf_counter()
    fh = None
    if run.jsonl:
        source = (DocumentUnit(d) for d in documents or ())
    else:
        from ..readers.vertical import VerticalReader

        VUnit = _make_unit_class()
        fh = open_text(run.input)
        reader = VerticalReader(fh, name=run.input, doc_tag=run.doc_tag, par_tag=run.par_tag,
                                max_doc_tokens=run.max_doc_tokens, warn=warn)
        source = (VUnit(item) for item in reader)
    try:
        for batch in batches(source, lambda u: sum(len(t) for t in u.tokens if t)):
            finder.feed(batch)
        hashes = finder.finish()
    finally:
        if fh is not None:
            fh.close()
    write_dup_ngrams(run.output, hashes, opts)
    return {"tokens": finder.tokens_seen, "ngrams": finder.ngrams_seen, "duplicates": int(hashes.size),
            "spills": finder.spills, "seconds": time.perf_counter() - t0}


# ---------------------------------------------------------------------------
# onion's engine over bytes (corpustool.dedup.onion_vertical)

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


def _feed_file(engine, path: str, out, out_name: str = "-") -> None:
    """Stream FILE through the engine; its output (bytes) to out (named ``out_name``), or nowhere
    when out is None. A failed read names the input, a failed write (a full disk) the output."""
    fh = _open_bytes_in(path)
    try:
        while True:
            try:
                chunk = fh.read(_CHUNK)
            except OSError as exc:
                raise OptionError(f"cannot read {path}: {exc.strerror or exc}") from None
            except EOFError as exc:     # a truncated .gz
                raise OptionError(f"{path}: {exc}") from None
            if not chunk:
                break
            _write_out(out, out_name, _engine_step(engine.feed, chunk))
        _write_out(out, out_name, _engine_step(engine.finish))
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def _engine_step(step, *args) -> bytes:
    """The engine's step; its own files (the spilled n-grams of pass 1) failing to write, named."""
    try:
        return step(*args)
    except OSError as exc:
        raise OptionError(f"cannot write {exc.filename or 'temporary files'}: {exc.strerror or exc}") from None


def _write_out(out, out_name: str, data: bytes | None = None) -> None:
    """Write data to out (None: flush it); a failure (a full disk) names the output."""
    if out is None or (data is not None and not data):
        return
    try:
        if data is None:
            out.flush()
        else:
            out.write(data)
    except OSError as exc:      # (a closed pipe is told apart by the CLI from the EPIPE behind this)
        raise OptionError(f"cannot write {'standard output' if out_name == '-' else out_name}: "
                          f"{exc.strerror or exc}") from None


def _hash_params(run: VerticalOnion) -> dict:
    """What determines the n-gram hashes of onion's engine (stored with a duplicate n-gram file)."""
    o = run.options
    return {"n": o.n, "skip_punct": bool(o.skip_punct), "skip_stopwords": False, "stoplist": None,
            "hash_bits": o.hash_bits, "whole_paragraphs": bool(o.whole_paragraphs), "hash": "onion-vertical-v1"}


def _onion_engine(run: VerticalOnion, mode: int, spill_dir: str | None = None):
    from .onion_vertical import engine

    o = run.options
    if not 1 <= o.n <= 100:
        raise OptionError(f"n-gram length must be an integer from 1 to 100, not {o.n}")
    if not 16 <= o.hash_bits <= 64:
        raise OptionError(f"hash bits must be an integer from 16 to 64, not {o.hash_bits}")
    if not run.doc_tag:
        raise OptionError("the document tag (-d) must not be empty")
    within = o.within_document or "ngrams"
    if within == "paragraphs" and not o.whole_paragraphs:
        raise OptionError("within_document paragraphs needs whole_paragraphs",
                          options=("within_document", "whole_paragraphs"))
    if len(run.doc_tag.encode()) > 60 or len(run.par_tag.encode()) > 60 or "\0" in run.doc_tag + run.par_tag:
        raise OptionError("document and paragraph tags must be at most 60 bytes, without NUL")
    kw = {}
    if mode == 0:
        if not 0.0 <= o.threshold <= 1.0:
            raise OptionError(f"threshold must be a number in [0, 1], not {o.threshold}")
        if o.max_stub_length < 0:
            raise OptionError("max stub length must be a non-negative integer")
        if run.near_threshold > o.threshold:
            raise OptionError("near_threshold must be at most threshold, or negative (off)",
                              options=("near_threshold", "threshold"))
        kw = dict(threshold=o.threshold, max_stub=o.max_stub_length, smoothing=run.stub_rule != "none",
                  stub_rule="onion" if run.stub_rule == "none" else run.stub_rule, strip=run.strip,
                  near=run.near_threshold)
    return engine(n=o.n, doc_tag=run.doc_tag, par_tag=run.par_tag, hash_bits=o.hash_bits,
                  mode=mode, spill_dir=spill_dir, whole_paragraphs=bool(o.whole_paragraphs), within=within,
                  skip_punct=bool(o.skip_punct), **kw)


def _collect_duplicates(run: VerticalOnion, out_path: str, tmpdir: str | None) -> dict:
    """Pass 1: write the n-grams occurring at least twice in run.input to out_path."""
    import shutil
    import tempfile

    from .onion_vertical import write_dup_header

    t0 = time.perf_counter()
    spill = tempfile.mkdtemp(prefix="corpustool-dupngrams-", dir=tmpdir)
    try:
        eng = _onion_engine(run, 1, spill)
        _feed_file(eng, run.input, None)
        try:
            with open(out_path, "wb") as fh:
                write_dup_header(fh, _hash_params(run))
                fh.flush()
                count = eng.write_duplicates(fh)
        except OSError as exc:
            raise OptionError(f"cannot write {out_path}: {exc.strerror or exc}") from None
        st = eng.stats()
        st["duplicates"] = count
        st["seconds"] = time.perf_counter() - t0
        return st
    finally:
        shutil.rmtree(spill, ignore_errors=True)


def _load_duplicates(eng, path: str, run: VerticalOnion) -> int:
    from .onion_vertical import read_dup_header

    try:
        fh = open(path, "rb", buffering=0)    # unbuffered: the engine reads on from the header's end
    except OSError as exc:
        raise OptionError(f"cannot read {path}: {exc.strerror}") from None
    with fh:
        params = read_dup_header(fh, path)
        want = _hash_params(run)
        diff = {k: (params.get(k), v) for k, v in want.items() if params.get(k) != v}
        if diff:
            from .onion_vertical import mismatch_message
            raise OptionError(mismatch_message(path, diff))
        return eng.load_duplicates(fh)


def _run_onion_engine(run: VerticalOnion) -> dict[str, Any]:
    """onion's algorithm: bytes in, bytes out."""
    import tempfile

    if run.two_pass and run.input == "-":
        raise OptionError("two_pass reads the input twice: give a FILE, not stdin", option="two_pass")
    if run.two_pass and run.dup_ngrams:
        raise OptionError("two_pass and dup_ngrams exclude each other (dup_ngrams already is pass 1's result)",
                          option="two_pass")
    t0 = time.perf_counter()
    eng = _onion_engine(run, 0)
    tmp = None
    try:
        dup_path = run.dup_ngrams
        if run.two_pass:
            tmp = tempfile.NamedTemporaryFile(prefix="corpustool-onion-", suffix=".dup", dir=run.tmpdir,
                                              delete=False)
            tmp.close()
            _collect_duplicates(run, tmp.name, run.tmpdir)
            dup_path = tmp.name
        if dup_path:
            _load_duplicates(eng, dup_path, run)
        out = _open_bytes_out(run.output)
        try:
            _feed_file(eng, run.input, out, run.output)
            _write_out(out, run.output)
        finally:
            if out is not sys.stdout.buffer:
                out.close()
    finally:
        if tmp is not None:
            os.unlink(tmp.name)
    st = eng.stats()
    stats = _stats(st, time.perf_counter() - t0, {})
    _write_stats(run.stats_file, stats)
    return stats


# ---------------------------------------------------------------------------

def _stats(counts, elapsed: float, problems) -> dict[str, Any]:
    return {"documents": counts["documents"], "documents_removed": counts["documents_removed"],
            "paragraphs": counts["paragraphs"], "paragraphs_removed": counts["paragraphs_removed"],
            "tokens": counts["tokens"], "tokens_removed": counts["tokens_removed"],
            "problems": dict(sorted(problems.items())), "seconds": round(elapsed, 3),
            "tokens_per_second": round(counts["tokens"] / elapsed) if elapsed > 0 else None}


def _write_stats(path: str | None, stats: dict[str, Any]) -> None:
    if not path:
        return
    if path == "-":         # standard output (refused when the corpus goes there too: cli/onion.py)
        sys.stdout.write(json.dumps(stats, indent=2) + "\n")
        sys.stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(stats, fh, indent=2)
    except OSError as exc:
        raise OptionError(f"cannot write {path}: {exc.strerror}") from None
