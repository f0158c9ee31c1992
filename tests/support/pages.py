"""Pages written for the tests, shared by the behavioural tests and the backend comparison.

``S`` is one sentence of English prose (long, many stop words: jusText keeps it); ``AWKWARD`` and
``random_evidence_page`` exercise justext-plus's structural evidence (regions, hints, hidden and
killed elements); ``HAND_MADE`` and ``random_decision_page`` the rules of its decision.
"""
from __future__ import annotations

import random

from corpustool.language.stoplists import stoplist
from tests.support.markup import random_markup

EN = stoplist("en")
S = SENTENCE = ("The council met on Tuesday evening to discuss the future of the old library building in the "
                "centre of the town, which has been empty since the new one opened across the river.")
SENTENCE_2 = ("Residents who spoke at the meeting said that they would like the building to become a place "
              "where people of all ages can meet, read and learn about the history of the area.")
WORDS = " ".join(f"word{i}" for i in range(12))
SHORT = "Read more"


def fields(paragraphs: list) -> list:
    """Every field of every paragraph, in the class's order."""
    return [[(name, getattr(p, name)) for name in type(p).__slots__] for p in paragraphs]


def P(text: str = SENTENCE, tag: str = "p", attrs: str = "") -> str:
    return f"<{tag}{(' ' + attrs) if attrs else ''}>{text}</{tag}>"


