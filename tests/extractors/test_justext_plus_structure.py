"""justext-plus on page types other than articles: what the page's structure says (issue 20)."""
from __future__ import annotations

import pytest

from corpustool.document import Document, Paragraph
from corpustool.extractors import justext_plus_structure as structure
from corpustool.extractors.clean import Clean
from corpustool.extractors.justext_plus import JustextPlusExtractor
from corpustool.extractors.base import Page
from corpustool.extractors.registry import get_extractor

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


def test_comment_blocks_without_the_declaration_by_their_structure():
    # the same markup on a page that does not call itself a discussion: the posts are the page's
    # text (records with an author/date line each, nothing above them: rule `posts`) ...
    text = kept(run(forum(head="")))
    assert all(post in text for post in POSTS)
    # ... but under a longer article they are its comments
    article = "<article>" + "".join(f"<p>{p} {p}</p>" for p in POSTS[::-1]) + "</article>"
    text = kept(run(forum(head="").replace("<h1>Gears slipping</h1>", "<h1>Gears slipping</h1>" + article)))
    assert f"{POSTS[0]} {POSTS[0]}" in text
    assert f"\n{POSTS[1]}\n" not in f"\n{text}\n" and f"\n{POSTS[2]}\n" not in f"\n{text}\n"


def test_the_comment_guard_on_a_deep_page_stays_small():
    """comment_section compares XPath strings: a page of 20,000 comment paragraphs nested 250 deep
    (XPaths of ~2,500 characters) is not split into five million step strings (~300 MB)."""
    import tracemalloc

    deep = "/html[1]/body[1]" + "/div[1]" * 250
    paras = []
    for k in range(10_000):
        paras.append(Paragraph(f"reader{k} 1.2.2024", xpath=f"{deep}/div[{k + 1}]/p[1]", features={"words": 2}))
        paras.append(Paragraph(POSTS[k % 3], xpath=f"{deep}/div[{k + 1}]/p[2]", features={"words": 30}))
    inside = [True] * len(paras)
    tracemalloc.start()
    section = structure.comment_section(paras, inside)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert section.kind == structure.POSTS and section.record_tags == {"div"}
    assert peak < 20_000_000


def test_the_records_are_the_elements_below_the_deepest_common_one():
    # (div[1] and div[12] share the characters "div[1", not an element)
    assert structure._common_element(["/html[1]/body[1]/div[1]/p[1]", "/html[1]/body[1]/div[12]/p[1]"]) == \
        "/html[1]/body[1]"
    assert structure._common_element(["/a[1]/b[1]/c[1]", "/a[1]/b[1]/c[1]/d[1]"]) == "/a[1]/b[1]"
    assert structure._common_element(["/a[1]/b[1]/p[1]"]) == "/a[1]/b[1]"


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


COURSES = [("Introduction to Bookkeeping", "Learn to record the income and spending of a small firm."),
           ("Spreadsheets for Beginners", "Formulas, charts and tables, step by step."),
           ("Project Management Basics", "Plan the work, share it out and keep it on time."),
           ("Writing for the Web", "Short sentences, clear headings and links readers follow."),
           ("Customer Service Skills", "Listen first, then help: the habits of good support."),
           ("Digital Marketing Essentials", "Search, e-mail and social media without the jargon.")]


def listing(items=COURSES, intro: str = "Free online courses with certificates.") -> str:
    cards = "".join(f'<li class="card"><h3><a href="/c/{i}">{t}</a></h3><div class="d">{d}</div>'
                    f'<a href="/c/{i}">View course</a></li>' for i, (t, d) in enumerate(items))
    return (f"<html><head><title>Certificate courses</title></head><body>{NAV}"
            f"<main><h1>Certificate courses</h1><p>{intro}</p><ul class=\"grid\">{cards}</ul></main>"
            f"<footer><ul><li><a href='/a'>About us and our team</a></li><li><a href='/p'>Privacy and cookies "
            f"policy</a></li><li><a href='/t'>Terms of use of the site</a></li><li><a href='/c'>Contact "
            f"the editors here</a></li></ul></footer></body></html>")


def test_a_listing_keeps_its_items_titles_and_descriptions_not_the_menus():
    text = run(listing()).clean_text()
    for title, desc in COURSES:
        assert title in text and desc in text
    assert "New posts" not in text and "Privacy and cookies" not in text


def test_listing_items_are_not_kept_without_the_rule(monkeypatch):
    monkeypatch.setattr(structure, "RULES", set())
    text = run(listing()).clean_text()
    assert COURSES[0][0] not in text


ARTICLE = " ".join([POSTS[0], POSTS[1], POSTS[2]])


