"""TemEx, site-level ConEx and HybEx (seed 002, Ch. 7-11) on hand-written multi-page sites."""
import pytest

from corpustool.document import Document
from corpustool.errors import OptionError
from corpustool.extractors.base import parse_html
from corpustool.extractors.clean import Clean
from corpustool.extractors.registry import get_extractor
from corpustool.extractors.segment import segment
from corpustool.pipeline import PipelineOptions, build_stages
from corpustool.sitelevel.temex import (GROUP, Mapper, SitePage, build_tree, d_distance, directory, h_distance,
                                        make_params, normalize_url, position_value, select_candidates,
                                        sort_links, template_leaves)

# -- a small news site: every page links to every section through the shared menu --------

MENU = [("/", "Home"), ("/news/", "News"), ("/sport/", "Sport"), ("/culture/", "Culture"),
        ("/science/", "Science"), ("/about/", "About us")]
HEADER = "All the news from the valley since 1901, every day of the week."
SIDEBAR = "Subscribe to our weekly newsletter and you will never miss a story from the valley again."
FOOTER = "Copyright 2024 The Valley Times. All rights reserved. Registered office in the old mill."
TEMPLATE_TEXTS = {"The Valley Times", HEADER, "Newsletter", SIDEBAR, FOOTER} | {t for _, t in MENU}

TOPICS = {
    "/": ("Welcome to the valley", ["town council", "new bridge", "spring floods"]),
    "/news/": ("Bridge to reopen in May", ["stone bridge", "northern foundations", "temporary footbridge", "station"]),
    "/sport/": ("Local club wins the cup", ["county cup", "young goalkeeper"]),
    "/culture/": ("A summer of music", ["festival in the park", "old church", "library tickets", "volunteers",
                                        "evening concerts"]),
    "/science/": ("Birds return to the marsh", ["marsh birds", "water levels", "long winter"]),
    "/about/": ("About the paper", ["teachers who founded the paper", "small team of reporters"]),
}


def article(path):
    title, topics = TOPICS[path]
    paras = [f"This is a story about the {topic}, which people in the valley have talked about for weeks. "
             f"We asked several of them what they think about the {topic}, and most of them said that they "
             f"were happy with what they had heard so far from the council and from their neighbours."
             for topic in topics]
    return title, paras


def page_html(path, menu=MENU, extra_children=0):
    title, paras = article(path)
    nav = "".join(f'<li><a href="{u}">{t}</a></li>' for u, t in menu)
    body = "".join(f"<p>{p}</p>" for p in paras)
    big = "".join(f"<li>Archive entry number {k} of {path}</li>" for k in range(extra_children))
    return f"""<!DOCTYPE html><html><head><title>{title}</title><script>var x = 1;</script></head>
<body><div id="page">
<div id="header"><div class="logo">The Valley Times</div><p class="tagline">{HEADER}</p></div>
<ul id="menu">{nav}</ul>
<div id="main"><div class="article"><h1>{title}</h1>{body}</div>{f'<ul class="archive">{big}</ul>' if big else ''}</div>
<div id="sidebar"><h3>Newsletter</h3><p>{SIDEBAR}</p></div>
<div id="footer"><p>{FOOTER}</p></div>
</div></body></html>"""


def site_docs(host="www.valley.example", paths=None, **kw):
    paths = paths or [u for u, _ in MENU]
    return [Document(id=f"{host}{u}", url=f"http://{host}{u}", raw=page_html(u, **kw).encode()) for u in paths]


def run_extractor(method, docs, **options):
    clean = Clean(extractor=method, languages=["en"], **options)
    cleaned = [clean.apply(d) for d in docs]
    stage = clean.extractor.stream_stage(clean.extractor.params, reason="boilerplate")
    return list(stage.run([d for d in cleaned if d is not None])), stage


def kept(doc):
    return [p.text for p in doc.paragraphs if p.is_good]


