"""Figures per page group: page types and domain folds.

A rule found by reading the failures of some pages may only fit those pages'
sites. To tell, the pages are split by registered domain (every page of a
site in the same fold, so a site's template never sits on both sides) into
``k`` folds by a hash of the domain: deterministic, independent of the page
order and of the other domains, so a page keeps its fold when pages are added.
The first half of the folds (``0 .. k//2 - 1``) is the development half, the
rest the held-out half: rules are found on the first and kept only if they
also help on the second.
"""
from __future__ import annotations

import hashlib
import math
from typing import Sequence

from .gold import GoldPage


def fold_of(domain: str, k: int) -> int:
    """The fold (0 .. k-1) of a registered domain: BLAKE2b of its UTF-8 bytes, modulo k."""
    digest = hashlib.blake2b(domain.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % k


def page_domain(page: GoldPage) -> str:
    domain = page.meta.get("domain")
    if domain is None:
        from .gold import registered_domain

        domain = page.meta["domain"] = registered_domain(page.url)
    return domain or page.id     # a page without a URL is its own site


def groups(pages: Sequence[GoldPage], folds: int) -> list[tuple[str, list[int]]]:
    """(name, page indices) of every page type (when the gold has them), every fold and
    both halves (when ``folds`` >= 2), in a fixed order."""
    out: list[tuple[str, list[int]]] = []
    types: dict[str, list[int]] = {}
    for i, p in enumerate(pages):
        t = p.meta.get("page_type")
        if t:
            types.setdefault(t, []).append(i)
    for t in sorted(types, key=lambda t: (-len(types[t]), t)):
        out.append((f"type {t}", types[t]))
    if folds >= 2:
        fold = [fold_of(page_domain(p), folds) for p in pages]
        for f in range(folds):
            out.append((f"fold {f}", [i for i, x in enumerate(fold) if x == f]))
        half = folds // 2
        out.append((f"dev half (folds 0-{half - 1})", [i for i, x in enumerate(fold) if x < half]))
        out.append((f"held-out half (folds {half}-{folds - 1})", [i for i, x in enumerate(fold) if x >= half]))
    return out


def breakdown_rows(ev, selected: Sequence[int] | None, folds: int) -> tuple[list[str], list[list[str]]]:
    """Mean per-page F1 (word F1 for a text gold) of every configuration per group."""
    wanted = None if selected is None else set(selected)
    header = ["group", "pages"] + [c.label for c in ev.configs]
    rows = []
    for name, idx in groups(ev.pages, folds):
        if wanted is not None:
            idx = [i for i in idx if i in wanted]
        if not idx:
            continue
        row = [name, str(len(idx))]
        for cfg in ev.configs:
            values = []
            for i in idx:
                p = ev.results[cfg.label][i].primary
                v = p.f1 if p is not None else math.nan
                if not math.isnan(v):
                    values.append(v)
            row.append(f"{sum(values) / len(values):.3f}" if values else "-")
        rows.append(row)
    return header, rows
