"""justext-plus's fast path (SAX parse into an arena) gives exactly what the lxml tree gives.

``JustextPlusExtractor.extract`` parses a page nobody has parsed yet with
lxml's libxml2 straight into the compiled walk's tree (corpustool/native/sax_arena.pxi)
instead of ``parse_html``'s lxml tree. Every paragraph field, the page title and
the walk's evidence (kinds, hints, descriptions, chains) must be the same as
on the page parsed by ``parse_html``; a page the fast path does not cover goes
to the lxml tree (counted as a fallback), so it must be the same there too.
``sax_stats()`` counts both, so the comparisons cannot pass without the fast
path running.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from corpustool.encoding import decode
from corpustool.extractors import justext_engine
from corpustool.extractors import justext_plus as jp
from corpustool.extractors.base import Page, html_bytes, parse_html
from corpustool.eval.runner import html_lang
from corpustool.extractors.registry import get_extractor
from corpustool.language.identify import page_text
from corpustool.language.stoplists import stoplist

from tests.support.markup import random_markup
from corpustool.extractors import justext_plus_structure


@pytest.fixture(autouse=True)
def _no_button_repair(monkeypatch):
    """These tests count which parse each page took; the `buttons` rule parses a repaired copy of
    an emptied page on top (its result on both paths: tests/extractors/test_justext_plus_structure.py)."""
    monkeypatch.setattr(justext_plus_structure, "RULES", justext_plus_structure.RULES - {"buttons"})

pytestmark = pytest.mark.skipif(not justext_engine.COMPILED,
                                reason=f"compiled walk not built: {justext_engine.COMPILED_ERROR}")

EN = stoplist("en")
S = ("The council met on Tuesday evening to discuss the future of the old library building in the "
     "centre of the town, which has been empty since the new one opened across the river.")
EXTRACTOR = get_extractor("justext-plus")


def fast_path_on() -> None:
    if not justext_engine.SAX_PARSE:
        # only lxml may turn it off (another libxml2 than the extension's headers, no exported
        # symbols), not an extension built before the fast path: that one needs a rebuild
        assert not justext_engine.SAX_ERROR.startswith("ImportError"), justext_engine.SAX_ERROR
        pytest.skip(f"fast path off: {justext_engine.SAX_ERROR}")


def fields(paragraphs: list) -> list:
    return [[(name, getattr(p, name)) for name in type(p).__slots__] for p in paragraphs]


def outline(el) -> tuple:
    """An lxml element as the SAX build's outline: tag, attributes, text, children with their tails."""
    return (el.tag, list(el.items()), el.text or "", [(outline(c), c.tail or "") for c in el])


def compare_trees(html: str) -> None:
    """The SAX build is lxml's tree: the same elements, attributes, texts and tails (with and without
    the ruby annotations stripped)."""
    data = html_bytes(html)
    if not data:
        return
    for strip in ((False, True) if "<rt" in html.lower() else (False,)):
        root = parse_html(html)
        built = justext_engine.sax_outline(data, strip)
        if built is None:
            continue   # given back (or no root): the tree path runs
        if strip:
            jp._strip_ruby(root)
        assert built == outline(root)


