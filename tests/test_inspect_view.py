"""The inspect view: content, command line, and rendering in a real headless Chromium."""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import lxml.html
import pytest

from corpustool.cli import main
from corpustool.inspect_view import inspect_page, render
from tests.support.paths import DEMO_WARC

GOOD_TEXT = ("This is a long paragraph of ordinary English prose that is written in the way people "
             "write when they have something to say, and it is there to be kept by the classifier because "
             "it has many of the words that are on the stop list.")
PAGE = (f"<html lang='en'><head><title>A test page</title><script>var x = '<b>';</script></head><body>"
        f"<ul><li><a href='/'>Home</a></li><li><a href='/about'>About us</a></li></ul>"
        f"<h2>The heading</h2><p>{GOOD_TEXT}</p>"
        f"<p>Text with markup-like content: &lt;script&gt;alert(1)&lt;/script&gt; &amp; more, "
        f"and it is written so that it has to be kept as it is, with the words of the list.</p>"
        f"<div>&copy; 2024 Somebody</div></body></html>").encode("utf-8")


def report_tree(html: str):
    return lxml.html.document_fromstring(html)


def test_report_lists_paragraphs_in_reading_order_with_classes_and_features():
    ins = inspect_page(PAGE, source="page.html")
    assert ins.language == "en" and ins.language_source == "html-lang"
    doc = report_tree(render(ins))
    pars = doc.find_class("par")
    assert len(pars) == len(ins.paragraphs) == 6
    assert [p.get("data-cls") for p in pars] == [p.cls for p in ins.paragraphs]
    assert [p.get("data-cf") for p in pars] == [p.cf_class for p in ins.paragraphs]
    texts = [p.find_class("text")[0].text_content() for p in pars]
    assert texts == [p.text for p in ins.paragraphs]
    assert texts[0] == "Home" and texts[3] == GOOD_TEXT
    # colour classes follow the final class; features and context-free class are shown
    assert "good" in pars[3].get("class").split() and "bad" in pars[0].get("class").split()
    why = pars[3].text_content()
    why = " ".join(why.split())
    assert "context-free: good" in why and "stop-word density" in why and "link density 0.0" in why
    assert "heading" in pars[2].get("class").split()
    assert doc.get_element_by_id("n-good").text == str(sum(p.is_good for p in ins.paragraphs))


def test_report_is_self_contained_and_escapes_page_text():
    html = render(inspect_page(PAGE, source="page.html"))
    doc = report_tree(html)
    assert doc.xpath("//script") == []                       # nothing from the page runs
    assert not doc.xpath("//*[@src] | //link[@href]")        # no external resources
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html   # page text shown, escaped


def test_language_option_and_other_presets():
    ins = inspect_page(PAGE, language="German", extractor="justext", preset="A")
    assert ins.language == "de" and ins.options == {"preset": "A"}
    # with the German stoplist the English prose has few stop words for jusText
    english = inspect_page(PAGE, extractor="justext", preset="A")
    assert sum(p.is_good for p in ins.paragraphs) < sum(p.is_good for p in english.paragraphs)


def test_command_line(tmp_path, capsys):
    src = tmp_path / "page.html"
    src.write_bytes(PAGE)
    assert main(["inspect", str(src)]) == 0
    default_out = tmp_path / "page.inspect.html"
    assert default_out.is_file()
    out = tmp_path / "x.html"
    assert main(["inspect", str(src), "--lang", "en", "--extractor", "justext-package", "-o", str(out)]) == 0
    assert report_tree(out.read_text(encoding="utf-8")).find_class("par")
    assert main(["inspect", str(src), "--preset", "nope", "-o", str(out)]) == 2
    assert main(["inspect", str(tmp_path / "missing.html")]) == 2
    err = capsys.readouterr().err
    assert "unknown preset" in err and "cannot read" in err


