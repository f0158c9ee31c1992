"""Text types: what a linguist splits a corpus by (issue 32).

Every kept document gets, besides the crawl metadata:

* ``tld`` and ``site``: the host's top-level domain and its registrable domain by the public
  suffix list (``publicsuffixlist``, private section included, so ``user.github.io`` and
  ``news.bbc.co.uk`` -> ``bbc.co.uk``), both in Unicode (``xn--`` labels decoded); an IP
  address is its own site, with no ``tld``;
* ``wordcount`` (the kept words, as the statistics count them) and its ``length`` class
  (:data:`LENGTH_CLASSES`);
* ``lang_diff``: the language filter's confidence in the best language minus its
  confidence in the second (``language/filter.py``);
* ``type``: the page type (:mod:`corpustool.page_type`);
* ``date`` (``YYYY-MM-DD``) with ``date_source``, ``author`` and ``sitename``, where the page
  declares them (:func:`page_metadata`).

The page's own declarations are read in the clean stage, where the markup is, into
``doc.meta``; the rest is computed when a document is written.
"""
from __future__ import annotations

import functools
import html as entities
import ipaddress
import json
import re
from typing import Any

from .native import backend
from .text.normalize import clean_value

#: (upper bound in words, label): TenTen-style length classes of the kept text
LENGTH_CLASSES: tuple[tuple[int | None, str], ...] = (
    (100, "0-99"), (300, "100-299"), (1000, "300-999"), (3000, "1000-2999"), (10000, "3000-9999"),
    (None, "10000+"))

MAX_TEXT = 200              # characters of an author or a site name (a longer one is no name)
MIN_YEAR = 1990             # a date before the web's pages is no publication date of one
DATE_SOURCES = ("json-ld", "meta", "time", "url", "json-ld:modified", "meta:modified")


def length_class(words: int) -> str:
    for bound, label in LENGTH_CLASSES:
        if bound is None or words < bound:
            return label
    return LENGTH_CLASSES[-1][1]


# -- tld and site ------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _psl() -> Any:
    from publicsuffixlist import PublicSuffixList
    return PublicSuffixList()


def _unicode_host(host: str) -> str:
    if "xn--" not in host:
        return host
    labels = []
    for label in host.split("."):
        if label.startswith("xn--"):
            try:
                label = label.encode("ascii").decode("idna")
            except (UnicodeError, ValueError):
                pass
        labels.append(label)
    return ".".join(labels)


@functools.lru_cache(maxsize=65536)
def site_and_tld(host: str | None) -> tuple[str | None, str | None]:
    """(registrable domain, top-level domain) of a host name, in Unicode; (None, None) without one."""
    if not host:
        return None, None
    host = _unicode_host(host.strip(".").lower())
    if not host:
        return None, None
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host, None
    except ValueError:
        pass
    if "." not in host:
        return host, None               # localhost, an intranet name
    tld = host.rsplit(".", 1)[1]
    try:
        site = _psl().privatesuffix(host)
    except Exception:                   # (a label the list's code cannot handle)
        site = None
    return site or host, tld or None


# -- what the page declares: date, author, site name --------------------------------------

_JSONLD = re.compile(r'<script\b[^>]*?application/ld\+json[^>]*>(.*?)</script\s*>', re.I | re.S)
_META = re.compile(r'<meta\b[^>]*>', re.I)
_ATTR = re.compile(r'''([a-zA-Z_:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))''')
_TAG = re.compile(r'<[^<>]{0,400}>')
_TIME = re.compile(r'<time\b([^>]*)>')
_JSON_STRING = r'"((?:[^"\\]|\\.){0,400})"'
_LD_DATES = tuple(re.compile(r'"' + key + r'"\s*:\s*' + _JSON_STRING)
                  for key in ("datePublished", "dateCreated", "uploadDate"))