def compare(html: str, sl: frozenset[str] = EN) -> str:
    """Assert the fast path equals the tree path on html; which of them ran: "fast" or "fallback"."""
    compare_trees(html)
    pages, fallbacks = justext_engine.sax_stats()
    fast_page = Page(html, stoplist=sl)
    fast = EXTRACTOR.extract(fast_page)
    used = justext_engine.sax_stats()
    # the fast path leaves the page unparsed; a fallback parses it
    assert fast_page._tree_done == (used[1] > fallbacks)
    tree_page = Page(html, stoplist=sl)
    assert tree_page.tree is not None or not fast
    slow = EXTRACTOR.extract(tree_page)
    assert justext_engine.sax_stats() == used   # a parsed page never takes the fast path
    assert [p.text for p in fast] == [p.text for p in slow]
    assert fields(fast) == fields(slow)
    if used[0] > pages and fast_page.html.strip():
        assert "title" in fast_page.meta or tree_page.tree is None   # found without a tree to find it in
    assert EXTRACTOR.title(fast_page) == EXTRACTOR.title(tree_page)
    # the walk itself: its paragraphs and the PageTree's evidence
    root, data = parse_html(html), html_bytes(html)
    if root is not None and data:
        args = (sl, EXTRACTOR.engine.params, jp.Paragraph, justext_engine._FAST_PARAGRAPH_INIT, "good", "bad",
                jp._evidence_rules())
        ref_paras, ref = justext_engine.extract_evidence(root, *args, keep_blank_separators=jp.KEEP_BLANK_SEPARATORS)
        found = justext_engine.extract_evidence_html(data, False, *args,
                                                     keep_blank_separators=jp.KEEP_BLANK_SEPARATORS)
        if found is not None and ref is not None:
            paras, tree, _ = found
            assert fields(paras) == fields(ref_paras)
            assert list(tree.kinds.items()) == list(ref.kinds.items())
            assert list(tree.why.items()) == list(ref.why.items())
            assert tree.hints == ref.hints
            assert tree.chains == ref.chains
            assert tree.masses([len(p.text) for p in paras]) == ref.masses([len(p.text) for p in paras])
    if data:
        # the parse kept for the language guess: lxml's page text (ruby included), then the same walk
        kept = justext_engine.sax_page(data)
        if kept is not None:
            assert kept.has_root == (root is not None)
            assert kept.page_text() == page_text(root)
            found = kept.extract_evidence(sl, EXTRACTOR.engine.params, jp.Paragraph,
                                          justext_engine._FAST_PARAGRAPH_INIT, "good", "bad", jp._evidence_rules(),
                                          jp.KEEP_BLANK_SEPARATORS)
            again = justext_engine.extract_evidence_html(data, True, sl, EXTRACTOR.engine.params, jp.Paragraph,
                                                         justext_engine._FAST_PARAGRAPH_INIT, "good", "bad",
                                                         jp._evidence_rules(), jp.KEEP_BLANK_SEPARATORS)
            assert (found is None) == (again is None)
            if found is not None:
                assert fields(found[0]) == fields(again[0]) and found[2] == again[2]
    if used[0] > pages:
        return "fast"
    if used[1] > fallbacks:
        return "fallback"
    assert fast == [] and tree_page.tree is None   # nothing to parse: no paragraphs either way
    return "nothing to parse"