@pytest.mark.parametrize("name", ["urltree", "temex", "site-conex", "hybex", "archive"])
def test_a_site_level_method_is_refused_not_shown_keeping_everything(tmp_path, capsys, name):
    """Such a method's clean stage keeps every block: a report of one page showed it all good."""
    src = tmp_path / "page.html"
    src.write_bytes(PAGE)
    assert main(["inspect", str(src), "--extractor", name, "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert f"{name} decides by comparing a site's pages" in err and not (tmp_path / "x.html").exists()


def test_inspect_refuses_what_is_not_a_page_and_picks_a_page_of_an_archive(tmp_path, capsys):
    # issue 30 item 5: `inspect crawl.warc.gz` showed the gzip bytes as one "good" paragraph, exit 0
    import gzip
    demo = DEMO_WARC
    out = tmp_path / "x.html"
    assert main(["inspect", str(demo), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"corpustool inspect: error: {demo} is a WARC archive (gzip-compressed), not one page: choose "
                   f"one of its pages with --record N (1 = the first) or --url URL"]
    assert not out.exists()
    for name, data, kind in (("junk.bin", bytes(range(256)) * 8, "binary data"),
                             ("junk.gz", gzip.compress(bytes(range(256)) * 8), "binary data (gzip-compressed)"),
                             ("empty.html", b"", None)):
        (tmp_path / name).write_bytes(data)
        assert main(["inspect", str(tmp_path / name), "-o", str(out)]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"corpustool inspect: error: {tmp_path / name} ")
        assert (f"is not an HTML page: it looks like {kind}" if kind else "is empty") in err[0]
    # a page of the archive, chosen by number or URL
    assert main(["inspect", str(demo), "--record", "2", "-o", str(out)]) == 0
    by_number = out.read_text(encoding="utf-8")
    assert report_tree(by_number).find_class("par")
    from corpustool.readers import html_pages
    url = html_pages(str(demo), limit=2)[1][0]
    assert main(["inspect", str(demo), "--url", url, "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == by_number
    assert main(["inspect", str(demo), "--record", "1000", "-o", str(out)]) == 1
    assert "holds no page 1000" in capsys.readouterr().err
    # a gzip-compressed page is decompressed, a text file read as build reads it
    (tmp_path / "page.html.gz").write_bytes(gzip.compress(PAGE))
    assert main(["inspect", str(tmp_path / "page.html.gz"), "-o", str(out)]) == 0
    assert GOOD_TEXT[:40] in out.read_text(encoding="utf-8")


# -- a real browser --------------------------------------------------------------

def chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if not path:
        pytest.skip("chromium is not installed (make system-deps installs it)")
    return path


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_renders_in_headless_chromium(tmp_path):
    chromium()
    ins = inspect_page(PAGE, source="page.html")
    report = tmp_path / "page.inspect.html"
    report.write_text(render(ins), encoding="utf-8")

    # 1. the DOM Chromium builds from the report has every paragraph
    dumped = run_chromium(tmp_path, "--dump-dom", report.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = report_tree(dumped.stdout)
    assert len(dom.find_class("par")) == len(ins.paragraphs)
    assert dom.get_element_by_id("title").text_content() == "A test page"

    # 2. the style sheet applies: computed colours of a good and a bad block,
    #    read by a probe script added to a copy of the report
    probe = tmp_path / "probe.html"
    probe.write_text(report.read_text(encoding="utf-8").replace(
        "</body>",
        "<script>const g = getComputedStyle(document.querySelector('.par.good'));"
        "const b = getComputedStyle(document.querySelector('.par.bad'));"
        "document.body.setAttribute('data-good', g.backgroundColor);"
        "document.body.setAttribute('data-bad', b.backgroundColor);"
        "document.body.setAttribute('data-height', document.body.scrollHeight);</script></body>"),
        encoding="utf-8")
    dumped = run_chromium(tmp_path, "--dump-dom", probe.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    body = report_tree(dumped.stdout).find("body")
    assert body.get("data-good") == "rgb(227, 244, 225)"
    assert body.get("data-bad") == "rgb(246, 227, 227)"
    assert int(body.get("data-height")) > 300

    # 3. a screenshot is a PNG of the requested size
    shot = tmp_path / "shot.png"
    done = run_chromium(tmp_path, "--window-size=1000,800", f"--screenshot={shot}", report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1000, 800)


GERMAN = ("<html><body><p>Die Stadt hat in diesem Jahr mehr Geld für die Schulen ausgegeben als in den Jahren "
          "davor, und die Eltern sind mit der neuen Regelung sehr zufrieden, weil sie nicht mehr so weit "
          "fahren müssen.</p></body></html>").encode("utf-8")


def test_lang_auto_and_lists_are_accepted_as_build_accepts_them(tmp_path, capsys):
    """issue 22: `inspect --lang auto` guesses the stoplist from the page's text, as build does."""
    src = tmp_path / "seite.html"
    src.write_bytes(GERMAN)
    ins = inspect_page(GERMAN, language="auto")
    assert (ins.language, ins.language_source) == ("de", "guessed")
    assert inspect_page(GERMAN, language="en,de").language == "de"
    out = tmp_path / "r.html"
    assert main(["inspect", str(src), "--lang", "auto", "-o", str(out)]) == 0
    assert "<code>de</code> (guessed)" in out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["inspect", str(src), "--lang", "auto,de", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "auto cannot be combined" in err[0]


CHINESE = ("这是一个关于城市历史的长篇文章。这座小城建于十二世纪，当时一群农民从南方来到这里定居。他们在河边建造了"
           "房屋和磨坊，并开始与邻近的村庄进行贸易。几百年来，这座城市不断发展壮大，成为该地区最重要的市场之一。")


@pytest.mark.parametrize("lang", ["zh", "zh,en", "auto"])
def test_inspect_a_language_without_stoplist_as_build_cleans_it(tmp_path, lang):
    """`inspect --lang zh` was refused ("no stoplist") though build cleans such pages without a list."""
    html = ("<html><body><ul><li><a href='/'>首页</a></li><li><a href='/n'>新闻</a></li></ul><h1>城市的历史</h1>"
            + "".join(f"<p>{CHINESE}</p>" for _ in range(3)) + "</body></html>")
    ins = inspect_page(html.encode("utf-8"), language=lang)
    assert (ins.language, ins.language_source) == ("zh", "language-independent")
    good = [p.text for p in ins.paragraphs if p.is_good]
    assert CHINESE in good and "首页" not in good
    page = tmp_path / "zh.html"
    page.write_text(html, encoding="utf-8")
    assert main(["inspect", str(page), "--lang", lang, "-o", str(tmp_path / "r.html")]) == 0


def test_inspect_shows_a_page_build_would_drop_with_the_wanted_stoplist():
    html = "<html><body>" + "".join(f"<p>{CHINESE}</p>" for _ in range(3)) + "</body></html>"
    ins = inspect_page(html.encode("utf-8"), language="de,cs")
    assert ins.language in ("de", "cs") and ins.language_source == "fallback; build drops it as unwanted-language"



def test_inspect_takes_the_extractors_options_as_build_does(tmp_path, capsys):
    """--comments and --option reach the extractor (comments kept, a learned model file), and a bad
    one is refused with the clean stage's error, exit 2."""
    reply = ("I remember reading there as a child, the building has so much history and it would be a "
             "shame to lose it to another block of flats.")
    page = tmp_path / "article.html"
    page.write_text(f"<html lang='en'><head><title>Library</title></head><body><article><h1>Library</h1>"
                    f"<p>{GOOD_TEXT}</p></article><div id='comments'><h3>Comments</h3>"
                    f"<div class='comment'><p>{reply}</p></div></div></body></html>", encoding="utf-8")
    out = tmp_path / "report.html"

    def reply_class(*options: str) -> str:
        # (justext-plus: comments=keep keeps its comment regions whatever a model thinks of them)
        assert main(["inspect", str(page), "--extractor", "justext-plus", "-o", str(out), *options]) == 0
        capsys.readouterr()
        tree = report_tree(out.read_text(encoding="utf-8"))
        (par,) = [d for d in tree.xpath("//div[@data-cls]") if reply in d.text_content()]
        return par.get("data-cls")

    assert reply_class() == "bad"
    assert reply_class("--comments", "keep") == "good"
    assert reply_class("--option", "comments=keep") == "good"
    assert main(["inspect", str(page), "--extractor", "justext-learned", "--option",
                 f"model={tmp_path / 'none.json'}", "-o", str(out)]) == 2
    assert "model " in capsys.readouterr().err
    assert main(["inspect", str(page), "--option", "bogus", "-o", str(out)]) == 2
