"""Gold standards: readers for five formats, one page model.

Every reader yields :class:`GoldPage` objects: the page as the extractors
will see it (raw bytes, or decoded markup where the reader had to change it)
plus what is known to be right about it:

* ``snippets`` - ``{url: {file, with: [...], without: [...]}}`` with pages in
  ``pages/`` (the format of ``../shared/data/snippets``). Only snippets are
  known: hit rates, no word-level scores.
* ``articles`` - ``{id: {articleBody, url}}`` with pages as ``html/ID.html.gz``
  (article-extraction benchmarks). The gold is the main text.
* ``cleaneval`` - CleanEval plain-text gold: a ``URL:`` line, then text whose
  blocks start with ``<p>``, ``<h>`` or ``<l>`` (seed 003, Sect. 2.5), paired
  with the HTML file of the same name (Rolli's framework, seed 004, pairs a
  content file and an HTML file by name too). The text is UTF-8 or, named on
  stderr, read in the encoding detected as a page's is.
* ``wcxb`` - the Web Content eXtraction Benchmark's layout: ``html/NNNN.html.gz``
  and ``ground-truth/NNNN.json`` (``ground_truth.main_content``, its ``with`` /
  ``without`` snippets, ``_internal.page_type.primary``). The gold is the main
  text; pages are scored with the benchmark's own metric, bag-of-words
  precision/recall/F1 over lower-cased ``\\w+`` tokens (``meta["word_metric"]``
  is ``"bag"``), and carry their page type and registered domain in ``meta``.
* ``annotated`` - node-level annotations: class attributes on wrapper elements
  in the page itself (seed 003, Sect. 2.8): KrdWrd/Canola ``<kw
  class="krdwrd-tag-C-AR">`` (C = 1 bad, 2 uncertain, 3 good, ``mrgtie`` a tied
  vote; AR = annotator agreement, rounded to tens), L3S-GN1 ``<span
  class="x-nc-selN">`` (0 not content, 1-5 headline, full text, supplemental,
  related content, comments = content; unannotated text is not content; the
  innermost annotation wins), or the generic classes ``gold-good`` /
  ``gold-bad`` / ``gold-uncertain`` for one's own data. The annotation wrappers
  are removed before the extractors see the page, as in seed 003 (Sect. 2.9).

A spec is ``[FORMAT:]PATH``; without a format it is detected from the path.
"""
from __future__ import annotations

import functools
import gzip
import json
import os
import re
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import lxml.html
from lxml import etree

from .. import encoding
from ..errors import OptionError
from .tokens import text_nodes

FORMATS = ("snippets", "articles", "cleaneval", "annotated", "wcxb")

GOOD, BAD, UNCERTAIN, TIE, UNANNOTATED = "good", "bad", "uncertain", "tie", "unannotated"


@dataclass
class GoldNode:
    """One annotated DOM text node."""

    text: str
    label: str                      # good | bad | uncertain | tie | unannotated
    agreement: int | None = None    # annotation reliability (AR), 0-100, when known
    cls: str = ""                   # the annotation class as written


@dataclass
class GoldPage:
    """One page and its gold standard."""

    id: str
    url: str | None
    format: str
    path: str                                   # the HTML file
    text: str | None = None                     # gold main content (paragraphs joined by newlines)
    paragraphs: list[str] | None = None         # gold blocks, for the inspect view
    with_snippets: list[str] | None = None
    without_snippets: list[str] | None = None
    nodes: list[GoldNode] | None = None         # node-level annotations in document order
    html: str | None = None                     # markup prepared by the reader (annotations stripped)
    meta: dict = field(default_factory=dict)

    def load(self) -> tuple[bytes | None, str | None]:
        """(raw bytes, decoded markup): exactly one is set."""
        if self.html is not None:
            return None, self.html
        data = Path(self.path).read_bytes()
        if self.path.endswith(".gz"):
            data = gzip.decompress(data)
        return data, None


# -- spec and detection -------------------------------------------------------

