#!/usr/bin/env python3
"""Generate the demo crawl: data/demo/crawl.warc.gz (and the catalogue in data/demo/README.md).

Four invented news and blog sites, each with its own page template (cookie
notice, navigation menu, related-links box, footer with copyright), carry
articles in English, German and Czech whose texts we wrote ourselves
(data/demo/texts/<site>/*.txt: title line, blank line, paragraphs separated by
blank lines). Around them are the cases a corpus build has to handle: pages in
ISO-8859-1 and windows-1250 (and one ISO-8859-2, one UTF-8 page mislabelled as
ISO-8859-1), a gzip-encoded and a chunked response, an exact duplicate and a
near-duplicate article, a Spanish article (unwanted language), an empty page,
a PNG image, a PDF served as text/html, and request, metadata, revisit and
warcinfo records.

The output is deterministic: fixed dates, record ids derived from the URL,
gzip members with mtime 0. Running the script twice gives the same bytes.

Usage: python scripts/make/make_demo_crawl.py [--output data/demo/crawl.warc.gz] [--no-readme]
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import io
import os
import struct
import sys
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"
TEXTS = DEMO / "texts"
CRAWL_START = datetime(2024, 3, 4, 9, 0, 0, tzinfo=timezone.utc)


# -- texts ---------------------------------------------------------------------

@dataclass
class Article:
    title: str
    paragraphs: list[str]
    key: str                                  # texts/<site>/<file> without .txt


def load_article(key: str) -> Article:
    text = (TEXTS / f"{key}.txt").read_text(encoding="utf-8")
    blocks = [" ".join(b.split()) for b in text.strip().split("\n\n")]
    return Article(blocks[0], blocks[1:], key)


def near_duplicate(a: Article, changes: list[tuple[str, str]], key: str) -> Article:
    """The same article with a few words changed (what a copy-editor of a reposting site does)."""
    paragraphs = list(a.paragraphs)
    for old, new in changes:
        for i, p in enumerate(paragraphs):
            if old in p:
                paragraphs[i] = p.replace(old, new, 1)
                break
        else:
            raise SystemExit(f"near-duplicate edit {old!r} not found in {a.key}")
    return Article(a.title, paragraphs, key)


# -- pages -----------------------------------------------------------------------

@dataclass
class Page:
    url: str
    body: bytes                               # HTTP entity body as sent (maybe gzip/chunked)
    content_type: str | None                  # HTTP Content-Type
    lang: str | None = None
    article: Article | None = None
    expect: str = "keep"                      # what a correct build does with it
    note: str = ""
    encoding: str = "utf-8"
    declared: str = ""                        # where the charset is declared
    extra_headers: list[tuple[str, str]] = field(default_factory=list)
    record_type: str = "response"             # response | resource
    metadata: bool = False                    # also write a metadata record
    server: str = "nginx"


def esc(s: str) -> str:
    return html.escape(s, quote=True)


def paragraphs_html(paras: list[str], style: str = "p") -> str:
    if style == "br":
        # old CMS: paragraphs separated by <br><br> inside one div
        return "<div class=\"clanek-text\">\n" + "\n<br><br>\n".join(esc(p) for p in paras) + "\n</div>"
    return "\n".join(f"<p>{esc(p)}</p>" for p in paras)


def related_list(links: list[tuple[str, str]]) -> str:
    return "\n".join(f'<li><a href="{esc(u)}">{esc(t)}</a></li>' for u, t in links)


def gazette_page(a: Article, links, date: str, author: str, head_decl: str, meta: str) -> str:
    """Site 1: The Riverside Gazette. Modern HTML, cookie banner on top."""
    return f"""{head_decl}
