"""justext-plus's compiled evidence gives what its XPath evidence gives, paragraph for paragraph.

``JustextPlusExtractor.extract`` reads the structural evidence (regions,
main-content hints, each paragraph's evidence ancestors) in the compiled
walk; ``extract_py`` reads it with the XPath queries of ``regions()`` and the
XPath strings of the paragraphs (the reference, and the path without the
extension). Both must give every paragraph the same text, class, reason and
evidence features, on awkward generated pages (always) and on the
development pages (when ../shared is there).
"""
from __future__ import annotations

import random

import pytest

from corpustool.encoding import decode
from corpustool.extractors import justext_engine
from corpustool.extractors import justext_plus as jp
from corpustool.extractors.base import Page, parse_html
from corpustool.extractors.registry import get_extractor
from corpustool.language.stoplists import stoplist

pytestmark = pytest.mark.skipif(not justext_engine.COMPILED,
                                reason=f"compiled walk not built: {justext_engine.COMPILED_ERROR}")

EN = stoplist("en")
SENTENCE = ("The council met on Tuesday evening to discuss the future of the old library building in the "
            "centre of the town, which has been empty since the new one opened across the river.")
SHORT = "Read more"


def P(text: str = SENTENCE, tag: str = "p", attrs: str = "") -> str:
    return f"<{tag}{(' ' + attrs) if attrs else ''}>{text}</{tag}>"


AWKWARD = {
    "empty": "",
    "blank": "   \n ",
    "no body": "<html><head><title>T</title></head></html>",
    "text only": "just some text without any markup at all, which is still a paragraph of the page",
    "tag soup": "<p>one<div>two<p>three<li>four</b></i><td>five<table><tr><td>six" + SENTENCE,
    "nested semantic": ("<html><body><header><nav><ul><li><a href=/>Home</a></li><li>" + SHORT +
                        "</li></ul></nav><h1>Title of the story here</h1></header><main><article>"
                        "<header><h1>Story headline for the day</h1><time>12 March 2024</time></header>" +
                        P() * 4 + "<aside>" + P("Related: another story") + "</aside><footer>" +
                        P("Photo: Reuters") + "</footer></article></main><footer>" +
                        P("&copy; 2024 Town News") + "</footer></body></html>"),
    "unwrapped form": ("<body><div class='content'><form class='searchform'><p>Search the site</p>"
                       "<input name=q></form>" + P() * 3 + "</div><div><form>" + P() * 2 +
                       "</form></div><form><iframe class='ad'></iframe>" + P(SHORT) + "</form></body>"),
    "form with its own kind first": ("<body><div class='sidebar'><form>" + P(SHORT) + "</form></div>"
                                     "<div>" + P() * 3 + "</div></body>"),
    "killed inside regions": ("<body><nav><script>var x = '<p>no</p>';</script>" + P(SHORT) +
                              "<style>p {}</style></nav><div id='main'>" + P() * 3 +
                              "<select><option>a</option></select><button>Go</button></div>"
                              "<textarea class='comment'>typed</textarea></body>"),
    "hidden": ("<body><div hidden>" + P() + "</div><div style='display: none'>" + P() + "</div>"
               "<div style='Visibility:Hidden'>" + P() + "</div><div style='color: red'>" + P() * 2 +
               "</div><div style='di\u017fplay:none'>" + P() + "</div><div style='font: \u00e9'>" + P() +
               "</div></body>"),
    "class and id tokens": ("<body><div class='mainNav'>" + P(SHORT) + "</div><div id='site-footer__inner'>" +
                            P(SHORT) + "</div><div class='CookieBar consent'>" + P() + "</div>"
                            "<ul class='menu-item menu'><li class='menu-item'>" + SHORT + "</li></ul>"
                            "<div class='\u0130nfo NAV\u212a'>" + P() + "</div><div class='x' id='relatedPosts'>" +
                            P() + "</div><div class='" + "a" * 80 + "menu'>" + P() + "</div>"
                            "<div class='' id=''>" + P() * 3 + "</div></body>"),
    "hints": ("<body><div role=' Main '>" + P() * 2 + "</div><div itemprop='articleBody'>" + P() * 3 +
              "<div role='navigation'>" + P(SHORT) + "</div><span itemprop='author'>Jane Doe</span>"
              "</div><article class='comment'>" + P() + "</article><main>" + P() * 2 + "</main></body>"),
    "page tags": ("<html class='nav'><body class='has-sidebar cookies-not-set' role='main' hidden>" + P() * 3 +
                  "</body></html>"),
    "roles": ("<body><div role='banner'>" + P(SHORT) + "</div><div role='search'>" + P(SHORT) + "</div>"
              "<div role=''>" + P() + "</div><div role='contentinfo'>" + P() + "</div>" + P() * 2 + "</body>"),
    "leaves and breaks": ("<body><div class='share'>Share<br><br>this</div><p class='byline'>By Jane</p>"
                          "<image class='ad' src=x><div>a<br>b<br><br>c " + SENTENCE + "</div>"
                          "<td class='sidebar'>" + SHORT + "</td></body>"),
    "deep": "<body>" + "<div class='wrap'>" * 60 + P() * 3 + "</div>" * 60 + "<div class='menu'>" + P(SHORT) +
            "</div></body>",
    "entities in attributes": ("<body><div class='nav&amp;menu' id='a&#x20;footer'>" + P() + "</div>" + P() * 2 +
                               "</body>"),
    "no good text": ("<body><nav>" + "".join(P(f"<a href=/{i}>Link {i}</a>") for i in range(6)) +
                     "</nav><div>" + P("Ten words of text that read like a short note here.") + "</div></body>"),
}


