"""justext-plus's compiled decide() decides what the Python decide() decides, paragraph for paragraph.

``corpustool/native/justext_plus_decide.pyx`` is decide() in C arrays over the
compiled walk's node ids; ``JustextPlusExtractor.decide`` (XPath strings) is
the reference. On the same paragraphs and evidence both must give every
paragraph the same class, reason and features and delete the same header
regions from ``kinds``: on the development pages (when ../shared is there)
with several option sets, on seeded random pages and on hand-made ones.
"""
from __future__ import annotations

import copy
import random

import pytest

from corpustool.document import Paragraph
from corpustool.encoding import decode
from corpustool.extractors import justext_engine
from corpustool.extractors import justext_plus as jp
from corpustool.extractors.base import Page, parse_html
from corpustool.eval.runner import html_lang
from corpustool.extractors.registry import get_extractor
from corpustool.language.stoplists import stoplist
from corpustool.native import backend
from tests.support.markup import random_markup

pytestmark = pytest.mark.skipif(not justext_engine.COMPILED,
                                reason=f"compiled walk not built: {justext_engine.COMPILED_ERROR}")

EN = stoplist("en")
OPTIONS = [{}, {"keep_meta": True}, {"outside": "drop"}, {"outside": "good"}, {"outside": "justext"},
           {"main_share": 0.8}, {"max_link_density": 0.3},
           {"region_max_link_density": 0.3}]
SENTENCE = ("The council met on Tuesday evening to discuss the future of the old library building in the "
            "centre of the town, which has been empty since the new one opened across the river.")
WORDS = " ".join(f"word{i}" for i in range(12))
SENTENCE_2 = ("Residents who spoke at the meeting said that they would like the building to become a place "
              "where people of all ages can meet, read and learn about the history of the area.")


def compiled_available() -> bool:
    return jp.compiled_decide is not None


def evidence(html: str, sl: frozenset[str] = EN):
    """The compiled walk's paragraphs and PageTree of a page, and its title."""
    root = parse_html(html)
    if root is None:
        return [], None, None
    paras, tree = justext_engine.extract_evidence(root, sl, get_extractor("justext-plus").engine.params, Paragraph,
                                                  justext_engine._FAST_PARAGRAPH_INIT, "good", "bad",
                                                  jp._evidence_rules(),
                                                  keep_blank_separators=jp.KEEP_BLANK_SEPARATORS)
    return paras, tree, jp._title_of(root)


def decided(paras, tree, title, extractor, compiled: bool):
    """Fresh copies of the paragraphs and of ``kinds``, decided by one of the two."""
    copies = [copy.copy(p) for p in paras]
    for p in copies:
        p.features = dict(p.features)
    kinds = dict(tree.kinds)
    totals = None
    if compiled:
        # (and without falling back on the Python decide(): that would compare it with itself)
        totals = jp.compiled_decide(extractor.decide_settings, copies, kinds, list(tree.hints), title, tree.why, tree)
        assert totals is not jp.DECLINED, "the compiled decide() left this input to the Python decide()"
    else:
        extractor.decide(copies, kinds, list(tree.hints), title, tree.why, tree)
    return copies, kinds, totals


def word_totals(paras) -> tuple:
    """(words kept, words of all paragraphs, {region kind: words}), summed in Python."""
    by_region: dict = {}
    for p in paras:
        region = p.features.get("region")
        if region:
            by_region[region] = by_region.get(region, 0) + p.features.get("words", 0)
    return (sum(p.features.get("words", 0) for p in paras if p.cls == "good"),
            sum(p.features.get("words", 0) for p in paras), {k: w for k, w in by_region.items() if w})


def assert_same(paras, tree, title, extractor, where="") -> list[Paragraph]:
    ref, ref_kinds, _ = decided(paras, tree, title, extractor, compiled=False)
    got, got_kinds, totals = decided(paras, tree, title, extractor, compiled=True)
    # the word sums it returns for restore_items are the decided paragraphs' own
    assert totals == word_totals(ref), where
    assert list(got_kinds.items()) == list(ref_kinds.items()), where
    for a, b in zip(got, ref):
        assert (a.cls, a.reason) == (b.cls, b.reason), (where, a.text[:80])
        assert a.features == b.features, (where, a.text[:80])
        assert list(a.features) == list(b.features), (where, a.text[:80])
    return got