EDGE = {
    "empty": ("", "nothing to parse"),
    "only whitespace": ("  \n\t ", "nothing to parse"),
    "NUL bytes": ("<p>a\x00b " + S + "</p>\x00", "fast"),
    "text before html": ("lead text <html><body><p>" + S, "fast"),
    "ruby": ("<p>" + S + "<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby> tail</p>", "fast"),
    "ruby in capitals": ("<p>" + S + "<RUBY>漢<RT>kan</RT>字</RUBY> tail</p>", "fast"),
    "ruby in mixed case": ("<p>" + S + "<Ruby>漢<Rp>(</Rp><Rt>kan</Rt><Rp>)</Rp>字</Ruby> tail</p>", "fast"),
    "rp in ruby without rt": ("<p>" + S + "<ruby>漢<rp>(</rp>字<rp>)</rp></ruby> tail</p>", "fast"),
    "rp without rt": ("<p>" + S + "<rp>(</rp>x<!-- <rt -->" + "</p>", "fast"),
    "script with </": ("<script>if (a</b) document.write('</p><p>x');</script><p>" + S + "</p><style>p{}</style>",
                       "fast"),
    "unclosed tags": ("<div><p>" + S + "<p>" + S + "<ul><li>one<li>two<div><b><i>" + S, "fast"),
    "implied p and body": (S + "<p>" + S, "fast"),
    "tables": ("<table><tr><td>" + S + "<td>b<tr><th>c</table><p>" + S, "fast"),
    "nested forms": ("<form><div><form><p>" + S + "</form></form><p>" + S + "</p></div></form>", "fast"),
    "attributes without values": ("<div class id><input disabled checked><option selected>x</option><p hidden>" + S +
                                  "</p><nav hidden class>" + S + "</nav></div>", "fast"),
    "duplicate attributes": ("<div class='menu' class='content' id=a id=b><p>" + S + "</p></div>"
                             "<nav role=main role=navigation><p>" + S + "</p></nav>", "fast"),
    "entities in attributes": ("<div class='nav&amp;menu' id='a&#x20;footer' title='&lt;&gt;&quot;'><p>" + S +
                               " &amp; &copy; &nbsp;x&#0;</p></div>", "fast"),
    "namespaced tags": ("<svg:rect class='menu'>x</svg:rect><o:p>" + S + "</o:p><nav><o:p class=ad>" + S +
                        "</o:p></nav>", "fast"),
    # a candidate element the rules decide (role, hidden ...) with a tag lxml refuses: they need an
    # lxml element, the page goes to the tree
    "namespaced candidate": ("<nav><o:p hidden>" + S + "</o:p></nav>", "fallback"),
    "namespaced role": ("<x:y role=navigation>" + S + "</x:y>", "fallback"),
    "control character in a class": ("<nav class='a\x01b menu'><p>" + S + "</p></nav>", "fallback"),
    "doctype": ("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><html><head><title> A  title </title>"
                "</head><body><p>" + S, "fast"),
    "html5 doctype": ("<!doctype html><title>T &amp; x</title><p>" + S, "fast"),
    "content after html": ("<html><body><p>" + S + "</p></body></html><p>after " + S + "</p>", "fast"),
    "misplaced html and body": ("<html class=a><body class=b><p>" + S + "<html class=c><body class=nav><head>"
                                "<title>x</title></head><p>" + S, "fast"),
    "processing instructions": ("<?php echo 1; ?><p>" + S + "<?xml x?></p>", "fast"),
    "cdata": ("<p><![CDATA[x<y]]>" + S + "</p>", "fast"),
    "plaintext": ("<p>" + S + "<plaintext><p>not a tag</p>", "fast"),
    "raw text elements": ("<textarea class=comment><p>x</p></textarea><noscript><p>" + S + "</p></noscript>"
                          "<template><p>" + S + "</p></template><xmp><b>" + S + "</xmp>", "fast"),
    "line ends": ("<p>a\r\nb\rc " + S + "</p>", "fast"),
    "lone surrogate": ("<p>\ud800 " + S + "</p>", "fast"),
    "title elsewhere": ("<body><svg><title>Icon</title></svg><p>" + S + "</p><title>late</title>", "fast"),
    "empty title": ("<title></title><p>" + S, "fast"),
    "style sheet links": ("<link rel=stylesheet href=x>tail1<link rel='StyleSheet alternate'>tail2<link rel=icon>"
                          "tail3<link>t<p>" + S, "fast"),
    "framework attributes": ("<nav @click='x' :class='y' class='menu'><p>" + S + "</p></nav>"
                             "<div v-if='a' role=navigation><p>" + S, "fast"),
    "deeper than libxml2's node stack": ("<div>" * 300 + "<p>" + S, "fallback"),
    "xml declaration only": ("<?xml version='1.0'?>", "nothing to parse"),
    "comment only": ("<!-- x -->", "fast"),
    "comment inside text": ("<p>" + S + "<!-- c -->more text " + S + "</p>", "fast"),
    "upper-case markup": ("<DIV CLASS=Menu><P>" + S + "</P></DIV><P ID=footer>" + S, "fast"),
}