def test_an_article_keeps_its_text_and_drops_its_related_list():
    related = "".join(f'<li><a href="/r/{i}">{t}</a></li>' for i, (t, _) in enumerate(COURSES))
    html = (f"<html><head><title>Gears</title></head><body>{NAV}<main><article><h1>Gears</h1>"
            f"<p>{POSTS[0]}</p><p>{POSTS[1]}</p><p>{POSTS[2]}</p></article>"
            f"<div><h2>Read more</h2><ul>{related}</ul></div></main></body></html>")
    text = run(html).clean_text()
    assert POSTS[1] in text
    assert COURSES[0][0] not in text           # a related list has less text than the article


def test_record_families_need_alike_siblings():
    from corpustool.document import Paragraph

    def para(xpath, words=5):
        p = Paragraph(text="w " * words)
        p.xpath = xpath
        p.features["words"] = words
        return p

    alike = [para(f"/html[1]/body[1]/div[1]/ul[1]/li[{k}]/{t}") for k in range(1, 6) for t in ("h3[1]", "p[1]")]
    fams = structure.record_families(alike, [True] * len(alike))
    assert fams and len(fams[0][1]) == 5 and fams[0][0] == 50
    # paragraphs one after another are a text, not a list
    text = [para(f"/html[1]/body[1]/div[1]/p[{k}]") for k in range(1, 8)]
    assert structure.record_families(text, [True] * len(text)) == []
    # layout blocks of different shapes are no list
    layout = [para(f"/html[1]/body[1]/div[{k}]/{t}") for k, t in
              ((1, "header[1]/p[1]"), (2, "nav[1]/ul[1]/li[1]"), (3, "main[1]/p[1]"), (4, "footer[1]/p[1]"))]
    assert structure.record_families(layout, [True] * len(layout)) == []


def evidence_leaves_nothing() -> str:
    # three sidebars, none holding most of the text: every region name says boilerplate
    body = "".join(f"<aside><p>{t}</p></aside>" for t in POSTS)
    cookie = ('<div class="cookie-notice"><p>We use cookies to give you the best experience on our website '
              'and to understand how you use it, so that we can improve it for everyone.</p></div>')
    return f"<html><head><title>Gears</title></head><body><h1>Gears</h1>{body}{cookie}</body></html>"


def test_when_the_evidence_leaves_nothing_jusText_decides():
    doc = run(evidence_leaves_nothing())
    assert doc.drop_reason is None
    text = doc.clean_text()
    assert POSTS[0] in text and POSTS[2] in text
    assert "cookies" not in text          # a cookie notice stays one


def test_without_the_fallback_such_a_page_is_dropped(monkeypatch):
    monkeypatch.setattr(structure, "RULES", {"discussion", "items"})
    assert run(evidence_leaves_nothing()).drop_reason == "boilerplate-only"


def swallowed_by_a_button() -> str:
    # a menu button with unclosed blocks inside: libxml2 keeps the whole page inside it
    return (f"<html><head><title>Gears</title></head><body><header><button class=\"menu\"><div><div>"
            f"</button></div><a href=\"/\">Home</a></header>"
            f"<main><article><h1>Gears</h1><p>{POSTS[0]}</p><p>{POSTS[1]}</p></article></main></body></html>")


def test_a_page_swallowed_by_a_button_keeps_its_article():
    doc = run(swallowed_by_a_button())
    assert doc.drop_reason is None
    assert POSTS[0] in doc.clean_text() and POSTS[1] in doc.clean_text()


def test_without_the_buttons_rule_such_a_page_is_dropped(monkeypatch):
    monkeypatch.setattr(structure, "RULES", structure.RULES - {"buttons"})
    doc = run(swallowed_by_a_button())
    assert doc.drop_reason in ("no-text", "boilerplate-only") and POSTS[0] not in doc.clean_text()


def test_without_buttons_removes_each_button_and_only_buttons():
    assert structure.without_buttons("<p>a</p>") is None
    assert structure.without_buttons('<button x="1"><div>Menu</button><p>a</p><BUTTON>b</BUTTON>') \
        == "<p>a</p>"


# -- product pages: reviews and the declared description (session 9) --------------------------

DESCRIPTION = ("This lightweight rain jacket keeps you dry on long walks in the hills. The seams are taped, "
               "the hood folds into the collar and the whole jacket packs into its own chest pocket.")