_LD_MODIFIED = re.compile(r'"dateModified"\s*:\s*' + _JSON_STRING)
_TIME_ATTR = re.compile(r'datetime\s*=\s*["\']?([^"\'\s>]+)', re.I)
_LD_AUTHOR = re.compile(r'"(?:author|creator)"\s*:\s*(\[\s*)?(' + _JSON_STRING + r'|\{)')
_LD_NAME = re.compile(r'"name"\s*:\s*' + _JSON_STRING)
_LD_PUBLISHER = re.compile(r'"publisher"\s*:\s*\{')
_LD_TYPE = re.compile(r'"@type"\s*:\s*\[?\s*"([A-Za-z]+)"')
_MICRODATA_TYPE = re.compile(r'itemtype\s*=\s*["\']?https?://schema\.org/([A-Za-z]+)', re.I)
_SCRIPT_END = re.compile(r'</script\s*>', re.I)
_ISO_DATE = re.compile(r'((?:19|20)\d\d)-(\d\d)-(\d\d)')
_URL_DATE = re.compile(r'/((?:19|20)\d\d)[/_-](\d\d?)[/_-](\d\d?)(?:/|[_-]|\.|$)|/((?:19|20)\d\d)(\d\d)(\d\d)/')

# meta names and properties carrying the publication date, the author and the site's name
# (lower-cased); the first found in this order wins
META_DATES = ("article:published_time", "og:published_time", "datepublished", "citation_publication_date",
              "citation_date", "dc.date.issued", "dcterms.issued", "dc.date.created", "dcterms.created",
              "dc.date", "dcterms.date", "date", "pubdate", "publishdate", "publish-date", "publish_date",
              "article.published", "parsely-pub-date", "sailthru.date", "og:article:published_time",
              "article:published", "datecreated", "created")
META_MODIFIED = ("article:modified_time", "og:updated_time", "datemodified", "dc.date.modified",
                 "dcterms.modified", "last-modified", "itemprop:datemodified")
META_AUTHORS = ("author", "article:author", "dc.creator", "dcterms.creator", "citation_author",
                "parsely-author", "sailthru.author", "byl")
META_SITENAMES = ("og:site_name", "application-name", "apple-mobile-web-app-title", "publisher",
                  "dc.publisher", "twitter:site")
_META_KEYS = frozenset(META_DATES + META_MODIFIED + META_AUTHORS + META_SITENAMES + ("og:type", "itemprop:datepublished",
                                                                     "itemprop:author"))
HEAD_LIMIT = 300_000        # characters of a page searched for <meta> without a </head>
MAX_JSONLD = 32             # JSON-LD blocks read per page
MAX_MARKS = 512             # microdata itemtype declarations read per page


# ``str.find`` of the declarations' marks over a whole page: compiled (SSE2 compares over the
# characters, 4-6x CPython's search of a page of 2-byte characters) or ``str.find`` itself
_find_python = str.find     # the Python twin (tests/support/backends.py switches to it)
_find = backend.text_scan.get("find_ascii") or _find_python


def _json_text(raw: str) -> str | None:
    try:
        value = json.loads(f'"{raw}"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _name(value: str | None) -> str | None:
    """A name as an attribute value: markup entities decoded, spaces collapsed, bounded; None
    for a URL, an e-mail address, a handle-less number or nothing."""
    if not value:
        return None
    value = entities.unescape(value)
    if "<" in value:
        value = _TAG.sub(" ", value)          # a name written with markup: its text
    value = " ".join(value.split())
    if not value or len(value) > MAX_TEXT or "://" in value or value.startswith("www."):
        return None
    if not any(c.isalpha() for c in value):
        return None
    value = clean_value(value)[0]
    return value or None


def iso_date(value: str | None, not_after: str | None) -> str | None:
    """``YYYY-MM-DD`` from the start of an ISO 8601 date or date-time, when it is a valid day from
    :data:`MIN_YEAR` on and not later than ``not_after`` (``YYYY-MM-DD``); else None."""
    if not value:
        return None
    m = _ISO_DATE.match(value.strip())
    if m is None:
        return None
    return _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)), not_after)


