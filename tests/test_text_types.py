"""Text types on <doc> (issue 32): tld, site, wordcount, length, lang_diff, type, date, author, sitename."""
import json
import subprocess
import sys

import pytest

from corpustool.corpus_profile import CorpusProfile
from corpustool.document import Document, Paragraph
from corpustool.extractors.clean import Clean
from corpustool.language.filter import LanguageFilter
from corpustool.page_type import TYPES, Model, features
from corpustool.report import render_report
from corpustool.text_types import length_class, page_metadata, site_and_tld, text_types, url_date
from corpustool.writers import open_writer
from corpustool.writers.registry import cwb_flags, manatee_config
from corpustool.writers.vertical import DOC_ATTRIBUTES, VerticalWriter

from tests.support.paths import REPO
BODY = ("<p>The council met on Tuesday evening to discuss the future of the old tram depot, which has "
        "stood empty for more than a decade and which many residents would like to see turned into "
        "a market hall with a small museum of the city's transport history.</p>" * 4)


def page(head="", body="", url="https://news.example.org/story"):
    return f"<html><head><title>A story</title>{head}</head><body><article><h1>A story</h1>{body}{BODY}</article></body></html>"


# -- dates ------------------------------------------------------------------------------

def test_jsonld_date_author_and_publisher():
    head = ('<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",'
            '"dateModified":"2024-02-01T08:00:00Z","datePublished":"2023-11-05T10:00:00+01:00",'
            '"author":[{"@type":"Person","name":"Jana Nov\\u00e1kov\\u00e1"}],'
            '"publisher":{"@type":"Organization","name":"The Example Times"}}</script>')
    meta = page_metadata(page(head), "https://news.example.org/story", "2024-03-01T00:00:00Z")
    assert meta["date"] == "2023-11-05" and meta["date_source"] == "json-ld"
    assert meta["author"] == "Jana Nováková"
    assert meta["sitename"] == "The Example Times"
    assert "NewsArticle" in meta["schema_types"]


def test_meta_date_author_and_site_name():
    head = ('<meta property="article:published_time" content="2022-06-30T12:00:00Z">'
            '<meta name="author" content="A. Writer &amp; B. Editor">'
            '<meta property="og:site_name" content="Example News">')
    meta = page_metadata(page(head), "https://news.example.org/story", "2024-03-01T00:00:00Z")
    assert (meta["date"], meta["date_source"]) == ("2022-06-30", "meta")
    assert meta["author"] == "A. Writer & B. Editor" and meta["sitename"] == "Example News"


def test_time_element_and_url_dates():
    body = '<p>Related: <time datetime="2019-01-01">old</time></p><span><time itemprop="datePublished" datetime="2021-04-09T10:00">9 April</time></span>'
    meta = page_metadata(page("", body), "https://x.example/a", "2024-03-01")
    assert (meta["date"], meta["date_source"]) == ("2021-04-09", "time")      # the one marked as published
    meta = page_metadata(page(), "https://blog.example.com/2020/02/29/leap-day/", "2024-03-01")
    assert (meta["date"], meta["date_source"]) == ("2020-02-29", "url")
    assert url_date("https://blog.example.com/2021/02/29/no-such-day/") is None
    assert url_date("https://shop.example/item/20230512/x") == "2023-05-12"


def test_a_future_date_is_dropped_not_capped():
    head = ('<script type="application/ld+json">{"@type":"Article","datePublished":"2031-01-01"}</script>'
            '<meta name="date" content="2023-07-14">')
    # later than the crawl: dropped, and the next source that is not later answers
    meta = page_metadata(page(head), "https://x.example/a", "2024-03-01T10:00:00Z")
    assert (meta["date"], meta["date_source"]) == ("2023-07-14", "meta")
    # nothing else: no date at all (never the crawl date in its place)
    only = '<script type="application/ld+json">{"@type":"Article","datePublished":"2031-01-01"}</script>'
    assert "date" not in page_metadata(page(only), "https://x.example/a", "2024-03-01T10:00:00Z")
    # the crawl day itself is allowed
    same = '<meta name="date" content="2024-03-01T23:59:00Z">'
    assert page_metadata(page(same), "https://x.example/a", "2024-03-01T10:00:00Z")["date"] == "2024-03-01"


