"""The compiled search of the page declarations' marks finds what ``str.find`` finds.

``corpustool.text_types`` looks for ``ld+json``, ``itemtype``, ``<time``, ``</head`` and
``</script`` in a whole page with ``corpustool.native.text_scan.find_ascii`` when the extension
is built (SSE2 compares of three of the needle's characters, 16 bytes a step), else with
``str.find``. Compared here on seeded random strings of 1-, 2- and 4-byte characters with the
needles planted at every offset of a vector and cut at the ends, for every start and end, and,
when ../shared/data is present, ``page_metadata`` of the development pages both ways.
"""
from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from corpustool import text_types
from corpustool.native import backend

scan = pytest.importorskip("corpustool.native.text_scan")

from tests.support.paths import SHARED_DATA as SHARED
NEEDLES = ("ld+json", "itemtype", "<time", "</head", "</script", "x", "ab", "aaa", "abab", "a" * 64)
FILL = {1: "<>ltimeyd+jsonab é\x00", 2: "<>ltimeyd+jsonab €\u0100\uffff", 4: "<>ltimeyd+jsonab 😀\U0010ffff"}


def test_extension_is_used():
    if backend.FORCED == "python":
        assert text_types._find is str.find
        pytest.skip("the Python backend is forced (CORPUSTOOL_BACKEND=python)")
    assert text_types._find is scan.find_ascii


def test_find_ascii_equals_str_find():
    rng = random.Random(3232)
    for trial in range(3000):
        width = rng.choice((1, 2, 4))
        needle = rng.choice(NEEDLES)
        chars = FILL[width] + needle
        text = "".join(rng.choice(chars) for _ in range(rng.choice((0, 1, 5, 15, 16, 17, 40, 200))))
        for _ in range(rng.randint(0, 3)):        # the needle planted, or a piece of it
            at = rng.randint(0, len(text))
            piece = needle if rng.random() < 0.7 else needle[:rng.randint(1, len(needle))]
            text = text[:at] + piece + text[at:]
        starts = {0, 1, len(text), len(text) + 3, rng.randint(0, len(text) + 1)}
        for start in starts:
            for end in (len(text), len(text) + 5, rng.randint(0, len(text) + 1), start, 10 ** 9):
                assert scan.find_ascii(text, needle, start, end) == text.find(needle, start, end), (trial, text, needle, start, end)
        assert scan.find_ascii(text, needle) == text.find(needle)


def test_find_ascii_at_every_offset():
    for fill in ("-", "\u0101", "\U0001f600"):
        for needle in ("ld+json", "<time", "a" * 20):
            for n in range(0, 80):
                for at in range(0, n + 1):
                    text = fill * at + needle + fill * (n - at)
                    assert scan.find_ascii(text, needle) == at
                    assert scan.find_ascii(text, needle, at + 1) == -1
                    assert scan.find_ascii(text[:-1], needle) == (at if n > at else -1)


def test_find_ascii_refuses_bad_arguments():
    for needle in ("", "é", "a" * 65):
        with pytest.raises(ValueError):
            scan.find_ascii("abc", needle)
    with pytest.raises(ValueError):
        scan.find_ascii("abc", "a", -1)
    with pytest.raises(TypeError):
        scan.find_ascii(None, "a")
    with pytest.raises(TypeError):
        scan.find_ascii(b"abc", "a")


def test_page_metadata_of_the_development_pages_both_ways(monkeypatch):
    wcxb = SHARED / "wcxb-dev" / "html"
    if not wcxb.is_dir():
        pytest.skip("../shared/data/wcxb-dev not present")
    pages = [gzip.decompress(p.read_bytes()).decode("utf-8", "replace") for p in sorted(wcxb.glob("*.html.gz"))[:400]]
    compiled = [text_types.page_metadata(h, "https://example.org/2020/01/02/a", "2024-01-01") for h in pages]
    monkeypatch.setattr(text_types, "_find", str.find)
    assert [text_types.page_metadata(h, "https://example.org/2020/01/02/a", "2024-01-01") for h in pages] == compiled
