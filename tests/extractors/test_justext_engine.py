"""Our jusText engine ("justext") against hand-written pages and against the justext package.

The package (registered as "justext-package") is the reference: on every
hand-written page both must produce the same paragraphs, classes and
features; on the development pages (../shared/data/snippets, skipped when
absent) the issue's thresholds apply.
"""
from __future__ import annotations

import time

import pytest

from corpustool.document import Document
from corpustool.encoding import decode
from corpustool.errors import OptionError
from corpustool.extractors.base import Page
from corpustool.extractors.clean import DEFAULT_EXTRACTOR, Clean
from corpustool.extractors.registry import get_extractor
from corpustool.language.stoplists import resolve_language, stoplist
from tests.support.markup import random_markup

EN = stoplist("en")

GOOD_TEXT = ("This is a long paragraph of ordinary English prose that is written in the way people "
             "write when they have something to say, and it is there to be kept by the classifier because "
             "it has many of the words that are on the stop list.")
GOOD_TEXT_2 = ("Another paragraph follows here and it is also long enough to be good, with a lot of the "
               "small words that the English stop list has in it, so that its density is high enough for "
               "the classifier to keep it as it is.")
LOW_STOP = ("Kitchen appliances refrigerators dishwashers microwaves blenders toasters kettles ovens "
            "Cookware pans pots knives cutting boards utensils storage containers baking sheets")


def run(html: str, extractor: str = "justext", stop=EN, **options):
    page = Page(html, stoplist=stop)
    return get_extractor(extractor, **options).extract(page)


def both(html: str, stop=EN, **options):
    """Our paragraphs and the package's on the same Page (the page's tree parsed once)."""
    page = Page(html, stoplist=stop)
    page.tree
    ours = get_extractor("justext", **options).extract(page)
    ref = get_extractor("justext-package", **options).extract(page)
    return ours, ref


def as_rows(paragraphs):
    return [(p.text, p.cls, p.cf_class, p.heading, p.tag, p.dom_path, p.xpath, p.reason, p.features)
            for p in paragraphs]


def body(inner: str) -> str:
    return f"<html><head><title>T</title></head><body>{inner}</body></html>"


# -- hand-written pages: same as the package, and the behaviour we expect ------

