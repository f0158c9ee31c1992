"""The inspect view: one page's paragraphs, coloured by class, with the features behind each decision.

Seed 004 (Rolli's evaluation framework) asks for a report in which a person
sees at a glance why each block of a page was kept or removed. For jusText
that is: the final class (colour), the context-free class of Algorithm 2.2
(seed 003, Sect. 2.7.2), the heading flag, and the features the classes come
from (length, link density, stop-word count and density), with the block's
tag and DOM path. The page is self-contained HTML: inline style sheet, no
script, no external resource, so it can be mailed or opened offline.
"""
from __future__ import annotations

import html as html_lib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .document import Paragraph
from .encoding import decode
from .errors import OptionError
from .extractors.base import Page
from .extractors.registry import get_extractor

FEATURE_ORDER = ("chars", "words", "link_density", "stopwords", "stopword_density")
CF_CLASSES = ("good", "neargood", "short", "bad")

# how the view names a paragraph's features, and what each means (the legend)
FEATURE_LABELS = {
    "chars": ("characters", "the paragraph's length in characters"),
    "words": ("words", "the paragraph's length in words"),
    "link_density": ("link density", "share of the paragraph's characters inside links"),
    "stopwords": ("stop words", "words of the paragraph in the language's stoplist"),
    "stopword_density": ("stop-word density", "stop words / words"),
    "jt_class": ("jusText's class", "the class classic jusText gives the paragraph, before the page-structure "
                                    "evidence of justext-plus"),
    "main": ("in the main content", "inside the page's main-content region (<main>, role=main, an article ...)"),
    "region": ("region", "the kind of page region the paragraph is in (nav, cookie, share, footer ...)"),
    "region_element": ("region element", "the element that marks that region, as a CSS selector (tag.class#id)"),
}
CF_EXPLAINED = ("jusText's context-free class: the paragraph's class from its own length, link density and "
                "stop-word density, before its neighbours are looked at (Pomikálek's thesis, Algorithm 2.2); "
                "the final class then decides short and near-good paragraphs by their neighbours (Algorithm 2.3)")


def element_label(description: str) -> str:
    """``tag.class names#id`` (the evidence's description of an element) as a CSS selector:
    ``nav.main-menu`` for a class without an id (no dangling ``#``), ``div#x`` for an id alone."""
    tag, dot, rest = str(description).partition(".")
    if not dot:
        return tag
    classes, hash_, idv = rest.rpartition("#")
    if not hash_:
        classes, idv = rest, ""
    return tag + "".join(f".{c}" for c in classes.split()) + (f"#{idv}" if idv else "")


