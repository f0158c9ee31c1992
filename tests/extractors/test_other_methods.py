"""BTE, boilerpipe, the tc/sw filter, ConEx and MenEx on hand-written pages (issue 8)."""
from __future__ import annotations

import random

import pytest

from corpustool.document import Document
from corpustool.errors import OptionError
from corpustool.extractors.base import Page
from corpustool.extractors.boilerpipe import classify_block
from corpustool.extractors.bte import best_token_span, bte_objective, max_span, span_runs
from corpustool.extractors.clean import Clean
from corpustool.extractors.conex import main_content
from corpustool.extractors.menex import analyse_menus, detect_menus
from corpustool.extractors.registry import available, get_extractor
from corpustool.extractors.segment import segment
from corpustool.language.stoplists import stoplist
from tests.support.paths import PACKAGE

NAMES = ("bte", "boilerpipe", "tcsw", "conex", "menex")

SENTENCES = [
    "The committee met on Tuesday to discuss the new proposal for the public library in the town centre.",
    "Most of the members said that they would support the plan if the costs were shared with the county.",
    "A final decision is expected in the spring, after the results of the public consultation have been published.",
    "The library has been in the same building since it was opened by the mayor more than forty years ago.",
    "Local residents who want to take part in the consultation can send their comments to the town hall.",
]


def article_html(paragraphs=SENTENCES) -> str:
    return "".join(f"<p>{s} {s}</p>" for s in paragraphs)


PORTAL = f"""<!DOCTYPE html><html><head><title>Library plan</title>
<script>var tracking = "Home News Sport";</script><style>p {{ color: red }}</style></head>
<body><div id="page">
<div id="header"><div class="logo"><img src="logo.png" alt=""></div>
<ul class="menu"><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li>
<li><a href="/culture">Culture</a></li><li><a href="/contact">Contact</a></li></ul></div>
<div id="wrap">
<div id="sidebar"><h3>Most read</h3><ul><li><a href="/1">Mayor opens bridge</a></li><li><a href="/2">Storm warning</a></li>
<li><a href="/3">Market day moved</a></li></ul></div>
<div id="article"><h1>Town debates library plan</h1>{article_html()}</div>
</div>
<div id="footer"><p>Copyright 2024 Example Ltd</p><p><a href="/imprint">Imprint</a> <a href="/privacy">Privacy</a></p></div>
</div></body></html>"""


def page(html: str, lang: str | None = "en") -> Page:
    return Page(html, stoplist=stoplist(lang) if lang else None)


def good_text(paragraphs) -> str:
    return "\n".join(p.text for p in paragraphs if p.cls == "good")


def bad_text(paragraphs) -> str:
    return "\n".join(p.text for p in paragraphs if p.cls == "bad")


# -- registry and the common paragraph contract ------------------------------

def test_all_methods_registered():
    assert set(NAMES) <= set(available())


