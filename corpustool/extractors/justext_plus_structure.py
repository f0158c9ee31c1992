"""What a page's structure says about its type, for justext-plus (issue 20).

jusText's cues (length, stop words, links) and the region names of
justext-plus were found on article pages. On other page types the same cues
point the wrong way: a forum thread's posts sit in "comment" and "reply"
blocks under their own author/date lines; a listing's items are short linked
titles. What the page is, and which blocks are its content, is told by its
structure rather than by more word lists:

* the types the page declares with schema.org (JSON-LD ``"@type"`` or
  microdata ``itemtype``): ``DiscussionForumPosting``, ``QAPage``, ...;
* repetition: sibling blocks of the same tag under one parent, each holding
  text and alike in shape, are the records of a list (a listing's items, a
  collection's products);
* what a product page declares (a schema.org Product with an Offer): its
  description in JSON-LD, and that its reviews are no description of it;
* copies: text the page writes twice (two layouts, cloned slides, quoted posts)
  is its text once.

No rule names a site. Each rule has a name in :data:`RULES`; taking a name out
of it turns the rule off (for measuring what each one does, as
docs/best_extractor.md reports).
"""
from __future__ import annotations

import html as entities
import json
import os
import re
from typing import Any, NamedTuple, Sequence

from ..document import BAD, GOOD, Paragraph
from ..errors import OptionError
from ..native import backend
from .base import html_bytes

RULES = {"discussion", "posts", "items", "fallback", "buttons", "reviews", "description", "repeats"}

# schema.org types by what they make of the page; JSON-LD ("@type": "X" or ["X", ...])
# and microdata (itemtype="https://schema.org/X")
DISCUSSION_TYPES = frozenset({"DiscussionForumPosting", "QAPage"})
PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel"})
OFFER_TYPES = frozenset({"Offer", "AggregateOffer"})
LIST_TYPES = frozenset({"ItemList"})
_WANTED_TYPES = DISCUSSION_TYPES | PRODUCT_TYPES | OFFER_TYPES | LIST_TYPES
_WANTED_NAMES = tuple(sorted(t.encode("ascii") for t in _WANTED_TYPES))
# (on the bytes the parser reads: \s is ASCII whitespace, as JSON's)
_TYPE_NAME = re.compile(rb'(?:"@type"\s*:\s*\[?\s*"|schema\.org/)([A-Za-z]+)')
_TYPE_MARKS = (b'"@type"', b"schema.org/")
MAX_TYPE_MARKS = 512       # declarations read per page (a page lists a few; a product grid hundreds)


def declared_types(html: str | None, data: bytes | None = None) -> frozenset[str]:
    """The schema.org types of :data:`DISCUSSION_TYPES`, :data:`PRODUCT_TYPES`,
    :data:`OFFER_TYPES` and :data:`LIST_TYPES` the markup declares: the name after each
    ``"@type":`` and ``schema.org/`` (the first :data:`MAX_TYPE_MARKS` of each) in the bytes the
    parser reads (``html_bytes``: no XML declaration, no NUL; ``data`` when the caller has them).
    (Read by the compiled scan of the bytes: ``str.find`` and a regex match at each mark cost
    ~0.15 ms a page.)"""
    if data is None:
        if not html or ('"@type"' not in html and "schema.org/" not in html and "\x00" not in html):
            return frozenset()
        data = html_bytes(html)
        if not data:
            return frozenset()
    if _schema_type_names is not None:
        mask = _schema_type_names(data, _WANTED_NAMES, MAX_TYPE_MARKS)
        return frozenset(name.decode("ascii") for k, name in enumerate(_WANTED_NAMES) if mask >> k & 1)
    found = set()
    for mark in _TYPE_MARKS:
        at = data.find(mark)
        seen = 0
        while at != -1 and seen < MAX_TYPE_MARKS:
            m = _TYPE_NAME.match(data, at)
            if m is not None and m.group(1) in _WANTED_NAMES:
                found.add(m.group(1).decode("ascii"))
            at = data.find(mark, at + len(mark))
            seen += 1
    return frozenset(found)


# corpustool/native/text_scan.pyx (glibc's memmem and a C loop over the bytes)
_schema_type_names = backend.text_scan.get("schema_type_names")


def is_discussion(types: frozenset[str]) -> bool:
    return not DISCUSSION_TYPES.isdisjoint(types)


