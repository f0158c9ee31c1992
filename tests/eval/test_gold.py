"""Gold readers on small hand-written samples."""
import gzip
import json

import pytest

from corpustool.eval.gold import (annotation_stats, detect_format, parse_annotated, parse_cleaneval,
                                  read_gold)
from corpustool.errors import OptionError


def write(path, text, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def test_snippets_reader(tmp_path):
    (tmp_path / "pages").mkdir()
    write(tmp_path / "pages" / "a.html", "<html><body><p>x</p></body></html>")
    gold = {"http://a.example/": {"file": "a.html", "with": ["Main text"], "without": ["Impressum", "Menu"]},
            "http://b.example/": {"file": "missing.html", "with": ["y"], "without": []}}
    write(tmp_path / "evaldata.json", json.dumps(gold))
    assert detect_format(tmp_path) == "snippets"
    pages = read_gold(str(tmp_path))
    assert len(pages) == 1                      # the entry without a page is skipped
    p = pages[0]
    assert (p.id, p.url, p.format) == ("a.html", "http://a.example/", "snippets")
    assert p.with_snippets == ["Main text"] and p.without_snippets == ["Impressum", "Menu"]
    assert p.text is None
    raw, html = p.load()
    assert raw.startswith(b"<html>") and html is None
    assert len(read_gold(f"snippets:{tmp_path / 'evaldata.json'}")) == 1


@pytest.mark.parametrize("field, value", [("with", "steel supports"), ("without", "Privacy policy"),
                                          ("with", ["steel supports", 42]), ("without", {"a": 1})])
def test_snippets_reader_skips_an_entry_whose_snippets_are_not_a_list_of_strings(tmp_path, capsys, field, value):
    # (a string there was read as one snippet a character: "with 13/13" on a page without the words)
    (tmp_path / "pages").mkdir()
    write(tmp_path / "pages" / "a.html", "<html><body><p>x</p></body></html>")
    write(tmp_path / "pages" / "b.html", "<html><body><p>y</p></body></html>")
    bad = {"file": "a.html", "with": ["Main text"], "without": []}
    bad[field] = value
    gold = {"http://a.example/": bad, "http://b.example/": {"file": "b.html", "with": ["y"]}}
    write(tmp_path / "evaldata.json", json.dumps(gold))
    pages = read_gold(str(tmp_path))
    assert [p.id for p in pages] == ["b.html"]          # (a missing list is an empty one)
    assert pages[0].without_snippets == []
    err = capsys.readouterr().err
    assert f"entry 'http://a.example/': '{field}' is not a list of strings; skipped" in err


def test_article_body_reader(tmp_path):
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "42.html.gz").write_bytes(gzip.compress(b"<html><body><p>Body one</p></body></html>"))
    gold = {"42": {"articleBody": "Body one\nBody two", "url": "http://x.example/42"},
            "43": {"articleBody": "no page", "url": "http://x.example/43"}}
    write(tmp_path / "ground-truth.json", json.dumps(gold))
    assert detect_format(tmp_path) == "articles"
    assert detect_format(tmp_path / "ground-truth.json") == "articles"
    pages = read_gold(str(tmp_path / "ground-truth.json"))
    assert [p.id for p in pages] == ["42"]
    assert pages[0].text == "Body one\nBody two"
    assert pages[0].paragraphs == ["Body one", "Body two"]
    assert pages[0].url == "http://x.example/42"
    raw, _ = pages[0].load()
    assert raw == b"<html><body><p>Body one</p></body></html>"      # decompressed


CLEANEVAL = """URL: http://childparenting.about.com/b/archives.htm
<h> Archives
<p> This is the first
paragraph of the page.
<l> a list item
<P> Upper-case marks count too
"""


def test_cleaneval_parser():
    url, blocks = parse_cleaneval(CLEANEVAL)
    assert url == "http://childparenting.about.com/b/archives.htm"
    assert blocks == ["Archives", "This is the first paragraph of the page.", "a list item",
                      "Upper-case marks count too"]
    assert parse_cleaneval("URL: http://x/\n") == ("http://x/", [])


