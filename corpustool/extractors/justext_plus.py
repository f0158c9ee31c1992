"""jusText plus page structure: the default extractor.

jusText (seed 003, Sect. 2.7) judges each paragraph by its length, link
density and stop-word density and by its neighbours. It keeps a menu item
that reads like a sentence and drops a recipe line ("200 g Zucker") or a
short sentence between two headings. The page's structure tells both cases
apart, and this extractor adds it to jusText's classes:

1. **jusText's classes.** The engine's segmentation and classification
   (:mod:`.justext_engine`, Algorithms 2.2 and 2.3) run unchanged, except
   that whitespace between inline elements separates words
   (``keep_blank_separators``: "1997 Medientechnik", not jusText's
   "1997Medientechnik"); every paragraph keeps its engine XPath, which
   locates it in the tree.
2. **Boilerplate regions** (one query over the tree, evaluated by libxml2):
   HTML5 ``nav``, ``aside``, ``footer``, ``header`` and ``form``; ARIA roles
   (navigation, banner, contentinfo, complementary, search, ...); class and
   id tokens (menu, footer, sidebar, share, cookie, comment, related, ...);
   invisible elements (``hidden``, ``display:none``). ``<html>`` and
   ``<body>`` are never regions: their classes name the page's template and
   state (WordPress writes "single-post cookies-not-set"). A region that holds
   most of the text jusText finds good is not boilerplate whatever its name
   says (``<body class="has-sidebar">``, an article inside a ``<form>``).
3. **The main-content region**: the deepest element holding more than half
   (``main_share``) of the good text outside boilerplate regions - the
   lowest common ancestor of the main text, robust to a stray good
   paragraph elsewhere - widened to the enclosing ``<article>`` (or
   ``itemprop=articleBody``) when there is one. Without any good text, the
   ``<article>``/``<main>`` element with the most text.
4. **Decisions** (:mod:`.justext_plus_decide`, in named phases). Inside the main region every paragraph is kept (short
   lines, list items, quotes, text without stop words) except link-heavy
   ones, runs of links (link lists) and the heading over a removed link
   list, copyright lines and, unless ``keep_meta``, dates, bylines and
   picture credits ("Foto: dpa"). Outside it only what jusText itself
   classifies good without help from context is kept (``outside``).
   Paragraphs in boilerplate regions are removed, with the region's kind as
   the reason. Headings of the main text are kept: headings in the region,
   the heading just before it and a heading that repeats the page title.

**Speed.** With the compiled walk (``corpustool/native/justext_walk.pyx``) the
engine's paragraphs and the evidence of steps 2 and 3 come from one pass over
the tree: each element of the cleaned tree becomes a node with a parent link,
the candidate elements are judged as they are met (class and id values
tokenised in C; elements with a semantic tag, role, itemprop, hidden flag or
hiding style by :func:`candidate_evidence`), and decide() gets each
paragraph's evidence ancestors (``PageTree.chains``) and the main region's
masses without building XPath prefixes. Without the extension, or for a tree
with namespaced elements, :meth:`JustextPlusExtractor.regions` queries the
tree and :class:`XPathTree` works on the XPath strings: the same paragraphs
(tests/native/test_backend_parity.py). On the compiled walk's tree, decide() runs
compiled too (``corpustool/native/justext_plus_decide.pyx``: C arrays over the
tree's node ids; the same decisions, tests/native/test_backend_parity.py). A
page nobody has parsed yet is parsed by lxml's own libxml2 through SAX
callbacks straight into the tree the walk reads (``corpustool/native/sax_arena.pxi``:
no lxml tree to build and free, about half the parse); a page it does not
cover goes to ``parse_html``'s tree: the same paragraphs and title either way
(tests/native/test_backend_parity.py).

Site evidence (URL Tree, ``--template-evidence``) acts after the page
level on the paragraphs this extractor returns, as for any extractor.

Short lines inside the article that belong to the site (calls to action,
box titles, credits and captions, disclosures, notices) are recognised by the
words templates use for them: :mod:`.template_lines`.

Every rule is general (names from the HTML and ARIA specifications and the
vocabulary of web templates); the thresholds are round numbers. Two of them
(``SECOND_MAIN_SHARE``, ``SPAN_LINK_DENSITY``) were chosen among round values
by measurement on the development pages (docs/best_extractor.md).
"""
from __future__ import annotations