def is_product(types: frozenset[str]) -> bool:
    """A page about one product for sale: it declares a Product and its Offer, and no
    ItemList (a category page, a "best of" article, a shop's grid declare lists of them;
    a service or a review may declare a Product but offers nothing)."""
    return (not PRODUCT_TYPES.isdisjoint(types) and not OFFER_TYPES.isdisjoint(types)
            and LIST_TYPES.isdisjoint(types))


def drop_comment_regions(kinds: dict[str, str]) -> None:
    """On a discussion page the "comment"/"reply" blocks are the posts, the page's content:
    they are no boilerplate regions (``kinds`` is changed in place, before the decision)."""
    for x in [x for x, k in kinds.items() if k == "comment"]:
        del kinds[x]


# -- a product page's reviews ---------------------------------------------------------

REVIEW = "review"
# a review region that is or holds one of these is an article (a review article declares the
# Product it reviews): it stays text
_TEXT_ELEMENTS = ("article[", "main[")


def silence_reviews(paras: Sequence[Paragraph], kinds: dict[str, str],
                    chains: Sequence[Sequence[str]]) -> int:
    """On a page that declares a schema.org Product, the blocks named reviews or testimonials
    are the customers' words about it, not its description (the page's main text): they stay
    boilerplate regions, and their paragraphs do not count as content-like text (which would
    overrule the name: the reviews of a popular product outweigh its description, and the main
    region would be chosen among them). Returns the number of paragraphs silenced."""
    regions = {x for x, k in kinds.items() if k == REVIEW}
    texts = [y for y in {y for chain in chains for y in chain if y not in kinds}     # the hints
             if y[y.rfind("/") + 1:].startswith(_TEXT_ELEMENTS)]
    articles = [x for x in regions if x[x.rfind("/") + 1:].startswith(_TEXT_ELEMENTS)
                or any(y.startswith(x + "/") for y in texts)]
    for x in list(regions):
        # (the blocks inside such an article, each review's paragraphs, are its text too)
        if any(x == y or x.startswith(y + "/") for y in articles):
            regions.discard(x)
            del kinds[x]
    n = 0
    if regions:
        for p, chain in zip(paras, chains):
            if chain and not regions.isdisjoint(chain):
                p.cls, p.cf_class = BAD, "bad"     # (decide() reads both for content-like text)
                p.features[REVIEW] = True
                n += 1
    return n


def drop_review_regions(kinds: dict[str, str]) -> None:
    """Elsewhere review and testimonial blocks are no boilerplate region (a review is an
    article's text, a service page's testimonials its content)."""
    for x in [x for x, k in kinds.items() if k == REVIEW]:
        del kinds[x]


# -- a product page's declared description --------------------------------------------

_LD_SCRIPT = re.compile(r"<script[^>]+application/ld\+json[^>]*>(.*?)</script", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"\w+")
MAX_LD_CHARS = 1 << 20     # JSON-LD read per page
MIN_DESCRIPTION_WORDS = 3  # a shorter line ("Details") matches any description


def declared_descriptions(html: str) -> list[str]:
    """The ``description`` texts of the schema.org products the page's JSON-LD declares
    (tags stripped, entities decoded), each as its lower-cased words joined by spaces, with a
    space before and after."""
    out: list[str] = []
    budget = MAX_LD_CHARS
    for m in _LD_SCRIPT.finditer(html):
        body = m.group(1)
        budget -= len(body)
        if budget < 0:
            break
        if "description" not in body or not any(t in body for t in PRODUCT_TYPES):
            continue
        try:
            data = json.loads(body.strip().rstrip(";"))
        except (ValueError, RecursionError):    # (broken or absurdly nested JSON: no declaration)
            continue
        stack = [data]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, dict):
                kind = node.get("@type")
                kinds = kind if isinstance(kind, list) else [kind]
                text = node.get("description")
                if isinstance(text, str) and any(k in PRODUCT_TYPES for k in kinds if isinstance(k, str)):
                    words = _WORD.findall(entities.unescape(_TAG.sub(" ", text)).lower())
                    if len(words) >= MIN_DESCRIPTION_WORDS:
                        out.append(" " + " ".join(words) + " ")     # (spaces: whole words match)
                stack.extend(v for v in node.values() if isinstance(v, (list, dict)))
    return out


