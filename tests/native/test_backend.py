"""The seam to the compiled code: one backend per engine, chosen once (corpustool/native/backend.py).

``CORPUSTOOL_BACKEND=python`` forces the pure-Python code everywhere and gives the same
paragraphs; ``corpustool --version`` says which backend runs each engine and why; the
compiled decide() depends only on leaf modules.
"""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from corpustool.extractors.registry import get_extractor
from corpustool.native import backend
from tests.support.paths import PACKAGE, REPO

# one page through the default extractor and the classic engine: classes, reasons, texts
EXTRACT = r"""
import json, sys
from corpustool.extractors.base import Page
from corpustool.extractors.registry import get_extractor
from corpustool.language.stoplists import stoplist
from corpustool.native import backend
html = sys.stdin.read()
out = {"walk": backend.walk.compiled, "decide": backend.decide.compiled, "text_scan": backend.text_scan.compiled,
       "onion": backend.onion.compiled}
for name in ("justext-plus", "justext"):
    for parsed in (False, True):
        page = Page(html, stoplist=stoplist("en"))
        if parsed:
            page.tree
        out[f"{name} parsed={parsed}"] = [[p.cls, p.reason, p.text, p.xpath] for p in get_extractor(name).extract(page)]
print(json.dumps(out))
"""

ARTICLE = "".join(f"<p>Paragraph {i} of the article is here, and it has many of the words that are in the "
                  f"stoplist of the English language, so that the classic jusText would keep it as a part of the "
                  f"text of this page when it is long enough, which it is because of these words ({i}).</p>"
                  for i in range(4))
PAGE = ("<html><head><title>The title of the page</title></head><body>"
        "<nav><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul></nav>"
        "<article><h1>The title of the page</h1>" + ARTICLE +
        "<ruby>漢<rt>かん</rt></ruby></article><footer>Copyright 2026 <a href='/imprint'>Imprint</a></footer>"
        "</body></html>")


def run(code: str, env_value: str | None, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop(backend.ENV, None)
    if env_value is not None:
        env[backend.ENV] = env_value
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, env=env,
                          timeout=120)


def test_forced_python_backend_gives_the_same_paragraphs():
    forced = run(EXTRACT, "python", PAGE)
    assert forced.returncode == 0, forced.stderr
    python = json.loads(forced.stdout)
    assert not any(python[k] for k in ("walk", "decide", "text_scan", "onion"))
    chosen = json.loads(run(EXTRACT, None, PAGE).stdout)
    for key in python:
        if " parsed=" in key:
            assert python[key] == chosen[key], key
            assert any(cls == "good" for cls, *_ in python[key]) and any(cls == "bad" for cls, *_ in python[key])


def test_version_names_each_engine_and_its_backend():
    code = "import sys; sys.argv = ['corpustool', '--version']; from corpustool.cli import main; main()"
    forced = run(code, "python")
    assert forced.returncode == 0, forced.stderr
    lines = forced.stdout.splitlines()
    assert re.fullmatch(r"corpustool \S+", lines[0])
    assert lines[1] == "backends (CORPUSTOOL_BACKEND=python):"
    assert [line.split(":")[0].strip() for line in lines[2:]] == ["walk", "sax", "decide", "text_scan", "trees", "features",
                                                             "onion"]
    assert all(line.endswith("python (forced by CORPUSTOOL_BACKEND=python)") for line in lines[2:])
    chosen = run(code, None).stdout.splitlines()
    assert chosen[1] == "backends (CORPUSTOOL_BACKEND=auto):"
    for line, engine in zip(chosen[2:], backend.ENGINES):
        name, reason = line.strip().split(": ", 1)
        assert name == engine.name and (reason == "compiled" or reason.startswith("python ("))
        if backend.FORCED == "auto":
            assert reason == engine.reason


def test_an_unknown_backend_is_refused_with_the_choices():
    done = run("import corpustool.native.backend", "fortran")
    assert done.returncode != 0
    assert "CORPUSTOOL_BACKEND must be one of auto, compiled, python, not 'fortran'" in done.stderr


