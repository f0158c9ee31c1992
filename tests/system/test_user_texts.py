"""Texts a user reads say what things are (issue 30, item 11).

No "seed 003" in ``--help``, in ``corpustool extractors`` or in the reports (a source is named as
"Pomikálek's thesis, Algorithm 2.2"); the inspect view names jusText's context-free class and the
features in words (no bare ``cf:``, ``jt_class``) and shows elements as CSS selectors (no dangling
``#``); the eval report explains its columns and rounds its numbers (three decimals for scores,
one for percentages).
"""
from __future__ import annotations

import argparse
import io
import re
from contextlib import redirect_stdout

import pytest
from lxml import html as lxml_html

from corpustool.cli import build_parser, main

from tests.support.paths import REPO
SEED = re.compile(r"\bseeds? \d{3}\b", re.IGNORECASE)


def _all_help(parser: argparse.ArgumentParser, path: str = "corpustool"):
    yield path, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _all_help(sub, f"{path} {name}")


def test_help_texts_name_their_sources_not_seed_numbers():
    texts = dict(_all_help(build_parser()))
    assert len(texts) > 20
    bad = {cmd: SEED.findall(text) for cmd, text in texts.items() if SEED.search(text)}
    assert not bad, bad
    # references say whose they are
    for cmd, text in texts.items():
        flat = " ".join(text.split())
        for m in re.finditer(r"\b(?:Algorithm|Sect\.|Ch\.|Table|Eq\.) \d", flat):
            context = flat[max(0, m.start() - 120):m.end() + 60]
            assert re.search(r"thesis|paper", context), (cmd, context)


def test_extractors_listing_names_its_sources():
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["extractors"]) == 0
    text = buf.getvalue()
    assert not SEED.search(text), SEED.findall(text)
    assert "Pomikálek's thesis" in text and "Alarte's thesis" in text


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_examples", REPO / "scripts" / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_examples(tmp_path_factory.mktemp("examples"))


def test_inspect_view_explains_classes_and_features(examples):
    from corpustool.inspect_view import element_label, inspect_page, render

    assert element_label("nav.main-menu#") == "nav.main-menu"
    assert element_label("div.box top#x1") == "div.box.top#x1"
    assert element_label("div.#only-id") == "div#only-id"
    assert element_label("main.#") == "main"
    # the demo article's menu is <nav class="main-menu"> (no id): shown as nav.main-menu
    out = render(inspect_page((examples / "page.html").read_bytes(), source="page.html", language="en"))
    dom = lxml_html.fromstring(out)
    visible = " ".join(dom.text_content().split())
    assert "main-menu#" not in out and "nav.main-menu" in visible
    assert "cf:" not in visible and "jt_class" not in visible and "link_density" not in visible
    assert "context-free" in visible and "Pomikálek's thesis, Algorithm 2.2" in visible
    assert "jusText's class" in visible and "link density" in visible
    assert not SEED.search(out)


def _eval(args):
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["eval", *args])
    return code, buf.getvalue()


def test_eval_report_has_a_legend_and_rounded_numbers(examples, tmp_path):
    code, text = _eval(["--gold", f"snippets:{examples / 'snippets'}", "--extractor", "justext",
                        "--limit", "6", "-q", "--bootstrap", "50", "--html", str(tmp_path / "rep"),
                        "--csv", str(tmp_path / "r.csv")])
    assert code == 0
    lines = text.splitlines()
    header = lines[1].split()
    row = lines[3].split()
    assert header[0] == "extractor" and row[0] == "justext"
    cols = re.split(r"\s{2,}", lines[1].strip())
    cells = re.split(r"\s{2,}", lines[3].strip())
    value = dict(zip(cols, cells))
    assert re.fullmatch(r"\d+\.\d", value["with%"]) and re.fullmatch(r"\d+\.\d", value["without%"])
    for col in ("snipP", "snipR", "snipF1", "macroF1"):
        assert re.fullmatch(r"[01]\.\d{3}", value[col]), (col, value[col])
    assert re.fullmatch(r"[01]\.\d{3}-[01]\.\d{3}", value["F1 95% CI"])
    assert "columns:" in text
    legend = text[text.index("columns:"):]
    for col in cols:
        assert re.search(rf"^\s+{re.escape(col)}\s{{2,}}\S", legend, re.M), col
    index = lxml_html.fromstring((tmp_path / "rep" / "index.html").read_text(encoding="utf-8"))
    assert [dt.text for dt in index.xpath("//dl[@id='legend']/dt")] == [c for c in cols if not c.endswith("/s")]
    cells = index.xpath("//table[@id='pages']//td[3]/text()")
    assert cells and all(re.match(r"F1 [01]\.\d{3}( \(with \d+\.\d%, without \d+\.\d%\))?", c) for c in cells), cells
    page = (tmp_path / "rep" / "pages" / "00001.html").read_text(encoding="utf-8")
    assert not re.search(r"<td>\d\.\d{4,}</td>", page)          # per-page scores: three decimals
    assert "<dl id=legend>" in page


def test_eval_help_documents_the_csv_columns():
    buf = io.StringIO()
    with redirect_stdout(buf), pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(buf.getvalue().split())
    for col in ("with_rate", "snippet_*", "fallout", "out_words", "drop_reason"):
        assert f"{col}:" in text, col