def compare_page(html: str, options_list=OPTIONS, sl: frozenset[str] = EN, where="") -> list[list[Paragraph]]:
    paras, tree, title = evidence(html, sl)
    if tree is None:
        return []
    return [assert_same(paras, tree, title, get_extractor("justext-plus", **o), f"{where} {o}") for o in options_list]


needs_compiled_decide = pytest.mark.skipif(not compiled_available(),
                                           reason="corpustool/native/justext_plus_decide.pyx is not built")


# -- the compiled path is the one extract() takes -------------------------------------


def test_compiled_decide_is_used_when_built(monkeypatch):
    # built next to the compiled walk by the same setup.py: a stale or failed build must show here,
    # or the equality tests below would compare nothing
    if backend.FORCED == "python":
        pytest.skip("the Python backend is forced (CORPUSTOOL_BACKEND=python)")
    assert compiled_available(), (f"corpustool.native.justext_plus_decide did not load ({jp.COMPILED_DECIDE_ERROR}); "
                                  "rebuild: python setup.py build_ext --inplace")
    calls, python_calls = [], []
    real, original = jp.compiled_decide, jp.JustextPlusExtractor.decide
    monkeypatch.setattr(jp, "compiled_decide", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(jp.JustextPlusExtractor, "decide",
                        lambda self, *a, **k: python_calls.append(1) or original(self, *a, **k))
    paras = get_extractor("justext-plus").extract(Page(HAND_MADE["nested hints"], stoplist=EN))
    assert paras and calls == [1] and not python_calls
    # extract_py (the XPath evidence) keeps the Python decide()
    get_extractor("justext-plus").extract_py(Page(HAND_MADE["nested hints"], stoplist=EN))
    assert python_calls and len(calls) == 1


# -- hand-made pages ---------------------------------------------------------------------

HAND_MADE = {
    "no paragraphs": "<html><head><title>Nothing</title></head><body><div></div></body></html>",
    "one paragraph": f"<html><body><p>{SENTENCE}</p></body></html>",
    "no main region": ("<html><body><nav><ul>" + "".join(f"<li><a href=/{i}>Section {i}</a></li>" for i in range(8)) +
                       "</ul></nav><footer><p>Contact us</p></footer></body></html>"),
    "cookie notice only": (f"<html><body><div class='cookie-notice'><p>{SENTENCE} We use cookies.</p>"
                           f"<p>{SENTENCE_2}</p><button>Accept</button></div></body></html>"),
    "nested hints": ("<html><head><title>Library plans for the town - Town News</title></head><body>"
                     "<header class='site-header'><nav><a href=/>Home</a> <a href=/n>News</a></nav></header>"
                     "<main><article><header class='entry-header'><h1>Library plans for the town</h1>"
                     "<p class='byline'>By Jane Doe</p><time>12 March 2024</time></header>"
                     "<div itemprop='articleBody'><section role='main'>"
                     f"<p>{SENTENCE}</p><p>{SENTENCE_2}</p><aside class='teaser'><p>{SENTENCE_2}</p></aside>"
                     f"<p>{SENTENCE}</p><h2>Related</h2><ul><li><a href=/a>One story</a></li>"
                     "<li><a href=/b>Two stories</a></li><li><a href=/c>Three stories</a></li></ul>"
                     "<p>Foto: dpa</p></section></div><div class='share'><p>Share this</p></div>"
                     "</article></main><aside class='sidebar'><h3>Popular</h3><p>Another story</p></aside>"
                     "<footer><p>&copy; 2024 Town News</p></footer></body></html>"),
    "second main block": ("<html><body><div class='recipe'><div class='ingredients'>"
                          + "".join(f"<p>{SENTENCE_2}</p>" for _ in range(3)) +
                          "</div></div><div class='sidebar'><p>Subscribe to our newsletter</p></div>"
                          "<div class='steps'><div class='inner'>"
                          + "".join(f"<p>{SENTENCE}</p>" for _ in range(6)) +
                          "</div></div></body></html>"),
    "crowded names": ("<html><body>" + "".join(f"<div class='elementor-widget-container elementor-{i}a7f'>"
                                               f"<p>{SENTENCE}</p></div>" for i in range(5)) +
                      "<div class='elementor-widget-container menu'><p>Home</p></div></body></html>"),
    "bare form and letter": ("<html><body><form><div class='post'><p>Dear readers,</p>"
                             f"<p>{SENTENCE}</p><p>{SENTENCE_2}</p><p>The paper is here:</p>"
                             "<p>Best regards</p><p>Read more</p><p>Read more</p><p>Read more</p></div></form>"
                             "</body></html>"),
    "link list run": ("<html><body><article><h1>The library plans</h1>"
                      f"<p>{SENTENCE}</p><p>Open the <a href=/m>town map</a> now</p>"
                      "<p>See the <a href=/b>bus times</a> today</p><p>Find the <a href=/p>car parks</a> here</p>"
                      f"<p>{SENTENCE_2}</p></article></body></html>"),
    # whitespace inside a link counts in its link density, not in the text: a density above 1,
    # and without content-like text, a negative weight in the main region's search
    "link density above 1": ("<html><body><div class='a'><p><a href=/x>" + " " * 30 + WORDS + " " * 30 +
                             f"</a></p><p><a href=/y>{WORDS}</a> and a few more words of plain text here</p></div>"
                             f"<div class='b'><section><p>{WORDS} plain words without any link at all in it</p>"
                             "</section></div></body></html>"),
    "negative total weight": ("<html><body><div><div><div><p><a href=/x> " + WORDS + " </a></p></div></div></div>"
                              "<section><p><a href=/y> " + WORDS.upper() + " </a></p></section><p>A short line</p>"
                              "</body></html>"),
    "article header by name": ("<html><body><div class='post-header'><h1>The headline of it all</h1></div>"
                               f"<div class='content'><p>{SENTENCE}</p><p>{SENTENCE_2}</p></div>"
                               "<h2>More on this topic</h2><h3>Comments</h3></body></html>"),
}


@pytest.mark.parametrize("name", sorted(HAND_MADE))
@needs_compiled_decide
def test_hand_made_pages(name):
    compare_page(HAND_MADE[name], where=name)


@needs_compiled_decide
def test_hand_made_pages_exercise_the_rules():
    # the pages above are not vacuous: they reach the rules they are named after
    paras, tree, title = evidence(HAND_MADE["no paragraphs"])
    assert paras == []
    one = compare_page(HAND_MADE["one paragraph"])[0]
    assert len(one) == 1 and one[0].cls == "good"
    assert all(p.cls == "bad" and not p.features["main"] for p in compare_page(HAND_MADE["no main region"])[0])
    cookie = compare_page(HAND_MADE["cookie notice only"])[0]
    assert {p.reason for p in cookie} == {"boilerplate:cookie"}
    nested = compare_page(HAND_MADE["nested hints"])[0]
    reasons = {p.reason for p in nested}
    assert {"boilerplate:links", "boilerplate:credit", "boilerplate:share"} <= reasons
    assert any(p.features.get("region_element") for p in nested)
    second = compare_page(HAND_MADE["second main block"])[0]
    assert [p.features["main"] for p in second] == [True] * 3 + [False] + [True] * 6
    run = compare_page(HAND_MADE["link list run"])[0]
    assert [p.reason for p in run[2:5]] == ["boilerplate:links"] * 3 and run[1].cls == run[5].cls == "good"
    dense = evidence(HAND_MADE["negative total weight"])[0]
    assert [p.features["link_density"] > 1 for p in dense] == [True, True, False]
    # (the element of the longest XPath among those with the share, not the last one)
    assert [p.features["main"] for p in compare_page(HAND_MADE["negative total weight"])[0]] == [True, False, False]
    crowded = compare_page(HAND_MADE["crowded names"])[0]
    assert [p.cls for p in crowded[:5]] == ["good"] * 5


# -- seeded random pages ----------------------------------------------------------------

_TAGS = ["div", "div", "div", "section", "nav", "aside", "footer", "header", "form", "article", "main", "ul", "li",
         "p", "p", "span", "td", "table", "time", "iframe", "dialog", "h2", "h3", "a", "br", "script", "blockquote"]
_CLASSES = ["", "", "", "menu", "sidebar", "footer", "share-buttons", "content", "post", "entry-meta",
            "commentList", "related", "navBar", "cookie-notice", "ad", "widget", "post-header", "article-head",
            "elementor-widget-container elementor-1a2b", "elementor-widget-container elementor-3c4d", "teaser"]
_TEXTS = [SENTENCE, SENTENCE_2, SENTENCE, "Read more", "Read more", "Posted on 12 March 2024", "Foto: dpa",
          "\u00a9 2024 Site", "<a href=/x>A link to another page of the site</a>",
          "<a href=/y>Home</a> <a href=/z>News</a>", "Dear readers,", "Best regards", "The paper is here:",
          "Short line", "Anzeige", "Share this", "More on this topic", "A story about the town",
          "It rained. ", "<a href=/q>" + SENTENCE[:60] + "</a>" + SENTENCE[60:], "Open the <a href=/m>town map</a> now",
          "See the <a href=/b>bus times</a> today", "Find the <a href=/p>car parks</a> here"]
_VOID = {"br"}


def _attrs(rng: random.Random, tag: str) -> str:
    out = []
    if rng.random() < 0.4:
        out.append(f"class='{rng.choice(_CLASSES)}'")
    if rng.random() < 0.1:
        out.append(f"id='{rng.choice(_CLASSES)}'")
    if rng.random() < 0.06:
        out.append(f"role='{rng.choice(['main', 'navigation', 'complementary', 'banner', 'none'])}'")
    if rng.random() < 0.05:
        out.append(f"itemprop='{rng.choice(['articleBody', 'author', 'text'])}'")
    if rng.random() < 0.02:
        out.append(rng.choice(["hidden", "style='display:none'"]))
    return (" " + " ".join(out)) if out else ""


def random_page(rng: random.Random) -> str:
    body = "".join(random_markup(rng, _TAGS, _TEXTS, _VOID, items=(1, 4), max_depth=4, close=0.9, attrs=_attrs)
                   for _ in range(rng.randint(1, 6)))
    return f"<html><head><title>A story about the town</title></head><body>{body}</body></html>"


@needs_compiled_decide
@pytest.mark.parametrize("chunk", range(4))
def test_random_pages(chunk):
    paragraphs = 0
    for seed in range(chunk * 250, (chunk + 1) * 250):
        rng = random.Random(seed)
        for decided_paras in compare_page(random_page(rng), where=f"seed {seed}"):
            paragraphs += len(decided_paras)
    assert paragraphs > 20000


# -- the development pages ------------------------------------------------------------------



@needs_compiled_decide
@pytest.mark.parametrize("part", range(2))
def test_development_pages(snippets_dir, part):
    files = sorted((snippets_dir / "pages").glob("*.html"))
    paragraphs = 0
    for f in files[part::2]:
        html = decode(f.read_bytes()).text
        paras, tree, title = evidence(html, stoplist(html_lang(html) or "en"))
        if tree is None:
            continue
        for options in OPTIONS:
            assert_same(paras, tree, title, get_extractor("justext-plus", **options), f"{f.name} {options}")
        paragraphs += len(paras)
    assert paragraphs > 50000


@needs_compiled_decide
def test_evidence_the_tree_does_not_know_falls_back_to_the_python_decide():
    # (kinds from elsewhere: a key that is no node of the tree)
    paras, tree, title = evidence(HAND_MADE["nested hints"])
    extractor = get_extractor("justext-plus")
    tree.kinds["/html[1]/body[1]/div[9]"] = "nav"
    copies = [copy.copy(p) for p in paras]
    for p in copies:
        p.features = dict(p.features)
    before = [(p.cls, p.reason, dict(p.features)) for p in copies]
    assert jp.compiled_decide(extractor.decide_settings, copies, dict(tree.kinds), list(tree.hints), title, tree.why,
                              tree) is jp.DECLINED
    assert [(p.cls, p.reason, p.features) for p in copies] == before     # declined before changing anything
    # and the extractor's _decide() then decides in Python: the reference's classes
    ref, _, _ = decided(paras, tree, title, extractor, compiled=False)
    extractor._decide(copies, tree, title, Page(HAND_MADE["nested hints"]))
    assert [(p.cls, p.reason, p.features) for p in copies] == [(p.cls, p.reason, p.features) for p in ref]
