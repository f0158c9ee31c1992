"""JSON Lines: one document per line, the same schema as the stage stream, plus ``text_types``
(the attributes the vertical writer writes on ``<doc>`` beyond the crawl metadata)."""
from __future__ import annotations

import json

from ..document import Document
from ..quality import quality_attributes
from ..text_types import text_types
from .base import Writer


class JsonlWriter(Writer):
    def __init__(self, path: str = "-", detail: bool = False, append: bool = False) -> None:
        super().__init__(path, append)
        self.detail = detail

    def format(self, doc: Document) -> str:
        d = doc.to_dict(detail=self.detail, with_raw=False)
        # the text types the vertical writer writes on <doc> (text_types.py), as strings
        d["text_types"] = dict(text_types(doc) + quality_attributes(doc))
        return json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n"
