"""End to end: `corpustool build` on the shipped demo crawl (what `make demo` runs)."""
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO
CRAWL = REPO / "data" / "demo" / "crawl.warc.gz"
TEMPLATE_STRINGS = [
    "We use cookies to remember your settings", "All rights reserved.", "Related articles",
    "Diese Website verwendet Cookies", "Bergblick Zeitung GmbH", "Weitere Artikel",
    "Tento web používá soubory cookie", "Všechna práva vyhrazena", "Související články",
    "This blog uses cookies", "Recipes and stories by Anna and Tom", "You might also like",
]


def _demo_pages():
    spec = importlib.util.spec_from_file_location("make_demo_crawl", REPO / "scripts" / "make_demo_crawl.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_demo_crawl"] = mod
    spec.loader.exec_module(mod)
    return mod.build_pages()


def _build(tmp: Path, *extra: str, name: str = "corpus.vert"):
    out = tmp / name
    cmd = [sys.executable, "-m", "corpustool", "build", str(CRAWL), "-o", str(out), "--lang", "en,de,cs",
           "--stats", str(tmp / "stats.json"), "--rejects", str(tmp / "rejects.jsonl"), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    return out, r


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("demo")
    out, r = _build(tmp)
    rejects = [json.loads(l) for l in (tmp / "rejects.jsonl").read_text().splitlines()]
    stats = json.loads((tmp / "stats.json").read_text())
    return out.read_text(encoding="utf-8"), rejects, stats, r.stderr, tmp


def _docs(vert: str) -> dict[str, str]:
    """url -> the document's tokens joined by spaces (glue removed)."""
    docs = {}
    for m in re.finditer(r'<doc [^>]*url="([^"]*)"[^>]*>\n(.*?)</doc>', vert, re.S):
        lines = [l for l in m.group(2).splitlines() if not l.startswith("<")]
        docs[m.group(1)] = " ".join(lines)
    return docs


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def test_articles_are_kept_whole_and_templates_are_gone(demo):
    vert, _, _, _, _ = demo
    docs = _docs(vert)
    kept = [p for p in _demo_pages() if p.expect == "keep"]
    assert len(kept) >= 28
    for page in kept:
        assert page.url in docs, f"article missing: {page.url}"
        body = _words(docs[page.url])
        for para in page.article.paragraphs:
            assert _words(para) in body, f"{page.url}: paragraph lost: {para[:60]}"
    flat = _words(vert)
    for s in TEMPLATE_STRINGS:
        assert _words(s) not in flat, f"template text in corpus: {s}"


def test_duplicates_unwanted_language_empty_and_binary_are_dropped_with_reasons(demo):
    vert, rejects, stats, _, _ = demo
    docs = _docs(vert)
    by_url = {r["url"]: r for r in rejects}
    for page in _demo_pages():
        if page.expect == "keep":
            continue
        if page.expect == "skip":       # not HTML: skipped and counted by the reader
            assert page.url not in docs
            continue
        assert page.url not in docs, f"should be dropped: {page.url} ({page.expect})"
        assert page.url in by_url, f"dropped without a record: {page.url}"
    reasons = {r["reason"] for r in rejects}
    assert {"empty", "binary", "exact-duplicate", "near-duplicate"} <= reasons
    read = stats["stages"][0]
    assert read["stage"] == "read" and read["extra"]["skipped:request"] > 0
    # every document read is either written or dropped with a counted reason
    total_drops = sum(sum(s["drops"].values()) for s in stats["stages"])
    assert read["docs_out"] == vert.count("<doc ") + total_drops == len(rejects) + vert.count("<doc ")


def test_vertical_structure_is_balanced_and_escaped(demo):
    """The default target is Manatee's: values escape only `"` and `\\`, no XML entities."""
    vert, _, _, _, _ = demo
    depth = {"doc": 0, "p": 0, "s": 0}
    for line in vert.splitlines():
        m = re.fullmatch(r"<(/?)(doc|p|s)( [^>]*)?>", line)
        if m:
            tag = m.group(2)
            depth[tag] += -1 if m.group(1) else 1
            assert all(v in (0, 1) for v in depth.values())
            if tag == "p" and not m.group(1):
                assert depth["doc"] == 1 and depth["s"] == 0
            if tag == "s" and not m.group(1):
                assert depth["p"] == 1
            if m.group(3):
                values = re.findall(r'="((?:[^"\\]|\\.)*)"', m.group(3))
                assert re.fullmatch(r'( \w+="(?:[^"\\]|\\.)*")+', m.group(3)), line
                assert not any("&amp;" in v or "&quot;" in v for v in values)
            continue
        assert line == "<g/>" or (" " not in line and line.strip() == line and line), line
        assert "&amp;" not in line
    assert depth == {"doc": 0, "p": 0, "s": 0}
    assert re.search(r'<doc id="[^"]+" url="[^"]+" title="[^"]+" lang="(en|de|cs)"', vert)
    assert 'title="Slow-cooked bean stew for cold evenings – Open Kitchen & Travel"' in vert
    assert 'encoding="cp1250"' in vert or 'encoding="windows-1250"' in vert


def test_statistics_table_and_json(demo):
    _, _, stats, stderr, _ = demo
    names = [s["stage"] for s in stats["stages"]]
    assert names[:2] == ["read", "clean"] and "dedup-exact" in names
    assert stats["corpus_sizes"][0]["step"] == "original corpus size"
    assert all(row["words"] >= 0 for row in stats["corpus_sizes"])
    assert "clean" in stderr and "exact-duplicate=1" in stderr


def test_output_is_identical_for_any_number_of_workers(demo, tmp_path):
    vert, _, _, _, _ = demo
    out, _ = _build(tmp_path, "--workers", "2", "--quiet", name="w2.vert")
    assert out.read_text(encoding="utf-8") == vert


def test_shell_pipeline_of_stage_commands(tmp_path):
    py = sys.executable
    cmd = (f"{py} -m corpustool read {CRAWL} -q | {py} -m corpustool clean --lang en,de,cs -q "
           f"| {py} -m corpustool dedup-exact -q | {py} -m corpustool vert")
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("<doc ") >= 29 and r.stdout.count("<doc ") == r.stdout.count("</doc>")
    assert "We use cookies" not in r.stdout