import re
from typing import Any

from lxml import etree

from ..document import BAD, GOOD, Paragraph
from ..errors import OptionError
from .base import Extractor, Page, html_bytes, register
from . import justext_engine
from . import justext_plus_structure as structure
from .justext_engine import KILLED_TAGS, UNWRAPPED_TAGS, EvidenceSettings, JustextEngineExtractor
from ..native import backend
from .justext_plus_decide import decide as python_decide, prefixes as _prefixes
from .justext_plus_rules import BARE_FORM, SEMANTIC_TAGS, DecideSettings

# the engine's walk keeps whitespace-only text between inline elements as one space
# (jusText drops it and glues the words on either side together)
KEEP_BLANK_SEPARATORS = True
OUTSIDE_MODES = ("drop", "good", "justext")

# -- structural evidence --------------------------------------------------------

# HTML5 elements (SEMANTIC_TAGS, justext_plus_rules) and ARIA landmark roles -> kind of boilerplate.
ROLES = {
    "navigation": "nav", "menu": "nav", "menubar": "nav", "menuitem": "nav", "tablist": "nav",
    "banner": "header", "contentinfo": "footer", "complementary": "aside", "search": "form",
    "dialog": "aside", "alertdialog": "aside", "toolbar": "nav", "tooltip": "aside",
}
# Class and id tokens of web templates -> kind. Tokens are the words of the
# attribute split at non-alphanumerics and camel case, lower-cased.
TOKENS = {
    **dict.fromkeys(("nav", "navi", "navbar", "navigation", "menu", "menus", "mainmenu", "submenu", "menubar",
                     "breadcrumb", "breadcrumbs", "pagination", "pager", "paging", "toc", "skiplink",
                     "skiplinks", "topnav", "subnav", "sitemap", "tabs"), "nav"),
    **dict.fromkeys(("footer", "foot", "copyright", "colophon", "imprint", "sitefooter", "pagefooter"), "footer"),
    **dict.fromkeys(("header", "masthead", "topbar", "siteheader", "pageheader", "branding"), "header"),
    **dict.fromkeys(("sidebar", "sidebars", "aside", "widget", "widgets", "related", "relatedposts",
                     "recommended", "recommendations", "teaser", "teasers", "popular", "trending",
                     "morestories", "readmore", "marginal", "rail", "sidenav", "outbrain", "taboola",
                     "sidecol", "sidecolumn", "tagcloud", "blogroll", "archives", "categories"), "aside"),
    **dict.fromkeys(("share", "shares", "sharing", "sharebar", "social", "socials", "socialmedia",
                     "sharedaddy", "addthis", "shariff", "sociallinks", "follow", "rating",
                     "tags", "tagged", "taglist", "bookmark"), "share"),
    **dict.fromkeys(("cookie", "cookies", "cookiebar", "cookienotice", "consent", "gdpr", "privacy",
                     "optin", "dsgvo", "cookiebot", "cookieconsent", "cookielaw", "onetrust"), "cookie"),
    **dict.fromkeys(("comment", "comments", "commentlist", "commentform", "respond", "reply", "replies",
                     "disqus", "discussion", "discuss", "pingback", "trackback", "trackbacks",
                     "guestbook", "kommentare", "commentaires", "comentarios"), "comment"),
    # customers' reviews and testimonials: no boilerplate but on a product page, where they
    # are no description of the product (justext_plus_structure, rule `reviews`)
    **dict.fromkeys(("review", "reviews", "testimonial", "testimonials"), "review"),
    **dict.fromkeys(("search", "searchform", "login", "signin", "signup", "newsletter", "subscribe",
                     "subscription", "register", "contactform"), "form"),
    **dict.fromkeys(("ad", "ads", "advert", "adverts", "advertisement", "advertising", "sponsor",
                     "sponsored", "promo", "promotion", "banner", "banners", "werbung", "anzeige",
                     "popup", "modal", "overlay"), "ad"),
    **dict.fromkeys(("byline", "author", "authors", "date", "dateline", "datetime", "time", "timestamp",
                     "posted", "postedon", "published", "pubdate", "meta", "postmeta", "entrymeta",
                     "postinfo", "postdate", "entrydate", "updated", "vcard"), "meta"),
}
# Candidates, found inside libxml2: semantic elements and elements with a
# role, itemprop, hidden flag or inline style; class and id values are read
# as strings (pages repeat a few values many times: tokenised once each).
SEMANTIC_QUERY_TAGS = (*SEMANTIC_TAGS, "article", "main", "time")
_SEMANTIC_XPATH = etree.XPath("|".join(f"//{t}" for t in SEMANTIC_QUERY_TAGS))
_ATTRIBUTE_XPATH = etree.XPath("//@class|//@id|//@role|//@hidden|//@itemprop|//@style")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
PAGE_TAGS = frozenset({"html", "body"})
_TEXTLESS_UNWRAPPED = UNWRAPPED_TAGS - {"form"}
MAIN_ITEMPROPS = frozenset({"articlebody", "text", "reviewbody", "description"})
META_ITEMPROPS = frozenset({"author", "datepublished", "datemodified", "datecreated", "publisher"})


