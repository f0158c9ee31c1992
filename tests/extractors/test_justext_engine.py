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
from corpustool.native import backend
from tests.support.markup import random_markup
from tests.support.paths import DEMO_WARC

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


# -- the compiled walk against the pure-Python walk --------------------------------------

from corpustool.extractors import justext_engine  # noqa: E402

needs_compiled = pytest.mark.skipif(not justext_engine.COMPILED,
                                    reason="the compiled walk (corpustool/native/justext_walk.pyx) is not built")
# stoplists with capitals, non-ASCII words and a word whose lower() grows ("İ" -> "i̇")
_STOPLISTS = [EN, stoplist("de"), frozenset({"the", "a", "Of", "ça", "straße", "i̇", "der"}), frozenset(), {"the", "and"}]


def _walks_agree(root, stop) -> None:
    """Blocks, rows and paragraphs: compiled and pure Python, field by field."""
    python_rows = justext_engine.paragraph_rows(justext_engine.segment_py(root), stop)
    assert justext_engine.features_compiled(root, stop) == python_rows
    assert justext_engine.paragraph_rows(justext_engine.segment_compiled(root), stop) == python_rows
    for options in ({}, {"preset": "A"}, {"no_headings": True}):
        engine = get_extractor("justext", **options)
        expected = as_rows(engine.build_py(python_rows))
        assert as_rows(engine.build(python_rows)) == expected
        assert as_rows(justext_engine.extract_compiled(root, stop, engine.params, justext_engine.Paragraph,
                                                       justext_engine._FAST_PARAGRAPH_INIT, "good", "bad")) == expected


def _both_trees(html: str):
    """The page's tree (lxml.html, comments kept) and the engine's own parse (comments dropped)."""
    page = Page(html)
    return [root for root in (page.tree, justext_engine.parse_markup(html)) if root is not None]


def test_the_active_walk_is_exposed():
    walk = justext_engine.WALK
    assert walk.compiled == justext_engine.COMPILED == backend.walk.compiled
    assert type(walk) is (justext_engine.CompiledWalk if backend.walk.compiled else justext_engine.PythonWalk)
    if walk.compiled:
        assert justext_engine.segment is justext_engine.segment_compiled


@needs_compiled
def test_compiled_walk_on_hand_written_and_generated_pages():
    import random

    for name, html in PAGES.items():
        for root in _both_trees(html):
            _walks_agree(root, EN)
    for seed in range(600):
        rng = random.Random(seed)
        html = _random_markup(rng)
        if rng.random() < 0.7:
            html = f"<html><head>{_random_markup(rng) if rng.random() < 0.3 else ''}</head><body>{html}</body></html>"
        for root in _both_trees(html):
            _walks_agree(root, _STOPLISTS[seed % len(_STOPLISTS)])


@needs_compiled
def test_compiled_walk_knows_the_same_tags():
    from corpustool.native.justext_walk import kind_of

    expected = {"br": "br", "a": "a", "image": "image", "link": "link"}
    expected.update({tag: "paragraph" for tag in justext_engine.PARAGRAPH_TAGS})
    expected.update({tag: "killed" for tag in justext_engine.KILLED_TAGS})      # textarea: killed first
    expected.update({tag: "unwrapped" for tag in justext_engine.UNWRAPPED_TAGS})  # form: unwrapped first
    for tag, kind in expected.items():
        assert kind_of(tag) == kind, tag
    for tag in ("", "h", "h7", "h10", "hr", "b", "p2", "pa", "span", "Div", "P", "images", "ab", "heading"):
        assert kind_of(tag) == "plain", tag


