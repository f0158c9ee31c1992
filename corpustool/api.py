"""Library entry points behind :func:`corpustool.extract_text`."""
from __future__ import annotations

from typing import Any

from .document import Document


def extract_paragraphs(html: bytes | str, url: str | None = None, language: str | None = None,
                       **options: Any) -> Document:
    """Run the clean stage on one page; the returned document holds every
    paragraph (good and bad) with its class and features.

    A page the clean stage drops (empty, binary, unknown language) comes back
    with ``drop_reason`` set and no good paragraphs.
    """
    from .errors import OptionError
    from .extractors.clean import DEFAULT_EXTRACTOR, Clean

    if not isinstance(html, (bytes, str)):
        raise OptionError("html must be bytes or str")
    extractor = options.pop("extractor", None) or DEFAULT_EXTRACTOR
    langs = [language] if language and language != "auto" else ["auto"]
    if language and "," in language:
        langs = [l.strip() for l in language.split(",") if l.strip()]
    stage = Clean(extractor=extractor, languages=langs, **options)
    doc = Document(id="page", url=url)
    if isinstance(html, str):
        doc.html, doc.encoding, doc.encoding_source = html, "utf-8", "given"
    else:
        doc.raw = html
    stage.process(doc)
    return doc