@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_cases(name, monkeypatch):
    fast_path_on()
    # fresh evidence rules: their cache of decisions, filled by pages earlier tests walked, may
    # answer for an element the walk would otherwise hand to lxml (the path, not the result)
    monkeypatch.setattr(jp, "_EVIDENCE_RULES", None)
    html, path = EDGE[name]
    assert compare(html) == path


def test_paragraphs_and_title_found():
    """Not vacuous: the fast path finds the text and the title (from <head>, not the later <title>)."""
    fast_path_on()
    page = Page("<html><head><title> The  Town\nNews </title></head><body><nav><a href=/>Home</a></nav>"
                "<article><h1>Library to reopen</h1><p>" + S + "</p><p>" + S + "</p></article>"
                "<svg><title>icon</title></svg></body></html>", stoplist=EN)
    pages = justext_engine.sax_stats()[0]
    paras = EXTRACTOR.extract(page)
    assert justext_engine.sax_stats()[0] == pages + 1
    assert page.meta["title"] == "The Town News"
    assert [p.text for p in paras if p.is_good] == ["Library to reopen", S, S]
    assert [p.text for p in paras if not p.is_good] == ["Home", "icon"]


def test_large_page():
    fast_path_on()
    rng = random.Random(5)
    blocks = []
    size = 0
    while size < 5_000_000:
        block = (f"<div class='{rng.choice(['post', 'menu', 'sidebar', 'content'])}'><h2>Part {len(blocks)}</h2>"
                 f"<p>{S}</p><ul><li><a href=/{len(blocks)}>Link</a></li></ul></div>")
        blocks.append(block)
        size += len(block)
    assert compare("<html><head><title>Big</title></head><body>" + "".join(blocks) + "</body></html>") == "fast"


def test_text_run_past_libxml2s_limit():
    """libxml2 stops at a text run over 10 MB (XML_MAX_TEXT_LENGTH): the same in both paths (the fast
    path gives a page whose text run nears the limit to lxml's tree, should the parser let one through)."""
    fast_path_on()
    html = "<p>" + S + "</p><div>" + "word " * 2_100_000 + "</div><p>After the long text.</p>"
    assert compare(html) in ("fast", "fallback")
    assert [p.text for p in EXTRACTOR.extract(Page(html, stoplist=EN))] == [S]


TAGS = ["div", "div", "p", "span", "a", "a", "nav", "aside", "footer", "header", "form", "article", "main", "ul",
        "li", "table", "tr", "td", "th", "h1", "h2", "br", "br", "img", "image", "script", "style", "select",
        "option", "input", "button", "textarea", "iframe", "object", "ruby", "rt", "rp", "b", "i", "title", "head",
        "body", "html", "link", "time", "pre", "blockquote", "svg:rect", "o:p", "font", "center", "dl", "dt",
        "dd", "noscript", "template", "section", "embed", "param", "plaintext"]
VOID = {"br", "img", "image", "input", "link", "embed", "param"}
TEXTS = [S, S, "Read more", "Posted on 12 March 2024", "\u00a9 2024 Site", "a &amp; b &copy; &#169; &#x41;",
         "x < y", "</", "a\x00b", "line\r\nend", "  ", "\n", "&nbsp;", "漢字", "&notanentity;", "<!-- c -->",
         "<![CDATA[z]]>", "<?pi x?>", "</p>", "</html>", "<html class=menu>", "<body id=footer>", "\ud800"]
CLASSES = ["", "menu", "sidebar", "footer", "share-buttons", "content", "post", "commentList", "navBar",
           "cookie-notice", "ad", "a&amp;b", "x\x01menu", "\u0130nfo"]


