"""Which backend runs each compiled engine: chosen once, at import, here and nowhere else.

Every engine corpustool compiles has a pure-Python twin with the same results. This module
imports each extension once and says, per engine, whether the compiled code runs and why
not when it does not; the modules that use an engine ask it here (``backend.walk.module``)
instead of guarding imports of their own. ``CORPUSTOOL_BACKEND=python`` in the environment
forces the pure-Python code everywhere (the tests run the suite both ways);
``corpustool --version`` prints :func:`describe`.

Engines: ``walk`` (``justext_walk.pyx`` with ``sax_arena.pxi``: the jusText walk and the SAX
parse), ``decide`` (``justext_plus_decide.pyx``), ``text_scan`` (``text_scan.pyx``), ``trees``
(``tree_scores.pyx``: justext-learned's trees), ``features`` (``learned_features.pyx``: its feature
matrix) and ``onion`` (``_onion.c``).
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from types import ModuleType

ENV = "CORPUSTOOL_BACKEND"
CHOICES = ("auto", "compiled", "python")


def _forced() -> str:
    value = os.environ.get(ENV, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise ValueError(f"{ENV} must be one of {', '.join(CHOICES)}, not {value!r}")
    return value


FORCED = _forced()


@dataclass(frozen=True)
class Engine:
    """One compiled engine: its extension module when it runs (None: the Python code runs) and why."""

    name: str
    module: ModuleType | None
    reason: str

    @property
    def compiled(self) -> bool:
        return self.module is not None

    def get(self, attribute: str) -> object | None:
        """The compiled ``attribute`` when the compiled engine runs, else None."""
        return getattr(self.module, attribute, None) if self.module is not None else None


def _load(name: str, extension: str) -> Engine:
    if FORCED == "python":
        return Engine(name, None, f"python (forced by {ENV}=python)")
    try:
        module = importlib.import_module(f"corpustool.native.{extension}")
    except Exception as exc:   # noqa: BLE001 - ImportError, or ValueError/TypeError of a binary mismatch
        if FORCED == "compiled":
            raise ImportError(f"{ENV}=compiled but corpustool.native.{extension} does not load: "
                              f"{type(exc).__name__}: {exc}") from exc
        return Engine(name, None, f"python (the extension failed to import: {type(exc).__name__}: {exc})")
    return Engine(name, module, "compiled")


walk = _load("walk", "justext_walk")
# the SAX parse into the walk's tree (sax_arena.pxi, inside justext_walk): off when lxml's
# libxml2 is another version than the extension's headers or does not export its functions
if walk.module is not None and not getattr(walk.module, "SAX_AVAILABLE", False):
    sax = Engine("sax", None, f"python (lxml's tree: {getattr(walk.module, 'SAX_ERROR', 'no SAX parse in this build')})")
else:
    sax = Engine("sax", walk.module, walk.reason)
text_scan = _load("text_scan", "text_scan")
trees = _load("trees", "tree_scores")
features = _load("features", "learned_features")
onion = _load("onion", "_onion")
# (last: it imports the leaf justext_plus_rules, whose template_lines asks for text_scan above)
decide = _load("decide", "justext_plus_decide") if walk.compiled else Engine("decide", None, walk.reason)

ENGINES = (walk, sax, decide, text_scan, trees, features, onion)


def describe() -> str:
    """One line per engine: its name and the backend that runs it (and why)."""
    return "\n".join(f"  {e.name}: {e.reason}" for e in ENGINES)
