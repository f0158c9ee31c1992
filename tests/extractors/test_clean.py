"""The clean stage (corpustool/extractors/clean.py) on pages with little or odd content, with the
default extractor and the classic engine, with one language and with a guess: on both backends."""
from __future__ import annotations

import pytest

from corpustool.document import Document
from corpustool.extractors.clean import Clean
from tests.support.pages import S

S2 = S + " " + S     # long enough for jusText to keep it without a good neighbour
RUBY = "<p>" + S + "<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby> tail</p>"
RAWS = [b"", b"   \n", b"<html></html>", b"<!-- only a comment -->", b"<?xml version='1.0'?>",
        b"plain text without markup, long enough to be a sentence of its own here.",
        ("<html><head><title>T</title></head><body><p>" + S2 + "</p></body></html>").encode(),
        ("<p>" + S2 + "</p>" + "<p>menu</p>" * 5).encode(),
        ("<html><body>" + RUBY + "<p>" + S2 + "</p></body></html>").encode()]


def outcomes(extractor: str, languages: list[str]) -> list[Document]:
    stage = Clean(extractor=extractor, languages=languages)
    return [stage.process(Document(id=str(i), raw=raw)) for i, raw in enumerate(RAWS)]


@pytest.mark.parametrize("extractor", ["justext-plus", "justext"])
@pytest.mark.parametrize("languages", [["en"], ["auto"], ["en", "de", "cs"]])
def test_pages_with_little_or_odd_content(native_backend, extractor, languages):
    docs = outcomes(extractor, languages)
    assert [d.drop_reason for d in docs[:2]] == ["empty", "empty"]      # nothing to parse
    assert docs[6].drop_reason is None and docs[6].title == "T"          # kept, with its title
    assert docs[6].stoplist_lang == "en"
    assert S2 in docs[7].clean_text() and "menu" not in docs[7].clean_text()
    text = docs[8].clean_text()
    assert S2 in text
    # the classic engine keeps ruby annotations (as the justext package does); justext-plus strips them
    assert ("kan" in text) == (extractor == "justext")


def test_error_pages_and_redirects_are_dropped_by_their_http_status():
    """A crawl's 404 and 500 pages and a redirect's stub are the server's messages, not text of
    the site: each is dropped, counted by its status (http-404 ...); 2xx pages are cleaned."""
    html = ("<html><head><title>T</title></head><body><p>" + S2 + "</p></body></html>").encode()
    stage = Clean(extractor="justext-plus", languages=["en"])
    docs = []
    for i, status in enumerate([200, 404, 301, 500, 206, None]):
        doc = Document(id=str(i), raw=html)
        if status is not None:
            doc.meta["http_status"] = status
        docs.append(stage.process(doc))
    assert [d.drop_reason for d in docs] == [None, "http-404", "http-301", "http-500", None, None]
    assert S2 in docs[4].clean_text() and S2 in docs[5].clean_text()
