"""The SAX build leaves out the text of script and style elements (nobody reads it), except where
it is read: in a title's text, and in ``sax_outline`` (compared with lxml's tree). The page's
paragraphs, title and evidence stay those of the lxml tree, and a script's text run past
libxml2's limit still stops the fast path as it stops libxml2."""
from __future__ import annotations

import pytest

from corpustool.extractors import justext_engine
from corpustool.extractors.base import html_bytes, parse_html

from tests.native.test_backend_parity import EXTRACTOR, S, compare, fast_path_on, outline

pytestmark = pytest.mark.skipif(not justext_engine.COMPILED,
                                reason=f"compiled walk not built: {justext_engine.COMPILED_ERROR}")

PAGES = {
    "script and style in the title": ("<html><head><title>a<script>var x = 1</script>b<style>p{}</style>c</title>"
                                      "</head><body><p>" + S + "</p></body></html>"),
    "script in an svg title": "<body><svg><title>t<script>q()</script></title></svg><p>" + S + "</p>",
    "scripts and styles between paragraphs": ("<p>" + S + "<script>document.write('<p>x</p>')</script>tail "
                                              "<style>.a{}</style>more</p><script src=x></script><p>" + S),
    "style sheet and script in the head": ("<head><style>body{}</style><script>a<b</script><title>T</title></head>"
                                           "<p>" + S),
    "unclosed script": "<p>" + S + "</p><script>var a = '<p>never text</p>';",
    "script in a table": "<table><tr><script>x</script><td>" + S + "<style>y</style></table>",
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_same_as_the_tree(name):
    fast_path_on()
    assert compare(PAGES[name]) == "fast"


def test_outline_keeps_the_script_text():
    fast_path_on()
    html = "<html><body><script>var a = 1;</script><style>p { color: red }</style><p>x</p></body></html>"
    built = justext_engine.sax_outline(html_bytes(html))
    assert built == outline(parse_html(html))
    body = built[3][0][0]
    assert [(c[0][0], c[0][2]) for c in body[3][:2]] == [("script", "var a = 1;"), ("style", "p { color: red }")]


def test_title_takes_in_script_text():
    fast_path_on()
    from corpustool.extractors.base import Page
    html = "<head><title>a<script>b</script>c</title></head><p>" + S
    fast, tree = Page(html), Page(html)
    EXTRACTOR.extract(fast)
    assert tree.tree is not None
    assert EXTRACTOR.title(fast) == EXTRACTOR.title(tree)


@pytest.mark.parametrize("repeats", [1_300_000, 1_428_000, 1_429_000, 1_500_000])
def test_script_text_run_near_libxml2s_limit(repeats):
    """A script's text run near 10 MB: left out of the build, but counted against the limit of a
    run (1_429_000 repeats pass the fast path's limit: the page goes to the tree)."""
    fast_path_on()
    html = "<p>" + S + "</p><script>" + "x = 1; " * repeats + "</script><p>After the long script. " + S + "</p>"
    assert compare(html) == ("fallback" if repeats == 1_429_000 else "fast")
