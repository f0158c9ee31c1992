"""Memory per document is bounded (issue 19): a big page's peak RSS, measured in a child process."""
import importlib.util
from pathlib import Path

from corpustool.language.sample import LANGUAGE_SAMPLE_CHARS, language_sample
from tests.support.paths import REPO, SCRIPTS

_spec = importlib.util.spec_from_file_location(
    "bench_big_page", SCRIPTS / "bench_big_page.py")
bench_big_page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_big_page)

MB = 1_000_000


def test_a_10_mb_page_is_cleaned_and_built_in_bounded_memory():
    clean = bench_big_page.in_child(10, "clean")
    assert "error" not in clean, clean
    assert clean["size"] >= 10 * MB and clean["words"] > 1_500_000      # the page was cleaned, not dropped
    # measured 14-20x the page (145 MB); 25x before the language guess read a bounded sample
    assert clean["peak_bytes"] < 20 * clean["size"], clean
    build = bench_big_page.in_child(10, "build")
    assert "error" not in build, build
    assert build["words"] == clean["words"]
    # every stage of `corpustool build --lang auto`: measured 47-56x the page (about 0.5 GB)
    assert build["peak_bytes"] < 1500 * MB, build


def test_the_language_sample_is_the_text_up_to_the_limit_cut_at_a_space():
    assert language_sample("short text") == "short text"
    text = "word " * (LANGUAGE_SAMPLE_CHARS // 5 + 1000)
    sample = language_sample(text)
    assert len(sample) <= LANGUAGE_SAMPLE_CHARS and text.startswith(sample) and sample.endswith("word")
    assert language_sample("x" * 30, limit=10) == "x" * 10      # no space at all: cut at the limit


# -- many tiny paragraphs (issue 29, item 7) ------------------------------------------------------

import json
import subprocess
import sys

from corpustool.extractors.clean import DEFAULT_MAX_PARAGRAPHS, count_blocks



def _measure_in_fresh_process(size_mb: float, what: str, paragraphs: int) -> dict:
    """bench_big_page.measure in a new interpreter (a forked child would inherit the test
    process's high-water mark of RSS, ru_maxrss, and hide its own growth under it)."""
    code = ("import json, sys; sys.path.insert(0, 'scripts'); import bench_big_page as b; "
            f"print(json.dumps(b.measure({size_mb!r}, {what!r}, {paragraphs!r})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_page_of_many_tiny_paragraphs_stays_in_bounded_memory():
    # 200,000 <p> of 5 bytes: about 1.1 KB per paragraph (200x the page) before --max-paragraphs;
    # now dropped as too-many-paragraphs before it is parsed: the page's bytes and its text
    n = 200_000
    r = _measure_in_fresh_process(1.0, "clean", n)
    assert r["drops"] == {"too-many-paragraphs": 1} and r["kept"] == 0, r
    assert r["peak_bytes"] / n < 100, r              # bytes per paragraph (measured ~10; ~1,040 before)
    assert r["peak_bytes"] < 20 * r["size"], r       # the README's bound for the clean stage


def test_blocks_are_start_tags_that_begin_a_paragraph():
    assert count_blocks("<p>a<P class=x>b<div>c</div><pre>d</pre><param><para><li/>e") == 5
    assert count_blocks("<br><br/><BR>x<br>") == 2                 # every second <br>
    assert count_blocks("<p-x><p:y><p.z><p_w><h7>") == 0            # other names
    assert count_blocks("<td>" * 10) == 10
    # under a limit: small pages and pages with few tags are not scanned (an upper bound)
    assert count_blocks("<p>" * 10, limit=100) == 15
    page = "<p>" + "x" * 1000 + "</p>"
    assert count_blocks(page, limit=100) == 2
    assert count_blocks("<p>a" * 300, limit=100) == 101                # above: the scan stops at limit + 1
    assert DEFAULT_MAX_PARAGRAPHS == 100_000


def test_build_drops_a_page_with_too_many_paragraphs_counted_and_named(tmp_path):
    from corpustool.cli import main

    words = "the river runs to the sea and the ships are in the harbour where we have been for a long time"
    normal = "<html><body>" + "".join(f"<p>{words} number {i}.</p>" for i in range(40)) + "</body></html>"
    many = "<html><body>" + "".join(f"<p>{words} line {i}.</p>" for i in range(80)) + "</body></html>"
    (tmp_path / "normal.html").write_text(normal)
    (tmp_path / "many.html").write_text(many)
    out, rejects, stats = tmp_path / "out.vert", tmp_path / "rej.jsonl", tmp_path / "stats.json"
    done = subprocess.run([sys.executable, "-m", "corpustool", "build", str(tmp_path / "normal.html"),
                           str(tmp_path / "many.html"), "-o", str(out), "--rejects", str(rejects),
                           "--stats", str(stats), "--lang", "en", "--max-paragraphs", "60"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "too-many-paragraphs=1" in done.stderr                 # named in the stages table
    assert out.read_text().count("<doc ") == 1 and "normal.html" in out.read_text()
    dropped = [json.loads(line) for line in rejects.read_text().splitlines()]
    assert [(Path(d["url"]).name, d["reason"]) for d in dropped] == [("many.html", "too-many-paragraphs")]
    assert '"too-many-paragraphs": 1' in stats.read_text()
    assert main(["build", str(tmp_path / "normal.html"), "-o", str(tmp_path / "x.vert"), "--max-paragraphs", "0"]) != 0