def parse_spec(spec: str) -> tuple[str, Path]:
    """``[FORMAT:]PATH`` -> (format, path); the format is detected when omitted."""
    fmt, sep, rest = spec.partition(":")
    if sep and fmt in FORMATS:
        path = Path(rest)
        if not path.exists():
            raise OptionError(f"gold {spec!r}: {rest} does not exist")
        return fmt, path
    path = Path(spec)
    if not path.exists():
        if sep and re.fullmatch(r"[A-Za-z][\w-]*", fmt):
            # (a misspelt format was reported as a missing path)
            raise OptionError(f"gold {spec!r}: unknown format {fmt!r}; FORMAT is one of {', '.join(FORMATS)}")
        raise OptionError(f"gold {spec!r} does not exist (give [FORMAT:]PATH, FORMAT one of {', '.join(FORMATS)})")
    return detect_format(path), path


def detect_format(path: Path) -> str:
    if path.is_file():
        if path.suffix.lower() == ".json":
            return _json_format(path)
        raise OptionError(f"cannot tell the gold format of {path}; prefix it with FORMAT: ({', '.join(FORMATS)})")
    if (path / "evaldata.json").is_file():
        return "snippets"
    if (path / "ground-truth").is_dir() and (path / "html").is_dir():
        return "wcxb"
    for name in ("ground-truth.json", "ground_truth.json", "gold.json"):
        if (path / name).is_file():
            return "articles"
    if _find_cleaneval_gold(path):
        return "cleaneval"
    for f in sorted(path.rglob("*.htm*"))[:20]:
        head = f.read_bytes()[:200_000]
        if _ANNOTATION_BYTES.search(head):
            return "annotated"
    raise OptionError(f"cannot tell the gold format of {path}; prefix it with FORMAT: ({', '.join(FORMATS)})")


_ANNOTATION_BYTES = re.compile(rb"krdwrd-tag-|x-nc-sel\d|gold-(?:good|bad|uncertain)")


def _json_format(path: Path) -> str:
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise OptionError(f"cannot read gold {path}: {exc}") from None
    if isinstance(data, dict):
        for value in data.values():
            if isinstance(value, dict):
                if "with" in value or "without" in value:
                    return "snippets"
                if "articleBody" in value:
                    return "articles"
            break
    raise OptionError(f"{path}: neither a snippet set nor an article-body JSON")


def read_gold(spec: str, min_agreement: int = 0) -> list[GoldPage]:
    """All pages of a gold spec, in a stable order; unusable entries are reported on stderr."""
    fmt, path = parse_spec(spec)
    if fmt == "snippets":
        return list(read_snippets(path))
    if fmt == "articles":
        return list(read_articles(path))
    if fmt == "cleaneval":
        return list(read_cleaneval(path))
    if fmt == "wcxb":
        return list(read_wcxb(path))
    return list(read_annotated(path, min_agreement=min_agreement))


def _warn(msg: str) -> None:
    print(f"corpustool eval: {msg}", file=sys.stderr)


def _load_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise OptionError(f"cannot read gold {path}: {exc}") from None
    if not isinstance(data, dict):
        raise OptionError(f"{path}: expected a JSON object")
    return data


# -- snippets ---------------------------------------------------------------------

def _snippet_lists(entry: dict, where: str) -> tuple[list[str], list[str]] | None:
    """An entry's ``with`` and ``without`` snippets, or None (and a warning naming the entry) when
    either is not a list of strings: a string there would otherwise be read as one snippet a
    character, and its page scored on them without a word."""
    lists = []
    for key in ("with", "without"):
        value = entry.get(key)
        if value is None:
            value = []
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            _warn(f"{where}: {key!r} is not a list of strings; skipped")
            return None
        lists.append(value)
    return lists[0], lists[1]


def read_snippets(path: Path) -> Iterator[GoldPage]:
    """Snippet sets; entries whose page file is missing are skipped (and counted)."""
    json_path = path / "evaldata.json" if path.is_dir() else path
    pages_dir = json_path.parent / "pages"
    data = _load_json(json_path)
    missing = 0
    for url, entry in data.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            _warn(f"{json_path}: entry {url!r} has no 'file'; skipped")
            continue
        snippets = _snippet_lists(entry, f"{json_path}: entry {url!r}")
        if snippets is None:
            continue
        page = pages_dir / entry["file"]
        if not page.is_file():
            missing += 1
            continue
        yield GoldPage(id=entry["file"], url=url, format="snippets", path=str(page),
                       with_snippets=snippets[0], without_snippets=snippets[1])
    if missing:
        _warn(f"{json_path}: {missing} entries without a page in {pages_dir} skipped")


# -- article bodies ---------------------------------------------------------------------