def restore_description(paras: Sequence[Paragraph], html: str | None) -> int:
    """A product page's description as its JSON-LD declares it: the paragraphs whose words
    are a run of the declared description's words are the product's description, kept
    wherever they stand (a tab hidden until clicked, a block named as a promotion, the
    add-to-cart form). Returns the number of paragraphs restored."""
    descriptions = declared_descriptions(html) if html else []
    if not descriptions:
        return 0
    n = 0
    for p in paras:
        if p.cls == GOOD or p.features.get("region") == "cookie":
            continue
        words = _WORD.findall(p.text.lower())
        if len(words) < MIN_DESCRIPTION_WORDS:
            continue
        line = " " + " ".join(words) + " "
        if any(line in d for d in descriptions):
            p.cls, p.reason = GOOD, None
            p.features["description"] = True
            n += 1
    return n


COMMENT_MODES = ("drop", "keep")


def check_comments(comments: str) -> str:
    if comments not in COMMENT_MODES:
        raise OptionError(f"comments must be one of {', '.join(COMMENT_MODES)}, not {comments!r}")
    return comments


def comments_are_content(types: frozenset[str], comments: str = "drop",
                         paras: Sequence[Paragraph] | None = None, kinds: dict[str, str] | None = None,
                         chains: Sequence[Sequence[str]] | None = None) -> bool:
    """Whether the page's "comment"/"reply" blocks are its text: always with ``comments=keep``;
    with ``drop`` (the default) on a page that declares itself a discussion (a forum thread's,
    a Q&A page's posts) or whose structure says its comment blocks are posts
    (:func:`comments_are_posts`), not under an article."""
    if comments == "keep" or ("discussion" in RULES and is_discussion(types)):
        return True
    return ("posts" in RULES and paras is not None and kinds is not None and chains is not None
            and comments_are_posts(paras, kinds, chains))


_LIKED = ("good", "neargood")
POST_BODY_WORDS = 10       # a post's body: a paragraph of at least this many words (or jusText-good)
POST_HEAD_WORDS = 15       # its author/date line: another paragraph of at most this many words


def comments_hold_bulk(paras: Sequence[Paragraph], inside: Sequence[bool],
                       liked: Sequence[bool] | None = None) -> bool:
    """Whether the paragraphs ``inside`` the comment-named blocks hold more than half of what
    jusText keeps, or would keep with its neighbours' help (its good and near-good text: a
    short thread's posts may all be near-good), in words; ``liked``: what another decision
    keeps instead (justext-learned's model)."""
    if not any(inside):
        return False
    liked = justext_liked(paras) if liked is None else liked
    kept = removed = 0
    for p, like, i in zip(paras, liked, inside):
        if like:
            w = p.features.get("words", 0)
            kept += w
            if i:
                removed += w
    return removed * 2 > kept


def justext_liked(paras: Sequence[Paragraph]) -> list[bool]:
    """What jusText keeps or would keep with its neighbours' help: good, or near-good before the revision."""
    return [p.cls == GOOD or p.cf_class in _LIKED for p in paras]


# what the page's comment-named blocks are (comment_section)
FEW = "few"            # at most half of the kept text: an article's comment section
POSTS = "posts"        # most of it, in repeated records of posts with no article above: the page's content
ARTICLE = "article"    # most of it, in such records under an article longer than any of them: its comments
UNCLEAR = "unclear"    # most of it, but not in such records


class CommentSection(NamedTuple):
    kind: str                                   # FEW, POSTS, ARTICLE or UNCLEAR
    record_tags: frozenset[str] = frozenset()   # the element names of its records of posts


def comments_are_posts(paras: Sequence[Paragraph], kinds: dict[str, str],
                       chains: Sequence[Sequence[str]]) -> bool:
    """The structural guard (:func:`comment_section` is :data:`POSTS`, by jusText's view)."""
    return comment_section(paras, in_comment_blocks(kinds, chains)).kind == POSTS