<head>
{meta}
<title>{esc(a.title)} | The Riverside Gazette</title>
<link rel="stylesheet" href="/static/gazette.css">
</head>
<body>
<div id="cookie-banner" class="cookie-notice">
<p>We use cookies to remember your settings and to count visits. By using this site you agree to our use of cookies. <a href="/privacy/">Find out more</a> <button type="button">Accept</button></p>
</div>
<header class="masthead">
<div class="logo"><a href="/"><img src="/static/logo.png" alt="The Riverside Gazette"></a></div>
<nav class="main-menu"><ul>
<li><a href="/">Home</a></li><li><a href="/news/">News</a></li><li><a href="/town/">Town &amp; Council</a></li>
<li><a href="/environment/">Environment</a></li><li><a href="/people/">People</a></li>
<li><a href="/whats-on/">What's on</a></li><li><a href="/contact/">Contact</a></li>
</ul></nav>
<form class="search" action="/search/"><input type="text" name="q" placeholder="Search the Gazette"><button>Search</button></form>
</header>
<main>
<article>
<h1>{esc(a.title)}</h1>
<p class="byline">By {esc(author)} | {esc(date)}</p>
{paragraphs_html(a.paragraphs)}
<p class="share">Share this article: <a href="#">Facebook</a> <a href="#">Twitter</a> <a href="#">E-mail</a></p>
</article>
<aside class="related">
<h2>Related articles</h2>
<ul>
{related_list(links)}
</ul>
</aside>
</main>
<footer>
<ul class="footer-menu"><li><a href="/about/">About us</a></li><li><a href="/privacy/">Privacy policy</a></li><li><a href="/terms/">Terms of use</a></li><li><a href="/advertise/">Advertise</a></li></ul>
<p class="copyright">&copy; 2024 The Riverside Gazette Ltd. All rights reserved.</p>
</footer>
</body>
</html>
"""


def bergblick_page(a: Article, links, date: str, author: str, meta: str) -> str:
    """Site 2: Bergblick Zeitung. Table layout of the 2000s, cookie notice at the bottom."""
    return f"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<html lang="de">
<head>
{meta}
<title>{esc(a.title)} - Bergblick Zeitung</title>
</head>
<body bgcolor="#ffffff">
<table width="960" border="0" cellpadding="0" cellspacing="0" align="center">
<tr><td colspan="3" class="kopf"><a href="/"><b>Bergblick Zeitung</b></a> &middot; Nachrichten aus dem Oberland</td></tr>
<tr>
<td width="180" valign="top" class="navi">
<a href="/">Startseite</a><br>
<a href="/lokales/">Lokales</a><br>
<a href="/politik/">Politik</a><br>
<a href="/wirtschaft/">Wirtschaft</a><br>
<a href="/kultur/">Kultur</a><br>
<a href="/sport/">Sport</a><br>
<a href="/termine/">Termine</a><br>
<a href="/leserbriefe/">Leserbriefe</a>
</td>
<td width="600" valign="top" class="inhalt">
<h1>{esc(a.title)}</h1>
<div class="autor">Von {esc(author)}, {esc(date)}</div>
{paragraphs_html(a.paragraphs)}
<div class="drucken"><a href="?druck=1">Artikel drucken</a> | <a href="/empfehlen/">Artikel empfehlen</a></div>
</td>
<td width="180" valign="top" class="rechts">
<h3>Weitere Artikel</h3>
<ul>
{related_list(links)}
</ul>
<h3>Wetter</h3>
<div>Heute: 12 Grad, wolkig</div>
</td>
</tr>
<tr><td colspan="3" class="fuss">&copy; 2024 Bergblick Zeitung GmbH &middot; <a href="/impressum/">Impressum</a> &middot; <a href="/datenschutz/">Datenschutz</a> &middot; <a href="/kontakt/">Kontakt</a></td></tr>
</table>
<div id="cookiehinweis">Diese Website verwendet Cookies. Wenn Sie weiter surfen, stimmen Sie der Verwendung von Cookies zu. <a href="/datenschutz/">Mehr erfahren</a> <a href="#" class="ok">OK</a></div>
</body>
</html>
"""


