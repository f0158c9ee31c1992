"""--comments keep|drop (issue 27 item 4): an article's comment section goes by default, a forum
thread's and a Q&A page's posts stay; keep keeps comment sections too. Pages written here."""
from __future__ import annotations

from pathlib import Path

import pytest

from corpustool.document import Document
from corpustool.errors import OptionError
from corpustool.extractors.registry import get_extractor
from corpustool.extractors.clean import Clean

EXTRACTORS = ("justext-plus", "justext-learned")

ARTICLE = [
    "The town council decided on Tuesday evening to close the old swimming pool at the end of the summer, "
    "after a report found that the roof and the heating would cost more to repair than a new building.",
    "The mayor said that the decision had not been easy for anyone, and that the council would look for "
    "a place where a new pool could be built within the next five years, with the help of the region.",
    "Many of the people who came to the meeting were not happy with the plan, because the nearest other "
    "pool is more than twenty kilometres away and the schools of the town use the old one every week.",
    "A group of parents has started to collect signatures against the closure, and they want to present "
    "them to the council before its next meeting in September, when the budget for next year is discussed.",
]
COMMENTS = [
    "This is a real shame, I learned to swim in that pool as a child and so did both of my own children, "
    "the council should have looked after the building much better over all of these years.",
    "I do not agree with the people who complain now, because nobody went to the council meetings when the "
    "money for the repairs was cut ten years ago and everybody could have seen this coming.",
    "Where exactly can we sign the petition of the parents? I would like to support them and I think that "
    "many of my neighbours would be happy to sign it as well if somebody told them about it.",
]
POSTS = [
    "I have had the same problem with my bicycle for weeks now and nobody at the shop could tell me what was "
    "wrong with the gears when I brought it in last Friday afternoon, so I am asking here.",
    "Did you check the cable tension first? In my experience most of these problems come from a cable that "
    "has stretched a little over the winter and needs to be tightened by half a turn or so.",
    "Thanks, that was it. I turned the barrel adjuster a little and now every gear works as it should, "
    "which is a great relief because I was about to buy a whole new derailleur for the bike.",
    "Good to hear that it worked out. If it starts slipping again after a few weeks, the cable itself may be "
    "worn and then it is better to replace it, which costs very little at any bicycle shop.",
]
NAV = ('<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
       '<li><a href="/search">Search</a></li></ul></nav>')


def article_page() -> str:
    body = "".join(f"<p>{t}</p>" for t in ARTICLE)
    comments = "".join(f'<li class="comment"><div class="comment-author">reader{i} on 3 June 2024 at 10:{i}5</div>'
                       f'<div class="comment-body"><p>{t}</p></div></li>' for i, t in enumerate(COMMENTS))
    return (f"<html><head><title>Council closes the old pool</title></head><body>{NAV}"
            f"<article><h1>Council closes the old pool</h1>{body}</article>"
            f'<section id="comments"><h2>3 comments</h2><ol class="comment-list">{comments}</ol></section>'
            f"</body></html>")


def forum_page(declared: bool = True) -> str:
    head = ('<script type="application/ld+json">{"@context": "https://schema.org", '
            '"@type": "DiscussionForumPosting", "headline": "Gears slipping"}</script>') if declared else ""
    posts = "".join(f'<div class="reply"><div class="reply-meta">user{i} posted on May {i + 1}, 2024</div>'
                    f'<div class="reply-body"><p>{t}</p></div></div>' for i, t in enumerate(POSTS))
    return (f"<html><head><title>Gears slipping | Bike Forum</title>{head}</head><body>{NAV}"
            f'<div class="thread"><h1>Gears slipping</h1><div class="replies">{posts}</div></div></body></html>')


def qa_page() -> str:
    question, *answers = POSTS
    answer_html = "".join(f'<div class="answer" itemprop="suggestedAnswer"><div class="answer-body"><p>{t}</p></div>'
                          f'<div class="comments"><div class="comment">Nice answer, thanks, {i} votes</div></div>'
                          f'</div>' for i, t in enumerate(answers))
    return ('<html><head><title>Why do my gears slip?</title></head><body>'
            f'<div itemscope itemtype="https://schema.org/QAPage">{NAV}<h1>Why do my gears slip?</h1>'
            f'<div class="question"><p>{question}</p></div>'
            f'<div class="discussion">{answer_html}</div></div></body></html>')


def clean_text(html: str, extractor: str, **options) -> str:
    doc = Document(id="t", url="https://www.example.org/a/1", raw=html.encode("utf-8"))
    Clean(extractor=extractor, languages=["en"], **options).process(doc)
    return doc.clean_text()


@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_an_articles_comments_are_dropped_by_default(extractor):
    text = clean_text(article_page(), extractor)
    for t in ARTICLE:
        assert t in text
    for t in COMMENTS:
        assert t not in text
    assert text == clean_text(article_page(), extractor, comments="drop")


