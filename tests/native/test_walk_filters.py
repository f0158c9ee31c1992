"""The compiled walk's shortcuts give what the strings give: stop words ruled out by first letter and
length before any hashing, class/id tokens ruled out the same way, class/id values of ASCII
tokenised without a cache."""
from __future__ import annotations

import random

import pytest
from lxml import html as lxml_html

from corpustool.extractors import justext_engine
from corpustool.extractors import justext_plus as jp

pytestmark = pytest.mark.skipif(not justext_engine.COMPILED,
                                reason=f"compiled walk not built: {justext_engine.COMPILED_ERROR}")

LONG = "x" * 64 + "long"   # longer than the length filter's 64 bytes
STOPLISTS = [
    frozenset({"a", "I", "the", "Of", "and", LONG, "x" * 64, "straße", "ça", "i̇", "zz"}),
    frozenset({"the", "x" * 64}),
    frozenset({LONG}),
    frozenset({"a"}),
    frozenset(),
]
WORDS = ["a", "A", "I", "i", "the", "The", "THE", "of", "Of", "OF", "and", "an", "ant", LONG, LONG.upper(),
         "x" * 64, "X" * 64, "x" * 63, "x" * 65, "straße", "STRASSE", "Ça", "ça", "İ", "zz", "Zz", "z", "b" * 70,
         "1", "a1", "the-end", "&amp;"]


def test_stop_words_counted_as_the_strings_count_them():
    rng = random.Random(11)
    for _ in range(60):
        paras = ["<p>" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))) + "</p>"
                 for _ in range(rng.randint(1, 6))]
        root = lxml_html.fromstring("<html><body>" + "".join(paras) + "</body></html>")
        for stop in STOPLISTS:
            rows = justext_engine.features_compiled(root, stop)
            assert rows == justext_engine.paragraph_rows(justext_engine.segment_py(root), stop)
    # not vacuous: the filter lets the long entry and the capitals through ("Of" is no "of")
    root = lxml_html.fromstring(f"<html><body><p>{LONG.upper()} The OF x {'X' * 64}</p></body></html>")
    assert [r[6] for r in justext_engine.features_compiled(root, STOPLISTS[0])] == [3]


VALUES = ["menu", "Menu", "mainMenu", "main-menu", "navBar", "NAVBAR", "footer widget", "x" * 70 + "nav",
          "nav" + "x" * 70, "a" * 64 + " nav", "a" * 65 + "Nav", "sideNav2", "ad", "AD", "adBlock", "bad",
          "comment_list", "commentList", "\u0130nfo nav", "menü", "naïve nav", "", " ", "123", "tab tabs",
          "cookieConsent", "Cookie-Consent", "aNavB", "navIGATION", "ΝΑΒ nav"]


def test_class_values_masked_as_value_mask():
    rules = jp._evidence_rules()
    rng = random.Random(3)
    values = VALUES + [" ".join(rng.choice(VALUES) for _ in range(3)) for _ in range(300)]
    for value in values:
        assert rules.mask_of_value(value) == jp.value_mask(value), value
    assert rules.mask_of_value("mainMenu footer") == jp.value_mask("menu footer") != 0
