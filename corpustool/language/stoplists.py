"""Stoplists by language name or ISO 639-1 code.

The lists are those the justext package ships (one word per line); a user
may also give a file. Lists shipped in this repository's ``stoplists/``
directory (``xx.txt``, built with ``corpustool stoplist build``) take
precedence over the package's for the same code.
"""
from __future__ import annotations

import functools
import os
import pkgutil
from pathlib import Path

from ..extractors.base import OptionError

# ISO 639-1 (or 639-3 where there is no two-letter code) -> justext stoplist name
ISO_TO_JUSTEXT: dict[str, str] = {
    "af": "Afrikaans", "sq": "Albanian", "ar": "Arabic", "an": "Aragonese", "hy": "Armenian",
    "rup": "Aromanian", "ast": "Asturian", "az": "Azerbaijani", "eu": "Basque", "be": "Belarusian",
    "be-tarask": "Belarusian_Taraskievica", "bn": "Bengali", "bpy": "Bishnupriya_Manipuri",
    "bs": "Bosnian", "br": "Breton", "bg": "Bulgarian", "ca": "Catalan", "ceb": "Cebuano",
    "cv": "Chuvash", "hr": "Croatian", "cs": "Czech", "da": "Danish", "nl": "Dutch",
    "en": "English", "eo": "Esperanto", "et": "Estonian", "fi": "Finnish", "fr": "French",
    "gl": "Galician", "ka": "Georgian", "de": "German", "el": "Greek", "gu": "Gujarati",
    "ht": "Haitian", "he": "Hebrew", "hi": "Hindi", "hu": "Hungarian", "is": "Icelandic",
    "io": "Ido", "ig": "Igbo", "id": "Indonesian", "ga": "Irish", "it": "Italian",
    "jv": "Javanese", "kn": "Kannada", "kk": "Kazakh", "ko": "Korean", "ku": "Kurdish",
    "ky": "Kyrgyz", "la": "Latin", "lv": "Latvian", "lt": "Lithuanian", "lmo": "Lombard",
    "nds": "Low_Saxon", "lb": "Luxembourgish", "mk": "Macedonian", "ms": "Malay",
    "ml": "Malayalam", "mt": "Maltese", "mr": "Marathi", "nap": "Neapolitan", "ne": "Nepali",
    "new": "Newar", "nb": "Norwegian_Bokmal", "nn": "Norwegian_Nynorsk", "oc": "Occitan",
    "fa": "Persian", "pms": "Piedmontese", "pl": "Polish", "pt": "Portuguese", "qu": "Quechua",
    "ro": "Romanian", "ru": "Russian", "sgs": "Samogitian", "sr": "Serbian",
    "sh": "Serbo_Croatian", "scn": "Sicilian", "simple": "Simple_English", "sk": "Slovak",
    "sl": "Slovenian", "es": "Spanish", "su": "Sundanese", "sw": "Swahili", "sv": "Swedish",
    "tl": "Tagalog", "ta": "Tamil", "te": "Telugu", "tr": "Turkish", "tk": "Turkmen",
    "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese", "vo": "Volapuk",
    "wa": "Walloon", "war": "Waray_Waray", "cy": "Welsh", "fy": "West_Frisian",
    "pnb": "Western_Panjabi", "yo": "Yoruba",
}
JUSTEXT_TO_ISO = {v: k for k, v in ISO_TO_JUSTEXT.items()}
# common aliases
_ALIASES = {"no": "nb", "nob": "nb", "nno": "nn", "iw": "he", "in": "id", "tagalog": "tl", "fil": "tl"}

REPO_STOPLIST_DIR = Path(__file__).resolve().parent.parent.parent / "stoplists"


def resolve_language(name: str) -> str:
    """Map a language name or code ("German", "de", "de-AT", "deu") to our code."""
    key = name.strip()
    if not key:
        raise OptionError("empty language name")
    low = key.lower().replace("_", "-")
    if low in ISO_TO_JUSTEXT:
        return low
    if low in _ALIASES:
        return _ALIASES[low]
    base = low.split("-")[0]
    if base in ISO_TO_JUSTEXT:
        return base
    if base in _ALIASES:
        return _ALIASES[base]
    for jname, code in JUSTEXT_TO_ISO.items():
        if jname.lower() == low.replace("-", "_") or jname.lower().replace("_", " ") == low.replace("-", " "):
            return code
    raise OptionError(f"unknown language {name!r}; use an ISO 639-1 code or a name such as 'German' "
                      f"(see 'corpustool stoplist list')")


def available_languages() -> dict[str, str]:
    """Codes with a stoplist -> language names."""
    return dict(sorted(ISO_TO_JUSTEXT.items()))


@functools.lru_cache(maxsize=256)
def stoplist_words(code: str) -> tuple[str, ...]:
    """The words of the stoplist for a language code, as written in the list."""
    local = REPO_STOPLIST_DIR / f"{code}.txt"
    if local.is_file():
        return tuple(_read_words(local.read_text(encoding="utf-8")))
    name = ISO_TO_JUSTEXT[code]
    data = pkgutil.get_data("justext", os.path.join("stoplists", f"{name}.txt"))
    if data is None:  # pragma: no cover - the package always ships them
        raise OptionError(f"no stoplist for {code}")
    return tuple(_read_words(data.decode("utf-8")))


def _read_words(text: str) -> list[str]:
    return [w.strip() for w in text.splitlines() if w.strip() and not w.startswith("#")]


@functools.lru_cache(maxsize=256)
def stoplist(code_or_name: str) -> frozenset[str]:
    """Lower-cased stoplist (the justext package's convention) for a language."""
    return frozenset(w.lower() for w in stoplist_words(resolve_language(code_or_name)))


def load_stoplist_file(path: str | os.PathLike) -> frozenset[str]:
    """A user stoplist: one word per line, UTF-8; lines starting with # are comments."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise OptionError(f"cannot read stoplist {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise OptionError(f"stoplist {path} is not UTF-8") from None
    words = frozenset(w.lower() for w in _read_words(text))
    if not words:
        raise OptionError(f"stoplist {path} is empty")
    return words