def random_attrs(rng: random.Random, tag: str) -> str:
    out = []
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        r = rng.random()
        if r < 0.3:
            out.append(f"class='{rng.choice(CLASSES)}'")
        elif r < 0.45:
            out.append(f"id={rng.choice(CLASSES)!r}")
        elif r < 0.55:
            out.append(f"role={rng.choice(['main', 'navigation', 'Main', 'none', ''])}")
        elif r < 0.6:
            out.append(rng.choice(["hidden", "style='display:none'", "style='margin:0'", "style=\"VISIBILITY: hidden\""]))
        elif r < 0.65:
            out.append(f"itemprop={rng.choice(['articleBody', 'author', 'name'])}")
        elif r < 0.72:
            out.append(f"rel={rng.choice(['stylesheet', 'icon', 'StyleSheet'])}")
        elif r < 0.8:
            out.append(rng.choice(["selected", "checked", "disabled", "nowrap", "data-x", "@click='go'", ":class=a"]))
        else:
            out.append(f"title='{rng.choice(TEXTS)}'")
    return (" " + " ".join(out)) if out else ""


def test_random_markup():
    fast_path_on()
    counts: Counter[str] = Counter()
    for seed in range(400):
        rng = random.Random(seed)
        html = random_markup(rng, TAGS, TEXTS, VOID, items=(1, 6), max_depth=7, close=0.7, attrs=random_attrs)
        if rng.random() < 0.5:
            html = "<html><head><title>" + rng.choice(TEXTS) + "</title></head><body>" + html
        counts[compare(html)] += 1
    assert counts["fast"] > 350, counts


def test_random_pages_of_the_evidence_tests():
    fast_path_on()
    from tests.native.test_justext_plus_fast import random_page

    for seed in range(60):
        assert compare(random_page(random.Random(seed))) == "fast"


def test_threads():
    """Pages extracted by several threads at once (the walk runs Python code, where threads switch):
    each gets its own tree, the same paragraphs as one at a time."""
    fast_path_on()
    from concurrent.futures import ThreadPoolExecutor
    from tests.native.test_justext_plus_fast import random_page

    htmls = [random_page(random.Random(seed)) for seed in range(80)]
    alone = [fields(EXTRACTOR.extract(Page(h, stoplist=EN))) for h in htmls]
    pages = justext_engine.sax_stats()[0]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda h: fields(EXTRACTOR.extract(Page(h, stoplist=EN))), htmls * 3))
    assert justext_engine.sax_stats()[0] == pages + 3 * len(htmls)
    assert together == alone * 3


def test_development_pages(snippets_dir):
    """Every dev page, with the stoplist of its language: the same paragraphs, field for field."""
    fast_path_on()
    files = sorted((snippets_dir / "pages").glob("*.html"))
    assert files
    counts: Counter[str] = Counter()
    for f in files:
        html = decode(f.read_bytes()).text
        counts[compare(html, stoplist(html_lang(html) or "en"))] += 1   # (no stoplist: English's)
    assert counts["fast"] >= 0.99 * len(files), counts


def test_off_without_the_compiled_walk(monkeypatch):
    """The tests that turn the extension off (COMPILED False) turn the fast path off with it."""
    fast_path_on()
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.python_walk())
    stats = justext_engine.sax_stats()
    page = Page("<p>" + S + "</p>", stoplist=EN)
    assert [p.text for p in EXTRACTOR.extract(page)] == [S]
    assert justext_engine.sax_stats() == stats and page._tree_done


# -- the clean stage: a one-language build leaves the parse to justext-plus ---------------------

def clean_outcomes(raws: list[bytes], languages: list[str]) -> list[tuple]:
    from corpustool.document import Document
    from corpustool.extractors.clean import Clean

    stage = Clean(extractor="justext-plus", languages=languages)
    out = []
    for i, raw in enumerate(raws):
        doc = stage.process(Document(id=str(i), raw=raw))
        out.append((doc.drop_reason, doc.title, doc.stoplist_lang, doc.lang, doc.meta.get("stoplist_density"),
                    [(p.text, p.cls, p.reason, list(p.features.items())) for p in doc.paragraphs]))
    return out


