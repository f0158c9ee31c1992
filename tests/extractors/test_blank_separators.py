"""Whitespace between inline elements separates words in justext-plus, and only there.

jusText's ParagraphMaker drops whitespace-only text nodes, so
``<strong>1997</strong> <strong>Studium</strong>`` reads "1997Studium" and a
menu ``<a>Home</a> <a>News</a>`` reads "HomeNews": one word where there are
two. The engine's walk keeps such a node as one space under
``keep_blank_separators``; justext-plus turns it on, the classic ``justext``
extractor leaves it off and stays the package's copy. On both backends.
"""
from __future__ import annotations

import random

import pytest

import corpustool
from corpustool.extractors import justext_engine
from corpustool.extractors.base import Page
from corpustool.extractors.registry import get_extractor
from corpustool.language.stoplists import stoplist
from tests.support.markup import random_markup

DE = stoplist("de")
EN = stoplist("en")

BIO = ("<html><body><p>Jens Weber, geboren <strong>1977</strong> in Erfurt, <strong>1997</strong> "
       "<strong>Medientechnik-Studium</strong> an der HTWK Leipzig, und noch mehr Text hier um lang genug "
       "zu sein.</p></body></html>")
NAV = ("<html><body><ul><li><a href='/'>Home</a> <a href='/n'>News</a></li>"
       "<li><a href='/k'>Kontakt</a>\n  <a href='/i'>Impressum</a>  </li></ul>" + BIO[12:])


def texts(extractor: str, html: str, stop=DE) -> list[str]:
    return [p.text for p in get_extractor(extractor).extract(Page(html, stoplist=stop))]


def rows(paragraphs) -> list[tuple]:
    return [(p.text, p.cls, p.cf_class, p.heading, p.tag, p.dom_path, p.xpath, p.reason, p.features)
            for p in paragraphs]


def test_justext_plus_keeps_the_words_apart(native_backend):
    [bio] = texts("justext-plus", BIO)
    assert "1997 Medientechnik-Studium" in bio
    assert "1977 in Erfurt" in bio
    # the default extractor's clean text, as a user gets it
    assert "1997 Medientechnik-Studium an der HTWK Leipzig" in corpustool.extract_text(BIO, language="de")
    nav = texts("justext-plus", NAV)
    assert nav[:2] == ["Home News", "Kontakt Impressum"]
    # counted as the words they are
    paras = get_extractor("justext-plus").extract(Page(NAV, stoplist=DE))
    assert [p.features["words"] for p in paras[:2]] == [2, 2]
    assert paras[2].features["words"] == len(paras[2].text.split()) == 22


def test_classic_justext_still_glues_like_the_package():
    for html in (BIO, NAV):
        page = Page(html, stoplist=DE)
        ours = get_extractor("justext").extract(page)
        ref = get_extractor("justext-package").extract(page)
        assert rows(ours) == rows(ref)
    assert "1997Medientechnik-Studium" in texts("justext", BIO)[0]
    assert texts("justext", NAV)[:2] == ["HomeNews", "KontaktImpressum"]


def _rows_of(html: str, keep: bool, stop=EN) -> list[tuple]:
    """The rows of the backend's walk (the compiled one or the Python one)."""
    root = Page(html).tree
    return justext_engine.paragraph_rows(justext_engine.WALK.segment(root, keep_blank_separators=keep), stop)