def test_the_registry_table_lists_every_named_extractor():
    """Every class named with @register(...) in extractors/ and sitelevel/ is in the table, under its name."""
    import ast

    from corpustool.extractors.registry import EXTRACTORS

    package = PACKAGE
    named = {}
    for path in sorted([*package.glob("extractors/*.py"), *package.glob("sitelevel/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for deco in node.decorator_list:
                    if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "register":
                        named[deco.args[0].value] = node.name
    assert len(named) >= 14 and set(named) == set(EXTRACTORS)
    assert {name: cls.__name__ for name, cls in EXTRACTORS.items()} == named
    assert all(cls.name == name for name, cls in EXTRACTORS.items())


@pytest.mark.parametrize("name", NAMES)
def test_paragraphs_carry_classification_features_and_paths(name):
    paragraphs = get_extractor(name).extract(page(PORTAL))
    assert paragraphs and {p.cls for p in paragraphs} == {"good", "bad"}
    for p in paragraphs:
        assert p.text and p.tag and p.xpath.startswith("/html[1]/body[1]") and p.dom_path.startswith("html.body")
        assert p.features and p.features.get("words") == len(p.text.split())
        assert (p.reason == "boilerplate") == (p.cls == "bad")
    # script and style content is never text
    assert "tracking" not in " ".join(p.text for p in paragraphs)


@pytest.mark.parametrize("name", NAMES)
def test_end_to_end_through_clean_stage(name):
    stage = Clean(extractor=name, languages=["en"])
    doc = Document(id="1", url="http://example.com/library", raw=PORTAL.encode("utf-8"))
    kept = list(stage.run([doc]))
    assert len(kept) == 1 and kept[0].drop_reason is None
    out = kept[0]
    text = out.clean_text()
    assert SENTENCES[0] in text and SENTENCES[-1] in text
    assert "Culture" not in text            # the navigation menu is removed by every method
    assert out.meta["extractor"] == name
    # deterministic: the same page gives the same paragraphs
    [again] = stage.run([Document(id="1", raw=PORTAL.encode("utf-8"))])
    assert [p.to_dict() for p in again.paragraphs] == [p.to_dict() for p in out.paragraphs]


@pytest.mark.parametrize("name", NAMES)
def test_empty_and_textless_pages(name):
    assert get_extractor(name).extract(page("")) == []
    assert get_extractor(name).extract(page("<html><body><div><img src=x></div></body></html>")) == []


@pytest.mark.parametrize("name", NAMES)
def test_deep_nesting_does_not_crash(name):
    html = "<div><span>" * 120 + "deep text here " * 30 + "</span></div>" * 120   # lxml's depth limit is 255
    paragraphs = get_extractor(name).extract(page(html))
    assert "deep text here" in " ".join(p.text for p in paragraphs)


# -- BTE --------------------------------------------------------------------

def brute_force_span(bits):
    """The quadratic (here cubic) search of the thesis' formula; ties: earliest j, then latest i."""
    best = None
    for j in range(len(bits)):
        for i in range(j, -1, -1):
            t = bte_objective(bits, i, j)
            if best is None or t > best[2]:
                best = (i, j, t)
    return best


def test_bte_linear_span_equals_brute_force_on_random_inputs():
    rng = random.Random(8)
    for _ in range(400):
        bits = [rng.random() < rng.choice((0.3, 0.5, 0.7)) for _ in range(rng.randint(1, 14))]
        bits = [int(b) for b in bits]
        assert best_token_span(bits) == brute_force_span(bits), bits


def test_max_span_ties_and_edges():
    assert max_span([]) == (-1, -1, 0)
    assert max_span([-1, -1]) == (0, 0, -1)
    assert max_span([2, -2, 2]) == (0, 0, 2)          # earliest end wins ties
    assert max_span([-1, 3, -1, 4, -9, 5]) == (1, 3, 6)


def test_bte_merged_runs_give_the_token_level_optimum():
    seg = segment(page(PORTAL).tree)
    bits = []
    for run in seg.runs:
        if run.words:
            bits += [1] * run.tags_before + [0] * run.words
    bits += [1] * seg.trailing_tags
    first, last, score = span_runs(seg)
    assert score == best_token_span(bits)[2]
    assert first >= 0 and last >= first


def test_bte_keeps_one_contiguous_span():
    paragraphs = get_extractor("bte").extract(page(PORTAL))
    flags = [p.cls == "good" for p in paragraphs]
    first, last = flags.index(True), len(flags) - 1 - flags[::-1].index(True)
    assert all(flags[first:last + 1])                    # one contiguous run of good paragraphs
    assert SENTENCES[0] in good_text(paragraphs)
    assert "Culture" in bad_text(paragraphs) and "Imprint" in bad_text(paragraphs)
    assert len({p.features["span_objective"] for p in paragraphs}) == 1


def test_bte_splits_a_block_at_the_span_edge():
    # the links at the start of the paragraph cost more tags than they bring words
    html = ("<html><body><p><a href=1>a</a><a href=2>b</a><a href=3>c</a> "
            + " ".join(["plain words without any markup"] * 6) + "</p></body></html>")
    paragraphs = get_extractor("bte").extract(page(html))
    assert [p.cls for p in paragraphs] == ["bad", "good"]
    assert paragraphs[0].text == "abc" and paragraphs[1].text.startswith("plain words")
    assert paragraphs[0].xpath == paragraphs[1].xpath == "/html[1]/body[1]/p[1]"


# -- boilerpipe DefaultExtractor (Algorithm 2.1) -----------------------------

@pytest.mark.parametrize("prev_w,prev_ld,cur_w,cur_ld,next_w,expected,leaf", [
    (50, 0.0, 50, 0.34, 50, False, "linky"),                       # curr_linkDensity > 0.333333
    (4, 0.0, 16, 0.333333, 15, False, "short-after-short"),        # prev_numWords <= 4
    (5, 0.0, 16, 0.0, 15, True, "short-after-text"),               # prev_numWords > 4
    (0, 0.0, 16, 0.0, 16, True, "short-before-text"),              # next_numWords > 15
    (0, 0.555556, 17, 0.0, 0, True, "long"),                       # curr_numWords > 16
    (0, 0.56, 40, 0.0, 17, False, "after-links-before-short"),     # next_numWords <= 17
    (0, 0.56, 40, 0.0, 18, True, "after-links-before-text"),       # next_numWords > 17
    (0, 0.56, 41, 0.0, 0, True, "after-links-long"),               # curr_numWords > 40
])
def test_algorithm_2_1_each_branch(prev_w, prev_ld, cur_w, cur_ld, next_w, expected, leaf):
    assert classify_block(prev_w, prev_ld, cur_w, cur_ld, next_w, 0.0) == (expected, leaf)


def test_boilerpipe_blocks_split_at_every_tag_but_links():
    html = "<html><body><p>one two <a href=x>three</a> four</p><p>five <b>six</b> seven</p></body></html>"
    paragraphs = get_extractor("boilerpipe").extract(page(html))
    assert [p.text for p in paragraphs] == ["one two three four", "five", "six", "seven"]
    assert paragraphs[0].features["link_density"] == 0.25
    assert paragraphs[2].tag == "b"


def test_boilerpipe_uses_previous_and_next_block():
    short = "A short line of text."              # 5 words
    longp = " ".join(["word"] * 30)
    html = f"<html><body><p>{short}</p><p>{short}</p><p>{longp}</p><p>{short}</p><p>{short}</p></body></html>"
    paragraphs = get_extractor("boilerpipe").extract(page(html))
    rules = [p.features["rule"] for p in paragraphs]
    # first block: previous is the empty start block (0 words) -> boilerplate
    assert rules == ["short-after-short", "short-before-text", "long", "short-after-text", "short-after-text"]
    assert [p.cls for p in paragraphs] == ["bad", "good", "good", "good", "good"]
    assert paragraphs[1].features["next_words"] == 30 and paragraphs[3].features["prev_words"] == 30


def test_boilerpipe_after_a_link_list():
    links = "".join(f"<a href=/{i}>link number {i}</a> " for i in range(5))
    html = (f"<html><body><div>{links}</div><p>{' '.join(['text'] * 30)}</p><p>{' '.join(['end'] * 10)}</p>"
            "</body></html>")
    paragraphs = get_extractor("boilerpipe").extract(page(html))
    assert [p.features["rule"] for p in paragraphs] == ["linky", "after-links-before-short", "short-after-text"]


# -- tc/sw filter (Sect. 2.9.3) ------------------------------------------------

def tcsw_page(*blocks: str) -> str:
    return "<html><body>" + "".join(f"<div>{b}</div>" for b in blocks) + "</body></html>"


def test_tcsw_token_count_threshold():
    sentence20 = "the cat and the dog sat on the mat in the sun while it was warm and the birds sang"   # 20 tokens
    assert len(sentence20.split()) == 20
    sentence19 = sentence20.rsplit(" ", 1)[0]
    paragraphs = get_extractor("tcsw").extract(page(tcsw_page(sentence20, sentence19)))
    assert [p.cls for p in paragraphs] == ["good", "bad"]
    assert paragraphs[0].features["words"] == 20
    paragraphs = get_extractor("tcsw", tc=19).extract(page(tcsw_page(sentence20, sentence19)))
    assert [p.cls for p in paragraphs] == ["good", "good"]


def test_tcsw_stopword_density_threshold():
    # 20 tokens, 6 of them stop words: density 0.30 passes, 5 (0.25) does not
    content = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
               "lambda", "mu", "nu", "xi"]
    at_30 = " ".join(content + ["the", "and", "of", "in", "to", "is"])
    at_25 = " ".join(content + ["omicron", "the", "and", "of", "in", "to"])
    paragraphs = get_extractor("tcsw").extract(page(tcsw_page(at_30, at_25)))
    assert [p.features["stopword_density"] for p in paragraphs] == [0.3, 0.25]
    assert [p.cls for p in paragraphs] == ["good", "bad"]
    assert [p.cls for p in get_extractor("tcsw", sw=0.25).extract(page(tcsw_page(at_30, at_25)))] == ["good", "good"]
    # without a stoplist nothing reaches the density threshold
    assert {p.cls for p in get_extractor("tcsw").extract(page(tcsw_page(at_30), lang=None))} == {"bad"}


def test_tcsw_needs_stoplist_and_string_options():
    assert get_extractor("tcsw").needs_stoplist
    ex = get_extractor("tcsw", tc="15", sw="0.25")
    assert (ex.tc, ex.sw) == (15, 0.25)


@pytest.mark.parametrize("options", [{"tc": -1}, {"tc": "many"}, {"tc": 2.5}, {"sw": 1.5}, {"sw": "x"},
                                     {"sw": True}, {"length_low": 3}])
def test_tcsw_rejects_invalid_options(options):
    with pytest.raises(OptionError):
        get_extractor("tcsw", **options)


# -- ConEx (seed 002 Ch. 6) ----------------------------------------------------

def test_conex_picks_the_article_node():
    tree = page(PORTAL).tree
    seg = segment(tree)
    result = main_content(seg)
    assert not result.wide_page
    assert len(result.c_set) == 3
    assert [seg.nodes[r].element.get("id") for r in result.roots] == ["article"]
    paragraphs = get_extractor("conex").extract(page(PORTAL))
    good = good_text(paragraphs)
    assert all(s in good for s in SENTENCES) and "Town debates library plan" in good
    for boiler in ("Culture", "Storm warning", "Copyright", "Imprint"):
        assert boiler not in good
    assert all(p.features["content_root"] == "/html[1]/body[1]/div[1]/div[2]/div[2]"
               for p in paragraphs if p.cls == "good")


def test_conex_removes_a_link_group_inside_the_content():
    links = "<ul>" + "".join(f"<li><a href=/{i}>Part {i}</a></li>" for i in range(4)) + "</ul>"
    html = PORTAL.replace("<h1>Town debates library plan</h1>",
                          f"<h1>Town debates library plan</h1>{links}<p>See <a href=/x>the plan</a> here.</p>")
    result = main_content(segment(page(html).tree))
    paragraphs = get_extractor("conex").extract(page(html))
    good, bad = good_text(paragraphs), bad_text(paragraphs)
    assert "Part 2" in bad and "Part 0" in bad                    # Algorithm 7
    assert "See the plan here." in good and SENTENCES[2] in good  # a link inside text stays
    assert result.roots and len(result.content) < sum(
        seg_node.end - seg_node.index + 1 for seg_node in (segment(page(html).tree).nodes[r] for r in result.roots))
    # with max_words=1 no link ("Part N" has 2 words) is short enough to be removed
    assert "Part 2" in good_text(get_extractor("conex", max_words=1).extract(page(html)))


def test_conex_c_set_reduction_keeps_the_ancestor_with_the_same_text():
    html = PORTAL.replace('<div id="article">', '<div id="outer"><div id="article">').replace(
        '</div>\n</div>\n<div id="footer">', '</div></div>\n</div>\n<div id="footer">')
    seg = segment(page(html).tree)
    result = main_content(seg, c=5)
    ids = {seg.nodes[i].element.get("id"): i for i in result.c_set}
    # both wrappers hold the article's text nodes; Algorithm 5 drops the descendant
    assert "outer" in ids and "article" in ids
    assert ids["outer"] in result.reduced and ids["article"] not in result.reduced
    assert [seg.nodes[r].element.get("id") for r in result.roots] == ["outer"]


def test_conex_wide_page_rule_keeps_the_body():
    # an old flat page: many body children, shallow tree
    html = ("<html><body><h2>Old page</h2>" + "".join(f"<p>{s}</p>" for s in SENTENCES)
            + "<p><a href=/>Back</a></p></body></html>")
    result = main_content(segment(page(html).tree))
    assert result.wide_page
    paragraphs = get_extractor("conex").extract(page(html))
    assert all(p.cls == "good" and p.features["wide_page"] for p in paragraphs)


def test_conex_ignores_the_text_of_a_drop_down():
    # a closed <select> shows none of its options: their words must not make it the main content
    options = "".join(f"<option>Archive of month number {i}</option>" for i in range(80))
    html = PORTAL.replace('<div id="footer">', f'<div id="footer"><form><select name=m>{options}</select></form>')
    seg = segment(page(html).tree)
    result = main_content(seg)
    assert [seg.nodes[r].element.get("id") for r in result.roots] == ["article"]
    assert "Archive of month" in bad_text(get_extractor("conex").extract(page(html)))


@pytest.mark.parametrize("options", [{"c": 0}, {"c": "x"}, {"max_words": -2}, {"size": 3}])
def test_conex_rejects_invalid_options(options):
    with pytest.raises(OptionError):
        get_extractor("conex", **options)


# -- MenEx (seed 002 Ch. 5) ----------------------------------------------------

def test_menex_finds_the_menu_and_not_the_article():
    tree = page(PORTAL).tree
    menus = analyse_menus(tree)
    assert menus and menus[0].main
    assert menus[0].xpath == "/html[1]/body[1]/div[1]/div[1]/ul[1]"
    assert menus[0].links == 5 and menus[0].features["ul_ratio"] == 1.0
    assert set(menus[0].features) == {"amplitude", "link_ratio", "text_ratio", "ul_ratio",
                                      "representative_tag", "position"}
    elements = detect_menus(tree)
    assert elements[0].get("class") == "menu"
    article = tree.find(".//*[@id='article']")
    for el in elements:                         # no detected menu is or contains the article
        assert el is not article and article not in el.iterdescendants()
        assert el not in article.iterdescendants()
    paragraphs = get_extractor("menex").extract(page(PORTAL))
    assert "Culture" in bad_text(paragraphs) and SENTENCES[1] in good_text(paragraphs)
    assert all(p.features["in_menu"] == (p.cls == "bad") for p in paragraphs)


def test_menex_root_climbs_over_submenus():
    # Algorithm 1: a candidate list climbs to the parent whose children are all heavy lists
    sub = lambda k: "<ul>" + "".join(f"<li><a href=/{k}/{i}>Item {k}.{i}</a></li>" for i in range(4)) + "</ul>"
    html = ("<html><body><div id=top>" + "".join(sub(k) for k in range(3))
            + "</div><div>" + article_html() + "</div></body></html>")
    menus = analyse_menus(page(html).tree)
    assert menus[0].element.get("id") == "top"
    assert menus[0].links == 12 and len(menus[0].candidates) >= 2
    # with a root threshold no sibling can reach, the candidates stay separate menus
    strict = analyse_menus(page(html).tree, root_threshold=1.0)
    assert [m.element.tag for m in strict] == ["ul"] * len(strict) and len(strict) >= 2


def test_menex_page_without_links_has_no_menu():
    html = "<html><body><ul><li>one</li><li>two</li><li>three</li></ul>" + article_html() + "</body></html>"
    assert detect_menus(page(html).tree) == []
    assert {p.cls for p in get_extractor("menex").extract(page(html))} == {"good"}


@pytest.mark.parametrize("options", [{"root_threshold": 1.5}, {"menu_threshold": "x"}, {"main_only": "maybe"},
                                     {"weights": 1}])
def test_menex_rejects_invalid_options(options):
    with pytest.raises(OptionError):
        get_extractor("menex", **options)


def test_menus_command(tmp_path, capsys):
    from corpustool.cli import main

    f = tmp_path / "page.html"
    f.write_text(PORTAL, encoding="utf-8")
    assert main(["menus", str(f)]) == 0
    out = capsys.readouterr().out
    assert "/html[1]/body[1]/div[1]/div[1]/ul[1]  (main menu)" in out
    assert "text: Home News Sport Culture Contact" in out and "link_ratio=" in out
    assert main(["menus", "--json", "--main-only", str(f)]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert [m["xpath"] for m in data["menus"]] == ["/html[1]/body[1]/div[1]/div[1]/ul[1]"]
    assert main(["menus", "--root-threshold", "2", str(f)]) == 2
    assert main(["menus", str(tmp_path / "missing.html")]) == 1


def test_menus_reads_a_gzipped_page_and_refuses_what_is_no_page(tmp_path, capsys):
    """A .gz page was parsed compressed ("0 menu(s)", exit 0), and a JSON Lines file or binary
    data as one page; read as inspect reads a page now."""
    import gzip

    from corpustool.cli import main

    (tmp_path / "page.html.gz").write_bytes(gzip.compress(PORTAL.encode("utf-8")))
    (tmp_path / "pages.jsonl").write_text('{"url": "http://a.example/", "html": "<p>x</p>"}\n', encoding="utf-8")
    (tmp_path / "junk.html").write_bytes(bytes(range(256)) * 8)
    assert main(["menus", str(tmp_path / "page.html.gz")]) == 0
    assert "text: Home News Sport Culture Contact" in capsys.readouterr().out
    assert main(["menus", str(tmp_path / "pages.jsonl"), str(tmp_path / "junk.html")]) == 1
    captured = capsys.readouterr()
    assert "menu(s)" not in captured.out
    assert "pages.jsonl is not an HTML page: it looks like JSON" in captured.err
    assert "junk.html is not an HTML page: it looks like binary data" in captured.err


# -- real pages (skipped without ../shared) ---------------------------------------

def test_real_pages_do_not_crash(snippets_dir, snippets_gold):
    from corpustool import encoding

    files = sorted(e["file"] for e in snippets_gold.values())[:25]
    extractors = [get_extractor(n) for n in NAMES]
    for name in files:
        html = encoding.decode((snippets_dir / "pages" / name).read_bytes()).text
        for ex in extractors:
            paragraphs = ex.extract(page(html))
            assert all(p.cls in ("good", "bad") and p.xpath for p in paragraphs), (ex.name, name)
