"""What only the compiled walk has (corpustool/native/justext_walk.pyx with sax_arena.pxi): its
own parse of a page (the SAX parse into its tree, counted by ``sax_stats()``), its tables and
rounding, its paragraphs' construction, its threads, its refusals. Skipped without the extension
(and on the forced Python backend); what it gives is compared with the Python walk in
test_backend_parity.py."""
from __future__ import annotations

import dataclasses
import random

import pytest

from corpustool.document import Paragraph
from corpustool.extractors import justext_engine
from corpustool.extractors import justext_plus_structure as structure
from corpustool.extractors.base import Page, html_bytes, parse_html
from corpustool.extractors.registry import get_extractor
from tests.support.pages import EN, S, fields, random_evidence_page

pytestmark = pytest.mark.skipif(not justext_engine.COMPILED,
                                reason=f"the compiled walk: {justext_engine.COMPILED_ERROR}")

PLUS = get_extractor("justext-plus")
ENGINE = get_extractor("justext")


def sax_on() -> None:
    if not justext_engine.SAX_PARSE:
        pytest.skip(f"the SAX parse is off: {justext_engine.SAX_ERROR}")


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


def test_compiled_round_is_pythons_round():
    from corpustool.native.justext_walk import round_4

    rng = random.Random(7)
    values = [a / b for b in range(1, 400) for a in range(b + 20)]            # densities, exact ties (1/32)
    values += [k / 10000 + d for k in range(0, 20001, 7) for d in (0.0, 5e-5, -5e-5, 5e-17)]
    values += [rng.random() * rng.choice([1.0, 2.0, 1e-5, 1e-300, 1e3, 1e12]) for _ in range(50000)]
    values += [0.0, 5e-324, 0.03125, 0.00005, 1.00005, float("inf"), float("nan")]
    for x in values:
        if x >= 0 or x != x:
            assert repr(round_4(x)) == repr(round(x, 4)), x


def test_compiled_paragraphs_are_the_constructors_paragraphs():
    """The walk fills a new object's slots directly: the same fields as Paragraph(...)."""
    from tests.extractors.test_justext_engine import PAGES, as_rows

    assert justext_engine._FAST_PARAGRAPH_INIT, "Paragraph has a field the engine does not fill"

    def slots(p):   # the fields of a slotted object, in the class's order
        return {name: getattr(p, name) for name in type(p).__slots__}

    root = Page(PAGES["article"]).tree
    fast = justext_engine.extract_compiled(root, EN, ENGINE.params, Paragraph, True, "good", "bad")
    slow = justext_engine.extract_compiled(root, EN, ENGINE.params, Paragraph, False, "good", "bad")
    assert fast and as_rows(fast) == as_rows(slow)
    for p, q in zip(fast, slow):
        assert type(p) is Paragraph
        assert list(slots(p).items()) == list(slots(q).items())
        made = Paragraph(**{f.name: getattr(p, f.name) for f in dataclasses.fields(Paragraph) if f.init})
        assert list(slots(p).items()) == list(slots(made).items()) and p == made
        assert p.word_count() == made.word_count()


@pytest.mark.parametrize("extractor", [PLUS, ENGINE], ids=["justext-plus", "justext"])
def test_an_unparsed_page_takes_the_sax_parse_and_builds_no_tree(extractor):
    sax_on()
    page = Page("<html><head><title> The  Town\nNews </title></head><body><nav><a href=/>Home</a></nav>"
                "<article><h1>Library to reopen</h1><p>" + S + "</p><p>" + S + "</p></article></body></html>",
                stoplist=EN)
    pages = justext_engine.sax_stats()[0]
    paras = extractor.extract(page)
    assert justext_engine.sax_stats()[0] == pages + 1
    assert not page._tree_done and page.meta["title"] == "The Town News"   # found without lxml's tree
    assert paras


def test_a_parsed_page_is_walked_as_it_is():
    sax_on()
    page = Page("<p>" + S + "</p>", stoplist=EN)
    page.tree
    stats = justext_engine.sax_stats()
    assert ENGINE.parse_unparsed(page) is None
    assert [p.text for p in ENGINE.extract(page)] == [S]
    assert justext_engine.sax_stats() == stats


def test_the_clean_stage_never_builds_a_tree_for_the_title(monkeypatch):
    """A page with paragraphs goes through the clean stage without lxml's tree (title included)."""
    sax_on()
    from corpustool.document import Document
    from corpustool.extractors import base
    from corpustool.extractors.clean import Clean
    from tests.extractors.test_clean import RAWS

    def no_tree(html):
        raise AssertionError("lxml's tree was built")

    monkeypatch.setattr(base, "parse_html", no_tree)
    out = []
    for languages, raws in ((["en"], [RAWS[6], RAWS[8]]), (["auto"], [RAWS[6]])):
        stage = Clean(extractor="justext", languages=languages)
        out += [stage.process(Document(id="1", raw=raw)) for raw in raws]
    assert [(d.drop_reason, d.title) for d in out] == [(None, "T"), (None, None), (None, "T")]


def test_the_sax_outline_keeps_the_script_text():
    """The SAX build leaves the text of script and style elements out, except in ``sax_outline``."""
    sax_on()
    from tests.native.test_backend_parity import outline

    html = "<html><body><script>var a = 1;</script><style>p { color: red }</style><p>x</p></body></html>"
    built = justext_engine.sax_outline(html_bytes(html))
    assert built == outline(parse_html(html))
    body = built[3][0][0]
    assert [(c[0][0], c[0][2]) for c in body[3][:2]] == [("script", "var a = 1;"), ("style", "p { color: red }")]


def test_threads(monkeypatch):
    """Pages extracted by several threads at once (the walk runs Python code, where threads switch):
    each gets its own tree, the same paragraphs as one at a time."""
    sax_on()
    # (no second parse of a page left without text: each page is parsed once)
    monkeypatch.setattr(structure, "RULES", structure.RULES - {"buttons"})
    from concurrent.futures import ThreadPoolExecutor

    htmls = [random_evidence_page(random.Random(seed)) for seed in range(80)]
    alone = [fields(PLUS.extract(Page(h, stoplist=EN))) for h in htmls]
    pages = justext_engine.sax_stats()[0]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda h: fields(PLUS.extract(Page(h, stoplist=EN))), htmls * 3))
    assert justext_engine.sax_stats()[0] == pages + 3 * len(htmls)
    assert together == alone * 3


def test_record_families_on_the_tree_refuses_what_it_does_not_cover():
    sax_on()
    from tests.native.test_backend_parity import walked

    paras, tree = walked("<html><body>" + "<ul>" + "<li>one two three four five</li>" * 6 + "</ul></body></html>")
    words = [p.features.get("words", 0) for p in paras]
    args = (structure.SELF_RECORDS, structure.MIN_RECORDS, structure.MIN_RECORD_WORDS, structure.MAX_RECORD_WORDS, 0)
    assert len(tree.record_families(words, [True] * len(paras), *args)) == 1
    assert tree.record_families(words[:-1], [True] * len(paras), *args) is None        # one word count short
    assert tree.record_families([2.5] * len(paras), [True] * len(paras), *args) is None   # not an int
    assert tree.record_families([1 << 50] * len(paras), [True] * len(paras), *args) is None
