"""The default extractor (justext-plus): each kind of evidence on hand-written pages."""
from __future__ import annotations

import pytest

from corpustool.document import Document
from corpustool.errors import OptionError
from corpustool.extractors.clean import DEFAULT_EXTRACTOR, Clean
from corpustool.extractors.justext_plus import EnginePaths, class_tokens
from corpustool.extractors.registry import get_extractor
from corpustool.extractors.template_lines import looks_like_date_line
from corpustool.extractors.justext_engine import JustextEngineExtractor, parse_markup

ARTICLE = [
    "The council met on Tuesday evening to discuss the future of the old library building in the "
    "centre of the town, which has been empty since the new one opened across the river last year.",
    "Several residents said that they would like the building to become a place where young people "
    "can meet, study and work on their own projects after school and during the long summer holidays.",
    "Short line.",
    "The mayor promised that a decision would be taken before the end of the year, after a public "
    "consultation that will be open to everyone who lives or works in the town and its villages.",
]
NAV = ["Home", "News", "Sport", "Culture", "Contact"]


def page(body: str, title: str = "Old library to become a youth centre - Town News") -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def article_html(extra_inside: str = "") -> str:
    ps = "".join(f"<p>{t}</p>" for t in ARTICLE)
    return (f"<article><h1>Old library to become a youth centre</h1>{ps}"
            f"<h2>What happens next</h2><p>{ARTICLE[0]}</p>{extra_inside}</article>")


def run(html: str, **options) -> Document:
    stage = Clean(extractor="justext-plus", languages=["en"], **options)
    doc = Document(id="t", url="https://example.org/a", raw=html.encode("utf-8"))
    stage.process(doc)
    return doc


def kept(doc: Document) -> str:
    return doc.clean_text()


def assert_removed_inside_the_article(lines: list[str], **options) -> str:
    """Each line, added to the article as a paragraph before its last text, is removed; the text stays."""
    extra = "".join(f"<p>{c}</p>" for c in lines) + f"<p>{ARTICLE[1]}</p>"
    text = kept(run(page(article_html(extra_inside=extra)), **options))
    assert ARTICLE[1] in text
    for line in lines:
        assert line not in text, line
    return text


def test_is_the_default():
    assert DEFAULT_EXTRACTOR == "justext-plus"


def test_article_kept_whole_with_its_headings_and_short_lines():
    doc = run(page(article_html()))
    text = kept(doc)
    for t in ARTICLE:
        assert t in text           # "Short line." too, which jusText alone drops
    assert "Old library to become a youth centre" in text
    assert "What happens next" in text
    classic = Clean(extractor="justext", languages=["en"])
    d2 = Document(id="t", raw=page(article_html()).encode())
    classic.process(d2)
    assert "Short line." not in d2.clean_text()


def test_nav_header_footer_aside_removed():
    sentence = ("This is a long sentence in the sidebar that reads like running text and would be kept "
                "by a classifier that only looks at the words of the paragraph and not at the page.")
    body = (f"<header><p>{sentence.replace('sidebar', 'header')}</p></header>"
            f"<nav><ul>{''.join(f'<li>{n}</li>' for n in NAV)}</ul></nav>"
            f"<main>{article_html()}</main>"
            f"<aside><p>{sentence}</p></aside>"
            f"<footer><p>{sentence.replace('sidebar', 'footer')}</p></footer>")
    doc = run(page(body))
    text = kept(doc)
    assert ARTICLE[0] in text and ARTICLE[3] in text
    assert "sidebar" not in text and "in the header" not in text and "in the footer" not in text
    reasons = {p.reason for p in doc.paragraphs if not p.is_good}
    assert {"boilerplate:aside", "boilerplate:footer", "boilerplate:header"} <= reasons


def test_class_and_role_tokens_and_cookie_notice_removed():
    cookie = ("We use cookies to give you the best experience on our website and to count our visitors. "
              "If you continue to use this site we will assume that you are happy with it.")
    share = "Share this article with your friends and family on the networks that you use every day."
    body = (f"<div id='cookieConsent'><p>{cookie}</p></div>"
            f"<div role='navigation'><p>{share.replace('Share', 'Browse')}</p></div>"
            f"<div class='content'>{article_html()}<div class='social-share'><p>{share}</p></div></div>")
    doc = run(page(body))
    text = kept(doc)
    assert "We use cookies" not in text
    assert "Share this article" not in text and "Browse this article" not in text
    assert ARTICLE[2] in text
    assert any(p.reason == "boilerplate:cookie" for p in doc.paragraphs)


def test_comments_removed():
    comment = ("I really enjoyed reading this article about the library and I think that the council "
               "should listen to the young people of the town before they decide anything at all.")
    body = (f"<div class='post'>{article_html()}</div>"
            f"<section id='comments'><h3>3 comments</h3><ol class='comment-list'>"
            f"<li><p>{comment}</p></li><li><p>{comment.replace('really', 'truly')}</p></li></ol></section>")
    doc = run(page(body))
    text = kept(doc)
    assert ARTICLE[0] in text
    assert "enjoyed reading" not in text
    assert any(p.reason == "boilerplate:comment" for p in doc.paragraphs)


def test_link_list_inside_the_article_removed():
    links = "".join(f"<li><a href='/n{i}'>Another story number {i} from the town</a></li>" for i in range(6))
    doc = run(page(article_html(f"<h3>Read more</h3><ul>{links}</ul>")))
    text = kept(doc)
    assert ARTICLE[3] in text
    assert "Another story number" not in text


def test_dates_and_bylines_configurable():
    meta = "<div class='byline'>By Jane Smith</div><p class='date'>12 March 2024</p>"
    html = page(article_html().replace("</h1>", "</h1>" + meta))
    assert "Jane Smith" not in kept(run(html))
    assert "12 March 2024" not in kept(run(html))
    with_meta = kept(run(html, keep_meta=True))
    assert "Jane Smith" in with_meta and "12 March 2024" in with_meta


