"""The HTML report, opened in a real headless Chromium (skipped when it is not installed)."""
import re
import shutil
import subprocess

import lxml.html
import pytest

from corpustool.eval.gold import read_gold
from corpustool.eval.report import write_html
from corpustool.eval.runner import Evaluation, parse_config

CHROMIUM = shutil.which("chromium") or shutil.which("/usr/bin/chromium")

GOOD_TEXT = ("The little town was founded in the twelfth century by a group of farmers who had come from the "
             "north, and over the years it grew into a busy market place where people from all the villages "
             "around would come to sell what they had and to buy what they needed for the winter.")


def make_gold(tmp_path):
    d = tmp_path / "ce"
    (d / "html").mkdir(parents=True)
    body = ('<ul><li><a href="/">Home</a></li><li><a href="/n">News</a></li></ul>'
            f"<p>{GOOD_TEXT}</p><div><a href='/i'>Imprint &amp; privacy</a></div>")
    for name, gold in (("good", GOOD_TEXT), ("bad", "A completely different article text that nobody extracts.")):
        (d / "html" / f"{name}.html").write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
        (d / f"{name}.txt").write_text(f"URL: http://example.com/{name}\n<p> {gold}\n", encoding="utf-8")
    return f"cleaneval:{d}"


def dump_dom(url, tmp_path):
    profile = tmp_path / "chromium-profile"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", "--dump-dom", url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return lxml.html.document_fromstring(proc.stdout)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_html_report_opens_in_chromium(tmp_path):
    pages = read_gold(make_gold(tmp_path))
    ev = Evaluation(pages, [parse_config("justext-package"), parse_config("B=justext-package:preset=B")],
                    keep_output=True)
    ev.run()
    summaries = [ev.summary(c.label, resamples=0) for c in ev.configs]
    index = write_html(ev, tmp_path / "report", summaries)

    dom = dump_dom(index.as_uri(), tmp_path)
    assert dom.findtext(".//h1") == "corpustool eval"
    summary_rows = dom.xpath("//table[@id='summary']//tr[td]")
    assert [r.xpath("string(td[1])") for r in summary_rows] == ["justext-package", "B"]
    links = dom.xpath("//table[@id='pages']//a")
    assert [a.text for a in links] == ["bad", "good"]                 # worst first
    href = links[0].get("href")

    page = dump_dom((index.parent / href).as_uri(), tmp_path)
    assert page.findtext(".//h1") == "bad"
    assert page.xpath("string(//div[@id='gold'])").strip().startswith("A completely different")
    kept = [re.sub(r"\s+", " ", d.text_content()) for d in page.xpath("//h2[@id='e1']/following-sibling::div[1]"
                                                                        "/div[contains(@class,'kept')]")]
    removed = [d.text_content() for d in page.xpath("//h2[@id='e1']/following-sibling::div[1]"
                                                    "/div[contains(@class,'removed')]")]
    assert kept == [GOOD_TEXT]
    assert "Home" in removed and "Imprint & privacy" in removed
    back = page.xpath("//a[text()='back to the list']/@href")
    assert back == ["../index.html"]
