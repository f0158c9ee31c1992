"""``corpustool eval``: score extractors against a gold standard, side by side."""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import Any

from ..errors import OptionError
from ..options import add_options


def register(sub: argparse._SubParsersAction) -> None:
    from ..eval_columns import csv_columns_help

    p = sub.add_parser(
        "eval", help="score extractors against a gold standard, side by side",
        description="Run extractors (registry names with options, or peer:NAME) on gold-annotated pages "
                    "and report word-level precision, recall, F1, F0.5, fallout, accuracy, shingle and "
                    "snippet scores, fragmentation and pages per second.",
        epilog="EXTRACTOR is [LABEL=]NAME[:key=value,...], e.g. 'justext-package:preset=A', "
               "'B=justext-package:preset=B', 'peer:trafilatura'; 'all' = every registry extractor and "
               "installed peer. GOLD is [FORMAT:]PATH with FORMAT snippets, articles, cleaneval, annotated or wcxb. "
               "A --filter expression uses LABEL.metric (label with non-word characters as _) or eN.metric "
               "for the N-th extractor, e.g. 'e1.precision > 0.8 and e2.precision < 0.5'. "
               "The summary table's columns are explained under it. CSV columns (scores 0-1, full "
               "precision): " + csv_columns_help() + ".")
    p.add_argument("--gold", required=True, metavar="SPEC", help="gold standard: [FORMAT:]PATH")
    p.add_argument("--extractor", action="append", default=[], metavar="EXTRACTOR",
                   help="configuration to evaluate (repeatable; default: the clean stage's default)")
    p.add_argument("--preset", help="preset for every registry extractor that sets none")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="option for every registry extractor that sets none (repeatable)")
    add_options(p, ("languages",), languages={
        "help": "stoplist language: auto (guess per page, as the pipeline does), html (the page's "
                "<html lang>, else auto) or codes such as de or de,en; default auto"})
    p.add_argument("--csv", metavar="FILE",
                   help="per-file results: one row per page and extractor (its columns: below)")
    p.add_argument("--html", metavar="DIR", help="HTML report: pages worst first, with inspect pages")
    p.add_argument("--filter", metavar="EXPR", help="keep only pages matching EXPR in the reports")
    p.add_argument("--sweep", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="evaluate every registry extractor on the grid of these option values (repeatable)")
    p.add_argument("--folds", type=int, metavar="K",
                   help="split the pages by registered domain into K folds (hash of the domain) and report "
                        "each fold and both halves (0 = none; default 4 for a wcxb gold, else 0)")
    p.add_argument("--cv", type=int, nargs="?", const=5, default=None, metavar="K",
                   help="cross-validation grouped by domain (K folds, default 5): an extractor that learns "
                        "(justext-learned) scores each page with a model trained without the page's fold of "
                        "domains (on --train); the table per page type and per fold uses the same folds")
    p.add_argument("--train", action="append", default=[], metavar="SPEC",
                   help="with --cv: a gold the models learn from ([FORMAT:]PATH: main text, or snippets as "
                        "partial labels; repeatable; default: --gold)")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N pages of the gold")
    p.add_argument("--min-agreement", type=int, default=0, metavar="AR",
                   help="node-level gold: ignore nodes whose annotator agreement is below AR (0-100)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the F1 confidence interval (0 = none; default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def build_configs(args: argparse.Namespace) -> list:
    from ..extractors.clean import DEFAULT_EXTRACTOR
    from ..eval.peers import PEERS
    from ..eval.runner import Config, parse_config
    from ..extractors.registry import available

    specs = args.extractor or [DEFAULT_EXTRACTOR]
    configs: list[Config] = []
    for spec in specs:
        if spec.strip() == "all":
            configs += [Config(label=n, extractor=n) for n in available()]
            configs += [Config(label=f"peer:{n}", extractor=n, peer=True) for n in PEERS]
        else:
            cfg = parse_config(spec)
            if not cfg.peer and cfg.extractor not in available():
                raise OptionError(f"unknown extractor {cfg.extractor!r}; choose from: {', '.join(available())}"
                                  f" or peer:{'|'.join(PEERS)}")
            configs.append(cfg)
    common: dict[str, Any] = {}
    if args.preset:
        common["preset"] = args.preset
    from ..eval.runner import parse_options
    for opt in args.option:
        common.update(parse_options(opt, "--option"))
    if common:
        for cfg in configs:
            if not cfg.peer:
                for k, v in common.items():
                    cfg.options.setdefault(k, v)
    return configs


def run(args: argparse.Namespace) -> int:
    from ..eval.breakdown import breakdown_rows
    from ..eval.filter import Filter
    from ..eval.gold import annotation_stats, read_gold
    from ..eval.report import fragmentation_line, format_table, summary_rows, write_csv, write_html
    from ..eval_columns import format_legend
    from ..eval.runner import METRIC_NAMES, Evaluation, expand_sweep, parse_sweep

    if args.limit is not None and args.limit <= 0:
        raise OptionError("--limit must be positive")
    if not 0 <= args.min_agreement <= 100:
        raise OptionError("--min-agreement must be in 0..100")
    if args.bootstrap < 0:
        raise OptionError("--bootstrap must be >= 0")
    if args.seed < 0:
        raise OptionError("--seed must be >= 0")      # (numpy's generator refused it after the run)
    if args.folds is not None and (args.folds < 0 or args.folds == 1):
        raise OptionError("--folds must be 0 (none) or at least 2")
    if args.cv is not None and args.cv < 2:
        # (0 too: unlike --folds 0, "--cv 0" would silently be no cross-validation)
        raise OptionError("--cv needs at least 2 folds")
    if args.train and not args.cv:
        raise OptionError("--train goes with --cv")
    if args.cv and args.folds is not None and args.folds != args.cv:
        raise OptionError(f"--folds {args.folds} with --cv {args.cv}: --cv reports by its own {args.cv} folds")
    # the reports are written after the run: a path that cannot be written is refused before it
    if args.csv:
        from ..writers.base import check_output_path

        check_output_path(args.csv, [], "--csv")
    if args.html:
        if os.path.exists(args.html) and not os.path.isdir(args.html):
            raise OptionError(f"--html {args.html} is a file; give a folder for the report")
        try:
            os.makedirs(args.html, exist_ok=True)
        except OSError as exc:
            raise OptionError(f"cannot write --html {args.html}: {exc.strerror or exc}") from None
    configs = expand_sweep(build_configs(args), parse_sweep(args.sweep))
    # every option is checked before the gold is read, so that an invalid one is refused
    # in one line (reading the gold may print notes); notes on skipped configurations
    # are printed once there is something to evaluate
    skipped: list[str] = []
    ev = Evaluation([], configs, lang=args.lang, keep_output=bool(args.html), on_skip=skipped.append)
    flt = None
    if args.filter:
        names = [c.alias for c in ev.configs]
        clashes = sorted({a for a in names if names.count(a) > 1})
        if clashes:
            raise OptionError(f"--filter: labels that differ only in punctuation ({', '.join(clashes)}); "
                              "name the extractors with LABEL=... or use e1, e2, ...")
        # e1, e2, ... name the extractors by position: a label of that form elsewhere would be shadowed
        shadowed = [a for n, a in enumerate(names, 1) if re.fullmatch(r"e\d+", a) and a != f"e{n}"]
        if shadowed:
            raise OptionError(f"--filter: the label {shadowed[0]} is also the name of extractor number "
                              f"{shadowed[0][1:]} (e1, e2, ... count the extractors in order); choose another label")
        aliases = set(names) | {f"e{n}" for n in range(1, len(ev.configs) + 1)}
        flt = Filter(args.filter, aliases, set(METRIC_NAMES))
    if not ev.configs:
        raise OptionError("nothing to evaluate: " + "; ".join(f"{l} {why}" for l, why in ev.skipped))
    for msg in skipped:
        print(f"corpustool eval: {msg}", file=sys.stderr)
    every_page = read_gold(args.gold, min_agreement=args.min_agreement)
    pages = every_page[:args.limit] if args.limit else every_page
    if not pages:
        raise OptionError(f"gold {args.gold!r} has no usable page")
    ev.pages = pages
    if args.cv:
        from ..eval.cv import fold_models, trainable

        learners = []
        for c in ev.configs:
            if not trainable(c):
                continue
            if "model" in c.options:
                # the model asked for is used as it is: say that its figures are not cross-validated
                print(f"corpustool eval --cv: {c.label} uses the model it names (model={c.options['model']}), "
                      f"not one trained per fold: its figures are not cross-validated", file=sys.stderr)
                continue
            learners.append(c)
        if learners:
            # (the gold read once: as --train, all its pages, --limit or not, as read_gold gives them)
            models = fold_models(args.train or [args.gold], args.cv, quiet=args.quiet,
                                 read={args.gold: every_page} if not args.min_agreement else None)
            ev.set_folds(args.cv, {c.label: [{"model": m} for m in models] for c in learners})

    bar = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=len(pages), unit="page", file=sys.stderr)
    ev.run(progress=(lambda n: bar.update(n - bar.n)) if bar else None)   # n: pages done
    if bar:
        bar.close()

    selected = None
    if flt is not None:
        selected = []
        for i in range(len(ev.pages)):
            values = {}
            for n, cfg in enumerate(ev.configs, 1):
                m = ev.results[cfg.label][i].metrics()
                values[cfg.alias] = m
                values[f"e{n}"] = m
            if flt(values):
                selected.append(i)

    summaries = [ev.summary(c.label, selected, resamples=args.bootstrap, seed=args.seed) for c in ev.configs]
    header, rows = summary_rows(summaries)
    out = sys.stdout
    print(f"gold: {args.gold} ({len(ev.pages)} pages, {ev.pages[0].format}); lang: {args.lang}", file=out)
    if selected is not None:
        print(f"filter: {args.filter}: {len(selected)} of {len(ev.pages)} pages match", file=out)
    print(format_table(header, rows), file=out)
    print(format_legend(header), file=out)
    if args.cv:
        folds = args.cv
        learners = sorted(ev.fold_options)
        print(f"cross-validation by domain, {args.cv} folds: " + (
            f"{', '.join(learners)} scored with models trained without each page's fold"
            f" (on {', '.join(args.train or [args.gold])})" if learners else "no configuration learns"), file=out)
    else:
        folds = args.folds if args.folds is not None else (4 if ev.pages[0].format == "wcxb" else 0)
    b_header, b_rows = breakdown_rows(ev, selected, folds)
    if len(b_rows) > 0:
        print("mean per-page F1 by group" + (" (words, the gold's metric)" if ev.pages[0].text is not None else ""),
              file=out)
        print(format_table(b_header, b_rows), file=out)
    if any(p.nodes is not None for p in ev.pages):
        stats = annotation_stats(ev.pages)
        print("gold annotations: " + ", ".join(f"{k} {v['nodes']} nodes / {v['chars']} chars"
                                               for k, v in stats.items()), file=out)
        line = fragmentation_line("perfect cleaning", ev.gold_fragmentation(selected))
        if line:
            print(line, file=out)
    from ..eval.cv import COLLAPSE_MARGIN, classic_label, collapses

    classic = classic_label(ev.configs)
    if classic is not None and ev.pages[0].text is not None:
        for cfg in ev.configs:
            if cfg.label == classic:
                continue
            bad = collapses(ev, cfg.label, classic, selected)
            n = len(selected) if selected is not None else len(ev.pages)
            print(f"collapses of {cfg.label} (F1 more than {COLLAPSE_MARGIN} below {classic}): "
                  f"{len(bad)} of {n} pages ({100.0 * len(bad) / max(n, 1):.1f}%)"
                  + (": " + ", ".join(f"{pid} {a:.2f}/{b:.2f}" for pid, a, b in bad) if bad else ""), file=out)
    for label, why in ev.skipped:
        print(f"skipped: {label} ({why})", file=out)
    if ev.page_errors:
        print(f"unreadable pages: {len(ev.page_errors)}", file=out)
    if args.sweep:
        for score, name in (("f1", "F1"), ("f05", "F0.5")):
            best = ev.best(score, selected, swept_only=True)
            if best:
                print(f"best {name}: {best[0]} ({best[1]:.3f})", file=out)
    if selected is not None and selected:
        print("matching pages:", file=out)
        for i in selected[:20]:
            cells = []
            for cfg in ev.configs:
                p = ev.results[cfg.label][i].primary
                f1 = p.f1 if p is not None else math.nan
                cells.append(f"{cfg.label}={'-' if math.isnan(f1) else f'{f1:.3f}'}")
            print(f"  {ev.pages[i].id}  F1: " + " ".join(cells), file=out)
        if len(selected) > 20:
            print(f"  ... and {len(selected) - 20} more (see --csv / --html)", file=out)
    if args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as fh:
            write_csv(ev, fh, selected)
    if args.html:
        index = write_html(ev, args.html, summaries, selected, filter_expr=args.filter)
        print(f"HTML report: {index}", file=out)
    return 0
