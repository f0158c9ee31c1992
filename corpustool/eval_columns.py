"""What the columns of ``corpustool eval``'s reports mean: the summary table's legend and the CSV's columns.

A module of its own without imports, so that ``corpustool eval --help`` can show the CSV columns
without loading the evaluation code.
"""
from __future__ import annotations

from typing import Sequence

# what each CSV column holds (``corpustool eval --help`` and the HTML report show it)
CSV_COLUMN_DOCS = {
    "page": "the page's id in the gold", "url": "its URL", "extractor": "the configuration's label",
    "lang": "the stoplist language used", "drop_reason": "why the clean stage dropped the page (empty: kept)",
    "error": "the extractor's error, if any", "out_words": "words in the output",
    "precision": "share of the output's words that are in the gold text (0-1; snippet gold: of snippets)",
    "recall": "share of the gold text's words in the output (0-1)",
    "f1": "harmonic mean of precision and recall (0-1)", "f05": "F0.5: precision weighted twice (0-1)",
    "fallout": "share of the boilerplate's words kept (0-1, lower is better)",
    "accuracy": "share of all words classified right (0-1)",
    "tp": "gold words kept", "fp": "boilerplate words kept", "fn": "gold words removed",
    "tn": "boilerplate words removed",
    "char_*": "the same scores over characters", "shingle_*": "the same scores over word 4-gram shingles",
    "with_rate": "share of the 'with' snippets found (0-1)",
    "without_rate": "share of the 'without' snippets absent (0-1)",
    "snippet_*": "precision, recall and F1 over snippets ('with' found = TP, 'without' found = FP)",
    "fragments": "runs of consecutive kept blocks (fragmentation)",
    "with_found/with_total, without_found/without_total": "the snippet counts",
}

# the summary table's columns: what each means (the legend under the table and in the HTML report)
COLUMN_LEGEND = {
    "extractor": "the configuration: LABEL=NAME:options",
    "pages": "pages scored",
    "pages/s": "pages per second through the whole clean stage (decoding, language guess, extraction)",
    "extract/s": "pages per second of the extractor's own calls",
    "dropped": "pages the clean stage dropped (scored as empty output)",
    "with%": "percentage of the gold's 'with' snippets (main text) found in the output",
    "without%": "percentage of the gold's 'without' snippets (boilerplate) absent from the output",
    "snipP": "snippet precision: 'with' found / all snippets found (0-1)",
    "snipR": "snippet recall: 'with' found / all 'with' snippets (0-1)",
    "snipF1": "snippet F1, the harmonic mean of snipP and snipR (0-1)",
    "P": "word precision: share of the output's words that are main text (0-1)",
    "R": "word recall: share of the main text's words in the output (0-1)",
    "F1": "word F1, the harmonic mean of P and R (0-1), over all pages' words together",
    "F0.5": "word F0.5: precision weighted twice (0-1)",
    "fallout": "share of the boilerplate's words kept (0-1, lower is better)",
    "acc": "accuracy: share of all words classified right (0-1)",
    "F1 95% CI": "95% bootstrap confidence interval of F1 over the pages",
    "macroF1": "mean of the per-page F1 (0-1)",
    "charF0.5": "F0.5 over characters (0-1)",
    "shingleF1": "F1 over word 4-gram shingles (0-1)",
    "frag/doc": "runs of consecutive kept blocks per page (fragmentation)",
    "avg frag": "average length of a run of kept text, in characters",
    "med frag": "median length of a run of kept text, in characters",
}


def legend(header: Sequence[str]) -> list[tuple[str, str]]:
    """(column, meaning) for the columns of a summary table."""
    return [(h, COLUMN_LEGEND[h]) for h in header if h in COLUMN_LEGEND]


def format_legend(header: Sequence[str]) -> str:
    items = legend(header)
    width = max((len(h) for h, _ in items), default=0)
    return "columns:\n" + "\n".join(f"  {h.ljust(width)}  {what}" for h, what in items)


def csv_columns_help() -> str:
    return "; ".join(f"{k}: {v}" for k, v in CSV_COLUMN_DOCS.items())
