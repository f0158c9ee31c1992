"""Memory per document is bounded (issue 19): a big page's peak RSS, measured in a child process."""
import importlib.util
from pathlib import Path

from corpustool.language.sample import LANGUAGE_SAMPLE_CHARS, language_sample

_spec = importlib.util.spec_from_file_location(
    "bench_big_page", Path(__file__).resolve().parent.parent / "scripts" / "bench_big_page.py")
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