def test_title_heading_outside_the_article_kept():
    body = (f"<nav><ul>{''.join(f'<li>{n}</li>' for n in NAV)}</nav>"
            "<div class='head'><h1>Old library to become a youth centre</h1></div>"
            f"<div class='text'>{''.join(f'<p>{t}</p>' for t in ARTICLE)}</div>")
    text = kept(run(page(body)))
    assert "Old library to become a youth centre" in text
    assert ARTICLE[2] in text
    assert "Culture" not in text


def test_region_that_holds_the_article_is_not_boilerplate():
    # a page wrapped in a <form> (ASP.NET) or a body class naming a sidebar
    body = f"<form action='/x'><div class='wrapper has-sidebar'>{article_html()}</div></form>"
    text = kept(run(page(body)))
    assert ARTICLE[0] in text and ARTICLE[3] in text


def test_engine_paths_match_the_engine():
    html = page("<form><div><p>a</p></div></form><script>x</script><div><p>b</p><form><p>c</p></form></div>"
                "<image src='x'/><div><p>d</p></div>")
    root = parse_markup(html)
    engine = JustextEngineExtractor()
    from corpustool.extractors.base import Page
    got = {p.text: p.xpath for p in engine.extract(Page(html, stoplist=frozenset()))}
    paths = EnginePaths(root)
    for el in root.iter("p"):
        assert paths.xpath(el) == got[el.text]


def test_helpers():
    assert class_tokens("mainNav site-footer__inner") == ["main", "nav", "site", "footer", "inner"]
    assert looks_like_date_line("Posted on 12 March 2024")
    assert looks_like_date_line("31.05.2012")
    assert not looks_like_date_line(ARTICLE[0])


def test_options_validated():
    with pytest.raises(OptionError):
        get_extractor("justext-plus", outside="sometimes")
    with pytest.raises(OptionError):
        get_extractor("justext-plus", main_share=0.2)
    with pytest.raises(OptionError):
        get_extractor("justext-plus", no_such_option=1)


def test_bad_input_does_not_crash():
    ex = get_extractor("justext-plus")
    from corpustool.extractors.base import Page
    assert ex.extract(Page("", stoplist=frozenset())) == []
    assert isinstance(ex.extract(Page("<html><body><nav></nav></body></html>", stoplist=frozenset())), list)


def test_deterministic():
    html = page(f"<nav><ul>{''.join(f'<li>{n}</li>' for n in NAV)}</ul></nav>{article_html()}")
    a = [p.to_dict() for p in run(html).paragraphs]
    b = [p.to_dict() for p in run(html).paragraphs]
    assert a == b


def test_body_classes_are_not_a_region():
    # WordPress writes the page's state into <body class>: "cookies-not-set" is no cookie notice
    html = page(article_html()).replace("<body>", "<body class='single single-post cookies-not-set has-sidebar'>")
    text = kept(run(html))
    assert ARTICLE[0] in text and ARTICLE[3] in text


def test_picture_credits_removed_unless_meta_kept():
    credit = "<figure><img src='a.jpg'><figcaption>Foto: Jane Smith / Town News</figcaption></figure>"
    html = page(article_html().replace(f"<p>{ARTICLE[2]}</p>", f"<p>{ARTICLE[2]}</p>{credit}"))
    doc = run(html)
    assert "Jane Smith" not in kept(doc) and ARTICLE[3] in kept(doc)
    assert any(p.reason == "boilerplate:credit" for p in doc.paragraphs)
    assert "Jane Smith" in kept(run(html, keep_meta=True))


def test_sentence_with_a_date_is_not_a_dateline():
    assert not looks_like_date_line("Her last day at the library is 1 April 2024.")
    assert looks_like_date_line("Posted on 12 March 2024.")


def test_labelled_date_is_a_dateline_only_under_a_publishing_label():
    # an event's date or a deadline is a fact of the text; "Published:" and "Stand:" date the page
    for line in ("Termin: 29.02.2020, 19 Uhr", "Deadline: 3 May 2021", "Einsendeschluss: 03.11.2019 (Poststempel)"):
        assert not looks_like_date_line(line), line
    for line in ("Veröffentlicht: 29.02.2020, 19:00", "Stand: 03.11.2019", "Last updated: 3 May 2021", "29.02.2020"):
        assert looks_like_date_line(line), line


def test_heading_over_a_link_list_removed():
    links = "".join(f"<li><a href='/n{i}'>Another story number {i}</a></li>" for i in range(5))
    doc = run(page(article_html(f"<h3>More from the town</h3><ul>{links}</ul>")))
    text = kept(doc)
    assert "More from the town" not in text
    assert "What happens next" in text and ARTICLE[3] in text


def test_title_over_its_dateline_and_category_link_kept():
    # the headline's "section" is a dateline and a category link: not a list of links
    body = article_html().replace("<h1>Old library to become a youth centre</h1>",
                                  "<h1>Old library to become a youth centre</h1><p>12.03.2024 10:15</p>"
                                  "<p><a href='/politics'>Politics</a></p><h2>The meeting</h2>")
    text = kept(run(page(body, title="Town News")))
    assert "Old library to become a youth centre" in text