def read_articles(path: Path) -> Iterator[GoldPage]:
    """``{id: {articleBody, url}}``; pages are ``html/ID.html.gz`` (or ``.html``) beside the JSON."""
    if path.is_dir():
        for name in ("ground-truth.json", "ground_truth.json", "gold.json"):
            if (path / name).is_file():
                path = path / name
                break
    html_dir = path.parent / "html"
    data = _load_json(path)
    for key in data:
        entry = data[key]
        if not isinstance(entry, dict) or not isinstance(entry.get("articleBody"), str):
            _warn(f"{path}: entry {key!r} has no 'articleBody'; skipped")
            continue
        page = next((p for p in (html_dir / f"{key}.html.gz", html_dir / f"{key}.html") if p.is_file()), None)
        if page is None:
            _warn(f"{path}: no page html/{key}.html.gz; skipped")
            continue
        body = entry["articleBody"]
        yield GoldPage(id=str(key), url=entry.get("url"), format="articles", path=str(page), text=body,
                       paragraphs=[p.strip() for p in body.splitlines() if p.strip()])


# -- WCXB -----------------------------------------------------------------------------

def registered_domain(url: str | None) -> str:
    """The registered domain of a URL's host (``news.bbc.co.uk`` -> ``bbc.co.uk``), from the
    ICANN part of the Public Suffix List (publicsuffixlist's bundled copy, no download): pages of
    one site, or of one hosting platform's sites, share it. ``""`` without a host."""
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url or "").hostname or "").rstrip(".").lower()
    except ValueError:
        return ""
    if not host:
        return ""
    if host.startswith("www."):
        host = host[4:]
    return _psl().privatesuffix(host) or host


@functools.lru_cache(maxsize=1)
def _psl():
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(only_icann=True)


def read_wcxb(path: Path) -> Iterator[GoldPage]:
    """WCXB pages: ``ground-truth/ID.json`` paired with ``html/ID.html.gz`` (or ``.html``).
    A page without a main text (the benchmark has a few: single-page apps whose text the
    crawl did not render) has no gold to score and is skipped, counted on stderr."""
    gt_dir, html_dir = path / "ground-truth", path / "html"
    no_text = no_page = 0
    for gold in sorted(gt_dir.glob("*.json")):
        key = gold.name[:-5]
        try:
            with open(gold, encoding="utf-8-sig") as fh:
                entry = json.load(fh)
        except (OSError, ValueError) as exc:
            _warn(f"{gold}: cannot read: {exc}; skipped")
            continue
        truth = entry.get("ground_truth") if isinstance(entry, dict) else None
        if not isinstance(truth, dict):
            _warn(f"{gold}: no 'ground_truth' object; skipped")
            continue
        body = truth.get("main_content")
        if not isinstance(body, str) or not body.strip():
            no_text += 1
            continue
        snippets = _snippet_lists(truth, str(gold))
        if snippets is None:
            continue
        page = next((p for p in (html_dir / f"{key}.html.gz", html_dir / f"{key}.html") if p.is_file()), None)
        if page is None:
            no_page += 1
            continue
        internal = entry.get("_internal") if isinstance(entry.get("_internal"), dict) else {}
        ptype = internal.get("page_type")
        ptype = ptype.get("primary") if isinstance(ptype, dict) else ptype
        url = entry.get("url") if isinstance(entry.get("url"), str) else None
        yield GoldPage(
            id=key, url=url, format="wcxb", path=str(page), text=body,
            paragraphs=[p.strip() for p in body.splitlines() if p.strip()],
            with_snippets=snippets[0], without_snippets=snippets[1],
            meta={"page_type": ptype if isinstance(ptype, str) and ptype else "unknown",
                  "domain": registered_domain(url), "word_metric": "bag"},
        )
    if no_text:
        _warn(f"{gt_dir}: {no_text} pages without a main text (nothing to score) skipped")
    if no_page:
        _warn(f"{gt_dir}: {no_page} pages without html/ID.html.gz skipped")


# -- CleanEval ----------------------------------------------------------------------

_CE_MARK = re.compile(r"^\s*<(p|h|l)>\s*", re.IGNORECASE)
_CE_URL = re.compile(r"^\s*URL:\s*(\S*)", re.IGNORECASE)


