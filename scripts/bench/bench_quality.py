#!/usr/bin/env python3
"""Quality marks (corpustool/quality.py) against documents read and labelled by a person.

The sample: the documents that `corpustool build --lang auto` keeps from
../shared/data/snippets/pages, ../shared/data/wcxb-dev/html and the demo crawl
(data/demo/crawl.warc.gz), each page fed with its real URL. data/quality_labels.jsonl holds,
for every labelled document, its id, URL, the SHA-1 of its clean text, its language and the label
("good" or "low") given by reading the text against the criteria in docs/quality.md, and the labelling
round (1: the documents the shipped thresholds were tuned on; 2: read afterwards); never the text.

    python scripts/bench/bench_quality.py                 # the figures of docs/quality.md
    python scripts/bench/bench_quality.py --dump FILE     # the kept documents (id, url, lang, text) to read
    python scripts/bench/bench_quality.py --timing        # CPU time of builds with / without quality, text types

Precision / recall of "low" is cross-validated by site: the documents split into five folds by
their registrable domain (the folds of `corpustool eval`), thresholds are tuned on four folds and
the fifth is scored, each in turn, and the held-out verdicts are pooled.
Skips cleanly (exit 0) when ../shared is absent.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SHARED = REPO.parent / "shared" / "data"
SNIPPETS = SHARED / "snippets"
WCXB = SHARED / "wcxb-dev"
DEMO = REPO / "data" / "demo" / "crawl.warc.gz"
LABELS = REPO / "data" / "quality_labels.jsonl"


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def write_inputs(folder: Path, limit: int = 0) -> list[str]:
    """JSON Lines inputs (id, url, html) of the shared pages, and the demo crawl."""
    inputs = []
    snip = folder / "snippets.jsonl"
    gold = json.loads((SNIPPETS / "evaldata.json").read_text(encoding="utf-8"))
    with snip.open("w", encoding="utf-8") as out:
        rows = sorted((e["file"], url) for url, e in gold.items() if (SNIPPETS / "pages" / e["file"]).is_file())
        for name, url in rows[:limit or None]:
            raw = (SNIPPETS / "pages" / name).read_bytes()
            import base64
            out.write(json.dumps({"id": f"snippets:{name}", "url": url,
                                  "html_base64": base64.b64encode(raw).decode("ascii")}) + "\n")
    inputs.append(str(snip))
    wc = folder / "wcxb.jsonl"
    with wc.open("w", encoding="utf-8") as out:
        files = sorted((WCXB / "html").glob("*.html.gz"))
        for f in files[:limit or None]:
            fid = f.name.split(".")[0]
            gt = json.loads((WCXB / "ground-truth" / f"{fid}.json").read_text(encoding="utf-8"))
            raw = gzip.decompress(f.read_bytes())
            import base64
            out.write(json.dumps({"id": f"wcxb:{fid}", "url": gt.get("url"),
                                  "html_base64": base64.b64encode(raw).decode("ascii")}) + "\n")
    inputs.append(str(wc))
    inputs.append(str(DEMO))
    return inputs


def kept_documents(limit: int = 0, workers: int = 1):
    """(pipeline, documents kept by the default build) of the sample's pages."""
    from corpustool.pipeline import Pipeline, PipelineOptions

    tmp = tempfile.mkdtemp(prefix="bench-quality-")
    inputs = write_inputs(Path(tmp), limit)
    opts = PipelineOptions(languages=["auto"], workers=workers)
    pipe = Pipeline(inputs, "-", opts)
    return pipe, list(pipe.documents())


def doc_key(doc) -> str:
    return doc.id if doc.id.startswith(("snippets:", "wcxb:")) else f"demo:{doc.url}"


def dump(path: str, limit: int) -> None:
    _, docs = kept_documents(limit)
    with open(path, "w", encoding="utf-8") as out:
        for doc in docs:
            text = doc.clean_text()
            out.write(json.dumps({"id": doc_key(doc), "url": doc.url, "lang": doc.lang,
                                  "stoplist_lang": doc.stoplist_lang, "sha1": text_hash(text),
                                  "paragraphs": [p.text for p in doc.good_paragraphs()],
                                  "quality": doc.meta.get("quality")}, ensure_ascii=False) + "\n")
    print(f"{len(docs)} documents -> {path}")


