"""URL Tree (seed 001) on hand-written multi-page sites."""
import pytest

from corpustool.document import Document, Paragraph
from corpustool.errors import OptionError
from corpustool.extractors.base import Page
from corpustool.extractors.registry import get_extractor
from corpustool.sitelevel.urltree import (QueryRule, UrlTree, UrlTreeParams, UrlTreeStage, block_hash,
                                          text_blocks, url_key)

NAV = ["Home", "News", "Sport", "Contact us"]
WORDS = ["apples", "rivers", "engines", "music", "forests", "bridges", "tigers", "clouds", "markets", "poems"]
FOOTER = "Copyright 2024 Example Media, all rights reserved."


def page(site, i, extra_nav=()):
    paras = [Paragraph(text=t) for t in [*NAV, *extra_nav]]
    paras.append(Paragraph(text=f"Article {i} on {site}: a unique story number {i} about {'abcdefghij'[i % 10]}."))
    # letters only count (numbers are normalised away), so vary the words
    paras.append(Paragraph(text=f"Second paragraph about {WORDS[i % len(WORDS)]} and {WORDS[(i * 3 + 1) % len(WORDS)]}."))
    paras.append(Paragraph(text=FOOTER))
    return Document(id=f"{site}-{i}", url=f"http://www.{site}/news/2024/article-{i}.html", paragraphs=paras)


def test_url_key_reverses_host_drops_www_and_query():
    path, depth = url_key("http://www.bbc.co.uk/news/world/article.html?utm=1&id=5")
    assert path == ["uk", "co", "bbc", "news", "world", "article.html"] and depth == 3
    path, depth = url_key("http://example.com/a/b?id=5&x=1", rules=[QueryRule(r"example\.com/a", ("id",))])
    assert path == ["com", "example", "a", "b", "?id=5"] and depth == 2


def test_block_hash_uses_letters_only_lowercased():
    assert block_hash("Hello, World 2024!") == block_hash("helloworld")
    assert block_hash("Hello") != block_hash("Help")


def test_strict_heuristic_learns_the_template_after_a_few_pages():
    stage = UrlTreeStage(UrlTreeParams(n_min=5, c_max=1))
    out = list(stage.run([page("site.com", i) for i in range(8)]))
    first, last = out[0], out[-1]
    # the first page has nothing to compare with: everything is content
    assert all(p.is_good for p in first.paragraphs)
    # later pages: the repeated menu and footer are boilerplate, the article stays
    kept = [p.text for p in last.paragraphs if p.is_good]
    assert kept == [p.text for p in last.paragraphs[len(NAV):-1]]
    assert all(p.reason == "template" for p in last.paragraphs if not p.is_good)
    assert stage.stats.extra["paragraphs_removed"] > 0


def test_sites_do_not_share_statistics_once_supported():
    docs = [page("a.com", i) for i in range(6)] + [page("b.org", i) for i in range(6)]
    stage = UrlTreeStage(UrlTreeParams(heuristic="strict-at-domain"))
    out = list(stage.run(docs))
    first_b = next(d for d in out if d.id == "b.org-0")
    # strict-at-domain: b.org's first page is judged by b.org's node only
    assert all(p.is_good for p in first_b.paragraphs)


def test_relaxed_at_domain_raises_threshold():
    tree_params = UrlTreeParams(heuristic="relaxed-at-domain", relaxed_n=3)
    t = UrlTree(tree_params)
    for i in range(5):
        path, depth = url_key(f"http://x.com/p{i}")
        branch = t.insert(path, depth, {1, 100 + i})
    node, c_max = t.select(branch, depth)
    assert c_max == 2 and node.n >= 5


def test_strict_support_walks_to_a_node_with_more_than_n_documents():
    t = UrlTree(UrlTreeParams(heuristic="strict-support", support_n=3))
    for i in range(3):
        path, depth = url_key(f"http://x.com/s/p{i}")
        branch = t.insert(path, depth, {i})
    node, _ = t.select(branch, depth)
    assert node is t.root or node.n > 3


