"""Run extractors side by side on gold pages and score them.

A configuration is ``[LABEL=]NAME[:key=value,...]``: a registry extractor
with its options (``justext-package:preset=A``), or ``peer:NAME[:...]`` for a
peer (:mod:`.peers`). Registry extractors run inside the pipeline's clean
stage (:class:`corpustool.extractors.clean.Clean`: decoding, stoplist choice,
extraction, the same drops), followed for a site-level method (urltree,
archive, temex, site-conex, hybex) by its stream stage over all the pages, so
the evaluation measures exactly what a corpus build does. Every configuration sees the same pages in one run; the time
spent in the stage is summed per configuration to give pages per second.

Seed 004's framework (Sect. 2.1, Appendix C.4) is the model: pairs of page
and gold, every extractor on every page, a confusion matrix per page and
extractor, averages, filters, and an inspect view per page.
"""
from __future__ import annotations

import functools
import itertools
import math
import re
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from .. import encoding
from ..document import Document
from ..errors import OptionError
from ..extractors.base import Page, parse_html
from .align import bag_confusion, labelled_confusion, text_confusion
from .fragments import Fragmentation, fragment_lengths, fragmentation
from .gold import BAD, GOOD, GoldPage
from .metrics import NAN, SCORES, Confusion, bootstrap_ci, macro, micro
from .peers import PEERS, Peer, is_installed
from .shingles import shingle_confusion
from .snippets import SnippetResult, match_snippets
from .tokens import text_nodes, words

PEER_PREFIX = "peer:"
# the configurations take turns after this many pages (Evaluation.run)
TURN_PAGES = 50


# -- configurations -------------------------------------------------------------

@dataclass
class Config:
    label: str
    extractor: str                  # registry name or peer name
    options: dict[str, Any] = field(default_factory=dict)
    peer: bool = False
    swept: bool = False             # a grid point of --sweep: invalid combinations are skipped

    @property
    def alias(self) -> str:
        """The label as an identifier, for --filter expressions."""
        return identifier(self.label)


# the evaluation's warm-up pass (Evaluation._warm_up): classic jusText, never reported
_WARMER = Config(label="\0warm-up", extractor="justext")


def identifier(label: str) -> str:
    name = re.sub(r"\W+", "_", label).strip("_") or "_"
    return "_" + name if name[0].isdigit() else name


def convert_value(value: str) -> Any:
    """Option values from the command line: int, float, true/false, else the string."""
    low = value.strip().lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    for conv in (int, float):
        try:
            return conv(value)
        except ValueError:
            pass
    return value