def test_no_date_and_nonsense():
    assert "date" not in page_metadata(page(), "https://x.example/about", "2024-03-01")
    bad = '<meta name="date" content="1970-01-01"><meta name="pubdate" content="2023-13-45">'
    meta = page_metadata(page(bad), "https://x.example/about", "2024-03-01")
    assert "date" not in meta
    assert page_metadata(None) == {} and page_metadata("") == {}
    # a URL is no author, and a name is bounded
    meta = page_metadata(page('<meta name="author" content="https://x.example/me">'), None, None)
    assert "author" not in meta
    meta = page_metadata(page(f'<meta name="author" content="{"a" * 5000}">'), None, None)
    assert "author" not in meta


# -- tld and site -----------------------------------------------------------------------

@pytest.mark.parametrize("host, site, tld", [
    ("www.bbc.co.uk", "bbc.co.uk", "uk"),
    ("news.bbc.co.uk", "bbc.co.uk", "uk"),
    ("a.b.example.com.au", "example.com.au", "au"),
    ("someone.github.io", "someone.github.io", "io"),          # private section of the list
    ("xn--bcher-kva.de", "bücher.de", "de"),                   # IDN: in Unicode
    ("www.bücher.de", "bücher.de", "de"),
    ("shop.xn--e1afmkfd.xn--p1ai", "пример.рф", "рф"),
    ("WWW.Example.COM", "example.com", "com"),
    ("news.bbc.co.uk.", "bbc.co.uk", "uk"),                   # a fully qualified name's root dot
    ("XN--BCHER-KVA.DE", "bücher.de", "de"),
    ("www.city.kawasaki.jp", "city.kawasaki.jp", "jp"),        # "*.kawasaki.jp" with its "!city" exception
    ("foo.bar.kawasaki.jp", "foo.bar.kawasaki.jp", "jp"),      # "bar.kawasaki.jp" is a suffix by the wildcard
    ("www.gov.uk", "www.gov.uk", "uk"),                        # "gov.uk" is itself a public suffix
    ("[2001:db8::1]", "[2001:db8::1]", None),
    ("192.0.2.7", "192.0.2.7", None),
    ("localhost", "localhost", None),
    (None, None, None),
])
def test_site_by_public_suffix_list(host, site, tld):
    assert site_and_tld(host) == (site, tld)


def test_length_classes():
    assert [length_class(n) for n in (0, 99, 100, 299, 300, 999, 1000, 2999, 3000, 9999, 10000, 10 ** 7)] == [
        "0-99", "0-99", "100-299", "100-299", "300-999", "300-999", "1000-2999", "1000-2999", "3000-9999",
        "3000-9999", "10000+", "10000+"]


# -- the document's attributes, written ---------------------------------------------------

def _cleaned(html, url, crawl_date="2024-03-01T10:00:00Z"):
    doc = Document(id="t:1", url=url, raw=html.encode(), crawl_date=crawl_date)
    Clean(languages=["en"]).process(doc)
    LanguageFilter().process(doc)
    assert not doc.drop_reason
    return doc


def test_clean_stage_and_writers_carry_the_text_types(tmp_path):
    head = ('<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2023-11-05",'
            '"author":{"@type":"Person","name":"Jan \\"Honza\\" Novák"}}</script>'
            '<meta property="og:site_name" content="Gazette \\ of &lt;b&gt;Example&lt;/b&gt; &amp; Co">')
    doc = _cleaned(page(head), "https://www.news.example.co.uk/2023/11/05/story")
    attrs = dict(text_types(doc))
    assert attrs["tld"] == "uk" and attrs["site"] == "example.co.uk"
    assert int(attrs["wordcount"]) == doc.word_count() and attrs["length"] == length_class(doc.word_count())
    assert 0.0 <= float(attrs["lang_diff"]) <= float(f"{doc.lang_score:.3f}")
    assert attrs["type"] in TYPES
    assert (attrs["date"], attrs["date_source"]) == ("2023-11-05", "json-ld")
    assert attrs["author"] == 'Jan "Honza" Novák' and attrs["sitename"] == "Gazette \\ of Example & Co"
    # escaped for each target like every other value
    for target, expected in (("manatee", 'author="Jan \\"Honza\\" Novák"'), ("cwb", 'author="Jan &quot;Honza&quot; Novák"')):
        w = VerticalWriter(str(tmp_path / f"{target}.vert"), target=target)
        w.write(doc)
        w.close()
        first = (tmp_path / f"{target}.vert").read_text(encoding="utf-8").splitlines()[0]
        assert expected in first and 'date="2023-11-05"' in first and "Co" in first and 'site="example.co.uk"' in first
        assert {"tld", "site", "wordcount", "length", "lang_diff", "type", "date", "date_source", "author",
                "sitename"} <= w.structures["doc"]
    # the corpus configurations declare them, as the writer wrote them
    conf = manatee_config("c", "/tmp/c", "/tmp/c.vert", w.structures)
    assert "ATTRIBUTE date_source" in conf and "ATTRIBUTE type" in conf
    assert any("+site+" in f for f in cwb_flags(w.structures))
    # JSON Lines: the same values under text_types; the page's declarations in meta
    out = tmp_path / "c.jsonl"
    w = open_writer(str(out))
    w.write(doc)
    w.close()
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["text_types"] == attrs and d["meta"]["date"] == "2023-11-05"


