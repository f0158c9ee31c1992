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

from corpustool.native import backend

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "corpustool"

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
    assert [line.split(":")[0].strip() for line in lines[2:]] == ["walk", "sax", "decide", "text_scan", "trees", "onion"]
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