def class_tokens(value: str) -> list[str]:
    """Words of a class or id value: split at non-alphanumerics and camel case, lower-cased."""
    return [t for t in _NON_ALNUM.split(_CAMEL.sub(" ", value).lower()) if t]


_TOKEN_KINDS: dict[str, frozenset[str]] = {}


def value_kinds(value: str) -> frozenset[str]:
    """Boilerplate kinds named by the tokens of a class or id value (cached per value)."""
    kinds = _TOKEN_KINDS.get(value)
    if kinds is None:
        kinds = frozenset(k for k in map(TOKENS.get, class_tokens(value)) if k)
        if len(_TOKEN_KINDS) < 65536:
            _TOKEN_KINDS[value] = kinds
    return kinds


def element_kind(el: Any) -> str | None:
    """The boilerplate kind an element's name, role and class/id tokens say, or None."""
    tag = el.tag
    if tag in PAGE_TAGS:
        # classes of <body> describe the page's template and state
        # ("single-post", "cookies-not-set"), not a region of it
        return None
    kind = SEMANTIC_TAGS.get(tag)
    if kind and tag != "form":
        return kind
    role = el.get("role")
    if role:
        kind = ROLES.get(role.strip().lower())
        if kind:
            return kind
    if el.get("hidden") is not None or _HIDDEN_STYLE.search(el.get("style") or ""):
        return "hidden"
    itemprop = (el.get("itemprop") or "").lower()
    if itemprop in META_ITEMPROPS:
        return "meta"
    if tag == "time":
        return "meta"
    kinds = value_kinds(el.get("class") or "") | value_kinds(el.get("id") or "")
    if kinds and is_main_hint(el):
        # an element that declares itself the main content takes from its class only the kinds
        # of a record among others (an <article class="comment">): the rest are the page's
        # categories and tags ("category-newsletter", "tag-social-media"), not what it is
        kinds &= _RECORD_KINDS
    if not kinds and tag == "form":
        # a <form> named by nothing but its tag: ASP.NET wraps whole pages in one,
        # recipe sites their ingredient lists; inside the main text it is not boilerplate
        return BARE_FORM
    # (the compiled walk decides an element named by nothing but these tokens
    # itself, by most_specific: keep this last)
    return most_specific(kinds)


_RECORD_KINDS = frozenset({"comment", "review", "ad", "cookie"})


