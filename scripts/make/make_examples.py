#!/usr/bin/env python3
"""``make examples``: the inputs README.md's examples name, made from the shipped demo data.

    python scripts/make/make_examples.py [DIR]        # default: examples/ (git-ignored)

writes into DIR:

* ``crawl.warc.gz``: the demo crawl (data/demo/crawl.warc.gz; a symbolic link, or a copy where
  links cannot be made);
* ``pages/``: the demo crawl's HTML pages as files (``page000.html`` ...);
* ``page.html``: one of them, an English article (The Riverside Gazette);
* ``sample.txt``: the English demo articles' text (a sample to build a stoplist from);
* ``snippets/``: a snippet gold set (``evaldata.json`` and ``pages/``, the format of
  ``corpustool eval --gold snippets:DIR``): for every demo article page, the first 60 characters of
  each of its paragraphs must be kept (``with``) and the cookie, copyright and sharing lines it
  contains must be removed (``without``).

Then ``cd DIR`` and run the README's examples as they are written, with ``snippets:snippets``
for ``snippets:DIR``. ``tests/system/test_readme.py`` runs every example on the same files (it calls
:func:`make_examples`). Running the script again rewrites the files.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"

# lines of the demo sites' templates: a snippet gold set's ``without`` snippets
TEMPLATE_SNIPPETS = ["We use cookies to remember your settings", "Diese Website verwendet Cookies",
                     "Tento web používá soubory cookie", "All rights reserved", "Artikel empfehlen"]


def article_texts() -> dict[str, list[str]]:
    """title -> [title, paragraphs...] of every demo article (data/demo/texts/SITE/*.txt)."""
    out = {}
    for f in sorted((DEMO / "texts").glob("*/*.txt")):
        blocks = [" ".join(b.split()) for b in f.read_text(encoding="utf-8").strip().split("\n\n")]
        out[blocks[0]] = blocks
    return out


def _link_or_copy(src: Path, dst: Path) -> None:
    if dst.is_symlink() or dst.exists():
        dst.unlink()
    try:
        os.symlink(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def make_examples(dest: str | os.PathLike) -> Path:
    """Write the README's example inputs into ``dest`` (created if needed); returns its path."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from corpustool.encoding import decode
    from corpustool.readers import make_reader

    work = Path(dest)
    work.mkdir(parents=True, exist_ok=True)
    crawl = DEMO / "crawl.warc.gz"
    _link_or_copy(crawl, work / "crawl.warc.gz")
    for folder in (work / "pages", work / "snippets"):
        if folder.is_dir():
            shutil.rmtree(folder)
    (work / "pages").mkdir()
    (work / "snippets" / "pages").mkdir(parents=True)
    articles = article_texts()
    gold, page_html = {}, None
    for n, doc in enumerate(make_reader([str(crawl)]).read()):
        raw = doc.raw or b""
        if b"<html" not in raw[:2000].lower() and b"<!doctype" not in raw[:2000].lower():
            continue
        name = f"page{n:03d}.html"
        (work / "pages" / name).write_bytes(raw)
        text = unicodedata.normalize("NFC", decode(raw).text)
        # the page's own article: the one with most of its paragraphs on the page (a related-links
        # box names other articles' titles, never their text)
        found = {t: sum(p[:60] in text for p in paras[1:]) for t, paras in articles.items() if t in text}
        title = max(found, key=lambda t: (found[t], t), default=None)
        if title is None or not found[title] or doc.url in gold:
            continue
        (work / "snippets" / "pages" / name).write_bytes(raw)
        gold[doc.url] = {"file": name, "with": [p[:60] for p in articles[title][1:]],
                         "without": [s for s in TEMPLATE_SNIPPETS if s in text]}
        if page_html is None and "riverside-gazette" in (doc.url or ""):
            page_html = raw
    if page_html is None or len(gold) <= 20:
        raise RuntimeError(f"the demo crawl {crawl} does not hold the expected article pages")
    (work / "page.html").write_bytes(page_html)
    (work / "snippets" / "evaldata.json").write_text(json.dumps(gold, indent=1), encoding="utf-8")
    english = sorted((DEMO / "texts").glob("gazette/*.txt"))
    (work / "sample.txt").write_text("\n\n".join(f.read_text(encoding="utf-8") for f in english),
                                     encoding="utf-8")
    return work


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    dest = Path(argv[0]) if argv else REPO / "examples"
    work = make_examples(dest)
    pages = len(list((work / "pages").glob("*.html")))
    gold = len(json.loads((work / "snippets" / "evaldata.json").read_text(encoding="utf-8")))
    print(f"{work}: crawl.warc.gz, pages/ ({pages} pages), page.html, sample.txt, "
          f"snippets/ (gold for {gold} pages)")
    shown = os.path.relpath(work) if not os.path.relpath(work).startswith("..") else str(work)
    print(f"run the README's examples there (cd {shown}), with snippets:snippets for snippets:DIR")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
