"""corpustool: crawled HTML in, clean de-duplicated vertical corpora out."""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "extract_text"]


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
