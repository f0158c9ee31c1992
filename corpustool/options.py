"""The options of the pipeline, defined once: name, command-line flag, type, default, check, help.

Every layer takes what it needs from :data:`OPTIONS`: the command line builds
its arguments with :func:`add_options` (``build`` and the subcommands that share
an option), :class:`corpustool.pipeline.PipelineOptions` and
:class:`corpustool.dedup.onion.OnionOptions` take their field defaults from
:func:`default`, the stage constructors (``Clean``, ``LanguageFilter``,
``NearDuplicates``, ``Onion``, the executors) too, and the release reads them
through ``corpustool build``'s arguments. A default is written here and
nowhere else (tests/test_options.py greps the package for copies).

A library check names the parameter (``workers must be at least 1``); the
command line names the flag instead (``--workers must be at least 1``), in one
place (:func:`corpustool.cli.main`), from :attr:`OptionError.option` and this table.

This module imports nothing of the package but :mod:`corpustool.errors` (a leaf).
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Callable

from .errors import OptionError


@dataclass(frozen=True)
class Option:
    """One option. ``name`` is the library's parameter (a ``PipelineOptions`` field); ``flag`` the
    command line's; ``check`` returns what is wrong with a value ("must be in [0, 1]") or None."""

    name: str
    flag: str
    type: Callable[[str], Any] | None
    default: Any
    check: Callable[[Any], str | None] | None
    help: str
    choices: tuple | None = None
    metavar: str | None = None
    short: str | None = None       # a one-letter flag besides the long one (onion's -n, -t)
    switch: bool = False           # a flag without a value (store_true)
    negatable: bool = False        # --X and --no-X (argparse's BooleanOptionalAction), default from the table
    const: Any = None              # the value of the flag given without one (nargs="?")

    @property
    def negated(self) -> bool:
        """A ``--no-X`` switch that sets option X (default on) off."""
        return self.switch and self.flag.startswith("--no-") and not self.name.startswith("no_")

    def dest(self, prefix: str = "") -> str:
        """The argparse attribute (the flag's name, also a release's option key)."""
        flag = prefix + self.flag[2:] if prefix else self.flag
        return flag.lstrip("-").replace("-", "_")

    def value(self, args: Any, prefix: str = "") -> Any:
        """The option's value in parsed arguments (a ``--no-X`` switch turned into X's value)."""
        v = getattr(args, self.dest(prefix))
        return (not v) if self.negated else v


def _unit_interval(v: Any) -> str | None:
    return None if _number(v) and 0.0 <= v <= 1.0 else f"must be in [0, 1], not {v!r}"


def _open_unit_interval(v: Any) -> str | None:
    return None if _number(v) and 0.0 < v <= 1.0 else f"must be in (0, 1], not {v!r}"


def _positive_int(v: Any) -> str | None:
    return None if _integer(v) and v >= 1 else f"must be at least 1, not {v!r}"


def _non_negative_int(v: Any) -> str | None:
    return None if _integer(v) and v >= 0 else f"must be a non-negative integer, not {v!r}"


def _seconds(v: Any) -> str | None:
    ok = _number(v) and v >= 0 and v != float("inf")
    return None if ok else f"must be 0 (no limit) or a positive number of seconds, not {v!r}"


def _ngram(v: Any) -> str | None:
    return None if _integer(v) and 1 <= v <= 100 else f"must be an integer from 1 to 100, not {v!r}"


def _hash_bits(v: Any) -> str | None:
    return None if _integer(v) and 16 <= v <= 64 else f"must be an integer from 16 to 64, not {v!r}"


def _number(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float)) and v == v


def _integer(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, int)


_JUSTEXT = "jusText's {} (default: the extractor's, see --preset)"

