"""``corpustool eval --cv``: cross-validation grouped by domain, and collapses against jusText.

The pages are split into ``k`` folds by a hash of their registered domain
(:func:`breakdown.fold_of`: every page of a site in one fold). A configuration
whose extractor learns (``trainable``, e.g. justext-learned) gets one model per
fold, trained on the training gold's pages of the *other* folds' domains, and
each page is extracted by the model of its own fold: no page is scored by a
model that saw its domain. The same fold function places the pages of any gold
(the snippet set too), so a training page and a scored page of one domain are
always in the same fold. Configurations that learn nothing run as they are.

A *collapse* is a page where a configuration's word F1 is more than
``COLLAPSE_MARGIN`` below classic jusText's in the same run.
"""
from __future__ import annotations

import math
import sys
from typing import Any, Sequence

COLLAPSE_MARGIN = 0.5
CLASSIC = ("justext", "justext-package")


def trainable(cfg: Any) -> bool:
    if cfg.peer:
        return False
    from ..extractors.registry import EXTRACTORS

    cls = EXTRACTORS.get(cfg.extractor)
    return bool(getattr(cls, "trainable", False))


def fold_models(train_specs: Sequence[str], k: int, quiet: bool = False,
                read: dict[str, Sequence[Any]] | None = None) -> list[dict[str, Any]]:
    """One model per fold from the training golds (``[FORMAT:]PATH``: main-text or snippet gold;
    ``read``: the pages of a spec the caller has read already, not read again: its skipped
    entries are not named twice)."""
    from . import learn
    from .gold import read_gold

    collect, train_folds = learn.collect, learn.train_folds
    pages = []
    for spec in train_specs:
        given = (read or {}).get(spec)
        got = [p for p in (read_gold(spec) if given is None else given)
               if p.text is not None or p.with_snippets or p.without_snippets]
        if not got:
            from ..errors import OptionError
            raise OptionError(f"train {spec!r}: no page with a gold to learn from", option="train")
        pages += got
    if not quiet:
        print(f"corpustool eval --cv: features of {len(pages)} training pages, then {k} models",
              file=sys.stderr)
    data = collect(pages)
    # each fold's model learns from the other folds' domains: every fold needs some outside it
    from ..errors import OptionError
    from .breakdown import fold_of

    folds = {fold_of(d["domain"], k) for d in data}
    if len(folds) < 2:
        domains = len({d["domain"] for d in data})
        raise OptionError(f"cross-validation in {k} folds: the training pages ({len(data)} with paragraphs to "
                          f"learn from, of {domains} domain{'s' if domains != 1 else ''}) fall in "
                          f"{'no fold' if not folds else 'one fold'}: a fold's model learns from the other "
                          f"folds' domains, so the training gold needs pages of more domains", option="train")
    return train_folds(data, k)


def classic_label(configs: Sequence[Any]) -> str | None:
    """The configuration that is classic jusText (no options), else None."""
    for cfg in configs:
        if cfg.extractor in CLASSIC and not cfg.options and (not cfg.peer or cfg.extractor == "justext"):
            return cfg.label
    return None


def collapses(ev: Any, label: str, reference: str, pages: Sequence[int] | None = None
              ) -> list[tuple[str, float, float]]:
    """(page id, F1 of ``label``, F1 of ``reference``) where the first is more than
    COLLAPSE_MARGIN below the second."""
    out = []
    idx = range(len(ev.pages)) if pages is None else pages
    for i in idx:
        a = ev.results[label][i].primary
        b = ev.results[reference][i].primary
        fa = a.f1 if a is not None else math.nan
        fb = b.f1 if b is not None else math.nan
        if math.isnan(fb):
            continue
        if math.isnan(fa):
            fa = 0.0
        if fa < fb - COLLAPSE_MARGIN:
            out.append((ev.pages[i].id, fa, fb))
    return out
