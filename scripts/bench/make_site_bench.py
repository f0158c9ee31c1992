#!/usr/bin/env python3
"""Build the site benchmark: real article texts in site templates we write, with known gold.

Site-level methods (URL Tree, web-archive templates, TemEx) need many pages
of one site, and there is little public gold for them. This script makes it:
the article texts are real (the clean text jusText keeps of the pages in
../shared/data/snippets, German and English; without ../shared, text generated
from data/demo/texts by a seeded word-level Markov chain that repeats no run of
five words, so that, as on a real site, no two articles share a title or a
phrase), the templates are ours, so we know exactly which words are the article.

Every site has its own template (HTML5 news, blog with sidebar, table-layout
magazine, authority portal), in the language of its articles, with the
variation real sites have:

* a cookie notice, a newsletter box and an "about" footer in long sentences
  (the template text jusText tends to keep);
* a section menu with the current section marked, per-section navigation
  (only on the pages of that section), a blog's "recent posts" list in which
  the current page is missing, breadcrumbs with the title;
* bylines and dates; "read also" teasers of other articles with their first
  sentence; a "most read" box that changes from day to day; a rotating
  advertisement; comments (more of them in later snapshots);
* snapshots of the same URL on later days: the dynamic parts changed, some
  articles with an added update paragraph.

Gold: the title and the article paragraphs (and the update, where present);
nothing else on the page is main content. Output (default build/site-bench/):

* ``crawl.warc.gz`` - request/response pairs, records ordered by crawl time
  (the sites interleaved, snapshots a few days after the first visit);
* ``gold.json`` + ``html/ID.html.gz`` - the article-body gold format
  (``{id: {articleBody, url}}``) that ``corpustool eval`` reads, so
  ``corpustool eval articles:build/site-bench`` scores page-level extractors;
* ``manifest.json`` - the records in WARC order (id, url, date, site,
  template, snapshot number, WARC-Record-ID) for scripts/bench/bench_site.py.

Seeded and deterministic: fixed dates, record ids derived from the page id,
gzip mtime 0; the same options give the same bytes.

    scripts/bench/make_site_bench.py [--out DIR] [--sites 4] [--pages 60] [--snapshots 0.3]
                               [--source auto|snippets|generated] [--seed 7]
"""
from __future__ import annotations

import argparse
import gzip
import html as htmlmod
import io
import json
import random
import re
import sys
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SNIPPETS = REPO.parent / "shared" / "data" / "snippets"
DEMO_TEXTS = REPO / "data" / "demo" / "texts"
DEFAULT_OUT = REPO / "build" / "site-bench"
CRAWL_START = datetime(2024, 5, 6, 8, 0, 0, tzinfo=timezone.utc)
MAX_COMMENTS = 8


@dataclass
class Article:
    title: str
    paragraphs: list[str]
    source: str


# -- article texts --------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜÀ-Þ0-9\"„“])")


def first_sentence(text: str, max_words: int = 30) -> str:
    s = _SENTENCE_END.split(text, maxsplit=1)[0]
    words = s.split()
    return " ".join(words[:max_words]) + (" …" if len(words) > max_words else "")


def snippet_articles(root: Path, languages: tuple[str, ...]) -> dict[str, list[Article]]:
    """Clean texts of the dev pages (jusText, automatic stoplist), by language."""
    from corpustool.document import Document
    from corpustool.extractors.clean import Clean

    clean = Clean(extractor="justext", languages=["auto"])
    with open(root / "evaldata.json", encoding="utf-8") as fh:
        gold = json.load(fh)
    out: dict[str, list[Article]] = {lang: [] for lang in languages}
    seen: set[str] = set()
    for url in sorted(gold):
        entry = gold[url]
        path = root / "pages" / entry.get("file", "")
        if not path.is_file():
            continue
        doc = Document(id=entry["file"], url=url, raw=path.read_bytes())
        clean.process(doc)
        if doc.drop_reason or doc.stoplist_lang not in out:
            continue
        paras = [p.text for p in doc.good_paragraphs() if len(p.text.split()) >= 8]
        # an article has a few real paragraphs; pages repeating text are skipped so the
        # gold never contains the same block twice across articles
        paras = [p for p in dict.fromkeys(paras) if p not in seen][:12]
        if len(paras) < 3 or sum(len(p.split()) for p in paras) < 120:
            continue
        seen.update(paras)
        title = " ".join((doc.title or first_sentence(paras[0], 10)).split()[:14])
        out[doc.stoplist_lang].append(Article(title, paras, entry["file"]))
    return out


# generated text repeats no run of this many words (archive's diff shares runs of 6 words)
GENERATED_RUN = 5
_WORD = re.compile(r"\w+")