def test_cleaneval_reader_pairs_by_name(tmp_path):
    write(tmp_path / "gold" / "001.txt", CLEANEVAL)
    write(tmp_path / "gold" / "002.txt", "URL: http://y/\n<p> orphan\n")
    write(tmp_path / "html" / "001.html", "<html><body>page</body></html>")
    assert detect_format(tmp_path) == "cleaneval"
    pages = read_gold(f"cleaneval:{tmp_path}")
    assert [p.id for p in pages] == ["001"]             # 002 has no HTML file
    assert pages[0].path.endswith("html/001.html")
    assert pages[0].text.splitlines()[1] == "This is the first paragraph of the page."


def test_cleaneval_page_with_gold_in_two_folders_is_scored_once(tmp_path, capsys):
    """001.txt beside the pages and in gold/ made two pages with the id 001, scored twice."""
    write(tmp_path / "001.txt", CLEANEVAL)
    write(tmp_path / "gold" / "001.txt", CLEANEVAL)
    write(tmp_path / "001.html", "<html><body>page</body></html>")
    pages = read_gold(f"cleaneval:{tmp_path}")
    assert [p.id for p in pages] == ["001"]
    assert f"{tmp_path / 'gold' / '001.txt'}: a second gold text for page 001" in capsys.readouterr().err


CZECH_GOLD = ("URL: http://cz.example/\n<h> Nová knihovna v Brně\n<p> Městská knihovna v Brně otevřela v pondělí "
              "novou pobočku v centru města. Budova nabízí více než padesát tisíc knih.\n")


@pytest.mark.parametrize("bom, encoding", [(b"", "utf-8"), (b"\xef\xbb\xbf", "utf-8"), (b"", "cp1250")])
def test_cleaneval_gold_is_read_in_its_encoding(tmp_path, capsys, bom, encoding):
    """A gold text with a byte-order mark was left out without a word (its first line did not read
    as the URL line); one in windows-1250 was read as UTF-8, every word with a diacritic broken."""
    (tmp_path / "001.txt").write_bytes(bom + CZECH_GOLD.encode(encoding))
    write(tmp_path / "001.html", "<html><body><p>Městská knihovna</p></body></html>")
    assert detect_format(tmp_path) == "cleaneval"
    pages = read_gold(str(tmp_path))
    assert [p.id for p in pages] == ["001"]
    assert pages[0].url == "http://cz.example/"
    assert pages[0].paragraphs[0] == "Nová knihovna v Brně"
    assert "Městská knihovna v Brně otevřela v pondělí" in pages[0].text
    err = capsys.readouterr().err
    assert ("001.txt: not UTF-8; read as cp1250" in err) == (encoding == "cp1250")


def test_json_gold_with_a_byte_order_mark_is_read(tmp_path):
    (tmp_path / "html").mkdir()
    write(tmp_path / "html" / "42.html", "<html><body><p>Body one</p></body></html>")
    (tmp_path / "ground-truth.json").write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"42": {"articleBody": "Body one", "url": "http://x.example/42"}}).encode())
    assert detect_format(tmp_path / "ground-truth.json") == "articles"
    assert [p.text for p in read_gold(str(tmp_path))] == ["Body one"]

CANOLA = """<html><head><title>t</title></head><body>
<a href="home.html"><kw class="krdwrd-tag-1-100">Home</kw></a>
<h1><kw class="krdwrd-tag-2-80">Lorem ipsum</kw></h1>
<kw class="krdwrd-tag-3-100">Lorem ipsum dolor sit amet, <strong>consectetur adipisici elit</strong>, sed.</kw>
<a href="more.html"><kw class="krdwrd-tag-mrgtie-50">more...</kw></a>
<div class="footer"><kw class="krdwrd-tag-1-80">Copyright (c) 2010.</kw></div>
<p><kw class="krdwrd-tag-3-60">Weak agreement text.</kw></p>
</body></html>"""


