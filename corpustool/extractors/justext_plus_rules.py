"""justext-plus's thresholds and string tests: the leaf both deciders import.

:func:`corpustool.extractors.justext_plus_decide.decide` (Python) and
``corpustool/native/justext_plus_decide.pyx`` (compiled) apply the same rules; the
numbers and the tests on a paragraph's text they share live here, public, so the
compiled module depends on this leaf (the standard library and :mod:`.template_lines`,
itself a leaf) and not on the extractor that imports it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .template_lines import MIN_UI_REPEATS, line_verdict

if TYPE_CHECKING:
    from ..document import Paragraph

__all__ = ["ARTICLE_HEADER", "BARE_FORM", "DecideSettings", "LEAD_LINK_DENSITY", "MIN_OVERRULE_CHARS", "MIN_UI_REPEATS", "SALUTATION",
           "SECOND_MAIN_SHARE", "SEMANTIC_TAGS", "SIGN_OFF", "SPAN_LINK_DENSITY", "container", "introduces",
           "is_sentence", "is_title", "letter_line", "line_verdict", "name_key", "norm"]

MIN_OVERRULE_CHARS = 300
SECOND_MAIN_SHARE = 0.25    # share of the content-like text a second main block must hold
# a long paragraph jusText calls bad still bounds the main text's span when links cover at
# most a quarter of it (jusText's own limit is 0.2, for whole pages; measured: +8 / -2 snippets)
SPAN_LINK_DENSITY = 0.25
# a lead sentence may link a name or two (links on at most a third of its text)
LEAD_LINK_DENSITY = 0.35

# HTML5 elements and ARIA landmark roles -> kind of boilerplate.
SEMANTIC_TAGS = {"nav": "nav", "aside": "aside", "footer": "footer", "header": "header", "form": "form",
                 "menu": "nav", "dialog": "aside"}
# the kind of a <form> named by nothing but its tag
BARE_FORM = "form-element"

ARTICLE_HEADER = re.compile(r"(?:article|artikel|post|entry|story|beitrag)[-_]?(?:header|head|kopf)"
                            r"|(?:header|head|kopf)[-_]?(?:article|artikel|post|entry|story|beitrag)", re.IGNORECASE)

# elements that hold one block of text, not a region: a <p> whose lines are
# split by <br><br> gives paragraphs with the paths ".../p[3]/br[2]", and
# the region of the text around them is the <p>'s container
TEXT_BLOCK_TAGS = frozenset(("p", "br", "span", "a", "b", "i", "em", "strong", "font", "small", "big", "u",
                             "sup", "sub", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dd", "dt", "td", "th"))


def container(xpath: str) -> bool:
    """Whether the element at an engine XPath can be a region (not a text block inside one)."""
    tag = xpath[xpath.rfind("/") + 1:xpath.rfind("[")]
    return tag not in TEXT_BLOCK_TAGS


_ID_LIKE = re.compile(r"\S*\d\S*")


@lru_cache(maxsize=65536)
def name_key(description: str) -> str:
    """A region's name without the ids page builders number their blocks with
    ("elementor-element-672a337d")."""
    return " ".join(_ID_LIKE.sub(" ", description).split())


SENTENCE_END = tuple(".!?…\"“”»)。！？")

# a letter's opening and closing lines around a text ("Dear readers,", "Best regards")
SALUTATION = re.compile(r"^\W*(?:dear|hello|hi|liebe\w*|hallo|sehr geehrte\w*|querid[oa]s?|estimad[oa]s?|hola|"
                        r"cher|chère|chers|chères|bonjour|drodzy|drogi\w*|szanown\w*|witajcie)\b")
SIGN_OFF = re.compile(r"^\W*(?:best|kind|warm)? ?(?:regards|wishes|cheers|yours|sincerely|"
                      r"(?:viele|liebe|beste|herzliche|freundliche) grüße|grüße|euer|eure|dein|deine|"
                      r"saludos|atentamente|un abrazo|cordialement|amicalement|bien à vous|pozdrawiam\w*|"
                      r"z pozdrowieniami)\b")


def introduces(p: Paragraph) -> bool:
    """A line of words without links ending in a colon: it introduces what follows ("The paper is here:")."""
    return (not p.heading and p.features.get("words", 0) >= 3 and not p.features.get("link_density")
            and p.text.rstrip().endswith(":"))


def letter_line(p: Paragraph, pattern: re.Pattern[str]) -> bool:
    """A short line without links that opens or closes a letter-like text."""
    return (not p.heading and p.features.get("words", 0) <= 6 and not p.features.get("link_density")
            and pattern.match(p.text.lower()) is not None)


def is_sentence(p: Paragraph, max_link_density: float = 0.0) -> bool:
    """A line of running text: not a heading, at least three words, ends like a sentence; no
    links, or (with ``max_link_density``) a few in a sentence of at least 15 words."""
    ld = p.features.get("link_density") or 0.0
    if ld and (ld > max_link_density or p.features.get("words", 0) < 15):
        return False
    return not p.heading and p.features.get("words", 0) >= 3 and p.text.rstrip().endswith(SENTENCE_END)


_WORDS = re.compile(r"\w+")


def norm(text: str) -> str:
    """A text's words, lower-cased, one space apart (the title test compares these)."""
    return " ".join(_WORDS.findall(text.lower()))


def is_title(heading: str, title: str) -> bool:
    """A heading that repeats the page title (which often adds the site's name)."""
    return len(heading) >= 10 and heading in title


@dataclass(frozen=True, slots=True)
class DecideSettings:
    """The extractor's options decide() reads (JustextPlusExtractor's constructor arguments),
    what the compiled decide() is given instead of the extractor."""

    keep_meta: bool
    outside: str
    main_share: float
    region_max_link_density: float     # justext-plus's own threshold inside the main region