AWKWARD = {
    "empty": "",
    "blank": "   \n ",
    "no body": "<html><head><title>T</title></head></html>",
    "text only": "just some text without any markup at all, which is still a paragraph of the page",
    "tag soup": "<p>one<div>two<p>three<li>four</b></i><td>five<table><tr><td>six" + SENTENCE,
    "nested semantic": ("<html><body><header><nav><ul><li><a href=/>Home</a></li><li>" + SHORT +
                        "</li></ul></nav><h1>Title of the story here</h1></header><main><article>"
                        "<header><h1>Story headline for the day</h1><time>12 March 2024</time></header>" +
                        P() * 4 + "<aside>" + P("Related: another story") + "</aside><footer>" +
                        P("Photo: Reuters") + "</footer></article></main><footer>" +
                        P("&copy; 2024 Town News") + "</footer></body></html>"),
    "unwrapped form": ("<body><div class='content'><form class='searchform'><p>Search the site</p>"
                       "<input name=q></form>" + P() * 3 + "</div><div><form>" + P() * 2 +
                       "</form></div><form><iframe class='ad'></iframe>" + P(SHORT) + "</form></body>"),
    # an unwrapped form's name marks its parent only when it holds half the parent's text or more
    # (characters, not UTF-8 bytes: 18 of 44 here; scripts, styles and comments not counted)
    "form beside more text": ("<body><main class='thread'>" + P() * 2 + "<form class='quick-reply'>"
                              "<textarea>Write a reply</textarea><button>Post</button></form></main>"
                              "<div><form class='login'><p>ěščřžýáíé"
                              "ěščřžýáíé</p></form>"
                              "<p>abcdefghijklmnopqrstuvwxyz</p></div></body>"),
    "form with most of its parent": ("<body><div><!-- " + "comment " * 40 + "--><script>var a = '" + "script " * 40 +
                                     "';</script><style>" + "p{}" * 100 + "</style>"
                                     "<form class='newsletter'>" + P() + "</form> \n\t<?pi x?><![CDATA[ab]]>"
                                     "</div><div> x <form class='search'><p>Search</p></form>  y  </div>"
                                     "<div>\u00a0<form class='signup'>" + P(SHORT) + "</form></div>" + P() * 2 +
                                     "</body>"),
    # sibling forms share their parent (counted once): the first that holds half of it names it
    "sibling forms": ("<body><div><form class='login'><p>Log in</p></form><form class='search'>" + P() +
                      "</form><form class='signup'>" + P(SHORT) + "</form></div><div><form class='reply'>" +
                      P(SHORT) + "</form>" + P() * 2 + "<form class='newsletter'>" + P() * 3 + "</form></div>"
                      "</body>"),
    "article named by categories": ("<body><article class='post category-newsletter tag-footer'>" + P() * 3 +
                                    "</article><article class='comment'>" + P() + "</article>"
                                    "<main class='ad-free'>" + P() + "</main></body>"),
    "form with its own kind first": ("<body><div class='sidebar'><form>" + P(SHORT) + "</form></div>"
                                     "<div>" + P() * 3 + "</div></body>"),
    "killed inside regions": ("<body><nav><script>var x = '<p>no</p>';</script>" + P(SHORT) +
                              "<style>p {}</style></nav><div id='main'>" + P() * 3 +
                              "<select><option>a</option></select><button>Go</button></div>"
                              "<textarea class='comment'>typed</textarea></body>"),
    "hidden": ("<body><div hidden>" + P() + "</div><div style='display: none'>" + P() + "</div>"
               "<div style='Visibility:Hidden'>" + P() + "</div><div style='color: red'>" + P() * 2 +
               "</div><div style='di\u017fplay:none'>" + P() + "</div><div style='font: \u00e9'>" + P() +
               "</div></body>"),
    "class and id tokens": ("<body><div class='mainNav'>" + P(SHORT) + "</div><div id='site-footer__inner'>" +
                            P(SHORT) + "</div><div class='CookieBar consent'>" + P() + "</div>"
                            "<ul class='menu-item menu'><li class='menu-item'>" + SHORT + "</li></ul>"
                            "<div class='\u0130nfo NAV\u212a'>" + P() + "</div><div class='x' id='relatedPosts'>" +
                            P() + "</div><div class='" + "a" * 80 + "menu'>" + P() + "</div>"
                            "<div class='' id=''>" + P() * 3 + "</div></body>"),
    "hints": ("<body><div role=' Main '>" + P() * 2 + "</div><div itemprop='articleBody'>" + P() * 3 +
              "<div role='navigation'>" + P(SHORT) + "</div><span itemprop='author'>Jane Doe</span>"
              "</div><article class='comment'>" + P() + "</article><main>" + P() * 2 + "</main></body>"),
    "page tags": ("<html class='nav'><body class='has-sidebar cookies-not-set' role='main' hidden>" + P() * 3 +
                  "</body></html>"),
    "roles": ("<body><div role='banner'>" + P(SHORT) + "</div><div role='search'>" + P(SHORT) + "</div>"
              "<div role=''>" + P() + "</div><div role='contentinfo'>" + P() + "</div>" + P() * 2 + "</body>"),
    "leaves and breaks": ("<body><div class='share'>Share<br><br>this</div><p class='byline'>By Jane</p>"
                          "<image class='ad' src=x><div>a<br>b<br><br>c " + SENTENCE + "</div>"
                          "<td class='sidebar'>" + SHORT + "</td></body>"),
    "deep": "<body>" + "<div class='wrap'>" * 60 + P() * 3 + "</div>" * 60 + "<div class='menu'>" + P(SHORT) +
            "</div></body>",
    "entities in attributes": ("<body><div class='nav&amp;menu' id='a&#x20;footer'>" + P() + "</div>" + P() * 2 +
                               "</body>"),
    "no good text": ("<body><nav>" + "".join(P(f"<a href=/{i}>Link {i}</a>") for i in range(6)) +
                     "</nav><div>" + P("Ten words of text that read like a short note here.") + "</div></body>"),
}