def test_every_attribute_is_declared_for_resumed_builds():
    assert set(DOC_ATTRIBUTES) >= {"tld", "site", "wordcount", "length", "lang_diff", "type", "date",
                                   "date_source", "author", "sitename"}


def test_page_type_model_scores_and_is_deterministic():
    rows = [("forum", f"d{i}", ["s:discussion", "dir:forum"]) for i in range(5)]
    rows += [("article", f"e{i}", ["has:date", "dir:blog"]) for i in range(5)]
    rows += [("product", "onlyone", ["dir:shop"])] * 4      # a feature of one domain only: left out
    m = Model.train(rows)
    assert "dir:shop" not in m.counts
    assert m.predict(["s:discussion"]) == "forum" and m.predict(["has:date", "dir:blog"]) == "article"
    f = features("https://example.com/forum/thread-12?page=2", {"date": "2020-01-01"}, {"discussion"},
                 [Paragraph(text="hello there " * 10)])
    assert "s:discussion" in f and "dir:forum" in f and "url:query" in f and f == sorted(f)


def test_profile_and_report_show_text_types():
    prof = CorpusProfile()
    for i, (ptype, date) in enumerate((("article", "2023-05-01"), ("forum", None), ("article", "2021-01-09"))):
        d = Document(id=str(i), url=f"https://site{i}.example.de/x", paragraphs=[Paragraph(text="word " * (50 * i + 5))])
        d.meta["page_type"] = ptype
        if date:
            d.meta["date"] = date
        prof.add(d)
    other = CorpusProfile()
    other.merge(prof)
    tt = other.to_dict()["text_types"]
    assert tt["type"]["article"] == {"docs": 2, "words": 5 + 105}
    assert tt["tld"] == {"de": {"docs": 3, "words": 165}}
    assert tt["year"]["2023"]["docs"] == 1 and tt["year"]["none"]["docs"] == 1
    assert tt["length"]["0-99"]["docs"] == 2 and tt["length"]["100-299"]["docs"] == 1
    html = render_report({"stages": [], "corpus": other.to_dict()})
    assert 'id="text-types"' in html and "<td>forum</td>" in html and "<td>2021</td>" in html
    assert "<td>de</td>" in html and "<td>100-299</td>" in html        # top-level domain, length class


def test_demo_corpus_carries_the_attributes(tmp_path):
    out = tmp_path / "demo.vert"
    subprocess.run([sys.executable, "-m", "corpustool", "build", str(REPO / "data" / "demo" / "crawl.warc.gz"),
                    "-o", str(out), "--lang", "en,de,cs", "-q", "--registry", str(tmp_path / "reg")], check=True,
                   cwd=REPO)
    docs = [line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("<doc ")]
    assert docs
    for line in docs:
        for name in ("tld", "site", "wordcount", "length", "lang_diff", "type"):
            assert f' {name}="' in line, (name, line)
    conf = next((tmp_path / "reg").glob("*.manatee")).read_text(encoding="utf-8")
    for name in ("tld", "site", "wordcount", "length", "lang_diff", "type"):
        assert f"ATTRIBUTE {name}\n" in conf
    # byte-identical output for the same input
    again = tmp_path / "again.vert"
    subprocess.run([sys.executable, "-m", "corpustool", "build", str(REPO / "data" / "demo" / "crawl.warc.gz"),
                    "-o", str(again), "--lang", "en,de,cs", "-q"], check=True, cwd=REPO)
    assert again.read_bytes() == out.read_bytes()
