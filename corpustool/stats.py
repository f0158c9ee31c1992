"""Per-stage statistics: a table on stderr and JSON shaped like Table 3.9 of seed 003.

Table 3.9 lists corpus size in words after each processing step, with the
percentage relative to the previous row; ``corpus_sizes`` gives exactly those
rows, and ``stages`` the full counters of each stage.
"""
from __future__ import annotations

import json
import os
import sys
from typing import IO, Iterable

from .stage import StageStats


def corpus_sizes(stats: list[StageStats]) -> list[dict]:
    """Rows of Table 3.9: words after each stage and the share of the previous row."""
    rows = []
    prev = None
    for s in stats:
        if s.name == "clean":
            rows.append({"step": "original corpus size", "words": s.words_in, "docs": s.docs_in,
                         "percent_of_previous": None})
            prev = s.words_in
        if s.name in ("read",):
            continue
        pct = round(100.0 * s.words_out / prev, 1) if prev else None
        rows.append({"step": f"after {s.name}", "words": s.words_out, "docs": s.docs_out,
                     "percent_of_previous": pct})
        prev = s.words_out
    return rows


def stats_dict(stats: list[StageStats], **extra) -> dict:
    return {"stages": [s.to_dict() for s in stats], "corpus_sizes": corpus_sizes(stats), **extra}


def write_stats(path: str, stats: list[StageStats], commit: bool = True, **extra) -> str:
    """Write the statistics under a temporary name and rename it to ``path``; without ``commit``
    the temporary file is left for the caller to rename (its name is returned)."""
    from .writers.base import named_error

    if path == "-":         # standard output: nothing to rename
        sys.stdout.write(json.dumps(stats_dict(stats, **extra), indent=2, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        return path
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(stats_dict(stats, **extra), fh, indent=2, ensure_ascii=False, sort_keys=False)
                fh.write("\n")
        except OSError as exc:  # a full disk: the message names the statistics file
            raise named_error(exc, path) from None
        if commit:
            os.replace(tmp, path)
        return tmp
    except BaseException:       # an error or a signal: no half-written statistics file
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def format_table(stats: Iterable[StageStats]) -> str:
    stats = list(stats)
    head = ("stage", "docs in", "docs out", "paras out", "words in", "words out", "words %", "drops")
    rows = []
    for s in stats:
        pct = f"{100.0 * s.words_out / s.words_in:.1f}" if s.words_in else "-"
        drops = ", ".join(f"{r}={n}" for r, n in sorted(s.drops.items())) or "-"
        rows.append((s.name, str(s.docs_in), str(s.docs_out), str(s.paragraphs_out), str(s.words_in),
                     str(s.words_out), pct, drops))
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head) - 1)]
    lines = []
    for r in [head] + rows:
        cells = [r[i].ljust(widths[i]) if i == 0 else r[i].rjust(widths[i]) for i in range(len(head) - 1)]
        lines.append("  ".join(cells) + "  " + r[-1])
    extras = [f"  {s.name}: " + ", ".join(f"{k}={v}" for k, v in sorted(s.extra.items()))
              for s in stats if s.extra]
    return "\n".join(lines + extras)


def print_table(stats: Iterable[StageStats], file: IO[str] | None = None) -> None:
    print(format_table(stats), file=file or sys.stderr)