def zpravy_page(a: Article, links, date: str, author: str, meta: str, style: str) -> str:
    """Site 3: Zprávy z kraje. Div layout, cookie bar at the end; half the articles use <br><br> between paragraphs."""
    return f"""<!DOCTYPE html>
<html lang="cs">
<head>
{meta}
<title>{esc(a.title)} - Zprávy z kraje</title>
</head>
<body>
<div id="hlavicka">
<div class="logo"><a href="/">Zprávy z kraje</a></div>
<ul class="menu">
<li><a href="/">Úvod</a></li><li><a href="/domov/">Domov</a></li><li><a href="/obce/">Obce a města</a></li>
<li><a href="/kultura/">Kultura</a></li><li><a href="/sport/">Sport</a></li><li><a href="/pocasi/">Počasí</a></li>
</ul>
</div>
<div id="obsah">
<div class="clanek">
<h1>{esc(a.title)}</h1>
<div class="info">{esc(date)} | Autor: {esc(author)}</div>
{paragraphs_html(a.paragraphs, style)}
</div>
<div class="souvisejici">
<h2>Související články</h2>
<ul>
{related_list(links)}
</ul>
</div>
</div>
<div id="paticka">
<p>&copy; 2024 Zprávy z kraje, s.r.o. Všechna práva vyhrazena. Kopírování obsahu bez souhlasu vydavatele je zakázáno.</p>
<p><a href="/kontakt/">Kontakt</a> | <a href="/reklama/">Reklama</a> | <a href="/osobni-udaje/">Ochrana osobních údajů</a></p>
</div>
<div id="cookies" class="lista-cookies">Tento web používá soubory cookie k měření návštěvnosti. Pokračováním souhlasíte s jejich používáním. <a href="/cookies/">Více informací</a> <a href="#" class="souhlas">Rozumím</a></div>
</body>
</html>
"""


def kitchen_page(a: Article, links, date: str, lang: str, meta: str, byline: str) -> str:
    """Site 4: Open Kitchen & Travel. HTML5 blog, sidebar, comment form, cookie dialog at the end."""
    return f"""<!doctype html>
<html lang="{lang}">
<head>
{meta}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(a.title)} &ndash; Open Kitchen &amp; Travel</title>
</head>
<body class="post">
<header class="site-header">
<a class="site-title" href="/">Open Kitchen &amp; Travel</a>
<nav><a href="/recipes/">Recipes</a> <a href="/travel/">Travel</a> <a href="/garden/">Garden</a> <a href="/about/">About us</a> <a href="/newsletter/">Newsletter</a></nav>
</header>
<div class="wrap">
<article class="entry">
<h1 class="entry-title">{esc(a.title)}</h1>
<div class="entry-meta">{esc(byline)} &middot; {esc(date)} &middot; <a href="#comments">3 comments</a></div>
<div class="entry-content">
{paragraphs_html(a.paragraphs)}
</div>
<div class="tags">Tags: <a href="/tag/home/">home</a>, <a href="/tag/seasons/">seasons</a></div>
</article>
<aside class="sidebar">
<section class="related-posts"><h3>You might also like</h3><ul>
{related_list(links)}
</ul></section>
<section class="newsletter"><h3>Newsletter</h3><form action="/subscribe/"><input type="email" name="email" placeholder="Your e-mail"><button>Subscribe</button></form></section>
</aside>
<section id="comments"><h3>Leave a comment</h3><form action="/comment/"><textarea name="c"></textarea><button>Post comment</button></form></section>
</div>
<footer class="site-footer"><p>&copy; 2024 Open Kitchen &amp; Travel &middot; Recipes and stories by Anna and Tom &middot; <a href="/imprint/">Imprint</a> &middot; <a href="/privacy/">Privacy</a></p></footer>
<div class="cookie-dialog" role="dialog"><p>This blog uses cookies from our analytics provider to see which recipes you like. <a href="/privacy/">Settings</a> <button>Accept all</button> <button>Refuse</button></p></div>
</body>
</html>
"""