def test_a_name_that_wraps_every_block_is_not_boilerplate():
    # page builders put each block, the article's paragraphs included, in a "widget" container;
    # no single container holds most of the text, but the name together does
    blocks = "".join(f"<div class='elementor-element elementor-element-{i:x}7a3 elementor-widget-container'>"
                     f"<p>{t}</p></div>" for i, t in enumerate(ARTICLE))
    side = "<div class='elementor-widget-container sidebar'><ul>" + "".join(
        f"<li><a href='/{n}'>{n}</a></li>" for n in NAV) + "</ul></div>"
    doc = run(page(f"<div class='page'>{blocks}{side}</div>"))
    assert not doc.drop_reason
    text = kept(doc)
    assert ARTICLE[0] in text and ARTICLE[3] in text
    assert "Culture" not in text
    # one widget among several is still removed by its name
    body = article_html() + "<div class='widget'><p>Subscribe to our newsletter for weekly updates on all the news "\
        "from the town and its villages, delivered every Friday morning to your inbox.</p></div>"
    assert "newsletter" not in kept(run(page(body)))


def test_bare_form_inside_the_article_keeps_its_text():
    # a recipe's ingredient list wrapped in a <form> (for a serving-size widget)
    items = ["200 g flour", "3 eggs", "1 pinch of salt"]
    form = "<form action='/servings'><ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul></form>"
    doc = run(page(article_html(extra_inside=form + f"<p>{ARTICLE[1]}</p>")))
    text = kept(doc)
    for i in items:
        assert i in text
    # a form named by its class stays boilerplate inside the article too (the engine unwraps
    # forms, so the form's region is its parent element)
    named = "<div><form class='newsletter-signup'><p>Sign up</p><p>Your e-mail address please</p></form></div>"
    assert "Your e-mail address" not in kept(run(page(article_html(extra_inside=named + f"<p>{ARTICLE[1]}</p>"))))


OPENING_POST = ("Since about 8am I cannot log in to the mobile app, it just spins on the splash screen and then "
                "says network error. Website works fine. Is it just me?")    # (jusText: near-good)
REPLIES = ["Same here, stuck on the splash screen on Android.", "Not just you. iPhone, same error since this morning.",
           "Their status page says they are investigating login issues."]


def thread_page(form: str) -> str:
    replies = "".join(f"<li class='reply'><span class='reply-author'>user{i}</span> <time>9:0{i}</time>"
                      f"<p class='reply-text'>{t}</p></li>" for i, t in enumerate(REPLIES))
    return page(f"<nav><a href=/>Home</a> <a href=/b>Boards</a></nav><main class='thread'>"
                f"<h1>Is the app down for anyone else?</h1><div class='post op'><div class='post-author'>ollie_b"
                f"</div><div class='post-text'><p>{OPENING_POST}</p></div></div><ul class='replies'>{replies}</ul>"
                f"{form}</main><footer><p>&copy; 2024 Community Board</p></footer>",
                title="Is the app down for anyone else? | Community Board")


@pytest.mark.parametrize("form", ["<form class='search-box'><input name=q><button>Search</button></form>",
                                  "<form class='quick-reply'><textarea>Write a reply...</textarea>"
                                  "<button>Post reply</button></form>",
                                  "<form class='newsletter-signup'><p>Sign up</p></form>"])
def test_a_form_beside_a_threads_posts_does_not_name_the_thread(form):
    # the engine unwraps a <form>, so its name would mark its parent: here the whole <main>,
    # made a form or comment region, and the opening post dropped with it (session 30: an authored
    # forum page of one-line replies, 0.05 word F1)
    doc = run(thread_page(form))
    text = kept(doc)
    assert OPENING_POST in text and "Is the app down for anyone else?" in text
    assert [p.reason for p in doc.paragraphs if p.text == OPENING_POST] == [None]


def test_a_forms_wrapper_still_takes_the_forms_name():
    # the form holds most of its parent's text: the parent is its wrapper, and the name stands
    signup = ("Sign up for our weekly newsletter and get the best stories of the week delivered to your "
              "inbox every Friday morning, together with the events in the town for the weekend ahead.")
    box = f"<div><h3>Newsletter</h3><form class='newsletter-signup'><p>{signup}</p><input name=mail></form></div>"
    doc = run(page(article_html() + box))
    text = kept(doc)
    assert ARTICLE[0] in text and signup not in text
    assert [p.reason for p in doc.paragraphs if p.text == signup] == ["boilerplate:form"]


def test_an_article_named_by_its_categories_is_not_boilerplate():
    # blog software writes a post's categories and tags into its <article>'s classes
    # ("category-newsletter", "tag-social-media"): the element declares itself the content
    # (under readers' comments that outweigh it, where nothing else speaks for the article)
    body = article_html().replace("<article>", "<article class='post type-post category-newsletter "
                                                "tag-social-media'>", 1)
    comments = "".join(f"<div class='comment'><span>user{i}</span><p>{ARTICLE[i % 2]}</p></div>" for i in range(6))
    doc = run(page(f"<main>{body}<div class='comments'>{comments}</div></main>"))
    assert "Old library to become a youth centre" in kept(doc)
    assert not any(p.reason == "boilerplate:form" for p in doc.paragraphs)
    # what a record among others is named stays: an <article class="comment"> is a comment
    comment = ("I went to the meeting too and I think the youth centre is a very good idea for the town, "
               "as long as the opening hours are long enough for the young people who work.")
    doc = run(page(article_html() + f"<section><article class='comment'><p>{comment}</p></article></section>"))
    assert ARTICLE[0] in kept(doc) and comment not in kept(doc)
    assert [p.reason for p in doc.paragraphs if p.text == comment] == ["boilerplate:comment"]


def test_print_visibility_classes_do_not_mark_content_as_share_buttons():
    items = ["200 g flour", "3 eggs", "1 pinch of salt"]
    ul = "<ul class='list showOnPrint hideOnPrint'>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
    assert "3 eggs" in kept(run(page(article_html(extra_inside=ul + f"<p>{ARTICLE[1]}</p>"))))


