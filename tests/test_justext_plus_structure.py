"""justext-plus on page types other than articles: what the page's structure says (issue 20)."""
from __future__ import annotations

import pytest

from corpustool.document import Document
from corpustool.extractors import justext_plus_structure as structure
from corpustool.extractors.clean import Clean
from corpustool.extractors.justext_plus import JustextPlusExtractor
from corpustool.extractors.base import Page

POSTS = [
    "I have had the same problem with my bicycle for weeks now and nobody at the shop could tell me what was "
    "wrong with the gears when I brought it in last Friday afternoon, so I am asking here.",
    "Did you check the cable tension first? In my experience most of these problems come from a cable that "
    "has stretched a little over the winter and needs to be tightened by half a turn or so.",
    "Thanks, that was it. I turned the barrel adjuster a little and now every gear works as it should, "
    "which is a great relief because I was about to buy a whole new derailleur for the bike.",
]
NAV = '<nav><ul><li><a href="/">Forums</a></li><li><a href="/new">New posts</a></li><li><a href="/s">Search</a></li></ul></nav>'
FORUM_LD = ('<script type="application/ld+json">{"@context": "https://schema.org", '
            '"@type": "DiscussionForumPosting", "headline": "Gears slipping"}</script>')


def forum(head: str = FORUM_LD, post_class: str = "comment") -> str:
    posts = "".join(f'<div class="{post_class}"><div class="meta">user{i}, May {i + 1}, 2024</div><p>{t}</p></div>'
                    for i, t in enumerate(POSTS))
    return (f"<html><head><title>Gears slipping | Bike Forum</title>{head}</head><body>{NAV}"
            f"<main><h1>Gears slipping</h1>{posts}</main></body></html>")


def run(html: str) -> Document:
    doc = Document(id="t", url="https://forum.example.org/t/1", raw=html.encode("utf-8"))
    Clean(extractor="justext-plus", languages=["en"]).process(doc)
    return doc


def kept(doc: Document) -> str:
    return doc.clean_text()


def test_declared_types_from_json_ld_and_microdata():
    assert structure.declared_types(FORUM_LD) == {"DiscussionForumPosting"}
    assert structure.declared_types('<div itemscope itemtype="http://schema.org/QAPage">') == {"QAPage"}
    assert structure.declared_types('"@type": ["QAPage", "WebPage"]') == {"QAPage"}
    assert structure.declared_types('<div class="DiscussionForumPosting">') == frozenset()


def test_posts_in_comment_blocks_are_content_on_a_discussion_page():
    text = kept(run(forum()))
    for post in POSTS:
        assert post in text


def test_comment_blocks_stay_boilerplate_without_the_declaration():
    # the same markup on a page that does not call itself a discussion: an article's comments
    text = kept(run(forum(head="")))
    assert POSTS[1] not in text and POSTS[2] not in text


def test_every_decide_path_sees_the_rule():
    html = forum()
    ex = JustextPlusExtractor()
    from corpustool.language.stoplists import stoplist
    stop = stoplist("en")
    fast = ex.extract(Page(html, url="https://forum.example.org/t/1", stoplist=stop))
    slow = ex.extract_py(Page(html, url="https://forum.example.org/t/1", stoplist=stop))
    assert [(p.text, p.cls) for p in fast] == [(p.text, p.cls) for p in slow]
    assert any(p.text == POSTS[2] and p.is_good for p in fast)


def test_a_rule_can_be_turned_off(monkeypatch):
    monkeypatch.setattr(structure, "RULES", set())
    text = kept(run(forum()))
    assert POSTS[2] not in text