def generated_articles(n: int, lang: str, rng: random.Random) -> list[Article]:
    """Articles from a word-level Markov chain (order 2) over data/demo/texts in ``lang``:
    new sentences in the language's vocabulary, never a copied paragraph.

    What a real site has, the chain alone does not: trained on a few thousand words it
    walks the same phrases again and again, so its articles shared their titles and long
    runs of words with each other, and with the comments (taken from the same text). The
    site-level methods rightly call text that several articles share template. So no run
    of GENERATED_RUN words (case-folded, punctuation ignored) occurs twice in the generated
    text: at each step the walk takes a continuation that makes no run already used
    (backing off to the order-1 successors of the last word, else ending the sentence).
    Titles are distinct (their first words are such a run), as on a real site.
    """
    texts = []
    for path in sorted(DEMO_TEXTS.glob("*/*.txt")):
        text = path.read_text(encoding="utf-8")
        sample = text.lower()
        de = sum(sample.count(w) for w in (" der ", " die ", " und ", " nicht "))
        en = sum(sample.count(w) for w in (" the ", " and ", " of ", " was "))
        if (lang == "de" and de > en) or (lang == "en" and en > de):
            texts.append(text)
    if not texts:
        raise SystemExit(f"no demo texts in {lang} under {DEMO_TEXTS}")
    chain: dict[tuple[str, str], list[str]] = {}
    follow: dict[str, list[str]] = {}           # order 1, for the back-off
    starts: list[tuple[str, str]] = []
    for text in texts:
        for para in text.split("\n\n")[1:]:
            for sent in _SENTENCE_END.split(" ".join(para.split())):
                w = sent.split()
                if len(w) < 4:
                    continue
                starts.append((w[0], w[1]))
                for a, b, c in zip(w, w[1:], w[2:] + ["\n"]):
                    chain.setdefault((a, b), []).append(c)
                    follow.setdefault(b, []).append(c)

    k = GENERATED_RUN
    used: set[tuple[str, ...]] = set()          # every run of k words generated so far

    def key(word: str) -> str:
        return "".join(_WORD.findall(word.casefold()))

    def runs(keys: list[str]) -> list[tuple[str, ...]]:
        keys = [x for x in keys if x]
        return [tuple(keys[i:i + k]) for i in range(len(keys) - k + 1)]

    def fresh(keys: list[str], word: str, mine: set[tuple[str, ...]]) -> bool:
        """``word`` after ``keys`` makes no run used before (elsewhere or in this sentence)."""
        w = key(word)
        tail = [x for x in keys if x][-(k - 1):]
        if not w or len(tail) < k - 1:
            return True
        run = tuple(tail + [w])
        return run not in used and run not in mine

    def sentence(min_words: int = 6) -> str:
        for _ in range(200):
            a, b = rng.choice(starts)
            words = [a, b]
            keys = [key(a), key(b)]
            mine: set[tuple[str, ...]] = set()         # this sentence's runs
            while len(words) < 40:
                options = chain.get((a, b), ["\n"])
                nxt = None
                for pool in (options, follow.get(b, [])):
                    cands = [c for c in pool if c == "\n" or fresh(keys, c, mine)]
                    if cands:
                        nxt = rng.choice(cands)     # as often as the chain has it among the fresh ones
                        break
                if nxt is None or nxt == "\n":
                    break
                words.append(nxt)
                keys.append(key(nxt))
                mine.update(runs(keys[-k:]))
                a, b = b, nxt
            if len(words) < min_words:
                continue
            used.update(runs(keys))
            s = " ".join(words).rstrip(",;:")
            return s if s[-1] in ".!?" else s + "."
        raise SystemExit(f"make_site_bench: the {lang} demo texts give no new sentence; ask for fewer pages")

    out = []
    for i in range(n):
        paras = [" ".join(sentence() for _ in range(rng.randint(2, 4))) for _ in range(rng.randint(3, 7))]
        title = " ".join(sentence(8).rstrip(".!?").split()[:8])
        out.append(Article(title, paras, f"generated-{lang}-{i}"))
    return out


# -- template texts ---------------------------------------------------------------------------