def parse_cleaneval(text: str) -> tuple[str | None, list[str]]:
    """(URL, blocks) of a CleanEval gold file. A block starts at a ``<p>``,
    ``<h>`` or ``<l>`` mark and runs to the next mark; the marks are not text."""
    url = None
    blocks: list[list[str]] = []
    lines = text.splitlines()
    seen_text = False
    for line in lines:
        if not seen_text and line.strip():
            seen_text = True
            m = _CE_URL.match(line)
            if m:   # the first line names the page
                url = m.group(1) or None
                continue
        m = _CE_MARK.match(line)
        if m:
            blocks.append([line[m.end():]])
        elif line.strip():
            if not blocks:
                blocks.append([])
            blocks[-1].append(line)
    out = [" ".join(" ".join(b).split()) for b in blocks]
    return url, [b for b in out if b]


def _find_cleaneval_gold(path: Path) -> list[Path]:
    found = []
    for d in (path, path / "gold", path / "content", path / "text"):
        if d.is_dir():
            for f in sorted(d.glob("*.txt")):
                with open(f, encoding="utf-8", errors="replace") as fh:
                    first = fh.readline().lstrip("\ufeff")    # (a byte-order mark hid the URL line)
                if _CE_URL.match(first):
                    found.append(f)
    return found


def read_cleaneval(path: Path) -> Iterator[GoldPage]:
    """Gold ``NAME.txt`` files paired with ``NAME.html`` (or ``.htm``, ``.html.gz``) by name,
    looked up beside the text and in ``html/``, ``input/``, ``orig/`` of the gold directory."""
    golds = [path] if path.is_file() else _find_cleaneval_gold(path)
    base = path.parent if path.is_file() else path
    first: dict[str, Path] = {}
    for gold in golds:
        stem = gold.name[:-4]
        if stem in first:
            # (the same name in two of the folders gold texts are looked up in: one page, scored once)
            _warn(f"{gold}: a second gold text for page {stem} (the first: {first[stem]}); skipped")
            continue
        first[stem] = gold
        candidates = [d / f"{stem}{ext}" for d in (gold.parent, base, base / "html", base / "input", base / "orig")
                      for ext in (".html", ".htm", ".html.gz")]
        page = next((p for p in candidates if p.is_file()), None)
        if page is None:
            _warn(f"{gold}: no HTML file named {stem}.html; skipped")
            continue
        url, blocks = parse_cleaneval(_gold_text(gold))
        yield GoldPage(id=stem, url=url, format="cleaneval", path=str(page), text="\n".join(blocks),
                       paragraphs=blocks)


def _gold_text(path: Path) -> str:
    """A gold text file's text: UTF-8 (a byte-order mark dropped), else its encoding detected as a
    page's is (read as UTF-8, a Czech gold in windows-1250 lost every word with a diacritic), named
    on stderr."""
    dec = encoding.decode(path.read_bytes())
    if dec.encoding not in ("utf-8", "ascii") and dec.source != "bom":
        _warn(f"{path}: not UTF-8; read as {dec.encoding}")
    return dec.text


# -- node-level annotations ---------------------------------------------------------

_KRDWRD = re.compile(r"^krdwrd-tag-(1|2|3|mrgtie)(?:-(\d+))?$")
_L3S = re.compile(r"^x-nc-sel(\d)$")
_GENERIC = {"gold-good": GOOD, "gold-bad": BAD, "gold-uncertain": UNCERTAIN}
_KRDWRD_LABELS = {"1": BAD, "2": UNCERTAIN, "3": GOOD, "mrgtie": TIE}


def annotation_of(el: etree._Element) -> tuple[str, str, int | None, bool, str] | None:
    """(style, label, agreement, is_wrapper, class) of an element's annotation, or None.
    ``is_wrapper``: the element exists only for the annotation and is unwrapped."""
    classes = (el.get("class") or "").split()
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    for c in classes:
        m = _KRDWRD.match(c)
        if m:
            ar = int(m.group(2)) if m.group(2) else None
            return "krdwrd", _KRDWRD_LABELS[m.group(1)], ar, tag == "kw", c
        m = _L3S.match(c)
        if m:
            return "l3s", GOOD if m.group(1) != "0" else BAD, None, tag == "span", c
        if c in _GENERIC:
            return "generic", _GENERIC[c], None, False, c
    return None


