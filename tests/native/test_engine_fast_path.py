"""The classic jusText engine's fast path (SAX parse into the arena tree) gives exactly what lxml's tree gives.

``JustextEngineExtractor.extract`` parses a page nobody has parsed yet with the
lxml's libxml2 (its HTML parser's SAX calls) straight into the compiled walk's
tree (corpustool/native/sax_arena.pxi: ``extract_html``) instead of ``parse_html``'s
lxml tree. Every paragraph field, in order, and the page title the clean stage
records must be the same as on the page parsed by ``parse_html``; a page the
fast path gives back goes to lxml's tree. Unlike justext-plus the engine keeps
ruby annotations (its tree path does not strip them). ``sax_stats()`` counts
the fast path's pages, so the comparisons cannot pass with the path off.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from corpustool.encoding import decode
from corpustool.eval.runner import html_lang
from corpustool.extractors import justext_engine
from corpustool.extractors.base import Page, html_bytes, parse_html
from corpustool.extractors.registry import get_extractor
from corpustool.language.identify import page_text
from corpustool.language.stoplists import stoplist

from tests.support.markup import random_markup
from tests.native.test_backend_parity import EDGE as fp_EDGE
from tests.native.test_backend_parity import EN, S, fast_path_on, fields
from tests.support.paths import DEMO_WARC

pytestmark = pytest.mark.skipif(not justext_engine.COMPILED,
                                reason=f"compiled walk not built: {justext_engine.COMPILED_ERROR}")

ENGINE = get_extractor("justext")


def compare(html: str, sl: frozenset[str] = EN, extractor=ENGINE) -> str:
    """Assert the fast path equals the tree path on html; which of them ran: "fast", "fallback" or
    "nothing to parse"."""
    pages, fallbacks = justext_engine.sax_stats()
    fast_page = Page(html, stoplist=sl)
    fast = extractor.extract(fast_page)
    used = justext_engine.sax_stats()
    # the fast path leaves the page unparsed; a fallback parses it
    assert fast_page._tree_done == (used[1] > fallbacks)
    tree_page = Page(html, stoplist=sl)
    tree_page.tree
    slow = extractor.extract(tree_page)
    assert justext_engine.sax_stats() == used   # a parsed page never takes the fast path
    assert [p.text for p in fast] == [p.text for p in slow]
    assert fields(fast) == fields(slow)
    if used[0] > pages and tree_page.tree is not None:
        assert "title" in fast_page.meta   # found without a tree to find it in
    assert extractor.title(fast_page) == extractor.title(tree_page)
    data = html_bytes(html)
    if data:
        # the parse kept for a language guess: lxml's page text, then the same walk
        kept = justext_engine.sax_page(data)
        if kept is not None:
            root = parse_html(html)
            assert kept.has_root == (root is not None)
            assert kept.page_text() == page_text(root)
            again = kept.extract(sl, extractor.params, justext_engine.Paragraph, justext_engine._FAST_PARAGRAPH_INIT,
                                 "good", "bad")
            if root is None:
                assert again == ([], False, None)
            else:
                assert fields(again[0]) == fields(slow)
    if used[0] > pages:
        return "fast"
    if used[1] > fallbacks:
        return "fallback"
    assert fast == [] and tree_page.tree is None   # nothing to parse: no paragraphs either way
    return "nothing to parse"


RUBY = "<p>" + S + "<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby> tail</p>"

# the engine's own edge pages; justext-plus's (test_fast_parse.EDGE) are added below, with the
# path the engine takes
OWN_EDGE = {
    "comments only": ("<!-- x --> \n <!-- y -->", "fast"),
    "text only": ("plain text without markup, long enough to be a sentence of its own here.", "fast"),
    "text only, one word": ("word", "fast"),
    "empty html": ("<html></html>", "fast"),
    "empty body": ("<html><head><title>Only a title</title></head><body></body></html>", "fast"),
    "script only": ("<html><head><script>x</script></head><body></body></html>", "fast"),
    "ruby in a title": ("<title>漢<rt>kan</rt>字</title><p>" + S, "fast"),
    "script in a title": ("<title>a<script>b</script>c</title><p>" + S, "fast"),
    "blank separators": ("<p><b>one</b> <i>two</i> <a href=x>three</a>\n<a>four</a></p>", "fast"),
    "br runs": ("<p>a<br>b<br><br>c<br> <br>d</p><div>x<br/><br/>y</div>", "fast"),
    "select and copyright": ("<select><option>" + S + "</option></select><p>\u00a9 " + S + "</p><p>&copy " + S,
                             "fast"),
    "killed and unwrapped": ("<p>a<button>b</button>c<iframe>d</iframe>e<object><p>f</p></object>g"
                             "<image src=x>h<input>i</p>", "fast"),
    "namespaced role": ("<x:y role=navigation>" + S + "</x:y><nav><o:p hidden>" + S + "</o:p></nav>", "fast"),
    "line ends": ("<p>a\r\nb\rc " + S + "</p><pre>x\n  y\r\n z</pre>", "fast"),
    "blank title": ("<title>  \n </title><p>" + S, "fast"),
    "charset declaration": ("<html><head><meta charset='iso-8859-2'><title>x</title></head><body>"
                            "<p>Příliš žluťoučký kůň úpěl ďábelské ódy. " + S + "</p><!-- c --><p>b</p>", "fast"),
}
# (the pages justext-plus gives to lxml's tree for an element its rules must see: the engine's fast path)
RULES_FALLBACKS = {"namespaced candidate", "namespaced role", "control character in a class"}
EDGE = {**{name: (html, "fast" if name in RULES_FALLBACKS else path) for name, (html, path) in fp_EDGE.items()},
        **OWN_EDGE}


@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_cases(name):
    fast_path_on()
    html, path = EDGE[name]
    assert compare(html) == path


def test_the_fast_path_finds_paragraphs_and_title():
    """Not vacuous: the fast path ran (counted), found the text, the title from <head> and kept the ruby."""
    fast_path_on()
    page = Page("<html><head><title> The  Town\nNews </title></head><body><nav><a href=/>Home</a></nav>"
                "<h1>Library to reopen</h1><p>" + S + " " + S + "</p>" + RUBY + "<svg><title>icon</title></svg>"
                "</body></html>",
                stoplist=EN)
    pages = justext_engine.sax_stats()[0]
    paras = ENGINE.extract(page)
    assert justext_engine.sax_stats()[0] == pages + 1
    assert not page._tree_done             # no lxml tree was built
    assert page.meta["title"] == "The Town News"
    assert [p.text for p in paras] == ["Home", "Library to reopen", S + " " + S, S + "漢(kan)字ji tail", "icon"]
    assert [p.cls for p in paras] == ["bad", "good", "good", "good", "bad"]


def test_ruby_pages():
    """The engine keeps ruby annotations on both paths (justext-plus strips them)."""
    fast_path_on()
    for html in (RUBY, "<html><body>" + RUBY * 3 + "<p>漢<rt>kan</rt>字<rp>(</rp>x</p></body></html>",
                 "<ruby>東<rt>とう</rt>京<rt>きょう</rt></ruby>" + "<p>" + S):
        assert compare(html) == "fast"
        assert "kan" in " ".join(p.text for p in ENGINE.extract(Page(html, stoplist=EN))) or "kan" not in html


def test_options_and_stoplists():
    """Presets, the token length unit, no headings and the language-independent mode give the same on both paths."""
    fast_path_on()
    html = ("<html><body><h2>Short heading</h2><p>" + S + "</p><ul><li><a href=a>one link</a></li>"
            "<li>Posted 12 March</li></ul><h3>Another</h3><p>Die Straße ist lang und der Hund bellt.</p>"
            "<p>" + S + " " + S + "</p></body></html>")
    for options in ({}, {"preset": "B"}, {"preset": "D"}, {"length_unit": "tokens"}, {"no_headings": True}):
        ex = get_extractor("justext", **options)
        for sl in (EN, stoplist("de"), frozenset()):
            assert compare(html, sl, ex) == "fast"
    page = Page(html, stoplist=frozenset())
    page.meta["language_independent"] = True
    fast = ENGINE.extract(page)
    tree_page = Page(html, stoplist=frozenset())
    tree_page.meta["language_independent"] = True
    tree_page.tree
    assert fields(fast) == fields(ENGINE.extract(tree_page))


TAGS = ["div", "div", "p", "p", "span", "a", "a", "nav", "aside", "footer", "header", "form", "article", "ul",
        "li", "table", "tr", "td", "th", "h1", "h2", "h3", "br", "br", "br", "img", "image", "script", "style",
        "select", "option", "input", "button", "textarea", "iframe", "object", "embed", "param", "ruby", "rt", "rp",
        "b", "i", "title", "head", "body", "html", "link", "base", "pre", "blockquote", "svg:rect", "o:p", "font",
        "center", "dl", "dt", "dd", "noscript", "template", "section", "plaintext", "xmp", "applet", "layer"]
VOID = {"br", "img", "image", "input", "link", "embed", "param", "base"}
TEXTS = [S, S, "Read more", "the of and", "Posted on 12 March 2024", "\u00a9 2024 Site",
         "a &amp; b &copy; &#169; &#x41;", "x < y", "</", "a\x00b", "line\r\nend", "  ", "\n", " \n ", "\u00a0",
         "&nbsp;", "漢字", "&notanentity;", "<!-- c -->", "<![CDATA[z]]>", "<?pi x?>", "</p>", "</html>",
         "<html class=menu>", "<body id=footer>", "\ud800", "a  b\tc", "ÄÖÜ straße"]
CLASSES = ["", "menu", "content", "a&amp;b", "x\x01menu"]


def random_attrs(rng: random.Random, tag: str) -> str:
    out = []
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        r = rng.random()
        if r < 0.4:
            out.append(f"class='{rng.choice(CLASSES)}'")
        elif r < 0.6:
            out.append(f"rel={rng.choice(['stylesheet', 'icon', 'StyleSheet', 'x stylesheet'])}")
        elif r < 0.8:
            out.append(rng.choice(["selected", "checked", "hidden", "data-x", "@click='go'"]))
        else:
            out.append(f"title='{rng.choice(TEXTS)}'")
    return (" " + " ".join(out)) if out else ""


def test_generated_markup():
    """Thousands of seeded random pages (nested, unclosed, odd tags and texts): the same on both paths."""
    fast_path_on()
    counts: Counter[str] = Counter()
    for seed in range(5000):
        rng = random.Random(seed)
        html = random_markup(rng, TAGS, TEXTS, VOID, items=(0, 6), max_depth=7, close=rng.choice((0.6, 0.9)),
                             attrs=random_attrs)
        if rng.random() < 0.4:
            html = "<html><head><title>" + rng.choice(TEXTS) + "</title></head><body>" + html
        counts[compare(html, rng.choice((EN, stoplist("de"), frozenset())))] += 1
    assert counts["fast"] > 0.85 * sum(counts.values()), counts   # (the others: empty markup)


def test_generated_pages_of_the_evidence_tests():
    fast_path_on()
    from tests.native.test_justext_plus_fast import random_page

    for seed in range(60):
        assert compare(random_page(random.Random(seed))) == "fast"


def test_development_pages(snippets_dir):
    """Every dev page, with the stoplist of its language: the same paragraphs, field for field, and title."""
    fast_path_on()
    files = sorted((snippets_dir / "pages").glob("*.html"))
    assert files
    counts: Counter[str] = Counter()
    for f in files:
        html = decode(f.read_bytes()).text
        counts[compare(html, stoplist(html_lang(html) or "en"))] += 1   # (no stoplist: English's)
    assert counts["fast"] >= 0.99 * len(files), counts


def test_off_without_the_compiled_walk(monkeypatch):
    """The pure-Python walk turns the fast path off with it; the compiled walk without its parse too."""
    fast_path_on()
    for walk in (justext_engine.python_walk(), justext_engine.walk_without_parse()):
        with monkeypatch.context() as m:
            m.setattr(justext_engine, "WALK", walk)
            stats = justext_engine.sax_stats()
            page = Page("<p>" + S + "</p>", stoplist=EN)
            assert [p.text for p in ENGINE.extract(page)] == [S]
            assert justext_engine.sax_stats() == stats and page._tree_done
            assert ENGINE.parse_unparsed(Page("<p>" + S + "</p>")) is None


def test_a_parsed_page_is_walked_as_it_is():
    fast_path_on()
    page = Page("<p>" + S + "</p>", stoplist=EN)
    page.tree
    stats = justext_engine.sax_stats()
    assert ENGINE.parse_unparsed(page) is None
    assert [p.text for p in ENGINE.extract(page)] == [S]
    assert justext_engine.sax_stats() == stats


# -- the clean stage with --extractor justext ----------------------------------------------------

def clean_outcomes(raws: list[bytes], languages: list[str]) -> list[tuple]:
    from corpustool.document import Document
    from corpustool.extractors.clean import Clean

    stage = Clean(extractor="justext", languages=languages)
    out = []
    for i, raw in enumerate(raws):
        doc = stage.process(Document(id=str(i), raw=raw))
        out.append((doc.drop_reason, doc.title, doc.stoplist_lang, doc.lang, doc.meta.get("stoplist_density"),
                    [(p.text, p.cls, p.cf_class, p.reason, p.xpath, list(p.features.items()))
                     for p in doc.paragraphs]))
    return out


S2 = S + " " + S     # long enough for jusText to keep it without a good neighbour
EDGE_RAWS = [b"", b"   \n", b"<html></html>", b"<!-- only a comment -->", b"<?xml version='1.0'?>",
             b"plain text without markup, long enough to be a sentence of its own here.",
             ("<html><head><title>T</title></head><body><p>" + S2 + "</p></body></html>").encode(),
             ("<p>" + S2 + "</p>" + "<p>menu</p>" * 5).encode(),
             ("<html><body>" + RUBY + "<p>" + S2 + "</p></body></html>").encode()]


def test_one_language_clean_stage_parses_through_the_fast_path(monkeypatch):
    fast_path_on()
    before = justext_engine.sax_stats()[0]
    fast = clean_outcomes(EDGE_RAWS, ["en"])
    assert justext_engine.sax_stats()[0] >= before + 5       # the fast path ran
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    slow = clean_outcomes(EDGE_RAWS, ["en"])
    assert fast == slow
    assert [r[0] for r in fast][:2] == ["empty", "empty"]      # nothing to parse
    assert fast[6][0] is None and fast[6][1] == "T"             # kept, with its title
    assert "kan" in " ".join(text for text, *_ in fast[-1][5])   # the engine keeps the ruby


@pytest.mark.parametrize("languages", [["auto"], ["en", "de", "cs"]])
def test_guessing_clean_stage_parses_once_through_the_fast_path(monkeypatch, languages):
    fast_path_on()
    before = justext_engine.sax_stats()[0]
    fast = clean_outcomes(EDGE_RAWS, languages)
    assert justext_engine.sax_stats()[0] >= before + 4       # the kept parses were walked
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    assert fast == clean_outcomes(EDGE_RAWS, languages)
    assert [r[0] for r in fast][:2] == ["empty", "empty"]
    assert fast[6][:3] == (None, "T", "en")


def test_clean_stage_never_builds_a_tree_for_the_title(monkeypatch):
    """A page with paragraphs goes through the clean stage without lxml's tree (title included)."""
    fast_path_on()
    from corpustool.extractors import base

    def no_tree(html):
        raise AssertionError("lxml's tree was built")

    monkeypatch.setattr(base, "parse_html", no_tree)
    out = clean_outcomes([EDGE_RAWS[6], EDGE_RAWS[8]], ["en"]) + clean_outcomes([EDGE_RAWS[6]], ["auto"])
    assert [r[:2] for r in out] == [(None, "T"), (None, None), (None, "T")]


