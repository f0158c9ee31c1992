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
  text, are the records of a list (posts, items);

No rule names a site. Each rule has a name in :data:`RULES`; taking a name out
of it turns the rule off (for measuring what each one does, as
docs/best_extractor.md reports).
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from ..document import BAD, GOOD, Paragraph

RULES = {"discussion"}

# schema.org types by what they make of the page; JSON-LD ("@type": "X" or ["X", ...])
# and microdata (itemtype="https://schema.org/X")
DISCUSSION_TYPES = frozenset({"DiscussionForumPosting", "QAPage"})
_SCHEMA_TYPE = re.compile(r"""(?:"@type"\s*:\s*\[?\s*"|schema\.org/)(DiscussionForumPosting|QAPage)\b""")


def declared_types(html: str | None) -> frozenset[str]:
    """The schema.org types of :data:`DISCUSSION_TYPES` the markup declares."""
    if not html:
        return frozenset()
    return frozenset(_SCHEMA_TYPE.findall(html))


def is_discussion(types: frozenset[str]) -> bool:
    return not DISCUSSION_TYPES.isdisjoint(types)


def drop_comment_regions(kinds: dict[str, str]) -> None:
    """On a discussion page the "comment"/"reply" blocks are the posts, the page's content:
    they are no boilerplate regions (``kinds`` is changed in place, before the decision)."""
    for x in [x for x, k in kinds.items() if k == "comment"]:
        del kinds[x]


def before_decide(html: str | None, kinds: dict[str, str]) -> frozenset[str]:
    """The evidence changes made before the decision; returns the declared types."""
    types = declared_types(html)
    if "discussion" in RULES and is_discussion(types):
        drop_comment_regions(kinds)
    return types
