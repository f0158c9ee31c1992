"""A self-contained HTML report of a build: tables and plots of what each stage did.

Input is the statistics JSON of ``corpustool build --stats`` (``stages``,
``corpus_sizes``, ``options`` and, when the pipeline profiled the kept
documents, a ``corpus`` section from :class:`corpustool.corpus_profile.CorpusProfile`).
Output is one HTML file with every plot embedded as a base64 PNG, so it can be
mailed or archived with a corpus release without any other file.

Sections: corpus size after each stage (the rows of seed 003 Table 3.9, with
the percentage of the previous row), per-stage counters, drops by reason,
duplicate rates of the de-duplication stages and, from the ``corpus``
section, the language distribution, the document length distribution and the
top domains. Plots are drawn with matplotlib's Agg renderer (no display
needed) and carry no timestamp, so the same statistics give the same file.
"""
from __future__ import annotations

import base64
import bisect
import html
import io
import json
import os
from typing import Any, Iterable

from .errors import OptionError

_TOP_LANGUAGES = 15
_TOP_DOMAINS_PLOT = 20
_TOP_DOMAINS_TABLE = 50
_COLOURS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C",
            "#CCB974", "#64B5CD"]


# -- input ------------------------------------------------------------------

def load_stats(path: str) -> dict[str, Any]:
    """Read and check a statistics JSON file; a bad file is an :class:`OptionError`."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise OptionError(f"cannot read statistics file {path}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise OptionError(f"{path} is not a JSON file: {exc}") from None
    check_stats(data, path)
    return data


def check_stats(data: Any, name: str = "statistics") -> None:
    if not isinstance(data, dict) or not isinstance(data.get("stages"), list):
        raise OptionError(f"{name} is not a corpustool statistics file (no 'stages' list); "
                          "write one with 'corpustool build --stats FILE'")
    for i, st in enumerate(data["stages"]):
        if not isinstance(st, dict) or "stage" not in st:
            raise OptionError(f"{name}: stage entry {i} has no 'stage' name")
    corpus = data.get("corpus")
    if corpus is not None and not isinstance(corpus, dict):
        raise OptionError(f"{name}: 'corpus' must be an object")


def _corpus_sizes(data: dict[str, Any]) -> list[dict[str, Any]]:
    rows = data.get("corpus_sizes")
    if isinstance(rows, list) and rows:
        return rows
    # statistics of a single-stage command carry no rows: derive them as build does
    from .stage import StageStats
    from .stats import corpus_sizes
    return corpus_sizes([StageStats.from_dict(s) for s in data["stages"]])


# -- derived tables -----------------------------------------------------------

def drops_by_reason(stages: list[dict[str, Any]]) -> list[tuple[str, str, int, float | None]]:
    """(stage, reason, documents, percent of the stage's input documents)."""
    rows = []
    for st in stages:
        docs_in = st.get("docs_in") or 0
        for reason, n in sorted((st.get("drops") or {}).items(), key=lambda kv: (-kv[1], kv[0])):
            rows.append((st["stage"], reason, int(n), 100.0 * n / docs_in if docs_in else None))
    return rows


def duplicate_rates(stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per de-duplication stage: share of documents dropped and of words removed."""
    rows = []
    for st in stages:
        if not st["stage"].startswith("dedup"):
            continue
        docs_in, docs_out = st.get("docs_in", 0), st.get("docs_out", 0)
        words_in, words_out = st.get("words_in", 0), st.get("words_out", 0)
        rows.append({
            "stage": st["stage"],
            "docs_in": docs_in,
            "docs_removed": docs_in - docs_out,
            "docs_percent": 100.0 * (docs_in - docs_out) / docs_in if docs_in else 0.0,
            "words_in": words_in,
            "words_removed": words_in - words_out,
            "words_percent": 100.0 * (words_in - words_out) / words_in if words_in else 0.0,
            "extra": st.get("extra") or {},
        })
    return rows


def length_histogram(doc_lengths: Any) -> tuple[list[str], list[int], dict[str, Any]]:
    """Bin labels, counts and a summary from either a histogram object or a list of lengths."""
    from .corpus_profile import LENGTH_EDGES

    if isinstance(doc_lengths, list):
        lengths = [int(x) for x in doc_lengths]
        counts = [0] * (len(LENGTH_EDGES) + 1)
        for n in lengths:
            counts[bisect.bisect_right(LENGTH_EDGES, n)] += 1
        lows = (0,) + LENGTH_EDGES
        bins = [{"min": lo, "max": (LENGTH_EDGES[i] - 1 if i < len(LENGTH_EDGES) else None), "docs": c}
                for i, (lo, c) in enumerate(zip(lows, counts))]
        summary = {"count": len(lengths), "sum": sum(lengths), "min": min(lengths, default=0),
                   "max": max(lengths, default=0)}
    elif isinstance(doc_lengths, dict) and isinstance(doc_lengths.get("bins"), list):
        bins = doc_lengths["bins"]
        summary = {k: doc_lengths.get(k) for k in ("count", "sum", "min", "max")}
    else:
        raise OptionError("corpus.doc_lengths must be a list of word counts or an object with 'bins'")
    # drop empty bins at both ends so the plot shows the populated range
    lo, hi = 0, len(bins)
    while lo < hi and not bins[lo].get("docs"):
        lo += 1
    while hi > lo and not bins[hi - 1].get("docs"):
        hi -= 1
    bins = bins[lo:hi]
    labels = [f"{b['min']:,}+" if b.get("max") is None else
              (f"{b['min']:,}" if b["min"] == b["max"] else f"{b['min']:,}–{b['max']:,}") for b in bins]
    return labels, [int(b.get("docs", 0)) for b in bins], summary


def _top(mapping: dict[str, Any], k: int) -> tuple[list[tuple[str, int]], int]:
    items = sorted(((str(key), int(v)) for key, v in mapping.items()), key=lambda kv: (-kv[1], kv[0]))
    return items[:k], sum(v for _, v in items[k:])


# -- plots --------------------------------------------------------------------

def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)   # Agg: no display, no pyplot global state
    return fig


def _thousands(value: float, _pos: int) -> str:
    """Tick labels short enough not to overlap: 950, 9,500, 95k, 9.5M, 1.2G."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e5, "k")):
        if abs(value) >= limit:
            return f"{value / limit:,.1f}".rstrip("0").rstrip(".") + suffix
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"


def _fmt():
    from matplotlib.ticker import FuncFormatter
    return FuncFormatter(_thousands)


def _count_axis(axis) -> None:
    """Counts of documents or words: integer ticks with thousands separators."""
    from matplotlib.ticker import MaxNLocator
    # at most 6 ticks: an 8-inch axis has room for that many labels side by side (issue 22)
    axis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    axis.set_major_formatter(_fmt())


def _png(fig) -> str:
    buf = io.BytesIO()
    # no "Software" text chunk: the same statistics give the same bytes
    fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _hbar(labels: list[str], values: list[float], xlabel: str, annotations: list[str] | None = None,
          colour: str = _COLOURS[0]) -> str:
    fig = _figure(8, 0.4 * len(labels) + 1.2)
    ax = fig.add_subplot()
    y = list(range(len(labels)))
    ax.barh(y, values, color=colour)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    vmax = max(values, default=0) or 1
    ax.set_xlim(0, vmax * 1.18)
    _count_axis(ax.xaxis)
    for yi, v, text in zip(y, values, annotations or [f"{v:,.0f}" for v in values]):
        ax.text(v + vmax * 0.01, yi, text, va="center", fontsize=8)
    return _png(fig)


def plot_corpus_sizes(rows: list[dict[str, Any]]) -> str:
    labels = [r["step"] for r in rows]
    words = [r.get("words") or 0 for r in rows]
    notes = [f"{w:,}" + (f"  ({r['percent_of_previous']:.1f}%)" if r.get("percent_of_previous") is not None
                         else "") for w, r in zip(words, rows)]
    return _hbar(labels, words, "words", notes)


def plot_drops(stages: list[dict[str, Any]]) -> str | None:
    rows = [st for st in stages if st.get("drops")]
    if not rows:
        return None
    reasons = sorted({r for st in rows for r in st["drops"]})
    fig = _figure(8, 0.45 * len(rows) + 1.6)
    ax = fig.add_subplot()
    y = list(range(len(rows)))
    left = [0] * len(rows)
    for i, reason in enumerate(reasons):
        vals = [st["drops"].get(reason, 0) for st in rows]
        ax.barh(y, vals, left=left, label=reason, color=_COLOURS[i % len(_COLOURS)],
                hatch=None if i < len(_COLOURS) else "//")
        left = [a + b for a, b in zip(left, vals)]
    ax.set_yticks(y, [st["stage"] for st in rows])
    ax.invert_yaxis()
    ax.set_xlabel("documents dropped")
    _count_axis(ax.xaxis)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _png(fig)


def plot_duplicates(rows: list[dict[str, Any]]) -> str | None:
    if not rows:
        return None
    fig = _figure(8, 0.6 * len(rows) + 1.4)
    ax = fig.add_subplot()
    y = list(range(len(rows)))
    h = 0.38
    ax.barh([v - h / 2 for v in y], [r["docs_percent"] for r in rows], height=h, label="documents removed",
            color=_COLOURS[0])
    ax.barh([v + h / 2 for v in y], [r["words_percent"] for r in rows], height=h, label="words removed",
            color=_COLOURS[1])
    top = max([r["docs_percent"] for r in rows] + [r["words_percent"] for r in rows] + [1.0])
    xmax = min(100.0, top * 1.25 + 1)
    for v, r in zip(y, rows):
        ax.text(r["docs_percent"] + xmax * 0.01, v - h / 2, f"{r['docs_percent']:.1f}%", va="center", fontsize=8)
        ax.text(r["words_percent"] + xmax * 0.01, v + h / 2, f"{r['words_percent']:.1f}%", va="center",
                fontsize=8)
    ax.set_yticks(y, [r["stage"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, xmax * 1.1)
    ax.set_xlabel("% of the stage's input")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    return _png(fig)


def plot_lengths(labels: list[str], counts: list[int]) -> str:
    fig = _figure(8, 3.6)
    ax = fig.add_subplot()
    x = list(range(len(labels)))
    ax.bar(x, counts, color=_COLOURS[2])
    ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=8)
    ax.set_xlabel("words per document")
    ax.set_ylabel("documents")
    _count_axis(ax.yaxis)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return _png(fig)


# -- HTML ---------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2em auto;max-width:60em;
     padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.8em 0;font-size:.92em}
th,td{padding:.25em .7em;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f5f5f5} td.n{text-align:right;font-variant-numeric:tabular-nums}
img{max-width:100%;height:auto;display:block;margin:.6em 0}
.note{color:#666;font-size:.9em} .summary td{border:none;padding:.1em .8em .1em 0}
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any, digits: int = 0) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) or digits:
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return _esc(value)


def _table(head: Iterable[str], rows: Iterable[Iterable[Any]], numeric: Iterable[int] = ()) -> str:
    numeric = set(numeric)
    out = ["<table>", "<tr>" + "".join(f"<th>{_esc(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="n"' if i in numeric else ""
            cells.append(f"<td{cls}>{cell}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _img(png_b64: str, alt: str) -> str:
    return f'<img src="data:image/png;base64,{png_b64}" alt="{_esc(alt)}">'


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}%"


def render_report(data: dict[str, Any], title: str | None = None) -> str:
    """The report as one HTML string."""
    check_stats(data)
    stages = data["stages"]
    sizes = _corpus_sizes(data)
    corpus = data.get("corpus") or {}
    title = title or "Corpus build report"
    parts: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
    ]

    # summary
    first = next((s for s in stages if s["stage"] != "read"), stages[0] if stages else None)
    last = stages[-1] if stages else None
    summary = []
    if first is not None and last is not None:
        summary.append(("documents in", _num(first.get("docs_in", 0))))
        summary.append(("documents in the corpus", _num(last.get("docs_out", 0))))
        if sizes:
            summary.append(("original corpus size [words]", _num(sizes[0].get("words"))))
            final = sizes[-1].get("words") or 0
            orig = sizes[0].get("words") or 0
            summary.append(("final corpus size [words]",
                            _num(final) + (f" ({100.0 * final / orig:.1f}% of the original)" if orig else "")))
        tokens = (last.get("extra") or {}).get("tokens")
        if tokens is not None:
            summary.append(("tokens", _num(tokens)))
        read = next((s for s in stages if s["stage"] in ("read", "clean") and s.get("bytes_in")), None)
        if read is not None:
            summary.append(("HTML read", f"{read['bytes_in'] / 1e6:,.1f} MB"))
    if summary:
        parts.append('<table class="summary">' + "".join(
            f"<tr><td>{_esc(k)}</td><td>{v}</td></tr>" for k, v in summary) + "</table>")

    # corpus size after each stage: Table 3.9
    parts.append('<h2 id="sizes">Corpus size after each stage</h2>')
    if sizes:
        parts.append('<p class="note">As Table 3.9 of Pomikálek\'s thesis: words (whitespace-separated, as <code>wc -w</code>) '
                     "after each processing step; the percentage is relative to the previous row.</p>")
        parts.append(_img(plot_corpus_sizes(sizes), "corpus size after each stage"))
        parts.append(_table(["step", "words", "%", "documents"],
                            ([_esc(r["step"]), _num(r.get("words")), _pct(r.get("percent_of_previous")),
                              _num(r.get("docs"))] for r in sizes), numeric=(1, 2, 3)))
    else:
        parts.append('<p class="note">No clean stage in these statistics.</p>')

    # per-stage counters
    parts.append('<h2 id="stages">Stages</h2>')
    parts.append(_table(
        ["stage", "docs in", "docs out", "paragraphs in", "paragraphs out", "words in", "words out", "HTML MB",
         "other counters"],
        ([_esc(s["stage"]), _num(s.get("docs_in", 0)), _num(s.get("docs_out", 0)), _num(s.get("paragraphs_in", 0)),
          _num(s.get("paragraphs_out", 0)), _num(s.get("words_in", 0)), _num(s.get("words_out", 0)),
          f"{s['bytes_in'] / 1e6:,.1f}" if s.get("bytes_in") else "–",
          _esc(", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}"
                         for k, v in sorted((s.get("extra") or {}).items())) or "–")]
         for s in stages), numeric=range(1, 8)))

    # drops by reason
    parts.append('<h2 id="drops">Dropped documents by reason</h2>')
    drops = drops_by_reason(stages)
    if drops:
        png = plot_drops(stages)
        if png:
            parts.append(_img(png, "dropped documents by stage and reason"))
        parts.append(_table(["stage", "reason", "documents", "% of stage input"],
                            ([_esc(st), _esc(reason), _num(n), _pct(pct)] for st, reason, n, pct in drops),
                            numeric=(2, 3)))
    else:
        parts.append('<p class="note">No document was dropped.</p>')

    # duplicate rates
    dups = duplicate_rates(stages)
    if dups:
        parts.append('<h2 id="duplicates">Duplicate rates</h2>')
        parts.append('<p class="note">Share of each de-duplication stage\'s input removed: whole documents, and '
                     "words (paragraph-level de-duplication removes words without dropping documents).</p>")
        png = plot_duplicates(dups)
        if png:
            parts.append(_img(png, "duplicate rates"))
        parts.append(_table(
            ["stage", "docs in", "docs removed", "% docs", "words in", "words removed", "% words", "other counters"],
            ([_esc(r["stage"]), _num(r["docs_in"]), _num(r["docs_removed"]), _pct(r["docs_percent"]),
              _num(r["words_in"]), _num(r["words_removed"]), _pct(r["words_percent"]),
              _esc(", ".join(f"{k}={v}" for k, v in sorted(r["extra"].items())) or "–")] for r in dups),
            numeric=range(1, 7)))

    # languages
    languages = corpus.get("languages")
    if isinstance(languages, dict) and languages:
        total = sum(int(v) for v in languages.values()) or 1
        top, other = _top(languages, _TOP_LANGUAGES)
        labels = [k for k, _ in top] + (["other"] if other else [])
        values = [v for _, v in top] + ([other] if other else [])
        parts.append('<h2 id="languages">Language distribution</h2>')
        parts.append(_img(_hbar(labels, values, "documents",
                                [f"{v:,} ({100.0 * v / total:.1f}%)" for v in values], colour=_COLOURS[4]),
                          "documents per language"))
        words_by_lang = corpus.get("language_words") or {}
        all_langs, _ = _top(languages, len(languages))
        parts.append(_table(["language", "documents", "% documents", "words"],
                            ([_esc(k), _num(v), _pct(100.0 * v / total), _num(words_by_lang.get(k))]
                             for k, v in all_langs), numeric=(1, 2, 3)))

    # document lengths
    if corpus.get("doc_lengths") is not None:
        labels, counts, summ = length_histogram(corpus["doc_lengths"])
        parts.append('<h2 id="lengths">Document length distribution</h2>')
        if summ.get("count"):
            mean = (summ.get("sum") or 0) / summ["count"]
            parts.append(f'<p class="note">{_num(summ["count"])} documents; words per document: '
                         f'min {_num(summ.get("min"))}, mean {mean:,.1f}, max {_num(summ.get("max"))}.</p>')
        if counts:
            parts.append(_img(plot_lengths(labels, counts), "document length histogram"))
            total = sum(counts) or 1
            parts.append(_table(["words per document", "documents", "%"],
                                ([_esc(l), _num(c), _pct(100.0 * c / total)] for l, c in zip(labels, counts)),
                                numeric=(1, 2)))

    # domains
    domains = corpus.get("domains")
    if isinstance(domains, dict) and domains:
        total = int(corpus.get("docs") or sum(int(v) for v in domains.values())) or 1
        top_plot, _ = _top(domains, _TOP_DOMAINS_PLOT)
        top_table, _ = _top(domains, _TOP_DOMAINS_TABLE)
        parts.append('<h2 id="domains">Top domains</h2>')
        distinct = corpus.get("domains_distinct")
        note = f"{_num(distinct)} distinct domains. " if distinct is not None else ""
        if corpus.get("domains_exact") is False:
            note += "Counts are upper bounds (Space-Saving summary; more domains than counters). "
        if note:
            parts.append(f'<p class="note">{note.strip()}</p>')
        parts.append(_img(_hbar([k for k, _ in top_plot], [v for _, v in top_plot], "documents",
                                [f"{v:,} ({100.0 * v / total:.1f}%)" for _, v in top_plot], colour=_COLOURS[5]),
                          "documents per domain"))
        parts.append(_table(["domain", "documents", "% documents"],
                            ([_esc(k), _num(v), _pct(100.0 * v / total)] for k, v in top_table), numeric=(1, 2)))

    # text types (documents and words per page type, top-level domain, length class, year)
    text_types = corpus.get("text_types")
    if isinstance(text_types, dict) and any(isinstance(v, dict) and v for v in text_types.values()):
        from .text_types import LENGTH_CLASSES
        parts.append('<h2 id="text-types">Text types</h2>')
        parts.append('<p class="note">The <code>&lt;doc&gt;</code> attributes <code>type</code>, '
                     '<code>tld</code>, <code>length</code> and the year of <code>date</code>: documents '
                     'and words per value (&ldquo;none&rdquo;: the attribute is not written).</p>')
        order = {label: i for i, (_, label) in enumerate(LENGTH_CLASSES)}
        for name, title in (("type", "page type"), ("tld", "top-level domain"), ("length", "length class"),
                            ("year", "year")):
            values = text_types.get(name)
            if not isinstance(values, dict) or not values:
                continue
            rows = [(str(k), int(v.get("docs", 0)), int(v.get("words", 0))) for k, v in values.items()
                    if isinstance(v, dict)]
            if name == "length":
                rows.sort(key=lambda r: (order.get(r[0], len(order)), r[0]))
            elif name == "year":
                rows.sort(key=lambda r: (r[0] == "none", r[0]))
            else:
                rows.sort(key=lambda r: (-r[1], r[0]))
            total_docs = sum(r[1] for r in rows) or 1
            total_words = sum(r[2] for r in rows) or 1
            parts.append(f'<h3>{_esc(title)}</h3>')
            parts.append(_table([title, "documents", "% documents", "words", "% words"],
                                ([_esc(k), _num(d), _pct(100.0 * d / total_docs), _num(w),
                                  _pct(100.0 * w / total_words)] for k, d, w in rows[:_TOP_DOMAINS_TABLE]),
                                numeric=(1, 2, 3, 4)))

    # options
    options = data.get("options")
    if isinstance(options, dict) and options:
        parts.append('<h2 id="options">Options</h2>')
        parts.append(_table(["option", "value"],
                            ([_esc(k), _esc(json.dumps(v, ensure_ascii=False))] for k, v in sorted(options.items()))))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(data: dict[str, Any], path: str, title: str | None = None, commit: bool = True) -> str:
    """Render and write the report atomically (temporary name, then rename; without ``commit``
    the caller renames the temporary file, whose name is returned)."""
    from .writers.base import named_error, remove_quietly

    text = render_report(data, title=title)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        try:
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        except OSError as exc:
            raise named_error(exc, path) from None
        if commit:
            os.replace(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise
    return tmp