def test_canola_annotations():
    nodes, stripped, style = parse_annotated(CANOLA)
    assert style == "krdwrd"
    labels = [(n.text.strip(), n.label, n.agreement) for n in nodes]
    assert labels == [
        ("Home", "bad", 100), ("Lorem ipsum", "uncertain", 80),
        ("Lorem ipsum dolor sit amet,", "good", 100), ("consectetur adipisici elit", "good", 100),
        (", sed.", "good", 100), ("more...", "tie", 50), ("Copyright (c) 2010.", "bad", 80),
        ("Weak agreement text.", "good", 60)]
    assert "<kw" not in stripped and "krdwrd" not in stripped
    assert '<div class="footer">Copyright (c) 2010.</div>' in stripped


def test_canola_reader_with_agreement_threshold(tmp_path):
    write(tmp_path / "canola" / "p1.html", CANOLA)
    assert detect_format(tmp_path / "canola") == "annotated"
    all_ = read_gold(str(tmp_path / "canola"))[0]
    assert "Weak agreement text." in all_.text
    reliable = read_gold(f"annotated:{tmp_path / 'canola'}", min_agreement=100)[0]
    assert "Weak agreement text." not in reliable.text           # AR 60 < 100: ignored
    labels = {n.text.strip(): n.label for n in reliable.nodes}
    assert labels["Copyright (c) 2010."] == "uncertain"           # AR 80 < 100
    assert labels["Home"] == "bad"
    stats = annotation_stats([all_])
    assert stats["good"] == {"nodes": 4, "chars": len("Lorem ipsum dolor sit amet,") + len(
        "consectetur adipisici elit") + len(", sed.") + len("Weak agreement text.")}
    assert stats["bad"]["nodes"] == 2
    raw, html = reliable.load()
    assert raw is None and "<kw" not in html


L3S = """<html><body><p>
<span class="x-nc-sel1">Headline here</span>
<span class="bodysmall"><span class="x-nc-sel2">Double content
<span class="x-nc-sel0">Advert inside</span> and more</span></span>
<span class="x-nc-sel5">A comment</span>
Unannotated tail</p></body></html>"""


def test_l3s_annotations_innermost_wins_and_unannotated_is_not_content():
    nodes, stripped, style = parse_annotated(L3S)
    assert style == "l3s"
    got = [(n.text.strip(), n.label) for n in nodes]
    assert got == [("Headline here", "good"), ("Double content", "good"), ("Advert inside", "bad"),
                   ("and more", "good"), ("A comment", "good"), ("Unannotated tail", "bad")]
    assert "x-nc-sel" not in stripped
    assert '<span class="bodysmall">' in stripped


def test_generic_class_annotations():
    nodes, stripped, style = parse_annotated(
        '<html><body><div class="nav gold-bad">Menu</div><div class="gold-good">Text</div></body></html>')
    assert style == "generic"
    assert [(n.text, n.label) for n in nodes] == [("Menu", "bad"), ("Text", "good")]
    assert 'class="nav"' in stripped and "gold-" not in stripped


def test_bad_specs_are_refused(tmp_path):
    with pytest.raises(OptionError):
        read_gold(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(OptionError):
        read_gold(str(tmp_path / "empty"))
    write(tmp_path / "x.json", "[1, 2]")
    with pytest.raises(OptionError):
        read_gold(str(tmp_path / "x.json"))



def test_a_misspelt_format_is_named_not_reported_as_a_missing_path(tmp_path):
    (tmp_path / "pages").mkdir()
    write(tmp_path / "evaldata.json", "{}")
    with pytest.raises(OptionError, match="unknown format 'snippet'; FORMAT is one of snippets, articles"):
        read_gold(f"snippet:{tmp_path}")
    with pytest.raises(OptionError, match="does not exist"):
        read_gold(f"snippets:{tmp_path / 'nope'}")


def test_an_unreadable_annotated_page_is_skipped_and_named(tmp_path, capsys):
    """One damaged .html.gz of an annotated gold: skipped with its name, the others read."""
    good = '<html><body><div class="nav gold-bad">Menu</div><div class="gold-good">Text</div></body></html>'
    (tmp_path / "a.html.gz").write_bytes(gzip.compress(good.encode()))
    (tmp_path / "b.html.gz").write_bytes(b"not gzip")
    pages = read_gold(f"annotated:{tmp_path}")
    assert [p.id for p in pages] == ["a.html.gz"]
    assert f"{tmp_path / 'b.html.gz'}: cannot be read" in capsys.readouterr().err
