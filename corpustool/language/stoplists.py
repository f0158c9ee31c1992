"""Stoplists by language name or ISO 639-1 code.

Sources, in order:

1. the lists the justext package ships (one word per line, ordered by
   frequency: they were derived from Wikipedia);
2. the user stoplist directory (:func:`user_stoplist_dir`:
   ``$CORPUSTOOL_STOPLISTS`` if set, else ``$XDG_DATA_HOME/corpustool/stoplists``,
   else ``~/.local/share/corpustool/stoplists``), where ``corpustool stoplist
   build --name xx`` writes ``xx.txt``;
3. lists in the source checkout's ``stoplists/`` directory (``xx.txt``) for
   languages the package lacks.

A list of 2. or 3. never replaces the package's list for the same code: our
jusText engines must take exactly the justext package's decisions, which
depend on the stoplist. A different list for a covered language is given
with ``--stoplist FILE`` (:func:`load_stoplist_file`). A user list replaces a
checkout list of the same code.

Two forms of each list, on purpose:

* :func:`stoplist` is lower-cased and matched against lower-cased words, the
  justext package's convention (``justext.get_stoplist``), so the jusText path
  reproduces the package;
* :func:`stoplist_with_capitals` is the thesis' form (seed 003, Sect. 2.9.9):
  the lower-case words plus each word with its first letter capitalised,
  matched case-sensitively, so sentence-initial stop words count but words in
  all-caps text (menus, banners) do not. Language identification uses it.

Languages without a stoplist (Chinese, Japanese, Thai, ...) are still known
to :func:`resolve_language` with ``require_stoplist=False``: language
identification names them by script.
"""
from __future__ import annotations

import functools
import os
import pkgutil
import re
from pathlib import Path

from ..errors import OptionError

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
# Languages identified by script (identify.py) that the justext package has no list for.
OTHER_LANGUAGES: dict[str, str] = {
    "zh": "Chinese", "ja": "Japanese", "th": "Thai", "lo": "Lao", "km": "Khmer", "my": "Burmese",
}
# common aliases
_ALIASES = {"no": "nb", "nob": "nb", "nno": "nn", "iw": "he", "in": "id", "tagalog": "tl", "fil": "tl",
            "zh-hans": "zh", "zh-hant": "zh", "jp": "ja"}

REPO_STOPLIST_DIR = Path(__file__).resolve().parent.parent.parent / "stoplists"
USER_STOPLISTS_ENV = "CORPUSTOOL_STOPLISTS"
_CODE_FILE = re.compile(r"^[a-z]{2,3}(?:-[a-z]+)?$")