def test_ruby_readings_are_not_text():
    ja = ("<p>" + "<ruby>子<rt>こ</rt></ruby>どもへの<ruby>虐待<rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby>を"
          "なくすための法律ができました。" * 6 + "</p>")
    doc = Document(id="ja", raw=page(ja).encode("utf-8"))
    Clean(extractor="justext-plus", languages=["auto"]).process(doc)
    text = doc.clean_text()
    assert "子どもへの虐待をなくすための法律ができました。" in text
    assert "ぎゃくたい" not in text and "(" not in text


def test_ruby_readings_in_upper_case_markup_are_not_text():
    # tag names are case-insensitive: <Rt> is a ruby text too
    ja = ("<P>" + "<Ruby>子<Rt>こ</Rt></Ruby>どもへの<Ruby>虐待<Rp>(</Rp><Rt>ぎゃくたい</Rt><Rp>)</Rp></Ruby>を"
          "なくすための法律ができました。" * 6 + "</P>")
    doc = Document(id="ja", raw=page(ja).encode("utf-8"))
    Clean(extractor="justext-plus", languages=["auto"]).process(doc)
    text = doc.clean_text()
    assert "子どもへの虐待をなくすための法律ができました。" in text
    assert "ぎゃくたい" not in text and "こども" not in text


def test_hidden_iframe_does_not_mark_its_parent():
    # an invisible tracking iframe sits inside the article's container
    body = f"<div id='post'><iframe style='display:none' src='/px'></iframe>{article_html()}</div>"
    text = kept(run(page(body)))
    assert ARTICLE[0] in text and ARTICLE[3] in text


def test_text_block_is_not_the_main_region():
    # one <p> holding most of the article as <br><br>-separated blocks: the region is its
    # container, so the blocks in the <p> before it are main text too
    lines = "<br><br>".join(ARTICLE[:2] + [ARTICLE[3]] * 3)
    body = f"<div class='post'><p>{ARTICLE[1]}</p><p>{ARTICLE[0]} Short.</p><p>{lines}</p></div>"
    text = kept(run(page(body)))
    assert f"{ARTICLE[0]} Short." in text


def test_lead_named_teaser_kept_before_the_article():
    lead = ("The old library will reopen next spring as a centre for the young people of the town, "
            "the council decided.")
    body = (f"<header><h1>Old library to become a youth centre</h1></header><div class='teaser-text'><p>{lead}</p></div>"
            "<div class='article-body'>" + "".join(f"<p>{t}</p>" for t in ARTICLE) + "</div>"
            "<div class='teaser-text'><p>Elsewhere in the town a new bakery opened its doors on Monday morning, "
            "selling bread.</p></div>")
    text = kept(run(page(body)))
    assert lead in text
    assert "bakery" not in text
    # inside the article, after its title and date, before the body text
    body = ("<article><header><h1>Old library to become a youth centre</h1><p>12 May 2024</p>"
            f"<div class='teaser'><p>{lead}</p></div></header><div class='text'>"
            + "".join(f"<p>{t}</p>" for t in ARTICLE) + "</div></article>")
    assert lead in kept(run(page(body)))


def test_soft_hyphens_and_zero_width_spaces_removed_from_text():
    words = "Die Stadt\u00adverwaltung hat am Dienstag be\u200bschlossen, dass die alte Bibliothek umgebaut wird."
    html = page("<p>" + " ".join([words] * 4) + "</p>")
    doc = Document(id="t", raw=html.encode("utf-8"))
    Clean(extractor="justext-plus", languages=["de"]).process(doc)
    assert "Stadtverwaltung" in doc.clean_text() and "beschlossen" in doc.clean_text()
    assert "\u00ad" not in doc.clean_text() and "\u200b" not in doc.clean_text()


def test_paragraph_text_is_nfc_normalised():
    decomposed = "Cafe\u0301 und Re\u0301sume\u0301: die Stadtverwaltung hat am Dienstag beschlossen, dass die alte Bibliothek umgebaut wird."
    doc = Document(id="t", raw=page("<p>" + " ".join([decomposed] * 4) + "</p>").encode("utf-8"))
    Clean(extractor="justext-plus", languages=["de"]).process(doc)
    assert "Café und Résumé" in doc.clean_text() and "\u0301" not in doc.clean_text()


def test_lead_sentence_in_its_own_container_before_the_main_region_kept():
    lead = "The old library will reopen next spring as a centre for the young people of the town."
    body = (f"<div class='intro'><p>{lead}</p></div><div class='text'>"
            + "".join(f"<p>{t}</p>" for t in ARTICLE) + "</div>"
            "<div class='box'><p>Opening hours of the town hall</p></div>")
    text = kept(run(page(body)))
    assert lead in text and ARTICLE[3] in text
    assert "Opening hours" not in text
    # a picture credit there stays out
    body = ("<div class='intro'><p>The library in May. (Photo: Town Archive)</p></div><div class='text'>"
            + "".join(f"<p>{t}</p>" for t in ARTICLE) + "</div>")
    assert "Town Archive" not in kept(run(page(body)))


def test_layout_class_on_the_block_holding_mains_text_is_not_boilerplate():
    # <main> holds the article in a container whose class names the layout ("sidebar_right");
    # the page's other text (a long footer) keeps the container below half of the page's text
    footer = "".join(f"<p>{t}</p>" for t in ARTICLE[:2]) * 2
    body = ("<main><div class='container_wrap sidebar_right'>" + "".join(f"<p>{t}</p>" for t in ARTICLE)
            + "</div><div class='note'><p>x</p></div></main>" + f"<div class='about-the-town'>{footer}</div>")
    text = kept(run(page(body)))
    assert ARTICLE[3] in text


def test_cookie_notice_text_does_not_outweigh_the_article():
    # a cookie dialog longer than the article: the container named by its layout
    # ("sidebar_right") still holds most of the text that can be content
    cookie = "".join(f"<p>{t.replace('library', 'cookie')}</p>" for t in ARTICLE + ARTICLE)
    body = ("<div class='container_wrap sidebar_right'>" + "".join(f"<p>{t}</p>" for t in ARTICLE) + "</div>"
            + f"<div class='cookie-modal'>{cookie}</div>")
    text = kept(run(page(body)))
    assert ARTICLE[0] in text and ARTICLE[3] in text
    assert "old cookie building" not in text