EDGE_RAWS = [b"", b"   \n", b"<html></html>", b"<!-- only a comment -->", b"<?xml version='1.0'?>",
             b"plain text without markup, long enough to be a sentence of its own here.",
             ("<html><head><title>T</title></head><body><p>" + S + "</p></body></html>").encode(),
             ("<p>" + S + "</p>" + "<p>menu</p>" * 5).encode()]


def test_one_language_clean_stage_parses_through_the_fast_path(monkeypatch):
    fast_path_on()
    before = justext_engine.sax_stats()[0]
    fast = clean_outcomes(EDGE_RAWS, ["en"])
    assert justext_engine.sax_stats()[0] > before       # the fast path ran
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    assert fast == clean_outcomes(EDGE_RAWS, ["en"])
    assert [r[0] for r in fast][:2] == ["empty", "empty"]      # nothing to parse
    assert fast[6][0] is None and fast[6][1] == "T"             # kept, with its title


def test_one_language_clean_stage_on_the_development_pages(snippets_dir, monkeypatch):
    fast_path_on()
    raws = [p.read_bytes() for p in sorted((snippets_dir / "pages").glob("*.html"))[::4]]
    fast = clean_outcomes(raws, ["de"])
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    assert fast == clean_outcomes(raws, ["de"])


# -- the clean stage guessing the language: one SAX parse for the guess and the walk -------------

RUBY_RAW = ("<html><body><p>" + S + "<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby> tail</p>"
            "<p>" + S + "</p></body></html>").encode()


@pytest.mark.parametrize("languages", [["auto"], ["en", "de", "cs"]])
def test_guessing_clean_stage_parses_once_through_the_fast_path(monkeypatch, languages):
    fast_path_on()
    raws = EDGE_RAWS + [RUBY_RAW]
    before = justext_engine.sax_stats()[0]
    fast = clean_outcomes(raws, languages)
    assert justext_engine.sax_stats()[0] >= before + 4       # the kept parses were walked
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    assert fast == clean_outcomes(raws, languages)
    assert [r[0] for r in fast][:2] == ["empty", "empty"]
    assert fast[6][:3] == (None, "T", "en")
    assert "kan" not in " ".join(text for text, *_ in fast[-1][5])      # the walk strips the ruby


def test_guessing_clean_stage_on_the_development_pages(snippets_dir, monkeypatch):
    fast_path_on()
    raws = [p.read_bytes() for p in sorted((snippets_dir / "pages").glob("*.html"))[1::4]]
    before = justext_engine.sax_stats()[0]
    fast = clean_outcomes(raws, ["auto"])
    assert justext_engine.sax_stats()[0] >= before + 0.95 * len(raws)
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    assert fast == clean_outcomes(raws, ["auto"])


def test_elements_decided_alike_keep_their_own_descriptions():
    """The walk remembers the rules' decision for elements alike in what the rules read (tag, role,
    itemprop, hidden, a hiding style, the kinds of the class and id values), not for equal values:
    each region still names its own element, and a different kind is decided anew."""
    fast_path_on()
    html = ("<html><body><div role=navigation class='menu top'><p>" + S + "</p></div>"
            "<div role=navigation class='menu bottom' id=n2><p>Second " + S + "</p></div>"
            "<div role=note class='share x'><p>Third " + S + "</p></div>"
            "<div role=note class='cookie x'><p>Fourth " + S + "</p></div>"
            "<div style='display:none' class='menu top'><p>Fifth " + S + "</p></div>"
            "<article><p>" + S + "</p><p>" + S + "</p><p>" + S + "</p></article></body></html>")
    assert compare(html) == "fast"
    paras = EXTRACTOR.extract(Page(html, stoplist=EN))
    regions = [(p.features.get("region"), p.features.get("region_element")) for p in paras[:5]]
    assert regions == [("nav", "div.menu top#"), ("nav", "div.menu bottom#n2"), ("share", "div.share x#"),
                       ("cookie", "div.cookie x#"), ("hidden", "div.menu top#")]