PAGES = {
    "article": body(f"<div><ul><li><a href='/'>Home</a></li><li><a href='/n'>News</a></li></ul></div>"
                    f"<h1>A heading</h1><p>{GOOD_TEXT}</p><p>Short one.</p><p>{GOOD_TEXT_2}</p>"
                    f"<div id='f'>&copy; 2024 Someone. All rights reserved.</div>"),
    "glue": body("<p><b>one</b> <i>two</i> three<br>four<br><br>five</p>"),
    "cleaner": body("<div>before<script>var x = 1;</script>after<!-- a comment -->glued<style>p{}</style>"
                    "<form action='/s'>form text<input name='q'><select><option>opt</option></select>"
                    "<textarea>typed</textarea><button>Go</button></form> end</div>"
                    "<object><param name='a' value='b'>fallback text</object><iframe>frame text</iframe>"),
    "links": body(f"<p>{GOOD_TEXT} <a href='x'>a link   with\n spaces</a> and more.</p>"
                  "<p><a href='1'>link one</a> <a href='2'>link two</a> text</p>"),
    "headings": body(f"<div><h2>Chapter heading</h2></div><p>{GOOD_TEXT}</p>"
                     f"<h3>Lonely heading</h3><p>{LOW_STOP}</p>"),
    "newlines": body("<pre>line one\n   line two\r\n\n  line three</pre><p>a\u00a0\u00a0b \t c</p>"),
    "image": body("<div><image src='x'></image><image src='y'></image><img src='z'>"
                  "<span><div>inside</div></span><span><div>second</div></span></div>"),
    "edges": body(f"<p>Short start.</p><p>{GOOD_TEXT}</p><p>Short end.</p>"),
    "empty-bits": body("<div><br></div><p> </p><div>\u00a0</div><p>x</p>"),
    "select-path": body("<selectmenu><div>text in a custom element</div></selectmenu>"),
    "nested-unwrap": body("<div>a<form><div>in form</div><form>inner</form></form><div>after</div></div>"),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_same_as_package_on_hand_written_pages(name):
    ours, ref = both(PAGES[name])
    assert as_rows(ours) == as_rows(ref)


@pytest.mark.parametrize("preset", ["A", "B", "C", "D"])
def test_same_as_package_with_token_presets(preset):
    for html in PAGES.values():
        ours, ref = both(html, preset=preset)
        assert as_rows(ours) == as_rows(ref)


def test_context_free_and_final_classes_of_an_article():
    paragraphs = run(PAGES["article"])
    by_text = {p.text: p for p in paragraphs}
    assert by_text["Home"].cf_class == "bad"           # all link text
    assert by_text[GOOD_TEXT].cf_class == "good"
    assert by_text["Short one."].cf_class == "short"
    assert by_text["Short one."].cls == "good"          # between two good paragraphs
    assert by_text["© 2024 Someone. All rights reserved."].cf_class == "bad"   # the copyright sign
    assert by_text["A heading"].heading
    assert by_text["A heading"].cls == "good"           # heading rule: a good paragraph follows
    assert by_text["Home"].reason == "boilerplate"
    good = [p.text for p in paragraphs if p.is_good]
    assert good == ["A heading", GOOD_TEXT, "Short one.", GOOD_TEXT_2]


def test_features_and_paths():
    paragraphs = run(PAGES["links"])
    p = paragraphs[0]
    assert p.tag == "p" and p.dom_path == "html.body.p" and p.xpath == "/html[1]/body[1]/p[1]"
    # link characters are counted after whitespace normalisation: "a link with\nspaces"
    assert p.features["chars"] == len(p.text)
    assert p.features["link_density"] == round(len("a link with\nspaces") / len(p.text), 4)
    assert p.features["words"] == len(p.text.split())
    assert 0 < p.features["stopword_density"] <= 1
    assert paragraphs[1].xpath == "/html[1]/body[1]/p[2]"


def test_segmentation_quirks_of_the_package():
    texts = [p.text for p in run(PAGES["glue"])]
    # whitespace-only text between inline elements is dropped ("onetwo"),
    # one <br> is a space, two split the paragraph
    assert texts == ["onetwo three four", "five"]


def test_cleaner_rules():
    texts = [p.text for p in run(PAGES["cleaner"])]
    # killed: script, style, comments, form controls; unwrapped: form, object,
    # param, iframe (their text stays, and <form> no longer splits paragraphs
    # although it is a paragraph tag); the text around removed nodes is glued
    assert texts == ["beforeaftergluedform text end", "fallback textframe text"]


def test_newlines_are_kept_like_the_package():
    texts = [p.text for p in run(PAGES["newlines"])]
    assert texts == ["line one\nline two\nline three", "a b c"]


def test_image_is_img_and_positions_count_same_tag_siblings():
    paragraphs = run(PAGES["image"])
    assert [p.xpath for p in paragraphs] == ["/html[1]/body[1]/div[1]/span[1]/div[1]",
                                            "/html[1]/body[1]/div[1]/span[2]/div[1]"]


def test_select_in_dom_path_is_bad():
    [p] = run(PAGES["select-path"])
    assert p.dom_path == "html.body.selectmenu.div" and p.cf_class == "bad"


def test_blocks_without_text_are_no_paragraphs():
    assert [p.text for p in run(PAGES["empty-bits"])] == ["x"]


def test_edges_of_the_document_count_as_bad():
    paragraphs = run(PAGES["edges"])
    assert [(p.text, p.cf_class, p.cls) for p in paragraphs] == [
        ("Short start.", "short", "bad"),   # edge (bad) on the left, good on the right
        (GOOD_TEXT, "good", "good"),
        ("Short end.", "short", "bad"),
    ]


def test_short_next_to_neargood_on_the_bad_side_is_good():
    neargood = "It is the one that was there for a while and it is on the list of them all."
    html = body(f"<p>{LOW_STOP}</p><p>{neargood}</p><p>Tiny.</p><p>{GOOD_TEXT}</p>")
    paragraphs = run(html)
    classes = {p.text: (p.cf_class, p.cls) for p in paragraphs}
    assert classes[neargood][0] == "neargood"
    assert classes["Tiny."] == ("short", "good")
    ours, ref = both(html)
    assert as_rows(ours) == as_rows(ref)


def test_headings_rule_and_no_headings():
    paragraphs = run(PAGES["headings"])
    classes = {p.text: (p.heading, p.cf_class, p.cls) for p in paragraphs}
    assert classes["Chapter heading"] == (True, "short", "good")     # good text within 200 chars
    assert classes["Lonely heading"] == (True, "short", "bad")       # only bad text after it
    no_headings = {p.text: (p.heading, p.cls) for p in run(PAGES["headings"], no_headings=True)}
    assert no_headings["Chapter heading"] == (False, "bad")         # a short block after the edge
    # with max_heading_distance=0 the heading only looks at the next paragraph
    far = body(f"<h2>Far heading</h2><p>{LOW_STOP}</p><p>{GOOD_TEXT}</p>")
    near = {p.text: p.cls for p in run(far)}
    assert near["Far heading"] == "good"
    assert {p.text: p.cls for p in run(far, max_heading_distance=0)}["Far heading"] == "bad"
    for html in (far, PAGES["headings"]):
        for opts in ({}, {"max_heading_distance": 0}, {"no_headings": True}):
            ours, ref = both(html, **opts)
            assert as_rows(ours) == as_rows(ref)


def test_chars_and_tokens_length_units():
    # 12 words, 66 characters: short in characters (< 70), long enough in tokens (>= 10)
    text = "It is the one that we have for all of you to see in the day."
    assert len(text) < 70 and len(text.split()) >= 10
    html = body(f"<p>{text}</p>")
    [in_chars] = run(html)
    [in_tokens] = run(html, preset="A")
    assert in_chars.cf_class == "short"
    assert in_tokens.cf_class == "neargood"
    [custom] = run(html, length_unit="tokens", length_low=5, length_high=8)
    assert custom.cf_class == "good"
    ours, ref = both(html, length_unit="tokens", length_low=5, length_high=8)
    assert as_rows(ours) == as_rows(ref)


@pytest.mark.parametrize("options", [
    {"length_low": 300, "length_high": 200},
    {"stopwords_low": 0.5, "stopwords_high": 0.4},
    {"stopwords_high": 1.5},
    {"max_link_density": -0.1},
    {"length_unit": "words"},
    {"preset": "E"},
    {"unknown_option": 1},
    {"length_low": "many"},
])
def test_invalid_parameters_are_refused(options):
    with pytest.raises(OptionError):
        get_extractor("justext", **options)


def test_own_parse_equals_the_page_tree():
    # a page that declares another charset: parsed from our UTF-8 bytes, the
    # declaration must not make libxml2 re-decode it
    html = ("<html><head><meta charset='iso-8859-2'><title>x</title></head><body>"
            f"<p>Příliš žluťoučký kůň úpěl ďábelské ódy. {GOOD_TEXT}</p><!-- c --><p>b</p></body></html>")
    fresh = run(html)
    parsed = Page(html, stoplist=EN)
    parsed.tree
    assert as_rows(fresh) == as_rows(get_extractor("justext").extract(parsed))
    assert fresh[0].text.startswith("Příliš žluťoučký")


def test_nothing_to_extract():
    assert run("") == []
    assert run("   ") == []
    assert run("<html><head><script>x</script></head><body></body></html>") == []


def test_pipeline_uses_the_engine_by_default():
    # the default extractor is this engine, or justext-plus (the default since 4b58a64), which
    # runs this engine and adds page-structure evidence on top
    assert DEFAULT_EXTRACTOR in ("justext", "justext-plus")
    default = get_extractor(DEFAULT_EXTRACTOR)
    assert isinstance(getattr(default, "engine", default), get_extractor("justext").__class__)
    for name in ("justext", DEFAULT_EXTRACTOR):
        stage = Clean(extractor=name, languages=["en"])
        doc = Document(id="1", raw=PAGES["article"].encode("utf-8"))
        out = stage.process(doc)
        assert not out.drop_reason and out.meta["extractor"] == name
        assert GOOD_TEXT in out.clean_text().split("\n")


# -- differential test on the development pages ---------------------------------

def page_language(page: Page) -> str:
    """The page's own language from <html lang>; English when absent or without a stoplist."""
    lang = (page.tree.get("lang") or "").strip() if page.tree is not None else ""
    if lang:
        try:
            return resolve_language(lang)
        except OptionError:
            pass
    return "en"


def test_differential_against_the_package_on_snippets(snippets_dir):
    files = sorted((snippets_dir / "pages").glob("*.html"))
    assert files
    ours_x = get_extractor("justext")
    ref_x = get_extractor("justext-package")
    pages = same_pages = paragraphs = same_class = 0
    started = time.monotonic()
    for path in files:
        html = decode(path.read_bytes()).text
        page = Page(html)
        if page.tree is None:
            continue
        page.stoplist = stoplist(page_language(page))
        ref = ref_x.extract(page)
        ours = ours_x.extract(page)
        pages += 1
        same_pages += ("\n".join(p.text for p in ref if p.is_good)
                       == "\n".join(p.text for p in ours if p.is_good))
        paragraphs += len(ref)
        if [p.text for p in ref] == [p.text for p in ours]:
            same_class += sum(a.cls == b.cls for a, b in zip(ref, ours))
        else:
            # segmentation differs: count the paragraphs that line up by text
            import difflib
            sm = difflib.SequenceMatcher(a=[p.text for p in ref], b=[p.text for p in ours], autojunk=False)
            for block in sm.get_matching_blocks():
                same_class += sum(ref[block.a + k].cls == ours[block.b + k].cls for k in range(block.size))
    elapsed = time.monotonic() - started
    print(f"\n{pages} pages: {same_pages} identical clean text ({same_pages / pages:.4%}); "
          f"{paragraphs} paragraphs: {same_class} same final class ({same_class / paragraphs:.4%}); {elapsed:.0f} s")
    assert pages >= 800
    assert same_class / paragraphs >= 0.995
    assert same_pages / pages >= 0.98


# -- generated pages: tricky markup mixes, same as the package ----------------------

_FUZZ_TAGS = ["div", "p", "span", "a", "b", "br", "br", "li", "ul", "h1", "h2", "td", "tr", "table", "script",
              "style", "form", "input", "select", "option", "textarea", "button", "iframe", "object", "param",
              "image", "img", "link", "head", "title", "pre", "selectmenu", "em", "center", "noscript", "base",
              "applet", "dd", "blockquote"]
_FUZZ_TEXTS = ["the", "of it", " ", "  \n ", "\u00a0", "word", "\u00a9", "&amp;copy", "a  b\tc", "\r\n", "x\ny",
               "and the cat is on the mat", "<!-- c -->", "<?php x ?>", "&nbsp;", "Home", "\t"]
_VOID = {"br", "img", "input", "param", "link", "base"}


def _random_markup(rng):
    return random_markup(rng, _FUZZ_TAGS, _FUZZ_TEXTS, _VOID, items=(0, 5), max_depth=6, close=0.85,   # unclosed tags too
                         attrs=lambda rng, tag: " rel='stylesheet'" if tag == "link" and rng.random() < 0.5 else "")


def test_same_as_package_on_generated_markup():
    import random

    for seed in range(300):
        rng = random.Random(seed)
        html = _random_markup(rng)
        if rng.random() < 0.7:
            html = f"<html><head>{_random_markup(rng) if rng.random() < 0.3 else ''}</head><body>{html}</body></html>"
        options = rng.choice([{}, {"preset": "A"}, {"length_low": 2, "length_high": 8}, {"no_headings": True}])
        ours, ref = both(html, **options)
        assert as_rows(ours) == as_rows(ref), (seed, html)
        # and parsed by the engine itself
        assert as_rows(run(html, **options)) == as_rows(ref), (seed, html)


# -- on both backends (the compiled walk and its SAX parse; the Python walk on lxml's tree) -------

S = ("The council met on Tuesday evening to discuss the future of the old library building in the "
     "centre of the town, which has been empty since the new one opened across the river.")
RUBY = "<p>" + S + "<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby> tail</p>"


def test_paragraphs_and_title_of_a_page(native_backend):
    """The title from <head> (not the later <title>), whitespace squeezed; the ruby kept."""
    engine = get_extractor("justext")
    page = Page("<html><head><title> The  Town\nNews </title></head><body><nav><a href=/>Home</a></nav>"
                "<h1>Library to reopen</h1><p>" + S + " " + S + "</p>" + RUBY + "<svg><title>icon</title></svg>"
                "</body></html>", stoplist=EN)
    paras = engine.extract(page)
    assert engine.title(page) == "The Town News"
    assert [p.text for p in paras] == ["Home", "Library to reopen", S + " " + S, S + "漢(kan)字ji tail", "icon"]
    assert [p.cls for p in paras] == ["bad", "good", "good", "good", "bad"]


@pytest.mark.parametrize("html", [RUBY, "<html><body>" + RUBY * 3 + "<p>漢<rt>kan</rt>字<rp>(</rp>x</p></body></html>",
                                  "<ruby>東<rt>とう</rt>京<rt>きょう</rt></ruby>" + "<p>" + S])
def test_ruby_annotations_are_kept_as_the_package_keeps_them(html, native_backend):
    page = Page(html, stoplist=EN)
    page.tree
    assert as_rows(run(html)) == as_rows(get_extractor("justext-package").extract(page))
    assert ("kan" in " ".join(p.text for p in run(html))) == ("kan" in html)
