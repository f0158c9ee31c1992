"""justext-plus's decision, phase by phase: jusText's classes plus the page's structure.

The walk (:mod:`.justext_plus`) gives the engine's paragraphs, classified by jusText
(Algorithms 2.2 and 2.3 of seed 003), and the structural evidence: the boilerplate
regions (XPath -> kind), the main-content hints (``<article>``, ``<main>``, ...) and the
element each region's name comes from. :func:`decide` reads them in named phases, as
``justext.core.justext()`` reads its own:

1. :func:`region_kinds` - which region names stand: a region, or a class name, that holds
   most of the page's content-like text is not boilerplate whatever it is called;
2. :func:`innermost_kinds` - each paragraph's innermost boilerplate region;
3. :func:`main_text` - the main-content region (and a second block of it), freed of names;
4. :func:`main_span` - the main text's span inside it, from its first to its last content
   paragraph, widened by the sentences around it;
5. :func:`verdicts` - each paragraph kept or removed, with the reason;
6. :func:`remove_link_lists`, :func:`remove_list_headings` - runs of links and their headings;
7. :func:`keep_lead` - the heading and lead sentence just before the main region;
8. :func:`remove_trailing_headings` - headings after the last kept text;
9. :func:`record` - the classes, reasons and evidence on the paragraphs.

``corpustool/native/justext_plus_decide.pyx`` is the same decision compiled, with the same
signature, for the compiled walk's tree (tests/native/test_backend_parity.py); both read their
thresholds and string tests from the leaf :mod:`.justext_plus_rules`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..document import BAD, GOOD, Paragraph
from .justext_plus_rules import (ARTICLE_HEADER, BARE_FORM, LEAD_LINK_DENSITY, MIN_OVERRULE_CHARS, MIN_UI_REPEATS,
                                 SALUTATION, SECOND_MAIN_SHARE, SEMANTIC_TAGS, SIGN_OFF, SPAN_LINK_DENSITY,
                                 DecideSettings, container, introduces, is_sentence, is_title, letter_line,
                                 line_verdict, name_key, norm)

Kinds = dict[str, str]      # XPath of a region -> its kind of boilerplate


@dataclass(slots=True)
class Columns:
    """The paragraphs' fields, read once (every phase reads them, often), and where each sits:
    ``chains[i]``, the XPaths of paragraph i's ancestors-or-self that are regions or hints,
    outermost first."""

    paras: list[Paragraph]
    chains: Any
    texts: list[str]
    chars: list[int]
    good: list[bool]
    cfs: list[str | None]
    heads: list[bool]
    xpaths: list[str]
    lds: list[float]
    words: list[int]
    content: list[int]      # the characters of text that reads like content, else 0

    @classmethod
    def of(cls, paras: list[Paragraph], chains: Any) -> "Columns":
        texts = [p.text for p in paras]
        chars = [len(t) for t in texts]
        good = [p.cls == GOOD for p in paras]
        cfs = [p.cf_class for p in paras]
        lds = [p.features.get("link_density", 0.0) for p in paras]
        # text that reads like content: what jusText keeps or finds near-good, outside links
        content = [c if (g or cf == "good" or cf == "neargood") and ld <= 0.5 else 0
                   for c, g, cf, ld in zip(chars, good, cfs, lds)]
        return cls(paras, chains, texts, chars, good, cfs, [p.heading for p in paras], [p.xpath for p in paras],
                   lds, [p.features.get("words", 0) for p in paras], content)

    def __len__(self) -> int:
        return len(self.paras)


def decide(settings: DecideSettings, paras: list[Paragraph], kinds: Kinds, hints: list[str],
           title: str | None, why: dict[str, str] | None, tree: Any) -> None:
    """Classify ``paras`` good or bad (``p.cls``, ``p.reason``) by jusText's classes and the
    structural evidence; ``tree`` (an ``XPathTree`` or the compiled walk's ``PageTree``) says
    where each paragraph sits (``chains``) and sums weights over elements (``masses``).
    Drops from ``kinds`` the headers that are an article's title block."""
    cols = Columns.of(paras, tree.chains)
    active = region_kinds(cols, kinds, hints, why)
    kind_of, region_of = innermost_kinds(cols.chains, active)
    main, inside = main_text(cols, tree, hints, active, kind_of, region_of, settings.main_share)
    first, last = main_span(cols, inside, kind_of)
    keep, reason = verdicts(cols, inside, kind_of, first, last, title, settings)
    remove_link_lists(cols, keep, reason)
    remove_list_headings(cols, inside, keep, reason)
    if main is not None:
        keep_lead(cols, inside, kind_of, keep, reason)
    remove_trailing_headings(cols, keep, reason)
    record(paras, keep, reason, inside, kind_of, region_of, why)


# -- 1. which names stand ----------------------------------------------------------

def region_kinds(cols: Columns, kinds: Kinds, hints: list[str], why: dict[str, str] | None) -> Kinds:
    """The regions that are boilerplate (a copy of ``kinds`` less the overruled ones); deletes
    from ``kinds`` itself the headers that are an article's title block."""
    chains, content = cols.chains, cols.content
    # (a cookie notice stays one, so its text, often longer than a short article,
    # competes with nothing: it does not count in the shares below)
    cookies = {x for x, k in kinds.items() if k == "cookie"}
    if cookies:
        total = sum(c for pre, c in zip(chains, content) if c and cookies.isdisjoint(pre))
    else:
        total = sum(content)

    # a header inside an article is the article's title block, not the page's header
    # (and so is one that names itself so: "article-header", "entry-header", "post-head")
    for x in [x for x, k in kinds.items() if k == "header"]:
        if any(x.startswith(h + "/") for h in hints) or (why and x in why and ARTICLE_HEADER.search(why[x])):
            del kinds[x]
    # text per region, to overrule names on regions that hold most of the content
    region_mass: dict[str, int] = {}
    hint_set = set(hints)
    for pre, c in zip(chains, content):
        if c:
            for x in pre:
                if x in kinds or x in hint_set:
                    region_mass[x] = region_mass.get(x, 0) + c
    # (a cookie notice stays one even when it is the only text that reads well,
    # and a few lines of text are too little to overrule a name)
    active = dict(kinds)
    if total >= MIN_OVERRULE_CHARS:
        for x, m in region_mass.items():
            if m * 2 > total and x in active and active[x] != "cookie":
                del active[x]
    # the same inside an element that declares itself the main content (<main>,
    # <article>): a "sidebar_right" layout class on the block that holds most of
    # <main>'s text names the layout, not the block
    for h in hints:
        hm = region_mass.get(h, 0)
        if hm >= MIN_OVERRULE_CHARS:
            # (only regions with content can hold most of it)
            for x in [x for x in region_mass if x in active and x.startswith(h + "/") and active[x] != "cookie"]:
                if region_mass[x] * 2 > hm:
                    del active[x]
    if why and total >= MIN_OVERRULE_CHARS:
        active = _without_crowded_names(cols, active, region_mass, why, total)
    return active


def _without_crowded_names(cols: Columns, active: Kinds, region_mass: dict[str, int], why: dict[str, str],
                           total: int) -> Kinds:
    """``active`` without the regions of a class name whose regions together hold most of the
    content: page builders wrap every block, content included, in one class
    ("elementor-widget-container"); such a name names the page's blocks, not boilerplate.
    (Only class names: an ``<aside>`` or ``<nav>`` is one by the page's own declaration, and
    comments stay comments however long the discussion.)"""
    def named(x: str) -> bool:
        return x in why and active[x] != "comment" and why[x].partition(".")[0] not in SEMANTIC_TAGS

    # names only of the regions that hold content (the others add no mass)
    names = {x: name_key(why[x]) for x in region_mass if x in active and named(x)}
    name_mass: dict[str, int] = {}
    for pre, c in zip(cols.chains, cols.content):
        if c:
            for name in {names[x] for x in pre if x in names}:
                name_mass[name] = name_mass.get(name, 0) + c
    crowded = {name for name, m in name_mass.items() if m * 2 > total}
    if not crowded:
        return active
    return {x: k for x, k in active.items() if k == "cookie" or not named(x) or name_key(why[x]) not in crowded}


# -- 2. each paragraph's region ------------------------------------------------------

def innermost_kinds(chains: Any, active: Kinds) -> tuple[list[str | None], list[str | None]]:
    """The innermost boilerplate kind of each paragraph and the region it comes from (None, None
    for a paragraph in no boilerplate region)."""
    n = len(chains)
    kind_of: list[str | None] = [None] * n
    region_of: list[str | None] = [None] * n
    for i, pre in enumerate(chains):
        for x in reversed(pre):
            k = active.get(x)
            if k:
                kind_of[i], region_of[i] = k, x
                break
    return kind_of, region_of


# -- 3. the main-content region -------------------------------------------------------

def main_region(tree: Any, weight: list[int], hints: list[str], main_share: float) -> str | None:
    """The deepest container holding more than ``main_share`` of ``weight``, widened to the
    enclosing main-content hint (an article's title, lead and captions are main text too)."""
    total = sum(weight)
    if total == 0:
        return None
    mass = tree.masses(weight)   # weight at or below each element
    need = main_share * total
    best = None
    for x, m in mass.items():
        if m >= need and (best is None or len(x) > len(best)) and container(x):
            best = x
    if best is None:
        return None
    for h in sorted(hints, key=len, reverse=True):
        if best.startswith(h + "/") and h.count("/") > 2:
            return h
    return best


def main_text(cols: Columns, tree: Any, hints: list[str], active: Kinds, kind_of: list[str | None],
              region_of: list[str | None], main_share: float) -> tuple[str | None, list[bool]]:
    """The main region (None without one) and which paragraphs are in the main text. A region
    holding the main content is no boilerplate: its name leaves ``active``, ``kind_of`` and
    ``region_of``; so does a bare ``<form>``'s inside it."""
    n = len(cols)
    chains, content, xpaths = cols.chains, cols.content, cols.xpaths
    # the deepest element with more than main_share of the content outside boilerplate
    weight = [c if k is None or k == "meta" else 0 for c, k in zip(content, kind_of)]
    if not any(weight):
        # no content-like paragraph: longer paragraphs' text outside links
        weight = [int(c * (1.0 - ld)) if w >= 10 and k in (None, "meta") else 0
                  for c, ld, w, k in zip(cols.chars, cols.lds, cols.words, kind_of)]
    main = main_region(tree, weight, hints, main_share)
    if main is None:
        return None, [False] * n
    freed = [x for x in prefixes(main) if x in active]
    for x in freed:
        del active[x]
    for i in range(n) if freed else ():
        if region_of[i] is not None and region_of[i] not in active:
            kind_of[i] = None
            for x in reversed(chains[i]):
                k = active.get(x)
                if k:
                    kind_of[i], region_of[i] = k, x
                    break
    inside = below(xpaths, main)
    # the main text split in two blocks (a recipe's ingredients and its steps, a
    # product's description and its details): a second region holding most of the
    # content-like text left outside the first, a quarter of the page's or more
    rest = [0 if inside[i] else w for i, w in enumerate(weight)]
    if sum(rest) >= SECOND_MAIN_SHARE * sum(weight):
        second = main_region(tree, rest, hints, main_share)
        if second is not None and not main.startswith(second + "/") and not second.startswith(main + "/"):
            inside = [a or b for a, b in zip(inside, below(xpaths, second))]
    # a bare <form> inside the main region holds main text (ingredients, a questionnaire)
    for i in range(n):
        if inside[i] and kind_of[i] == BARE_FORM and region_of[i] != main:
            kind_of[i] = None
            for x in reversed(chains[i]):
                k = active.get(x)
                if k and k != BARE_FORM and x.startswith(main):
                    kind_of[i], region_of[i] = k, x
                    break
    return main, inside


# -- 4. the main text's span ----------------------------------------------------------

def main_span(cols: Columns, inside: list[bool], kind_of: list[str | None]) -> tuple[int, int]:
    """The first and last paragraph of the main text in the region ((n, -1) without one): from
    its first to its last content paragraph, with the sentences next to it (its lead and its
    closing words). Before it only headings are main text (the title block), after it nothing
    (share buttons, "related articles", credits)."""
    n, paras = len(cols), cols.paras
    content, cfs, chars, lds = cols.content, cols.cfs, cols.chars, cols.lds
    span = [i for i in range(n) if inside[i] and kind_of[i] is None and (content[i] or (
        cfs[i] == "bad" and chars[i] >= 70 and lds[i] <= SPAN_LINK_DENSITY))]
    if not span:
        # no paragraph reads like content (a short post of short lines): its lines without
        # links are its text
        span = [i for i in range(n) if inside[i] and kind_of[i] is None and not cols.heads[i]
                and not lds[i] and cols.words[i] >= 3]
    first, last = (span[0], span[-1]) if span else (n, -1)
    while first > 0 and inside[first - 1] and (is_sentence(paras[first - 1], LEAD_LINK_DENSITY)
                                               or letter_line(paras[first - 1], SALUTATION)):
        first -= 1
    while last + 1 < n and inside[last + 1] and (is_sentence(paras[last + 1])
                                                 or letter_line(paras[last + 1], SIGN_OFF)
                                                 or introduces(paras[last + 1])):
        last += 1
    return first, last


# -- 5. each paragraph's verdict -------------------------------------------------------

def verdicts(cols: Columns, inside: list[bool], kind_of: list[str | None], first: int, last: int,
             title: str | None, settings: DecideSettings) -> tuple[list[bool], list[str | None]]:
    """Each paragraph kept or not, and why not: boilerplate regions, template lines
    (:func:`line_verdict`), links; inside the main region its span (and before it the title
    block), outside it what ``settings.outside`` keeps."""
    n = len(cols)
    texts, chars, heads, lds, good, cfs = cols.texts, cols.chars, cols.heads, cols.lds, cols.good, cols.cfs
    title_norm = norm(title or "")
    # short lines repeated on the page are the labels of its controls ("Bild anzeigen")
    repeated: dict[str, int] = {}
    for t, c in zip(texts, chars):
        if c < 60:
            repeated[t] = repeated.get(t, 0) + 1
    # before the span (or without one): lines in a section of the main region that a
    # heading opens and another closes (a facts box: "Cameras" / "Widelux."), not the
    # title block's lines
    headed_before = [False] * n
    opening = [i for i in range(min(first + 1, n)) if inside[i] and heads[i] and kind_of[i] is None]
    for i in range(opening[0] + 1, opening[-1]) if len(opening) >= 2 else ():
        headed_before[i] = inside[i] and not heads[i]
    keep = [False] * n
    reason: list[str | None] = [None] * n
    keep_meta, max_ld, outside = settings.keep_meta, settings.region_max_link_density, settings.outside
    for i in range(n):
        kind = kind_of[i]
        if kind is not None and kind != "meta":
            reason[i] = f"boilerplate:{'form' if kind == BARE_FORM else kind}"
            continue
        text, heading = texts[i], heads[i]
        rights, dated, found, label = line_verdict(text, heading, keep_meta)
        if rights:
            reason[i] = "boilerplate"
            continue
        meta_line = dated or (kind == "meta" and not heading)
        if meta_line and not keep_meta:
            reason[i] = "boilerplate:meta"
            continue
        if found is None and label and repeated.get(text, 0) >= MIN_UI_REPEATS:
            found = "boilerplate:repeated"
        if found:
            # a credit, or a short line of the site's template: a button, a box title, a label
            reason[i] = found
            continue
        ld = lds[i]
        if inside[i]:
            if ld > max_ld:
                reason[i] = "boilerplate:links"
                continue
            keep[i] = first <= i <= last or (i < first and (heading or meta_line or (
                ld == 0.0 and headed_before[i])))
        elif heading and title_norm and is_title(norm(text), title_norm):
            keep[i] = True
        elif outside == "justext":
            keep[i] = good[i]
        elif outside == "good":
            keep[i] = good[i] and cfs[i] == "good"
        if not keep[i]:
            reason[i] = "boilerplate"
    return keep, reason


# -- 6. link lists ----------------------------------------------------------------------

def remove_link_lists(cols: Columns, keep: list[bool], reason: list[str | None]) -> None:
    """Runs of three or more short kept paragraphs that are mostly links are a link list."""
    n, lds, chars = len(cols), cols.lds, cols.chars
    run: list[int] = []
    for i in range(n + 1):
        if i < n and keep[i] and lds[i] > 0.3 and chars[i] < 100:
            run.append(i)
            continue
        if len(run) >= 3:
            for j in run:
                keep[j] = False
                reason[j] = "boilerplate:links"
        run = []


def remove_list_headings(cols: Columns, inside: list[bool], keep: list[bool], reason: list[str | None]) -> None:
    """A heading over a link list ("More on this topic") belongs to the list: its section, up to
    the next heading, is all removed and holds links."""
    n, heads = len(cols), cols.heads
    for i in range(n):
        if not (keep[i] and inside[i] and heads[i]):
            continue
        j = i + 1
        while j < n and heads[j]:
            j += 1
        links = dated = False
        while j < n and not heads[j] and not keep[j]:
            links = links or reason[j] == "boilerplate:links"
            dated = dated or reason[j] == "boilerplate:meta"
            j += 1
        # (a dateline under it makes it an article's title: its category link is no list)
        if links and not dated and (j == n or heads[j]):
            keep[i] = False
            reason[i] = "boilerplate:links"


# -- 7. the main text's head -------------------------------------------------------------

def keep_lead(cols: Columns, inside: list[bool], kind_of: list[str | None], keep: list[bool],
              reason: list[str | None]) -> None:
    """The heading and the lead sentence just before the main region belong to it (each in its
    own container above the body), and so does a "teaser" (the German press's word for a lead)
    right before or at the start of the main text, before its body text begins."""
    n, paras, content = len(cols), cols.paras, cols.content
    first = next((i for i in range(n) if inside[i]), None)
    if first is None:
        return
    j = first - 1
    while j >= 0 and j >= first - 3 and (paras[j].heading or not keep[j]):
        p = paras[j]
        if (not p.heading and kind_of[j] is None and reason[j] == "boilerplate" and is_sentence(p)
                and p.cf_class in ("good", "neargood")):
            keep[j], reason[j] = True, None
            break
        j -= 1
    for j in range(first - 1, max(first - 4, -1), -1):
        if (paras[j].heading and kind_of[j] is None and paras[j].features.get("link_density", 0.0) <= 0.5
                and reason[j] in (None, "boilerplate")):   # (not a template line: "See also")
            keep[j] = True
            break
    start = next((i for i in range(n) if inside[i] and kind_of[i] is None), None)
    if start is None:
        return
    j = start - 1
    while j >= 0 and paras[j].heading and keep[j]:
        j -= 1
    lead = [j, start + 1] if j >= 0 else [start + 1]
    # and inside the main region before its body text begins (after the title and date)
    body = next((i for i in range(start, n) if inside[i] and kind_of[i] is None and content[i]
                 and not paras[i].heading), n)
    lead += [i for i in range(start, body) if inside[i]]
    for i in lead:
        if (0 <= i < n and kind_of[i] == "aside" and not keep[i] and is_sentence(paras[i])
                and paras[i].cf_class in ("good", "neargood")):
            keep[i] = True
            reason[i] = None


# -- 8. the main text's end ----------------------------------------------------------------

def remove_trailing_headings(cols: Columns, keep: list[bool], reason: list[str | None]) -> None:
    """Headings after the last kept text head nothing of it ("More on this topic",
    "Comments"): what they announced was removed."""
    n, heads = len(cols), cols.heads
    last_text = max((i for i in range(n) if keep[i] and not heads[i]), default=n)
    for i in range(last_text + 1, n):
        if keep[i] and heads[i]:
            keep[i], reason[i] = False, "boilerplate:heading"


# -- 9. the record --------------------------------------------------------------------------

def record(paras: list[Paragraph], keep: list[bool], reason: list[str | None], inside: list[bool],
           kind_of: list[str | None], region_of: list[str | None], why: dict[str, str] | None) -> None:
    """The decision on the paragraphs, with its evidence for the inspect view and the
    evaluation's reports (``jt_class``, ``main``, ``region``, ``region_element``)."""
    for p, k, r, ins, kind, region in zip(paras, keep, reason, inside, kind_of, region_of):
        p.features["jt_class"] = p.cls
        p.features["main"] = ins
        if kind:
            p.features["region"] = kind
            if why and region in why:
                p.features["region_element"] = why[region]
        if k:
            p.cls, p.reason = GOOD, None
        else:
            p.cls, p.reason = BAD, r or "boilerplate"


# -- XPath helpers ---------------------------------------------------------------------------

def prefixes(xpath: str) -> list[str]:
    """The XPaths of an element's ancestors and itself, outermost first."""
    out = []
    i = xpath.find("/", 1)
    while i != -1:
        out.append(xpath[:i])
        i = xpath.find("/", i + 1)
    out.append(xpath)
    return out


def below(xpaths: list[str], top: str) -> list[bool]:
    """For each XPath: is it ``top`` or below it?"""
    prefix = top + "/"
    return [x == top or x.startswith(prefix) for x in xpaths]