_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _valid(year: int, month: int, day: int, not_after: str | None) -> str | None:
    if year < MIN_YEAR or not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1]:
        return None
    if month == 2 and day == 29 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        return None
    date = f"{year:04d}-{month:02d}-{day:02d}"
    if not_after is not None and date > not_after:
        return None           # a date after the crawl is no publication date: dropped
    return date


def url_date(url: str | None, not_after: str | None = None) -> str | None:
    """The day a URL's path names (``/2023/05/12/``, ``/2023-05-12-title``, ``/20230512/``)."""
    if not url:
        return None
    m = _URL_DATE.search(url)
    if m is None:
        return None
    y, mo, d = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
    return _valid(int(y), int(mo), int(d), not_after)


def _meta_tags(html: str) -> dict[str, str]:
    """The first content of each wanted ``<meta>`` name/property/itemprop, keys lower-cased."""
    end = _find(html, "</head")
    if end < 0:
        end = min(len(html), HEAD_LIMIT)
    found: dict[str, str] = {}
    for tag in _META.finditer(html, 0, end):
        text = tag.group()
        attrs = {}
        for a in _ATTR.finditer(text, 5):
            key = a.group(1).lower()
            if key not in attrs:
                attrs[key] = a.group(2) if a.group(2) is not None else (
                    a.group(3) if a.group(3) is not None else a.group(4))
        content = attrs.get("content")
        if content is None:
            continue
        for key in (attrs.get("property"), attrs.get("name")):
            if key:
                key = key.strip().lower()
                if key in _META_KEYS and key not in found:
                    found[key] = content
        item = attrs.get("itemprop")
        if item:
            key = "itemprop:" + item.strip().lower()
            if key in _META_KEYS and key not in found:
                found[key] = content
    return found


def _jsonld_blocks(html: str) -> list[str]:
    """The texts of the first :data:`MAX_JSONLD` ``<script type="application/ld+json">`` blocks
    (found by the literal ``ld+json``: a case-insensitive regex over a whole page costs more)."""
    blocks = []
    at = _find(html, "ld+json")
    while at >= 0 and len(blocks) < MAX_JSONLD:
        start = html.rfind("<", 0, at)
        end = html.find(">", at)
        if start < 0 or end < 0:
            break
        if html[start + 1:start + 7].lower() == "script":
            stop = _find(html, "</script", end + 1)
            if stop < 0:
                close = _SCRIPT_END.search(html, end + 1)
                stop = close.start() if close is not None else len(html)
            blocks.append(html[end + 1:stop])
            at = _find(html, "ld+json", stop)
        else:
            at = _find(html, "ld+json", end + 1)
    return blocks


def _ld_author(block: str, start: int) -> str | None:
    m = _LD_AUTHOR.search(block, start)
    if m is None:
        return None
    if m.group(3) is not None:
        return _json_text(m.group(3))
    name = _LD_NAME.match(block, m.end()) or _LD_NAME.search(block, m.end(), m.end() + 400)
    return _json_text(name.group(1)) if name else None