def comment_section(paras: Sequence[Paragraph], inside: Sequence[bool],
                    liked: Sequence[bool] | None = None) -> CommentSection:
    """The structural guard: class names alone never remove the bulk of a page's text. When the
    comment-named blocks (``inside``) hold most of what jusText keeps (more than half its words;
    ``liked``: what another decision keeps instead), the structure decides: repeated sibling
    records (at least 2), each with its own body and a short author/date line, are posts, the
    page's content (a forum thread, a Q&A page: :data:`POSTS`), unless an article stands above
    them: kept text outside the comment blocks, before the first record, longer than the longest
    record (a blog post under which readers talk, however many they are: :data:`ARTICLE`).
    Names no site and no software: only the page's own structure."""
    liked = justext_liked(paras) if liked is None else liked
    if not comments_hold_bulk(paras, inside, liked):
        return CommentSection(FEW)
    words = [p.features.get("words", 0) for p in paras]
    # the records: the elements right below the deepest one holding all of the kept comment text,
    # their members the paragraphs below them (XPath strings compared, not split into steps: a
    # page nested hundreds deep has long ones)
    common = _common_element([paras[k].xpath for k, (like, i) in enumerate(zip(liked, inside)) if i and like])
    below = common + "/"
    records: dict[str, list[int]] = {}
    for k, (p, i) in enumerate(zip(paras, inside)):
        if i and p.xpath.startswith(below):
            step, _, rest = p.xpath[len(below):].partition("/")
            if rest:
                records.setdefault(step, []).append(k)
    posts = []
    for step, members in records.items():
        body = [k for k in members if liked[k] or words[k] >= POST_BODY_WORDS]
        # a post: its text (its longest kept paragraph) and another, short line (author, date),
        # before or after it, kept or not (jusText's revision may keep a short author line)
        if body:
            text = max(body, key=words.__getitem__)
            if any(k != text and words[k] <= POST_HEAD_WORDS for k in members):
                posts.append((min(members), sum(words[k] for k in body), _element_name(step)))
    if len(posts) < 2:
        return CommentSection(UNCLEAR)
    first = min(k for k, _, _ in posts)
    longest = max(w for _, w, _ in posts)
    above = sum(w for k, (p, w, i, like) in enumerate(zip(paras, words, inside, liked))
                if k < first and not i and like and not p.heading)
    return CommentSection(POSTS if above <= longest else ARTICLE, frozenset(t for _, _, t in posts))


def _common_element(xpaths: Sequence[str]) -> str:
    """The XPath of the deepest element that holds each of these paragraphs' elements' parents
    (no string is made per paragraph: their XPaths may be thousands of characters long)."""
    common = os.path.commonprefix(xpaths)
    if not all(len(x) == len(common) or x[len(common)] == "/" for x in xpaths):
        common = common[:common.rfind("/")]     # (cut inside a step: "div[1" of div[1] and div[12])
    if any(len(x) == len(common) for x in xpaths):
        common = common[:common.rfind("/")]     # a paragraph's own element: its parent
    return common


def _element_name(step: str) -> str:
    """The element name of an XPath step ("article[2]" -> "article")."""
    return step.split("[", 1)[0]


# the hints an element is by its name alone (justext_plus.is_main_hint); others are declared by
# attributes (itemprop=articleBody, role=main)
_NAMED_HINTS = frozenset({"article", "main"})


def article_apart(paras: Sequence[Paragraph], inside: Sequence[bool], chains: Sequence[Sequence[str]],
                  hints: Sequence[str], record_tags: frozenset[str] = frozenset(),
                  liked: Sequence[bool] | None = None) -> bool:
    """Whether kept text outside the comment-named blocks (``inside``) lies in an element the page
    marks as its article or main content (``hints``: ``<article>``, ``itemprop=articleBody`` ...)
    that holds none of those blocks and is not named as their records are (``record_tags``: a
    thread's opening post is often an ``<article>`` as each of its replies is; a hint declared by
    its attributes, such as ``<div itemprop=articleBody>``, says so whatever the records): the page
    sets its article apart from its comment section."""
    like_records = record_tags & _NAMED_HINTS
    hint_set = {x for x in hints if _element_name(x.rsplit("/", 1)[-1]) not in like_records}
    if not hint_set:
        return False
    liked = justext_liked(paras) if liked is None else liked
    around_comments = {x for chain, i in zip(chains, inside) if i for x in chain}
    return any(like and not i and any(x in hint_set and x not in around_comments for x in chain)
               for like, i, chain in zip(liked, inside, chains))


def before_decide(html: str | None, kinds: dict[str, str], paras: Sequence[Paragraph] | None = None,
                  chains: Sequence[Sequence[str]] | None = None, data: bytes | None = None,
                  comments: str = "drop") -> frozenset[str]:
    """The evidence changes made before the decision; returns the declared types (``data``: the
    page's bytes, see :func:`declared_types`; ``comments``: keep or drop comment sections)."""
    types = declared_types(html, data)
    if "comment" in kinds.values() and comments_are_content(types, comments, paras, kinds, chains):
        drop_comment_regions(kinds)
    if REVIEW in kinds.values():
        if "reviews" in RULES and is_product(types) and paras is not None and chains is not None:
            silence_reviews(paras, kinds, chains)
        else:
            drop_review_regions(kinds)
    return types