def test_forgetting_caps_documents_per_domain_and_removes_counts():
    t = UrlTree(UrlTreeParams(max_docs_per_domain=3, min_recent=1))
    for i in range(10):
        path, depth = url_key(f"http://x.com/p{i}")
        t.insert(path, depth, {42, i})
    assert t.root.n == 3 and t.documents == 3
    assert t.root.counts[42] == 3 and 0 not in t.root.counts
    assert len(t.root.children["com"].children["x"].children) == 3


def test_forgetting_by_age_keeps_minimum_recent():
    t = UrlTree(UrlTreeParams(max_age_days=1, min_recent=2))
    for i in range(5):
        path, depth = url_key(f"http://x.com/p{i}")
        t.insert(path, depth, {i}, when=i * 86400.0 * 2)
    assert t.documents == 2


def test_revisited_url_is_not_counted_twice():
    stage = UrlTreeStage(UrlTreeParams(n_min=1))
    docs = [page("a.com", 1), page("a.com", 1)]
    docs[1].id = "again"
    out = list(stage.run(docs))
    assert all(p.is_good for p in out[1].paragraphs[len(NAV):-1])
    assert stage.stats.extra["not-inserted:seen-before"] == 1


def test_text_blocks_split_at_non_inline_tags():
    html = "<html><body><div>Menu <a href=x>link</a></div><p>Some <b>bold</b> text<br>after</p><script>x=1</script></body></html>"
    blocks = text_blocks(get_extractor("urltree").extract(Page(html)) and Page(html).tree)
    assert [t for t, _ in blocks] == ["Menu link", "Some bold text", "after"]


def test_invalid_options_are_refused():
    with pytest.raises(OptionError):
        get_extractor("urltree", heuristic="loose")
    with pytest.raises(OptionError):
        get_extractor("urltree", bogus=1)


def site_with_teasers(n=6):
    """Articles whose title and first sentence recur, as kept text, in the related box of other pages."""
    titles = [f"Story about {WORDS[i]} and {WORDS[(i + 4) % len(WORDS)]}" for i in range(n)]
    firsts = [f"The {WORDS[i]} met the {WORDS[(i + 2) % len(WORDS)]} yesterday, people said." for i in range(n)]
    about = "Example Media is an independent publication run by volunteers."
    docs = []
    for i in range(n):
        link = lambda t: Paragraph(text=t, features={"link_density": 1.0})
        text = lambda t, heading=False: Paragraph(text=t, heading=heading, features={"link_density": 0.0})
        paras = [link("Example Media"), text(about),              # the site's name and a template line
                 text(titles[i], heading=True), text(firsts[i]),
                 text(f"Body of story {i}: {WORDS[(i + 5) % len(WORDS)]} and {WORDS[(i + 7) % len(WORDS)]}."),
                 text("Example Media", heading=True)]             # the site's name, kept as a heading
        for j in (i + 1, i + 2, i + 3):                           # teasers: the linked title, its first sentence
            paras += [link(titles[j % n]), text(firsts[j % n])]
        docs.append(Document(id=f"s-{i}", url=f"http://www.site.com/news/article-{i}.html", title=titles[i],
                             paragraphs=paras))
    return docs, titles, firsts, about


def test_evidence_keeps_the_first_sentence_other_pages_quote_as_a_teaser():
    docs, titles, firsts, about = site_with_teasers()
    out = list(UrlTreeStage(UrlTreeParams(n_min=3, c_max=1), reason="template", evidence=True).run(docs))
    for i, doc in enumerate(out):
        kept = {p.text for p in doc.paragraphs if p.is_good}
        assert titles[i] in kept and firsts[i] in kept, doc.id      # the page's own title and first sentence
        if i >= 3:
            assert about not in kept, doc.id                          # template next to the site's name link
            # another article's first sentence, quoted under its link here, is repeated text here
            assert not {firsts[(i + k) % len(firsts)] for k in (1, 2, 3)} & kept, doc.id