def parse_annotated(html: str) -> tuple[list[GoldNode], str, str | None]:
    """(nodes, markup without annotations, style) of an annotated page.

    Each text node takes the annotation of its innermost annotated ancestor
    (seed 003, Sect. 2.8.3: nested annotations are glitches, the innermost is
    meant). Unannotated text is not content in L3S-GN1 and the generic style;
    in KrdWrd it is marked ``unannotated`` and left out of the scores (seed
    003 excluded such files).
    """
    # lxml.html's elements: the annotation wrappers are unwrapped with drop_tag()
    try:
        root = lxml.html.document_fromstring(html) if html.strip() else None
    except (ValueError, etree.ParserError):
        root = None
    if root is None:
        return [], html, None
    styles: set[str] = set()
    cache: dict[etree._Element, tuple | None] = {}

    def owner_annotation(el: etree._Element | None) -> tuple | None:
        chain = []
        found = None
        while el is not None:
            if el in cache:
                found = cache[el]
                break
            chain.append(el)
            a = annotation_of(el)
            if a is not None:
                found = a
                break
            el = el.getparent()
        for c in chain:
            cache[c] = found
        return found

    nodes: list[GoldNode] = []
    for text, owner in text_nodes(root):
        ann = owner_annotation(owner)
        if ann is None:
            nodes.append(GoldNode(text=text, label=UNANNOTATED))
            continue
        style, label, ar, _, cls = ann
        styles.add(style)
        nodes.append(GoldNode(text=text, label=label, agreement=ar, cls=cls))
    style = "krdwrd" if "krdwrd" in styles else ("l3s" if "l3s" in styles else
                                                 ("generic" if styles else None))
    if style != "krdwrd":
        for n in nodes:
            if n.label == UNANNOTATED:
                n.label = BAD
    # strip the annotations so extractors see the page as published
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        a = annotation_of(el)
        if a is None:
            continue
        if a[3] and el.getparent() is not None:
            el.drop_tag()
        else:
            kept = [c for c in (el.get("class") or "").split()
                    if not (_KRDWRD.match(c) or _L3S.match(c) or c in _GENERIC)]
            if kept:
                el.set("class", " ".join(kept))
            else:
                del el.attrib["class"]
    stripped = lxml.html.tostring(root, encoding="unicode", method="html")
    return nodes, stripped, style


def apply_agreement(nodes: list[GoldNode], min_agreement: int) -> list[GoldNode]:
    """Nodes below the agreement threshold become ``uncertain`` (ignored), as in the
    AR thresholds of seed 003 (Sect. 2.9.1); nodes without an AR are kept."""
    if min_agreement <= 0:
        return nodes
    out = []
    for n in nodes:
        if n.agreement is not None and n.agreement < min_agreement and n.label in (GOOD, BAD):
            n = GoldNode(n.text, UNCERTAIN, n.agreement, n.cls)
        out.append(n)
    return out


def read_annotated(path: Path, min_agreement: int = 0) -> Iterator[GoldPage]:
    """Annotated HTML pages (a file or every ``*.htm[l]`` below a directory)."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()
                                                 and p.name.lower().endswith((".html", ".htm", ".html.gz")))
    for f in files:
        try:
            data = f.read_bytes()
            if f.name.endswith(".gz"):
                data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            # (gzip.BadGzipFile is an OSError) one unreadable page is skipped and named, as the
            # other readers do
            _warn(f"{f}: cannot be read ({exc}); skipped")
            continue
        html = encoding.decode(data).text
        nodes, stripped, style = parse_annotated(html)
        if style is None:
            _warn(f"{f}: no annotations found; skipped")
            continue
        nodes = apply_agreement(nodes, min_agreement)
        good = [n.text.strip() for n in nodes if n.label == GOOD]
        rel = os.path.relpath(f, path) if path.is_dir() else f.name
        yield GoldPage(id=rel, url=None, format="annotated", path=str(f), text="\n".join(good),
                       paragraphs=good, nodes=nodes, html=stripped, meta={"style": style})


def annotation_stats(pages: list[GoldPage]) -> dict[str, dict[str, int]]:
    """Text nodes and characters per class (seed 003, Table 2.2)."""
    stats: dict[str, dict[str, int]] = {}
    for page in pages:
        for n in page.nodes or ():
            s = stats.setdefault(n.label, {"nodes": 0, "chars": 0})
            s["nodes"] += 1
            s["chars"] += len(n.text.strip())
    return dict(sorted(stats.items()))
