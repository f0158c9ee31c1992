"""JSON Lines: one document per line, the same schema as the stage stream."""
from __future__ import annotations

import json

from ..document import Document
from .base import Writer


class JsonlWriter(Writer):
    def __init__(self, path: str = "-", detail: bool = False, append: bool = False) -> None:
        super().__init__(path, append)
        self.detail = detail

    def format(self, doc: Document) -> str:
        return json.dumps(doc.to_dict(detail=self.detail, with_raw=False), ensure_ascii=False,
                          separators=(",", ":")) + "\n"