TEXTS = {
    "en": {
        "cookie": "We use cookies to give you the best possible experience on our website. By continuing to "
                  "browse the site you agree to our use of cookies, and you can change your settings at any time "
                  "in our privacy policy.",
        "accept": "Accept all", "settings": "Cookie settings",
        "newsletter": "Subscribe to our free newsletter and we will send you the best stories of the week every "
                      "Friday morning, so that you never miss what is going on in your region.",
        "subscribe": "Subscribe",
        "about": "{site} is an independent publication run by a small team of journalists and volunteers. We "
                 "have been reporting on the people, places and events of the region since 1998 and we rely on "
                 "the support of our readers to keep our work free for everyone.",
        "rights": "All rights reserved.", "imprint": "Imprint", "privacy": "Privacy", "contact": "Contact",
        "home": "Home", "by": "By", "read_also": "Read also", "most_read": "Most read", "ad": "Advertisement",
        "comments": "{n} comments", "reply": "Reply", "leave": "Leave a reply",
        "leave_text": "Your email address will not be published. Please be kind and respectful to other readers "
                      "when you write a comment.",
        "share": "Share this article", "recent": "Recent posts", "archive": "Archive", "tags": "Tags",
        "updated": "Last updated", "helpful": "Was this page helpful?", "yes": "Yes", "no": "No",
        "print": "Print this page", "min_read": "{n} min read", "update": "Update",
        "update_text": "Update on {date}: after this article was published, readers sent us further "
                       "information, and we will report on the next steps as soon as there is more to say about it.",
        "contact_box": "If you have questions about this topic, our service team is available from Monday to "
                       "Friday between nine and five, and we will answer your message within two working days.",
        "months": ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                   "October", "November", "December"],
        "sections": ["Local", "Politics", "Culture", "Sport", "Science"],
        "subnav": ["Overview", "Reports", "Interviews", "Opinion", "Archive"],
        "authors": ["Jane Miller", "Tom Harris", "Priya Shah", "Liam O'Brien", "Mei Chen"],
        "commenters": ["river_fan", "Anna K.", "oldtowner", "M. Brooks", "hiker42", "Sam"],
        "ads": ["Save up to 30 percent on your next holiday with our spring offers.",
                "New electric bikes now in store: come for a free test ride this weekend.",
                "Fresh bread every morning from the bakery around the corner."],
    },
    "de": {
        "cookie": "Wir verwenden Cookies, um Ihnen die bestmögliche Nutzung unserer Website zu ermöglichen. Wenn "
                  "Sie weiter auf der Seite surfen, stimmen Sie der Verwendung von Cookies zu, und Sie können Ihre "
                  "Einstellungen jederzeit in unserer Datenschutzerklärung ändern.",
        "accept": "Alle akzeptieren", "settings": "Cookie-Einstellungen",
        "newsletter": "Abonnieren Sie unseren kostenlosen Newsletter, und wir schicken Ihnen jeden Freitag die "
                      "besten Geschichten der Woche, damit Sie nichts verpassen, was in Ihrer Region passiert.",
        "subscribe": "Abonnieren",
        "about": "{site} ist ein unabhängiges Angebot, das von einem kleinen Team aus Journalisten und "
                 "Ehrenamtlichen betrieben wird. Wir berichten seit 1998 über die Menschen und Ereignisse der "
                 "Region und sind auf die Unterstützung unserer Leserinnen und Leser angewiesen.",
        "rights": "Alle Rechte vorbehalten.", "imprint": "Impressum", "privacy": "Datenschutz",
        "contact": "Kontakt", "home": "Startseite", "by": "Von", "read_also": "Lesen Sie auch",
        "most_read": "Meistgelesen", "ad": "Anzeige", "comments": "{n} Kommentare", "reply": "Antworten",
        "leave": "Schreiben Sie einen Kommentar",
        "leave_text": "Ihre E-Mail-Adresse wird nicht veröffentlicht. Bitte bleiben Sie freundlich und "
                      "respektvoll gegenüber den anderen Lesern, wenn Sie einen Kommentar schreiben.",
        "share": "Artikel teilen", "recent": "Neueste Beiträge", "archive": "Archiv", "tags": "Schlagwörter",
        "updated": "Zuletzt aktualisiert", "helpful": "War diese Seite hilfreich?", "yes": "Ja", "no": "Nein",
        "print": "Seite drucken", "min_read": "{n} Min. Lesezeit", "update": "Aktualisierung",
        "update_text": "Aktualisierung vom {date}: Nach der Veröffentlichung dieses Artikels haben uns Leser "
                       "weitere Informationen geschickt, und wir werden über die nächsten Schritte berichten, "
                       "sobald es mehr dazu zu sagen gibt.",
        "contact_box": "Wenn Sie Fragen zu diesem Thema haben, erreichen Sie unser Serviceteam von Montag bis "
                       "Freitag zwischen neun und siebzehn Uhr, und wir beantworten Ihre Nachricht innerhalb von "
                       "zwei Werktagen.",
        "months": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
                   "Oktober", "November", "Dezember"],
        "sections": ["Lokales", "Politik", "Kultur", "Sport", "Wissen"],
        "subnav": ["Übersicht", "Berichte", "Interviews", "Meinung", "Archiv"],
        "authors": ["Julia Becker", "Thomas Wagner", "Aylin Demir", "Markus Hofmann", "Sabine Klein"],
        "commenters": ["Flussfreund", "Anna K.", "Altstädter", "M. Braun", "Wanderer42", "Sam"],
        "ads": ["Sparen Sie bis zu 30 Prozent bei Ihrem nächsten Urlaub mit unseren Frühlingsangeboten.",
                "Neue E-Bikes jetzt im Laden: kommen Sie am Wochenende zu einer kostenlosen Probefahrt.",
                "Jeden Morgen frisches Brot aus der Bäckerei um die Ecke."],
    },
}


# -- sites and pages ------------------------------------------------------------------------------