# -- lists of records: a listing's items, a collection's products ---------------------

# regions that stay boilerplate inside a list of records: the site's menus, header and
# footer, sidebars, forms, cookie notices, advertising and share buttons are never a
# list's items (a blog's sidebar lists outweigh a short post)
_NEVER_ITEMS = frozenset({"nav", "header", "footer", "form", "cookie", "ad", "share", "form-element", "aside",
                          "review"})
_COMMENT = frozenset({"comment"})
MIN_RECORDS = 4            # a list has at least this many records with text
MIN_RECORD_WORDS = 4       # mean words per record: menus have one or two
MAX_RECORD_WORDS = 150     # ... and items are short: longer records are sections of a text
# a record is a container of its paragraphs, or one of these (a list item, a table row):
# paragraphs one after another (p[1], p[2], ...) are a text, not a list
SELF_RECORDS = frozenset({"li", "tr", "dt", "dd", "article"})
OTHER_LIST_SHARE = 0.25    # other lists at least this share of the largest one's words are items too
SHAPE_SHARE = 0.5          # records sharing the commonest shape: siblings alike, not a page's layout blocks
def record_families(paras: Sequence[Paragraph], eligible: Sequence[bool],
                    max_words: float = MAX_RECORD_WORDS, min_total: float = 0,
                    tree: Any = None) -> list[tuple[int, dict[str, list[int]]]]:
    """Lists of sibling records among the eligible paragraphs, best first: for each element
    E whose children of one tag hold text (E/li[1], E/li[2], ... or E/div[3], E/div[7], ...),
    (total words, {child index: paragraph indices}). A family counts only when at least
    :data:`MIN_RECORDS` records hold text, they hold :data:`MIN_RECORD_WORDS` words each on
    average (and at most ``max_words``), and most records have the same shape (the tags below
    the record, without indices, of their paragraphs): repetition and sibling similarity,
    the structure of a list whatever its site. Families of fewer than ``min_total`` words are
    left out (a caller that has no use for them spares their shape test). ``tree``: the compiled
    walk's PageTree of the paragraphs, which finds the families and tests their shapes over
    its nodes (the same families, tests/native/test_backend_parity.py)."""
    words = [p.features.get("words", 0) for p in paras]
    found = None
    if tree is not None and hasattr(tree, "record_families"):
        found = tree.record_families(words, list(eligible), SELF_RECORDS, MIN_RECORDS, MIN_RECORD_WORDS,
                                     max_words, min_total, SHAPE_SHARE)
    if found is None:
        tags_of: dict[int, list[str]] = {}      # paragraph -> the tags of its XPath's steps
        found = [f for f in _sized_families(paras, eligible, words, max_words, min_total)
                 if _shapes_agree(paras, f[1], f[2], tags_of)]
    out = [(total, records) for total, records, _ in found]
    out.sort(key=lambda f: -f[0])
    return out


def _shapes_agree(paras: Sequence[Paragraph], records: dict[str, list[int]], d: int,
                  tags_of: dict[int, list[str]]) -> bool:
    """record_families' shape test of one family whose records are the ``d``-th steps of their
    paragraphs' XPaths: most records have the same set of tag paths below the record."""
    shapes: dict[frozenset, int] = {}
    for members in records.values():
        shape = set()
        for i in members:
            tags = tags_of.get(i)
            if tags is None:
                tags = tags_of[i] = [t.partition("[")[0] for t in paras[i].xpath.strip("/").split("/")]
            shape.add("/".join(tags[d:]))
        shape = frozenset(shape)
        shapes[shape] = shapes.get(shape, 0) + 1
    return max(shapes.values()) >= SHAPE_SHARE * len(records)