SPECS = "Weight: 240 g. Fabric: recycled nylon with a waterproof membrane."
REVIEWS = [
    "I wore this jacket on a three day walk across the moors and it kept me completely dry even when the "
    "rain came sideways in the afternoon, which is more than I can say for my old one from another shop.",
    "The fit is generous, so I would order one size smaller than usual, but apart from that it is the best "
    "rain jacket I have owned in twenty years of walking in all kinds of weather around the country.",
    "After six months of daily use on my bicycle the zip still runs smoothly and the hood has not torn, "
    "although the colour has faded a little where the straps of my backpack rub against the shoulders.",
    "It packs down really small and fits in the side pocket of my rucksack, so I take it with me on every "
    "trip now, and my wife liked it so much that she has ordered the same model in blue for herself.",
    "Good value for the price. The sleeves are a bit long for me and I had to roll them up, but the "
    "material feels strong and the jacket has survived a week of camping in Scotland without a scratch.",
]
PRODUCT_LD = ('<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [{"@type": '
              '"Organization", "name": "Hill Shop", "description": "Outdoor clothing since 1980"}, {"@type": '
              '"Product", "name": "Rain jacket", "description": "<p>' + DESCRIPTION.replace(". ", ".</p><p>", 1)
              + '</p>", "offers": {"@type": "Offer", "price": "89.00"}}]}</script>')


def product(head: str = PRODUCT_LD, review_class: str = "reviews", hidden_description: bool = False) -> str:
    style = ' style="display:none"' if hidden_description else ""
    reviews = "".join(f'<div class="review-item"><div class="meta">Walker{i}, 5 stars</div><p>{t}</p></div>'
                      for i, t in enumerate(REVIEWS))
    return (f"<html><head><title>Rain jacket | Hill Shop</title>{head}</head><body>{NAV}"
            f"<main><h1>Rain jacket</h1><div class=\"price\">89.00 EUR</div>"
            f"<div class=\"tab\"{style}><p>{DESCRIPTION}</p><p>{SPECS}</p></div>"
            f"<section class=\"{review_class}\"><h2>What our customers say</h2>{reviews}</section>"
            f"</main></body></html>")


def test_declared_product_types():
    assert structure.declared_types(PRODUCT_LD) == {"Product", "Offer"}
    assert structure.declared_types('<div itemscope itemtype="https://schema.org/Product">') == {"Product"}
    assert structure.declared_types('<a href="/products">Products</a>') == frozenset()
    assert structure.is_product(structure.declared_types(PRODUCT_LD))
    # a Product without an offer (a service's rating), a list of offered products (a category page)
    assert not structure.is_product(frozenset({"Product"}))
    assert not structure.is_product(frozenset({"Product", "Offer", "ItemList"}))


def test_a_product_page_keeps_its_description_not_its_reviews():
    text = kept(run(product()))
    assert DESCRIPTION in text and SPECS in text
    for review in REVIEWS:
        assert review not in text


def test_reviews_are_kept_without_the_reviews_rule(monkeypatch):
    monkeypatch.setattr(structure, "RULES", structure.RULES - {"reviews"})
    text = kept(run(product()))
    assert REVIEWS[0] in text


def test_review_blocks_are_text_on_pages_that_declare_no_product():
    # a service's testimonials, a review article: the same markup without a Product on offer is content
    for head in ("", PRODUCT_LD.replace('"Offer"', '"Rating"')):
        text = kept(run(product(head=head)))
        assert REVIEWS[0] in text and REVIEWS[3] in text


def test_a_review_article_that_declares_its_product_keeps_its_text():
    html = product().replace('<section class="reviews">', '<article class="review">').replace("</section>", "</article>")
    text = kept(run(html))
    assert REVIEWS[0] in text


def test_declared_descriptions_read_from_json_ld():
    assert structure.declared_descriptions(PRODUCT_LD) == [" " + " ".join(structure._WORD.findall(DESCRIPTION.lower())) + " "]
    assert structure.declared_descriptions('<script type="application/ld+json">{"@type": "Product", '
                                           '"description": "Broken JSON</script>') == []
    # nested beyond the JSON parser's recursion limit: no declaration, no crash
    deep = "[" * 100000 + "]" * 100000
    assert structure.declared_descriptions('<script type="application/ld+json">{"@type": "Product", "description": '
                                           f'"Deep down here", "x": {deep}}}</script>') == []
    # only a product's description: the site's own is no product text
    assert structure.declared_descriptions(PRODUCT_LD.replace('"Product"', '"Thing"')) == []


def test_a_description_hidden_in_a_tab_is_kept_as_declared():
    text = kept(run(product(hidden_description=True)))
    assert DESCRIPTION in text
    assert SPECS not in text     # (not in the declaration: the hidden tab stays hidden)


