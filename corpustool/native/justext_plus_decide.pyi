# Stubs of corpustool/native/justext_plus_decide.pyx: justext-plus's decide() on the compiled
# walk's PageTree. It imports only the leaf corpustool.extractors.justext_plus_rules.
from typing import Any

from ..document import Paragraph
from ..extractors.justext_plus_rules import DecideSettings
from .justext_walk import PageTree

# what decide() returns when it leaves the input to the Python decide() (nothing changed)
DECLINED: Any
R_LINKS: str
R_META: str
R_PLAIN: str


def decide(settings: DecideSettings, paras: list[Paragraph], kinds: dict[str, str], hints: list[str],
           title: str | None, why: dict[str, str] | None, tree: PageTree) -> Any:
    """The structure rules' word totals (kept words, all words, words per kind), or DECLINED."""
