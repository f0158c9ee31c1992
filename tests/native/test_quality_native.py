"""The compiled word measures of the quality marks give exactly the counts of the Python twin.

``corpustool.quality.measure`` counts the words of a document's text with
``corpustool.native.text_scan.word_measures`` when the extension is built, else with
``quality._word_measures_python`` (numpy over the words of ``str.split``; tests/test_quality.py
compares that with the measures' counting definitions). Both return the same tuple of counts;
they are compared here on seeded random texts (scripts, digits, punctuation, white space of
every kind, combining marks, characters beyond the Basic Multilingual Plane, lone surrogates,
few distinct words so that n-grams repeat), on every character of Unicode, and, when
../shared/data is present, on the main texts of the development pages (WCXB and snippets).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from corpustool import quality
from corpustool.document import Paragraph
from corpustool.language.stoplists import stoplist
from corpustool.native import backend

scan = pytest.importorskip("corpustool.native.text_scan")
python_counts = quality._word_measures_python

from tests.support.paths import SHARED_DATA as SHARED
POOLS = [
    "abcdefghijklmnopqrstuvwxyz", "äöüßéèêçñøåæłśźżąęčřžšťďıǅǈ", "0123456789٠١٢۳४५",
    ".,;:!?()[]{}\"'«»-–—/\\|@#$%^&*+=<>~`…•·", "\u00ad\u200b\u200c\u200d", "'’_",
    "的一是不了人在有我他", "あいうえおアイウエオｱｲ", "\u0301\u0308\u0327\u093e\u0947\u064e\u20dd",
    "\U00020000\U0001d400\U0001f600\U00010400\U000e0101", "абвгдежзийклмнопрстуфхцчшщыэюя",
    "αβγδεζηθικλμνξοπρστυφχψω", "กขคงจฉ\u0e31\u0e34", "ⅠⅡⅢ½²³ↁ〇", "नमस्ते", "ﬁﬀ", "\ud800\udfff",
]
WORDS = ["the", "and", "of", "der", "die", "und", "le", "la", "et", "l", "so", "it's", "l'homme", "süd-ost",
         "i\u0307stanbul", "(and)", "the,", "e-mail", "x_y", "a1b", "3.5", "42", "—", "|", "x²", "#tag",
         "https://example.org/a", "...", "«quote»", "日本語", "😀", "½", "ⅻ", "wer\u00adte", "don’t"]
SEPARATORS = [" ", " ", " ", "\n", "\u00a0", "\t", " , ", "\u3000", "\u2003", "\x1c", "\x85", "\u2028", "\r\n", "  "]


def random_text(rng: random.Random, length: int) -> str:
    vocab = [rng.choice(WORDS) for _ in range(rng.choice((1, 2, 3, 5, 20)))]
    parts = []
    for _ in range(length):
        r = rng.random()
        if r < 0.6:
            parts.append(rng.choice(vocab))         # few distinct words: repeated n-grams
        elif r < 0.9:
            pool = rng.choice(POOLS)
            parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
        else:
            parts.append("".join(rng.choice(rng.choice(POOLS)) for _ in range(rng.randint(1, 10))))
        parts.append(rng.choice(SEPARATORS))
    if rng.random() < 0.3:
        parts = parts * rng.randint(2, 4)           # the whole text repeated: long repeated n-grams
    return "".join(parts)


STOPS = (None, frozenset(("the", "and", "l", "so", "und", "die")), stoplist("en"), stoplist("de"), frozenset())


def test_extension_is_used():
    # (the comparisons below would compare Python with itself if the import failed silently)
    if backend.FORCED == "python":
        assert quality.word_measures is python_counts
        pytest.skip("the Python backend is forced (CORPUSTOOL_BACKEND=python)")
    assert quality.word_measures is scan.word_measures


def test_word_measures_on_random_texts():
    rng = random.Random(3213)
    for trial in range(1500):
        lower = random_text(rng, rng.choice((0, 1, 2, 5, 9, 10, 11, 40, 300, 1500))).lower()
        stop = rng.choice(STOPS)
        for ngrams in (True, False):
            assert scan.word_measures(lower, stop, ngrams) == python_counts(lower, stop, ngrams), (trial, lower[:300])


def test_word_measures_on_every_character():
    # every code point alone, between letters, doubled, and repeated so that its n-grams repeat
    stop = frozenset(chr(c) for c in range(0, 0x110000, 7))
    for lo in range(0, 0x110000, 0x10000):
        parts = []
        for c in map(chr, range(lo, lo + 0x10000)):
            parts += (f"x{c}y", c, c + c, f"a {c} b {c}")
        lower = " ".join(parts)
        assert scan.word_measures(lower, stop, True) == python_counts(lower, stop, True), hex(lo)


def test_word_measures_refuses_bad_arguments():
    with pytest.raises(TypeError):
        scan.word_measures("a b", ["a"], True)
    with pytest.raises(TypeError):
        scan.word_measures(b"a b", None, True)
    with pytest.raises(TypeError):
        scan.word_measures(None, None, True)
    assert scan.word_measures("", None, True) == (0,) * 13


def test_measure_equals_the_python_twin(monkeypatch):
    rng = random.Random(32)
    docs = []
    for _ in range(300):
        paras = [random_text(rng, rng.choice((1, 5, 30, 200))) for _ in range(rng.randint(1, 6))]
        docs.append(([Paragraph(text=t, tag=rng.choice(("p", "li"))) for t in paras], rng.choice(("en", "de", "ja"))))
    compiled = [quality.measure(ps, lang, STOPS[2]) for ps, lang in docs]
    assert sum(m.get("q_dup5", 0) > 0 for m in compiled) > 30      # (repeated n-grams are exercised)
    monkeypatch.setattr(quality, "word_measures", python_counts)
    assert [quality.measure(ps, lang, STOPS[2]) for ps, lang in docs] == compiled


def _development_texts():
    wcxb = SHARED / "wcxb-dev" / "ground-truth"
    snippets = SHARED / "snippets" / "evaldata.json"
    if not wcxb.is_dir() or not snippets.is_file():
        pytest.skip("../shared/data (wcxb-dev, snippets) not present")
    for path in sorted(wcxb.glob("*.json")):
        gt = json.loads(path.read_text(encoding="utf-8")).get("ground_truth") or {}
        if isinstance(gt.get("main_content"), str):
            yield gt["main_content"]
    for entry in json.loads(snippets.read_text(encoding="utf-8")).values():
        yield "\n".join(entry.get("with") or ())


def test_word_measures_on_the_development_pages():
    n = 0
    for text in _development_texts():
        lower = text.lower()
        for stop in (stoplist("en"), stoplist("de")):
            assert scan.word_measures(lower, stop, True) == python_counts(lower, stop, True), text[:300]
        n += 1
    assert n > 2000