def test_main_text_split_in_two_blocks_keeps_both():
    # a product page: the description in one block, the details (a sentence and short
    # lines) in another block of the page's layout, menus around them
    nav = "<div class='menu'>" + "".join(f"<a href='/{w}'>{w}</a> " for w in NAV) + "</div>"
    description = "<div class='description'>" + "".join(f"<p>{t}</p>" for t in ARTICLE[:2] + ARTICLE[3:]) + "</div>"
    details = ("<div class='details'><p>" + ARTICLE[0].replace("library", "shelf") + "</p>"
               "<p>Material: oak wood</p><p>Height: 120 cm</p><p>"
               + ARTICLE[1].replace("building", "shelf") + "</p></div>")
    body = nav + "<div class='row'>" + description + "</div><div class='row2'>" + details + "</div>"
    text = kept(run(page(body)))
    assert ARTICLE[1] in text and "Material: oak wood" in text and "Height: 120 cm" in text
    assert "Sport" not in text


def test_article_header_before_the_article_is_its_title_block():
    # a header that names itself the article's ("article-header", "entry-header") holds its
    # headline and standfirst; the page's header (menu) stays boilerplate
    standfirst = ("The empty building by the river will open its doors to the young people of the town "
                  "next spring, after the council agreed on a plan for its future.")
    body = ("<div class='site-header'><p>Town News: the paper of the town and of its villages since 1901.</p>"
            + "".join(f"<a href='/{w}'>{w}</a> " for w in NAV) + "</div>"
            "<div class='article-header'><h1>Old library to become a youth centre</h1>"
            f"<h2>{standfirst}</h2></div><div class='text'>" + "".join(f"<p>{t}</p>" for t in ARTICLE) + "</div>")
    text = kept(run(page(body)))
    assert standfirst in text and ARTICLE[0] in text
    assert "since 1901" not in text


def test_short_lines_in_headed_sections_before_the_text_kept():
    # a facts box at the top of the article: sections of short lines, each under its heading
    facts = ("<h3>Opening hours</h3><p>Monday to Friday.</p><h3>Address</h3><p>River Street 4.</p>"
             "<p>Town centre.</p><h3>The plan</h3>")
    body = "<div class='menu'>" + "".join(f"<a href='/{w}'>{w}</a> " for w in NAV) + "</div>" + article_html().replace(
        "<h1>Old library to become a youth centre</h1>", "<h1>Old library to become a youth centre</h1>" + facts)
    text = kept(run(page(body)))
    for line in ("Opening hours", "Monday to Friday.", "River Street 4.", "Town centre.", ARTICLE[0]):
        assert line in text, line
    assert "Sport" not in text


def test_blog_engine_post_lines_and_follow_us_removed_unless_meta_kept():
    posted = ("Der Beitrag wurde am Mittwoch, den 27. November 2019\num 15:21 Uhr veröffentlicht und wurde "
              "unter Allgemein abgelegt. Du kannst die Kommentare zu diesem Eintrag durch den RSS-2.0-Feed verfolgen.")
    extra = (f"<p>{ARTICLE[1]}</p><p>This entry was posted in News. Bookmark the permalink.</p>"
             f"<p>{posted}</p><p>Follow Town News on Twitter</p>")
    text = kept(run(page(article_html(extra_inside=extra))))
    assert ARTICLE[1] in text
    assert "Bookmark the permalink" not in text and "RSS-2.0-Feed" not in text and "on Twitter" not in text
    assert "Bookmark the permalink" in kept(run(page(article_html(extra_inside=extra)), keep_meta=True))


def test_long_paragraph_with_a_few_links_bounds_the_text():
    # the last paragraph has links on almost a quarter of its text: more than jusText allows
    # (0.2), it is still the article's closing paragraph
    closing = ("The <a href='/a'>town council</a> will meet again in <a href='/b'>March</a>, when the "
               "<a href='/c'>plan for the building</a> and the gardens around it is presented to the people of the "
               "town and its villages.")
    body = article_html().replace("</article>", f"<p>Short line.</p><p>{closing}</p></article>")
    text = kept(run(page(body)))
    assert "will meet again in March" in text


def test_short_post_of_short_lines_kept():
    # a post of three short quoted lines: no paragraph jusText finds good or near-good
    post = ("<div class='post'><h2>A conversation</h2><p>\u201eI know I am tired and should not say it.\u201c</p>"
            "<p>\u2013 \u201eThen do not say it, my friend.\u201c</p><p>\u2013 \u201eFine, I will not.\u201c</p></div>")
    body = "<div class='menu'>" + "".join(f"<a href='/{w}'>{w}</a> " for w in NAV) + "</div>" + post
    text = kept(run(page(body, title="A conversation")))
    assert "I know I am tired" in text and "Then do not say it" in text and "Sport" not in text


def test_letter_salutation_and_sign_off_kept_with_the_text():
    letter = ("<div class='letter'><p>Dear readers,</p>" + "".join(f"<p>{t}</p>" for t in ARTICLE)
              + "<p>Best regards</p><p>Your Anna</p></div>")
    text = kept(run(page("<div class='menu'>" + "".join(f"<a href='/{w}'>{w}</a> " for w in NAV) + "</div>" + letter)))
    assert "Dear readers," in text and "Best regards" in text and ARTICLE[3] in text
    assert "Sport" not in text