def parse_options(text: str, what: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise OptionError(f"{what}: option {item!r} is not key=value")
        options[key.strip().replace("-", "_")] = convert_value(value.strip())
    return options


def _format_options(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def parse_config(spec: str) -> Config:
    """``[LABEL=]NAME[:key=value,...]`` or ``[LABEL=]peer:NAME[:key=value,...]``."""
    spec = spec.strip()
    if not spec:
        raise OptionError("extractor is empty", option="extractor")
    label = None
    head = spec.split(":", 1)[0]
    if "=" in head:
        label, spec = spec.split("=", 1)
        label = label.strip()
        if not label:
            raise OptionError(f"extractor {spec!r}: empty label", option="extractor")
    peer = spec.startswith(PEER_PREFIX)
    if peer:
        spec = spec[len(PEER_PREFIX):]
    name, _, opts = spec.partition(":")
    name = name.strip()
    if not name:
        raise OptionError(f"extractor {spec!r}: no extractor name", option="extractor")
    options = parse_options(opts, f"--extractor {name}")
    canonical = (PEER_PREFIX if peer else "") + name + (":" + _format_options(options) if options else "")
    return Config(label=label or canonical, extractor=name, options=options, peer=peer)


def parse_sweep(specs: Sequence[str]) -> list[dict[str, Any]]:
    """``NAME=v1,v2,...`` per option -> the grid of option dicts (product, in the given order)."""
    if not specs:
        return []
    axes: list[tuple[str, list[Any]]] = []
    for spec in specs:
        name, sep, values = spec.partition("=")
        vals = [convert_value(v) for v in values.split(",") if v.strip()]
        if not sep or not name.strip() or not vals:
            raise OptionError(f"sweep {spec!r}: expected NAME=VALUE[,VALUE...]", option="sweep")
        axes.append((name.strip().replace("-", "_"), vals))
    names = [a[0] for a in axes]
    if len(set(names)) != len(names):
        raise OptionError("sweep: an option is swept twice", option="sweep")
    return [dict(zip(names, combo)) for combo in itertools.product(*(a[1] for a in axes))]


def expand_sweep(configs: list[Config], grid: list[dict[str, Any]]) -> list[Config]:
    """Every registry configuration at every grid point (peers are not swept)."""
    if not grid:
        return configs
    out: list[Config] = []
    for cfg in configs:
        if cfg.peer:
            out.append(cfg)
            continue
        for point in grid:
            options = {**cfg.options, **point}
            sep = "," if ":" in cfg.label else ":"
            out.append(Config(label=f"{cfg.label}{sep}{_format_options(point)}", extractor=cfg.extractor,
                              options=options, swept=True))
    return out


# -- results ----------------------------------------------------------------------

@dataclass
class PageResult:
    page: int                       # index into Evaluation.pages
    lang: str | None = None
    drop_reason: str | None = None
    error: str | None = None
    seconds: float = 0.0
    extract_seconds: float = 0.0    # of those, in the extractor alone (no decoding, no language guess)
    out_words: int = 0
    words: Confusion | None = None
    chars: Confusion | None = None
    shingles: Confusion | None = None
    snippets: SnippetResult | None = None
    fragments: list[int] | None = None
    text: str | None = None                         # kept text (inspect view only)
    blocks: list[tuple[str, bool]] | None = None    # (text, kept) in order (inspect view only)

    @property
    def primary(self) -> Confusion | None:
        """Word counts when the gold has text, else snippet counts."""
        if self.words is not None:
            return self.words
        if self.snippets is not None:
            return self.snippets.confusion
        return None

    def metrics(self) -> dict[str, float]:
        """Every per-page value by name (for --filter, the CSV and the report)."""
        m: dict[str, float] = {"out_words": float(self.out_words)}
        p = self.primary
        for s in SCORES:
            m[s] = p.score(s) if p is not None else NAN
        for prefix, conf in (("word_", self.words), ("char_", self.chars)):
            for s in SCORES:
                m[prefix + s] = conf.score(s) if conf is not None else NAN
        for key in ("tp", "fp", "fn", "tn"):
            m[key] = float(getattr(self.words, key)) if self.words is not None else NAN
        for s in ("precision", "recall", "f1"):
            m["shingle_" + s] = self.shingles.score(s) if self.shingles is not None else NAN
        sn = self.snippets
        m["with_rate"] = sn.with_rate if sn is not None else NAN
        m["without_rate"] = sn.without_rate if sn is not None else NAN
        for s in ("precision", "recall", "f1", "f05", "accuracy"):
            m["snippet_" + s] = sn.confusion.score(s) if sn is not None else NAN
        m["fragments"] = float(len(self.fragments)) if self.fragments is not None else NAN
        m["dropped"] = 1.0 if self.drop_reason else 0.0
        return m


METRIC_NAMES = tuple(PageResult(page=0).metrics())


@dataclass
class Summary:
    label: str
    pages: int
    seconds: float
    dropped: int
    errors: int
    words: Confusion | None
    chars: Confusion | None
    shingles: Confusion | None
    snippets: Confusion | None
    with_rate: float
    without_rate: float
    macro_f1: float
    f1_ci: tuple[float, float]
    fragmentation: Fragmentation | None
    extract_seconds: float = 0.0

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds > 0 else NAN

    @property
    def extract_pages_per_second(self) -> float:
        """Pages per second of the extractor alone: its parse and extraction, without decoding and
        the clean stage's language guess (a peer: its extract call, without the stoplist choice)."""
        return self.pages / self.extract_seconds if self.extract_seconds > 0 else NAN

    @property
    def primary(self) -> Confusion | None:
        return self.words if self.words is not None else self.snippets


# -- the run ----------------------------------------------------------------------

_HTML_LANG = re.compile(r"<html\b[^>]*?\blang\s*=\s*[\"']?\s*([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)?)", re.IGNORECASE)


def html_lang(html: str) -> str | None:
    """The page's ``<html lang>`` as one of our stoplist codes, or None."""
    from ..language.stoplists import resolve_language

    m = _HTML_LANG.search(html[:20000])
    if not m:
        return None
    try:
        return resolve_language(m.group(1))
    except OptionError:
        return None


class Evaluation:
    """Every configuration on every page; results kept per configuration."""

    def __init__(self, pages: list[GoldPage], configs: list[Config], lang: str = "auto",
                 keep_output: bool = False, on_skip: Callable[[str], None] | None = None) -> None:
        from ..extractors.clean import Clean

        # cross-validation (set_folds): label -> per-fold extractor options, and the number of folds
        self.fold_options: dict[str, list[dict[str, Any]]] = {}
        self.cv = 0

        if not configs:
            raise OptionError("no extractor to evaluate")
        labels = [c.label for c in configs]
        dupes = sorted({l for l in labels if labels.count(l) > 1})
        if dupes:
            raise OptionError(f"configuration label used twice: {', '.join(dupes)}")
        self.pages = pages
        self.keep_output = keep_output
        self.lang_mode, self.languages = self._parse_lang(lang)
        self.skipped: list[tuple[str, str]] = []
        self.configs: list[Config] = []
        self.peers: dict[str, Peer] = {}
        self._stages: dict[tuple[str, str], Any] = {}
        self._clean = Clean
        self.line_caches: dict[str, Any] = {}    # configuration -> its own template-line verdicts
        for cfg in configs:
            if cfg.peer:
                if cfg.extractor not in PEERS:
                    raise OptionError(f"unknown peer {cfg.extractor!r}; choose from: {', '.join(PEERS)}")
                if not is_installed(cfg.extractor):
                    self.skipped.append((cfg.label, "not installed"))
                    if on_skip:
                        on_skip(f"skipped {cfg.label}: {cfg.extractor} is not installed")
                    continue
                peer = Peer(cfg.extractor, **cfg.options)
                peer.load()
                self.peers[cfg.label] = peer
            else:
                # build the stage now: unknown extractors and bad options fail before any work
                try:
                    self._stage(cfg, self._default_lang_key())
                except OptionError as exc:
                    if not cfg.swept:
                        raise
                    self.skipped.append((cfg.label, f"invalid: {exc}"))
                    if on_skip:
                        on_skip(f"skipped {cfg.label}: {exc}")
                    continue
            self.configs.append(cfg)
        self.results: dict[str, list[PageResult]] = {c.label: [] for c in self.configs}
        self.seconds: dict[str, float] = {c.label: 0.0 for c in self.configs}
        self.page_errors: list[tuple[str, str]] = []
        # site-level methods (urltree, archive, temex, ...): the clean stage's documents of each
        # such configuration, in page order, waiting for its stream stage (Evaluation._decide_sites)
        self._site_docs: dict[str, list[tuple[PageResult, Document]]] = {}

    # -- languages
    @staticmethod
    def _parse_lang(lang: str) -> tuple[str, list[str]]:
        from ..language.stoplists import resolve_language

        value = "auto" if lang is None else lang.strip()
        if value in ("auto", "html"):
            return value, []
        # a language without a stoplist is cleaned as build cleans it (the clean stage decides)
        langs = [resolve_language(v, require_stoplist=False) for v in value.split(",") if v.strip()]
        if not langs:
            raise OptionError("languages needs a language, 'auto' or 'html'", option="languages")
        return "list", langs

    def _default_lang_key(self) -> str:
        return ",".join(self.languages) if self.lang_mode == "list" else "auto"

    def set_folds(self, k: int, fold_options: dict[str, list[dict[str, Any]]]) -> None:
        """Cross-validation by domain: a page of fold f is extracted by configuration ``label``
        with ``fold_options[label][f]`` added to its options (e.g. the model trained without
        fold f's domains); configurations not named run as they are."""
        self.cv = k
        self.fold_options = fold_options

    def page_fold(self, page: GoldPage) -> int:
        from .breakdown import fold_of, page_domain

        return fold_of(page_domain(page), self.cv)

    def _stage(self, cfg: Config, lang_key: str, fold: int | None = None) -> Any:
        key = (cfg.label, lang_key) if fold is None else (cfg.label, lang_key, fold)
        stage = self._stages.get(key)
        if stage is None:
            languages = ["auto"] if lang_key == "auto" else lang_key.split(",")
            options = cfg.options if fold is None else {**cfg.options, **self.fold_options[cfg.label][fold]}
            stage = self._clean(extractor=cfg.extractor, languages=languages, **options)
            self._stages[key] = stage
        return stage

    def _lang_key(self, html_text: str | None, raw: bytes | None) -> str:
        if self.lang_mode != "html":
            return self._default_lang_key()
        if html_text is None and raw is not None:
            html_text = raw[:20000].decode("latin-1")
        code = html_lang(html_text or "")
        return code or "auto"

    # -- running
    def run(self, progress: Callable[[int], None] | None = None) -> None:
        """Every configuration on every page. The configurations take turns over blocks of
        TURN_PAGES pages (a page is loaded once per block), so each is timed as a corpus build
        runs it, page after page with its code and tables in the CPU's caches; taking turns
        page by page would start every page with the caches full of the others' work, which
        costs the fastest most. Each configuration first runs once on the first page, untimed
        and unscored: what it loads once (the language model, stoplists, a peer's imports)
        is not a per-page cost, and would be charged to whichever runs first."""
        self._warm_up()
        done = 0
        for start in range(0, len(self.pages), TURN_PAGES):
            block = []
            for index in range(start, min(start + TURN_PAGES, len(self.pages))):
                page = self.pages[index]
                try:
                    raw, html_text = page.load()
                except OSError as exc:
                    self.page_errors.append((page.id, f"cannot read {page.path}: {exc.strerror or exc}"))
                    print(f"corpustool eval: {page.id}: cannot read {page.path}: {exc}", file=sys.stderr)
                    block.append((index, page, None, None, None))
                    continue
                block.append((index, page, raw, html_text, self._lang_key(html_text, raw)))
            contexts: dict[int, _PageContext] = {}
            results: dict[str, list[PageResult]] = {cfg.label: [] for cfg in self.configs}
            for cfg in self.configs:
                with self._own_caches(cfg):
                    for index, page, raw, html_text, lang_key in block:
                        if lang_key is None:
                            # scored as empty output, as a dropped page is: its gold text was missed
                            res = PageResult(page=index, error="unreadable", drop_reason="unreadable")
                            res.text, res.blocks = "", []
                            _PageContext(page, None, "").score(res)
                            results[cfg.label].append(res)
                            continue
                        context = contexts.get(index)
                        if context is None:
                            context = contexts[index] = _PageContext(page, raw, html_text)
                        if cfg.peer:
                            res = self._run_peer(cfg, index, context, lang_key)
                        else:
                            res = self._run_stage(cfg, index, page, raw, html_text, lang_key)
                        results[cfg.label].append(res)
                        self.seconds[cfg.label] += res.seconds
                        if cfg.label in self._site_docs:
                            continue        # scored once its stream stage has seen every page
                        context.score(res)
                        if not self.keep_output:
                            res.text = None
                            res.blocks = None
            for cfg in self.configs:
                self.results[cfg.label].extend(results[cfg.label])
            done += len(block)
            if progress:
                progress(done)
        self._decide_sites()

    def _decide_sites(self) -> None:
        """A site-level method's clean stage keeps every block; its stream stage decides, as in a
        build, over all the pages in gold order (a site's pages are those sharing its host). Only
        then are the pages scored: without it they were scored as everything kept."""
        for cfg in self.configs:
            pending = self._site_docs.pop(cfg.label, None)
            if not pending:
                continue
            extractor = self._stage(cfg, self._default_lang_key()).extractor
            stream = extractor.stream_stage(extractor.params, reason="boilerplate")
            start = time.perf_counter()
            for _ in stream.run(doc for _, doc in pending):
                pass
            stream.close()
            share = (time.perf_counter() - start) / len(pending)
            self.seconds[cfg.label] += share * len(pending)
            for res, doc in pending:
                res.seconds += share
                res.extract_seconds += share      # (the method's own work is done there)
                res.drop_reason = doc.drop_reason
                res.blocks = [(p.text, p.is_good) for p in doc.paragraphs]
                res.text = "" if doc.drop_reason else doc.clean_text()
                page = self.pages[res.page]
                try:
                    raw, html_text = page.load()
                except OSError:
                    raw, html_text = None, ""
                _PageContext(page, raw, html_text).score(res)
                if not self.keep_output:
                    res.text = None
                    res.blocks = None

    def _warm_up(self) -> None:
        """Run each configuration once on the first readable page; nothing is kept. With more
        than one configuration, the clean stage's later one-off loads (the encoding detector,
        each language's stoplist and models, met on later pages) are made by classic jusText on
        every page first, untimed: they are shared, and would be charged to whichever
        configuration met them first."""
        first = True
        for page in self.pages:
            try:
                raw, html_text = page.load()
            except OSError:
                continue
            lang_key = self._lang_key(html_text, raw)
            if first:
                context = _PageContext(page, raw, html_text)
                for cfg in self.configs:
                    with self._own_caches(cfg):
                        if cfg.peer:
                            self._run_peer(cfg, -1, context, lang_key, quiet=True)
                        else:
                            self._run_stage(cfg, -1, page, raw, html_text, lang_key, quiet=True)
                first = False
                if len(self.configs) < 2:
                    return
                continue
            self._run_stage(_WARMER, -1, page, raw, html_text, lang_key, quiet=True)

    @contextmanager
    def _own_caches(self, cfg: Config) -> Iterator[None]:
        """Run cfg with its own cache of template-line verdicts (``line_verdict`` as the Python and
        the compiled decide of justext-plus and justext-learned look it up).

        A crawl asks about the same lines again and again, so the verdicts are cached; but
        configurations taking turns over the same pages would share them, and the second
        justext-plus configuration would find every line of the block already judged by the
        first. Each configuration keeps the cache its own earlier pages filled, as if it ran
        alone; the verdicts are pure functions of the line, so results do not change."""
        from ..extractors import justext_learned, justext_plus_decide, justext_plus_rules, template_lines

        cache = self.line_caches.get(cfg.label)
        if cache is None:
            cache = self.line_caches[cfg.label] = functools.lru_cache(maxsize=1 << 16)(
                template_lines.line_verdict.__wrapped__)
        users = (justext_plus_decide, justext_plus_rules, justext_learned)
        shared = [m.line_verdict for m in users]
        for m in users:
            m.line_verdict = cache
        try:
            yield
        finally:
            for m, verdict in zip(users, shared):
                m.line_verdict = verdict

    def _run_stage(self, cfg: Config, index: int, page: GoldPage, raw: bytes | None,
                   html_text: str | None, lang_key: str, quiet: bool = False) -> PageResult:
        fold = self.page_fold(page) if cfg.label in self.fold_options else None
        stage = self._stage(cfg, lang_key, fold)
        doc = Document(id=page.id, url=page.url, raw=raw, html=html_text, source=page.path)
        res = PageResult(page=index)
        extracting = stage.extract_seconds
        start = time.perf_counter()
        try:
            stage.process(doc)
        except Exception as exc:  # one bad page never stops an evaluation
            res.error = f"{type(exc).__name__}: {exc}"
            doc.drop_reason = f"error:{type(exc).__name__}"
            if not quiet:
                print(f"corpustool eval: {cfg.label}: error in {page.id}: {res.error}", file=sys.stderr)
        res.seconds = time.perf_counter() - start
        res.extract_seconds = stage.extract_seconds - extracting
        res.drop_reason = doc.drop_reason
        res.lang = doc.stoplist_lang
        res.blocks = [(p.text, p.is_good) for p in doc.paragraphs]
        res.text = doc.clean_text()
        if not quiet and getattr(stage.extractor, "stream_stage", None) is not None:
            self._site_docs.setdefault(cfg.label, []).append((res, doc))
        return res

    def _chooser(self, lang_key: str) -> Any:
        """A clean stage used only for its stoplist choice (Clean.choose_stoplist)."""
        key = ("\0stoplist", lang_key)
        if key not in self._stages:
            languages = ["auto"] if lang_key == "auto" else lang_key.split(",")
            self._stages[key] = self._clean(extractor="justext-package", languages=languages)
        return self._stages[key]

    def _run_peer(self, cfg: Config, index: int, context: "_PageContext", lang_key: str,
                  quiet: bool = False) -> PageResult:
        peer = self.peers[cfg.label]
        res = PageResult(page=index)
        start = time.perf_counter()
        try:
            html_text = context.html()
            stop = None
            if peer.needs_stoplist:
                # the clean stage's own language decision, so only the engine differs
                chooser = self._chooser(lang_key)
                doc = Document(id=context.page.id, url=context.page.url)
                page = Page(html_text, url=context.page.url)
                if page.tree is not None and chooser.choose_stoplist(doc, page):
                    stop = page.stoplist
                    res.lang = doc.stoplist_lang
                else:
                    stop = frozenset()      # the pipeline would drop the page: nothing is kept
            extracting = time.perf_counter()
            text, paragraphs = peer.extract(html_text, context.page.url, stop)
            res.extract_seconds = time.perf_counter() - extracting
            res.text = text
            res.blocks = [(p.text, p.is_good) for p in paragraphs] if paragraphs is not None else None
        except Exception as exc:  # a peer's failure on one page is its score, not a crash
            res.error = f"{type(exc).__name__}: {exc}"
            res.drop_reason = f"error:{type(exc).__name__}"
            res.text = ""
            if not quiet:
                print(f"corpustool eval: {cfg.label}: error in {context.page.id}: {res.error}", file=sys.stderr)
        res.seconds = time.perf_counter() - start
        return res

    # -- summaries
    def summary(self, label: str, pages: Sequence[int] | None = None, resamples: int = 1000,
                seed: int = 0) -> Summary:
        results = self.results[label]
        if pages is not None:
            wanted = set(pages)
            results = [r for r in results if r.page in wanted]
        words = [r.words for r in results if r.words is not None]
        chars = [r.chars for r in results if r.chars is not None]
        shingles = [r.shingles for r in results if r.shingles is not None]
        snippets = [r.snippets for r in results if r.snippets is not None]
        primary = [r.primary for r in results if r.primary is not None]
        frags = [r.fragments for r in results if r.fragments is not None]
        found_with = [f for s in snippets for f in s.found_with]
        found_without = [f for s in snippets for f in s.found_without]
        seconds = sum(r.seconds for r in results)
        return Summary(
            label=label, pages=len(results), seconds=seconds,
            extract_seconds=sum(r.extract_seconds for r in results),
            dropped=sum(1 for r in results if r.drop_reason), errors=sum(1 for r in results if r.error),
            words=micro(words) if words else None,
            chars=micro(chars) if chars else None,
            shingles=micro(shingles) if shingles else None,
            snippets=micro(s.confusion for s in snippets) if snippets else None,
            with_rate=sum(found_with) / len(found_with) if found_with else NAN,
            without_rate=(len(found_without) - sum(found_without)) / len(found_without) if found_without else NAN,
            macro_f1=macro(primary, "f1") if primary else NAN,
            f1_ci=bootstrap_ci(primary, "f1", resamples=resamples, seed=seed) if primary else (NAN, NAN),
            fragmentation=fragmentation(frags) if frags and len(frags) == len(results) else None,
        )

    def gold_fragmentation(self, pages: Sequence[int] | None = None) -> Fragmentation | None:
        """Fragmentation of a perfect cleaning (Table 2.11, first row) for node-level gold:
        the gold's good and undecided nodes kept, bad nodes removed."""
        idx = range(len(self.pages)) if pages is None else pages
        per_doc = []
        for i in idx:
            nodes = self.pages[i].nodes
            if nodes is None:
                return None
            per_doc.append(fragment_lengths((n.text, n.label != BAD) for n in nodes))
        return fragmentation(per_doc) if per_doc else None

    def best(self, score: str, pages: Sequence[int] | None = None,
             swept_only: bool = False) -> tuple[str, float] | None:
        """The configuration with the highest micro-averaged primary score (the first on ties)."""
        best: tuple[str, float] | None = None
        for cfg in self.configs:
            if swept_only and not cfg.swept:
                continue
            p = self.summary(cfg.label, pages, resamples=0).primary
            value = p.score(score) if p is not None else NAN
            if not math.isnan(value) and (best is None or value > best[1]):
                best = (cfg.label, value)
        return best


class _PageContext:
    """What every configuration's score needs of one page, computed once."""

    def __init__(self, page: GoldPage, raw: bytes | None, html_text: str | None) -> None:
        self.page = page
        self.raw = raw
        self._html = html_text
        self._visible: str | None = None
        self._page_words: list[str] | None = None
        self.gold_words = words(page.text) if page.text is not None else None
        self.labelled: tuple[list[str], list[str]] | None = None
        if page.nodes is not None:
            toks: list[str] = []
            labels: list[str] = []
            for node in page.nodes:
                w = words(node.text)
                toks.extend(w)
                lab = node.label if node.label in (GOOD, BAD) else "ignored"
                labels.extend([lab] * len(w))
            self.labelled = (toks, labels)

    def html(self) -> str:
        if self._html is None:
            self._html = encoding.decode(self.raw or b"").text
        return self._html

    def visible_text(self) -> str:
        if self._visible is None:
            root = parse_html(self.html())
            self._visible = "\n".join(t for t, _ in text_nodes(root))
        return self._visible

    def page_words(self) -> list[str]:
        if self._page_words is None:
            self._page_words = words(self.visible_text())
        return self._page_words

    def score(self, res: PageResult) -> None:
        out = words(res.text or "")
        res.out_words = len(out)
        page = self.page
        if page.with_snippets is not None or page.without_snippets is not None:
            res.snippets = match_snippets(res.text or "", page.with_snippets or [], page.without_snippets or [])
        if self.labelled is not None:
            res.words, res.chars = labelled_confusion(out, *self.labelled)
        elif self.gold_words is not None:
            pw = self.page_words()
            confusion = bag_confusion if page.meta.get("word_metric") == "bag" else text_confusion
            res.words, res.chars = confusion(out, self.gold_words, len(pw), sum(len(w) for w in pw))
        if self.gold_words is not None:
            res.shingles = shingle_confusion(out, self.gold_words)
        if res.blocks is not None:
            res.fragments = fragment_lengths(res.blocks)