_TABLE = [
    # -- reading and cleaning ---------------------------------------------------------------------------
    Option("languages", "--lang", None, "auto", None,
           help="language(s) of the corpus: ISO 639-1 codes or names, comma-separated, or 'auto' "
                "(guess each page's language among all stoplists); default auto. A language "
                "without a stoplist (zh, ja, th ...) is cleaned as --no-stoplist says"),
    # None: the default extractor (extractors/clean.py's DEFAULT_EXTRACTOR, justext-plus)
    Option("extractor", "--extractor", None, None, None, help="extraction method (see 'corpustool extractors')"),
    Option("preset", "--preset", None, None, None,
           help="jusText parameter preset: justext (package defaults, lengths in characters) "
                "or A, B, C, D (Table 2.7 of Pomikálek's thesis, lengths in tokens)"),
    Option("stoplist_file", "--stoplist", None, None, None, metavar="FILE",
           help="user stoplist file (one word per line)"),
    Option("template_evidence", "--template-evidence", None, None, None, metavar="METHOD", const="urltree",
           help="mark as boilerplate the paragraphs that a site-level method (default urltree) finds "
                "repeated across a site's pages"),
    Option("max_bytes", "--max-bytes", int, 10 * 1024 * 1024, _positive_int,
           help="drop pages larger than this many bytes (default 10 MiB; Pomikálek's thesis used 1 MB)"),
    Option("min_bytes", "--min-bytes", int, 0, _non_negative_int,
           help="drop pages smaller than this many bytes"),
    Option("max_paragraphs", "--max-paragraphs", int, 100_000, _positive_int, metavar="N",
           help="drop pages with more than N blocks (start tags that begin a paragraph: p, div, li, td, h1 ... "
                "and every second br) as too-many-paragraphs, before parsing them: each paragraph costs "
                "about 1 KB of memory however short (default 100,000)"),
    Option("no_stoplist", "--no-stoplist", None, "independent", None, choices=("independent", "drop"),
           help="a page in a language without a stoplist (Chinese, Japanese, Thai ...): clean it in jusText's "
                "language-independent mode, by length and link density (default), or drop it"),
    # jusText's parameters: unset (None) leaves the extractor's own (its preset's) values
    Option("length_low", "--length-low", int, None, _non_negative_int, help=_JUSTEXT.format("LENGTH_LOW")),
    Option("length_high", "--length-high", int, None, _non_negative_int, help=_JUSTEXT.format("LENGTH_HIGH")),
    Option("stopwords_low", "--stopwords-low", float, None, _unit_interval, help=_JUSTEXT.format("STOPWORDS_LOW")),
    Option("stopwords_high", "--stopwords-high", float, None, _unit_interval,
           help=_JUSTEXT.format("STOPWORDS_HIGH")),
    Option("max_link_density", "--max-link-density", float, None, _unit_interval,
           help=_JUSTEXT.format("MAX_LINK_DENSITY: above it a block is bad")),
    Option("length_unit", "--length-unit", None, None, None, choices=("chars", "tokens"),
           help=_JUSTEXT.format("unit of the lengths")),
    Option("max_heading_distance", "--max-heading-distance", int, None, _non_negative_int,
           help=_JUSTEXT.format("MAX_HEADING_DISTANCE")),
    Option("no_headings", "--no-headings", None, None, None, switch=True, help="do not apply the headings rule"),
    # justext-plus's own threshold, distinct from jusText's (it used to share the name and took the value)
    Option("region_max_link_density", "--region-max-link-density", float, None, _unit_interval,
           help="justext-plus: inside the main-content region, remove paragraphs whose link density is "
                "above this (default 0.5; not jusText's --max-link-density)"),
    Option("comments", "--comments", None, None, None, choices=("drop", "keep"),
           help="justext-plus/justext-learned: drop (default) the comments under an article, forum and "
                "Q&A posts stay; keep: keep comment sections too"),
    # -- language filter --------------------------------------------------------------------------------
    Option("langfilter", "--no-langfilter", None, True, None, switch=True, help="keep documents in any language"),
    Option("lang_method", "--lang-method", None, "fast", None, choices=("fast", "langdetect"),
           help="language identification method after cleaning (default fast)"),
    Option("paragraph_lang", "--paragraph-lang", None, False, None, switch=True,
           help="also drop foreign-language paragraphs; a document mostly in an unwanted language keeps "
                "its paragraphs in a wanted one"),
    Option("quality", "--quality", None, "mark", None, choices=("off", "mark", "drop"),
           help="document quality marks (q, q_rules, q_punct, q_stop ... on <doc>; docs/quality.md): mark "
                "(default) writes them, drop also drops the documents judged low (reasons counted as "
                "quality:RULE, written to --rejects), off computes nothing"),
    Option("min_lang_confidence", "--min-lang-confidence", float, 0.5, _unit_interval,
           help="drop documents whose language confidence is below this (default 0.5)"),
    Option("second_opinion_below", "--second-opinion-below", float, 0.75, _unit_interval,
           help="ask langdetect when the fast method's confidence is below this (default 0.75)"),
    Option("paragraph_min_confidence", "--paragraph-min-confidence", float, 0.8, _unit_interval,
           help="with --paragraph-lang, mark a paragraph foreign only from this confidence (default 0.8)"),
    # -- de-duplication ---------------------------------------------------------------------------------
    Option("dedup_exact", "--no-dedup-exact", None, True, None, switch=True, help="keep exact duplicate documents"),
    Option("dedup_near", "--no-dedup-near", None, True, None, switch=True, help="keep near-duplicate documents"),
    Option("dedup_para", "--no-dedup-para", None, True, None, switch=True,
           help="keep duplicate paragraphs (no onion stage)"),
    Option("near_threshold", "--near-threshold", float, 0.8, _open_unit_interval,
           help="resemblance above which a document is a near-duplicate (default 0.8)"),
    # -- output and execution ---------------------------------------------------------------------------
    Option("sentences", "--sentences", None, True, None, negatable=True,
           help="mark sentences with <s> in vertical output (the default; --no-sentences: none)"),
    Option("target", "--target", None, "manatee", None, choices=("manatee", "cwb"),
           help="the corpus manager that reads the vertical file: manatee (Sketch Engine, NoSketch Engine; "
                "values escape \\ and \" only, no XML entities; the default) or cwb (XML entities, for "
                "cwb-encode -x)"),
    Option("engine", "--engine", None, "local", None, choices=("local", "spark"),
           help="run on this machine (default) or on Apache Spark (needs pyspark)"),
    Option("spark_master", "--master", None, None, None,
           help="Spark master URL, with --engine spark (default: local[WORKERS]); a cluster master is refused "
                "when it cannot be reached or does not take the application"),
    Option("workers", "--workers", int, 1, _positive_int, help="worker processes for per-document stages"),
    Option("doc_timeout", "--doc-timeout", float, 60.0, _seconds, metavar="SECONDS",
           help="time limit per document in a worker (default 60; 0: none); a document past it, or one that "
                "crashes its worker, is retried alone in a fresh worker, then dropped as 'timeout' or 'crashed'"),
]