def _sized_families(paras: Sequence[Paragraph], eligible: Sequence[bool], words: list,
                    max_words: float, min_total: float) -> list[tuple[int, dict[str, list[int]], int]]:
    """record_families' families of enough records and words, before the shape test, in the
    order they were met: (total words, {"[k]": paragraph indices}, the records' step in the
    paragraphs' XPaths)."""
    # (each element's chain of records is built once, from its parent's, and a paragraph is
    # appended to the records of its parent element's chain: the XPaths are long, the pages
    # that get here are lists of hundreds of paragraphs, and most share their parents)
    families: dict[str, dict[str, list[int]]] = {}
    depth_of: dict[str, int] = {}            # family key -> the record's step in the paragraphs' parts
    chains: dict[str, tuple[str, list[list[int]]]] = {}   # element -> (family key prefix, its records' member lists)

    def members_of(prefix: str, step: str, d: int) -> list[int]:
        cut = step.find("[")
        key = prefix + "/" + step[:cut]
        records = families.get(key)
        if records is None:
            families[key] = records = {}
            depth_of[key] = d
        members = records.get(step[cut:])
        if members is None:
            members = records[step[cut:]] = []
        return members

    def chain_of(element: str) -> tuple[str, list[list[int]]]:
        """(the element's family key prefix, the member lists of the records (depth >= 2) along it)."""
        found = chains.get(element)
        if found is None:
            parent, _, step = element.rpartition("/")
            if not parent:                       # html
                found = ("/" + step, [])
            elif "/" not in parent:              # body (html and body have no siblings worth counting)
                found = ("/" + element, [])
            else:
                prefix, chain = chain_of(parent)
                found = (prefix + "/" + step, chain + [members_of(prefix, step, parent.count("/") + 1)])
            chains[element] = found
        return found

    for i, p in enumerate(paras):
        if not eligible[i] or not words[i] or not p.xpath:
            continue
        steps = p.xpath.strip("/")
        element, _, last = steps.rpartition("/")
        if not element:
            continue
        prefix, chain = chains.get(element) or chain_of(element)
        for members in chain:
            members.append(i)
        if "/" in element and last[:last.find("[")] in SELF_RECORDS:
            members_of(prefix, last, element.count("/") + 1).append(i)
    del chain_of       # (it calls itself: the closure is a reference cycle, left to the garbage collector)
    out = []
    for key, records in families.items():
        n = len(records)
        if n < MIN_RECORDS:
            continue
        total = 0
        for members in records.values():
            total += sum(map(words.__getitem__, members))
        if total < min_total or not MIN_RECORD_WORDS * n <= total <= max_words * n:
            continue
        out.append((total, records, depth_of[key] + 1))
    return out


def _under(kinds: dict[str, str], chains: Sequence[Sequence[str]], wanted: frozenset[str]) -> list[bool]:
    """Whether each paragraph lies in a region of one of the ``wanted`` kinds, named so by
    the page (whatever the decision overruled: a long comment section holds most of the text)."""
    named = {x for x, k in kinds.items() if k in wanted}
    if not named:
        return [False] * len(chains)
    return [not named.isdisjoint(chain) for chain in chains]


# the reasons a comment's text may have lost by where it stands (outside the main region, after
# the article's span, in a comment block): not by what it says (a template line, a repeat, an ad)
_PLACE_REASONS = frozenset({None, "boilerplate", "boilerplate:comment"})


def keep_comment_text(paras: Sequence[Paragraph], inside: Sequence[bool]) -> bool:
    """comments=keep: the text of the comment-named blocks (``inside``) that jusText finds good or
    near-good by itself (its context-free class), with few links, is kept, wherever the blocks
    stand. A blog's comment list below its article lies outside the main region, where only
    context-free good text survives, and short comments are near-good: with keep, the section's
    comments were lost all the same. Lines the decision removed for what they say (a template or
    repeated line) stay removed. Returns whether a class changed."""
    changed = False
    for p, i, like in zip(paras, inside, comment_text_liked(paras)):
        if i and p.cls != GOOD and like and p.reason in _PLACE_REASONS:
            p.cls, p.reason = GOOD, None
            changed = True
    return changed


MAX_COMMENT_LINK_DENSITY = 0.2      # jusText's max_link_density


def comment_text_liked(paras: Sequence[Paragraph]) -> list[bool]:
    """What comments=keep keeps of a comment section: what jusText keeps, and what its context-free
    class finds good or near-good (no heading, few links): a short comment between its author and
    date lines is near-good, and jusText's revision removes it with them."""
    return [p.cls == GOOD or (not p.heading and p.cf_class in ("good", "neargood")
                              and p.features.get("link_density", 0.0) <= MAX_COMMENT_LINK_DENSITY)
            for p in paras]


def in_comment_blocks(kinds: dict[str, str], chains: Sequence[Sequence[str]]) -> list[bool]:
    """Whether each paragraph lies in a block the page names a comment ("comment", "reply" ...)."""
    return _under(kinds, chains, _COMMENT)


