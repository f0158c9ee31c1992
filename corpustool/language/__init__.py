"""Languages: stoplists (:mod:`.stoplists`), identification (:mod:`.identify`), the language
filter stage (:mod:`.filter`); here the reading of a list of wanted languages."""
from __future__ import annotations

from ..errors import OptionError


def split_langs(value: str | None) -> list[str]:
    """The languages of a ``--lang`` value: ``"en,de"`` -> ``["en", "de"]``; None -> ``["auto"]``."""
    if value is None:
        return ["auto"]
    langs = [v.strip() for v in value.split(",") if v.strip()]
    if not langs:     # --lang "" is a mistake (an unset shell variable), not "every language"
        raise OptionError("languages needs at least one language or 'auto'", option="languages")
    return langs