# The paragraph de-duplication stage (onion, dedup/onion.py): `dedup-para` takes them under these flags,
# `build` with an --onion- prefix (--onion-ngram, --onion-threshold ...); vertical `onion` shares some.
_ONION_TABLE = [
    Option("n", "--ngram", int, 7, _ngram, metavar="N", short="-n",
           help="n-gram length (default 7, onion's)"),
    Option("threshold", "--threshold", float, 0.5, _unit_interval, short="-t",
           help="a paragraph is a duplicate when more than this share of its tokens is covered by duplicate "
                "n-grams (default 0.5, onion's)"),
    Option("skip_punct", "--skip-punct", None, False, None, switch=True,
           help="leave punctuation out of n-grams and of a paragraph's duplicate share"),
    Option("skip_stopwords", "--skip-stopwords", None, False, None, switch=True,
           help="leave stop words out of n-grams (the stoplist option's list, else each document's language's)"),
    Option("stoplist", "--stoplist", None, None, None, metavar="LANG|FILE",
           help="stoplist for skipping stop words: language or file"),
    Option("document_level", "--document-level", None, False, None, switch=True,
           help="remove whole duplicate documents"),
    Option("smoothing", "--no-smoothing", None, True, None, switch=True,
           help="no smoothing: duplicates' short neighbours (stubs) stay"),
    # tokens; the stub rule without jusText's classes: about jusText's "short" (70 characters); onion's 20
    # lost 2.7x more unique paragraphs on the benchmark (docs/onion.md)
    Option("max_stub_length", "--max-stub-length", int, 10, _non_negative_int,
           help="smoothing: remove non-duplicate paragraphs of at most this many tokens between duplicates "
                "(default 10)"),
    Option("max_heading_distance", "--max-heading-distance", int, 200, _non_negative_int,
           help="characters from a heading to its text, as the justext package (default 200)"),
    Option("hash_bits", "--hash-bits", int, 64, _hash_bits, help="keep this many bits of each n-gram hash (16-64)"),
    Option("whole_paragraphs", "--no-whole-paragraphs", None, True, None, switch=True,
           help="do not also match each paragraph as a whole (then paragraphs shorter than n are never "
                "duplicates on their own; onion has no whole-paragraph matching)"),
    Option("within_document", "--within-document", None, None, None, choices=("paragraphs", "ngrams", "none"),
           help="repeats inside one document: exact repeats of a paragraph (default), any n-gram seen "
                "earlier in the document, or none (the default without whole-paragraph matching)"),
]