def test_without_the_description_rule_the_hidden_tab_is_lost(monkeypatch):
    monkeypatch.setattr(structure, "RULES", structure.RULES - {"description"})
    text = kept(run(product(hidden_description=True)))
    assert DESCRIPTION not in text


def test_every_decide_path_sees_the_product_rules():
    ex = JustextPlusExtractor()
    from corpustool.language.stoplists import stoplist
    stop = stoplist("en")
    for html in (product(), product(hidden_description=True)):
        fast = ex.extract(Page(html, url="https://shop.example.org/p/1", stoplist=stop))
        slow = ex.extract_py(Page(html, url="https://shop.example.org/p/1", stoplist=stop))
        assert [(p.text, p.cls, p.reason) for p in fast] == [(p.text, p.cls, p.reason) for p in slow]


# -- text written twice (session 9) --------------------------------------------------------

STORY = [
    "The council met on Tuesday evening to discuss the plans for the new bridge across the river, which "
    "has been closed to heavy traffic since the floods of last winter damaged two of its pillars.",
    "Engineers told the members that a repair would cost almost as much as a new bridge and would only "
    "give the old structure another ten years, so the council voted to start the planning at once.",
    "Work is expected to begin next spring and to last about two years, during which a ferry will carry "
    "cyclists and pedestrians across the river between the old harbour and the railway station.",
]


def twice(second_copy: bool = True) -> str:
    body = "".join(f"<p>{t}</p>" for t in STORY)
    copy = f'<div class="layout-mobile">{body}</div>' if second_copy else ""
    return (f"<html><head><title>New bridge</title></head><body>{NAV}<main><h1>New bridge</h1>"
            f'<div class="layout-desktop">{body}</div>{copy}</main></body></html>')


def test_a_block_written_twice_is_kept_once():
    text = kept(run(twice()))
    for t in STORY:
        assert text.count(t) == 1


def test_without_the_repeats_rule_the_copy_is_kept(monkeypatch):
    monkeypatch.setattr(structure, "RULES", structure.RULES - {"repeats"})
    text = kept(run(twice()))
    assert text.count(STORY[0]) == 2


def test_a_line_that_recurs_among_other_text_is_kept_each_time():
    steps = ["Open the File menu and choose the Export command.", "Press Enter to confirm the name of the file.",
             "Open the Edit menu and choose the Select All command.", "Press Enter to confirm the name of the file.",
             "Close the window when the progress bar has reached the end."]
    html = (f"<html><head><title>Export</title></head><body>{NAV}<main><h1>Export</h1><ol>"
            + "".join(f"<li>{s}</li>" for s in steps) + "</ol></main></body></html>")
    text = kept(run(html))
    assert text.count(steps[1]) == 2


DETAILS = ["Outer fabric: recycled nylon with a membrane", "Lining: soft polyester mesh throughout",
           "Hood: adjustable and folds into the collar", "Pockets: two hand pockets and one chest pocket",
           "Care: machine wash at thirty degrees"]


def details_twice(head: str) -> str:
    items = "<ul>" + "".join(f"<li>{d}</li>" for d in DETAILS) + "</ul>"
    return (f"<html><head><title>Rain jacket | Hill Shop</title>{head}</head><body>{NAV}<main><h1>Rain jacket</h1>"
            f"<p>{DESCRIPTION}</p><div class=\"details-desktop\">{items}</div><div class=\"details-mobile\">{items}"
            f"</div><p>{REVIEWS[2]}</p></main></body></html>")


def test_a_product_pages_details_written_twice_are_kept_once():
    text = kept(run(details_twice(PRODUCT_LD)))
    assert text.count(DETAILS[0]) == 1 and text.count(DETAILS[4]) == 1


def test_list_items_written_twice_stay_in_a_text():
    # a tutorial's steps under a tab per platform, a reference's parameters: lists repeat in texts
    text = kept(run(details_twice("")))
    assert text.count(DETAILS[0]) == 2


def test_code_written_twice_stays():
    code = "".join(f"<pre>{line}</pre>" for line in ("client = Client(account, token)",
                                                        "message = client.messages.create(to=number)"))
    html = (f"<html><head><title>Send a message</title></head><body>{NAV}<main><h1>Send a message</h1>"
            f"<p>{STORY[0]}</p><div class=\"tab\">{code}</div><p>{STORY[1]}</p><div class=\"tab\">{code}</div>"
            f"</main></body></html>")
    text = kept(run(html))
    assert text.count("client = Client(account, token)") == 2


# -- lists of records (record_families) ---------------------------------------------------------

def para(xpath: str, words: int = 5) -> Paragraph:
    return Paragraph(text="w " * words, xpath=xpath, features={"words": words})