@pytest.mark.parametrize("html, expected", [
    # a space already there: no second one (the link characters show it)
    ("<p><b>a </b> <i>b</i></p>", "a b"),
    ("<p><b>a</b> <i> b</i></p>", "a b"),
    # a blank at the start or the end of a paragraph adds nothing
    ("<p> <b>x</b> </p>", "x"),
    # across a removed node the blanks are one chunk: one space
    ("<p><b>a</b> <script>x</script> <!-- c --> <i>b</i></p>", "a b"),
    # no whitespace in the source: still glued
    ("<p><b>a</b><i>b</i></p>", "ab"),
    # a line break in the blank is a space, not a line
    ("<p><b>a</b>\n\n<i>b</i></p>", "a b"),
    # non-ASCII whitespace: no-break space, ideographic space
    ("<p><b>a</b>&nbsp;<i>b</i></p>", "a b"),
    ("<p><b>\u00e9\u3000</b> <i>b</i></p>", "\u00e9 b"),
])
def test_separator_text(html, expected, native_backend):
    [row] = _rows_of(html, True)
    assert row[0] == expected


def test_separator_and_the_other_features(native_backend):
    # between two links the space is no link text; inside one link it is
    [between] = _rows_of("<p><a href=1>Home</a> <a href=2>News</a></p>", True)
    assert (between[0], between[7]) == ("Home News", 8)
    [inside] = _rows_of("<p><a href=1><b>Home</b> <b>News</b></a></p>", True)
    assert (inside[0], inside[7]) == ("Home News", 9)
    # a blank at the start of a link adds no link character to an empty paragraph
    [start] = _rows_of("<p><a href=1> <b>Home</b></a></p>", True)
    assert (start[0], start[7]) == ("Home", 4)
    # <br> <br> still splits the paragraph (the blank ends no <br> run); one <br> stays a space
    assert [r[0] for r in _rows_of("<p>a<br> <br>b<br> <i>c</i></p>", True)] == ["a", "b c"]
    assert [r[0] for r in _rows_of("<p>a<br> <br>b<br> <i>c</i></p>", False)] == ["a", "b c"]
    # stop words are found once the words are apart
    [glued] = _rows_of("<p><b>of</b> <i>the</i></p>", False)
    [apart] = _rows_of("<p><b>of</b> <i>the</i></p>", True)
    assert (glued[0], glued[5], glued[6]) == ("ofthe", 1, 0)
    assert (apart[0], apart[5], apart[6]) == ("of the", 2, 2)


# -- generated pages: nothing but spaces changes (the walks compared: tests/native/test_backend_parity.py)

_TAGS = ["b", "i", "a", "a", "span", "span", "strong", "em", "b", "p", "div", "li", "td", "h2", "br", "br", "pre",
         "script", "form", "iframe", "image", "img"]
_TEXTS = [" ", " ", "  \n ", "\u00a0", "\u3000", "\t", "word", "the", "of it", "Home", "x\ny", "caf\u00e9 ",
          " \u00e9t\u00e9", "<!-- c -->", "<?php x ?>", "&nbsp;", "a  b"]
_VOID = {"br", "img"}


def _markup(rng: random.Random) -> str:
    return random_markup(rng, _TAGS, _TEXTS, _VOID, items=(1, 6), max_depth=4, close=0.9,
                         attrs=lambda rng, tag: " href='/x'" if tag == "a" else "")


def _pages(n: int):
    for seed in range(n):
        rng = random.Random(seed)
        html = _markup(rng)
        if rng.random() < 0.7:
            html = f"<html><body>{html}</body></html>"
        yield seed, html


def _squeeze(text: str) -> str:
    return "".join(text.split())


def test_only_spaces_change_on_generated_pages(native_backend):
    changed = 0
    for seed, html in _pages(600):
        if Page(html).tree is None:
            continue
        off, on = _rows_of(html, False), _rows_of(html, True)
        # the same paragraphs with the same paths; texts differ only in whitespace
        assert [r[1:4] for r in off] == [r[1:4] for r in on], (seed, html)
        assert [_squeeze(r[0]) for r in off] == [_squeeze(r[0]) for r in on], (seed, html)
        for a, b in zip(off, on):
            assert "  " not in b[0] and b[0] == b[0].strip()
            assert b[5] >= a[5] and b[7] >= a[7], (seed, html)   # words and link characters only grow
            changed += a[0] != b[0]
    assert changed > 120   # the generated pages do exercise the option
