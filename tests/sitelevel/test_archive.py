"""Web-archive templates (seed 000, DBCE) on hand-written multi-page sites, and the site benchmark builder."""
import importlib.util
import json
import random
import sys

import pytest

from corpustool.document import Document
from corpustool.executors.local import LocalExecutor
from corpustool.errors import OptionError
from corpustool.extractors.base import parse_html
from corpustool.extractors.clean import Clean
from corpustool.extractors.registry import get_extractor
from corpustool.pipeline import PipelineOptions, build_stages
from corpustool.sitelevel.archive import (BOILERPLATE, CONTENT, INVALID, ArchiveParams, ArchiveStage, CrossBuilder,
                                          MinHasher, classify_bits, jaccard, make_entry, skeleton_tokens)

from tests.support.paths import REPO

NAV = ["Home", "World", "Science", "Travel", "Contact"]
COOKIE = ("We use cookies to make this website work and to understand how you use it, and by staying on "
          "the site you agree that we may store them on your device for this purpose.")
FOOTER = "Copyright 2024 The Valley Courier, all rights reserved."
NEWSLETTER = ("Subscribe to our newsletter and we will send you the best stories of the week every Friday "
              "morning, so that you never miss what is going on in the valley and in the town.")
TOPICS = ["river", "orchard", "library", "bridge", "market", "harbour", "railway", "museum", "forest", "school"]
STOP = ["the", "of", "and", "to", "in", "that", "it", "was", "for", "on", "with", "as", "by", "at", "they",
        "which", "from", "their", "would", "there", "been", "has", "when", "this", "we"]
CONTENT_WORDS = ["council", "evening", "engineers", "report", "residents", "mayor", "plans", "winter", "builders",
                 "money", "children", "farmers", "visitors", "station", "street", "committee", "spring", "water",
                 "timber", "stone", "volunteers", "teachers", "trains", "boats", "apples", "books", "paintings"]


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(STOP) if k % 2 else rng.choice(CONTENT_WORDS) for k in range(n)]
    return " ".join(words).capitalize() + "."


def article(i: int) -> tuple[str, list[str]]:
    """A title and three paragraphs; different pages share no run of six words."""
    rng = random.Random(i)
    title = f"News about the {TOPICS[i % len(TOPICS)]} number {i}"
    return title, [" ".join(sentence(rng, rng.randint(18, 26)) for _ in range(3)) for _ in range(3)]


def news_page(i: int, extra: str = "", nav=NAV) -> str:
    title, paras = article(i)
    menu = "".join(f"<li><a href='/{n.lower()}/'>{n}</a></li>" for n in nav)
    body = "".join(f"<p>{p}</p>" for p in paras)
    return (f"<html><head><title>{title}</title><script>var x = 1;</script></head><body>"
            f"<div id='cookie'><p>{COOKIE}</p></div><nav><ul>{menu}</ul></nav>"
            f"<main><h1>{title}</h1>{body}<p class='nl'>{NEWSLETTER}</p></main>{extra}<footer><p>{FOOTER}</p></footer></body></html>")


def forum_page(i: int) -> str:
    rows = "".join(f"<tr><td><a href='/t/{i}{k}'>Thread {i}-{k}</a></td><td>{k} replies</td></tr>" for k in range(6))
    return f"<html><body><table class='forum'><tbody>{rows}</tbody></table><div><span>Forum</span></div></body></html>"


def run_extractor(pages: list[tuple[str, str, str]], **options) -> tuple[list[Document], ArchiveStage]:
    """(url, date, html) pages through the clean stage with the archive extractor and its stage."""
    clean = Clean(extractor="archive", **options)
    docs = []
    for n, (url, date, html) in enumerate(pages):
        d = clean.apply(Document(id=str(n), url=url, crawl_date=date, raw=html.encode()))
        assert d is not None
        docs.append(d)
    stage = ArchiveStage(clean.extractor.params, reason="boilerplate")
    return list(stage.run(docs)), stage


def kept(doc: Document) -> list[str]:
    return [p.text for p in doc.paragraphs if p.is_good]


# -- Appendix B and stage 1 ---------------------------------------------------------------

def test_bit_patterns_follow_appendix_b():
    assert classify_bits(0b11000, 0b10000) == CONTENT          # B.1: only in wEnCur
    assert classify_bits(0b11000, 0b11000) == BOILERPLATE
    assert classify_bits(0b11100, 0b10100) == BOILERPLATE      # B.2: shared with wEnDown
    assert classify_bits(0b11001, 0b10000) == BOILERPLATE      # B.3: with a snapshot, cur-only is dynamic
    assert classify_bits(0b11001, 0b10001) == CONTENT
    assert classify_bits(0b11011, 0b10011) == CONTENT          # B.4: in both snapshots only
    assert classify_bits(0b11011, 0b10010) == BOILERPLATE
    assert classify_bits(0b11111, 0b11111) == BOILERPLATE      # B.5
    assert classify_bits(0b11111, 0b10101) == INVALID          # not listed: invalid