def page_metadata(html: str | None, url: str | None = None, crawl_date: str | None = None) -> dict[str, Any]:
    """What the page declares: ``date`` and ``date_source``, ``author``, ``sitename``, and for the
    page type ``schema_types`` (sorted) and ``og_type``; only the keys found.

    The date is the first valid one, in this order, of: JSON-LD ``datePublished`` (else
    ``dateCreated``, ``uploadDate``), ``<meta>`` dates (:data:`META_DATES`), the first
    ``<time datetime>`` marked as the publication date (``itemprop="datePublished"``,
    ``pubdate``, a class naming ``publish``/``posted``) or else the first ``<time datetime>``,
    and the day the URL names. A date later than ``crawl_date`` is dropped (never capped:
    a capped date would be a date nobody wrote) and the next source is asked."""
    out: dict[str, Any] = {}
    not_after = crawl_date[:10] if crawl_date and _ISO_DATE.match(crawl_date) else None
    html = html or ""
    date = author = sitename = None
    source = None
    types: set[str] = set()
    publisher = modified = None
    for text in _jsonld_blocks(html):
        types.update(_LD_TYPE.findall(text))
        if date is None:
            for pattern in _LD_DATES:
                for m in pattern.finditer(text):
                    date = iso_date(_json_text(m.group(1)), not_after)
                    if date is not None:
                        source = "json-ld"
                        break
                if date is not None:
                    break
        if modified is None:
            m = _LD_MODIFIED.search(text)
            if m is not None:
                modified = iso_date(_json_text(m.group(1)), not_after)
        if author is None:
            author = _name(_ld_author(text, 0))
        if publisher is None:
            p = _LD_PUBLISHER.search(text)
            if p is not None:
                name = _LD_NAME.search(text, p.end(), p.end() + 400)
                publisher = _name(_json_text(name.group(1))) if name else None
    at = _find(html, "itemtype")
    seen = 0
    while at >= 0 and seen < MAX_MARKS:
        m = _MICRODATA_TYPE.match(html, at)
        if m is not None:
            types.add(m.group(1))
        at = _find(html, "itemtype", at + 8)
        seen += 1
    meta = _meta_tags(html)
    if date is None:
        for key in META_DATES + ("itemprop:datepublished",):
            if key in meta:
                date = iso_date(meta[key], not_after)
                if date is not None:
                    source = "meta"
                    break
    at = _find(html, "<time") if date is None else -1
    if at >= 0:
        first = None
        while at >= 0:
            m = _TIME.match(html, at)
            at = _find(html, "<time", at + 5)
            if m is None:
                continue
            attrs = m.group(1)
            d = _TIME_ATTR.search(attrs)
            if d is None:
                continue
            day = iso_date(d.group(1), not_after)
            if day is None:
                continue
            low = attrs.lower()
            if "datepublished" in low or "pubdate" in low or "publish" in low or "posted" in low:
                first = day
                break
            if first is None:
                first = day
        if first is not None:
            date, source = first, "time"
    if date is None:
        date = url_date(url, not_after)
        if date is not None:
            source = "url"
    if date is None and modified is not None:
        date, source = modified, "json-ld:modified"
    if date is None:
        for key in META_MODIFIED:
            if key in meta:
                date = iso_date(meta[key], not_after)
                if date is not None:
                    source = "meta:modified"
                    break
    if date is not None:
        out["date"], out["date_source"] = date, source
    if author is None:
        for key in META_AUTHORS + ("itemprop:author",):
            author = _name(meta.get(key))
            if author is not None:
                break
    if author is not None:
        out["author"] = author
    for key in META_SITENAMES:
        value = meta.get(key)
        if key == "twitter:site" and value:
            value = value.lstrip("@")
        sitename = _name(value)
        if sitename is not None:
            break
    if sitename is None:
        sitename = publisher
    if sitename is not None:
        out["sitename"] = sitename
    if types:
        out["schema_types"] = sorted(types)[:64]
    og = meta.get("og:type")
    if og:
        out["og_type"] = og.strip().lower()[:40]
    return out


# -- the attributes of a document -----------------------------------------------------------

#: the text-type attributes of ``<doc>``, in the order they are written
ATTRIBUTES = ("tld", "site", "wordcount", "length", "lang_diff", "type", "date", "date_source", "author",
              "sitename")


def text_types(doc: Any) -> list[tuple[str, str]]:
    """The text-type attributes of a document (those it has), as strings, in :data:`ATTRIBUTES` order."""
    site, tld = site_and_tld(doc.domain)
    words = doc.word_count()
    meta = doc.meta
    out = []
    if tld is not None:
        out.append(("tld", tld))
    if site is not None:
        out.append(("site", site))
    out.append(("wordcount", str(words)))
    out.append(("length", length_class(words)))
    diff = meta.get("lang_diff")
    if isinstance(diff, (int, float)) and not isinstance(diff, bool):
        out.append(("lang_diff", f"{diff:.3f}"))
    for key, name in (("page_type", "type"), ("date", "date"), ("date_source", "date_source"),
                      ("author", "author"), ("sitename", "sitename")):
        value = meta.get(key)
        if isinstance(value, str) and value:
            out.append((name, value))
    return out