def test_site_calls_to_action_of_any_length_removed():
    lines = ["For the latest stories and breaking news updates download the Town News apps for iOS and Android.",
             "If you enjoyed reading this post, would you consider supporting our work? Just click here.",
             "We want to hear what you think about this article. Submit a letter to the editor.",
             "Gib deine E-Mail-Adresse ein, um diesem Blog zu folgen und Benachrichtigungen zu erhalten.",
             "¡Mira lo que tiene nuestro canal de YouTube!", "Vorschau auf den nächsten Artikel", "Quellen ausblenden"]
    assert_removed_inside_the_article(lines)
    # the same words in the article's sentences are text
    sentence = ("The council wants to support the work of the volunteers who run the library and "
                "will publish a newsletter about the plan.")
    assert sentence in kept(run(page(article_html(extra_inside=f"<p>{sentence}</p><p>{ARTICLE[1]}</p>"))))


def test_licence_disclaimer_citation_and_paywall_lines_removed():
    lines = ["Dieser Text wurde veröffentlicht unter der Lizenz CC-BY-NC-ND-4.0-DE.",
             "Dieser Beitrag gibt die Meinung des Autors wieder, nicht die der Redaktion.",
             "(Alle Angaben ohne Gewähr)", "SUGGESTED CITATION Town, Anna: The library, Town News, 2024/4/09.",
             "To view the full story, please subscribe to Town News.", "Follow Town News on Twitter and Instagram.",
             "Letzte Aktualisierung am 2.02.2022 / Bei den Verlinkungen handelt es sich um Affiliate Links",
             "Externer Inhalt", "Weitere Informationen:", "Mehr Kolumnen auf TownNews:"]
    assert_removed_inside_the_article(lines)


def test_line_introducing_what_follows_the_text_kept():
    extra = "<p>The plan of the council can be found here:</p><ul><li><a href='/p'>plan.pdf</a></li></ul>"
    text = kept(run(page(article_html().replace("</article>", extra + "</article>"))))
    assert "The plan of the council can be found here:" in text


def test_box_titles_captions_and_consent_placeholders_removed():
    consent = ("Wir respektieren deine Privatsphäre und stellen deshalb ohne dein Einverständnis keine Verbindung "
               "zu Twitter her. Wenn du hier klickst, werden Daten an Twitter übertragen und der Beitrag wird "
               "geladen; mehr dazu steht in unserer Datenschutzerklärung, die du jederzeit aufrufen kannst.")
    lines = ["Über diese Reihe", "About the author", "Pressesprecherin Anna Town",
             "Abbildung 8: Vorgehensweise für grosse Ereignisse", consent]
    assert_removed_inside_the_article(lines)


def test_heading_before_the_article_that_is_a_template_line_removed():
    body = ("<div class='box'><p>" + ARTICLE[0].replace("library", "school") + "</p><h5>See also</h5></div>"
            + article_html())
    text = kept(run(page(body)))
    assert "See also" not in text and ARTICLE[1] in text


def test_comment_prompts_newsletter_teasers_ad_prefixes_and_disclaimers_removed():
    lines = ["2024 nichts mehr versäumen!", "ANZEIGE - Heute mal ausgehen? Wie wäre es mit:",
             "Bitte teilen Sie uns Ihre Erfahrungen mit, wenn Sie das Buch schon gelesen haben.",
             "Du möchtest mitmachen? Dann hinterlasse einfach einen Kommentar unter diesem Beitrag.",
             "Get the latest news straight to your phone with the Town News app.",
             "Town News does not offer medical advice. If you are concerned about your health, see a doctor.",
             "Ich bin mit der Verarbeitung meiner Daten nach der Datenschutzerklärung einverstanden."]
    assert_removed_inside_the_article(lines)
    # a sentence that begins with the word is text
    sentence = "Werbung ist für die Bibliothek der Stadt nie ein Thema gewesen, sagte die Bürgermeisterin."
    assert sentence in kept(run(page(article_html(extra_inside=f"<p>{sentence}</p><p>{ARTICLE[1]}</p>"))))


def test_caption_marks_agency_credits_unrendered_markup_and_copyright_c_removed():
    lines = ["Anna Town (l.) und Ben Town haben einen guten Draht zur Bibliothek.",
             "Wer die Bücher auf die Wege legt, ist unklar (Symbolbild).",
             "Anna Town, the mayor of the town, at the library (REUTERS/Ben Photographer)",
             "{{^topArticle}} Für dieses Rezept gibt es noch keine Anleitung.",
             "The hall of the library / (C) Ben Photographer",
             "Vergrößern Eine kleine runde Aussparung für die Kamera im Display des Telefons.",
             "¿Ya sabías que tenemos canal de Telegram? Únete desde tu celular."]
    assert_removed_inside_the_article(lines)
    # keep_meta keeps the captions' credits
    extra = "".join(f"<p>{c}</p>" for c in lines) + f"<p>{ARTICLE[1]}</p>"
    assert "(REUTERS/Ben Photographer)" in kept(run(page(article_html(extra_inside=extra)), keep_meta=True))


def test_heading_after_the_last_kept_text_removed():
    # the closing line reads like text (it ends the span) but is removed as a copyright line
    closing = ("<h3>About this page</h3><p>\u00a9 2024 Town News, all rights reserved; the articles of this "
               "site may not be copied without the permission of the publisher.</p>")
    body = article_html(extra_inside=closing)
    text = kept(run(page(body)))
    assert "About this page" not in text
    assert ARTICLE[0] in text
    # a heading followed by its text stays
    assert "What happens next" in text


def test_first_sentence_with_a_link_or_two_is_the_lead():
    # links on a quarter of its text: more than jusText's max_link_density (0.2)
    lead = ("<p>The <a href='/town'>council of Oldtown and its new mayor</a> met on Tuesday evening to discuss "
            "the future of the old library building in the centre of the town.</p>")
    body = "<article><h1>Old library</h1>" + lead + "".join(f"<p>{t}</p>" for t in ARTICLE[1:]) + "</article>"
    assert "The council of Oldtown and its new mayor met" in kept(run(page(body)))


