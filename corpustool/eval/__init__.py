"""Evaluation of extractors against gold standards (``corpustool eval``).

:mod:`.gold` reads gold standards, :mod:`.align` aligns output and gold word
by word, :mod:`.metrics` turns counts into scores, averages and bootstrap
intervals, :mod:`.shingles`, :mod:`.snippets` and :mod:`.fragments` are the
other measures, :mod:`.runner` runs configurations side by side,
:mod:`.filter` selects pages and :mod:`.report` writes CSV, tables and HTML.
"""
from .gold import GoldPage, read_gold
from .metrics import Confusion
from .runner import Config, Evaluation, parse_config

__all__ = ["Config", "Confusion", "Evaluation", "GoldPage", "parse_config", "read_gold"]