OPTIONS: dict[str, Option] = {o.name: o for o in _TABLE}
# PipelineOptions fields set from build's arguments as they are (the rest: languages, the extractor's, onion's)
PIPELINE_NAMES = ("max_bytes", "min_bytes", "max_paragraphs", "no_stoplist", "langfilter", "min_lang_confidence",
                  "lang_method", "paragraph_lang", "quality", "dedup_exact", "dedup_near", "near_threshold",
                  "dedup_para", "target", "workers", "doc_timeout", "engine", "spark_master")
ONION_OPTIONS: dict[str, Option] = {o.name: o for o in _ONION_TABLE}
ONION_PREFIX = "--onion-"      # build's flags of the onion stage: --onion-ngram, --onion-threshold ...

# jusText's parameters, passed to the extractor when given (the extractor keeps its own otherwise)
JUSTEXT_NAMES = ("length_low", "length_high", "stopwords_low", "stopwords_high", "max_link_density",
                 "length_unit", "max_heading_distance", "no_headings")
EXTRACTOR_NAMES = ("preset", *JUSTEXT_NAMES, "region_max_link_density", "comments")


def default(name: str) -> Any:
    """The default of option ``name`` (``onion_X``: the onion stage's option X)."""
    if name.startswith("onion_"):
        return ONION_OPTIONS[name[len("onion_"):]].default
    return OPTIONS[name].default


def check(name: str, value: Any, table: dict[str, Option] | None = None) -> Any:
    """``value`` when option ``name`` takes it; else an :class:`OptionError` naming the parameter."""
    opt = (table or OPTIONS)[name]
    problem = opt.check(value) if opt.check is not None and value is not None else None
    if opt.choices and value is not None and value not in opt.choices:
        problem = f"must be one of {', '.join(opt.choices)}, not {value!r}"
    if problem:
        raise OptionError(f"{name} {problem}", option=name)
    return value


def flag_for(name: str) -> str:
    """The command-line flag of a library parameter (for the CLI's messages)."""
    if name in OPTIONS:
        return OPTIONS[name].flag
    if name.startswith("onion_") and name[len("onion_"):] in ONION_OPTIONS:
        return ONION_PREFIX + ONION_OPTIONS[name[len("onion_"):]].flag[2:]
    return "--" + name.replace("_", "-")


def add_options(parser: Any, names: tuple[str, ...] | list[str], table: dict[str, Option] | None = None,
                prefix: str = "", short: bool = False, **overrides: dict[str, Any]) -> None:
    """Add the options ``names`` of ``table`` to an argparse parser or group.

    ``prefix`` goes before the long flag (``--onion-``: ``--onion-ngram``); ``short`` adds the
    one-letter flags; ``overrides`` maps a name to argparse keywords that differ (a subcommand's
    own default or help), given to this function rather than written as a second argument.
    """
    table = table or OPTIONS
    for name in names:
        opt = table[name]
        long = prefix + opt.flag[2:] if prefix else opt.flag
        flags = [opt.short, long] if short and opt.short else [long]
        kw: dict[str, Any] = {"help": opt.help}
        if opt.switch:
            kw["action"] = "store_true"
            kw["default"] = None if opt.default is None else False
        elif opt.negatable:
            kw["action"] = argparse.BooleanOptionalAction
            kw["default"] = opt.default
        else:
            if opt.const is not None:
                kw["nargs"], kw["const"] = "?", opt.const
            kw["default"] = opt.default
            if opt.type is not None:
                kw["type"] = opt.type
            if opt.choices:
                kw["choices"] = opt.choices
            if opt.metavar:
                kw["metavar"] = opt.metavar
        kw.update(overrides.get(name, {}))
        parser.add_argument(*flags, **kw)
