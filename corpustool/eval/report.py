"""Reports of an evaluation: per-file CSV, summary table, HTML report with inspect pages.

The CSV has one row per page and configuration (seed 004, Appendix I.4:
"detailed results"); the summary table one row per configuration (Appendix
I.3: "overall results") with pages per second beside the scores; the HTML
report lists pages worst first and links each to an inspect page (seed 004,
Sect. 2.2.3: the gold text, then each extractor's output as blocks with
their classification), kept text in green, removed text in red.

Files are deterministic: timings appear only in the printed table.
"""
from __future__ import annotations

import csv
import html
import math
import os
from pathlib import Path
from typing import IO, Sequence

from ..eval_columns import CSV_COLUMN_DOCS, legend
from .fragments import Fragmentation
from .runner import Evaluation, PageResult, Summary

CSV_METRICS = ("precision", "recall", "f1", "f05", "fallout", "accuracy",
               "tp", "fp", "fn", "tn",
               "char_precision", "char_recall", "char_f1", "char_f05",
               "shingle_precision", "shingle_recall", "shingle_f1",
               "with_rate", "without_rate", "snippet_precision", "snippet_recall", "snippet_f1",
               "fragments")


def _num(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.6f}".rstrip("0")


def _shown(v: float) -> str:
    """A per-page value for reading: counts whole, scores with 3 decimals."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.3f}"


def write_csv(ev: Evaluation, out: IO[str], pages: Sequence[int] | None = None) -> int:
    """One row per page and configuration; returns the number of rows."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["page", "url", "extractor", "lang", "drop_reason", "error", "out_words", *CSV_METRICS,
                "with_found", "with_total", "without_found", "without_total"])
    wanted = range(len(ev.pages)) if pages is None else pages
    rows = 0
    for i in wanted:
        page = ev.pages[i]
        for cfg in ev.configs:
            r = ev.results[cfg.label][i]
            m = r.metrics()
            sn = r.snippets
            w.writerow([page.id, page.url or "", cfg.label, r.lang or "", r.drop_reason or "", r.error or "",
                        r.out_words, *(_num(m[k]) for k in CSV_METRICS),
                        *((sum(sn.found_with), len(sn.found_with), sum(sn.found_without), len(sn.found_without))
                          if sn is not None else ("", "", "", ""))])
            rows += 1
    return rows


# -- summary table -----------------------------------------------------------------

def _pct(v: float) -> str:
    """A share as a percentage with one decimal."""
    return "-" if v is None or math.isnan(v) else f"{100 * v:.1f}"


def _score(v: float) -> str:
    """An F1-type score (0-1) with three decimals."""
    return "-" if v is None or math.isnan(v) else f"{v:.3f}"


def _f(v: float, digits: int = 1) -> str:
    return "-" if v is None or math.isnan(v) else f"{v:.{digits}f}"


def summary_rows(summaries: list[Summary], timings: bool = True) -> tuple[list[str], list[list[str]]]:
    snippets = any(s.snippets is not None for s in summaries)
    text = any(s.words is not None for s in summaries)
    frag = any(s.fragmentation is not None for s in summaries)
    header = ["extractor", "pages"]
    if timings:
        header += ["pages/s", "extract/s"]
    header.append("dropped")
    if snippets:
        header += ["with%", "without%", "snipP", "snipR", "snipF1"]
    if text:
        header += ["P", "R", "F1", "F0.5", "fallout", "acc", "F1 95% CI", "macroF1", "charF0.5", "shingleF1"]
    elif snippets:
        header += ["F1 95% CI", "macroF1"]
    if frag:
        header += ["frag/doc", "avg frag", "med frag"]
    rows = []
    for s in summaries:
        row = [s.label, str(s.pages)]
        if timings:
            row += [_f(s.pages_per_second), _f(s.extract_pages_per_second)]
        row.append(str(s.dropped))
        if snippets:
            sn = s.snippets
            row += [_pct(s.with_rate), _pct(s.without_rate),
                    _score(sn.precision) if sn else "-", _score(sn.recall) if sn else "-",
                    _score(sn.f1) if sn else "-"]
        ci = "-" if math.isnan(s.f1_ci[0]) else f"{s.f1_ci[0]:.3f}-{s.f1_ci[1]:.3f}"
        if text:
            w = s.words
            row += [_score(w.precision) if w else "-", _score(w.recall) if w else "-", _score(w.f1) if w else "-",
                    _score(w.f05) if w else "-", _score(w.fallout) if w else "-",
                    _score(w.accuracy) if w else "-",
                    ci, _score(s.macro_f1), _score(s.chars.f05) if s.chars else "-",
                    _score(s.shingles.f1) if s.shingles else "-"]
        elif snippets:
            row += [ci, _score(s.macro_f1)]
        if frag:
            fr = s.fragmentation
            row += [_f(fr.per_document, 2), _f(fr.avg_length), _f(fr.median_length)] if fr else ["-", "-", "-"]
        rows.append(row)
    return header, rows