def removed(doc):
    return [p.text for p in doc.paragraphs if not p.is_good]


# -- Ch. 7: candidates selection -------------------------------------------------------------

def test_hyperlink_distance_follows_the_examples_of_chapter_7():
    h = ("gp", "computer-science")
    assert h_distance(h, h) == 0
    assert h_distance(h, ("gp", "computer-science", "information-systems-and-applications")) == 1
    assert h_distance(h, ("gp",)) == -1
    assert h_distance(h, ("gp", "engineering")) == -1
    assert h_distance(h, ("www.springer.com", "gp")) == -2          # Example 7.2.6 (5)
    a = directory(normalize_url("http://www.upv.es")[1])
    b = directory(normalize_url("http://www.upv.es/organizacion/la-institucion/index-en.html")[1])
    assert (h_distance(a, b), h_distance(b, a)) == (2, -2)            # Figure 7.4


def test_dom_distance_counts_edges_through_the_common_ancestor():
    # Figure 7.4: HTML BODY DIV A and HTML BODY TABLE A'
    assert d_distance((0, 1, 2, 3), (0, 1, 4, 5)) == 4
    assert d_distance((0, 1, 2), (0, 1, 2)) == 0


def test_sort_links_orders_by_link_relevance_then_farthest_dom_position():
    # key page in /about/; links: same directory (two near each other, one far), a subdirectory, the root
    links = [("s.org/about/a", (0, 1, 2, 3)), ("s.org/about/b", (0, 1, 2, 4)), ("s.org/", (0, 5)),
             ("s.org/about/news/x", (0, 1, 2, 6)), ("s.org/about/c", (0, 7, 8))]
    order = sort_links(links, ("about",))
    # distance 0 first: a (document order), then c (farthest from a), then b; then +1; then -1
    assert order == ["s.org/about/a", "s.org/about/c", "s.org/about/b", "s.org/about/news/x", "s.org/"]


def _site_page(url, html):
    seg = segment(parse_html(html))
    norm = normalize_url(url)
    sp = SitePage(Document(id=url, url=url), norm[1], tree=build_tree(seg))
    from corpustool.sitelevel.temex import page_links
    sp.links = page_links(seg, url, norm[0], norm[1])
    sp.link_set = frozenset(u for u, _ in sp.links)
    return sp


def _links_page(*hrefs):
    return "<html><body>" + "".join(f'<a href="{h}">link</a>' for h in hrefs) + "</body></html>"


def test_candidates_are_a_clique_of_mutually_linked_pages_present_in_the_input():
    base = "http://s.org"
    pages = {
        "/k": ["/a", "/b", "/c", "/d", "/gone"],     # the key page; /gone is not in the input
        "/a": ["/b", "/c"],                          # a, b, c link each other: a 3-CS
        "/b": ["/a", "/c"],
        "/c": ["/a", "/b"],
        "/d": ["/k"],                                # links back only to the key page
    }
    sps = {normalize_url(base + p)[1]: _site_page(base + p, _links_page(*links)) for p, links in pages.items()}
    key = sps["s.org/k"]
    cs = select_candidates(key, sps, 3, 10_000)
    assert [c.key for c in cs] == ["s.org/a", "s.org/b", "s.org/c"]
    # a 4-CS does not exist: the largest clique is returned
    assert len(select_candidates(key, sps, 4, 10_000)) == 3
    # hrefs resolve against the page URL; other hosts are not the site
    sp = _site_page("http://www.s.org/dir/page.html",
                    _links_page("other.html", "../up.html", "http://s.org/dir/page.html#top", "http://t.org/x"))
    assert [u for u, _ in sp.links] == ["s.org/dir/other.html", "s.org/up.html"]


# -- Ch. 8: equal top-down mapping -------------------------------------------------------------