GAZETTE_AUTHORS = ["Ellen Marsh", "David Okafor", "Priya Shah", "Tom Whitfield"]
BERGBLICK_AUTHORS = ["Katrin Huber", "Michael Sailer", "Andrea Brandl"]
ZPRAVY_AUTHORS = ["Petra Dvořáková", "Jan Kučera", "Lucie Horáková"]
EN_MONTHS = ["January", "February", "March"]
DE_MONTHS = ["Januar", "Februar", "März"]
CS_MONTHS = ["ledna", "února", "března"]


def _files(site: str) -> list[str]:
    return sorted(f"{site}/{p.stem}" for p in (TEXTS / site).glob("*.txt"))


def _slug(key: str) -> str:
    return key.split("/", 1)[1].split("-", 1)[1]


def _related(keys: list[str], i: int, base: str, articles: dict[str, Article]) -> list[tuple[str, str]]:
    others = [k for k in keys if k != keys[i]]
    picks = [others[(i + j) % len(others)] for j in range(3)]
    return [(f"{base}{_slug(k)}/", articles[k].title) for k in picks]


def build_pages() -> list[Page]:
    pages: list[Page] = []
    articles = {k: load_article(k) for site in ("gazette", "bergblick", "zpravy", "kitchen")
                for k in _files(site)}

    # 1. The Riverside Gazette: English, UTF-8 declared in HTTP and <meta>;
    #    one page XHTML served as application/xhtml+xml, declared by the XML declaration only.
    keys = _files("gazette")
    for i, k in enumerate(keys):
        a = articles[k]
        url = f"http://www.riverside-gazette.example/news/{_slug(k)}/"
        date = f"{i + 2} {EN_MONTHS[i % 3]} 2024"
        if _slug(k) == "weather-station":
            decl = ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
                    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en">')
            ct, declared, meta = "application/xhtml+xml", "xml declaration", ""
        else:
            decl = '<!DOCTYPE html>\n<html lang="en">'
            ct, declared, meta = "text/html; charset=utf-8", "http + meta", '<meta charset="utf-8">'
        body = gazette_page(a, _related(keys, i, "/news/", articles), date,
                            GAZETTE_AUTHORS[i % len(GAZETTE_AUTHORS)], decl, meta).encode("utf-8")
        pages.append(Page(url, body, ct, "en", a, encoding="utf-8", declared=declared,
                          metadata=(i % 3 == 0), server="Apache/2.4"))
    pages.append(Page("http://www.riverside-gazette.example/static/logo.png", _png(), "image/png",
                      expect="skip", note="image record (not HTML): skipped by the reader", server="Apache/2.4"))

    # 2. Bergblick Zeitung: German, ISO-8859-1; declared in HTTP and <meta>, in <meta> only, or in HTTP only.
    keys = _files("bergblick")
    for i, k in enumerate(keys):
        a = articles[k]
        url = f"http://www.bergblick-zeitung.example/lokales/{_slug(k)}.html"
        date = f"{i + 5}. {DE_MONTHS[i % 3]} 2024"
        meta_tag = '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
        if i % 3 == 0:
            ct, meta, declared = "text/html; charset=ISO-8859-1", meta_tag, "http + meta"
        elif i % 3 == 1:
            ct, meta, declared = "text/html", meta_tag, "meta http-equiv only"
        else:
            ct, meta, declared = "text/html; charset=iso-8859-1", "", "http only"
        body = bergblick_page(a, _related(keys, i, "/lokales/", articles), date,
                              BERGBLICK_AUTHORS[i % len(BERGBLICK_AUTHORS)], meta).encode("iso-8859-1")
        pages.append(Page(url, body, ct, "de", a, encoding="iso-8859-1", declared=declared,
                          metadata=(i == 0), server="Apache/2.2.22 (Debian)"))

    # 3. Zprávy z kraje: Czech, mostly windows-1250 (meta); one ISO-8859-2 page (HTTP only),
    #    one UTF-8 page; the second half uses <br><br> between paragraphs.
    keys = _files("zpravy")
    for i, k in enumerate(keys):
        a = articles[k]
        url = f"https://www.zpravy-z-kraje.example/domov/{_slug(k)}"
        date = f"{i + 7}. {CS_MONTHS[i % 3]} 2024"
        if i == 2:
            enc, ct, meta, declared = "iso-8859-2", "text/html; charset=iso-8859-2", "", "http only"
        elif i == 5:
            enc, ct, meta, declared = "utf-8", "text/html; charset=UTF-8", '<meta charset="UTF-8">', "http + meta"
        else:
            enc, ct, declared = "cp1250", "text/html", "meta http-equiv only"
            meta = '<meta http-equiv="content-type" content="text/html; charset=windows-1250">'
        style = "br" if i >= 4 else "p"
        body = zpravy_page(a, _related(keys, i, "/domov/", articles), date,
                           ZPRAVY_AUTHORS[i % len(ZPRAVY_AUTHORS)], meta, style).encode(enc)
        pages.append(Page(url, body, ct, "cs", a, encoding={"cp1250": "windows-1250"}.get(enc, enc),
                          declared=declared + (", <br><br> paragraphs" if style == "br" else ""),
                          server="Microsoft-IIS/8.5"))
    pages.append(Page("https://www.zpravy-z-kraje.example/hledat?q=", b"", "text/html; charset=windows-1250",
                      expect="drop:empty", note="empty page (HTTP 200 with a zero-length body)",
                      server="Microsoft-IIS/8.5"))
    pages.append(Page("https://www.zpravy-z-kraje.example/dokumenty/rozpocet-2024.pdf", _pdf(), "text/html",
                      expect="drop:binary", note="a PDF document mislabelled as text/html",
                      server="Microsoft-IIS/8.5"))

    # 4. Open Kitchen & Travel: a blog in three languages, gzip-encoded, charset in <meta> only;
    #    one page chunked, one a resource record, one UTF-8 page mislabelled ISO-8859-1 in HTTP;
    #    plus a reposted copy, an edited copy and a Spanish post.
    keys = _files("kitchen")
    langs = {"bean-stew": "en", "coastal-path": "en", "sauerteig": "de", "chleba": "cs", "herbs": "en",
             "mercado": "es"}
    blog = [k for k in keys]
    dup_src = articles["gazette/03-birds"]
    near_src = articles["bergblick/06-muehle"]
    near = near_duplicate(near_src, [
        ("Fast fünfzig Jahre lang stand", "Beinahe fünfzig Jahre lang stand"),
        ("mehr als zwölftausend Stunden", "weit über zwölftausend Stunden"),
        ("halfen fast hundert Menschen", "halfen rund hundert Menschen"),
        ("An jedem ersten Sonntag im Monat", "An jedem letzten Sonntag im Monat"),
    ], "kitchen/near-duplicate-of-bergblick-06-muehle")
    entries: list[tuple[str, Article, str, str]] = []
    for k in blog:
        entries.append((_slug(k), articles[k], langs[_slug(k)], "by Anna"))
    entries.insert(5, ("volunteers-count-birds-along-the-estuary", dup_src, "en",
                       "Reposted from The Riverside Gazette"))
    entries.insert(6, ("ein-dorf-repariert-seine-muehle", near, "de", "Gastbeitrag von Katrin Huber"))
    titles = {slug: art.title for slug, art, _, _ in entries}
    slugs = list(titles)
    for i, (slug, a, lang, byline) in enumerate(entries):
        url = f"https://blog.open-kitchen.example/2024/03/{slug}/"
        date = f"{i + 10} March 2024"
        links = [(f"/2024/03/{s}/", titles[s]) for s in (slugs[(i + j) % len(slugs)] for j in (1, 2, 3))]
        meta = '<meta charset="utf-8">'
        ct = "text/html"
        headers: list[tuple[str, str]] = []
        declared = "meta only"
        record_type = "response"
        expect, note = "keep", ""
        if slug == "chleba":
            meta, ct, declared = "", "text/html; charset=ISO-8859-1", \
                "UTF-8 bytes mislabelled ISO-8859-1 in HTTP, no meta (decoder must detect UTF-8)"
        page_html = kitchen_page(a, links, date, lang, meta, byline).encode("utf-8")
        if a is dup_src:
            expect, note = "drop:duplicate", "exact duplicate of http://www.riverside-gazette.example/news/birds/"
        elif a is near:
            expect, note = "near-duplicate", ("near-duplicate of http://www.bergblick-zeitung.example/lokales/muehle.html "
                                              "(four edits); kept by exact de-duplication")
        elif lang == "es":
            expect, note = "drop:language", ("Spanish article, unwanted with --lang en,de,cs: no stoplist fits, so "
                                             "jusText finds only boilerplate; else the language filter drops it")
        if slug == "herbs":
            record_type, ct, declared = "resource", "text/html; charset=utf-8", "WARC Content-Type + meta (resource record)"
            body = page_html
        elif slug == "bean-stew":
            headers = [("Transfer-Encoding", "chunked")]
            body = _chunked(page_html, 700)
            declared += ", chunked transfer encoding"
        else:
            headers = [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
            body = gzip.compress(page_html, compresslevel=6, mtime=0)
            declared += ", gzip content encoding"
        pages.append(Page(url, body, ct, lang, a, expect=expect, note=note, encoding="utf-8",
                          declared=declared, extra_headers=headers, record_type=record_type,
                          metadata=(slug == "sauerteig"), server="cloudflare"))
    return pages


def _png() -> bytes:
    """A 16x16 two-colour PNG, built byte by byte so it is the same everywhere."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"".join(b"\x1e\x5a\x3c" if (x // 4 + y // 4) % 2 else b"\xf0\xf0\xe6"
                                       for x in range(16)) for y in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def _pdf() -> bytes:
    """A small PDF: a header, then binary stream data (deterministic pseudo-random bytes)."""
    stream = b"".join(hashlib.sha256(b"demo-pdf-%d" % i).digest() for i in range(96))
    return (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 3072 /Filter /FlateDecode >>\nstream\n"
            + stream + b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")


def _chunked(data: bytes, size: int) -> bytes:
    out = b"".join(b"%x\r\n" % len(data[i:i + size]) + data[i:i + size] + b"\r\n"
                   for i in range(0, len(data), size))
    return out + b"0\r\n\r\n"


# -- WARC ----------------------------------------------------------------------------

def _record_id(kind: str, url: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'corpustool-demo:{kind}:{url}')}>"


def _warc_date(n: int) -> str:
    return (CRAWL_START + timedelta(seconds=37 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _http_date(n: int) -> str:
    return (CRAWL_START + timedelta(seconds=37 * n)).strftime("%a, %d %b %Y %H:%M:%S GMT")


def write_warc(pages: list[Page], out: io.BufferedIOBase) -> None:
    writer = WARCWriter(out, gzip=True)
    # (the script's path when the committed crawl was written: kept, so it regenerates byte for byte)
    info = (b"software: corpustool scripts/make_demo_crawl.py\r\n"
            b"format: WARC File Format 1.1\r\n"
            b"description: demo crawl of four invented sites; every text written for corpustool\r\n"
            b"isPartOf: corpustool-demo\r\n")
    writer.write_record(writer.create_warc_record(
        "", "warcinfo", payload=io.BytesIO(info), length=len(info), warc_content_type="application/warc-fields",
        warc_headers_dict={"WARC-Record-ID": _record_id("warcinfo", "crawl.warc.gz"),
                           "WARC-Date": _warc_date(0), "WARC-Filename": "crawl.warc.gz"}))
    revisit_of = None
    for n, page in enumerate(pages, 1):
        date = _warc_date(n)
        host = page.url.split("/")[2]
        path = "/" + page.url.split("/", 3)[3]
        if page.record_type == "resource":
            writer.write_record(writer.create_warc_record(
                page.url, "resource", payload=io.BytesIO(page.body), length=len(page.body),
                warc_content_type=page.content_type or "",
                warc_headers_dict={"WARC-Record-ID": _record_id("resource", page.url), "WARC-Date": date}))
            continue
        req = StatusAndHeaders(f"GET {path} HTTP/1.1", [
            ("Host", host), ("User-Agent", "corpustool-demo-crawler/1.0"),
            ("Accept", "text/html,application/xhtml+xml,*/*;q=0.8"), ("Accept-Encoding", "gzip")],
            is_http_request=True)
        writer.write_record(writer.create_warc_record(
            page.url, "request", payload=io.BytesIO(b""), length=0, http_headers=req,
            warc_headers_dict={"WARC-Record-ID": _record_id("request", page.url), "WARC-Date": date,
                               "WARC-Concurrent-To": _record_id("response", page.url)}))
        headers = [("Date", _http_date(n)), ("Server", page.server)]
        if page.content_type is not None:
            headers.append(("Content-Type", page.content_type))
        headers += page.extra_headers
        if not any(k == "Transfer-Encoding" for k, _ in page.extra_headers):
            headers.append(("Content-Length", str(len(page.body))))
        resp = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            page.url, "response", payload=io.BytesIO(page.body), length=None, http_headers=resp,
            warc_headers_dict={"WARC-Record-ID": _record_id("response", page.url), "WARC-Date": date,
                               "WARC-IP-Address": "192.0.2.%d" % (10 + n % 4)}))
        if page.metadata:
            meta = f"via: {page.url.rsplit('/', 2)[0]}/\r\nhopsFromSeed: L\r\nfetchTimeMs: {120 + n}\r\n".encode()
            writer.write_record(writer.create_warc_record(
                page.url, "metadata", payload=io.BytesIO(meta), length=len(meta),
                warc_content_type="application/warc-fields",
                warc_headers_dict={"WARC-Record-ID": _record_id("metadata", page.url), "WARC-Date": date,
                                   "WARC-Concurrent-To": _record_id("response", page.url)}))
        if revisit_of is None and page.article is not None:
            revisit_of = (page, date)
    # the crawler came back to the first article a week later: same payload, so a revisit record
    page, first_date = revisit_of
    resp = StatusAndHeaders("200 OK", [("Date", _http_date(len(pages) + 1)), ("Server", page.server),
                                       ("Content-Type", page.content_type or "text/html")], protocol="HTTP/1.1")
    digest = "sha1:" + __import__("base64").b32encode(hashlib.sha1(page.body).digest()).decode()
    writer.write_record(writer.create_warc_record(
        page.url, "revisit", payload=io.BytesIO(b""), length=0, http_headers=resp,
        warc_headers_dict={"WARC-Record-ID": _record_id("revisit", page.url),
                           "WARC-Date": (CRAWL_START + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "WARC-Profile": "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
                           "WARC-Refers-To": _record_id("response", page.url),
                           "WARC-Refers-To-Target-URI": page.url, "WARC-Refers-To-Date": first_date,
                           "WARC-Payload-Digest": digest}))


# -- catalogue -------------------------------------------------------------------

README_HEAD = """# Demo crawl

`crawl.warc.gz` is a small WARC file generated by `scripts/make/make_demo_crawl.py` from pages
we wrote ourselves (article texts in `texts/<site>/*.txt`; nothing is copied from the web).
Regenerate it with `python scripts/make/make_demo_crawl.py`; the output is byte-identical on
every run (fixed dates and record ids, gzip mtime 0). This file's catalogue below is
written by the same script.

## What is in it

Four invented sites, each with its own template: a cookie notice, a navigation menu, a
related-links box and a footer with a copyright line around the article.

| site | language(s) | template | encodings |
|---|---|---|---|
| `www.riverside-gazette.example` | English | HTML5, cookie banner on top, `Related articles` box | UTF-8 (HTTP + meta); one XHTML page as `application/xhtml+xml` declared only in the XML declaration |
| `www.bergblick-zeitung.example` | German | table layout, left menu, `Weitere Artikel` column, cookie notice at the bottom | ISO-8859-1, declared in HTTP + meta, meta only, or HTTP only |
| `www.zpravy-z-kraje.example` | Czech | div layout, `Související články` box; half of the articles separate paragraphs with `<br><br>` | windows-1250 (meta), one ISO-8859-2 (HTTP only), one UTF-8 |
| `blog.open-kitchen.example` | English, German, Czech, Spanish | HTML5 blog, sidebar `You might also like`, comment form, cookie dialog at the end | UTF-8 declared in meta only, served gzip-encoded; one chunked response; one resource record; one UTF-8 page mislabelled `charset=ISO-8859-1` in HTTP with no meta |

Besides the response (and one resource) records there are a `warcinfo` record, a `request`
record for every response, `metadata` records for some pages and one `revisit` record; the
reader skips and counts them (`skipped:request`, `skipped:metadata`, `skipped:revisit`,
`skipped:warcinfo`), and a PNG image (`skipped:non-html`).

## What a correct build keeps and drops

With `corpustool build data/demo/crawl.warc.gz --lang en,de,cs`:

* **kept**: every article marked `keep` below, with all of its paragraphs (the texts in
  `texts/`) and none of the template: no cookie notice, menu, related-links box or footer.
  Template text that must not appear in the corpus, one line per site:
  `We use cookies to remember your settings`, `All rights reserved.`, `Related articles`,
  `Diese Website verwendet Cookies`, `Bergblick Zeitung GmbH`, `Weitere Artikel`,
  `Tento web používá soubory cookie`, `Všechna práva vyhrazena`, `Související články`,
  `This blog uses cookies`, `Recipes and stories by Anna and Tom`, `You might also like`.
* **dropped as a duplicate**: the reposted copy of the estuary bird count on the blog (exact
  duplicate of the Gazette article, which comes first in the file and is kept).
* **near-duplicate**: the blog's guest post about the village mill differs from the Bergblick
  article in four places. Exact de-duplication keeps it; a near-duplicate stage should drop it.
* **dropped for language**: the Spanish blog post.
* **dropped as empty**: the zero-length search page. **dropped as binary**: the PDF served as
  `text/html`.

## Catalogue

Records in file order (request, metadata and revisit records omitted).

| URL | language | expected | title / content | encoding and declaration |
|---|---|---|---|---|
"""


def write_readme(pages: list[Page], path: Path) -> None:
    rows = []
    for p in pages:
        title = p.article.title if p.article else p.note
        if p.article and p.note:
            title = f"{title} ({p.note})"
        rows.append(f"| {p.url} | {p.lang or '-'} | {p.expect} | {title} | "
                    f"{p.encoding if p.article else '-'}; {p.declared or p.content_type} |")
    kept = sum(1 for p in pages if p.expect in ("keep", "near-duplicate"))
    tail = (f"\nIn all: {len(pages)} pages, {sum(1 for p in pages if p.article)} with an article; "
            f"{kept} articles survive exact de-duplication and the language filter "
            f"({kept - 1} after near-duplicate removal).\n")
    responses = sum(1 for p in pages if p.record_type == "response")
    metadata = sum(1 for p in pages if p.metadata)
    html_docs = sum(1 for p in pages if p.content_type is None or "html" in p.content_type)
    tail += (f"\nThe reader yields {html_docs} documents from {responses * 2 + metadata + (len(pages) - responses) + 2} "
             f"records and skips {responses} request, {metadata} metadata, 1 revisit, 1 warcinfo and "
             f"{len(pages) - html_docs} non-HTML record(s).\n")
    path.write_text(README_HEAD + "\n".join(rows) + "\n" + tail, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--output", "-o", default=str(DEMO / "crawl.warc.gz"))
    ap.add_argument("--no-readme", action="store_true", help="do not rewrite data/demo/README.md")
    args = ap.parse_args(argv)
    pages = build_pages()
    buf = io.BytesIO()
    write_warc(pages, buf)
    data = buf.getvalue()
    tmp = args.output + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, args.output)
    if not args.no_readme:
        write_readme(pages, DEMO / "README.md")
    print(f"{args.output}: {len(pages)} pages, {len(data)} bytes, sha1 {hashlib.sha1(data).hexdigest()}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