def format_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) if rows else len(header[i])
              for i in range(len(header))]
    lines = ["  ".join(h.ljust(widths[0]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(header))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))
    return "\n".join(lines)


def fragmentation_line(name: str, fr: Fragmentation | None) -> str:
    if fr is None:
        return ""
    return (f"{name}: {fr.per_document:.2f} fragments/doc, average length {fr.avg_length:.1f}, "
            f"median {fr.median_length:.1f} characters")


# -- HTML report ---------------------------------------------------------------------

_CSS = """
body{font-family:sans-serif;margin:1.5em;max-width:80em}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}
td.l,th.l{text-align:left}.kept{background:#d9f7d9;color:#063}.removed{background:#fbe0e0;color:#900;
text-decoration:line-through}.found{background:#d9f7d9}.missing{background:#fbe0e0}
.block{margin:2px 0;padding:2px 4px;white-space:pre-wrap}.gold{background:#eef;padding:2px 4px;margin:2px 0}
h2{margin-top:1.5em;border-bottom:1px solid #999}
#pages{table-layout:fixed;width:100%}#pages td,#pages th{overflow-wrap:anywhere;vertical-align:top}
#pages col.rank{width:3.5em}#pages col.page{width:30%}#pages small{color:#555}
"""


def _sort_key(ev: Evaluation, i: int) -> tuple[float, str]:
    """Worst first: the mean primary F1 over configurations (undefined counts as 0)."""
    values = []
    for cfg in ev.configs:
        p = ev.results[cfg.label][i].primary
        v = p.f1 if p is not None else math.nan
        values.append(0.0 if math.isnan(v) else v)
    return (sum(values) / len(values) if values else 0.0, ev.pages[i].id)


def page_file(i: int) -> str:
    return f"pages/{i + 1:05d}.html"


