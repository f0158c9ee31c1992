"""Every shell and Python example of README.md runs, on the demo data (issue 22).

The fenced blocks marked ``sh`` or ``python`` are taken from README.md as they
are; blocks without a language (the pipeline sketch, the output sample, the
layout) are not examples. The README's placeholder names are made real in a
temporary directory, mechanically, the same for every example, by
scripts/make/make_examples.py (``make examples``, which makes them for a user):

* ``crawl.warc.gz`` is the demo crawl (data/demo/crawl.warc.gz);
* ``pages/`` holds the demo crawl's HTML pages as files, ``page.html`` is one of
  them (an English article);
* ``sample.txt`` is the demo articles' English text;
* ``snippets:DIR`` and ``snippets:../shared/data/snippets`` are ``snippets:snippets``,
  a snippet gold set (the snippets format) made from the demo crawl and its article texts;
* ``CORPUSTOOL_STOPLISTS`` (the user stoplist directory) is a folder of the
  temporary directory, so ``stoplist build --name`` never writes into the home;
* a command that reads standard input gets the demo crawl's cleaned JSON Lines
  stream (``corpustool read crawl.warc.gz | corpustool clean``);
* ``pip install`` lines are not run (they install; the test runs installed),
  ``make TARGET`` of the repository is checked with ``make -n``.

The shell blocks run in README order, one logical line (``\\`` continuations
joined) at a time, with ``bash -e -o pipefail``, so a later example may use
what an earlier one wrote (``corpus.vert``, ``stats.json``). Each must exit 0
without a traceback, and every file it names after ``-o`` or ``>`` must exist
and not be empty. Spark/Java examples would skip without Java (there are none
in code blocks).
"""
from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO
README = REPO / "README.md"
BIN = Path(sys.executable).parent

# a few checks beyond "exits 0", for examples that used to fail quietly
EXPECT_NOT_IN_STDERR = {
    r"--sweep": ["must be <=", "skipp"],          # every setting of a sweep is run
}


def readme_blocks() -> list[tuple[str, str, int]]:
    """(language, code, line number) of every fenced block of README.md."""
    blocks, lang, start, buf = [], None, 0, []
    for no, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(r"^```\s*(\S*)\s*$", line)
        if m and lang is None:
            lang, start, buf = m.group(1), no, []
        elif line.startswith("```") and lang is not None:
            blocks.append((lang, "\n".join(buf), start))
            lang = None
        elif lang is not None:
            buf.append(line)
    return blocks


def logical_lines(code: str) -> list[str]:
    out, cur = [], ""
    for line in code.splitlines():
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        cur += line
        if cur.strip() and not cur.lstrip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def substitute(line: str) -> str:
    return (line.replace("snippets:../shared/data/snippets", "snippets:snippets")
                .replace("snippets:DIR", "snippets:snippets"))


def outputs_named(line: str) -> list[str]:
    """Files a command line says it writes: after ``-o`` or ``>`` (not ``-``, not ``2>``)."""
    code = line.split(" #", 1)[0]
    names = re.findall(r"(?:\s-o\s+|(?<![0-9])>\s*)([^\s|&;<>]+)", " " + code)
    return [n for n in names if n != "-" and not n.startswith("/dev/")]


# -- the demo inputs under the README's names ------------------------------------------------