def most_specific(kinds: frozenset[str]) -> str | None:
    """One element, several names: the most specific kind."""
    if not kinds:
        return None
    for k in ("cookie", "comment", "share", "ad", "nav", "footer", "aside", "form", "header", "meta", "review"):
        if k in kinds:
            return k
    return None


def is_main_hint(el: Any) -> bool:
    """An element that declares itself the main content (HTML5, ARIA, schema.org)."""
    if el.tag in ("article", "main"):
        return True
    if (el.get("role") or "").strip().lower() == "main":
        return True
    return (el.get("itemprop") or "").lower() in MAIN_ITEMPROPS


def candidate_evidence(el: Any) -> tuple[str | None, bool]:
    """(boilerplate kind, main-content hint) of a candidate element: what regions() records."""
    if el.tag in _TEXTLESS_UNWRAPPED:
        # an iframe or object has no text of its own here, and the engine
        # numbers it with its parent: its name would mark the parent
        return None, False
    return element_kind(el), is_main_hint(el)


_ASCII_SPACE = frozenset(" \t\n\r\f\v")
_NO_TEXT_TAGS = ("script", "style")


def text_chars(el: Any) -> int:
    """The characters of the text under an element, ASCII whitespace, comments, scripts and
    styles left out. (The compiled walk's text_chars counts the same.)"""
    n = 0
    space = _ASCII_SPACE
    for node in el.iter():
        if node is not el and node.tail:
            n += sum(1 for ch in node.tail if ch not in space)
        if node.text and isinstance(node.tag, str) and node.tag not in _NO_TEXT_TAGS:
            n += sum(1 for ch in node.text if ch not in space)
    return n


def holds_parent(el: Any, counted: dict[Any, int] | None = None) -> bool:
    """An unwrapped element (a <form>) that holds at least half of its parent's text. The engine
    numbers an unwrapped element with its parent, so its evidence marks the parent: a search or
    quick-reply form after a thread's posts would make the whole thread a form or comment
    region. Its evidence counts only when the parent is mostly the form, as its wrapper.
    ``counted``: the parents' characters counted so far (sibling forms share a parent).
    (The compiled walk's holds_parent is the same.)"""
    parent = el.getparent()
    if parent is None:
        return True
    chars = None if counted is None else counted.get(parent)
    if chars is None:
        chars = text_chars(parent)
        if counted is not None:
            counted[parent] = chars
    return 2 * text_chars(el) >= chars


DESCRIPTION_CHARS = 200      # (the compiled walk's limit too)


def describe(el: Any) -> str:
    """The element behind a region, for the inspect view (``features["region_element"]``)."""
    return f"{el.tag}.{el.get('class') or ''}#{el.get('id') or ''}"[:DESCRIPTION_CHARS]


def is_candidate(el: Any) -> bool:
    """Would the queries of regions() find this element (a semantic tag or a telling attribute)?"""
    if el.tag in SEMANTIC_QUERY_TAGS or el.get("role") is not None or el.get("hidden") is not None:
        return True
    if el.get("itemprop") is not None or _HIDDEN_STYLE.search(el.get("style") or ""):
        return True
    return bool(value_kinds(el.get("class") or "") or value_kinds(el.get("id") or ""))


# The same rules for the compiled walk (justext_engine.extract_evidence): class
# and id values as bit sets of kinds, the kind of each bit set, the tags it
# leaves to candidate_evidence() (the page's own and the unwrapped ones).
_KIND_BITS = {k: 1 << i for i, k in enumerate(sorted(set(TOKENS.values())))}


def value_mask(value: str) -> int:
    """value_kinds() as a bit set."""
    mask = 0
    for k in value_kinds(value):
        mask |= _KIND_BITS[k]
    return mask