def test_clean_stage_on_the_demo_crawl(monkeypatch):
    """The demo crawl through the clean stage with --extractor justext: the same documents either way."""
    fast_path_on()

    from corpustool.readers import html_pages

    warc = DEMO_WARC
    if not warc.is_file():
        pytest.skip("data/demo/crawl.warc.gz is not present")
    raws = [raw for _, raw in html_pages(str(warc), limit=200)]
    assert raws
    before = justext_engine.sax_stats()[0]
    fast = {lang: clean_outcomes(raws, [lang]) for lang in ("en", "auto")}
    assert justext_engine.sax_stats()[0] >= before + len(raws)
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    for lang, outcomes in fast.items():
        assert outcomes == clean_outcomes(raws, [lang])


@pytest.mark.parametrize("languages", [["de"], ["auto"]])
def test_clean_stage_on_the_development_pages(snippets_dir, monkeypatch, languages):
    fast_path_on()
    raws = [p.read_bytes() for p in sorted((snippets_dir / "pages").glob("*.html"))[::3]]
    before = justext_engine.sax_stats()[0]
    fast = clean_outcomes(raws, languages)
    assert justext_engine.sax_stats()[0] >= before + 0.95 * len(raws)
    monkeypatch.setattr(justext_engine, "WALK", justext_engine.walk_without_parse())
    assert fast == clean_outcomes(raws, languages)
