"""The package's import rules, read from the source with ``ast`` (every import, at the top of a
module and inside functions; relative imports resolved):

- nothing outside ``corpustool/cli/`` imports the command line (the library is usable without it);
- ``OptionError`` (and the other error types) come from ``corpustool.errors``, a module without
  imports, not through a module that loads lxml;
- the modules' top-level imports form no circle (a circle makes the import order matter and
  hides which layer is below which).

The compiled modules (``corpustool/native/*.pyx``) are read with a regular expression and held
to the first two rules.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import PACKAGE
CLI = "corpustool.cli"
ERRORS = "corpustool.errors"
ERROR_TYPES = ("OptionError", "DataError")


@dataclass(frozen=True)
class Import:
    importer: str       # the importing module, e.g. corpustool.readers.reader
    module: str         # the module named after ``from`` (or by ``import``), resolved
    names: tuple[str, ...]
    line: int
    top_level: bool     # run when the importer is imported (not inside a function)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name of ``from <level dots><module> import ...`` in ``importer``."""
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]          # a module's relative imports start at its package
    if level > 1:
        base = base[:-(level - 1)]
    return ".".join(base + ([module] if module else []))


def _imports_in(tree: ast.AST, importer: str, is_package: bool) -> list[Import]:
    found: list[Import] = []

    def visit(node: ast.AST, top_level: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Import(importer, alias.name, (), child.lineno, top_level))
            elif isinstance(child, ast.ImportFrom):
                module = _resolve(importer, is_package, child.level, child.module)
                found.append(Import(importer, module, tuple(a.name for a in child.names), child.lineno,
                                    top_level))
            # a function's body runs when it is called; a class body runs at import like the module's
            inner = top_level and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, inner)

    visit(tree, True)
    return found


def python_imports() -> list[Import]:
    found = []
    for name, path in python_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found += _imports_in(tree, name, path.name == "__init__.py")
    return found