@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_comments_keep_keeps_an_articles_comments(extractor):
    text = clean_text(article_page(), extractor, comments="keep")
    for t in ARTICLE + COMMENTS:
        assert t in text


@pytest.mark.parametrize("extractor", EXTRACTORS)
@pytest.mark.parametrize("comments", ("drop", "keep"))
def test_a_declared_forum_threads_posts_stay(extractor, comments):
    text = clean_text(forum_page(), extractor, comments=comments)
    for t in POSTS:
        assert t in text


@pytest.mark.parametrize("extractor", EXTRACTORS)
@pytest.mark.parametrize("comments", ("drop", "keep"))
def test_a_qa_pages_question_and_answers_stay(extractor, comments):
    text = clean_text(qa_page(), extractor, comments=comments)
    for t in POSTS:
        assert t in text


# a blog post with share buttons, related posts and post navigation, then five short comments
# (near-good to jusText) with author, date and reply lines, the comment form, a sidebar (a page
# written by one of our sessions' scripts)
BLOG_PAGE = Path(__file__).resolve().parents[1] / "support" / "pages" / "blog_with_short_comments.html"
SHORT_COMMENTS = [
    "This matches my experience exactly. I stood for a month and then it became a very expensive sitting desk.",
    "Which timer app do you use? I keep ignoring the ones built into my phone.",
    "My physiotherapist said exactly the same thing: the best posture is the next posture. Thanks for writing this up.",
]


@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_comments_keep_keeps_short_comments_below_the_article(extractor):
    """With keep, short comments (near-good) below the article, outside its region, were lost as
    with drop: the switch changed nothing on such a page."""
    page = BLOG_PAGE.read_text(encoding="utf-8")
    keep = clean_text(page, extractor, comments="keep")
    drop = clean_text(page, extractor, comments="drop")
    assert "Two years ago I bought an expensive electric standing desk" in keep
    assert "Two years ago I bought an expensive electric standing desk" in drop
    for t in SHORT_COMMENTS:
        assert t in keep and t not in drop
    assert "Recent Posts" not in keep and "Proudly powered" not in keep


@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_an_unknown_comments_mode_is_refused(extractor):
    with pytest.raises(OptionError, match="comments must be one of drop, keep"):
        get_extractor(extractor, comments="some")


def test_the_command_line_switch(tmp_path):
    from corpustool.cli import main

    page = tmp_path / "page.html"
    page.write_text(article_page(), encoding="utf-8")
    texts = {}
    for mode in ("drop", "keep"):
        out = tmp_path / f"{mode}.vert"
        assert main(["build", str(page), "--lang", "en", "--format", "text", "--comments", mode, "-o", str(out), "-q"]) == 0
        texts[mode] = out.read_text(encoding="utf-8")
    assert "petition" not in texts["drop"] and "petition" in texts["keep"]
    assert "swimming" in texts["drop"]


# -- the structural guard: class names alone never remove the bulk of the page's text -------------

@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_an_undeclared_threads_posts_in_reply_blocks_stay(extractor):
    # no schema.org declaration: the posts, every one in a block named "reply", are most of what
    # jusText keeps, records with an author/date line and a body: a thread, not an article's comments
    text = clean_text(forum_page(declared=False), extractor)
    for t in POSTS:
        assert t in text


@pytest.mark.parametrize("extractor", EXTRACTORS)
def test_comments_that_outweigh_a_short_article_still_go(extractor):
    # more words in the comments than in the article: the article above them is longer than any
    # one comment, so they are its comments, not a thread
    short = article_page().replace(f"<p>{ARTICLE[2]}</p><p>{ARTICLE[3]}</p>", "")
    text = clean_text(short, extractor)
    assert ARTICLE[0] in text and ARTICLE[1] in text
    for t in COMMENTS:
        assert t not in text


def test_posts_in_a_comment_named_list_and_the_collapse_without_the_guard():
    # posts named "post" in a list named "comments" are posts too; with the posts rule off the
    # undeclared thread collapses to its title (what the guard prevents)
    from corpustool.extractors import justext_plus_structure as structure

    one_block = forum_page(declared=False).replace('<div class="reply-meta">', '<div class="x">')
    html = one_block.replace('class="reply"', 'class="post"').replace('<div class="replies">',
                                                                       '<div class="replies comments">')
    assert POSTS[0] in clean_text(html, "justext-plus")      # records with own author lines: posts
    saved = set(structure.RULES)
    structure.RULES.discard("posts")
    try:
        assert POSTS[0] not in clean_text(forum_page(declared=False), "justext-plus")
    finally:
        structure.RULES.clear()
        structure.RULES.update(saved)