@needs_compiled
def test_compiled_walk_on_odd_markup():
    pages = [
        "<html><body><p>a</p></body></html><?pi x?>tail after the root",
        "<p>Ünïcödé\u00a0\u2003spaces\u3000and\u2028line\u2029breaks\x85 İSTANBUL ÇA Straße</p>",
        "<div><a href='x'>\u00a0link\u00a0 text\u00a0</a>\u00a0</div><br><br><br>",
        "<link rel='STYLESHEET'>gone?<link rel='alternate'>kept<link>too",
        "<h1.x>dotted</h1.x><my-h2>custom heading</my-h2><h9>not</h9><h>h</h><h٣>digit</h٣>",
        "<image><b>in image</b></image><image>x</image><img><image>y</image>",
        "<table>" + "<tr><td>cell</td></tr>" * 60 + "</table>",
        "<div>" * 300 + "deep" + "</div>" * 300,
        "<pre>\r\n  lines\r\n\r\n  more  </pre><p>\n</p><p>&copy; x</p>",
        "<svg xmlns='http://www.w3.org/2000/svg'><text>svg text</text></svg><math><mi>x</mi></math>",
    ]
    for html in pages:
        for root in _both_trees(html):
            for stop in _STOPLISTS:
                _walks_agree(root, stop)