def test_a_missing_extension_falls_back_with_its_reason(tmp_path):
    # a copy of the package without the compiled files: every engine says why it runs Python
    code = ("import shutil, sys; src, dst = sys.argv[1], sys.argv[2]; "
            "shutil.copytree(src, dst, ignore=shutil.ignore_patterns('*.so', '*.pyd', '__pycache__'))")
    subprocess.run([sys.executable, "-c", code, str(PACKAGE), str(tmp_path / "corpustool")], check=True)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop(backend.ENV, None)
    done = subprocess.run([sys.executable, "-c", "from corpustool.native import backend; print(backend.describe())"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for line in done.stdout.splitlines():
        assert "python (the extension failed to import: ModuleNotFoundError" in line or "sax: python" in line \
            or "decide: python" in line, line
    env[backend.ENV] = "compiled"
    refused = subprocess.run([sys.executable, "-c", "import corpustool.native.backend"], capture_output=True,
                             text=True, env=env, timeout=120, cwd=tmp_path)
    assert refused.returncode != 0 and "CORPUSTOOL_BACKEND=compiled but" in refused.stderr


def _corpustool_imports(path: Path) -> set[str]:
    """The corpustool modules a module imports at its top level (relative imports resolved)."""
    package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                found.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module and node.module.startswith("corpustool"):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("corpustool"))
    return found


def test_the_compiled_decide_depends_only_on_leaf_modules():
    pyx = (PACKAGE / "native" / "justext_plus_decide.pyx").read_text(encoding="utf-8")
    imported = set(re.findall(r"^(?:import|from) (corpustool[\w.]*)", pyx, re.M))
    assert imported == {"corpustool.extractors.justext_plus_rules", "corpustool.document"}
    # and those import nothing that imports the extractors or the compiled code back
    seen, todo = set(), list(imported)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = REPO / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = REPO / module.replace(".", "/") / "__init__.py"
        todo.extend(_corpustool_imports(path))
    assert not {m for m in seen if m.startswith(("corpustool.native", "corpustool.extractors.justext_plus."))
                or m in ("corpustool.extractors.justext_plus", "corpustool.extractors.base",
                         "corpustool.extractors.justext_engine")}, seen


def test_the_python_decide_is_the_compiled_decides_twin():
    # the reference decide() in its own module, with the compiled one's parameters and leaves:
    # the two read alike, and neither depends on the extractor that calls them
    import inspect
    from corpustool.extractors import justext_plus_decide
    py = PACKAGE / "extractors" / "justext_plus_decide.py"
    assert _corpustool_imports(py) == {"corpustool.extractors.justext_plus_rules", "corpustool.document"}
    stub = (PACKAGE / "native" / "justext_plus_decide.pyi").read_text(encoding="utf-8")
    compiled = re.search(r"^def decide\(([^)]*)\)", stub, re.M | re.S).group(1)
    names = [part.split(":")[0].strip() for part in compiled.split(",") if ":" in part]
    assert list(inspect.signature(justext_plus_decide.decide).parameters) == names


def test_every_native_module_has_a_stub():
    native = PACKAGE / "native"
    modules = {p.stem for p in native.glob("*.pyx")} | {"_onion"}
    assert {p.stem for p in native.glob("*.pyi")} == modules
    if backend.walk.compiled:
        # the stub names what the module defines (no stale entry)
        for name in ("justext_walk", "justext_plus_decide", "text_scan"):
            module = getattr(backend, {"justext_walk": "walk", "justext_plus_decide": "decide"}.get(name, name)).module
            if module is None:
                continue
            stub = ast.parse((native / f"{name}.pyi").read_text(encoding="utf-8"))
            names = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            assert names and all(hasattr(module, n) for n in names), (name, names - set(dir(module)))


# -- the modules use the engines the backend chose ----------------------------------------------

def test_the_walk_is_the_chosen_one():
    from corpustool.extractors import justext_engine

    walk = justext_engine.WALK
    assert walk.compiled == justext_engine.WALK.compiled == backend.walk.compiled
    assert type(walk) is (justext_engine.CompiledWalk if backend.walk.compiled else justext_engine.PythonWalk)
    if walk.compiled:
        assert justext_engine.segment is justext_engine.segment_compiled


def test_the_scans_and_the_page_text_are_the_chosen_ones():
    # (the comparisons of test_backend_parity.py would compare Python with itself if an import
    # failed silently)
    from corpustool.language import identify as ident

    scan = backend.text_scan.module
    assert ident._chunk_words is (scan and scan.chunk_words)
    assert ident._stop_occurrences is (scan and scan.stop_occurrences)
    assert ident._stop_word_scores is (scan and scan.stop_word_scores)
    # the page text is the compiled walk's where that one is built
    assert (ident._compiled_page_text is not None) == backend.walk.compiled


def test_the_compiled_decide_is_the_one_extract_takes(monkeypatch):
    # built next to the compiled walk by the same setup.py: a stale or failed build must show here
    from corpustool.extractors import justext_plus as jp
    from corpustool.extractors.base import Page
    from corpustool.language.stoplists import stoplist
    from tests.support.pages import HAND_MADE

    if backend.FORCED == "python" or not backend.walk.compiled:
        pytest.skip(f"no compiled walk: {backend.walk.reason}")
    assert jp.compiled_decide is not None, (f"corpustool.native.justext_plus_decide did not load "
                                            f"({jp.COMPILED_DECIDE_ERROR}); rebuild: python setup.py build_ext --inplace")
    calls, python_calls = [], []
    real, original = jp.compiled_decide, jp.JustextPlusExtractor.decide
    monkeypatch.setattr(jp, "compiled_decide", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(jp.JustextPlusExtractor, "decide",
                        lambda self, *a, **k: python_calls.append(1) or original(self, *a, **k))
    paras = get_extractor("justext-plus").extract(Page(HAND_MADE["nested hints"], stoplist=stoplist("en")))
    assert paras and calls == [1] and not python_calls
    # extract_py (the XPath evidence) keeps the Python decide()
    get_extractor("justext-plus").extract_py(Page(HAND_MADE["nested hints"], stoplist=stoplist("en")))
    assert python_calls and len(calls) == 1


@pytest.mark.parametrize("extractor", ["justext-plus", "justext"])
def test_the_python_walk_never_takes_the_sax_parse(extractor, monkeypatch):
    """The Python walk (and the compiled walk without its parse) walk lxml's tree of the page."""
    from corpustool.extractors import justext_engine
    from corpustool.extractors.base import Page
    from corpustool.language.stoplists import stoplist
    from tests.support.pages import S

    if not justext_engine.WALK.has_parse:
        pytest.skip(f"no SAX parse to take: {justext_engine.backend.sax.reason}")
    ex = get_extractor(extractor)
    for walk in (justext_engine.python_walk(), justext_engine.walk_without_parse()):
        with monkeypatch.context() as m:
            m.setattr(justext_engine, "WALK", walk)
            stats = justext_engine.sax_stats()
            page = Page("<p>" + S + "</p>", stoplist=stoplist("en"))
            assert [p.text for p in ex.extract(page)] == [S]
            assert justext_engine.sax_stats() == stats and page._tree_done
            assert ex.parse_unparsed(Page("<p>" + S + "</p>")) is None


def test_without_the_walk_extension_the_engine_runs_python():
    """With the compiled module unimportable the engine selects the Python walk and gives the same paragraphs."""
    from tests.extractors.test_justext_engine import PAGES, run

    code = (
        "import sys, json\n"
        "sys.modules['corpustool.native.justext_walk'] = None\n"   # import fails as if not built
        "from corpustool.extractors import justext_engine\n"
        "from corpustool.extractors.base import Page\n"
        "from corpustool.extractors.registry import get_extractor\n"
        "from corpustool.language.stoplists import stoplist\n"
        "html = sys.stdin.read()\n"
        "ps = get_extractor('justext').extract(Page(html, stoplist=stoplist('en')))\n"
        "print(json.dumps([justext_engine.WALK.compiled, [[p.text, p.cls, p.cf_class, p.xpath, p.features] for p in ps]]))\n"
    )
    html = PAGES["article"] + PAGES["links"]
    done = run_code(code, html)
    compiled, rows = json.loads(done.stdout)
    assert compiled is False
    here = [[p.text, p.cls, p.cf_class, p.xpath, p.features] for p in run(html)]
    assert rows == json.loads(json.dumps(here)) and rows


def run_code(code: str, stdin: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=120)
    assert done.returncode == 0, done.stderr
    return done


# -- the tests' switch (tests/support/backends.py) ----------------------------------------------

def _bound_from_backend() -> dict[str, set[str]]:
    """Module -> its top-level names bound from a backend engine (``x = backend.text_scan.get(...)``)
    and read inside its functions (what a test must switch to run the Python twin)."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "backend.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = set()
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                    and "backend." in ast.unparse(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                bound |= {t.id for t in targets if isinstance(t, ast.Name)}
        read = {n.id for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if bound & read:
            found[".".join(path.relative_to(REPO).with_suffix("").parts)] = bound & read
    return found


def test_the_tests_switch_every_engine_the_package_binds():
    from tests.support.backends import SWITCHED

    # (DECLINED: only compared with what the compiled decide answers, never called)
    for module, names in _bound_from_backend().items():
        switched = {name.partition(".")[0] for name in SWITCHED.get(module, {})}
        assert names - switched <= {"DECLINED"}, (module, names - switched)


def test_the_python_backend_of_the_tests_runs_every_twin(monkeypatch):
    from corpustool import encoding
    from corpustool.dedup import onion_vertical
    from corpustool.extractors import base, justext_engine, template_lines
    from corpustool.extractors import justext_plus as jp
    from corpustool.language import identify as ident
    from tests.support import backends

    backends.use("python", monkeypatch)
    assert not justext_engine.WALK.compiled and not onion_vertical.compiled()
    assert jp.compiled_decide is None and ident._chunk_words is None and ident._compiled_page_text is None
    assert base._utf8_bytes is None and encoding._has_control_bytes is encoding._has_control_bytes_py
    assert template_lines.GATE.mask("share this article") == template_lines.GATE.mask_automaton("share this article")
    assert all(not e.compiled for e in backend.ENGINES)