def random_page(rng: random.Random) -> str:
    """Nested blocks with random tags, classes, roles, hints, unwrapped and killed elements."""
    tags = ["div", "div", "section", "nav", "aside", "footer", "header", "form", "article", "main", "ul", "li",
            "span", "td", "table", "p", "time", "iframe", "object", "dialog", "menu", "h2"]
    classes = ["", "", "", "menu", "sidebar", "footer", "share-buttons", "content", "post", "entry-meta",
               "commentList", "related", "x", "navBar", "cookie-notice", "ad", "widget"]
    texts = [SENTENCE, SENTENCE, SHORT, "Posted on 12 March 2024", "Foto: dpa", "\u00a9 2024 Site",
             "<a href=/x>A link to another page</a>", "<a href=/y>Home</a> <a href=/z>News</a>"]

    def block(depth: int) -> str:
        tag = rng.choice(tags)
        attrs = []
        if rng.random() < 0.4:
            attrs.append(f"class='{rng.choice(classes)}'")
        if rng.random() < 0.15:
            attrs.append(f"id='{rng.choice(classes)}'")
        if rng.random() < 0.05:
            attrs.append(f"role='{rng.choice(['main', 'navigation', 'complementary', 'Main', 'none'])}'")
        if rng.random() < 0.04:
            attrs.append(f"itemprop='{rng.choice(['articleBody', 'author', 'name'])}'")
        if rng.random() < 0.03:
            attrs.append(rng.choice(["hidden", "style='display:none'", "style='margin:0'"]))
        inner = []
        for _ in range(rng.randint(0, 4)):
            r = rng.random()
            if depth < 6 and r < 0.5:
                inner.append(block(depth + 1))
            elif r < 0.55:
                inner.append("<script>var a = 1;</script>")
            else:
                inner.append(rng.choice(texts))
        return f"<{tag} {' '.join(attrs)}>{''.join(inner)}</{tag}>"

    return "<html><head><title>A story</title></head><body>" + "".join(block(0) for _ in range(6)) + "</body></html>"


def compare(html: str, extractor: jp.JustextPlusExtractor, sl: frozenset[str] = EN) -> int:
    fast = extractor.extract(Page(html, stoplist=sl))
    slow = extractor.extract_py(Page(html, stoplist=sl))
    assert [p.text for p in fast] == [p.text for p in slow]
    for a, b in zip(fast, slow):
        assert (a.cls, a.reason, a.xpath) == (b.cls, b.reason, b.xpath), a.text
        assert a.features.get("main") == b.features.get("main"), a.text
        assert a.features.get("region") == b.features.get("region"), a.text
        assert a.features == b.features, a.text
    # the evidence itself: regions, hints and descriptions in the same order, the same chains
    root = parse_html(html)
    if root is not None and fast:
        paras, tree = justext_engine.extract_evidence(root, sl, extractor.engine.params, type(fast[0]),
                                                      justext_engine._FAST_PARAGRAPH_INIT, "good", "bad",
                                                      jp._evidence_rules(),
                                                      keep_blank_separators=jp.KEEP_BLANK_SEPARATORS)
        ref = jp.XPathTree(paras, *extractor.regions(root))
        assert list(tree.kinds.items()) == list(ref.kinds.items())
        assert tree.hints == ref.hints
        assert list(tree.why.items()) == list(ref.why.items())
        assert [tuple(c) for c in tree.chains] == [tuple(c) for c in ref.chains]
        weight = [len(p.text) if i % 3 else 0 for i, p in enumerate(paras)]
        assert list(tree.masses(weight).items()) == list(ref.masses(weight).items())
    return len(fast)