def _evidence_rules() -> Any:
    global _EVIDENCE_RULES
    if _EVIDENCE_RULES is None and justext_engine.WALK.compiled:   # (the Python walk reads no rules)
        mask_kinds = tuple(most_specific(frozenset(k for k, bit in _KIND_BITS.items() if mask & bit))
                           for mask in range(1 << len(_KIND_BITS)))
        _EVIDENCE_RULES = justext_engine.WALK.evidence_rules(
            candidate_evidence, value_mask, mask_kinds, lambda style: _HIDDEN_STYLE.search(style) is not None,
            describe, is_candidate, SEMANTIC_QUERY_TAGS, sorted(PAGE_TAGS | UNWRAPPED_TAGS),
            {token: _KIND_BITS[kind] for token, kind in TOKENS.items()})
    return _EVIDENCE_RULES


_EVIDENCE_RULES = None
_EVIDENCE_SETTINGS: EvidenceSettings | None = None


def _evidence_settings() -> EvidenceSettings:
    """What the walk is asked for justext-plus (made on first use)."""
    global _EVIDENCE_SETTINGS
    rules = _evidence_rules()
    if _EVIDENCE_SETTINGS is None or _EVIDENCE_SETTINGS.rules is not rules:
        _EVIDENCE_SETTINGS = EvidenceSettings(rules, KEEP_BLANK_SEPARATORS)
    return _EVIDENCE_SETTINGS


class EnginePaths:
    """The XPath the jusText engine gives an element (``Paragraph.xpath``).

    The engine counts only elements its preprocessing keeps: killed subtrees
    (script, style, ...) are not counted, and unwrapped elements (form,
    iframe, ...) vanish, their children counted among their parent's.
    """

    def __init__(self, root: Any) -> None:
        self.root = root
        self.paths: dict[Any, str | None] = {root: f"/{root.tag}[1]"}
        self.done: set[Any] = set()

    def _number_children(self, parent: Any, prefix: str | None) -> None:
        counts: dict[str, int] = {}
        stack = [iter(parent)]
        paths = self.paths
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                continue
            tag = child.tag
            if not isinstance(tag, str):
                continue
            if tag in UNWRAPPED_TAGS:
                paths[child] = prefix      # the element itself has no path; its text is its parent's
                stack.append(iter(child))
                continue
            if tag in KILLED_TAGS or (tag == "link" and "stylesheet" in (child.get("rel") or "").lower()):
                paths[child] = None
                continue
            if tag == "image":
                tag = "img"
            n = counts.get(tag, 0) + 1
            counts[tag] = n
            paths[child] = None if prefix is None else f"{prefix}/{tag}[{n}]"

    def xpath(self, el: Any) -> str | None:
        paths = self.paths
        if el in paths:
            return paths[el]
        chain = []
        node = el
        while node is not None and node not in paths:
            chain.append(node)
            node = node.getparent()
        if node is None:          # not under the root
            return None
        for node in reversed(chain):
            parent = node.getparent()
            while parent.tag in UNWRAPPED_TAGS and parent is not self.root:
                parent = parent.getparent()
            if parent not in self.done:
                self.done.add(parent)
                self._number_children(parent, paths.get(parent))
            if node not in paths:   # a descendant of an unwrapped element numbered with its parent
                paths[node] = None
        return paths.get(el)