def test_position_value_reproduces_tables_8_1_and_8_3():
    # Table 8.1: both nodes have 5 children
    assert [position_value(0, j, 5, 5) for j in range(5)] == pytest.approx([1, 0.8, 0.6, 0.4, 0.2])
    # Table 8.3: B has 5 children (rows), A has 4 (columns)
    table_8_3 = [[1, 0.75, 0.5, 0.25], [1, 1, 0.75, 0.5], [0.75, 1, 1, 0.75], [0.5, 0.75, 1, 1],
                 [0.25, 0.5, 0.75, 1]]
    for i, row in enumerate(table_8_3):
        assert [position_value(i, j, 5, 4) for j in range(4)] == pytest.approx(row)
        assert [position_value(j, i, 4, 5) for j in range(4)] == pytest.approx(row)   # symmetric


def _tree(html, **kw):
    return build_tree(segment(parse_html(html)), **kw)


def test_etdm_is_top_down_and_uses_the_weighted_equality_threshold():
    p = make_params("temex")
    key = _tree('<body><div class="nav x"><a href="/a">A</a><a href="/b">B</a></div><div id="c"><p>one</p></div></body>')
    same = _tree('<body><div class="nav x"><a href="/a">A</a><a href="/b">B</a></div><div id="c"><p>two</p></div></body>')
    mapped = set(Mapper(p).etdm(key, same))
    texts = {key.text[i] for i in mapped if key.text[i]}
    # the menu and its texts map; "one" does not equal "two"; the <p> itself maps (same structure)
    assert texts == {"A", "B"}
    assert {key.tag[i] for i in mapped} == {"body", "div", "a", "p", "#text"}
    # attributes weigh 0.5: a menu with other attributes does not map, and nothing below it does (top-down)
    other = _tree('<body><div class="menu" data-x="1"><a href="/a">A</a><a href="/b">B</a></div></body>')
    mapped = set(Mapper(p).etdm(key, other))
    assert not {key.text[i] for i in mapped if key.text[i]}


def test_structure_only_relation_of_the_thesis_is_available():
    p = make_params("temex", compare_text=False)
    key = _tree("<body><div><p>one</p></div></body>")
    other = _tree("<body><div><p>two</p></div></body>")
    mapped = Mapper(p).etdm(key, other)
    assert len(mapped) == len(key)           # every node, the text leaf too, maps


# -- the three methods on a 6-page site ------------------------------------------------------

def test_temex_finds_the_template_and_keeps_the_articles():
    out, stage = run_extractor("temex", site_docs())
    assert len(out) == len(MENU)
    for doc in out:
        path = "/" + doc.url.split("/", 3)[3]
        title, paras = article(path)
        assert kept(doc) == [title, *paras]
        assert set(removed(doc)) == TEMPLATE_TEXTS
        assert all(p.reason == "boilerplate" for p in doc.paragraphs if not p.is_good)
        assert doc.html is None               # released after the decision
    assert stage.stats.extra["pages_decided"] == 6
    assert stage.stats.extra["candidate_pages"] == 6 * 3      # n = 3 for every page
    assert stage.stats.docs_in == stage.stats.docs_out == 6


def test_site_conex_finds_the_main_content():
    out, stage = run_extractor("site-conex", site_docs())
    for doc in out:
        path = "/" + doc.url.split("/", 3)[3]
        title, paras = article(path)
        assert kept(doc) == [title, *paras]
    assert stage.stats.extra["candidate_pages"] == 6 * 4      # n = 4 (Sect. 10.3.1)


def test_hybex_never_calls_page_level_main_content_template():
    out, stage = run_extractor("hybex", site_docs())
    for doc in out:
        path = "/" + doc.url.split("/", 3)[3]
        title, paras = article(path)
        assert set(kept(doc)) >= {title, *paras}
        assert {FOOTER, SIDEBAR, HEADER} <= set(removed(doc))
        assert doc.meta["hybex_main_content"]