@pytest.mark.parametrize("name", sorted(AWKWARD))
def test_awkward_pages(name):
    compare(AWKWARD[name], get_extractor("justext-plus"))


@pytest.mark.parametrize("options", [{}, {"keep_meta": True, "outside": "justext"}, {"outside": "drop",
                                                                                     "main_share": 0.9}])
def test_random_pages(options):
    rng = random.Random(7)
    extractor = get_extractor("justext-plus", **options)
    paragraphs = sum(compare(random_page(rng), extractor) for _ in range(60))
    assert paragraphs > 500


def test_evidence_is_found():
    # the comparison is not vacuous: the compiled walk finds regions, hints and the main region
    paras = get_extractor("justext-plus").extract(Page(AWKWARD["nested semantic"], stoplist=EN))
    assert {p.features.get("region") for p in paras} >= {"nav", "aside", "footer"}
    assert any(p.features["main"] for p in paras)


def test_class_values_tokenised_as_value_mask():
    rules = jp._evidence_rules()
    rng = random.Random(3)
    alphabet = "aAzZ09-_ ./:menuNAVFooterSIDEbarcookieShare\u00e9\u0130\u212a\u017f"
    values = ["mainNav site-footer__inner", "commentList", "ABCMenu", "menuABC", "x" * 70 + "menu", "navbar",
              "NavBar", "nav2", "a1B", "", " ", "relatedPosts", "\u212aookie", "Menu\u0130"]
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(3000)]
    for v in values:
        assert rules.mask_of_value(v) == jp.value_mask(v), v


def test_namespaced_tree_falls_back_to_xpath_evidence():
    from lxml import etree
    root = etree.fromstring("<html xmlns:x='urn:x'><body><x:nav><p>" + SENTENCE + "</p></x:nav><nav class='menu'>"
                            "<p>" + SHORT + "</p></nav><div><p>" + SENTENCE + "</p><p>" + SENTENCE +
                            "</p></div></body></html>")
    ex = get_extractor("justext-plus")
    fast = ex.extract(Page("", stoplist=EN, tree=root))
    slow = ex.extract_py(Page("", stoplist=EN, tree=root))
    assert [(p.text, p.cls, p.reason, p.features) for p in fast] == [(p.text, p.cls, p.reason, p.features)
                                                                     for p in slow]


def test_development_pages(snippets_dir):
    from corpustool.language.stoplists import resolve_language
    from corpustool.errors import OptionError
    import re
    lang = re.compile(r"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z_-]+)", re.IGNORECASE)
    extractor = get_extractor("justext-plus")
    files = sorted((snippets_dir / "pages").glob("*.html"))
    paragraphs = 0
    for f in files[::3]:    # a third of the pages keeps the test under a minute
        html = decode(f.read_bytes()).text
        m = lang.search(html[:5000])
        code = "en"
        if m:
            try:
                code = resolve_language(m.group(1))
            except OptionError:
                pass
        paragraphs += compare(html, extractor, stoplist(code))
    assert paragraphs > 10000


def test_without_the_extension_the_same_paragraphs(monkeypatch):
    html = AWKWARD["nested semantic"]
    ex = get_extractor("justext-plus")
    compiled = [(p.text, p.cls, p.reason, p.features) for p in ex.extract(Page(html, stoplist=EN))]
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.python_walk())
    fallback = [(p.text, p.cls, p.reason, p.features) for p in ex.extract(Page(html, stoplist=EN))]
    assert fallback == compiled and compiled
