"""Every extractor by name: the table ``--extractor`` and :func:`get_extractor` choose from.

Page-level methods are in :mod:`corpustool.extractors`, site-level ones (whose
``stream_stage`` decides in stream order after the page-level pass) in
:mod:`corpustool.sitelevel`; a new extractor is a module and a line here. The
names are the classes' own (:func:`corpustool.extractors.base.register`).
"""
from __future__ import annotations

from typing import Any

from ..errors import OptionError, UnknownOptions
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
    try:
        return cls(**options)
    except UnknownOptions as exc:
        # (jusText's parameters refused them: say which extractor, and what it takes besides)
        known = [*own_options(cls), "preset", *exc.known]
        error = OptionError(f"{name}: unknown option(s): {', '.join(exc.unknown)}; "
                            f"known: {', '.join(dict.fromkeys(known))}")
        error.names_as_written = True     # (--option NAME=VALUE's names: the CLI writes no flags for them)
        raise error from None


def own_options(cls: type) -> list[str]:
    """The keyword parameters of an extractor class's constructors (its own and its bases'), in
    the order they are written, without the ``**options`` passed on to jusText's engine."""
    import inspect

    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        for param in inspect.signature(init).parameters.values():
            if param.name != "self" and param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY) \
                    and param.name not in names:
                names.append(param.name)
    return names