def test_votes_decide_how_often_a_node_must_be_mapped():
    # the sidebar only on two pages: with v = 2 it needs two other pages carrying it
    docs = site_docs()
    for d in docs[1:5]:
        d.raw = d.raw.replace(b'<div id="sidebar">', b'<div id="sidebar" class="variant">')
    out, _ = run_extractor("temex", docs, cs_size=5, votes=5)
    # with v = n = 5 the sidebar of the first page is mapped on one page only: not template
    assert SIDEBAR in kept(out[0]) and FOOTER in removed(out[0])
    out, _ = run_extractor("temex", site_docs(), cs_size=5, votes=5)
    assert SIDEBAR in removed(out[0])


def test_a_page_without_candidates_is_left_as_it_is():
    docs = site_docs(paths=["/news/"]) + site_docs(host="other.example", paths=["/sport/"])
    out, stage = run_extractor("temex", docs)
    assert all(p.is_good for d in out for p in d.paragraphs)
    assert stage.stats.extra["pages_without_candidates"] == 2


def test_documents_without_url_pass_through_and_output_is_deterministic():
    docs = site_docs() + [Document(id="nourl", raw=page_html("/news/").encode())]
    out1, stage = run_extractor("temex", docs)
    out2, _ = run_extractor("temex", site_docs() + [Document(id="nourl", raw=page_html("/news/").encode())])
    assert [d.id for d in out1] == [d.id for d in out2]
    assert [[(p.text, p.cls) for p in d.paragraphs] for d in out1] == \
           [[(p.text, p.cls) for p in d.paragraphs] for d in out2]
    assert stage.stats.extra["undecided:no-url-or-markup"] == 1
    assert any(d.id == "nourl" and all(p.is_good for p in d.paragraphs) for d in out1)


def test_memory_bound_flushes_site_batches():
    # two interleaved sites; at most 4 buffered documents; a site is decided at 3 pages
    a, b = site_docs(host="a.example"), site_docs(host="b.example")
    docs = [d for pair in zip(a, b) for d in pair]
    out, stage = run_extractor("temex", docs, site_pages=3, buffered_pages=4)
    assert sorted(d.id for d in out) == sorted(d.id for d in docs)      # nothing lost
    assert stage.stats.extra["site_batches"] == 4
    # each batch of 3 mutually linked pages still finds the footer
    assert all(FOOTER in removed(d) for d in out)


def test_options_are_validated():
    with pytest.raises(OptionError, match="sum to 1"):
        get_extractor("temex", w_position=0.5)
    with pytest.raises(OptionError, match="unknown temex option"):
        get_extractor("temex", colour="red")
    with pytest.raises(OptionError, match="position_option"):
        get_extractor("site-conex", position_option=5)
    with pytest.raises(OptionError, match="positive integer"):
        get_extractor("hybex", cs_size=0)
    assert get_extractor("site-conex").params.threshold == 0.9


# -- as evidence for jusText ------------------------------------------------------------------

@pytest.mark.parametrize("method", ["temex", "site-conex", "hybex"])
def test_template_evidence_removes_jusText_paragraphs_repeated_across_the_site(method):
    opts = PipelineOptions(languages=["en"], extractor="justext", template_evidence=method, langfilter=False,
                           dedup_exact=False,
                           dedup_near=False, dedup_para=False)
    stages = build_stages(opts)
    clean, evidence = stages[0], stages[1]
    assert evidence.name == method
    docs = [clean.apply(d) for d in site_docs()]
    assert all(d is not None for d in docs)
    # jusText alone keeps the long sidebar and footer sentences
    assert all(SIDEBAR in kept(d) for d in docs)
    out = list(evidence.run(docs))
    for doc in out:
        path = "/" + doc.url.split("/", 3)[3]
        title, paras = article(path)
        assert set(paras) <= set(kept(doc))
        assert SIDEBAR not in kept(doc) and FOOTER not in kept(doc)
        assert all(p.reason in ("boilerplate", "template") for p in doc.paragraphs if not p.is_good)
        assert any(p.reason == "template" for p in doc.paragraphs)