def random_evidence_page(rng: random.Random) -> str:
    """Nested blocks with random tags, classes, roles, hints, unwrapped and killed elements."""
    tags = ["div", "div", "section", "nav", "aside", "footer", "header", "form", "article", "main", "ul", "li",
            "span", "td", "table", "p", "time", "iframe", "object", "dialog", "menu", "h2"]
    classes = ["", "", "", "menu", "sidebar", "footer", "share-buttons", "content", "post", "entry-meta",
               "commentList", "related", "x", "navBar", "cookie-notice", "ad", "widget"]
    texts = [SENTENCE, SENTENCE, SHORT, "Posted on 12 March 2024", "Foto: dpa", "\u00a9 2024 Site",
             "<a href=/x>A link to another page</a>", "<a href=/y>Home</a> <a href=/z>News</a>"]

    def block(depth: int) -> str:
        tag = rng.choice(tags)
        attrs = []
        if rng.random() < 0.4:
            attrs.append(f"class='{rng.choice(classes)}'")
        if rng.random() < 0.15:
            attrs.append(f"id='{rng.choice(classes)}'")
        if rng.random() < 0.05:
            attrs.append(f"role='{rng.choice(['main', 'navigation', 'complementary', 'Main', 'none'])}'")
        if rng.random() < 0.04:
            attrs.append(f"itemprop='{rng.choice(['articleBody', 'author', 'name'])}'")
        if rng.random() < 0.03:
            attrs.append(rng.choice(["hidden", "style='display:none'", "style='margin:0'"]))
        inner = []
        for _ in range(rng.randint(0, 4)):
            r = rng.random()
            if depth < 6 and r < 0.5:
                inner.append(block(depth + 1))
            elif r < 0.55:
                inner.append("<script>var a = 1;</script>")
            else:
                inner.append(rng.choice(texts))
        return f"<{tag} {' '.join(attrs)}>{''.join(inner)}</{tag}>"

    return "<html><head><title>A story</title></head><body>" + "".join(block(0) for _ in range(6)) + "</body></html>"




# -- pages for the decision's rules ------------------------------------------------------------

HAND_MADE = {
    "no paragraphs": "<html><head><title>Nothing</title></head><body><div></div></body></html>",
    "one paragraph": f"<html><body><p>{SENTENCE}</p></body></html>",
    "no main region": ("<html><body><nav><ul>" + "".join(f"<li><a href=/{i}>Section {i}</a></li>" for i in range(8)) +
                       "</ul></nav><footer><p>Contact us</p></footer></body></html>"),
    "cookie notice only": (f"<html><body><div class='cookie-notice'><p>{SENTENCE} We use cookies.</p>"
                           f"<p>{SENTENCE_2}</p><button>Accept</button></div></body></html>"),
    "nested hints": ("<html><head><title>Library plans for the town - Town News</title></head><body>"
                     "<header class='site-header'><nav><a href=/>Home</a> <a href=/n>News</a></nav></header>"
                     "<main><article><header class='entry-header'><h1>Library plans for the town</h1>"
                     "<p class='byline'>By Jane Doe</p><time>12 March 2024</time></header>"
                     "<div itemprop='articleBody'><section role='main'>"
                     f"<p>{SENTENCE}</p><p>{SENTENCE_2}</p><aside class='teaser'><p>{SENTENCE_2}</p></aside>"
                     f"<p>{SENTENCE}</p><h2>Related</h2><ul><li><a href=/a>One story</a></li>"
                     "<li><a href=/b>Two stories</a></li><li><a href=/c>Three stories</a></li></ul>"
                     "<p>Foto: dpa</p></section></div><div class='share'><p>Share this</p></div>"
                     "</article></main><aside class='sidebar'><h3>Popular</h3><p>Another story</p></aside>"
                     "<footer><p>&copy; 2024 Town News</p></footer></body></html>"),
    "second main block": ("<html><body><div class='recipe'><div class='ingredients'>"
                          + "".join(f"<p>{SENTENCE_2}</p>" for _ in range(3)) +
                          "</div></div><div class='sidebar'><p>Subscribe to our newsletter</p></div>"
                          "<div class='steps'><div class='inner'>"
                          + "".join(f"<p>{SENTENCE}</p>" for _ in range(6)) +
                          "</div></div></body></html>"),
    "crowded names": ("<html><body>" + "".join(f"<div class='elementor-widget-container elementor-{i}a7f'>"
                                               f"<p>{SENTENCE}</p></div>" for i in range(5)) +
                      "<div class='elementor-widget-container menu'><p>Home</p></div></body></html>"),
    "bare form and letter": ("<html><body><form><div class='post'><p>Dear readers,</p>"
                             f"<p>{SENTENCE}</p><p>{SENTENCE_2}</p><p>The paper is here:</p>"
                             "<p>Best regards</p><p>Read more</p><p>Read more</p><p>Read more</p></div></form>"
                             "</body></html>"),
    "link list run": ("<html><body><article><h1>The library plans</h1>"
                      f"<p>{SENTENCE}</p><p>Open the <a href=/m>town map</a> now</p>"
                      "<p>See the <a href=/b>bus times</a> today</p><p>Find the <a href=/p>car parks</a> here</p>"
                      f"<p>{SENTENCE_2}</p></article></body></html>"),
    # whitespace inside a link counts in its link density, not in the text: a density above 1,
    # and without content-like text, a negative weight in the main region's search
    "link density above 1": ("<html><body><div class='a'><p><a href=/x>" + " " * 30 + WORDS + " " * 30 +
                             f"</a></p><p><a href=/y>{WORDS}</a> and a few more words of plain text here</p></div>"
                             f"<div class='b'><section><p>{WORDS} plain words without any link at all in it</p>"
                             "</section></div></body></html>"),
    "negative total weight": ("<html><body><div><div><div><p><a href=/x> " + WORDS + " </a></p></div></div></div>"
                              "<section><p><a href=/y> " + WORDS.upper() + " </a></p></section><p>A short line</p>"
                              "</body></html>"),
    "article header by name": ("<html><body><div class='post-header'><h1>The headline of it all</h1></div>"
                               f"<div class='content'><p>{SENTENCE}</p><p>{SENTENCE_2}</p></div>"
                               "<h2>More on this topic</h2><h3>Comments</h3></body></html>"),
}