def _make_examples():
    """scripts/make/make_examples.py (``make examples``), which makes the same files for a user."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_examples", REPO / "scripts" / "make" / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_snippet_gold_is_each_pages_own_article(tmp_path):
    """make examples' snippet gold: each page's 'with' snippets are its own article's paragraphs
    (a related-links box names other articles' titles: the first title found gave 14 of 32 pages
    another article's snippets)."""
    import json
    import unicodedata

    from corpustool.encoding import decode

    work = _make_examples().make_examples(tmp_path / "ex")
    gold = json.loads((work / "snippets" / "evaldata.json").read_text(encoding="utf-8"))
    assert len(gold) > 20
    from corpustool.extractors.base import parse_html

    def norm(t: str) -> str:
        return " ".join(unicodedata.normalize("NFC", t).split())

    for entry in gold.values():
        root = parse_html(decode((work / "snippets" / "pages" / entry["file"]).read_bytes()).text)
        text = norm("".join(root.itertext()))
        # (the demo pages' own quirks, a drop cap or a soft hyphen, may split a first line: most,
        # not all; another article's paragraphs are never on the page)
        found = sum(norm(s) in text for s in entry["with"])
        assert entry["with"] and found * 2 > len(entry["with"]), entry["file"]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    work = _make_examples().make_examples(tmp_path_factory.mktemp("readme"))
    (work / "user-stoplists").mkdir()
    # the quick start runs in the checkout: its data/ and the .venv that `make demo` made
    os.symlink(REPO / "data", work / "data")
    os.symlink(Path(sys.prefix), work / ".venv")
    cleaned = subprocess.run(f"corpustool read crawl.warc.gz | corpustool clean", shell=True, cwd=work,
                             env=_env(work), capture_output=True, timeout=600, executable="/bin/bash")
    assert cleaned.returncode == 0, cleaned.stderr
    (work / "stdin.jsonl").write_bytes(cleaned.stdout)
    return work


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(REPO)        # this checkout's code (also when .venv's editable install is another's)
    # stoplists the examples install (stoplist build --name) go here, never into the user's home
    env["CORPUSTOOL_STOPLISTS"] = str(work / "user-stoplists")
    return env


# -- the tests ----------------------------------------------------------------------------------

def test_readme_has_examples():
    langs = [lang for lang, _, _ in readme_blocks()]
    assert langs.count("sh") >= 4 and langs.count("python") >= 1


def shell_lines() -> list[tuple[int, str]]:
    return [(start, line) for lang, code, start in readme_blocks() if lang == "sh" for line in logical_lines(code)]


def test_readme_shell_examples_run(workdir):
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    ran = 0
    for start, line in shell_lines():
        if line.startswith("pip install"):
            continue
        m = re.match(r"make\s+(\w+)\b", line)
        if m:
            dry = subprocess.run(["make", "-n", "-C", str(REPO), m.group(1)], capture_output=True, text=True,
                                 timeout=120)
            assert dry.returncode == 0, f"README line {start}: make {m.group(1)}: {dry.stderr}"
            continue
        cmd = substitute(line)
        with open(workdir / "stdin.jsonl", "rb") as stdin:
            run = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], stdin=stdin, cwd=workdir,
                                 env=_env(workdir), capture_output=True, timeout=900)
        err = run.stderr.decode("utf-8", "replace")
        where = f"README block at line {start}: {line}\n{err[-2000:]}"
        assert run.returncode == 0, where
        assert "Traceback" not in err, where
        for pattern, bad in EXPECT_NOT_IN_STDERR.items():
            if re.search(pattern, line):
                assert not any(b in err for b in bad), where
        for name in outputs_named(cmd):
            path = workdir / name
            assert path.exists(), f"{where}\n{name} was not written"
            if path.is_file():
                assert path.stat().st_size > 0, f"{where}\n{name} is empty"
        ran += 1
    assert ran >= 20


def test_readme_python_examples_run(workdir):
    for lang, code, start in readme_blocks():
        if lang != "python":
            continue
        run = subprocess.run([sys.executable, "-c", code], cwd=workdir, env=_env(workdir), capture_output=True,
                             text=True, timeout=900)
        assert run.returncode == 0, f"README python block at line {start}:\n{run.stderr[-2000:]}"
        assert run.stdout.strip(), f"README python block at line {start} printed nothing"


def test_readme_documents_the_public_python_api():
    import corpustool

    text = README.read_text(encoding="utf-8")
    for name in corpustool.__all__:
        if name != "__version__":
            assert f"corpustool.{name}(" in text, f"corpustool.{name} is exported but not shown in README.md"


def test_readme_output_sample_is_what_the_tokenizer_writes():
    """The vertical sample's paragraphs, re-tokenized, give the sample's own token and <g/> lines."""
    from corpustool.text.tokenizer import tokenize

    sample = next(code for lang, code, _ in readme_blocks() if not lang and code.startswith("<doc "))
    checked = 0
    for body in re.findall(r"<p [^>]*>\n(.*?)</p>", sample, re.S):
        lines = [x for x in body.splitlines() if x != "..." and not x.startswith("<s") and x != "</s>"]
        text, expected = "", []
        for x in lines:
            if x == "<g/>":
                text = text.rstrip(" ")
                continue
            expected.append((x, bool(text) and not text.endswith(" ")))
            text += x + " "
        tokens, glue = tokenize(text)
        assert list(zip(tokens, glue)) == expected
        checked += 1
    assert checked >= 2