def _feature_value(key: str, value: Any) -> str:
    if key == "region_element":
        return element_label(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else str(value)
    return str(value)


def _feature(key: str, value: Any) -> str:
    label, meaning = FEATURE_LABELS.get(key, (key.replace("_", " "), ""))
    title = f' title="{_esc(meaning)}"' if meaning else ""
    return (f'<span class="feat" data-feature="{_esc(key)}"{title}>{_esc(label)} '
            f"<b>{_esc(_feature_value(key, value))}</b></span>")


@dataclass
class Inspection:
    """One page run through one extractor, ready to render."""

    source: str
    extractor: str
    options: dict[str, Any]
    language: str | None
    language_source: str           # given | html-lang | guessed | fallback | not-needed
    title: str | None
    encoding: str | None
    paragraphs: list[Paragraph] = field(default_factory=list)


def choose_language(page: Page, language: str | None) -> tuple[str | None, str]:
    """The stoplist language: given, else ``<html lang>``, else guessed from the text, else English.

    A given ``--lang`` (one language, ``auto`` or a comma-separated list) chooses
    exactly as ``build --lang`` does, by the clean stage's own code: the stoplist
    guessed among the listed languages, or none for a language without one
    (jusText's language-independent mode: None, "language-independent").
    A page ``build`` would drop as unwanted is shown with the first wanted
    language's stoplist (or English's).
    """
    from .document import Document
    from .extractors.clean import Clean
    from .language.identify import guess_stoplist_language, page_text
    from .language.stoplists import has_stoplist, resolve_language

    if language is not None:
        from .language import split_langs

        clean = Clean(extractor="justext", languages=split_langs(language))
        doc = Document(id="inspect")
        if clean.choose_stoplist(doc, page):
            if page.meta.get("language_independent"):
                return page.language, "language-independent"
            return page.language, "given" if len(clean.languages) == 1 else "guessed"
        page.meta.pop("language_independent", None)
        listed = [l for l in clean.languages if has_stoplist(l)]
        return (listed or ["en"])[0], f"fallback; build drops it as {doc.drop_reason}"
    tree = page.tree
    declared = (tree.get("lang") or "").strip() if tree is not None else ""
    if declared:
        try:
            return resolve_language(declared), "html-lang"
        except OptionError:
            pass
    code, _ = guess_stoplist_language(page_text(tree))
    if code:
        return code, "guessed"
    return "en", "fallback"


def inspect_page(raw: bytes, source: str = "", language: str | None = None, extractor: str | None = None,
                 **options: Any) -> Inspection:
    """Decode, parse and extract one page; options go to the extractor (e.g. ``preset="A"``)."""
    from .extractors.clean import DEFAULT_EXTRACTOR
    from .language.stoplists import stoplist

    name = extractor or DEFAULT_EXTRACTOR
    options = {k: v for k, v in options.items() if v is not None}
    ex = get_extractor(name, **options)
    if getattr(ex, "stream_stage", None) is not None:
        # its clean stage keeps every block: one page alone would be shown all good
        raise OptionError(f"{name} decides by comparing a site's pages, which one page cannot show: build a "
                          f"corpus of the site's pages with it, or inspect the page with a page-level extractor")
    decoded = decode(raw)
    page = Page(decoded.text)
    code, how = None, "not-needed"
    if ex.needs_stoplist:
        code, how = choose_language(page, language)
        if how != "language-independent":
            page.stoplist = stoplist(code)
            page.language = code
    paragraphs = ex.extract(page) if page.tree is not None else []
    return Inspection(source=source, extractor=name, options=options, language=code, language_source=how,
                      title=ex.title(page) if page.tree is not None else None, encoding=decoded.encoding,
                      paragraphs=paragraphs)


_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 60em; padding: 1em 1.5em;
       color: #1d1d1d; background: #fafafa; }
h1 { font-size: 1.35em; margin: .2em 0; }
.meta, .legend { color: #555; font-size: .9em; }
.meta code { background: #eee; padding: 0 .25em; }
.legend span { display: inline-block; padding: .1em .5em; margin-right: .4em; border-radius: 3px; }
table.summary { border-collapse: collapse; margin: .6em 0 1em; font-size: .9em; }
table.summary td, table.summary th { border: 1px solid #ccc; padding: .15em .6em; text-align: right; }
.par { margin: .35em 0; padding: .4em .6em; border-left: 6px solid; border-radius: 3px; }
.par.good { background: #e3f4e1; border-color: #2e8b3a; }
.par.bad { background: #f6e3e3; border-color: #b8312f; color: #555; }
.par .text { white-space: pre-wrap; }
.par.heading .text { font-weight: 600; }
.par .why { font: 12px/1.4 ui-monospace, monospace; color: #444; margin-top: .25em; }
.badge { display: inline-block; padding: 0 .4em; border-radius: 3px; color: #fff; margin-right: .3em; }
.badge.good { background: #2e8b3a; } .badge.bad { background: #b8312f; }
.cf { display: inline-block; padding: 0 .4em; border-radius: 3px; border: 1px solid #888; margin-right: .3em; }
.cf-good { background: #c7ebc3; } .cf-neargood { background: #e6f2b5; }
.cf-short { background: #fdf0b8; } .cf-bad { background: #f2c4c2; }
.path { color: #666; }
.feat { margin-right: .6em; } .feat b { font-weight: 600; }
dl.features { font-size: .85em; color: #444; display: grid; grid-template-columns: max-content auto;
              gap: 0 1em; margin: .4em 0 1em; } dl.features dt { font-weight: 600; } dl.features dd { margin: 0; }
"""


def _esc(value: Any) -> str:
    return html_lib.escape(str(value), quote=True)


def render(ins: Inspection) -> str:
    """The inspect view of one page as a self-contained HTML document."""
    pars = ins.paragraphs
    final = Counter(p.cls for p in pars)
    cf = Counter(p.cf_class for p in pars)
    words_kept = sum(p.word_count() for p in pars if p.is_good)
    words_all = sum(p.word_count() for p in pars)
    opts = ", ".join(f"{k}={v}" for k, v in sorted(ins.options.items())) or "defaults"
    title = ins.title or ins.source or "page"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>inspect: {_esc(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f'<h1 id="title">{_esc(title)}</h1>',
        '<p class="meta">',
        f"source <code>{_esc(ins.source)}</code> · extractor <code>{_esc(ins.extractor)}</code> "
        f"({_esc(opts)}) · encoding <code>{_esc(ins.encoding)}</code> · stoplist "
        f"<code>{_esc(ins.language or '-')}</code> ({_esc(ins.language_source)})</p>",
        '<table class="summary" id="summary"><tr><th></th><th>paragraphs</th><th>words</th></tr>',
        f'<tr><th>kept (good)</th><td id="n-good">{final.get("good", 0)}</td><td>{words_kept}</td></tr>',
        f'<tr><th>removed (bad)</th><td id="n-bad">{final.get("bad", 0)}</td>'
        f"<td>{words_all - words_kept}</td></tr>",
        f'<tr><th title="{_esc(CF_EXPLAINED)}">jusText\'s context-free class</th><td colspan=2>'
        + " · ".join(f"{c} {cf.get(c, 0)}" for c in CF_CLASSES) + "</td></tr></table>",
        '<p class="legend">final class (kept or removed): <span class="badge good">good</span>'
        '<span class="badge bad">bad</span> · context-free class: '
        + "".join(f'<span class="cf cf-{c}">{c}</span>' for c in CF_CLASSES)
        + f'</p><p class="legend" id="cf-legend">{_esc(CF_EXPLAINED)}.</p>',
        '<dl class="features" id="features">'
        + "".join(f"<dt>{_esc(label)}</dt><dd>{_esc(meaning)}</dd>" for label, meaning in FEATURE_LABELS.values())
        + "<dt>reason</dt><dd>the rule that decided the final class, where it is not jusText's own</dd></dl>",
        '<main id="paragraphs">',
    ]
    if not pars:
        out.append('<p class="empty">No paragraphs: the page has no text outside removed elements.</p>')
    for i, p in enumerate(pars, 1):
        classes = ["par", "good" if p.is_good else "bad"]
        if p.heading:
            classes.append("heading")
        keys = [k for k in FEATURE_ORDER if k in p.features] + [k for k in p.features if k not in FEATURE_ORDER]
        why = [f'<span class="badge {"good" if p.is_good else "bad"}" title="final class">{_esc(p.cls)}</span>']
        if p.cf_class:
            why.append(f'<span class="cf cf-{_esc(p.cf_class)}" title="jusText\'s context-free class">'
                       f"context-free: {_esc(p.cf_class)}</span>")
        if p.heading:
            why.append('<span class="feat">heading</span>')
        if p.reason:
            why.append(f'<span class="feat" data-feature="reason">reason <b>{_esc(p.reason)}</b></span>')
        why.extend(_feature(k, p.features[k]) for k in keys)
        out.append(
            f'<div class="{" ".join(classes)}" id="p{i}" data-cls="{_esc(p.cls)}" data-cf="{_esc(p.cf_class)}">'
            f'<div class="why">#{i} &lt;{_esc(p.tag)}&gt; <span class="path" title="{_esc(p.xpath)}">'
            f"{_esc(p.dom_path)}</span></div>"
            f'<div class="text">{_esc(p.text)}</div>'
            f'<div class="why">{"".join(why)}</div></div>')
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"