def test_credit_words_of_more_languages():
    from corpustool.extractors.template_lines import looks_like_credit_line

    for line in ("(crédito: Minervino Júnior)", "Kuva: ALEXANDER BECHER", "Фото: ТАСС", "Fotografie: dpa"):
        assert looks_like_credit_line(line), line
    assert not looks_like_credit_line("The photograph shows the old library in 1910.")


def test_calls_to_action_removed_from_the_article():
    ctas = ["Möchten Sie den Artikel teilen?", "Subscribe now to our edition for the full story.",
            "Para comentar debes registrarte.", "(Noch keine Bewertungen)"]
    extra = "".join(f"<p>{c}</p>" for c in ctas) + f"<p>{ARTICLE[1]}</p>"
    text = kept(run(page(article_html(extra_inside=extra))))
    assert ARTICLE[1] in text
    for c in ctas:
        assert c not in text
    from corpustool.extractors.template_lines import looks_like_call_to_action

    # a sentence that mentions sharing is not a button; a long one never is
    assert not looks_like_call_to_action("Their market share rose to 20 percent last year.")
    assert not looks_like_call_to_action("The council asked residents to subscribe to the new bus service, "
                                         "which starts in May and runs every day of the week.")


def test_related_articles_heading_removed():
    box = ("<h3>Mehr zum Thema</h3><p>Die Bibliothek der Stadt wird im Frühjahr neu eröffnet, sagte die "
           "Bürgermeisterin am Dienstag.</p>")
    from corpustool.extractors.template_lines import looks_like_related_heading

    for line in ("Mehr zum Thema", "Lesen Sie auch:", "Veja Também:", "More on this topic", "Vous aimerez aussi",
                 "NOTAS RELACIONADAS", "Meistgelesene Artikel", "Most read", "Ähnliche Beiträge",
                 "Verwandte Beiträge"):
        assert looks_like_related_heading(line), line
    assert not looks_like_related_heading("More people than ever visited the old library building this year.")
    text = kept(run(page(article_html(extra_inside=box + f"<p>{ARTICLE[1]}</p>"))))
    assert "Mehr zum Thema" not in text and ARTICLE[1] in text


def test_advertisement_label_removed():
    extra = "<p>Anzeige</p><p>ADVERTISEMENT</p>" + f"<p>{ARTICLE[1]}</p>"
    text = kept(run(page(article_html(extra_inside=extra))))
    assert "Anzeige" not in text and "ADVERTISEMENT" not in text and ARTICLE[1] in text


def test_affiliate_disclosure_feedback_widget_and_read_aloud_removed():
    lines = ["Anzeige, enthält Affiliate Links", "This post contains affiliate links.", "War der Artikel nützlich?",
             "Was this article helpful?", "ESCUCHA ESTA NOTA AQUÍ", "Listen to this article",
             "*Werbung. Dieser Beitrag enthält Werbung für eine Marke.",
             "Für Links auf dieser Seite erhält die Redaktion ggf. eine Provision vom Händler, z.B. für solche mit Symbol.",
             "Materiał chroniony prawem autorskim.", "Town News 2024. Alle Rechte vorbehalten."]
    assert_removed_inside_the_article(lines)
    # a sentence about links or usefulness is text
    from corpustool.extractors.template_lines import looks_like_call_to_action

    assert not looks_like_call_to_action("The article was useful for the council.")


def test_agency_credits_and_repeated_control_labels_removed():
    gallery = "".join("<div><p>Show picture</p></div>" for _ in range(4))
    extra = "<p>The old library / Shutterstock</p>" + gallery + f"<p>{ARTICLE[1]}</p>"
    text = kept(run(page(article_html(extra_inside=extra))))
    assert "Shutterstock" not in text and "Show picture" not in text and ARTICLE[1] in text
    # keep_meta keeps credits
    assert "Shutterstock" in kept(run(page(article_html(extra_inside=extra)), keep_meta=True))


def test_agency_names_in_headings_and_common_words_are_not_credits():
    extra = "<h2>Reuters opens a new office in town</h2><p>EPA rules on the old library</p>" + f"<p>{ARTICLE[1]}</p>"
    text = kept(run(page(article_html(extra_inside=extra))))
    assert "Reuters opens a new office in town" in text and "EPA rules on the old library" in text


# -- on both backends (the compiled walk, its SAX parse and decide; their Python twins) ------------

from corpustool.extractors import justext_plus as jp  # noqa: E402
from corpustool.extractors.base import Page  # noqa: E402
from corpustool.language.stoplists import stoplist  # noqa: E402
from tests.support.pages import AWKWARD, HAND_MADE, S  # noqa: E402

EN = stoplist("en")
PLUS = get_extractor("justext-plus")


def test_paragraphs_and_title_of_a_page(native_backend):
    """The title from <head> (not the later <title>), whitespace squeezed; the text kept, the rest not."""
    page = Page("<html><head><title> The  Town\nNews </title></head><body><nav><a href=/>Home</a></nav>"
                "<article><h1>Library to reopen</h1><p>" + S + "</p><p>" + S + "</p></article>"
                "<svg><title>icon</title></svg></body></html>", stoplist=EN)
    paras = PLUS.extract(page)
    assert PLUS.title(page) == "The Town News"
    assert [p.text for p in paras if p.is_good] == ["Library to reopen", S, S]
    assert [p.text for p in paras if not p.is_good] == ["Home", "icon"]


def test_a_title_is_text_even_where_it_looks_like_a_script(native_backend):
    page = Page("<head><title>a<script>b</script>c</title></head><p>" + S, stoplist=EN)
    PLUS.extract(page)
    assert PLUS.title(page) == "a<script>b</script>c"      # (a title's content is text, not markup)