_TAGS = ["div", "div", "div", "section", "nav", "aside", "footer", "header", "form", "article", "main", "ul", "li",
         "p", "p", "span", "td", "table", "time", "iframe", "dialog", "h2", "h3", "a", "br", "script", "blockquote"]
_CLASSES = ["", "", "", "menu", "sidebar", "footer", "share-buttons", "content", "post", "entry-meta",
            "commentList", "related", "navBar", "cookie-notice", "ad", "widget", "post-header", "article-head",
            "elementor-widget-container elementor-1a2b", "elementor-widget-container elementor-3c4d", "teaser"]
_TEXTS = [SENTENCE, SENTENCE_2, SENTENCE, "Read more", "Read more", "Posted on 12 March 2024", "Foto: dpa",
          "\u00a9 2024 Site", "<a href=/x>A link to another page of the site</a>",
          "<a href=/y>Home</a> <a href=/z>News</a>", "Dear readers,", "Best regards", "The paper is here:",
          "Short line", "Anzeige", "Share this", "More on this topic", "A story about the town",
          "It rained. ", "<a href=/q>" + SENTENCE[:60] + "</a>" + SENTENCE[60:], "Open the <a href=/m>town map</a> now",
          "See the <a href=/b>bus times</a> today", "Find the <a href=/p>car parks</a> here"]
_VOID = {"br"}


def _attrs(rng: random.Random, tag: str) -> str:
    out = []
    if rng.random() < 0.4:
        out.append(f"class='{rng.choice(_CLASSES)}'")
    if rng.random() < 0.1:
        out.append(f"id='{rng.choice(_CLASSES)}'")
    if rng.random() < 0.06:
        out.append(f"role='{rng.choice(['main', 'navigation', 'complementary', 'banner', 'none'])}'")
    if rng.random() < 0.05:
        out.append(f"itemprop='{rng.choice(['articleBody', 'author', 'text'])}'")
    if rng.random() < 0.02:
        out.append(rng.choice(["hidden", "style='display:none'"]))
    return (" " + " ".join(out)) if out else ""


def random_decision_page(rng: random.Random) -> str:
    body = "".join(random_markup(rng, _TAGS, _TEXTS, _VOID, items=(1, 4), max_depth=4, close=0.9, attrs=_attrs)
                   for _ in range(rng.randint(1, 6)))
    return f"<html><head><title>A story about the town</title></head><body>{body}</body></html>"