def test_skeleton_tokens_are_listing_2_7():
    root = parse_html("<html><body><ul><li>Buy More</li><li>New Cars</li></ul><p>Text</p></body></html>")
    tokens = skeleton_tokens(root)
    # the thesis's own example token for the <ul> under <body>
    assert "0_0_2_ul/0_0_2_body/0_0_2_html/0_0_2_[document]" in tokens
    assert "1_0_2_p/1_0_2_body/1_0_2_html/1_0_2_[document]" in tokens
    assert "1_0_3_li/1_0_3_ul/1_0_3_body/1_0_3_html/1_0_3_[document]" in tokens
    # text and attributes do not matter, scripts are sanitised away
    other = parse_html("<html><body><ul class=x><li>A</li><li>B</li></ul><p>Other words</p>"
                       "<script>y()</script></body></html>")
    assert skeleton_tokens(other) == tokens


def test_lsh_groups_pages_by_template():
    hasher = MinHasher(128, seed=1)
    entries = [make_entry(parse_html(news_page(i)), f"http://c.example/a{i}", None, i, hasher) for i in range(4)]
    entries += [make_entry(parse_html(forum_page(i)), f"http://c.example/f{i}", None, 4 + i, hasher)
                for i in range(3)]
    assert jaccard(entries[0].skeleton, entries[1].skeleton) > 0.9
    assert jaccard(entries[0].skeleton, entries[4].skeleton) < 0.2
    builder = CrossBuilder(entries, ArchiveParams())
    for e in entries[:4]:
        cross = builder.cross(e)
        assert cross.up in entries[:4] and cross.down in entries[:4] and cross.up is not e
    assert builder.cross(entries[4]).up in entries[4:]


# -- as an extractor ----------------------------------------------------------------------------

def test_shared_template_is_boilerplate_articles_are_kept():
    pages = [(f"http://www.courier.example/news/{i}.html", f"2024-05-0{1 + i}T10:00:00Z", news_page(i))
             for i in range(7)]
    out, stage = run_extractor(pages)
    assert len(out) == 7
    for i, doc in enumerate(out):
        title, paras = article(i)
        assert kept(doc) == [title, *paras]
        bad = [p for p in doc.paragraphs if not p.is_good]
        assert {p.text for p in bad} == {*NAV, COOKIE, NEWSLETTER, FOOTER}
        assert all(p.reason == "boilerplate" for p in bad)
    assert stage.stats.extra["cross:11100"] == 7
    assert stage.stats.docs_in == stage.stats.docs_out == 7


def test_a_menu_without_the_current_page_is_still_boilerplate():
    # a menu that leaves out the current page: the other items recur, the menu is template
    pages = [(f"http://www.courier.example/news/{i}.html", None,
              news_page(i, nav=[n for k, n in enumerate(NAV) if k != i % len(NAV)])) for i in range(6)]
    out, _ = run_extractor(pages)
    for i, doc in enumerate(out):
        assert not set(kept(doc)) & set(NAV)
        assert kept(doc)[1:] == article(i)[1]


def test_snapshots_separate_dynamic_parts_from_the_article():
    url = "http://www.courier.example/news/0.html"
    boxes = ["Most read today: the ferry timetable and the summer concerts in the park near the old mill",
             "Most read today: the new cycle lanes and the closing of the swimming pool for the winter",
             "Most read today: the election results and the weather warning for the coming weekend"]
    pages = [(url, f"2024-05-0{1 + k}T10:00:00Z", news_page(0, extra=f"<aside><p>{boxes[k]}</p></aside>"))
             for k in range(3)]
    pages += [(f"http://www.courier.example/news/{i}.html", "2024-05-02T12:00:00Z",
               news_page(i, extra=f"<aside><p>{boxes[i % 3]} and more</p></aside>")) for i in range(1, 5)]
    out, stage = run_extractor(pages)
    middle = out[1]                             # has both an earlier and a later snapshot
    assert stage.stats.extra["cross:11111"] == 1
    title, paras = article(0)
    assert kept(middle) == [title, *paras]      # in every snapshot, in no sibling: content (10011)
    assert boxes[1] not in kept(middle)         # changes between snapshots: not content
    cls = {p.text: p.features["archive_class"] for p in middle.paragraphs}
    assert cls[paras[0]] == CONTENT and cls[FOOTER] == BOILERPLATE


