"""``corpustool menus PAGE.html ...``: the menus MenEx detects (seed 002, Ch. 5)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import OptionError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "menus", help="list the menus MenEx detects in HTML pages",
        description="Detect the menus of HTML pages with MenEx (Alarte's thesis, Ch. 5): xpath, features, "
                    "score and a text excerpt of every detected menu root, the main menu first.")
    p.add_argument("pages", nargs="+", metavar="PAGE.html", help="HTML file(s) (.gz too)")
    p.add_argument("--root-threshold", type=float, default=None,
                   help="MenEx's root threshold (Alarte's thesis, Algorithm 1; default 0.90)")
    p.add_argument("--menu-threshold", type=float, default=None,
                   help="MenEx's menu threshold for candidates (Alarte's thesis, Algorithm 2): share of "
                        "the largest weight (default 0.85)")
    p.add_argument("--main-only", action="store_true", help="only the main menu")
    p.add_argument("--json", action="store_true", help="one JSON object per page")
    p.add_argument("--excerpt", type=int, default=100, help="characters of menu text to show (default 100)")
    p.set_defaults(func=run)


def _threshold(name: str, value: float | None, default: float) -> float:
    if value is None:
        return default
    if not 0.0 <= value <= 1.0:
        raise OptionError(f"{name} must be in [0, 1], not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    from .. import encoding
    from ..errors import DataError
    from ..extractors.base import parse_html
    from .inspect import one_page_bytes
    from ..extractors.menex import MENU_THRESHOLD, ROOT_THRESHOLD, analyse_menus

    root_t = _threshold("--root-threshold", args.root_threshold, ROOT_THRESHOLD)
    menu_t = _threshold("--menu-threshold", args.menu_threshold, MENU_THRESHOLD)
    if args.excerpt < 0:
        raise OptionError("--excerpt must be non-negative")
    status = 0
    for path in args.pages:
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            print(f"corpustool menus: {path}: {exc.strerror or exc}", file=sys.stderr)
            status = 1
            continue
        try:
            # read as inspect reads a page: a .gz page was parsed compressed (no menu), a WARC or
            # binary data as if it were one page
            raw = one_page_bytes(path, raw)
        except DataError as exc:
            print(f"corpustool menus: {exc}", file=sys.stderr)
            status = 1
            continue
        tree = parse_html(encoding.decode(raw).text) if raw.strip() else None
        menus = analyse_menus(tree, root_t, menu_t) if tree is not None else []
        if args.main_only:
            menus = menus[:1]
        if args.json:
            print(json.dumps({"page": path, "menus": [
                {"xpath": m.xpath, "main": m.main, "weight": m.weight, "score": m.score, "links": m.links,
                 "features": m.features, "text": m.text[:args.excerpt] if args.excerpt else m.text}
                for m in menus]}, ensure_ascii=False))
            continue
        print(f"{path}: {len(menus)} menu(s)")
        for rank, m in enumerate(menus, 1):
            excerpt = m.text if len(m.text) <= args.excerpt else m.text[:args.excerpt].rstrip() + "..."
            feats = " ".join(f"{k}={v:g}" for k, v in m.features.items())
            print(f"  {rank}. {m.xpath}{'  (main menu)' if m.main else ''}")
            print(f"     score={m.score:.4f} weight={m.weight:.4f} links={m.links}")
            print(f"     {feats}")
            print(f"     text: {excerpt}")
    return status