@dataclass
class Site:
    name: str
    host: str
    template: str
    lang: str
    articles: list[Article]
    sections: list[str] = field(default_factory=list)
    section_of: list[int] = field(default_factory=list)
    published: list[datetime] = field(default_factory=list)
    comment_offset: int = 0     # this site's first comment in the language's comment pool


@dataclass
class Visit:
    """One crawl of one article page."""

    site: Site
    index: int              # article index in the site
    snapshot: int           # 0: first visit, 1, 2: later snapshots
    when: datetime
    update: bool = False    # the article carries the update paragraph

    @property
    def id(self) -> str:
        return f"{self.site.name}-{self.index:03d}-v{self.snapshot}"

    @property
    def url(self) -> str:
        s = self.site
        slug = re.sub(r"[^a-z0-9]+", "-", s.articles[self.index].title.lower()).strip("-")[:48] or "article"
        section = re.sub(r"[^a-z]+", "", s.sections[s.section_of[self.index]].lower()) or "news"
        if s.template == "blog":
            d = s.published[self.index]
            return f"https://{s.host}/{d.year}/{d.month:02d}/{slug}/"
        if s.template == "portal":
            return f"https://{s.host}/{section}/topic.php?id={1000 + self.index}"
        return f"https://{s.host}/{section}/{slug}-{self.index}.html"


SITE_SPECS = [  # (name, host, template, language)
    ("tagesblick", "www.tagesblick.example", "news", "de"),
    ("greenleaf", "blog.greenleaf.example", "blog", "en"),
    ("stadtmagazin", "www.stadtmagazin.example", "magazine", "de"),
    ("landesamt", "www.landesamt-info.example", "portal", "de"),
    ("valleypost", "www.valleypost.example", "news", "en"),
    ("reisenotizen", "reisenotizen.example", "blog", "de"),
]


def esc(s: str) -> str:
    return htmlmod.escape(s, quote=True)


def fmt_date(d: datetime, lang: str) -> str:
    months = TEXTS[lang]["months"]
    return f"{d.day}. {months[d.month - 1]} {d.year}" if lang == "de" else f"{d.day} {months[d.month - 1]} {d.year}"