def site_of(url: str | None) -> str:
    """The registrable domain of a URL (or the host-like part of a "hard::name" key)."""
    from urllib.parse import urlsplit
    from corpustool.text_types import site_and_tld

    url = url or ""
    host = urlsplit(url).hostname if "://" in url else url.split("::")[-1].split("-")[0]
    return site_and_tld(host)[0] or host or ""


FOLDS = 5


def fold_of_url(url: str | None) -> int:
    """The cross-validation fold of a document: its registrable domain's, as `corpustool eval` folds
    pages (BLAKE2b of the domain modulo FOLDS), so one site's documents are never split."""
    from corpustool.eval.breakdown import fold_of

    return fold_of(site_of(url), FOLDS)


def counts(rows, rules) -> tuple[int, int, int]:
    """(true, false, missed) "low" verdicts of the rules against the labels."""
    from corpustool.quality import judge

    tp = fp = fn = 0
    for r in rows:
        low = bool(judge(r["m"], r["words"], rules))
        gold = r["label"] == "low"
        tp += low and gold
        fp += low and not gold
        fn += gold and not low
    return tp, fp, fn


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return p, rec, (2 * p * rec / (p + rec) if p + rec else 0.0)


def pr(rows, rules) -> tuple[float, float, float, int, int]:
    """Precision, recall, F1 of "low", documents judged low, labelled low."""
    tp, fp, fn = counts(rows, rules)
    return (*prf(tp, fp, fn), tp + fp, tp + fn)


# the thresholds of the literature (Gopher, C4, FineWeb), where the search starts
LITERATURE = (
    ("short", "words", "min", 50, 0), ("punct", "q_punct", "min", 0.12, 0),
    ("short-lines", "q_short", "max", 0.67, 0), ("stop-words", "q_stop", "min", 0.10, 0),
    ("word-length", "q_wordlen", "min", 3.0, 0), ("word-length", "q_wordlen", "max", 10.0, 0),
    ("symbols", "q_symbols", "max", 0.10, 0), ("non-alpha", "q_nonalpha", "max", 0.20, 0),
    ("bullets", "q_bullets", "max", 0.90, 0), ("ellipsis", "q_ellipsis", "max", 0.30, 0),
    ("dup-lines", "q_dup_lines", "max", 0.30, 0), ("dup-lines", "q_dup_chars", "max", 0.20, 0),
    ("top-ngram", "q_top2", "max", 0.20, 0), ("top-ngram", "q_top3", "max", 0.18, 0),
    ("top-ngram", "q_top4", "max", 0.16, 0), ("dup-ngram", "q_dup5", "max", 0.15, 0),
)

# the grid searched for each rule's threshold on the training folds (None: rule off)
GRID = {
    "short": [None, 20, 30, 50, 75, 100, 150],
    "punct": [None, 0.12, 0.2, 0.3, 0.4, 0.5, 0.6],
    "short-lines": [None, 0.4, 0.5, 0.6, 0.67, 0.75],
    "stop-words": [None, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3],
    "dup-ngram": [None, 0.15, 0.2, 0.25, 0.3, 0.4],
    "ellipsis": [None, 0.3, 0.5],
    "symbols": [None, 0.1, 0.2],
    "non-alpha": [None, 0.2, 0.3],
}


def with_threshold(rules, name, value):
    out = []
    for r in rules:
        if r[0] == name:
            if value is None:
                continue
            r = (r[0], r[1], r[2], value, r[4])
        out.append(r)
    return tuple(out)


def tune(rows, rules):
    """Coordinate search of the GRID thresholds for the best F1 of "low" (two sweeps, ties: first)."""
    best = pr(rows, rules)[2]
    chosen = {}
    for _ in range(2):
        for name, values in GRID.items():
            for v in values:
                cand = with_threshold(rules, name, v)
                f = pr(rows, cand)[2]
                if f > best + 1e-9:
                    best, rules, chosen[name] = f, cand, v
    return rules, chosen