@needs_compiled
def test_compiled_walk_on_the_demo_crawl():

    from warcio.archiveiterator import ArchiveIterator

    warc = DEMO_WARC
    if not warc.is_file():
        pytest.skip("data/demo/crawl.warc.gz is not present")
    pages = 0
    with open(warc, "rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            if "html" not in (record.http_headers.get_header("Content-Type") or "").lower():
                continue
            html = decode(record.content_stream().read()).text
            for root in _both_trees(html):
                _walks_agree(root, _STOPLISTS[pages % 3])
            pages += 1
    assert pages > 0


@needs_compiled
def test_compiled_walk_on_snippets(snippets_dir):
    files = sorted((snippets_dir / "pages").glob("*.html"))
    assert files
    engine = get_extractor("justext")
    for i, path in enumerate(files):
        html = decode(path.read_bytes()).text
        # both kinds of tree, on alternate pages (the whole set in about 20 s)
        root = Page(html).tree if i % 2 else justext_engine.parse_markup(html)
        if root is None:
            continue
        stop = _STOPLISTS[i % 3]
        python_rows = justext_engine.paragraph_rows(justext_engine.segment_py(root), stop)
        assert justext_engine.features_compiled(root, stop) == python_rows, path.name
        page = Page(html, stoplist=stop)
        page._tree, page._tree_done = root, True
        assert as_rows(engine.extract(page)) == as_rows(engine.build_py(python_rows)), path.name


@needs_compiled
def test_compiled_round_is_pythons_round():
    import random

    from corpustool.native.justext_walk import round_4

    rng = random.Random(7)
    values = [a / b for b in range(1, 400) for a in range(b + 20)]            # densities, exact ties (1/32)
    values += [k / 10000 + d for k in range(0, 20001, 7) for d in (0.0, 5e-5, -5e-5, 5e-17)]
    values += [rng.random() * rng.choice([1.0, 2.0, 1e-5, 1e-300, 1e3, 1e12]) for _ in range(50000)]
    values += [0.0, 5e-324, 0.03125, 0.00005, 1.00005, float("inf"), float("nan")]
    for x in values:
        if x >= 0 or x != x:
            assert repr(round_4(x)) == repr(round(x, 4)), x


def test_pure_python_fallback_when_the_extension_is_missing():
    """With the compiled module unimportable the engine selects the Python walk and gives the same paragraphs."""
    import json
    import subprocess
    import sys

    code = (
        "import sys, json\n"
        "sys.modules['corpustool.native.justext_walk'] = None\n"   # import fails as if not built
        "from corpustool.extractors import justext_engine\n"
        "from corpustool.extractors.base import Page\n"
        "from corpustool.extractors.registry import get_extractor\n"
        "from corpustool.language.stoplists import stoplist\n"
        "html = sys.stdin.read()\n"
        "ps = get_extractor('justext').extract(Page(html, stoplist=stoplist('en')))\n"
        "print(json.dumps([justext_engine.COMPILED, [[p.text, p.cls, p.cf_class, p.xpath, p.features] for p in ps]]))\n"
    )
    html = PAGES["article"] + PAGES["links"]
    done = subprocess.run([sys.executable, "-c", code], input=html, capture_output=True, text=True, check=True)
    compiled, rows = json.loads(done.stdout)
    assert compiled is False
    here = [[p.text, p.cls, p.cf_class, p.xpath, p.features] for p in run(html)]
    assert rows == json.loads(json.dumps(here)) and rows


@needs_compiled
def test_compiled_walk_finds_copyright_and_select_like_the_strings():
    """The walk looks for "\xa9", "&copy" and "select" on the UTF-8 bytes; the Python rows on the strings."""
    pages = [
        "<p>\u00a9 2024 Example, all rights reserved by the people who wrote this</p>",
        "<p>text &amp;copy more words that make a long enough paragraph for the test</p>",
        "<p>split &amp;cop y and &amp;co py and &amp;copy</p><p>ends with &amp;cop</p><p>&amp;COPY upper</p>",
        "<p>c\u0327\u00e9\u00a8\u00aa \u00c2\u00a9 \u0129 \u02a9 \u10a9 \U0001f0a9 near misses of the bytes c2 a9</p>",
        "<div><a href='/'>\u00a9</a> link copyright</div><li>&amp;copy;&amp;copy;</li>",
        "<selectx><p>inside a tag that contains select</p></selectx><my-select>direct text</my-select>",
        "<sel><ect>not select</ect></sel><div class='select'>a class is no tag</div><selec>t</selec>",
        "<p>the word select in the text is not in the path</p>",
    ]
    for html in pages:
        for root in _both_trees(html):
            for stop in _STOPLISTS[:2]:
                _walks_agree(root, stop)


@needs_compiled
def test_compiled_paragraphs_are_the_constructors_paragraphs():
    """The fast path fills the new object's slots directly: the same fields as Paragraph(...)."""
    import dataclasses

    from corpustool.document import Paragraph

    assert justext_engine._FAST_PARAGRAPH_INIT, "Paragraph has a field the engine does not fill"

    def vars(p):   # the fields of a slotted object, in the class's order
        return {name: getattr(p, name) for name in type(p).__slots__}

    engine = get_extractor("justext")
    root = Page(PAGES["article"]).tree
    fast = justext_engine.extract_compiled(root, EN, engine.params, Paragraph, True, "good", "bad")
    slow = justext_engine.extract_compiled(root, EN, engine.params, Paragraph, False, "good", "bad")
    assert fast and as_rows(fast) == as_rows(slow)
    for p, q in zip(fast, slow):
        assert type(p) is Paragraph
        assert list(vars(p).items()) == list(vars(q).items())
        made = Paragraph(**{f.name: getattr(p, f.name) for f in dataclasses.fields(Paragraph) if f.init})
        assert list(vars(p).items()) == list(vars(made).items()) and p == made
        assert p.word_count() == made.word_count()


@needs_compiled
def test_compiled_walk_remembers_non_ascii_words_per_stoplist():
    """Non-ASCII words are looked up once per stoplist and remembered: same counts on every page."""
    import random

    rng = random.Random(11)
    words = [f"wört{i}" for i in range(3000)]        # more than the table holds at first
    stop = frozenset(w for w in words[::3]) | {"straße", "ça", "i̇"}
    repeated = "Straße STRAẞE straße ÇA ça Ça İ i̇ ÉTÉ été "
    for n in (10, 900, 3000):
        text = " ".join(rng.choice(words[:n]) for _ in range(4000))
        html = f"<p>{repeated * 3}</p><div>{text}</div><p>{repeated}{text[:500].upper()}</p>"
        for root in _both_trees(html):
            for stoplist_ in (stop, _STOPLISTS[2], frozenset(words)):
                _walks_agree(root, stoplist_)