def test_batches_bound_memory_and_carry_partners_over():
    pages = [(f"http://www.courier.example/news/{i}.html", None, news_page(i)) for i in range(7)]
    out, stage = run_extractor(pages, batch_pages=3, carry=5)
    assert stage.stats.extra["batches"] == 3 and stage.peak_buffered <= 3
    # the last batch holds one page: its partners come from the carried pages
    assert kept(out[-1]) == [article(6)[0], *article(6)[1]]
    assert [d.id for d in out] == [str(i) for i in range(7)]
    # without carried partners the lone page has no cross and stays undecided (all kept)
    out, stage = run_extractor(pages, batch_pages=3, carry=0)
    assert stage.stats.extra["cross:none"] == 1 and COOKIE in kept(out[-1])


def test_max_buffered_flushes_the_site_waiting_longest():
    pages = [(f"http://www.site{i % 2}.example/news/{i}.html", None, news_page(i)) for i in range(8)]
    out, stage = run_extractor(pages, max_buffered=3, batch_pages=100)
    assert stage.peak_buffered <= 4 and len(out) == 8
    assert sorted(d.id for d in out) == [str(i) for i in range(8)]


def test_deterministic_and_options_checked():
    pages = [(f"http://www.courier.example/news/{i}.html", None, news_page(i)) for i in range(6)]
    a, _ = run_extractor(pages)
    b, _ = run_extractor(pages)
    assert [d.to_dict() for d in a] == [d.to_dict() for d in b]
    with pytest.raises(OptionError):
        get_extractor("archive", invalid="maybe")
    with pytest.raises(OptionError):
        get_extractor("archive", lsh_threshold=0)
    with pytest.raises(OptionError):
        get_extractor("archive", bogus=1)


# -- as evidence for jusText ------------------------------------------------------------------------

def test_template_evidence_marks_justext_paragraphs():
    opts = PipelineOptions(languages=["en"], template_evidence="archive", langfilter=False, dedup_exact=False,
                           dedup_near=False, dedup_para=False)
    stages = build_stages(opts)
    assert stages[1].name == "archive" and stages[0].keep_html
    docs = [Document(id=str(i), url=f"http://www.courier.example/news/{i}.html", raw=news_page(i).encode())
            for i in range(6)]
    out = list(LocalExecutor().run(docs, stages))
    assert len(out) == 6
    for i, doc in enumerate(out):
        good = kept(doc)
        for p in article(i)[1]:
            assert p in good
        assert NEWSLETTER not in good and FOOTER not in good
        newsletter = next(p for p in doc.paragraphs if p.text == NEWSLETTER)
        assert newsletter.reason == "template"
        assert doc.html is None                         # freed once analysed
    # jusText alone keeps the newsletter box (it follows the article): the evidence removed it
    plain = build_stages(PipelineOptions(languages=["en"], langfilter=False, dedup_exact=False, dedup_near=False,
                                         dedup_para=False))
    alone = list(LocalExecutor().run([Document(id="x", url="http://www.courier.example/news/1.html",
                                               raw=news_page(1).encode())], plain))
    assert NEWSLETTER in kept(alone[0])
    assert stages[1].stats.extra["paragraphs_removed"] >= 6


def test_documents_without_markup_are_left_alone():
    stage = ArchiveStage(ArchiveParams(), reason="template")
    from corpustool.document import Paragraph
    doc = Document(id="a", url="http://x.example/", paragraphs=[Paragraph(text="Some kept text here.")])
    out = list(stage.run([doc]))
    assert out == [doc] and doc.paragraphs[0].is_good
    assert stage.stats.extra["no-markup"] == 1 and stage.stats.extra["pages-undecided"] == 1


# -- the site benchmark builder --------------------------------------------------------------------