def evaluate(limit: int = 0) -> int:
    from corpustool.quality import RULES

    labels = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            labels[rec["id"]] = rec
    t0 = time.perf_counter()
    pipe, docs = kept_documents(limit)
    elapsed = time.perf_counter() - t0
    quality = next(s for s in pipe.stages if s.name == "quality")
    rows, changed = [], 0
    for doc in docs:
        rec = labels.get(doc_key(doc))
        if rec is None:
            continue
        if text_hash(doc.clean_text()) != rec["sha1"]:
            changed += 1        # the extractor's text changed since it was read: not comparable
            continue
        q = doc.meta.get("quality") or {}
        rows.append({"label": rec["label"], "lang": rec["lang"], "fold": fold_of_url(rec["url"]),
                     "round": rec.get("round", 1),
                     "words": doc.word_count(), "m": {k: v for k, v in q.items() if k.startswith("q_")}})
    print(f"labelled documents: {len(labels)}; found with the same text: {len(rows)}; text changed: {changed}")
    langs = Counter(r["lang"] for r in rows)
    lows = Counter(r["lang"] for r in rows if r["label"] == "low")
    print("per language (labelled / low): " + ", ".join(f"{l} {n}/{lows[l]}" for l, n in langs.most_common()))
    folds = Counter(r["fold"] for r in rows)
    print(f"{FOLDS} folds by site: " + ", ".join(
        f"{f}: {folds[f]} ({sum(r['label'] == 'low' for r in rows if r['fold'] == f)} low)" for f in range(FOLDS)))

    def line(name, tp, fp, fn):
        p, r, f = prf(tp, fp, fn)
        print(f"{name}: P {p:.2f} R {r:.2f} F1 {f:.2f} ({tp + fp} judged low, {tp + fn} labelled low)")

    line("literature thresholds (Gopher, C4, FineWeb), all documents", *counts(rows, LITERATURE))
    # the tuning, cross-validated: thresholds chosen on four folds, the fifth scored, each in turn
    held = [0, 0, 0]
    for f in range(FOLDS):
        train = [r for r in rows if r["fold"] != f]
        test = [r for r in rows if r["fold"] == f]
        tuned, chosen = tune(train, LITERATURE)
        c = counts(test, tuned)
        held = [a + b for a, b in zip(held, c)]
        p, rec, f1 = prf(*c)
        print(f"  fold {f}: tuned on {len(train)} ({chosen or 'no change'}); held-out {len(test)}: "
              f"P {p:.2f} R {rec:.2f}")
    line("tuned on the training folds, scored on the held-out fold (pooled)", *held)
    tuned, chosen = tune(rows, LITERATURE)
    print(f"tuned on all documents (what ships): {chosen or 'no change'}")
    # the shipped thresholds were chosen on the round-1 labels: the round-2 documents were read
    # after that, so they score them held-out
    for rnd in sorted({r["round"] for r in rows}):
        part = [r for r in rows if r["round"] == rnd]
        line(f"shipped thresholds (corpustool/quality.py RULES), labelling round {rnd} ({len(part)} documents"
             + (", the thresholds' own tuning data)" if rnd == 1 else ", read after they were chosen)"),
             *counts(part, RULES))
    line("literature thresholds, labelling round 2", *counts([r for r in rows if r["round"] == 2], LITERATURE))
    print("each rule alone (shipped threshold), over all rows: precision / documents it fires on")
    for rule in dict.fromkeys(r[0] for r in RULES):
        alone = tuple(r for r in RULES if r[0] == rule)
        p, r, f, judged, gold = pr(rows, alone)
        print(f"  {rule:12s} fires {judged:3d}  P {p:.2f}  R {r:.2f}")
    stats = quality.stats
    print(f"quality stage: {stats.docs_in} documents; build of the sample {elapsed:.1f} s")
    return 0