# ``from corpustool.x import a, b`` / ``from .x import (a, b)`` / ``import corpustool.x as y`` in Cython
_PYX_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+c?import[ \t]+(\([^)]*\)|[^\n#]*)", re.MULTILINE)
_PYX_IMPORT = re.compile(r"^[ \t]*import[ \t]+(corpustool[\w.]*)", re.MULTILINE)


def pyx_imports_in(text: str, importer: str) -> list[Import]:
    found = []
    for m in _PYX_FROM.finditer(text):
        dots = len(m.group(1)) - len(m.group(1).lstrip("."))
        module = _resolve(importer, False, dots, m.group(1)[dots:] or None)
        if not module.startswith("corpustool"):
            continue
        names = tuple(n.split(" as ")[0].strip() for n in m.group(2).strip("() \t").split(",") if n.strip())
        found.append(Import(importer, module, names, text.count("\n", 0, m.start()) + 1,
                            not m.group(0)[0].isspace()))
    for m in _PYX_IMPORT.finditer(text):
        found.append(Import(importer, m.group(1), (), text.count("\n", 0, m.start()) + 1,
                            not m.group(0)[0].isspace()))
    return found


def pyx_imports() -> list[Import]:
    found = []
    for path in sorted(p for ext in ("pyx", "pxi", "pxd") for p in (PACKAGE / "native").glob(f"*.{ext}")):
        found += pyx_imports_in(path.read_text(encoding="utf-8"), f"corpustool.native.{path.stem}")
    return found


def _in_cli(module: str) -> bool:
    return module == CLI or module.startswith(CLI + ".")


def _where(imp: Import) -> str:
    return f"{imp.importer} (line {imp.line}): {imp.module} {', '.join(imp.names)}".rstrip()


def _cli_breaches(imports: list[Import]) -> list[str]:
    modules = python_modules()
    breaches = []
    for imp in imports:
        if _in_cli(imp.importer) or imp.importer == "corpustool.__main__":   # `python -m corpustool` is the CLI
            continue
        targets = [imp.module] + [f"{imp.module}.{n}" for n in imp.names if f"{imp.module}.{n}" in modules]
        if any(_in_cli(t) for t in targets):
            breaches.append(_where(imp))
    return breaches


def _error_breaches(imports: list[Import]) -> list[str]:
    return [_where(imp) for imp in imports
            if imp.module.startswith("corpustool") and imp.module != ERRORS
            and any(n in ERROR_TYPES for n in imp.names)]


def top_level_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports at its top level.

    ``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to ``a.b``. The
    import of a module's parent packages, which Python does first, is not an edge: a package's
    ``__init__`` that imports its own modules is no circle.
    """
    modules = python_modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for imp in python_imports():
        if not imp.top_level:
            continue
        targets = [f"{imp.module}.{n}" for n in imp.names if f"{imp.module}.{n}" in modules]
        if not targets or len(targets) < len(imp.names):
            targets.append(imp.module)
        graph[imp.importer].update(t for t in targets if t in modules and t != imp.importer)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` as [a, b, ..., a], or None (depth-first search, in sorted order)."""
    state: dict[str, int] = {}          # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


# -- the rules -------------------------------------------------------------------------------

def test_the_library_does_not_import_the_command_line():
    breaches = _cli_breaches(python_imports())
    assert not breaches, "modules outside corpustool/cli/ import it:\n" + "\n".join(breaches)


def test_error_types_come_from_the_errors_module():
    breaches = _error_breaches(python_imports())
    assert not breaches, f"import {' / '.join(ERROR_TYPES)} from {ERRORS}:\n" + "\n".join(breaches)


def test_top_level_imports_form_no_circle():
    cycle = find_cycle(top_level_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_compiled_modules_keep_the_cli_and_error_rules():
    imports = pyx_imports()
    assert imports, "no import of the package found in corpustool/native/*.pyx: the scan is broken"
    assert not _cli_breaches(imports) and not _error_breaches(imports), \
        "\n".join(_cli_breaches(imports) + _error_breaches(imports))


# -- the checks check ------------------------------------------------------------------------

def _parsed(source: str, importer: str = "corpustool.readers.warc", is_package: bool = False) -> list[Import]:
    return _imports_in(ast.parse(source), importer, is_package)


def test_relative_imports_resolve_to_absolute_names():
    imps = _parsed("from . import http\nfrom ..errors import OptionError\nfrom .reader import Reader\n")
    assert [(i.module, i.names) for i in imps] == [("corpustool.readers", ("http",)),
                                                    ("corpustool.errors", ("OptionError",)),
                                                    ("corpustool.readers.reader", ("Reader",))]
    (pkg,) = _parsed("from .reader import Reader\n", "corpustool.readers", is_package=True)
    assert pkg.module == "corpustool.readers.reader"


def test_imports_inside_functions_are_seen_but_are_not_top_level():
    imps = _parsed("import os\n"
                   "class A:\n    from ..errors import OptionError\n"
                   "def f():\n    from ..cli import main\n    return main\n")
    assert [(i.module, i.top_level) for i in imps] == [("os", True), ("corpustool.errors", True),
                                                        ("corpustool.cli", False)]
    assert _cli_breaches(imps) == ["corpustool.readers.warc (line 5): corpustool.cli main"]


def test_an_error_type_through_another_module_is_a_breach():
    imps = _parsed("from ..extractors.base import OptionError, Page\nfrom ..errors import DataError\n")
    assert _error_breaches(imps) == ["corpustool.readers.warc (line 1): corpustool.extractors.base OptionError, Page"]


def test_a_circle_is_found_and_named():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_pyx_imports_are_read():
    found = {(i.importer, i.module) for i in pyx_imports()}
    assert ("corpustool.native.justext_plus_decide", "corpustool.document") in found
    imps = pyx_imports_in("from libc.string cimport memset\n"
                          "import corpustool.cli.common as common\n"
                          "from ..extractors.base import (Page,\n    OptionError)\n"
                          "def f():\n    from corpustool.errors import OptionError\n",
                          "corpustool.native.x")
    assert [(i.module, i.names, i.line, i.top_level) for i in imps] == [
        ("corpustool.extractors.base", ("Page", "OptionError"), 3, True),
        ("corpustool.errors", ("OptionError",), 6, False),
        ("corpustool.cli.common", (), 2, True)]
    assert _cli_breaches(imps) == ["corpustool.native.x (line 2): corpustool.cli.common"]
    assert _error_breaches(imps) == ["corpustool.native.x (line 3): corpustool.extractors.base Page, OptionError"]


@pytest.mark.parametrize("rule", [_cli_breaches, _error_breaches])
def test_cli_modules_may_import_each_other(rule):
    imps = _imports_in(ast.parse("from .common import split_langs\nfrom ..errors import OptionError\n"),
                       "corpustool.cli.build", False)
    assert rule(imps) == []


def test_every_command_module_is_in_the_command_table():
    """cli/ lists its command modules (COMMAND_MODULES) instead of importing whatever it finds."""
    import pkgutil

    import corpustool.cli as cli

    with_register = []
    for info in pkgutil.iter_modules(cli.__path__):
        text = (Path(cli.__file__).parent / f"{info.name}.py").read_text(encoding="utf-8")
        if "\ndef register(" in text:
            with_register.append(info.name)
    assert sorted(with_register) == sorted(cli.COMMAND_MODULES)