def test_a_text_run_past_libxml2s_limit_is_cut_there(native_backend):
    """libxml2 stops at a text run over 10 MB (XML_MAX_TEXT_LENGTH), whichever parse reads the page."""
    html = "<p>" + S + "</p><div>" + "word " * 2_100_000 + "</div><p>After the long text.</p>"
    assert [p.text for p in PLUS.extract(Page(html, stoplist=EN))] == [S]


def test_ruby_annotations_are_stripped(native_backend):
    html = "<p>" + S + "<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby> tail</p>"
    [para] = PLUS.extract(Page(html, stoplist=EN))
    assert para.text == S + "漢字 tail"


def test_evidence_is_found(native_backend):
    paras = PLUS.extract(Page(AWKWARD["nested semantic"], stoplist=EN))
    assert {p.features.get("region") for p in paras} >= {"nav", "aside", "footer"}
    assert any(p.features["main"] for p in paras)


# elements alike in what the rules read (tag, role, itemprop, hidden, a hiding style, the kinds of
# the class and id values), with different values
ALIKE_REGIONS = ("<html><body><div role=navigation class='menu top'><p>" + S + "</p></div>"
                 "<div role=navigation class='menu bottom' id=n2><p>Second " + S + "</p></div>"
                 "<div role=note class='share x'><p>Third " + S + "</p></div>"
                 "<div role=note class='cookie x'><p>Fourth " + S + "</p></div>"
                 "<div style='display:none' class='menu top'><p>Fifth " + S + "</p></div>"
                 "<article><p>" + S + "</p><p>" + S + "</p><p>" + S + "</p></article></body></html>")


def test_elements_decided_alike_keep_their_own_descriptions(native_backend):
    """Each region names its own element, and a different kind is decided anew (the compiled walk
    remembers the rules' decision for elements alike, not for equal values)."""
    paras = PLUS.extract(Page(ALIKE_REGIONS, stoplist=EN))
    regions = [(p.features.get("region"), p.features.get("region_element")) for p in paras[:5]]
    assert regions == [("nav", "div.menu top#"), ("nav", "div.menu bottom#n2"), ("share", "div.share x#"),
                       ("cookie", "div.cookie x#"), ("hidden", "div.menu top#")]


def decided(html: str, **options) -> list:
    """The page's paragraphs decided by the backend's decide() alone (the compiled one over the
    compiled walk's tree, the Python one over the XPath evidence): no structure rules around it."""
    ex = get_extractor("justext-plus", **options)
    page = Page(html, stoplist=EN)
    paras, tree, title, _ = ex._walk_tree(page, EN, ex.engine.params_for(page))
    if tree is None:
        return paras
    kinds = dict(tree.kinds)
    if jp.compiled_decide is not None and type(tree) is jp.PageTree:
        assert jp.compiled_decide(ex.decide_settings, paras, kinds, list(tree.hints), title, tree.why,
                                  tree) is not jp.DECLINED
    else:
        ex.decide(paras, kinds, list(tree.hints), title, tree.why, tree)
    return paras


def test_the_decisions_rules_on_hand_made_pages(native_backend):
    """Each hand-made page reaches the rule it is named after."""
    assert decided(HAND_MADE["no paragraphs"]) == []
    one = decided(HAND_MADE["one paragraph"])
    assert len(one) == 1 and one[0].cls == "good"
    assert all(p.cls == "bad" and not p.features["main"] for p in decided(HAND_MADE["no main region"]))
    assert {p.reason for p in decided(HAND_MADE["cookie notice only"])} == {"boilerplate:cookie"}
    nested = decided(HAND_MADE["nested hints"])
    assert {"boilerplate:links", "boilerplate:credit", "boilerplate:share"} <= {p.reason for p in nested}
    assert any(p.features.get("region_element") for p in nested)
    second = decided(HAND_MADE["second main block"])
    assert [p.features["main"] for p in second] == [True] * 3 + [False] + [True] * 6
    run_ = decided(HAND_MADE["link list run"])
    assert [p.reason for p in run_[2:5]] == ["boilerplate:links"] * 3 and run_[1].cls == run_[5].cls == "good"
    page = Page(HAND_MADE["negative total weight"], stoplist=EN)
    dense = PLUS._walk_tree(page, EN, PLUS.engine.params_for(page))[0]
    assert [p.features["link_density"] > 1 for p in dense] == [True, True, False]
    # (the element of the longest XPath among those with the share, not the last one)
    assert [p.features["main"] for p in decided(HAND_MADE["negative total weight"])] == [True, False, False]
    assert [p.cls for p in decided(HAND_MADE["crowded names"])[:5]] == ["good"] * 5


def test_xpath_prefixes_are_built_once_per_element():
    """XPathTree's ancestors of each paragraph (the pure-Python path): the same as the XPath's own
    prefixes, and a deep page's shared ancestors are one tuple, not one string per paragraph
    (a page of 250 unclosed tags cost its depth squared in characters per paragraph)."""
    xpaths = ["/html[1]/body[1]/div[2]/p[1]", "/html[1]/body[1]/div[2]/p[2]", "/html[1]/body[1]",
              "/html[1]", "/html[1]/body[1]/div[2]/div[1]/p[3]", "/html[1]/body[1]/div[10]"]
    known: dict = {}
    for x in xpaths:
        assert list(jp._shared_prefixes(x, known)) == jp._prefixes(x)
    deep = "/html[1]/body[1]" + "/div[1]" * 250
    a = jp._shared_prefixes(deep + "/p[1]", known)
    b = jp._shared_prefixes(deep + "/p[2]", known)
    assert a[:-1] is not b[:-1] and a[-2] is b[-2]      # the ancestors' strings are shared
    assert list(a) == jp._prefixes(deep + "/p[1]")