# -- the runtime fix for nodes with hundreds of children ------------------------------------

def test_runtime_fix_groups_children_and_cuts_comparisons():
    html = page_html("/news/", extra_children=450)
    tree = _tree(html, group=100, childnodes=200)
    groups = [i for i in range(len(tree)) if tree.tag[i] == GROUP]
    assert len(groups) == 5 and [len(tree.children[g]) for g in groups] == [100, 100, 100, 100, 50]
    assert not [i for i in range(len(tree)) if len(tree.children[i]) > 200]

    def run(fix):
        p = make_params("temex", runtime_fix=fix)
        key = _tree(html, group=p.group if fix else 0, childnodes=p.childnodes if fix else 0)
        others = [_tree(page_html(u, extra_children=450), group=p.group if fix else 0,
                        childnodes=p.childnodes if fix else 0) for u in ("/sport/", "/culture/", "/science/")]
        mapper = Mapper(p)
        return template_leaves(mapper, key, others, p.votes), mapper.comparisons

    with_fix, cost_fix = run(True)
    without, cost = run(False)
    assert with_fix == without                 # same template (the archive lists differ in their texts)
    assert cost > 3 * cost_fix                 # 450 x 450 candidate pairs against 5 groups of <= 100


def test_runtime_fix_in_the_stage():
    docs = site_docs(extra_children=300)
    out, stage = run_extractor("temex", docs)
    assert all(FOOTER in removed(d) for d in out)
    title, paras = article("/news/")
    news = next(d for d in out if d.url.endswith("/news/"))
    assert set(paras) <= set(kept(news))
    assert "Archive entry number 7 of /news/" in kept(news)   # the page's own list is not template


def test_odd_pages_in_a_site_never_stop_the_run():
    odd = ["<frameset><frame src='/a'></frameset>", "just some text without any markup at all, " * 5,
           "<html><body>" + "<div>" * 3000 + "deep text inside many divs, long enough to be kept here" + "</div>" * 3000,
           "<html><body><p>unclosed <b>bold <i>italic <a href='/news/'>link</body>"]
    for method in ("temex", "site-conex", "hybex"):
        docs = site_docs() + [Document(id=f"odd{k}", url=f"http://www.valley.example/odd{k}.html", raw=h.encode())
                              for k, h in enumerate(odd)]
        out, stage = run_extractor(method, docs)
        ids = {d.id for d in out}
        assert {d.id for d in docs[:6]} <= ids
        assert stage.stats.docs_in == stage.stats.docs_out + sum(stage.stats.drops.values())


def test_the_clean_filter_runs_the_methods_stream_stage(tmp_path):
    """``corpustool clean --extractor temex`` as a filter decides as build does: its clean stage
    keeps every block, and without the stream stage after it the template was all kept."""
    import json
    import subprocess
    import sys

    lines = "".join(json.dumps({"url": d.url, "html": d.raw.decode()}) + "\n" for d in site_docs())
    (tmp_path / "site.jsonl").write_text(lines, encoding="utf-8")
    read = subprocess.run([sys.executable, "-m", "corpustool", "read", str(tmp_path / "site.jsonl")],
                          capture_output=True, check=True, timeout=300)
    res = subprocess.run([sys.executable, "-m", "corpustool", "clean", "--extractor", "temex", "--lang", "en",
                          "--stats", str(tmp_path / "stats.json")],
                         input=read.stdout, capture_output=True, timeout=300)
    assert res.returncode == 0, res.stderr.decode()
    docs = [json.loads(line) for line in res.stdout.decode().splitlines()]
    assert len(docs) == len(MENU)
    for doc in docs:
        title, paras = article("/" + doc["url"].split("/", 3)[3])
        assert [p["text"] for p in doc["paragraphs"] if p["class"] == "good"] == [title, *paras]
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert [s["stage"] for s in stats["stages"]][-2:] == ["clean", "temex"]