def _shared_prefixes(xpath: str, known: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """:func:`_prefixes` as a tuple, built from the parent's tuple in ``known`` (filled on the
    way): the ancestors of a page's paragraphs are computed once each, not once per paragraph."""
    got = known.get(xpath)
    if got is not None:
        return got
    # up to the nearest known ancestor, then down again (a loop: no recursion depth to mind)
    chain = [xpath]
    cut = xpath.rfind("/")
    while cut > 0:
        parent = xpath[:cut]
        if parent in known:
            break
        chain.append(parent)
        cut = xpath.rfind("/", 0, cut)
    base = known.get(xpath[:cut], ()) if cut > 0 else ()
    for x in reversed(chain):
        base = known[x] = base + (x,)
    return base


def _kept_none(paras: list[Paragraph]) -> bool:
    """No paragraph of the page is kept (its final classes)."""
    return not any(p.cls == GOOD for p in paras)


class XPathTree:
    """Where each paragraph sits among the evidence, from the XPath strings (regions() and the paragraphs).

    ``chains[i]``: the XPaths of paragraph i's ancestors-or-self that are keys
    of ``kinds`` or in ``hints``, outermost first (every loop of decide() over
    a paragraph's ancestors looks for evidence); :meth:`masses`: a weight
    summed over every ancestor-or-self. The compiled walk's ``PageTree`` gives
    the same without the strings' prefixes (tests/native/test_backend_parity.py).
    """

    def __init__(self, paras: list[Paragraph], kinds: dict[str, str], hints: list[str],
                 why: dict[str, str] | None = None) -> None:
        self.kinds, self.hints, self.why = kinds, hints, why
        # (each element's prefixes once, from its parent's: a paragraph's own would cost its
        # depth squared in characters, and a page of 2,000 unclosed tags has 2,000 of them)
        known: dict[str, tuple[str, ...]] = {}
        self.prefixes = [_shared_prefixes(p.xpath, known) if p.xpath.startswith("/") else () for p in paras]
        evidence = set(kinds).union(hints)
        self.chains = [tuple(x for x in pre if x in evidence) for pre in self.prefixes]

    def masses(self, weight: list[int]) -> dict[str, int]:
        mass: dict[str, int] = {}
        for pre, w in zip(self.prefixes, weight):
            if w:
                for x in pre:
                    mass[x] = mass.get(x, 0) + w
        return mass


@register("justext-plus")
class JustextPlusExtractor(Extractor):
    """jusText's classes plus structure, the main-content region and title evidence."""

    needs_stoplist = True
    parses_unparsed = True      # through libxml2's SAX callbacks into the walk's tree (WALK.evidence_of_page)
    description = ("jusText with page structure: semantic/ARIA/class evidence, main-content region, "
                   "headings and title (the default)")

    def __init__(self, keep_meta: bool = False, outside: str = "good", main_share: float = 0.6,
                 region_max_link_density: float = 0.5, comments: str = "drop",
                 **options: Any) -> None:
        # jusText's own parameters (max_link_density, length_low, ...) go to its engine; this
        # extractor's link-density threshold inside the main region has a name of its own
        self.engine = JustextEngineExtractor(**options)
        self.comments = structure.check_comments(comments)   # drop: an article's comments; keep: all
        if isinstance(keep_meta, str):
            keep_meta = keep_meta.lower() in ("1", "true", "yes")
        self.keep_meta = bool(keep_meta)
        if outside not in OUTSIDE_MODES:
            raise OptionError(f"outside must be one of {', '.join(OUTSIDE_MODES)}, not {outside!r}")
        self.outside = outside
        try:
            self.main_share = float(main_share)
            self.region_max_link_density = float(region_max_link_density)
        except (TypeError, ValueError):
            raise OptionError("main_share and region_max_link_density must be numbers") from None
        if not 0.5 < self.main_share <= 1.0:
            raise OptionError(f"main_share must be in (0.5, 1], not {main_share!r}")
        if not 0.0 <= self.region_max_link_density <= 1.0:
            raise OptionError(f"region_max_link_density must be in [0, 1], not {region_max_link_density!r}",
                              option="region_max_link_density")

    # -- evidence ----------------------------------------------------------------
    @staticmethod
    def regions(root: Any) -> tuple[dict[str, str], list[str], dict[str, str]]:
        """(engine XPath -> boilerplate kind, engine XPaths of main-content hints, XPath -> element description)."""
        paths = EnginePaths(root)
        kinds: dict[str, str] = {}
        hints: list[str] = []
        why: dict[str, str] = {}
        candidates = _SEMANTIC_XPATH(root)
        seen = set(candidates)
        for value in _ATTRIBUTE_XPATH(root):
            name = value.attrname
            if name == "class" or name == "id":
                if not value_kinds(value):
                    continue
            elif name == "style" and _HIDDEN_STYLE.search(value) is None:
                continue
            el = value.getparent()
            if el not in seen:
                seen.add(el)
                candidates.append(el)
        counted: dict[Any, int] = {}
        for el in candidates:
            kind, hint = candidate_evidence(el)
            if not (kind or hint):
                continue
            if el.tag in UNWRAPPED_TAGS and not holds_parent(el, counted):
                continue
            xpath = paths.xpath(el)
            if xpath is None:
                continue
            if kind and xpath not in kinds:
                kinds[xpath] = kind
                why[xpath] = describe(el)
            if hint:
                hints.append(xpath)
        return kinds, hints, why

    def parse_unparsed(self, page: Page) -> Any:
        """The SAX parse into the walk's tree (``justext_engine.sax_page``), for the clean stage's
        language guess and then :meth:`extract`; None when the page needs lxml's tree. The
        engine's parse: the same tree, whose ruby annotations :meth:`extract` strips."""
        return self.engine.parse_unparsed(page)

    def extract(self, page: Page) -> list[Paragraph]:
        paras = self._extract_once(page)
        if "buttons" in structure.RULES and page.html and self._left_empty(paras):
            # a page left without text may be one whose buttons swallowed it (see
            # structure.without_buttons): parsed again without them, once
            repaired = structure.without_buttons(page.html)
            if repaired is not None:
                retry = Page(repaired, url=page.url, language=page.language, stoplist=page.stoplist)
                if page.parsed:
                    retry.tree   # a page given as lxml's tree is repaired on the same path (same result)
                again = self._extract_once(retry)
                # taken when it keeps text by the same test, or when the first parse kept nothing
                # and it keeps something (the same for justext-plus; justext-learned's test reads
                # jusText's classes, since its model's guard keeps something of any page)
                if not self._left_empty(again) or (_kept_none(paras) and not _kept_none(again)):
                    if "structure" in retry.meta:
                        page.meta["structure"] = retry.meta["structure"]
                    return again
        return paras

    @staticmethod
    def _left_empty(paras: list[Paragraph]) -> bool:
        """Whether the decision kept nothing of the page (then it is parsed again without its buttons)."""
        return _kept_none(paras)

    def _extract_once(self, page: Page) -> list[Paragraph]:
        """The page walked once (paragraphs, structural evidence, title), then decided."""
        stoplist = page.stoplist or frozenset()
        params = self.engine.params_for(page)
        # the backend's own parse of a page nobody has parsed (the one the clean stage kept for
        # the language guess, or libxml2 straight into the compiled walk's tree); None: the page
        # needs lxml's tree, or the backend has no parse of its own
        walked = justext_engine.WALK.evidence_of_page(page, stoplist, params, _evidence_settings())
        paras, tree, title, data = walked if walked is not None else self._walk_tree(page, stoplist, params)
        if paras and tree is not None:
            self._decide(paras, tree, title, page, data)
        return paras

    def _walk_tree(self, page: Page, stoplist: frozenset[str], params: Any) -> tuple:
        """(paragraphs, evidence tree, title, None) of lxml's tree of the page: the compiled
        walk's PageTree when it can walk the tree, else queries of the tree (XPathTree)."""
        root = page.tree
        if root is None:
            return [], None, None, None
        if not page.html or _RUBY_TEXT.search(page.html):
            _strip_ruby(root)
        found = justext_engine.WALK.evidence(root, stoplist, params, _evidence_settings())
        if found is not None:
            paras, tree = found
        else:
            blocks = justext_engine.WALK.segment(root, keep_blank_separators=KEEP_BLANK_SEPARATORS)
            paras = self.engine.paragraphs(blocks, stoplist, params)
            tree = None
        if not paras:
            return paras, None, None, None
        if tree is None:
            tree = XPathTree(paras, *self.regions(root))
        return paras, tree, self.title(page), None

    @property
    def decide_settings(self) -> DecideSettings:
        """The options decide() reads, as the compiled decide() takes them."""
        return DecideSettings(self.keep_meta, self.outside, self.main_share, self.region_max_link_density)

    def _decide(self, paras: list[Paragraph], tree: Any, title: str | None, page: Page,
                data: bytes | None = None) -> None:
        comments = self._comments_to_keep(tree.kinds, tree.chains)
        types = structure.before_decide(page.html, tree.kinds, paras, tree.chains, data, self.comments)
        totals = None
        if compiled_decide is not None and type(tree) is PageTree:
            # the same decisions in C arrays over the tree's node ids (and the words they keep)
            totals = compiled_decide(self.decide_settings, paras, tree.kinds, tree.hints, title, tree.why, tree)
        if totals is None or totals is DECLINED:
            totals = None
            self.decide(paras, tree.kinds, tree.hints, title, tree.why, tree)
        if comments is not None and structure.keep_comment_text(paras, comments):
            totals = None       # (the compiled decide's sums no longer hold)
        page.meta["structure"] = structure.after_decide(paras, types, tree.kinds, tree.chains, page.html, tree,
                                                        totals)

    def _comments_to_keep(self, kinds: dict[str, str], chains: Any) -> list[bool] | None:
        """With comments=keep, the paragraphs in comment-named blocks (before their names are
        dropped for the decision), for :func:`structure.keep_comment_text`; else None."""
        if self.comments != "keep" or "comment" not in kinds.values():
            return None
        return structure.in_comment_blocks(kinds, chains)

    def extract_py(self, page: Page) -> list[Paragraph]:
        """:meth:`extract` without the compiled walk: the evidence from XPath queries and strings."""
        root = page.tree
        if root is None:
            return []
        _strip_ruby(root)
        paras = self.engine.paragraphs(justext_engine.segment_py(root, keep_blank_separators=KEEP_BLANK_SEPARATORS),
                                       page.stoplist or frozenset(), self.engine.params_for(page))
        if not paras:
            return paras
        kinds, hints, why = self.regions(root)
        tree = XPathTree(paras, kinds, hints, why)
        comments = self._comments_to_keep(kinds, tree.chains)
        types = structure.before_decide(page.html, kinds, paras, tree.chains, comments=self.comments)
        self.decide(paras, kinds, hints, self.title(page), why, tree)
        if comments is not None:
            structure.keep_comment_text(paras, comments)
        page.meta["structure"] = structure.after_decide(paras, types, kinds, tree.chains, page.html)
        return paras

    def decide(self, paras: list[Paragraph], kinds: dict[str, str], hints: list[str],
               title: str | None, why: dict[str, str] | None = None, tree: Any = None) -> None:
        """Classify the paragraphs by jusText's classes and the evidence: :func:`.justext_plus_decide.decide`,
        phase by phase (the compiled ``decide`` is its twin for the compiled walk's tree)."""
        if tree is None:
            tree = XPathTree(paras, kinds, hints, why)
        python_decide(self.decide_settings, paras, kinds, hints, title, why, tree)


# a ruby text element's start tag, any case (one pattern scans a page three times faster than two
# substring searches of a str)
_RUBY_TEXT = re.compile("<[rR][tT]")


def _strip_ruby(root: Any) -> None:
    """Remove ruby annotations (Japanese furigana): readings printed above the
    words, not words of the text ("子こども" would read twice)."""
    if next(root.iter("rt"), None) is not None:
        etree.strip_elements(root, "rt", "rp", with_tail=False)


def _title_of(root: Any) -> str | None:
    t = root.find(".//title")
    if t is None:
        return None
    text = " ".join(t.text_content().split()) if hasattr(t, "text_content") else " ".join("".join(t.itertext()).split())
    return text or None


# decide() compiled (corpustool/native/justext_plus_decide.pyx) for the compiled walk's PageTree:
# the same classes, reasons and features (tests/native/test_backend_parity.py); the Python decide()
# (justext_plus_decide.py) is the reference and serves XPathTree (extract_py, namespaced trees)
# and the Python backend
PageTree = backend.walk.get("PageTree")
compiled_decide = backend.decide.get("decide")
DECLINED = backend.decide.get("DECLINED")
COMPILED_DECIDE_ERROR = None if backend.decide.compiled else backend.decide.reason