def edge_paragraphs() -> list[Paragraph]:
    # paths too short for a record, steps without an index, list items as their own records,
    # a list item holding paragraphs, an empty paragraph
    paras = [para("/html[1]"), para("/html[1]/body[1]"), para("/html[1]/body[1]/li[1]")]
    for k in range(1, 7):
        paras += [para(f"/html[1]/body[1]/div[1]/ul[1]/li[{k}]"), para(f"/html[1]/body[1]/div[1]/ul[1]/li[{k}]/p[1]"),
                  para(f"/html[1]/body[1]/div[2]/div[{k}]/h3[1]", 3), para(f"/html[1]/body[1]/div[2]/div[{k}]/p[1]"),
                  para(f"/html[1]/body[1]/div[3]/span/li[{k}]", 4), para(f"/html[1]/body[1]/div[4]/p[{k}]", 0)]
    return paras


def test_record_families_of_authored_paths():
    paras = edge_paragraphs()
    records = [f"[{k}]" for k in range(1, 7)]
    # six list items (the item's own text and its paragraph: 10 words each), six blocks of a
    # heading and a paragraph (8 words), six items under an unindexed span (4 words, the least
    # a record holds on average); not the empty paragraphs, not the lone item; largest first
    assert structure.record_families(paras, [True] * len(paras)) == [
        (60, {r: [3 + 6 * k, 4 + 6 * k] for k, r in enumerate(records)}),
        (48, {r: [5 + 6 * k, 6 + 6 * k] for k, r in enumerate(records)}),
        (24, {r: [7 + 6 * k] for k, r in enumerate(records)})]
    # paragraphs left out: a family of fewer than MIN_RECORDS records holding text is none
    eligible = [i % 4 != 1 for i in range(len(paras))]
    assert structure.record_families(paras, eligible) == [
        (45, {"[1]": [3, 4], "[2]": [10], "[3]": [15, 16], "[4]": [22], "[5]": [27, 28], "[6]": [34]}),
        (39, {"[1]": [6], "[2]": [11, 12], "[3]": [18], "[4]": [23, 24], "[5]": [30], "[6]": [35, 36]})]
    # min_total leaves out the smaller families and nothing else; max_words the larger records
    assert structure.record_families(paras, [True] * len(paras), min_total=48) == \
        structure.record_families(paras, [True] * len(paras))[:2]
    assert [f[0] for f in structure.record_families(paras, [True] * len(paras), max_words=9)] == [48, 24]


def test_record_families_min_total_leaves_out_the_smaller_families_on_dev_pages(snippets_dir):
    import random

    from corpustool.encoding import decode
    from corpustool.language.stoplists import stoplist

    extractor = get_extractor("justext-plus")
    rng = random.Random(3)
    pages = with_families = 0
    for path in sorted((snippets_dir / "pages").glob("*.html"))[::8]:
        paras = extractor.extract(Page(decode(path.read_bytes()).text, stoplist=stoplist("en")))
        for trial in range(3):
            eligible = [trial == 0 or rng.random() < 0.8 for _ in paras]
            families = structure.record_families(paras, eligible)
            if families:
                cut = families[len(families) // 2][0]
                assert structure.record_families(paras, eligible, min_total=cut) == [f for f in families
                                                                                     if f[0] >= cut]
                with_families += 1
        pages += 1
    assert pages >= 100 and with_families >= 20


# -- the declared schema.org types ----------------------------------------------------------------

@pytest.mark.parametrize("html, types", [
    ('<html><script type="application/ld+json">{"@type": "QAPage"}</script><p>x</p></html>', {"QAPage"}),
    ('<html><div itemtype="https://schema.org/DiscussionForumPosting"><p>x</p></div></html>',
     {"DiscussionForumPosting"}),
    ('<?xml version="1.0" schema.org/QAPage?><html><p>x</p></html>', set()),   # only in the XML declaration
    ('<html><p>"@type": "QA\x00Page"</p></html>', {"QAPage"}),                # NUL: not in the bytes parsed
    ('<html><p>QAPage and DiscussionForumPosting, named but not declared</p></html>', set()),
    ('<html><p>caf\xe9 \u2014 no type at all \U0001F600</p></html>', set()),
    ('{"@type": ["Product", "Thing"]} {"@type" : "AggregateOffer"} schema.org/ItemListing', {"Product",
                                                                                          "AggregateOffer"}),
])
def test_declared_types_from_bytes_as_from_string(html, types, native_backend):
    from corpustool.extractors.base import html_bytes

    assert structure.declared_types(html) == structure.declared_types(html, html_bytes(html)) == types
