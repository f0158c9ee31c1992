"""Every extractor by name: the table ``--extractor`` and :func:`get_extractor` choose from.

Page-level methods are in :mod:`corpustool.extractors`, site-level ones (whose
``stream_stage`` decides in stream order after the page-level pass) in
:mod:`corpustool.sitelevel`; a new extractor is a module and a line here. The
names are the classes' own (:func:`corpustool.extractors.base.register`).
"""
from __future__ import annotations

from typing import Any

from ..errors import OptionError
from ..sitelevel.archive import ArchiveExtractor
from ..sitelevel.temex import HybexExtractor, SiteConexExtractor, TemexExtractor
from ..sitelevel.urltree import UrlTreeExtractor
from .base import Extractor
from .boilerpipe import BoilerpipeExtractor
from .bte import BteExtractor
from .conex import ConexExtractor
from .justext_engine import JustextEngineExtractor
from .justext_learned import JustextLearnedExtractor
from .justext_package import JustextPackageExtractor
from .justext_plus import JustextPlusExtractor
from .menex import MenexExtractor
from .tcsw import TokenCountStopwordFilter

EXTRACTORS: dict[str, type[Extractor]] = {cls.name: cls for cls in (
    # page level
    JustextEngineExtractor, JustextPlusExtractor, JustextLearnedExtractor, JustextPackageExtractor,
    BoilerpipeExtractor, BteExtractor, ConexExtractor, MenexExtractor, TokenCountStopwordFilter,
    # site level
    ArchiveExtractor, TemexExtractor, SiteConexExtractor, HybexExtractor, UrlTreeExtractor,
)}


def available() -> list[str]:
    return sorted(EXTRACTORS)


def get_extractor(name: str, **options: Any) -> Extractor:
    try:
        cls = EXTRACTORS[name]
    except KeyError:
        raise OptionError(f"unknown extractor {name!r}; choose from: {', '.join(available())}") from None
    return cls(**options)
