"""The compiled engines or their pure-Python twins, in one test process.

:mod:`corpustool.native.backend` chooses each engine once, at import, and the modules keep
what it chose in module attributes (``justext_engine.WALK``, ``justext_plus.compiled_decide``,
``identify._chunk_words`` ...). :func:`use` puts the Python twins in every one of those places
for one test (the monkeypatch undoes it at the test's end); the ``native_backend`` fixture of
tests/conftest.py runs a test once per backend with it. :data:`SWITCHED` names every such
attribute: tests/native/test_backend.py checks that the package binds no other.
"""
from __future__ import annotations

import pytest

from corpustool.native import backend

NAMES = ("compiled", "python")

# module -> its attributes bound at import from a compiled engine, and each one's Python twin
# (a name of the module, or None: the module's code falls back on its own Python path)
SWITCHED: dict[str, dict[str, str | None]] = {
    "corpustool.extractors.justext_engine": {"WALK": "python_walk()"},
    "corpustool.extractors.justext_plus": {"PageTree": None, "compiled_decide": None},
    "corpustool.extractors.justext_plus_structure": {"_schema_type_names": None},
    "corpustool.extractors.base": {"_utf8_bytes": None},
    "corpustool.extractors.justext_learned": {"_CompleteTrees": None, "_two_stages": None, "_COLUMNS": None,
                                              "_decide_classes": None},
    "corpustool.quality": {"word_measures": "_word_measures_python"},
    "corpustool.text_types": {"_find": "_find_python"},
    "corpustool.encoding": {"_first_control": None, "_has_control_bytes": "_has_control_bytes_py"},
    "corpustool.language.identify": {"_chunk_words": None, "_stop_occurrences": None, "_stop_word_scores": None,
                                     "_compiled_page_text": None},
    # built at import with the compiled scan when there is one (template_lines.KeywordGate)
    "corpustool.extractors.template_lines": {"GATE.mask": "GATE.mask_automaton"},
}


def compiled_reason() -> str | None:
    """Why the compiled backend cannot run here (None: it can)."""
    if not any(engine.compiled for engine in backend.ENGINES):
        return f"no compiled engine: {backend.walk.reason}"
    return None


def use(name: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the rest of the test on backend ``name`` ("compiled": as corpustool.native.backend chose,
    skipped when nothing is compiled; "python": every engine's Python twin)."""
    if name == "compiled":
        reason = compiled_reason()
        if reason:
            pytest.skip(reason)
        return name
    if name != "python":
        raise ValueError(f"no backend {name!r}: {NAMES}")
    import importlib

    python = {e.name: backend.Engine(e.name, None, "python (a test's choice)") for e in backend.ENGINES}
    for engine in python.values():
        monkeypatch.setattr(backend, engine.name, engine)   # (onion_vertical asks backend.onion at each run)
    monkeypatch.setattr(backend, "ENGINES", tuple(python.values()))
    for module_name, attributes in SWITCHED.items():
        module = importlib.import_module(module_name)
        for attribute, twin in attributes.items():
            owner, _, leaf = attribute.rpartition(".")
            target = getattr(module, owner) if owner else module
            if twin is None:
                value = None
            elif twin.endswith("()"):
                value = getattr(module, twin[:-2])()
            else:
                value = eval(twin, vars(module))   # noqa: S307 - a name of the module (SWITCHED above)
            monkeypatch.setattr(target, leaf, value)
    return name