def user_stoplist_dir() -> Path:
    """The user stoplist directory: ``$CORPUSTOOL_STOPLISTS`` if set, else
    ``$XDG_DATA_HOME/corpustool/stoplists``, else ``~/.local/share/corpustool/stoplists``.

    Read at every call (not cached), so a changed variable takes effect; it need not exist.
    """
    explicit = os.environ.get(USER_STOPLISTS_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(data_home).expanduser() if data_home and os.path.isabs(os.path.expanduser(data_home)) \
        else Path.home() / ".local" / "share"
    return base / "corpustool" / "stoplists"


def user_stoplist_dir_origin() -> str:
    """How :func:`user_stoplist_dir` was chosen, for messages."""
    if os.environ.get(USER_STOPLISTS_ENV, "").strip():
        return f"${USER_STOPLISTS_ENV}"
    data_home = os.environ.get("XDG_DATA_HOME", "").strip()
    if data_home and os.path.isabs(os.path.expanduser(data_home)):
        return "$XDG_DATA_HOME/corpustool/stoplists"
    return "default"


def valid_list_code(code: str) -> bool:
    """Can ``code`` name a list of the user or checkout directory (a code the package lacks)?"""
    return bool(_CODE_FILE.match(code)) and code not in ISO_TO_JUSTEXT


@functools.lru_cache(maxsize=8)
def _lists_in(folder: str) -> dict[str, Path]:
    """``xx.txt`` files of a folder for codes the package does not cover."""
    path = Path(folder)
    if not path.is_dir():
        return {}
    out = {}
    for f in sorted(path.glob("*.txt")):
        code = f.stem.lower()
        if valid_list_code(code) and f.is_file():
            out[code] = f
    return out


@functools.lru_cache(maxsize=1)
def _repo_lists() -> dict[str, Path]:
    """Lists in the checkout's ``stoplists/`` for codes the package does not cover."""
    return _lists_in(str(REPO_STOPLIST_DIR))


def _extra_lists() -> dict[str, tuple[Path, str]]:
    """code -> (file, "checkout" | "user") of the lists beside the package's; user lists win."""
    return _extra_lists_for(str(REPO_STOPLIST_DIR), str(user_stoplist_dir()))


@functools.lru_cache(maxsize=8)
def _extra_lists_for(repo_dir: str, user_dir: str) -> dict[str, tuple[Path, str]]:
    out = {code: (path, "checkout") for code, path in _lists_in(repo_dir).items()}
    out.update((code, (path, "user")) for code, path in _lists_in(user_dir).items())
    return out


def refresh() -> None:
    """Forget the lists read so far (after a list was written or the user directory changed)."""
    _lists_in.cache_clear()
    _repo_lists.cache_clear()
    _extra_lists_for.cache_clear()
    for f in (stoplist_words, stoplist, stoplist_with_capitals, ranked_words):
        f.cache_clear()
    from . import identify

    for name in ("default_candidates", "_model", "_resolved"):
        fn = getattr(identify, name, None)
        if fn is not None and hasattr(fn, "cache_clear"):
            fn.cache_clear()


def _all_names() -> dict[str, str]:
    names = dict(ISO_TO_JUSTEXT)
    names.update(OTHER_LANGUAGES)
    for code in _extra_lists():
        names.setdefault(code, code)
    return names


def resolve_language(name: str, require_stoplist: bool = True) -> str:
    """Map a language name or code ("German", "de", "de-AT", "deu") to our code.

    With ``require_stoplist`` (the default) only languages with a stoplist are
    accepted; otherwise also those identify.py recognises by script (zh, ja, th ...).
    """
    key = name.strip() if isinstance(name, str) else ""
    if not key:
        raise OptionError("empty language name")
    names = _all_names()
    low = key.lower().replace("_", "-")
    code = None
    if low in names:
        code = low
    elif low in _ALIASES:
        code = _ALIASES[low]
    else:
        base = low.split("-")[0]
        if base in names:
            code = base
        elif base in _ALIASES:
            code = _ALIASES[base]
        else:
            for c, lname in names.items():
                if lname.lower() == low.replace("-", "_") or lname.lower().replace("_", " ") == low.replace("-", " "):
                    code = c
                    break
    if code is None:
        hint = ""
        if valid_list_code(low):
            hint = (f"; no {low}.txt in the user stoplist directory {user_stoplist_dir()} (put one there "
                    f"with 'corpustool stoplist build SAMPLE.txt --name {low}')")
        raise OptionError(f"unknown language {name!r}; use an ISO 639-1 code or a name such as 'German' "
                          f"(see 'corpustool stoplist list'){hint}")
    if require_stoplist and not has_stoplist(code):
        raise OptionError(f"no stoplist for language {code!r} ({names.get(code, code)}); give one with "
                          f"--stoplist FILE, or build one into the user stoplist directory with "
                          f"'corpustool stoplist build SAMPLE.txt --name {code}'")
    return code


def has_stoplist(code: str) -> bool:
    return code in ISO_TO_JUSTEXT or code in _extra_lists()


def available_languages() -> dict[str, str]:
    """Codes with a stoplist -> language names."""
    out = dict(ISO_TO_JUSTEXT)
    for code in _extra_lists():
        out[code] = OTHER_LANGUAGES.get(code, code)
    return dict(sorted(out.items()))


def stoplist_source(code: str) -> str:
    """Where the list for ``code`` comes from: "justext:Name.txt" or a file path."""
    if code in ISO_TO_JUSTEXT:
        return f"justext:{ISO_TO_JUSTEXT[code]}.txt"
    found = _extra_lists().get(code)
    if found is None:
        raise OptionError(f"no stoplist for {code}")
    return str(found[0])


def stoplist_origin(code: str) -> str:
    """Which kind of source the list for ``code`` is: "justext package", "user directory" or "checkout"."""
    if code in ISO_TO_JUSTEXT:
        return "justext package"
    found = _extra_lists().get(code)
    if found is None:
        raise OptionError(f"no stoplist for {code}")
    return "user directory" if found[1] == "user" else "checkout stoplists/"


@functools.lru_cache(maxsize=256)
def stoplist_words(code: str) -> tuple[str, ...]:
    """The words of the stoplist for a language code, as written in the list (in its order)."""
    if code in ISO_TO_JUSTEXT:
        data = pkgutil.get_data("justext", os.path.join("stoplists", f"{ISO_TO_JUSTEXT[code]}.txt"))
        if data is None:  # pragma: no cover - the package always ships them
            raise OptionError(f"no stoplist for {code}")
        # exactly as justext.get_stoplist reads them (no comments: the Korean list has a
        # "#f9f9c9;" line that is a word there)
        return tuple(w for w in data.decode("utf-8").splitlines() if w)
    found = _extra_lists().get(code)
    if found is None:
        raise OptionError(f"no stoplist for language {code!r}")
    try:
        text = found[0].read_text(encoding="utf-8")
    except OSError as exc:
        raise OptionError(f"cannot read stoplist {found[0]}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise OptionError(f"stoplist {found[0]} is not UTF-8") from None
    return tuple(_read_words(text))


def _read_words(text: str) -> list[str]:
    return [w.strip() for w in text.splitlines() if w.strip() and not w.startswith("#")]


@functools.lru_cache(maxsize=256)
def stoplist(code_or_name: str) -> frozenset[str]:
    """Lower-cased stoplist (the justext package's convention) for a language."""
    return frozenset(w.lower() for w in stoplist_words(resolve_language(code_or_name)))


def capitalised_variants(words) -> frozenset[str]:
    """Each lower-case word and the word with its first letter capitalised (seed 003, Sect. 2.9.9)."""
    out = set()
    for w in words:
        low = w.lower()
        out.add(low)
        out.add(low[:1].upper() + low[1:])
    return frozenset(out)


@functools.lru_cache(maxsize=256)
def stoplist_with_capitals(code_or_name: str) -> frozenset[str]:
    """The thesis' case-sensitive form: lower-case words plus first-letter capitalised variants."""
    return capitalised_variants(stoplist_words(resolve_language(code_or_name)))


@functools.lru_cache(maxsize=256)
def ranked_words(code: str, top: int | None = None) -> tuple[str, ...]:
    """Distinct lower-case words of a list in its order (most frequent first for the package's lists)."""
    seen: dict[str, None] = {}
    for w in stoplist_words(code):
        seen.setdefault(w.lower(), None)
        if top is not None and len(seen) >= top:
            break
    return tuple(seen)


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


def build_stoplist(lines, top: int = 300, tokens: bool = False) -> tuple[list[tuple[str, int]], int]:
    """The ``top`` most frequent words of a text sample, lower-cased, with their counts.

    Seed 003, Sect. 2.9.9 (Table 2.10): a list of the most frequent words of
    any longish sample works for jusText as well as a hand-made list of
    function words (about 300 words is the size of the default list). Words
    are the tokenizer's tokens that contain a letter (numbers and punctuation
    are not words); for scripts without spaces a token is a character (see
    :mod:`corpustool.text.tokenizer`). Ties are broken alphabetically, so the
    list is deterministic. Returns the list and the number of words read.
    With ``tokens``, every item of ``lines`` is already one token (a vertical
    file's token column) and is not split again.
    """
    from collections import Counter

    from ..text.tokenizer import tokenize

    if isinstance(top, bool) or not isinstance(top, int) or top <= 0:
        raise OptionError(f"top must be a positive integer, not {top!r}")
    counts: Counter = Counter()
    if tokens:
        counts.update(t.lower() for t in lines if _HAS_LETTER.search(t))
    else:
        for line in lines:
            counts.update(t.lower() for t in tokenize(line)[0] if _HAS_LETTER.search(t))
    total = sum(counts.values())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return ranked, total


def _has_letter_re():
    from ..text.tokenizer import LETTER
    return re.compile(LETTER)


class _LazyRe:
    """Compiled on first use: the tokenizer's letter class is built at its import."""

    def __init__(self, factory):
        self._factory = factory
        self._rx = None

    def search(self, s: str):
        if self._rx is None:
            self._rx = self._factory()
        return self._rx.search(s)


_HAS_LETTER = _LazyRe(_has_letter_re)