def write_html(ev: Evaluation, directory: str | os.PathLike, summaries: list[Summary],
               pages: Sequence[int] | None = None, title: str = "corpustool eval",
               filter_expr: str | None = None) -> Path:
    """``DIR/index.html`` (summary, pages worst first) and one inspect page per page."""
    out = Path(directory)
    (out / "pages").mkdir(parents=True, exist_ok=True)
    wanted = list(range(len(ev.pages)) if pages is None else pages)
    order = sorted(wanted, key=lambda i: _sort_key(ev, i))
    header, rows = summary_rows(summaries, timings=False)
    e = html.escape
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{e(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1>"]
    if filter_expr:
        parts.append(f"<p id=filter>Filter: <code>{e(filter_expr)}</code> - {len(wanted)} of "
                     f"{len(ev.pages)} pages</p>")
    parts.append("<table id=summary><tr>" + "".join(f"<th class=l>{e(h)}</th>" for h in header) + "</tr>")
    for r in rows:
        parts.append("<tr>" + "".join(f"<td{' class=l' if j == 0 else ''}>{e(c)}</td>" for j, c in enumerate(r))
                     + "</tr>")
    parts.append("</table><dl id=legend>" + "".join(f"<dt>{e(h)}</dt><dd>{e(what)}</dd>"
                                                    for h, what in legend(header)) + "</dl>")
    # a fixed layout within the window: long ids and URLs wrap, every extractor's column stays in view
    parts.append("<h2>Pages, worst first</h2><p>Each cell: the page's F1 (0-1)"
                 + (", with the percentages of 'with' snippets found and 'without' snippets absent"
                    if any(p.with_snippets is not None for p in ev.pages) else "")
                 + "; [reason] when the clean stage dropped the page.</p><table id=pages><colgroup><col class=rank><col class=page>"
                 + "<col>" * len(ev.configs) + "</colgroup><tr><th>#</th><th class=l>page</th>"
                 + "".join(f"<th>{e(c.label)}</th>" for c in ev.configs) + "</tr>")
    for rank, i in enumerate(order, 1):
        page = ev.pages[i]
        cells = []
        for cfg in ev.configs:
            r = ev.results[cfg.label][i]
            cells.append(f"<td>{e(_cell(r))}</td>")
        parts.append(f"<tr><td>{rank}</td><td class=l><a href=\"{page_file(i)}\">{e(page.id)}</a>"
                     f"{'<br><small>' + e(page.url) + '</small>' if page.url else ''}</td>{''.join(cells)}</tr>")
    parts.append("</table></body></html>\n")
    (out / "index.html").write_text("".join(parts), encoding="utf-8")
    for i in wanted:
        (out / page_file(i)).write_text(inspect_page(ev, i), encoding="utf-8")
    return out / "index.html"


def _cell(r: PageResult) -> str:
    p = r.primary
    f1 = "-" if p is None or math.isnan(p.f1) else f"F1 {p.f1:.3f}"
    if r.snippets is not None and r.words is None:
        f1 += f" (with {_pct(r.snippets.with_rate)}%, without {_pct(r.snippets.without_rate)}%)"
    if r.drop_reason:
        f1 += f" [{r.drop_reason}]"
    return f1


def inspect_page(ev: Evaluation, i: int) -> str:
    """The inspect view of one page: scores, gold, each configuration's blocks in colour."""
    e = html.escape
    page = ev.pages[i]
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{e(page.id)}</title>"
             f"<style>{_CSS}</style></head><body><p><a href=\"../index.html\">back to the list</a></p>"
             f"<h1>{e(page.id)}</h1>"]
    if page.url:
        parts.append(f"<p>{e(page.url)}</p>")
    metrics = ("precision", "recall", "f1", "f05", "fallout", "accuracy", "tp", "fp", "fn", "tn",
               "with_rate", "without_rate", "shingle_f1", "fragments", "out_words")
    parts.append("<table id=scores><tr><th class=l>extractor</th><th class=l>lang</th><th class=l>drop</th>"
                 + "".join(f"<th>{m}</th>" for m in metrics) + "</tr>")
    for cfg in ev.configs:
        r = ev.results[cfg.label][i]
        m = r.metrics()
        parts.append(f"<tr><td class=l>{e(cfg.label)}</td><td class=l>{e(r.lang or '')}</td>"
                     f"<td class=l>{e(r.drop_reason or '')}</td>"
                     + "".join(f"<td>{_shown(m[k])}</td>" for k in metrics) + "</tr>")
    parts.append("</table><dl id=legend>" + "".join(
        f"<dt>{e(k)}</dt><dd>{e(CSV_COLUMN_DOCS[k])}</dd>" for k in metrics if k in CSV_COLUMN_DOCS)
        + "<dt>shingle_f1</dt><dd>F1 over word 4-gram shingles (0-1)</dd>"
        "<dt>scores</dt><dd>word scores for text gold, snippet scores for snippet gold</dd></dl>")
    parts.append("<h2>Gold</h2><div id=gold>")
    if page.with_snippets is not None or page.without_snippets is not None:
        parts.append("<p>Snippets (found by: " + ", ".join(e(c.label) for c in ev.configs) + ")</p><ul>")
        for kind, snippets in (("with", page.with_snippets or []), ("without", page.without_snippets or [])):
            for k, s in enumerate(snippets):
                marks = []
                for cfg in ev.configs:
                    r = ev.results[cfg.label][i]
                    found = (r.snippets.found_with if kind == "with" else r.snippets.found_without) \
                        if r.snippets is not None else []
                    hit = found[k] if k < len(found) else None
                    good = hit if kind == "with" else (hit is False)
                    cls = "found" if good else "missing"
                    marks.append(f"<span class={cls}>{'yes' if hit else 'no'}</span>")
                parts.append(f"<li>{kind}: <q>{e(s)}</q> {' '.join(marks)}</li>")
        parts.append("</ul>")
    if page.nodes is not None:
        for n in page.nodes:
            cls = "kept" if n.label == "good" else ("removed" if n.label == "bad" else "")
            ar = f" [{n.agreement}]" if n.agreement is not None else ""
            parts.append(f"<div class=\"gold {cls}\">{e(n.text.strip())}<small>{e(n.label + ar)}</small></div>")
    elif page.paragraphs is not None:
        for p in page.paragraphs:
            parts.append(f"<div class=gold>{e(p)}</div>")
    parts.append("</div>")
    for n, cfg in enumerate(ev.configs, 1):
        r = ev.results[cfg.label][i]
        parts.append(f"<h2 id=\"e{n}\">{e(cfg.label)}</h2><div class=output>")
        if r.error:
            parts.append(f"<p class=removed>error: {e(r.error)}</p>")
        if r.blocks is not None:
            for text, kept in r.blocks:
                parts.append(f"<div class=\"block {'kept' if kept else 'removed'}\">{e(text)}</div>")
        elif r.text is not None:
            for line in r.text.splitlines():
                if line.strip():
                    parts.append(f"<div class=\"block kept\">{e(line)}</div>")
        else:
            parts.append("<p>(output not kept)</p>")
        parts.append("</div>")
    parts.append("</body></html>\n")
    return "".join(parts)