class PageMaker:
    """Everything on a page that is not the article, for one visit."""

    def __init__(self, visit: Visit, comment_pool: list[str], seed: int) -> None:
        self.v = visit
        self.s = visit.site
        self.t = TEXTS[self.s.lang]
        self.a = self.s.articles[visit.index]
        # the page's dynamic parts depend on the day of the visit (and the page), deterministically
        day = (visit.when - CRAWL_START).days
        self.rng = random.Random(f"{seed}:{self.s.name}:{visit.index}:{visit.snapshot}")
        self.day_rng = random.Random(f"{seed}:{self.s.name}:day{day}")
        self.published = [i for i, d in enumerate(self.s.published) if d <= visit.when]
        self.comment_pool = comment_pool
        self.seed = seed

    def link(self, i: int) -> str:
        return Visit(self.s, i, 0, self.s.published[i]).url

    def teasers(self, k: int) -> list[tuple[str, str, str]]:
        """(url, title, first sentence) of other articles of the same section, chosen per page."""
        same = [i for i in self.published if i != self.v.index and self.s.section_of[i] == self.s.section_of[self.v.index]]
        pool = same if len(same) >= k else [i for i in self.published if i != self.v.index]
        rng = random.Random(f"{self.seed}:{self.s.name}:teasers:{self.v.index}")   # stable across snapshots
        picks = rng.sample(pool, min(k, len(pool)))
        return [(self.link(i), self.s.articles[i].title, first_sentence(self.s.articles[i].paragraphs[0]))
                for i in picks]

    def most_read(self, k: int = 5) -> list[tuple[str, str]]:
        picks = self.day_rng.sample(self.published, min(k, len(self.published)))
        return [(self.link(i), self.s.articles[i].title) for i in picks]

    def recent(self, k: int = 6) -> list[tuple[str, str]]:
        """The latest posts at visit time; the current page is not linked to itself."""
        latest = sorted(self.published, key=lambda i: self.s.published[i], reverse=True)[:k + 1]
        return [(self.link(i), self.s.articles[i].title) for i in latest if i != self.v.index][:k]

    def comments(self) -> list[tuple[str, str, str]]:
        rng = random.Random(f"{self.seed}:{self.s.name}:comments:{self.v.index}")
        if rng.random() < 0.55:
            return []
        n = rng.randint(1, 4) + self.v.snapshot * rng.randint(0, 2)   # later snapshots: more comments
        n = min(n, MAX_COMMENTS)
        out = []
        for c in range(n):
            who = rng.choice(self.t["commenters"])
            when = self.s.published[self.v.index] + timedelta(hours=3 + 7 * c)
            # every comment its own text (the pool repeats only when it is too small)
            text = self.comment_pool[(self.s.comment_offset + MAX_COMMENTS * self.v.index + c) % len(self.comment_pool)]
            out.append((who, fmt_date(when, self.s.lang), text))
        return out

    def ad(self) -> str:
        return self.rng.choice(self.t["ads"])

    def article_html(self) -> list[str]:
        paras = [f"<p>{esc(p)}</p>" for p in self.a.paragraphs]
        if self.v.update:
            paras.append(f"<p class=\"update\">{esc(self.update_text())}</p>")
        return paras

    def update_text(self) -> str:
        return self.t["update_text"].format(date=fmt_date(self.v.when, self.s.lang))

    def byline(self) -> tuple[str, str]:
        author = self.t["authors"][self.v.index % len(self.t["authors"])]
        return author, fmt_date(self.s.published[self.v.index], self.s.lang)

    def page(self) -> str:
        return getattr(self, f"page_{self.s.template}")()

    # -- templates
    def _head(self, extra: str = "") -> str:
        return (f"<!DOCTYPE html>\n<html lang=\"{self.s.lang}\"><head><meta charset=\"utf-8\">"
                f"<title>{esc(self.a.title)} | {esc(self.s.name.title())}</title>"
                f"<link rel=\"stylesheet\" href=\"/static/site.css\">{extra}"
                f"<script>window.dataLayer=[{{page:'{self.v.index}'}}];</script></head>\n")

    def _comments_html(self, cls: str) -> str:
        cs = self.comments()
        if not cs:
            return ""
        items = "".join(f"<li class=\"{cls}-item\"><div class=\"{cls}-meta\"><b>{esc(w)}</b> <time>{esc(d)}</time>"
                        f"</div><p>{esc(x)}</p><a href=\"#reply\">{esc(self.t['reply'])}</a></li>" for w, d, x in cs)
        return (f"<section class=\"{cls}\"><h3>{esc(self.t['comments'].format(n=len(cs)))}</h3><ol>{items}</ol>"
                f"<h4>{esc(self.t['leave'])}</h4><p class=\"note\">{esc(self.t['leave_text'])}</p>"
                f"<form><textarea name=c></textarea><button>{esc(self.t['reply'])}</button></form></section>")

    def page_news(self) -> str:
        t, s = self.t, self.s
        sec = s.section_of[self.v.index]
        active = ' class="active"'
        nav = "".join(f"<li{active if i == sec else ''}><a href=\"/{esc(x.lower())}/\">{esc(x)}</a></li>"
                      for i, x in enumerate(s.sections))
        subnav = "".join(f"<li><a href=\"/{esc(s.sections[sec].lower())}/{esc(x.lower())}/\">{esc(x)}</a></li>"
                         for x in t["subnav"][: 3 + sec % 3])
        author, date = self.byline()
        teasers = "".join(f"<article class=\"teaser\"><h3><a href=\"{esc(u)}\">{esc(ti)}</a></h3><p>{esc(fs)}</p>"
                          f"</article>" for u, ti, fs in self.teasers(3))
        most = "".join(f"<li><a href=\"{esc(u)}\">{esc(ti)}</a></li>" for u, ti in self.most_read())
        minutes = max(1, sum(len(p.split()) for p in self.a.paragraphs) // 200)
        return (self._head() + "<body>\n"
                f"<div id=\"cookie\" class=\"banner\"><p>{esc(t['cookie'])}</p><button>{esc(t['accept'])}</button>"
                f"<a href=\"/privacy\">{esc(t['settings'])}</a></div>\n"
                f"<header><div class=\"brand\"><a href=\"/\">{esc(s.name.title())}</a></div>"
                f"<nav class=\"main\"><ul>{nav}</ul></nav><nav class=\"sub\"><ul>{subnav}</ul></nav></header>\n"
                f"<main><article class=\"story\"><h1>{esc(self.a.title)}</h1>"
                f"<div class=\"byline\">{esc(t['by'])} <a href=\"/authors/{self.v.index % 5}\">{esc(author)}</a> | "
                f"<time>{esc(date)}</time> | {esc(t['min_read'].format(n=minutes))}</div>\n"
                + "\n".join(self.article_html()) +
                f"\n<div class=\"share\">{esc(t['share'])}: <a href=\"#\">Facebook</a> <a href=\"#\">X</a> "
                f"<a href=\"#\">E-Mail</a></div></article>\n"
                f"<section class=\"related\"><h2>{esc(t['read_also'])}</h2>{teasers}</section>\n"
                + self._comments_html("comments") +
                f"</main>\n<aside><div class=\"ad\"><span>{esc(t['ad'])}</span><p>{esc(self.ad())}</p></div>"
                f"<h2>{esc(t['most_read'])}</h2><ol>{most}</ol>"
                f"<div class=\"newsletter\"><p>{esc(t['newsletter'])}</p><button>{esc(t['subscribe'])}</button></div>"
                f"</aside>\n<footer><p>{esc(t['about'].format(site=s.name.title()))}</p>"
                f"<ul><li><a href=\"/imprint\">{esc(t['imprint'])}</a></li><li><a href=\"/privacy\">"
                f"{esc(t['privacy'])}</a></li><li><a href=\"/contact\">{esc(t['contact'])}</a></li></ul>"
                f"<p>© 2024 {esc(s.name.title())}. {esc(t['rights'])}</p></footer>\n</body></html>\n")

    def page_blog(self) -> str:
        t, s = self.t, self.s
        author, date = self.byline()
        recent = "".join(f"<li><a href=\"{esc(u)}\">{esc(ti)}</a></li>" for u, ti in self.recent())
        months = sorted({(d.year, d.month) for i, d in enumerate(s.published) if i in set(self.published)},
                        reverse=True)
        archive = "".join(f"<li><a href=\"/{y}/{m:02d}/\">{esc(t['months'][m - 1])} {y}</a></li>" for y, m in months)
        tags = " ".join(f"<a href=\"/tag/{esc(x.lower())}\">{esc(x)}</a>" for x in s.sections)
        teasers = "".join(f"<div class=\"yarpp\"><a href=\"{esc(u)}\">{esc(ti)}</a><p>{esc(fs)}</p></div>"
                          for u, ti, fs in self.teasers(2))
        return (self._head() + "<body class=\"single\">\n<div id=\"wrapper\">"
                f"<div id=\"masthead\"><h2 class=\"site-title\"><a href=\"/\">{esc(s.name.title())}</a></h2>"
                f"<p class=\"tagline\">{esc(t['about'].format(site=s.name.title()).split('. ')[0])}.</p></div>\n"
                f"<div id=\"content\"><div class=\"post\"><h1 class=\"entry-title\">{esc(self.a.title)}</h1>"
                f"<p class=\"meta\">{esc(date)} · {esc(author)}</p><div class=\"entry\">\n"
                + "\n".join(self.article_html()) +
                f"\n</div><p class=\"postmeta\">{esc(t['tags'])}: {tags}</p></div>\n"
                f"<div class=\"related-posts\"><h3>{esc(t['read_also'])}</h3>{teasers}</div>\n"
                + self._comments_html("commentlist") +
                f"</div>\n<div id=\"sidebar\"><div class=\"widget\"><h3>{esc(s.name.title())}</h3>"
                f"<p>{esc(t['about'].format(site=s.name.title()))}</p></div>"
                f"<div class=\"widget\"><h3>{esc(t['recent'])}</h3><ul>{recent}</ul></div>"
                f"<div class=\"widget\"><h3>{esc(t['archive'])}</h3><ul>{archive}</ul></div>"
                f"<div class=\"widget\"><p>{esc(t['newsletter'])}</p></div></div>\n"
                f"<div id=\"footer\"><p>© {esc(s.name.title())} · <a href=\"/privacy\">{esc(t['privacy'])}</a></p>"
                f"</div></div>\n<div class=\"cookie-dialog\"><p>{esc(t['cookie'])}</p>"
                f"<a href=\"#ok\">{esc(t['accept'])}</a></div>\n</body></html>\n")

    def page_magazine(self) -> str:
        t, s = self.t, self.s
        sec = s.section_of[self.v.index]
        menu = "".join(f"<tr><td class=\"{'sel' if i == sec else 'nav'}\"><a href=\"/{esc(x.lower())}/\">{esc(x)}</a>"
                       f"</td></tr>" for i, x in enumerate(s.sections))
        author, date = self.byline()
        teasers = "".join(f"<tr><td><b><a href=\"{esc(u)}\">{esc(ti)}</a></b><br>{esc(fs)}</td></tr>"
                          for u, ti, fs in self.teasers(3))
        most = "<br>".join(f"<a href=\"{esc(u)}\">{esc(ti)}</a>" for u, ti in self.most_read(4))
        return (self._head() + "<body bgcolor=\"#ffffff\">\n"
                f"<table width=\"100%\" border=\"0\"><tr><td colspan=\"3\" class=\"top\"><font size=\"5\">"
                f"{esc(s.name.title())}</font> <small>{esc(t['ad'])}: {esc(self.ad())}</small></td></tr>\n"
                f"<tr><td width=\"160\" valign=\"top\"><table>{menu}</table>"
                f"<p class=\"box\">{esc(t['newsletter'])}</p></td>\n<td valign=\"top\">"
                f"<font size=\"2\">{esc(t['home'])} &gt; {esc(s.sections[sec])}</font>"
                f"<h1>{esc(self.a.title)}</h1><font size=\"1\">{esc(date)} - {esc(author)}</font>\n"
                + "\n".join(self.article_html()) +
                f"\n<table class=\"more\"><tr><td><b>{esc(t['read_also'])}</b></td></tr>{teasers}</table>\n"
                + self._comments_html("kommentare") +
                f"</td>\n<td width=\"200\" valign=\"top\"><b>{esc(t['most_read'])}</b><br>{most}</td></tr>\n"
                f"<tr><td colspan=\"3\" align=\"center\"><font size=\"1\">{esc(t['about'].format(site=s.name.title()))}"
                f"<br>© 2024 {esc(s.name.title())} - {esc(t['rights'])} | <a href=\"/impressum\">{esc(t['imprint'])}</a>"
                f"</font></td></tr></table>\n<div id=\"cc\">{esc(t['cookie'])} <a href=\"#\">OK</a></div>\n"
                f"</body></html>\n")

    def page_portal(self) -> str:
        t, s = self.t, self.s
        sec = s.section_of[self.v.index]
        same = [i for i in self.published if s.section_of[i] == sec][:8]
        current = ' class="current"'
        left = "".join(f"<li{current if i == self.v.index else ''}><a href=\"{esc(self.link(i))}\">"
                       f"{esc(s.articles[i].title)}</a></li>" for i in same)
        top = "".join(f"<a href=\"/{esc(x.lower())}/\">{esc(x)}</a> " for x in s.sections)
        return (self._head() + "<body>\n"
                f"<div class=\"cookiebar\">{esc(t['cookie'])} <button>{esc(t['accept'])}</button></div>\n"
                f"<div class=\"top\"><div class=\"logo\">{esc(s.name.title())}</div><div class=\"topnav\">{top}</div>"
                f"</div>\n<div class=\"crumbs\"><a href=\"/\">{esc(t['home'])}</a> / <a href=\"/\">"
                f"{esc(s.sections[sec])}</a> / <span>{esc(self.a.title)}</span></div>\n"
                f"<div class=\"cols\"><div class=\"left\"><h4>{esc(s.sections[sec])}</h4><ul>{left}</ul></div>\n"
                f"<div class=\"main\"><h1>{esc(self.a.title)}</h1>\n"
                + "\n".join(self.article_html()) +
                f"\n<div class=\"tools\"><a href=\"#print\">{esc(t['print'])}</a> | "
                f"{esc(t['updated'])}: {esc(fmt_date(self.v.when, s.lang))}</div>"
                f"<div class=\"feedback\"><p>{esc(t['helpful'])}</p><button>{esc(t['yes'])}</button>"
                f"<button>{esc(t['no'])}</button></div></div>\n"
                f"<div class=\"right\"><div class=\"contact\"><h4>{esc(t['contact'])}</h4>"
                f"<p>{esc(t['contact_box'])}</p></div></div></div>\n"
                f"<div class=\"footer\"><p>{esc(t['about'].format(site=s.name.title()))}</p>"
                f"<p><a href=\"/impressum\">{esc(t['imprint'])}</a> · <a href=\"/datenschutz\">{esc(t['privacy'])}</a>"
                f" · © 2024</p></div>\n</body></html>\n")


def gold_text(visit: Visit, maker: PageMaker) -> str:
    a = visit.site.articles[visit.index]
    lines = [a.title, *a.paragraphs]
    if visit.update:
        lines.append(maker.update_text())
    return "\n".join(lines)


# -- building ----------------------------------------------------------------------------------

def make_sites(n_sites: int, n_pages: int, source: str, seed: int, log=print) -> tuple[list[Site], dict[str, list[str]]]:
    specs = [SITE_SPECS[i % len(SITE_SPECS)] for i in range(n_sites)]
    langs = tuple(sorted({lang for *_, lang in specs}))
    rng = random.Random(seed)
    pools: dict[str, list[Article]]
    if source == "auto":
        source = "snippets" if (SNIPPETS / "evaldata.json").is_file() else "generated"
    if source == "snippets":
        pools = snippet_articles(SNIPPETS, langs)
    else:
        pools = {lang: generated_articles(n_pages * sum(1 for s in specs if s[3] == lang) * 5 // 4 + 10, lang, rng)
                 for lang in langs}
    for lang in langs:
        rng.shuffle(pools[lang])
    log(f"make_site_bench: source {source}: " + ", ".join(f"{len(v)} {k} texts" for k, v in sorted(pools.items())))
    sites = []
    taken = {lang: 0 for lang in langs}
    comment_pool: dict[str, list[str]] = {}
    for name, host, template, lang in specs:
        need = sum(1 for s in specs if s[3] == lang)
        share = min(n_pages, len(pools[lang]) * 4 // 5 // need)   # a fifth stays for comments
        if share < 6:
            raise SystemExit(f"make_site_bench: only {len(pools[lang])} {lang} texts; need more for {need} sites")
        arts = pools[lang][taken[lang]:taken[lang] + share]
        taken[lang] += share
        site = Site(name, host, template, lang, arts, sections=list(TEXTS[lang]["sections"]),
                    comment_offset=MAX_COMMENTS * (taken[lang] - share))
        srng = random.Random(f"{seed}:{name}")
        site.section_of = [srng.randrange(len(site.sections)) for _ in arts]
        # about four articles a day, published just before their first crawl
        site.published = [CRAWL_START + timedelta(hours=6 * i, minutes=srng.randrange(60)) for i in range(len(arts))]
        sites.append(site)
    for lang in langs:
        rest = pools[lang][taken[lang]:] or pools[lang]
        # comments: sentences of the texts no site carries
        comment_pool[lang] = [s for a in rest for p in a.paragraphs for s in _SENTENCE_END.split(p)
                              if 6 <= len(s.split()) <= 60]
    return sites, comment_pool


def make_visits(sites: list[Site], snapshot_share: float, seed: int) -> list[Visit]:
    visits = []
    for site in sites:
        rng = random.Random(f"{seed}:{site.name}:snapshots")
        for i, pub in enumerate(site.published):
            visits.append(Visit(site, i, 0, pub + timedelta(minutes=20)))
            if rng.random() < snapshot_share:
                later = pub + timedelta(minutes=20)
                updated = False
                for k in range(1, rng.choice((2, 3))):
                    later = later + timedelta(days=rng.randint(1, 3), hours=rng.randint(0, 5))
                    updated = updated or rng.random() < 0.35
                    visits.append(Visit(site, i, k, later, update=updated))
    visits.sort(key=lambda v: (v.when, v.site.name, v.index, v.snapshot))
    return visits


def record_id(kind: str, page_id: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'corpustool-site-bench:{kind}:{page_id}')}>"


def build(out: Path, n_sites: int = 4, n_pages: int = 60, snapshots: float = 0.3, source: str = "auto",
          seed: int = 7, log=print) -> dict:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    sites, comment_pool = make_sites(n_sites, n_pages, source, seed, log)
    visits = make_visits(sites, snapshots, seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "html").mkdir(exist_ok=True)
    for old in (out / "html").glob("*.html.gz"):
        old.unlink()
    gold: dict[str, dict] = {}
    manifest = []
    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=True)
    for n, v in enumerate(visits):
        maker = PageMaker(v, comment_pool[v.site.lang], seed)
        page = maker.page().encode("utf-8")
        date = v.when.strftime("%Y-%m-%dT%H:%M:%SZ")
        url = v.url
        path = "/" + url.split("/", 3)[3]
        req = StatusAndHeaders(f"GET {path} HTTP/1.1", [("Host", v.site.host), ("User-Agent", "corpustool-bench/1.0")],
                               is_http_request=True)
        writer.write_record(writer.create_warc_record(
            url, "request", payload=io.BytesIO(b""), length=0, http_headers=req,
            warc_headers_dict={"WARC-Record-ID": record_id("request", v.id), "WARC-Date": date,
                               "WARC-Concurrent-To": record_id("response", v.id)}))
        resp = StatusAndHeaders("200 OK", [("Date", v.when.strftime("%a, %d %b %Y %H:%M:%S GMT")),
                                           ("Content-Type", "text/html; charset=utf-8"),
                                           ("Content-Length", str(len(page)))], protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            url, "response", payload=io.BytesIO(page), length=None, http_headers=resp,
            warc_headers_dict={"WARC-Record-ID": record_id("response", v.id), "WARC-Date": date}))
        (out / "html" / f"{v.id}.html.gz").write_bytes(gzip.compress(page, compresslevel=6, mtime=0))
        gold[v.id] = {"articleBody": gold_text(v, maker), "url": url}
        manifest.append({"id": v.id, "url": url, "date": date, "site": v.site.name, "template": v.site.template,
                         "lang": v.site.lang, "snapshot": v.snapshot, "record_id": record_id("response", v.id)})
    (out / "crawl.warc.gz").write_bytes(buf.getvalue())
    with open(out / "gold.json", "w", encoding="utf-8") as fh:
        json.dump(gold, fh, ensure_ascii=False, indent=1, sort_keys=True)
        fh.write("\n")
    info = {"sites": [{"name": s.name, "host": s.host, "template": s.template, "lang": s.lang,
                       "articles": len(s.articles)} for s in sites],
            "options": {"sites": n_sites, "pages": n_pages, "snapshots": snapshots, "source": source, "seed": seed},
            "records": manifest}
    with open(out / "manifest.json", "w", encoding="utf-8") as fh:
        json.dump(info, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    log(f"make_site_bench: {len(visits)} pages of {len(sites)} sites "
        f"({sum(1 for v in visits if v.snapshot)} later snapshots) -> {out}")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--sites", type=int, default=4, help="number of sites (templates cycle; default 4)")
    ap.add_argument("--pages", type=int, default=60, help="articles per site (default 60)")
    ap.add_argument("--snapshots", type=float, default=0.3, help="share of articles crawled again later")
    ap.add_argument("--source", choices=("auto", "snippets", "generated"), default="auto")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if args.sites < 1 or args.pages < 6 or not 0 <= args.snapshots <= 1:
        ap.error("need --sites >= 1, --pages >= 6 and --snapshots in [0, 1]")
    build(args.out, args.sites, args.pages, args.snapshots, args.source, args.seed,
          log=lambda m: print(m, file=sys.stderr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
