"""Plain text: good paragraphs one per line, documents separated by a blank line."""
from __future__ import annotations

from ..document import Document
from .base import Writer


class TextWriter(Writer):
    def format(self, doc: Document) -> str:
        text = doc.clean_text()
        return f"{text}\n\n" if text else ""
