"""corpustool: crawled HTML in, clean de-duplicated vertical corpora out."""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "extract_text", "identify_language"]


def extract_text(html: "bytes | str", url: "str | None" = None, language: "str | None" = None,
                 **options) -> str:
    """Clean text of one page: its good paragraphs, one per line.

    ``language`` is an ISO 639-1 code or name (None or "auto": guessed from the
    page); ``options`` are those of ``corpustool clean``: ``extractor``,
    ``preset``, the jusText parameters (``length_low`` ...), ``stoplist_file``.
    """
    from .api import extract_paragraphs

    doc = extract_paragraphs(html, url=url, language=language, **options)
    return doc.clean_text()


def identify_language(text: str, candidates: "list[str] | None" = None) -> "tuple[str, float]":
    """ISO 639-1 code of the language of ``text`` (or ``"und"``) and a confidence in [0, 1].

    The fast default method: stop words of every language in one pass, script
    detection for Chinese, Japanese, Thai (see :mod:`corpustool.language.identify`).
    ``candidates`` (codes or names) restricts the answer to these languages.
    """
    from .language.identify import identify_language as _identify

    return _identify(text, candidates)