def restore_items(paras: list[Paragraph], kinds: dict[str, str] | None = None,
                  chains: Sequence[Sequence[str]] | None = None, tree: Any = None,
                  totals: tuple[int, int, dict[str, int]] | None = None) -> bool:
    """A listing's or collection's items: when the page's kept text is less than the text of
    its largest list of alike records, the list is the page's content (course titles and
    descriptions, a grid of products, job offers) and its records' lines are kept, whatever
    jusText thought of their links; the site's menus, header and footer are no items.
    On an article the largest list ("Related articles") has less text than the article, and
    nothing changes. Returns whether items were restored. ``totals``: the compiled decide's
    sums of the paragraphs' words as decided (kept, all, {region kind: words}), when no rule
    changed a class since."""
    if totals is not None:
        kept_words, candidate_words, by_region = totals
        for region, w in by_region.items():
            if region in _NEVER_ITEMS:
                candidate_words -= w
    else:
        kept_words = candidate_words = 0
        for p in paras:
            f = p.features
            w = f.get("words", 0)
            if p.cls == GOOD:
                kept_words += w
            if f.get("region") not in _NEVER_ITEMS:
                candidate_words += w
    # (no list can outweigh the kept text when that is most of the candidates' text: the
    # families are not looked for, which spares most article pages the cost)
    if candidate_words * 2 <= kept_words * 3:
        return False
    # (and comments are no items: a blog post's comment list is longer than the post)
    comments = (in_comment_blocks(kinds, chains) if kinds and chains is not None and "comment" in kinds.values()
                else None)
    eligible = [p.features.get("region") not in _NEVER_ITEMS and not (comments and comments[i])
                for i, p in enumerate(paras)]
    if comments and sum(p.features.get("words", 0) for p, e in zip(paras, eligible) if e) * 2 <= kept_words * 3:
        return False
    # (a list of less than a quarter of the kept text is never restored: if the largest
    # list outweighs the kept text, the lists restored with it hold a quarter of it or more)
    families = record_families(paras, eligible, min_total=OTHER_LIST_SHARE * kept_words, tree=tree)
    if not families:
        return False
    best = families[0][0]
    if best <= kept_words:
        return False
    # a listing page often has several lists (latest, featured, by topic): the others
    # of a size comparable with the largest are its items too
    for total, records in families:
        if total < OTHER_LIST_SHARE * best:
            break
        for members in records.values():
            _restore(paras, members, ITEM_LINES, "item")
    return True


# what a record's lines were removed as, that an item keeps: jusText's verdict, links,
# datelines, blocks named as asides or hidden (grids that show on scroll or hover); not
# template lines (calls to action, "Add to cart") nor control labels repeated on the
# page ("Choose options")
ITEM_LINES = frozenset({"boilerplate", "boilerplate:links", "boilerplate:heading", "boilerplate:meta",
                        "boilerplate:aside", "boilerplate:comment", "boilerplate:hidden"})


def _restore(paras: list[Paragraph], members: Sequence[int], reasons: frozenset[str], feature: str) -> None:
    for i in members:
        p = paras[i]
        if p.cls != GOOD and p.reason in reasons:
            p.cls, p.reason = GOOD, None
            p.features[feature] = True


def page_facts(types: frozenset[str], kinds: dict[str, str]) -> frozenset[str]:
    """What the page's declarations and named regions say of it, whatever decided its paragraphs
    (the part of :func:`after_decide`'s answer that is no rule's verdict): ``discussion``,
    ``product`` (schema.org types), ``comments`` (it has comment regions)."""
    said = set()
    if is_discussion(types):
        said.add("discussion")
    if is_product(types):
        said.add("product")
    if "comment" in kinds.values():
        said.add("comments")
    return frozenset(said)


def after_decide(paras: list[Paragraph], types: frozenset[str], kinds: dict[str, str],
                 chains: Sequence[Sequence[str]], html: str | None = None, tree: Any = None,
                 totals: tuple[int, int, dict[str, int]] | None = None) -> frozenset[str]:
    """The evidence of structure applied to the decided paragraphs (``kinds`` and ``chains``:
    the page's named regions and each paragraph's regions, ``PageTree``/``XPathTree``; ``tree``
    the PageTree itself, when there is one; ``totals`` the compiled decide's word sums).
    Returns what the structure said of the page (for its page type, text_types.py):
    ``discussion``, ``product``, ``items`` (a list of records was its content), ``comments``
    (it has comment regions), ``fallback`` (jusText's own verdict decided)."""
    said = set(page_facts(types, kinds))
    if "description" in RULES and is_product(types):
        if restore_description(paras, html):
            totals = None
    if "items" in RULES:
        if restore_items(paras, kinds, chains, tree, totals):
            said.add("items")
    if "fallback" in RULES:
        if fall_back_to_justext(paras):
            said.add("fallback")
    if "repeats" in RULES:
        drop_repeats(paras, lists=is_product(types))
    return frozenset(said)