def _bench_module():
    spec = importlib.util.spec_from_file_location("make_site_bench", REPO / "scripts" / "bench" / "make_site_bench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_site_bench"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_site_bench_is_deterministic_and_readable(tmp_path):
    from corpustool.eval.gold import read_gold
    from corpustool.eval.tokens import text_nodes
    from corpustool.readers import make_reader

    mod = _bench_module()
    log = lambda m: None  # noqa: E731
    info = mod.build(tmp_path / "a", n_sites=2, n_pages=8, snapshots=0.5, source="generated", seed=3, log=log)
    mod.build(tmp_path / "b", n_sites=2, n_pages=8, snapshots=0.5, source="generated", seed=3, log=log)
    for name in ("crawl.warc.gz", "gold.json", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()

    records = info["records"]
    docs = list(make_reader([str(tmp_path / "a" / "crawl.warc.gz")]).read())
    assert [d.warc_record_id for d in docs] == [r["record_id"] for r in records]
    assert len({r["site"] for r in records}) == 2
    # snapshots: the same URL crawled again later
    snaps = [r for r in records if r["snapshot"] > 0]
    assert snaps and all(any(o["url"] == s["url"] and o["snapshot"] == 0 for o in records) for s in snaps)

    gold = read_gold(f"articles:{tmp_path / 'a'}")
    assert len(gold) == len(records)
    for page in gold[:12]:
        raw, _ = page.load()
        visible = " ".join(" ".join(t.split()) for t, _ in text_nodes(parse_html(raw.decode("utf-8"))))
        for para in page.paragraphs:
            assert para in visible                   # the gold is on the page ...
        assert "cookies" not in page.text.lower()    # ... and the template is not in the gold
    with open(tmp_path / "a" / "gold.json", encoding="utf-8") as fh:
        assert set(json.load(fh)) == {r["id"] for r in records}


def test_knn_reclassifies_invalid_blocks_like_their_decided_neighbours():
    from corpustool.sitelevel.archive import Block, PageBlocks, reclassify

    long_text = "the council and the engineers met in the evening to talk about the plans for the winter " * 3
    blocks, classes = [], []
    for k in range(6):          # a menu of short links, then paragraphs of running text
        blocks.append(Block(f"Link {k}", "li", 1, 2, 2, 1))
        classes.append(BOILERPLATE)
    for k in range(6):
        blocks.append(Block(long_text, "p", 2, 51, 0, 0))
        classes.append(CONTENT)
    blocks.insert(3, Block("Link x", "li", 1, 2, 2, 1))
    classes.insert(3, INVALID)
    blocks.insert(10, Block(long_text + "more", "p", 2, 52, 0, 0))
    classes.insert(10, INVALID)
    page = PageBlocks(blocks, parents=[-1, 0, 0], tags=["body", "ul", "div"])
    assert reclassify(page, classes, [None, BOILERPLATE, CONTENT], k=5) == 2
    assert classes[3] == BOILERPLATE and classes[10] == CONTENT
    # without decided examples of both classes nothing is guessed
    only = [CONTENT] * 6 + [INVALID]
    assert reclassify(PageBlocks(blocks[:7], [-1, 0, 0], ["body", "ul", "div"]), only, [None] * 3, k=5) == 0
    assert only[-1] == INVALID


def test_reclassify_option_runs_in_the_stage():
    url = "http://www.courier.example/news/0.html"
    pages = [(url, f"2024-05-0{1 + k}T10:00:00Z", news_page(0, extra=f"<aside><p>Box number {k} changes</p></aside>"))
             for k in range(3)]
    pages += [(f"http://www.courier.example/news/{i}.html", "2024-05-02T12:00:00Z", news_page(i)) for i in range(1, 5)]
    out, _ = run_extractor(pages, reclassify=True)
    middle = out[1]
    box = next(p for p in middle.paragraphs if p.text.startswith("Box number"))
    assert box.features["archive_class"] == INVALID and box.features["archive_reclassified"] in (CONTENT, BOILERPLATE)
    assert kept(middle)[1:4] == article(0)[1]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod             # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_bench_docs_section_is_replaced_and_others_kept(tmp_path, monkeypatch):
    bench = _script("bench_site")
    docs = tmp_path / "site_methods.md"
    docs.write_text("# Site-level methods\n\n## TemEx\n\ntheir text\n", encoding="utf-8")
    monkeypatch.setattr(bench, "DOCS", docs)
    bench.write_docs(bench.SECTION + "\n\nfirst table\n")
    bench.write_docs(bench.SECTION + "\n\nsecond table\n")
    text = docs.read_text(encoding="utf-8")
    assert "## TemEx\n\ntheir text" in text and "second table" in text and "first table" not in text
    assert text.count(bench.SECTION) == 1
    # a section appended after ours later survives the next run
    docs.write_text(text + "\n## Later section\n\nmore\n", encoding="utf-8")
    bench.write_docs(bench.SECTION + "\n\nthird table\n")
    text = docs.read_text(encoding="utf-8")
    assert "## Later section\n\nmore" in text and "third table" in text and "second table" not in text


def test_bench_selects_the_first_pages_of_every_site():
    bench = _script("bench_site")
    docs = [Document(id=str(i), warc_record_id=f"r{i}") for i in range(7)]
    by_record = {f"r{i}": {"site": "ab"[i % 2]} for i in range(7)}
    assert [d.id for d in bench.select(docs, by_record, 2)] == ["0", "1", "2", "3"]
    assert len(bench.select(docs, by_record, None)) == 7


def test_a_copy_under_another_url_is_not_a_template_sibling():
    pages = [(f"http://www.courier.example/news/{i}.html", None, news_page(i)) for i in range(5)]
    pages.append(("http://www.courier.example/print/0.html", None, news_page(0)))   # the same page again
    out, _ = run_extractor(pages)
    assert kept(out[0]) == [article(0)[0], *article(0)[1]]
    assert kept(out[5]) == kept(out[0])