def _without_text_types():
    """Patches that make a build compute no text types (restored by calling the returned function):
    the clean stage reads no declarations and types no page, the writer writes no attributes."""
    from corpustool.extractors import clean
    from corpustool.writers import vertical

    saved = (clean.Clean.text_types, vertical.text_types)
    clean.Clean.text_types = lambda self, doc, page: None
    vertical.text_types = lambda doc: []

    def restore():
        clean.Clean.text_types, vertical.text_types = saved
    return restore


class _Stopwatch:
    """CPU seconds spent in the wrapped functions, each call's own time only: time spent in a
    wrapped function it calls goes to that one's label (word counts made first by the quality
    stage or the page type are work a later stage would otherwise do).

    The clock is read only where it says something: a function wrapped ``nested_only`` is timed
    only inside another timed call, and a call that ``cached(*args)`` says will return a cached
    answer is not timed (its little time stays with its caller). Paragraph.word_count is called
    millions of times in a build, mostly from the statistics and mostly cached: reading the
    process clock twice around each call added ~5 s to a 34 s build (inflating the total the
    shares are taken of) and ~1 us a call to the callers (inflating their shares)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.saved: list[tuple[object, str, object]] = []
        self.inner: list[float] = []        # per active call: the time of the wrapped calls inside it

    def wrap(self, owner, name: str, label: str, nested_only: bool = False, cached=None) -> None:
        fn = getattr(owner, name)
        spent, inner = self.spent, self.inner
        spent.setdefault(label, 0.0)

        def timed(*args, **kw):
            if (nested_only and not inner) or (cached is not None and cached(*args)):
                return fn(*args, **kw)
            t0 = time.process_time()
            inner.append(0.0)
            try:
                return fn(*args, **kw)
            finally:
                took = time.process_time() - t0
                spent[label] += took - inner.pop()
                if inner:
                    inner[-1] += took
        self.saved.append((owner, name, fn))
        setattr(owner, name, timed)

    def restore(self) -> None:
        for owner, name, fn in reversed(self.saved):
            setattr(owner, name, fn)


def timed_build(inputs: list[str], output: str, quality: bool, text_types: bool,
                watch: _Stopwatch | None = None) -> float:
    """CPU seconds of one build of ``inputs`` to a vertical file, in this process (one worker, every
    stage in the process, so its CPU time is the whole build's); with ``watch``, the CPU time spent
    in the quality stage and in the text types is added up there."""
    from corpustool.corpus_profile import CorpusProfile
    from corpustool.document import Paragraph
    from corpustool.executors.local import LocalExecutor
    from corpustool.extractors import clean
    from corpustool.pipeline import Pipeline, PipelineOptions
    from corpustool.quality import QualityMarks
    from corpustool.writers import vertical

    restore = None if text_types else _without_text_types()
    if watch is not None:
        watch.wrap(QualityMarks, "process", "quality")
        watch.wrap(clean.Clean, "text_types", "text types")           # declarations, page type
        watch.wrap(vertical, "text_types", "text types")              # the attributes, written
        watch.wrap(vertical, "quality_attributes", "quality")
        watch.wrap(CorpusProfile, "add", "corpus profile")            # (counts text types for the report)
        # (done by some stage in any case; timed only when made, not cached, inside the others)
        watch.wrap(Paragraph, "word_count", "word counts", nested_only=True,
                   cached=lambda p: p._words is not None and p._words[0] is p.text)
    try:
        opts = PipelineOptions(languages=["auto"], workers=1, quality="mark" if quality else "off")
        pipe = Pipeline(inputs, output, opts)
        pipe.executor = LocalExecutor(workers=1, supervised=False)
        t0 = time.process_time()
        pipe.run()
        return time.process_time() - t0
    finally:
        if watch is not None:
            watch.restore()
        if restore is not None:
            restore()


CONFIGS = (("neither", False, False), ("text types", False, True), ("quality", True, False), ("both", True, True))


def timing(limit: int = 0, rounds: int = 3, inside_only: bool = False) -> int:
    """CPU time of the build with and without the quality stage and the text types, interleaved:
    every round builds the four variants once, the order rotated from round to round."""
    import statistics

    tmp = Path(tempfile.mkdtemp(prefix="bench-quality-"))
    inputs = write_inputs(tmp, limit)
    timed_build(inputs, str(tmp / "warm.vert"), True, True)     # imports, lists and models loaded once
    if inside_only:
        return timing_inside(inputs, tmp, rounds)
    times: dict[str, list[float]] = {name: [] for name, _, _ in CONFIGS}
    for r in range(rounds):
        order = CONFIGS[r % 4:] + CONFIGS[:r % 4]
        for name, quality, types in order:
            spent = timed_build(inputs, str(tmp / "out.vert"), quality, types)
            times[name].append(spent)
            print(f"round {r + 1}: {name:10s} {spent:7.2f} CPU s", file=sys.stderr, flush=True)
    med = {name: statistics.median(ts) for name, ts in times.items()}
    for name, _, _ in CONFIGS:
        print(f"{name:10s} median {med[name]:7.2f} CPU s  (" + ", ".join(f"{t:.2f}" for t in times[name]) + ")")
    both = med["both"]
    # each round's own ratio (the variants of one round ran minutes apart, not hours)
    drops = sorted(100 * (1 - n / b) for n, b in zip(times["neither"], times["both"]))
    print(f"with/without, medians: quality {100 * (both - med['text types']) / both:.1f}% of the build's CPU "
          f"time, text types {100 * (both - med['quality']) / both:.1f}%; throughput with both "
          f"{100 * (med['neither'] / both - 1):+.1f}% against neither (per round: "
          + ", ".join(f"{-d:+.1f}%" for d in drops) + ")")
    # the same from each round's own builds (paired: the four builds of a round ran minutes apart),
    # the median over the rounds: less swayed by a slow or fast stretch of the machine
    q_share = [100 * (b - t) / b for b, t in zip(times["both"], times["text types"])]
    t_share = [100 * (b - q) / b for b, q in zip(times["both"], times["quality"])]
    print(f"with/without, each round's own builds, median over {rounds} rounds: quality "
          f"{statistics.median(q_share):.1f}% of the build's CPU time (" + ", ".join(f"{x:.1f}" for x in q_share)
          + f"), text types {statistics.median(t_share):.1f}% (" + ", ".join(f"{x:.1f}" for x in t_share)
          + f"), throughput with both {-statistics.median(drops):+.1f}% against neither")
    return timing_inside(inputs, tmp, rounds)


def timing_inside(inputs: list[str], tmp: Path, rounds: int) -> int:
    """The time the quality stage and the text types spend inside builds with both, against the
    whole build's."""
    watch = _Stopwatch()
    total = sum(timed_build(inputs, str(tmp / "out.vert"), True, True, watch) for _ in range(rounds))
    parts = ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in watch.spent.items())
    inside = watch.spent["quality"] + watch.spent["text types"]
    print(f"timed inside {rounds} builds with both ({total:.2f} CPU s): {parts} of the build's CPU time; "
          f"without the two the build would take {100 * inside / total:.1f}% less, throughput "
          f"{100 * (1 - inside / total) - 100:+.1f}% (targets: quality <= 5%, throughput no more than 10% lower)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", metavar="FILE", help="write the kept documents to FILE (outside the repository)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--timing", action="store_true",
                    help="CPU time of the build with and without quality marks and text types, interleaved")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --timing (default 3)")
    ap.add_argument("--inside", action="store_true", help="with --timing: only the time spent inside builds")
    args = ap.parse_args(argv)
    if not (SNIPPETS / "evaldata.json").is_file() or not (WCXB / "html").is_dir():
        print("skipped: ../shared/data (snippets, wcxb-dev) not present")
        return 0
    if args.dump:
        dump(args.dump, args.limit)
        return 0
    if args.timing:
        return timing(args.limit, args.rounds, args.inside)
    return evaluate(args.limit)


if __name__ == "__main__":
    sys.exit(main())