# -- text the page repeats ------------------------------------------------------------


MIN_REPEAT_RUN = 2         # paragraphs: a single line may recur in a text
MIN_REPEAT_WORDS = 4       # words in the run ("Yes" / "No" twice is no copied block)
LONG_REPEAT_RUN = 4        # a product page's list items: a run this long is a copied block
_CODE = re.compile(r"/(?:pre|code)\[")
_LISTED = re.compile(r"/(?:li|td|th|dd)\[")


def drop_repeats(paras: Sequence[Paragraph], lists: bool = False) -> int:
    """Text the page writes twice (a block for two screen sizes, a slider's cloned slides, a
    post quoted in the reply below it) is kept once: a run of at least :data:`MIN_REPEAT_RUN`
    kept paragraphs, one after another, each word for word the text of a kept paragraph
    before it, is removed. A single line that recurs among other text (a tutorial's step
    "Press Enter", the same caption under two pictures) is the text's own, and so is code
    (the same lines under each tab of a code sample). Items of lists and tables repeat in a
    text too (a tutorial's steps under a tab per language, a parameter described alike in
    two sections of a reference): they stay, except with ``lists`` (a product page: its
    details and specifications written twice, for two layouts or two variants) in a run of
    at least :data:`LONG_REPEAT_RUN` (a whole block copied). Returns the number of
    paragraphs removed."""
    seen: set[str] = set()
    kept = [p for p in paras if p.cls == GOOD]
    again = []
    for p in kept:
        key = p.text        # (the engine's text, its whitespace already normalised)
        again.append(key in seen and not (p.xpath and _CODE.search(p.xpath)))
        seen.add(key)
    n = 0
    j = 0
    while j < len(kept):
        if not again[j]:
            j += 1
            continue
        end = j
        while end < len(kept) and again[end]:
            end += 1
        run = kept[j:end]
        if len(run) >= MIN_REPEAT_RUN and sum(p.features.get("words", 0) for p in run) >= MIN_REPEAT_WORDS:
            for p in run:
                if (lists and len(run) >= LONG_REPEAT_RUN) or not (p.xpath and _LISTED.search(p.xpath)):
                    p.cls, p.reason = BAD, "boilerplate:repeat"
                    n += 1
        j = end
    return n


FALLBACK_WORDS = 5


def fall_back_to_justext(paras: list[Paragraph]) -> bool:
    """When the evidence leaves nothing (a page wrapped in a form or a menu-named block,
    region names that fit no article), jusText's own verdict decides: its good paragraphs,
    or failing those its near-good ones, are kept. A page is then dropped as boilerplate
    only when jusText too finds nothing on it. Failing those, lines of
    :data:`FALLBACK_WORDS` words or more, mostly outside links. Never a cookie notice."""
    if any(p.cls == GOOD for p in paras):
        return False
    for wanted in ("good", "neargood", "text"):
        keep = [p for p in paras if p.features.get("region") != "cookie" and (
                p.features.get("jt_class") == GOOD
                or (wanted != "good" and p.cf_class == "neargood")
                or (wanted == "text" and p.features.get("words", 0) >= FALLBACK_WORDS
                    and p.features.get("link_density", 0.0) <= 0.5))]
        if keep:
            for p in keep:
                p.cls, p.reason = GOOD, None
                p.features["fallback"] = True
            return True
    return False


# -- a page swallowed by a button -----------------------------------------------------

# "<button><div><div></button>" (a menu button with unclosed blocks inside): an HTML5
# parser closes the button at "</button>", libxml2's HTML parser ignores that end tag, and
# the rest of the page (the article too) ends up inside the button, whose content jusText
# removes with it. Such a page comes out empty.
_BUTTON = re.compile(r"<button\b[^>]*>.*?</button\s*>", re.DOTALL | re.IGNORECASE)


def without_buttons(html: str) -> str | None:
    """The markup with each button element removed from its start tag to its own end tag
    (what jusText removes anyway, wherever the parser would have closed it); None when the
    page has no closed button. Used only on a page that came out without text."""
    if "</button" not in html.lower():     # (only pages that came out empty get here)
        return None
    repaired = _BUTTON.sub("", html)
    return repaired if repaired != html else None
